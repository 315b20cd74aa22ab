/* npy_check.c — the corpus's comparison of an output .npy with PyTorch's
 * (npy_check.h says what "equal" means). npy_compare (the command) and
 * tssa-conform (the conformance runner) both call it, so a case passes or
 * fails the same way whichever runs it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "tools/npy_check.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

enum { MISMATCHES_SHOWN = 10 };

/* Element i of a contiguous tensor (npy_read returns contiguous tensors). */
static double load_float(const Tensor *t, int64_t i)
{
    const char *data = tensor_data(t);
    if (t->dtype == DT_F32) {
        float v;
        memcpy(&v, data + i * 4, 4);
        return v;
    }
    double v;
    memcpy(&v, data + i * 8, 8);
    return v;
}

static int64_t load_int(const Tensor *t, int64_t i)
{
    const char *p = (const char *)tensor_data(t) + i * (int64_t)dtype_size(t->dtype);
    switch (t->dtype) {
    case DT_BOOL:
    case DT_U8: return *(const uint8_t *)p;
    case DT_I8: return *(const int8_t *)p;
    case DT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void print_shape(FILE *report, const Tensor *t)
{
    fprintf(report, "(");
    for (int d = 0; d < t->ndim; d++)
        fprintf(report, "%s%" PRId64, d ? ", " : "", t->sizes[d]);
    fprintf(report, t->ndim == 1 ? ",)" : ")");
}

/* Prints the multi-dimensional index of row-major element i. */
static void print_index(FILE *report, const Tensor *t, int64_t i)
{
    int64_t index[TENSOR_MAX_DIMS];
    for (int d = t->ndim - 1; d >= 0; d--) {
        index[d] = t->sizes[d] ? i % t->sizes[d] : 0;
        i = t->sizes[d] ? i / t->sizes[d] : 0;
    }
    fprintf(report, "[");
    for (int d = 0; d < t->ndim; d++)
        fprintf(report, "%s%" PRId64, d ? ", " : "", index[d]);
    fprintf(report, "]");
}

/* Compares element by element; prints mismatches and returns their count. */
static int64_t compare_values(const Tensor *expected, const Tensor *actual, double rtol,
                              double atol, const char *expected_path, const char *actual_path,
                              FILE *report)
{
    int64_t numel = tensor_numel(expected), mismatches = 0;
    bool is_float = dtype_is_float(expected->dtype);
    const char *float_format = expected->dtype == DT_F32 ? "%.9g" : "%.17g";
    double max_abs = 0, max_rel = 0;
    for (int64_t i = 0; i < numel; i++) {
        bool equal;
        if (is_float) {
            double e = load_float(expected, i), a = load_float(actual, i);
            equal = test_near(a, e, rtol, atol);
            if (isfinite(e) && isfinite(a)) {
                double abs_error = fabs(a - e);
                double rel_error = e != 0 ? abs_error / fabs(e) : abs_error > 0 ? INFINITY : 0;
                max_abs = fmax(max_abs, abs_error);
                max_rel = fmax(max_rel, rel_error);
            }
            if (!equal && mismatches == 0)
                fprintf(report, "%s: values differ from %s\n", actual_path, expected_path);
            if (!equal && mismatches < MISMATCHES_SHOWN) {
                fprintf(report, "  at ");
                print_index(report, expected, i);
                fprintf(report, ": expected ");
                fprintf(report, float_format, e);
                fprintf(report, ", actual ");
                fprintf(report, float_format, a);
                fprintf(report, "\n");
            }
        } else {
            int64_t e = load_int(expected, i), a = load_int(actual, i);
            equal = e == a;
            if (!equal) {
                double abs_error = fabs((double)a - (double)e);
                max_abs = fmax(max_abs, abs_error);
                max_rel = fmax(max_rel, e != 0 ? abs_error / fabs((double)e) : INFINITY);
            }
            if (!equal && mismatches == 0)
                fprintf(report, "%s: values differ from %s\n", actual_path, expected_path);
            if (!equal && mismatches < MISMATCHES_SHOWN) {
                fprintf(report, "  at ");
                print_index(report, expected, i);
                fprintf(report, ": expected %" PRId64 ", actual %" PRId64 "\n", e, a);
            }
        }
        mismatches += !equal;
    }
    if (mismatches > 0) {
        if (mismatches > MISMATCHES_SHOWN)
            fprintf(report, "  ... (%" PRId64 " more)\n", mismatches - MISMATCHES_SHOWN);
        fprintf(report, "  %" PRId64 " of %" PRId64 " elements differ (rtol %g, atol %g); "
               "max abs error %g, max rel error %g\n",
               mismatches, numel, rtol, atol, max_abs, max_rel);
    }
    return mismatches;
}

int npy_check_files(const char *expected_path, const char *actual_path, double rtol,
                    double atol, FILE *report, FILE *errors)
{
    Tensor *expected = npy_read(expected_path, errors);
    Tensor *actual = npy_read(actual_path, errors);
    int status = 0;
    if (!expected || !actual) {
        status = 2;
    } else if (expected->dtype != actual->dtype) {
        fprintf(report, "%s: dtype differs: expected %s, actual %s\n", actual_path,
                dtype_name(expected->dtype), dtype_name(actual->dtype));
        status = 1;
    } else if (!tensor_same_shape(expected, actual)) {
        fprintf(report, "%s: shape differs: expected ", actual_path);
        print_shape(report, expected);
        fprintf(report, ", actual ");
        print_shape(report, actual);
        fprintf(report, "\n");
        status = 1;
    } else {
        int64_t mismatches =
            compare_values(expected, actual, rtol, atol, expected_path, actual_path, report);
        status = mismatches == 0 ? 0 : 1;
    }
    tensor_release(expected);
    tensor_release(actual);
    return status;
}
