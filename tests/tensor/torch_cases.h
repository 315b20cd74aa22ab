/* torch_cases.h — the shapes of the PyTorch-generated test cases in
 * torch_expected_*.h (written by gen_expected.py), and the helpers that turn a
 * case into library tensors and compare a result against PyTorch's.
 *
 * A TestTensor describes an input: dtype, shape, row-major values, and the
 * memory layout PyTorch had (contiguous, dims permuted, or every k-th element
 * of a wider tensor along one dim), so the C side builds the same strides.
 * A TestResult is PyTorch's answer: dtype, shape, strides, storage offset and
 * values. Floats compare with rtol 1e-4 / atol 1e-5 (NaN equals NaN, infinities
 * must match); integers and bools compare exactly.
 */
#ifndef TSSA_TEST_TORCH_CASES_H
#define TSSA_TEST_TORCH_CASES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/tensor.h"

#define TEST_MAX_DIMS 6

typedef enum TestLayout { LAYOUT_CONTIG, LAYOUT_PERM, LAYOUT_STEP } TestLayout;

typedef struct TestTensor {
    TensorDType dtype;
    int ndim;                       /* -1: absent (a clamp bound not given) */
    int64_t sizes[TEST_MAX_DIMS];
    const double *f;                /* values of a floating tensor, or NULL */
    const int64_t *i;               /* values of an integer/bool tensor, or NULL */
    TestLayout layout;
    int nlayout;
    int64_t layout_args[TEST_MAX_DIMS];   /* PERM: the permutation; STEP: dim, k */
    bool wrapped;                   /* a Python number */
} TestTensor;

typedef struct TestResult {
    TensorDType dtype;
    int ndim;
    int64_t sizes[TEST_MAX_DIMS];
    int64_t strides[TEST_MAX_DIMS];
    int64_t offset;
    const double *f;
    const int64_t *i;
} TestResult;

typedef struct UnaryCase {
    const char *label;
    UnaryOp op;
    double p0, p1;
    TestTensor in;
    TestResult expected;
    const char *error;              /* PyTorch's error, or NULL */
} UnaryCase;

typedef struct BinaryCase {
    const char *label;
    BinaryOp op;
    double alpha;
    bool inplace;
    TestTensor a, b;
    TestResult expected;
    const char *error;
} BinaryCase;

typedef enum TernaryKind { T_WHERE, T_CLAMP, T_LERP } TernaryKind;

typedef struct TernaryCase {
    const char *label;
    TernaryKind kind;
    bool inplace;
    TestTensor in[3];
    TestResult expected;
    const char *error;
} TernaryCase;

typedef struct PromotionCase {
    TensorDType a;
    int a_dims;
    bool a_wrapped;
    TensorDType b;
    int b_dims;
    bool b_wrapped;
    TensorDType expected;
} PromotionCase;

typedef enum ViewKind {
    V_SELECT, V_SLICE, V_NARROW, V_VIEW, V_RESHAPE, V_SQUEEZE, V_SQUEEZE_DIM, V_UNSQUEEZE,
    V_EXPAND, V_PERMUTE, V_TRANSPOSE, V_T, V_DIAGONAL, V_FLATTEN, V_UNFLATTEN, V_MOVEDIM,
    V_CHUNK, V_SPLIT, V_SPLIT_SIZES, V_UNBIND,
} ViewKind;

typedef struct ViewCase {
    const char *label;
    ViewKind op;
    TestTensor in;
    int64_t args[TEST_MAX_DIMS];
    int nargs;
    int nresults;
    const TestResult *results;
    const bool *aliases;            /* result shares the input's storage */
    const char *error;
} ViewCase;

typedef enum CreationKind { C_ARANGE, C_LINSPACE, C_EYE } CreationKind;

typedef struct CreationCase {
    const char *label;
    CreationKind kind;
    double args[3];
    TensorDType dtype;
    TestResult expected;
    const char *error;
} CreationCase;

/* ------------------------------------------------------------------ helpers */

static inline int64_t test_numel(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    return n;
}

/* Builds the tensor a TestTensor describes, with the same layout PyTorch had. */
static inline Tensor *test_make_tensor(const TestTensor *spec)
{
    if (spec->ndim < 0)
        return NULL;
    int n = spec->ndim;
    int64_t numel = test_numel(n, spec->sizes);
    /* The values, contiguous. */
    Tensor *values = tensor_empty(spec->dtype, n, spec->sizes);
    if (!values)
        return NULL;
    for (int64_t k = 0; k < numel; k++) {
        if (spec->f)
            tensor_set_flat(values, k, spec->f[k]);
        else
            tensor_set_flat_int(values, k, spec->i[k]);
    }
    Tensor *result = NULL;
    if (spec->layout == LAYOUT_CONTIG) {
        result = tensor_retain(values);
    } else if (spec->layout == LAYOUT_PERM) {
        /* base has shape sizes[perm[k]]; base.permute(inverse) has `sizes`. */
        int64_t base_sizes[TEST_MAX_DIMS], inverse[TEST_MAX_DIMS];
        for (int k = 0; k < n; k++) {
            base_sizes[k] = spec->sizes[spec->layout_args[k]];
            inverse[spec->layout_args[k]] = k;
        }
        Tensor *base = tensor_empty(spec->dtype, n, base_sizes);
        result = tensor_permute(base, n, inverse);
        tensor_release(base);
    } else {
        int dim = (int)spec->layout_args[0];
        int64_t step = spec->layout_args[1];
        int64_t wide_sizes[TEST_MAX_DIMS];
        memcpy(wide_sizes, spec->sizes, sizeof wide_sizes);
        wide_sizes[dim] *= step;
        Tensor *wide = tensor_zeros(spec->dtype, n, wide_sizes);
        result = tensor_slice(wide, dim, 0, INT64_MAX, step);
        tensor_release(wide);
    }
    if (result && spec->layout != LAYOUT_CONTIG && !tensor_copy_(result, values)) {
        tensor_release(result);
        result = NULL;
    }
    tensor_release(values);
    if (result)
        result->wrapped_number = spec->wrapped;
    return result;
}

/* Floats compare with rtol 1e-4 / atol 1e-5. */
static inline bool test_close(double got, double want)
{
    return test_near(got, want, 1e-4, 1e-5);
}

/* Compares t with PyTorch's result: dtype, shape, values, and (when
 * check_layout) strides and storage offset. */
static inline void test_check_result(const char *label, const Tensor *t, const TestResult *want,
                              bool check_layout)
{
    CHECK_MSG(t->dtype == want->dtype, "%s: dtype %s, PyTorch %s", label, dtype_name(t->dtype),
              dtype_name(want->dtype));
    CHECK_MSG(t->ndim == want->ndim, "%s: ndim %d, PyTorch %d", label, t->ndim, want->ndim);
    if (t->ndim != want->ndim)
        return;
    for (int d = 0; d < t->ndim; d++) {
        CHECK_MSG(t->sizes[d] == want->sizes[d], "%s: size[%d] %lld, PyTorch %lld", label, d,
                  (long long)t->sizes[d], (long long)want->sizes[d]);
        if (t->sizes[d] != want->sizes[d])
            return;
    }
    if (check_layout) {
        for (int d = 0; d < t->ndim; d++)
            CHECK_MSG(t->strides[d] == want->strides[d], "%s: stride[%d] %lld, PyTorch %lld", label,
                      d, (long long)t->strides[d], (long long)want->strides[d]);
        CHECK_MSG(t->offset == want->offset, "%s: offset %lld, PyTorch %lld", label,
                  (long long)t->offset, (long long)want->offset);
    }
    int64_t numel = test_numel(want->ndim, want->sizes);
    for (int64_t k = 0; k < numel; k++) {
        if (want->f) {
            double got = tensor_get_flat(t, k);
            CHECK_MSG(test_close(got, want->f[k]), "%s: element %lld is %.9g, PyTorch %.9g", label,
                      (long long)k, got, want->f[k]);
        } else {
            int64_t got = tensor_get_flat_int(t, k);
            CHECK_MSG(got == want->i[k], "%s: element %lld is %lld, PyTorch %lld", label,
                      (long long)k, (long long)got, (long long)want->i[k]);
        }
    }
}

/* Expected failure: the library must fail with PyTorch's message. */
static inline void test_check_error(const char *label, bool failed, const char *want)
{
    CHECK_MSG(failed, "%s: succeeded, PyTorch raised \"%s\"", label, want);
    if (failed)
        CHECK_MSG(strcmp(tensor_last_error(), want) == 0, "%s: error \"%s\", PyTorch \"%s\"", label,
                  tensor_last_error(), want);
}

#endif
