/* reduce.c — reductions with PyTorch's semantics: sum, mean, prod, amax/amin,
 * max/min (values and indices), argmax/argmin, softmax/log_softmax,
 * logsumexp, cumsum/cumprod, all/any, norm, var/std.
 *
 * A reduction over a set of dims first builds a ReduceLayout: a view of the
 * input whose dims are reordered "kept dims, then reduced dims", so that
 * reading it row-major gives an [outer][inner] array: one contiguous line of
 * `inner` values per output element, outputs in row-major order of the kept
 * dims (which is also the order of the contiguous result, with or without
 * keepdim). Lines are reduced in double (floating dtypes) or wrapping int64
 * (integers and bool), and rounded to the output dtype on store. Scans and
 * softmax work along one dim through "dim moved last" views of the input and
 * of the output.
 *
 * Floating sums use pairwise summation in double, so float32 results are
 * within float rounding of PyTorch's; integer sums and products wrap exactly
 * as PyTorch's int64 arithmetic does.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ReduceLayout {
    int out_ndim;
    int64_t out_sizes[TENSOR_MAX_DIMS];
    int64_t outer;              /* number of outputs */
    int64_t inner;              /* values per output */
    bool reduced[TENSOR_MAX_DIMS];
    Tensor *arranged;           /* kept dims then reduced dims (a view) */
} ReduceLayout;

static bool reduce_layout(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, ReduceLayout *L)
{
    if (!kern_dims_to_mask(dims, ndims, t->ndim, L->reduced))
        return false;
    int perm[TENSOR_MAX_DIMS];
    int k = 0;
    L->out_ndim = 0;
    L->outer = 1;
    L->inner = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (L->reduced[d]) {
            L->inner *= t->sizes[d];
            if (keepdim)
                L->out_sizes[L->out_ndim++] = 1;
        } else {
            perm[k++] = d;
            L->outer *= t->sizes[d];
            L->out_sizes[L->out_ndim++] = t->sizes[d];
        }
    }
    for (int d = 0; d < t->ndim; d++)
        if (L->reduced[d])
            perm[k++] = d;
    L->arranged = kern_permuted_view(t, perm);
    return L->arranged != NULL;
}

/* PyTorch refuses max-like reductions that would reduce nothing. */
static bool check_nonempty_reduction(const Tensor *t, const ReduceLayout *L, bool all_dims, const char *fn)
{
    if (tensor_numel(t) != 0)
        return true;
    if (all_dims) {
        tensor_set_error("%s(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.", fn);
        return false;
    }
    for (int d = 0; d < t->ndim; d++)
        if (L->reduced[d] && t->sizes[d] == 0) {
            tensor_set_error("%s(): Expected reduction dim %d to have non-zero size.", fn, d);
            return false;
        }
    return true;
}

static bool valid_dtype_code(int code)
{
    if (code < 0 || code >= DT_COUNT) {
        tensor_set_error("invalid dtype code %d", code);
        return false;
    }
    return true;
}

/* The arranged values as doubles; `through` rounds each value through a
 * dtype first (PyTorch casts the input to the requested dtype). */
static double *arranged_f64(const ReduceLayout *L, TensorDType src, TensorDType through)
{
    double *v = kern_read_all_f64(L->arranged);
    if (v && src != through) {
        int64_t n = L->outer * L->inner;
        for (int64_t i = 0; i < n; i++)
            v[i] = tensor_round_f64(through, v[i]);
    }
    return v;
}

static double pairwise_sum(const double *v, int64_t n)
{
    if (n <= 16) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++)
            s += v[i];
        return s;
    }
    int64_t half = n / 2;
    return pairwise_sum(v, half) + pairwise_sum(v + half, n - half);
}

/* ---------------------------------------------------------------- sum, mean, prod */

typedef enum AccumKind { ACC_SUM, ACC_MEAN, ACC_PROD } AccumKind;

static Tensor *reduce_accumulate(const Tensor *t, const int64_t *dims, int ndims, bool keepdim,
                                 TensorDType odt, AccumKind kind)
{
    ReduceLayout L;
    if (!reduce_layout(t, dims, ndims, keepdim, &L))
        return NULL;
    Tensor *out = tensor_empty(odt, L.out_ndim, L.out_sizes);
    if (!out)
        goto fail;
    if (dtype_is_float(odt)) {
        double *v = arranged_f64(&L, t->dtype, odt);
        double *r = kern_malloc((size_t)L.outer, sizeof *r);
        if (!v || !r) {
            free(v);
            free(r);
            goto fail;
        }
        for (int64_t o = 0; o < L.outer; o++) {
            const double *line = v + o * L.inner;
            if (kind == ACC_PROD) {
                double p = 1.0;
                for (int64_t i = 0; i < L.inner; i++)
                    p *= line[i];
                r[o] = p;
            } else {
                double s = pairwise_sum(line, L.inner);
                r[o] = kind == ACC_MEAN ? s / (double)L.inner : s;
            }
        }
        kern_write_all_f64(out, r);
        free(v);
        free(r);
    } else {
        int64_t *v = kern_read_all_i64(L.arranged);
        int64_t *r = kern_malloc((size_t)L.outer, sizeof *r);
        if (!v || !r) {
            free(v);
            free(r);
            goto fail;
        }
        for (int64_t o = 0; o < L.outer; o++) {
            const int64_t *line = v + o * L.inner;
            uint64_t acc = kind == ACC_PROD ? 1u : 0u;     /* wraps like int64 */
            for (int64_t i = 0; i < L.inner; i++)
                acc = kind == ACC_PROD ? acc * (uint64_t)line[i] : acc + (uint64_t)line[i];
            r[o] = (int64_t)acc;
        }
        kern_write_all_i64(out, r);
        free(v);
        free(r);
    }
    tensor_release(L.arranged);
    return out;
fail:
    tensor_release(out);
    tensor_release(L.arranged);
    return NULL;
}

static TensorDType sum_default_dtype(const Tensor *t)
{
    return dtype_is_float(t->dtype) ? t->dtype : DT_I64;
}

Tensor *tensor_sum(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype)
{
    if (out_dtype >= 0 && !valid_dtype_code(out_dtype))
        return NULL;
    TensorDType odt = out_dtype >= 0 ? (TensorDType)out_dtype : sum_default_dtype(t);
    return reduce_accumulate(t, dims, ndims, keepdim, odt, ACC_SUM);
}

Tensor *tensor_prod(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype)
{
    if (out_dtype >= 0 && !valid_dtype_code(out_dtype))
        return NULL;
    TensorDType odt = out_dtype >= 0 ? (TensorDType)out_dtype : sum_default_dtype(t);
    return reduce_accumulate(t, dims, ndims, keepdim, odt, ACC_PROD);
}

Tensor *tensor_mean(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype)
{
    if (out_dtype >= 0) {
        if (!valid_dtype_code(out_dtype))
            return NULL;
        if (!dtype_is_float((TensorDType)out_dtype)) {
            tensor_set_error("mean(): could not infer output dtype. Optional dtype must be either a floating "
                             "point or complex dtype. Got: %s", dtype_ts_name((TensorDType)out_dtype));
            return NULL;
        }
    } else if (!dtype_is_float(t->dtype)) {
        tensor_set_error("mean(): could not infer output dtype. Input dtype must be either a floating "
                         "point or complex dtype. Got: %s", dtype_ts_name(t->dtype));
        return NULL;
    }
    TensorDType odt = out_dtype >= 0 ? (TensorDType)out_dtype : t->dtype;
    return reduce_accumulate(t, dims, ndims, keepdim, odt, ACC_MEAN);
}

/* ---------------------------------------------------------------- extremes */

/* Index of the max (or min) of a line; NaN counts as the extreme and the
 * first occurrence wins, as in PyTorch's CPU kernels. n >= 1. */
static int64_t extreme_index_f64(const double *v, int64_t n, bool want_max)
{
    int64_t best = 0;
    if (isnan(v[0]))
        return 0;
    for (int64_t i = 1; i < n; i++) {
        if (isnan(v[i]))
            return i;
        if (want_max ? v[i] > v[best] : v[i] < v[best])
            best = i;
    }
    return best;
}

static int64_t extreme_index_i64(const int64_t *v, int64_t n, bool want_max)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (want_max ? v[i] > v[best] : v[i] < v[best])
            best = i;
    return best;
}

/* Values (into `values`, may be NULL) and indices (into `indices`, may be
 * NULL) of the extreme of every line of a layout. */
static bool reduce_extreme(const Tensor *t, const ReduceLayout *L, bool want_max, Tensor *values, Tensor *indices)
{
    int64_t *idx = kern_malloc((size_t)L->outer, sizeof *idx);
    if (!idx)
        return false;
    bool ok = true;
    if (dtype_is_float(t->dtype)) {
        double *v = kern_read_all_f64(L->arranged);
        double *r = kern_malloc((size_t)L->outer, sizeof *r);
        ok = v && r;
        for (int64_t o = 0; ok && o < L->outer; o++) {
            idx[o] = extreme_index_f64(v + o * L->inner, L->inner, want_max);
            r[o] = v[o * L->inner + idx[o]];
        }
        if (ok && values)
            kern_write_all_f64(values, r);
        free(v);
        free(r);
    } else {
        int64_t *v = kern_read_all_i64(L->arranged);
        int64_t *r = kern_malloc((size_t)L->outer, sizeof *r);
        ok = v && r;
        for (int64_t o = 0; ok && o < L->outer; o++) {
            idx[o] = extreme_index_i64(v + o * L->inner, L->inner, want_max);
            r[o] = v[o * L->inner + idx[o]];
        }
        if (ok && values)
            kern_write_all_i64(values, r);
        free(v);
        free(r);
    }
    if (ok && indices)
        kern_write_all_i64(indices, idx);
    free(idx);
    return ok;
}

static Tensor *reduce_amax_amin(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, bool want_max)
{
    const char *fn = want_max ? "amax" : "amin";
    ReduceLayout L;
    if (!reduce_layout(t, dims, ndims, keepdim, &L))
        return NULL;
    Tensor *out = NULL;
    if (check_nonempty_reduction(t, &L, ndims == 0, fn)) {
        out = tensor_empty(t->dtype, L.out_ndim, L.out_sizes);
        if (out && !reduce_extreme(t, &L, want_max, out, NULL)) {
            tensor_release(out);
            out = NULL;
        }
    }
    tensor_release(L.arranged);
    return out;
}

Tensor *tensor_amax(const Tensor *t, const int64_t *dims, int ndims, bool keepdim)
{
    return reduce_amax_amin(t, dims, ndims, keepdim, true);
}

Tensor *tensor_amin(const Tensor *t, const int64_t *dims, int ndims, bool keepdim)
{
    return reduce_amax_amin(t, dims, ndims, keepdim, false);
}

static Tensor *reduce_all_extreme(const Tensor *t, bool want_max)
{
    const char *fn = want_max ? "max" : "min";
    ReduceLayout L;
    if (!reduce_layout(t, NULL, 0, false, &L))
        return NULL;
    Tensor *out = NULL;
    if (check_nonempty_reduction(t, &L, true, fn)) {
        out = tensor_empty(t->dtype, 0, NULL);
        if (out && !reduce_extreme(t, &L, want_max, out, NULL)) {
            tensor_release(out);
            out = NULL;
        }
    }
    tensor_release(L.arranged);
    return out;
}

Tensor *tensor_max_all(const Tensor *t)
{
    return reduce_all_extreme(t, true);
}

Tensor *tensor_min_all(const Tensor *t)
{
    return reduce_all_extreme(t, false);
}

static bool reduce_extreme_dim(const Tensor *t, int64_t dim, bool keepdim, bool want_max,
                               Tensor **values, Tensor **indices)
{
    const char *fn = want_max ? "max" : "min";
    *values = NULL;
    *indices = NULL;
    ReduceLayout L;
    int64_t dims[1] = {dim};
    if (!reduce_layout(t, dims, 1, keepdim, &L))
        return false;
    bool ok = check_nonempty_reduction(t, &L, false, fn);
    if (ok) {
        *values = tensor_empty(t->dtype, L.out_ndim, L.out_sizes);
        *indices = tensor_empty(DT_I64, L.out_ndim, L.out_sizes);
        ok = *values && *indices && reduce_extreme(t, &L, want_max, *values, *indices);
    }
    tensor_release(L.arranged);
    if (!ok) {
        tensor_release(*values);
        tensor_release(*indices);
        *values = *indices = NULL;
    }
    return ok;
}

bool tensor_max_dim(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices)
{
    return reduce_extreme_dim(t, dim, keepdim, true, values, indices);
}

bool tensor_min_dim(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices)
{
    return reduce_extreme_dim(t, dim, keepdim, false, values, indices);
}

static Tensor *reduce_arg_extreme(const Tensor *t, bool has_dim, int64_t dim, bool keepdim, bool want_max)
{
    const char *fn = want_max ? "argmax" : "argmin";
    if (t->dtype == DT_BOOL) {
        tensor_set_error("\"%s_cpu\" not implemented for 'Bool'", fn);
        return NULL;
    }
    ReduceLayout L;
    int64_t dims[1] = {dim};
    if (!reduce_layout(t, has_dim ? dims : NULL, has_dim ? 1 : 0, keepdim, &L))
        return NULL;
    Tensor *out = NULL;
    if (!has_dim && tensor_numel(t) == 0) {
        tensor_set_error("%s(): Expected reduction dim to be specified for input.numel() == 0.", fn);
    } else if (check_nonempty_reduction(t, &L, false, fn)) {
        out = tensor_empty(DT_I64, L.out_ndim, L.out_sizes);
        if (out && !reduce_extreme(t, &L, want_max, NULL, out)) {
            tensor_release(out);
            out = NULL;
        }
    }
    tensor_release(L.arranged);
    return out;
}

Tensor *tensor_argmax(const Tensor *t, bool has_dim, int64_t dim, bool keepdim)
{
    return reduce_arg_extreme(t, has_dim, dim, keepdim, true);
}

Tensor *tensor_argmin(const Tensor *t, bool has_dim, int64_t dim, bool keepdim)
{
    return reduce_arg_extreme(t, has_dim, dim, keepdim, false);
}

/* ---------------------------------------------------------------- along one dim */

/* Applies a line function to every line of t along dim, writing a tensor of
 * dtype odt and t's shape: line_f64 over doubles when odt is floating (the
 * input rounded through odt first), line_i64 over int64s otherwise (results
 * wrap to odt on store). */
typedef void (*LineFn)(double *line, int64_t n);
typedef void (*IntLineFn)(int64_t *line, int64_t n);

static Tensor *map_lines(const Tensor *t, int64_t dim, TensorDType odt, LineFn line_f64,
                         IntLineFn line_i64)
{
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    bool as_float = dtype_is_float(odt);
    Tensor *out = tensor_empty(odt, t->ndim, t->sizes);
    Tensor *src_view = kern_dim_last_view(t, d);
    Tensor *out_view = out ? kern_dim_last_view(out, d) : NULL;
    void *v = !src_view ? NULL
              : as_float ? (void *)kern_read_all_f64(src_view) : (void *)kern_read_all_i64(src_view);
    if (!out || !src_view || !out_view || !v) {
        tensor_release(out);
        out = NULL;
    } else {
        int64_t n = tensor_numel(t);
        int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
        if (as_float) {
            double *x = v;
            if (t->dtype != odt)
                for (int64_t i = 0; i < n; i++)
                    x[i] = tensor_round_f64(odt, x[i]);
            for (int64_t start = 0; len > 0 && start < n; start += len)
                line_f64(x + start, len);
            kern_write_all_f64(out_view, x);
        } else {
            int64_t *x = v;
            for (int64_t start = 0; len > 0 && start < n; start += len)
                line_i64(x + start, len);
            kern_write_all_i64(out_view, x);
        }
    }
    free(v);
    tensor_release(src_view);
    tensor_release(out_view);
    return out;
}

static double line_max(const double *x, int64_t n)
{
    double m = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        if (x[i] > m || isnan(x[i]))
            m = x[i];
    return m;
}

static void softmax_line(double *x, int64_t n)
{
    double m = line_max(x, n);
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = exp(x[i] - m);
        s += x[i];
    }
    for (int64_t i = 0; i < n; i++)
        x[i] /= s;
}

static void log_softmax_line(double *x, int64_t n)
{
    double m = line_max(x, n);
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += exp(x[i] - m);
    double log_s = log(s);
    for (int64_t i = 0; i < n; i++)
        x[i] = x[i] - m - log_s;
}

static void cumsum_line(double *x, int64_t n)
{
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++) {
        acc += x[i];
        x[i] = acc;
    }
}

static void cumprod_line(double *x, int64_t n)
{
    double acc = 1.0;
    for (int64_t i = 0; i < n; i++) {
        acc *= x[i];
        x[i] = acc;
    }
}

/* Integer scans wrap modulo 2^64 (then to the output dtype on store). */
static void cumsum_line_int(int64_t *x, int64_t n)
{
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
        acc += (uint64_t)x[i];
        x[i] = (int64_t)acc;
    }
}

static void cumprod_line_int(int64_t *x, int64_t n)
{
    uint64_t acc = 1;
    for (int64_t i = 0; i < n; i++) {
        acc *= (uint64_t)x[i];
        x[i] = (int64_t)acc;
    }
}

static Tensor *softmax_common(const Tensor *t, int64_t dim, int out_dtype, bool log_form)
{
    if (out_dtype >= 0 && !valid_dtype_code(out_dtype))
        return NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    TensorDType odt = out_dtype >= 0 ? (TensorDType)out_dtype : t->dtype;
    if (!dtype_is_float(odt)) {
        bool last = t->ndim == 0 || d == t->ndim - 1;
        /* ATen names the last-dim kernels apart; the other one is shared */
        tensor_set_error("\"%s\" not implemented for '%s'",
                         !last ? "softmax_kernel_impl"
                         : log_form ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl",
                         dtype_ts_name(odt));
        return NULL;
    }
    return map_lines(t, dim, odt, log_form ? log_softmax_line : softmax_line, NULL);
}

Tensor *tensor_softmax(const Tensor *t, int64_t dim, int out_dtype)
{
    return softmax_common(t, dim, out_dtype, false);
}

Tensor *tensor_log_softmax(const Tensor *t, int64_t dim, int out_dtype)
{
    return softmax_common(t, dim, out_dtype, true);
}

/* Scans accumulate in double (PyTorch's CPU acc type for float) and wrap in
 * int64 for integer results. */
static Tensor *scan_common(const Tensor *t, int64_t dim, int out_dtype, bool product)
{
    if (out_dtype >= 0 && !valid_dtype_code(out_dtype))
        return NULL;
    TensorDType odt = out_dtype >= 0 ? (TensorDType)out_dtype : sum_default_dtype(t);
    return map_lines(t, dim, odt, product ? cumprod_line : cumsum_line,
                     product ? cumprod_line_int : cumsum_line_int);
}

Tensor *tensor_cumsum(const Tensor *t, int64_t dim, int out_dtype)
{
    return scan_common(t, dim, out_dtype, false);
}

Tensor *tensor_cumprod(const Tensor *t, int64_t dim, int out_dtype)
{
    return scan_common(t, dim, out_dtype, true);
}

/* ---------------------------------------------------------------- logsumexp */

/* PyTorch: m = amax (0 when infinite, so that all -inf gives -inf and not
 * nan), result = log(sum(exp(x - m))) + m. Integer inputs give float32. */
Tensor *tensor_logsumexp(const Tensor *t, const int64_t *dims, int ndims, bool keepdim)
{
    TensorDType odt = dtype_is_float(t->dtype) ? t->dtype : dtype_default_float();
    ReduceLayout L;
    if (!reduce_layout(t, dims, ndims, keepdim, &L))
        return NULL;
    Tensor *out = tensor_empty(odt, L.out_ndim, L.out_sizes);
    if (out && t->dtype == DT_F32) {
        /* float32 as ATen computes it, exp in float (a vector loop), the sum
         * kept in double: the double path below spent most of SuperGlue's
         * Sinkhorn in libm's double exp and a double copy of its input */
        Tensor *c = tensor_contiguous(L.arranged);
        const float *fv = c ? tensor_data(c) : NULL;
        float *ov = tensor_data(out);
        for (int64_t o = 0; fv && o < L.outer; o++) {
            const float *line = fv + o * L.inner;
            float m = -INFINITY;
            for (int64_t i = 0; i < L.inner; i++)
                if (line[i] > m || isnan(line[i]))
                    m = line[i];
            if (L.inner == 0 || isinf(m))
                m = 0.0f;
            double sum = 0.0;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < L.inner; i++)
                sum += (double)expf(line[i] - m);
            ov[o] = (float)(log(sum) + m);
        }
        if (!fv) {
            tensor_release(out);
            out = NULL;
        }
        tensor_release(c);
        tensor_release(L.arranged);
        return out;
    }
    double *v = kern_read_all_f64(L.arranged);
    double *r = kern_malloc((size_t)L.outer, sizeof *r);
    if (!out || !v || !r) {
        tensor_release(out);
        out = NULL;
    } else {
        for (int64_t o = 0; o < L.outer; o++) {
            const double *line = v + o * L.inner;
            double m = L.inner > 0 ? line_max(line, L.inner) : 0.0;
            if (isinf(m))
                m = 0.0;
            double s = 0.0;
            for (int64_t i = 0; i < L.inner; i++)
                s += exp(line[i] - m);
            r[o] = log(s) + m;
        }
        kern_write_all_f64(out, r);
    }
    free(v);
    free(r);
    tensor_release(L.arranged);
    return out;
}

/* ---------------------------------------------------------------- all, any */

/* Result dtype: uint8 for uint8 input (PyTorch keeps it), bool otherwise. */
static Tensor *reduce_logical(const Tensor *t, bool has_dim, int64_t dim, bool keepdim, bool want_all)
{
    ReduceLayout L;
    int64_t dims[1] = {dim};
    if (!reduce_layout(t, has_dim ? dims : NULL, has_dim ? 1 : 0, has_dim && keepdim, &L))
        return NULL;
    TensorDType odt = t->dtype == DT_U8 ? DT_U8 : DT_BOOL;
    Tensor *out = tensor_empty(odt, L.out_ndim, L.out_sizes);
    double *v = kern_read_all_f64(L.arranged);
    int64_t *r = kern_malloc((size_t)L.outer, sizeof *r);
    if (!out || !v || !r) {
        tensor_release(out);
        out = NULL;
    } else {
        for (int64_t o = 0; o < L.outer; o++) {
            bool acc = want_all;
            for (int64_t i = 0; i < L.inner; i++) {
                bool nz = v[o * L.inner + i] != 0.0;     /* NaN counts as true */
                if (want_all ? !nz : nz) {
                    acc = !want_all;
                    break;
                }
            }
            r[o] = acc;
        }
        kern_write_all_i64(out, r);
    }
    free(v);
    free(r);
    tensor_release(L.arranged);
    return out;
}

Tensor *tensor_all(const Tensor *t, bool has_dim, int64_t dim, bool keepdim)
{
    return reduce_logical(t, has_dim, dim, keepdim, true);
}

Tensor *tensor_any(const Tensor *t, bool has_dim, int64_t dim, bool keepdim)
{
    return reduce_logical(t, has_dim, dim, keepdim, false);
}

/* ---------------------------------------------------------------- norm, var, std */

static double line_norm(const double *x, int64_t n, double p)
{
    if (isinf(p)) {
        /* max |x| or min |x|; an empty line gives 0 as torch.norm does. */
        if (n == 0)
            return 0.0;
        double m = fabs(x[0]);
        for (int64_t i = 1; i < n && !isnan(m); i++) {
            double a = fabs(x[i]);
            if (isnan(a) || (p > 0 ? a > m : a < m))
                m = a;
        }
        return m;
    }
    if (p == 0.0) {
        double c = 0.0;
        for (int64_t i = 0; i < n; i++)
            c += x[i] != 0.0;
        return c;
    }
    double s = 0.0;
    if (p == 1.0) {
        for (int64_t i = 0; i < n; i++)
            s += fabs(x[i]);
        return s;
    }
    if (p == 2.0) {
        for (int64_t i = 0; i < n; i++)
            s += x[i] * x[i];
        return sqrt(s);
    }
    for (int64_t i = 0; i < n; i++)
        s += pow(fabs(x[i]), p);
    return pow(s, 1.0 / p);
}

typedef enum MomentKind { MOMENT_NORM, MOMENT_VAR, MOMENT_STD } MomentKind;

static Tensor *reduce_moment(const Tensor *t, const int64_t *dims, int ndims, bool keepdim,
                             MomentKind kind, double param)
{
    if (!dtype_is_float(t->dtype)) {
        if (kind == MOMENT_NORM)
            tensor_set_error("norm(): input dtype should be either floating point or complex. Got %s instead.",
                             dtype_ts_name(t->dtype));
        else
            tensor_set_error("std and var only support floating point and complex dtypes");
        return NULL;
    }
    ReduceLayout L;
    if (!reduce_layout(t, dims, ndims, keepdim, &L))
        return NULL;
    Tensor *out = tensor_empty(t->dtype, L.out_ndim, L.out_sizes);
    double *v = kern_read_all_f64(L.arranged);
    double *r = kern_malloc((size_t)L.outer, sizeof *r);
    if (!out || !v || !r) {
        tensor_release(out);
        out = NULL;
    } else {
        for (int64_t o = 0; o < L.outer; o++) {
            const double *line = v + o * L.inner;
            if (kind == MOMENT_NORM) {
                r[o] = line_norm(line, L.inner, param);
                continue;
            }
            /* Two passes in double; divisor max(0, N - correction) as PyTorch. */
            double mean = pairwise_sum(line, L.inner) / (double)L.inner;
            double ss = 0.0;
            for (int64_t i = 0; i < L.inner; i++)
                ss += (line[i] - mean) * (line[i] - mean);
            double divisor = (double)L.inner - param;
            double var = ss / (divisor > 0.0 ? divisor : 0.0);
            r[o] = kind == MOMENT_STD ? sqrt(var) : var;
        }
        kern_write_all_f64(out, r);
    }
    free(v);
    free(r);
    tensor_release(L.arranged);
    return out;
}

Tensor *tensor_norm(const Tensor *t, double p, const int64_t *dims, int ndims, bool keepdim)
{
    return reduce_moment(t, dims, ndims, keepdim, MOMENT_NORM, p);
}

Tensor *tensor_var(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim)
{
    return reduce_moment(t, dims, ndims, keepdim, MOMENT_VAR, correction);
}

Tensor *tensor_std(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim)
{
    return reduce_moment(t, dims, ndims, keepdim, MOMENT_STD, correction);
}
