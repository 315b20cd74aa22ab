/* npy_compare — compares two .npy files, as the test corpus needs:
 *
 *     npy_compare EXPECTED.npy ACTUAL.npy [--rtol 1e-4] [--atol 1e-5]
 *
 * Equal means: the same dtype, the same shape, and every element equal. Floats
 * are equal when |actual - expected| <= atol + rtol * |expected| (numpy's
 * isclose), NaN equals NaN, and an infinity equals only the same infinity;
 * integers and bools must match exactly.
 *
 * Exit status: 0 equal; 1 different, after printing the first mismatches
 * (index, expected, actual) and the largest absolute and relative errors;
 * 2 bad usage or a file that cannot be read.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

enum { MISMATCHES_SHOWN = 10 };

static void usage(void)
{
    fprintf(stderr, "usage: npy_compare EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]\n");
}

/* Parses a tolerance: a finite, non-negative number and nothing else. */
static bool parse_tolerance(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

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

static void print_shape(const Tensor *t)
{
    printf("(");
    for (int d = 0; d < t->ndim; d++)
        printf("%s%" PRId64, d ? ", " : "", t->sizes[d]);
    printf(t->ndim == 1 ? ",)" : ")");
}

/* Prints the multi-dimensional index of row-major element i. */
static void print_index(const Tensor *t, int64_t i)
{
    int64_t index[TENSOR_MAX_DIMS];
    for (int d = t->ndim - 1; d >= 0; d--) {
        index[d] = t->sizes[d] ? i % t->sizes[d] : 0;
        i = t->sizes[d] ? i / t->sizes[d] : 0;
    }
    printf("[");
    for (int d = 0; d < t->ndim; d++)
        printf("%s%" PRId64, d ? ", " : "", index[d]);
    printf("]");
}

/* Compares element by element; prints mismatches and returns their count. */
static int64_t compare_values(const Tensor *expected, const Tensor *actual, double rtol,
                              double atol, const char *expected_path, const char *actual_path)
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
                printf("%s: values differ from %s\n", actual_path, expected_path);
            if (!equal && mismatches < MISMATCHES_SHOWN) {
                printf("  at ");
                print_index(expected, i);
                printf(": expected ");
                printf(float_format, e);
                printf(", actual ");
                printf(float_format, a);
                printf("\n");
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
                printf("%s: values differ from %s\n", actual_path, expected_path);
            if (!equal && mismatches < MISMATCHES_SHOWN) {
                printf("  at ");
                print_index(expected, i);
                printf(": expected %" PRId64 ", actual %" PRId64 "\n", e, a);
            }
        }
        mismatches += !equal;
    }
    if (mismatches > 0) {
        if (mismatches > MISMATCHES_SHOWN)
            printf("  ... (%" PRId64 " more)\n", mismatches - MISMATCHES_SHOWN);
        printf("  %" PRId64 " of %" PRId64 " elements differ (rtol %g, atol %g); "
               "max abs error %g, max rel error %g\n",
               mismatches, numel, rtol, atol, max_abs, max_rel);
    }
    return mismatches;
}

int main(int argc, char **argv)
{
    const char *paths[2];
    int npaths = 0;
    double rtol = 1e-4, atol = 1e-5;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        double *tolerance = NULL;
        const char *value = NULL;
        if (strncmp(arg, "--rtol", 6) == 0 || strncmp(arg, "--atol", 6) == 0) {
            tolerance = arg[2] == 'r' ? &rtol : &atol;
            if (arg[6] == '=')
                value = arg + 7;
            else if (arg[6] == '\0' && i + 1 < argc)
                value = argv[++i];
            if (!value || !parse_tolerance(value, tolerance)) {
                fprintf(stderr, "npy_compare: %s needs a non-negative number\n", arg);
                usage();
                return 2;
            }
        } else if (arg[0] == '-' && arg[1] == '-') {
            fprintf(stderr, "npy_compare: unknown option %s\n", arg);
            usage();
            return 2;
        } else if (npaths < 2) {
            paths[npaths++] = arg;
        } else {
            usage();
            return 2;
        }
    }
    if (npaths != 2) {
        usage();
        return 2;
    }

    Tensor *expected = npy_read(paths[0], stderr);
    Tensor *actual = npy_read(paths[1], stderr);
    int status = 0;
    if (!expected || !actual) {
        status = 2;
    } else if (expected->dtype != actual->dtype) {
        printf("%s: dtype differs: expected %s, actual %s\n", paths[1], dtype_name(expected->dtype),
               dtype_name(actual->dtype));
        status = 1;
    } else if (!tensor_same_shape(expected, actual)) {
        printf("%s: shape differs: expected ", paths[1]);
        print_shape(expected);
        printf(", actual ");
        print_shape(actual);
        printf("\n");
        status = 1;
    } else {
        int64_t mismatches = compare_values(expected, actual, rtol, atol, paths[0], paths[1]);
        status = mismatches == 0 ? 0 : 1;
    }
    tensor_release(expected);
    tensor_release(actual);
    return status;
}
