/* stats.c — the stats family's kernels that are not order statistics
 * (those live in sort.c): scans that carry a running extreme or log-sum
 * (cummax, cummin, logcumsumexp), NaN-aware and paired reductions built on
 * reduce.c's (nansum, nanmean, count_nonzero, aminmax, var_mean, std_mean),
 * quantiles, histograms, bucketize, isin, segment_reduce, differences,
 * gradients and the trapezoid rules.
 *
 * Kernels work like the rest of tensor/: values are read row-major as
 * double (floating dtypes) or int64 (integers, bool), lines along one dim
 * through "dim moved last" views, and results are rounded to the output
 * dtype once, on store. Where PyTorch composes an op from other ops
 * (nanmean is nansum / count, trapezoid is a sum of products), the kernel
 * composes the same ops here, so dtypes and errors follow theirs.
 */
#include "tensor/tensor_impl.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- scans */

/* cummax/cummin (ATen's cummax_cummin_helper): the running extreme, where a
 * NaN always takes over and ties move to the later index (>= / <=). */
bool tensor_cum_extreme(const Tensor *t, int64_t dim, bool want_max, Tensor **values, Tensor **indices)
{
    *values = *indices = NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    int64_t n = tensor_numel(t);
    *values = tensor_empty(t->dtype, t->ndim, t->sizes);
    *indices = tensor_empty(DT_I64, t->ndim, t->sizes);
    Tensor *src = kern_dim_last_view(t, d);
    Tensor *vview = *values ? kern_dim_last_view(*values, d) : NULL;
    Tensor *iview = *indices ? kern_dim_last_view(*indices, d) : NULL;
    bool is_float = dtype_is_float(t->dtype);
    double *f = src && is_float ? kern_read_all_f64(src) : NULL;
    int64_t *v = src && !is_float ? kern_read_all_i64(src) : NULL;
    int64_t *idx = kern_malloc((size_t)n, sizeof *idx);
    bool ok = vview && iview && (f || v) && idx;
    for (int64_t start = 0; ok && len > 0 && start < n; start += len) {
        int64_t best = 0;
        for (int64_t i = 0; i < len; i++) {
            bool take;
            if (is_float) {
                double x = f[start + i], out = f[start + best];
                take = isnan(x) || (!isnan(out) && (want_max ? x >= out : x <= out));
            } else {
                int64_t x = v[start + i], out = v[start + best];
                take = want_max ? x >= out : x <= out;
            }
            if (take)
                best = i;
            idx[start + i] = best;
        }
        for (int64_t i = len - 1; i >= 0; i--) {
            if (is_float)
                f[start + i] = f[start + idx[start + i]];
            else
                v[start + i] = v[start + idx[start + i]];
        }
    }
    if (ok) {
        if (is_float)
            kern_write_all_f64(vview, f);
        else
            kern_write_all_i64(vview, v);
        kern_write_all_i64(iview, idx);
    }
    free(f);
    free(v);
    free(idx);
    tensor_release(src);
    tensor_release(vview);
    tensor_release(iview);
    if (!ok) {
        tensor_release(*values);
        tensor_release(*indices);
        *values = *indices = NULL;
    }
    return ok;
}

/* log(exp(x) + exp(y)) as ATen's logcumsumexp kernel computes it: NaN
 * propagates, and two equal infinities give x (not NaN). */
static double log_add_exp(double x, double y)
{
    double lo = isnan(y) ? y : (y < x ? y : x);
    double hi = isnan(y) ? y : (x < y ? y : x);
    if (lo != hi || isfinite(lo))
        return log1p(exp(lo - hi)) + hi;
    return x;
}

Tensor *tensor_logcumsumexp(const Tensor *t, int64_t dim)
{
    if (!dtype_is_float(t->dtype)) {
        tensor_error_not_implemented("logcumsumexp_out_cpu", t->dtype);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    int64_t n = tensor_numel(t);
    Tensor *out = tensor_empty(t->dtype, t->ndim, t->sizes);
    Tensor *src = kern_dim_last_view(t, d);
    Tensor *oview = out ? kern_dim_last_view(out, d) : NULL;
    double *x = src ? kern_read_all_f64(src) : NULL;
    bool ok = oview && x;
    for (int64_t start = 0; ok && len > 0 && start < n; start += len) {
        double acc = -INFINITY;
        for (int64_t i = 0; i < len; i++) {
            acc = log_add_exp(x[start + i], acc);
            x[start + i] = acc;
        }
    }
    if (ok)
        kern_write_all_f64(oview, x);
    free(x);
    tensor_release(src);
    tensor_release(oview);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- NaN-aware and paired reductions */

/* A copy of t with NaN replaced by 0 (t itself, retained, for non-floats). */
static Tensor *nan_to_zero(const Tensor *t)
{
    if (!dtype_is_float(t->dtype))
        return tensor_retain((Tensor *)t);
    Tensor *out = tensor_clone(t);
    if (!out)
        return NULL;
    int64_t n = tensor_numel(out);
    for (int64_t i = 0; i < n; i++)
        if (isnan(tensor_get_flat(out, i)))
            tensor_set_flat(out, i, 0.0);
    return out;
}

Tensor *tensor_nansum(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype)
{
    Tensor *clean = nan_to_zero(t);
    Tensor *out = clean ? tensor_sum(clean, dims, ndims, keepdim, out_dtype) : NULL;
    tensor_release(clean);
    return out;
}

/* (t != 0) counted over dims, as int64. */
static Tensor *count_where(const Tensor *mask, const int64_t *dims, int ndims, bool keepdim)
{
    return mask ? tensor_sum(mask, dims, ndims, keepdim, DT_I64) : NULL;
}

/* ATen: nansum(self, dim, keepdim, dtype) / (number of non-NaN elements). */
Tensor *tensor_nanmean(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype)
{
    if (!dtype_is_float(t->dtype)) {
        tensor_set_error("nanmean(): expected input to have floating point dtype but got %s",
                         dtype_ts_name(t->dtype));
        return NULL;
    }
    Tensor *sum = tensor_nansum(t, dims, ndims, keepdim, out_dtype);
    Tensor *numbers = tensor_binary(BIN_EQ, t, t);         /* false exactly for NaN */
    Tensor *count = count_where(numbers, dims, ndims, keepdim);
    Tensor *out = sum && count ? tensor_binary(BIN_DIV, sum, count) : NULL;
    tensor_release(sum);
    tensor_release(numbers);
    tensor_release(count);
    return out;
}

Tensor *tensor_count_nonzero(const Tensor *t, const int64_t *dims, int ndims)
{
    Tensor *zero = tensor_wrapped_int(0);
    Tensor *nonzero = zero ? tensor_binary(BIN_NE, t, zero) : NULL;
    tensor_release(zero);
    Tensor *out = count_where(nonzero, dims, ndims, false);
    tensor_release(nonzero);
    return out;
}

bool tensor_aminmax(const Tensor *t, bool has_dim, int64_t dim, bool keepdim, Tensor **min, Tensor **max)
{
    *min = *max = NULL;
    if (tensor_numel(t) == 0 && !has_dim) {
        tensor_set_error("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
        return false;
    }
    if (has_dim) {
        int d = tensor_wrap_dim(dim, t->ndim);
        if (d < 0)
            return false;
        if (t->ndim > 0 && t->sizes[d] == 0) {
            tensor_set_error("aminmax(): Expected reduction dim %d to have non-zero size.", d);
            return false;
        }
    }
    *min = tensor_amin(t, has_dim ? &dim : NULL, has_dim ? 1 : 0, keepdim);
    *max = *min ? tensor_amax(t, has_dim ? &dim : NULL, has_dim ? 1 : 0, keepdim) : NULL;
    if (!*max) {
        tensor_release(*min);
        *min = NULL;
        return false;
    }
    if (t->ndim == 0 && has_dim && keepdim) {
        /* PyTorch's kernel resizes its 0-d results to [1] here */
        int64_t one = 1;
        Tensor *a = tensor_reshape(*min, 1, &one), *b = tensor_reshape(*max, 1, &one);
        tensor_release(*min);
        tensor_release(*max);
        *min = a;
        *max = b;
        if (!a || !b) {
            tensor_release(a);
            tensor_release(b);
            *min = *max = NULL;
            return false;
        }
    }
    return true;
}

bool tensor_var_mean(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim,
                     bool take_sqrt, Tensor **spread, Tensor **mean)
{
    *spread = take_sqrt ? tensor_std(t, dims, ndims, correction, keepdim)
                        : tensor_var(t, dims, ndims, correction, keepdim);
    *mean = *spread ? tensor_mean(t, dims, ndims, keepdim, -1) : NULL;
    if (!*mean) {
        tensor_release(*spread);
        *spread = NULL;
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- quantile */

/* ATen's quantile_compute: sort each line (NaN last), turn q into a rank,
 * adjust the rank by the interpolation mode, and read (or interpolate
 * between) the sorted values at the rank. The rank arithmetic runs in the
 * input's dtype, as ATen's tensor ops do (rounded through it after each
 * step). quantile gives NaN for a line with a NaN; nanquantile ranks among
 * the numbers only (NaN for a line of NaNs). */
bool tensor_quantile_mode_from_name(const char *name, QuantileMode *mode)
{
    static const char *const names[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *mode = (QuantileMode)i;
            return true;
        }
    tensor_set_error("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                     "Got %s", name);
    return false;
}

/* The sorted values of the lines of t along dim (every element as one line
 * when all_dims): lines * len, row-major. */
static double *sorted_lines(const Tensor *t, bool all_dims, int dim, int64_t *lines, int64_t *len)
{
    Tensor *src;
    int d = dim;
    if (all_dims) {
        int64_t n = tensor_numel(t);
        src = tensor_reshape((Tensor *)t, 1, &n);
        d = 0;
    } else {
        src = tensor_retain((Tensor *)t);
    }
    if (!src)
        return NULL;
    Tensor *values, *indices;
    bool ok = tensor_sort(src, d, false, false, &values, &indices);
    tensor_release(src);
    if (!ok)
        return NULL;
    *len = values->ndim == 0 ? 1 : values->sizes[d];
    *lines = *len > 0 ? tensor_numel(values) / *len : 0;
    Tensor *view = kern_dim_last_view(values, d);
    double *out = view ? kern_read_all_f64(view) : NULL;
    tensor_release(view);
    tensor_release(values);
    tensor_release(indices);
    return out;
}

/* lerp as ATen computes it (the two forms meet at weight 0.5). */
static double lerp_value(TensorDType dt, double a, double b, double w)
{
    if (w < 0.5)
        return tensor_round_f64(dt, a + tensor_round_f64(dt, w * tensor_round_f64(dt, b - a)));
    return tensor_round_f64(dt, b - tensor_round_f64(dt, tensor_round_f64(dt, b - a) *
                                                         tensor_round_f64(dt, 1.0 - w)));
}

Tensor *tensor_quantile(const Tensor *t, const Tensor *q, bool has_dim, int64_t dim, bool keepdim,
                        QuantileMode mode, bool ignore_nan)
{
    const char *fn = ignore_nan ? "nanquantile" : "quantile";
    if (tensor_numel(t) == 0) {
        tensor_set_error("%s() input tensor must be non-empty", fn);
        return NULL;
    }
    if (q->ndim > 1) {
        tensor_set_error("%s() q must be a scalar or 1D tensor", fn);
        return NULL;
    }
    if (t->dtype != DT_F32 && t->dtype != DT_F64) {
        tensor_set_error("%s() input tensor must be either float or double dtype", fn);
        return NULL;
    }
    if (q->dtype != t->dtype) {
        tensor_set_error("%s() q tensor must be same dtype as the input tensor", fn);
        return NULL;
    }
    int64_t nq = tensor_numel(q);
    for (int64_t j = 0; j < nq; j++) {
        double v = tensor_get_flat(q, j);
        if (!(v >= 0 && v <= 1)) {
            tensor_set_error("%s() q values must be in the range [0, 1]", fn);
            return NULL;
        }
    }
    int d = 0;
    if (has_dim && (d = tensor_wrap_dim(dim, t->ndim)) < 0)
        return NULL;
    /* result: [q,] then t's shape reduced over dim (or over everything) */
    int64_t sizes[TENSOR_MAX_DIMS + 1];
    int ndim = 0;
    if (q->ndim == 1)
        sizes[ndim++] = nq;
    for (int k = 0; k < t->ndim; k++) {
        if (!has_dim || k == d) {
            if (keepdim)
                sizes[ndim++] = 1;
        } else {
            sizes[ndim++] = t->sizes[k];
        }
    }
    int64_t lines, len;
    double *sorted = sorted_lines(t, !has_dim, d, &lines, &len);
    if (!sorted)
        return NULL;
    Tensor *out = tensor_empty(t->dtype, ndim, sizes);
    TensorDType dt = t->dtype;
    for (int64_t l = 0; out && l < lines; l++) {
        const double *x = sorted + l * len;
        int64_t numbers = 0;
        for (int64_t i = 0; i < len; i++)
            numbers += !isnan(x[i]);
        for (int64_t j = 0; j < nq; j++) {
            double qv = tensor_get_flat(q, j), rank;
            if (ignore_nan) {
                rank = tensor_round_f64(dt, qv * (double)(numbers - 1));
                if (rank < 0)
                    rank = 0;
            } else {
                rank = numbers < len ? (double)(len - 1) : tensor_round_f64(dt, qv * (double)(len - 1));
            }
            if (mode == QUANTILE_LOWER)
                rank = floor(rank);
            else if (mode == QUANTILE_HIGHER)
                rank = ceil(rank);
            else if (mode == QUANTILE_NEAREST)
                rank = nearbyint(rank);
            int64_t below = (int64_t)rank;
            double value = x[below];
            if (mode == QUANTILE_LINEAR || mode == QUANTILE_MIDPOINT) {
                double weight = mode == QUANTILE_MIDPOINT ? 0.5 : tensor_round_f64(dt, rank - (double)below);
                value = lerp_value(dt, value, x[(int64_t)ceil(rank)], weight);
            }
            tensor_set_flat(out, j * lines + l, value);
        }
    }
    free(sorted);
    return out;
}

/* ---------------------------------------------------------------- differences and integrals */

static Tensor *scalar_binary(BinaryOp op, const Tensor *a, double v)
{
    Tensor *s = tensor_wrapped_float(v);
    Tensor *out = s ? tensor_binary(op, a, s) : NULL;
    tensor_release(s);
    return out;
}

/* slice [start, start + length) of t along dim (a view) */
static Tensor *narrowed(const Tensor *t, int dim, int64_t start, int64_t length)
{
    return tensor_narrow((Tensor *)t, dim, start, length);
}

/* ATen's diff_helper: n times, x[1:] - x[:-1] along dim (logical_xor for
 * bool); n is capped at the dim's size; n == 0 returns a copy. */
static Tensor *diff_repeated(const Tensor *t, int64_t n, int d)
{
    if (n == 0)
        return tensor_clone(t);
    int64_t out_len = t->sizes[d] - 1;
    if (n > t->sizes[d])
        n = t->sizes[d];
    Tensor *result = tensor_retain((Tensor *)t);
    for (int64_t i = 0; result && i < n; i++, out_len--) {
        Tensor *hi = narrowed(result, d, 1, out_len);
        Tensor *lo = narrowed(result, d, 0, out_len);
        Tensor *next = hi && lo ? (t->dtype == DT_BOOL ? tensor_binary(BIN_LOGICAL_XOR, hi, lo)
                                                       : tensor_sub(hi, lo, 1.0))
                                : NULL;
        tensor_release(hi);
        tensor_release(lo);
        tensor_release(result);
        result = next;
    }
    return result;
}

/* A tensor to put before or after t along d must match t elsewhere. */
static bool diff_check_side(const Tensor *t, const Tensor *side, int d, const char *what)
{
    if (side->ndim != t->ndim) {
        tensor_set_error("diff expects %s to have the same number of dimensions as input", what);
        return false;
    }
    for (int k = 0; k < t->ndim; k++)
        if (k != d && side->sizes[k] != t->sizes[k]) {
            tensor_set_error("diff expects the shape of tensor to %s or append to match that of input "
                             "except along the differencing dimension;", what);
            return false;
        }
    return true;
}

Tensor *tensor_diff(const Tensor *t, int64_t n, int64_t dim, const Tensor *prepend, const Tensor *append)
{
    if (t->ndim < 1) {
        tensor_set_error("diff expects input to be at least one-dimensional");
        return NULL;
    }
    if (n < 0) {
        tensor_set_error("order must be non-negative but got %" PRId64, n);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    if ((prepend && !diff_check_side(t, prepend, d, "prepend")) ||
        (append && !diff_check_side(t, append, d, "append")))
        return NULL;
    if ((!prepend && !append) || n == 0)
        return diff_repeated(t, n, d);
    Tensor *parts[3];
    int count = 0;
    if (prepend)
        parts[count++] = (Tensor *)prepend;
    parts[count++] = (Tensor *)t;
    if (append)
        parts[count++] = (Tensor *)append;
    Tensor *joined = tensor_cat(parts, count, d);
    Tensor *out = joined ? diff_repeated(joined, n, d) : NULL;
    tensor_release(joined);
    return out;
}

/* x seen with y's number of dims for the differences along dim: a 1-d x of
 * y's length along dim, or x with leading 1s (ATen's trapezoid). */
static Tensor *spacing_differences(const Tensor *y, const Tensor *x, int d, const char *fn)
{
    Tensor *viewed;
    if (x->ndim == 1) {
        if (x->sizes[0] != y->sizes[d]) {
            tensor_set_error("%s: There must be one `x` value for each sample point", fn);
            return NULL;
        }
        int64_t sizes[TENSOR_MAX_DIMS];
        for (int k = 0; k < y->ndim; k++)
            sizes[k] = k == d ? x->sizes[0] : 1;
        viewed = tensor_reshape((Tensor *)x, y->ndim, sizes);
    } else if (x->ndim < y->ndim) {
        int64_t sizes[TENSOR_MAX_DIMS];
        int pad = y->ndim - x->ndim;
        for (int k = 0; k < y->ndim; k++)
            sizes[k] = k < pad ? 1 : x->sizes[k - pad];
        viewed = tensor_reshape((Tensor *)x, y->ndim, sizes);
    } else {
        viewed = tensor_retain((Tensor *)x);
    }
    if (!viewed)
        return NULL;
    int64_t len = viewed->sizes[d];
    Tensor *hi = len > 0 ? narrowed(viewed, d, 1, len - 1) : tensor_slice(viewed, d, 1, INT64_MAX, 1);
    Tensor *lo = len > 0 ? narrowed(viewed, d, 0, len - 1) : tensor_slice(viewed, d, 0, -1, 1);
    Tensor *dx = hi && lo ? tensor_sub(hi, lo, 1.0) : NULL;
    tensor_release(hi);
    tensor_release(lo);
    tensor_release(viewed);
    return dx;
}

/* zeros of y's dtype and shape without dim (the integral of no samples) */
static Tensor *zeros_except(const Tensor *y, int d)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int n = 0;
    for (int k = 0; k < y->ndim; k++)
        if (k != d)
            sizes[n++] = y->sizes[k];
    return tensor_zeros(y->dtype, n, sizes);
}

/* ATen's trapezoid: with x, sum((y[:-1] + y[1:]) * dx) / 2 along dim; with
 * a constant dx, (sum(y) - (y[0] + y[-1]) * 0.5) * dx. */
Tensor *tensor_trapezoid(const Tensor *y, const Tensor *x, double dx, int64_t dim)
{
    int d = tensor_wrap_dim(dim, y->ndim);
    if (d < 0)
        return NULL;
    if (y->sizes[d] == 0)
        return zeros_except(y, d);
    if (y->dtype == DT_BOOL || (x && x->dtype == DT_BOOL)) {
        tensor_set_error(x ? "trapezoid: received a bool input for `x` or `y`, but bool is not supported"
                           : "trapezoid: received a bool input for `y`, but bool is not supported");
        return NULL;
    }
    int64_t len = y->sizes[d];
    int64_t dim64 = d;
    if (x) {
        Tensor *spacing = spacing_differences(y, x, d, "trapezoid");
        Tensor *lo = narrowed(y, d, 0, len - 1), *hi = narrowed(y, d, 1, len - 1);
        Tensor *sum_pairs = lo && hi ? tensor_add(lo, hi, 1.0) : NULL;
        Tensor *areas = sum_pairs && spacing ? tensor_binary(BIN_MUL, sum_pairs, spacing) : NULL;
        Tensor *total = areas ? tensor_sum(areas, &dim64, 1, false, -1) : NULL;
        Tensor *out = total ? scalar_binary(BIN_DIV, total, 2.0) : NULL;
        tensor_release(spacing);
        tensor_release(lo);
        tensor_release(hi);
        tensor_release(sum_pairs);
        tensor_release(areas);
        tensor_release(total);
        return out;
    }
    Tensor *total = tensor_sum(y, &dim64, 1, false, -1);
    Tensor *first = tensor_select((Tensor *)y, d, 0), *last = tensor_select((Tensor *)y, d, -1);
    Tensor *ends = first && last ? tensor_add(first, last, 1.0) : NULL;
    Tensor *half_ends = ends ? scalar_binary(BIN_MUL, ends, 0.5) : NULL;
    Tensor *inner = total && half_ends ? tensor_sub(total, half_ends, 1.0) : NULL;
    Tensor *out = inner ? scalar_binary(BIN_MUL, inner, dx) : NULL;
    tensor_release(total);
    tensor_release(first);
    tensor_release(last);
    tensor_release(ends);
    tensor_release(half_ends);
    tensor_release(inner);
    return out;
}

/* ATen's cumulative_trapezoid: cumsum((y[:-1] + y[1:]) * dx) / 2 with x,
 * cumsum(dx / 2 * (y[:-1] + y[1:])) with a constant dx. */
Tensor *tensor_cumulative_trapezoid(const Tensor *y, const Tensor *x, double dx, int64_t dim)
{
    int d = tensor_wrap_dim(dim, y->ndim);
    if (d < 0)
        return NULL;
    if (y->dtype == DT_BOOL || (x && x->dtype == DT_BOOL)) {
        tensor_set_error(x ? "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported"
                           : "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
        return NULL;
    }
    Tensor *spacing = x ? spacing_differences(y, x, d, "cumulative_trapezoid") : NULL;
    if (x && !spacing)
        return NULL;
    int64_t len = y->sizes[d];
    Tensor *lo = len > 0 ? narrowed(y, d, 0, len - 1) : tensor_slice((Tensor *)y, d, 0, -1, 1);
    Tensor *hi = len > 0 ? narrowed(y, d, 1, len - 1) : tensor_slice((Tensor *)y, d, 1, INT64_MAX, 1);
    Tensor *pairs = lo && hi ? tensor_add(lo, hi, 1.0) : NULL;
    Tensor *out = NULL;
    if (pairs && x) {
        Tensor *areas = tensor_binary(BIN_MUL, pairs, spacing);
        Tensor *running = areas ? tensor_cumsum(areas, d, -1) : NULL;
        out = running ? scalar_binary(BIN_DIV, running, 2.0) : NULL;
        tensor_release(areas);
        tensor_release(running);
    } else if (pairs) {
        Tensor *areas = scalar_binary(BIN_MUL, pairs, dx / 2.0);
        out = areas ? tensor_cumsum(areas, d, -1) : NULL;
        tensor_release(areas);
    }
    tensor_release(spacing);
    tensor_release(lo);
    tensor_release(hi);
    tensor_release(pairs);
    return out;
}

/* ---------------------------------------------------------------- bucketize, searchsorted with sorter, isin */

Tensor *tensor_bucketize(const Tensor *values, const Tensor *boundaries, bool out_int32, bool right)
{
    if (boundaries->ndim != 1) {
        tensor_set_error("boundaries tensor must be 1 dimension, but got dim(%d)", boundaries->ndim);
        return NULL;
    }
    return tensor_searchsorted(boundaries, values, out_int32, right);
}

/* searchsorted in sorted_sequence as ordered by sorter (the positions that
 * sort each of its last-dim lines): the result counts positions in that
 * order, as numpy's. */
Tensor *tensor_searchsorted_sorter(const Tensor *sorted, const Tensor *values, const Tensor *sorter,
                                   bool out_int32, bool right)
{
    if (sorter->dtype != DT_I64) {
        tensor_set_error("torch.searchsorted(): sorter must be a tensor of long dtype but got %s",
                         dtype_ts_name(sorter->dtype));
        return NULL;
    }
    if (!tensor_same_shape(sorted, sorter)) {
        char a[TENSOR_SHAPE_BUF], b[TENSOR_SHAPE_BUF];
        tensor_set_error("torch.searchsorted(): boundary and sorter must have the same size, but got "
                         "boundary tensor %s and got sorter tensor %s",
                         tensor_format_shape(sorted->ndim, sorted->sizes, a, sizeof a),
                         tensor_format_shape(sorter->ndim, sorter->sizes, b, sizeof b));
        return NULL;
    }
    int64_t len = sorted->ndim ? sorted->sizes[sorted->ndim - 1] : 1;
    int64_t n = tensor_numel(sorter);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tensor_get_flat_int(sorter, i);
        if (v < 0 || v >= len) {
            tensor_set_error("torch.searchsorted(): sorter index out of range");
            return NULL;
        }
    }
    Tensor *ordered = sorted->ndim ? tensor_gather(sorted, -1, sorter) : tensor_retain((Tensor *)sorted);
    Tensor *out = ordered ? tensor_searchsorted(ordered, values, out_int32, right) : NULL;
    tensor_release(ordered);
    return out;
}

/* elements[i] in test_elements, compared in their promoted dtype (NaN is in
 * nothing); invert gives "not in". */
Tensor *tensor_isin(const Tensor *elements, const Tensor *test, bool invert)
{
    const Tensor *pair[2] = {elements, test};
    TensorDType common = tensor_result_type(pair, 2);
    Tensor *a = tensor_to_dtype(elements, common), *b = tensor_to_dtype(test, common);
    Tensor *out = a && b ? tensor_empty(DT_BOOL, elements->ndim, elements->sizes) : NULL;
    int64_t n = tensor_numel(elements), m = tensor_numel(test);
    bool ints = !dtype_is_float(common);
    for (int64_t i = 0; out && i < n; i++) {
        bool found = false;
        if (ints) {
            int64_t v = tensor_get_flat_int(a, i);
            for (int64_t j = 0; !found && j < m; j++)
                found = tensor_get_flat_int(b, j) == v;
        } else {
            double v = tensor_get_flat(a, i);
            for (int64_t j = 0; !found && j < m; j++)
                found = tensor_get_flat(b, j) == v;
        }
        tensor_set_flat_int(out, i, found != invert);
    }
    tensor_release(a);
    tensor_release(b);
    return out;
}

/* ---------------------------------------------------------------- histograms */

/* How an element finds its bin (ATen's BIN_SELECTION_ALGORITHM). */
typedef enum BinSearch {
    BINS_BINARY_SEARCH,        /* arbitrary edges: upper_bound over all of them */
    BINS_LINEAR,               /* evenly spaced edges: one division (histc) */
    BINS_LINEAR_LOCAL_SEARCH,  /* the division, then upper_bound over its neighbours */
} BinSearch;

/* std::upper_bound over e[lo..hi): the first position whose edge exceeds v. */
static int64_t upper_bound_edges(const double *e, int64_t lo, int64_t hi, double v)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v < e[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ATen's histogramdd_cpu_contiguous plus its density normalization: the
 * rows of x (m rows of n coordinates) counted (or weighted) into the bins
 * that edges[0..n) delimit. Elements outside the outer edges and NaN are
 * skipped; the last bin of each dim includes its right edge. Arithmetic is
 * rounded through dt, the input's dtype, as ATen computes in it. */
static Tensor *histogram_fill(const double *x, int64_t m, int n, Tensor *const *edges, const double *weight,
                              bool density, BinSearch search, TensorDType dt)
{
    double *e[TENSOR_MAX_DIMS] = {NULL};
    int64_t nedges[TENSOR_MAX_DIMS], sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
        nedges[k] = tensor_numel(edges[k]);
        sizes[k] = nedges[k] - 1;
        e[k] = kern_read_all_f64(edges[k]);
        ok = e[k] != NULL;
    }
    Tensor *hist = ok ? tensor_zeros(dt, n, sizes) : NULL;
    double *h = NULL;
    int64_t total = 1;
    if (hist) {
        tensor_contiguous_strides(n, sizes, strides);
        total = tensor_numel(hist);
        h = kern_malloc((size_t)(total > 0 ? total : 1), sizeof *h);
        if (h)
            memset(h, 0, (size_t)(total > 0 ? total : 1) * sizeof *h);
    }
    for (int64_t i = 0; h && i < m; i++) {
        int64_t at = 0;
        bool skip = false;
        for (int k = 0; k < n && !skip; k++) {
            double v = x[i * n + k], left = e[k][0], right = e[k][nedges[k] - 1];
            if (!(v >= left && v <= right)) {
                skip = true;
                break;
            }
            int64_t pos;
            if (search == BINS_BINARY_SEARCH) {
                pos = upper_bound_edges(e[k], 0, nedges[k], v) - 1;
            } else {
                double scaled = tensor_round_f64(dt, tensor_round_f64(dt, v - left) * (double)(nedges[k] - 1));
                pos = (int64_t)tensor_round_f64(dt, scaled / tensor_round_f64(dt, right - left));
                if (search == BINS_LINEAR_LOCAL_SEARCH) {
                    int64_t lo = pos - 1 > 0 ? pos - 1 : 0;
                    int64_t hi = pos + 2 < nedges[k] ? pos + 2 : nedges[k];
                    pos = upper_bound_edges(e[k], lo, hi, v) - 1;
                }
            }
            if (pos == nedges[k] - 1)
                pos--;
            at += strides[k] * pos;
        }
        if (!skip)
            h[at] = tensor_round_f64(dt, h[at] + (weight ? weight[i] : 1.0));
    }
    if (h && density) {
        double sum = 0;
        for (int64_t i = 0; i < total; i++)
            sum += h[i];
        sum = tensor_round_f64(dt, sum);
        for (int64_t i = 0; i < total; i++)
            h[i] = tensor_round_f64(dt, h[i] / sum);
        int64_t index[TENSOR_MAX_DIMS] = {0};
        for (int64_t i = 0; i < total; i++) {
            for (int k = 0; k < n; k++) {
                double width = tensor_round_f64(dt, e[k][index[k] + 1] - e[k][index[k]]);
                h[i] = tensor_round_f64(dt, h[i] / width);
            }
            for (int k = n - 1; k >= 0; k--) {
                if (++index[k] < sizes[k])
                    break;
                index[k] = 0;
            }
        }
    }
    if (h)
        for (int64_t i = 0; i < total; i++)
            tensor_set_flat(hist, i, h[i]);
    else {
        tensor_release(hist);
        hist = NULL;
    }
    free(h);
    for (int k = 0; k < n; k++)
        free(e[k]);
    return hist;
}

/* The histogram functions' shared input checks: a floating input, a weight
 * of the input's shape without its last dim (the dims of a histc or
 * histogram input are all "rows") and of its dtype. */
static bool histogram_check(const Tensor *input, const Tensor *weight, int64_t rows, const char *fn)
{
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented(fn, input->dtype);
        return false;
    }
    if (weight && (weight->dtype != input->dtype || tensor_numel(weight) != rows)) {
        tensor_set_error(weight->dtype != input->dtype
                             ? "torch.histogramdd: if weight tensor is provided, it should have the same dtype as the input tensor"
                             : "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension");
        return false;
    }
    return true;
}

/* ATen's select_outer_bin_edges: range if given, else each column's min and
 * max (0 and 1 for an empty input); an empty range widens by 0.5 each way. */
static bool outer_bin_edges(const double *x, int64_t m, int n, const double *range, double *lo, double *hi)
{
    for (int k = 0; k < n; k++) {
        if (range) {
            lo[k] = range[2 * k];
            hi[k] = range[2 * k + 1];
        } else if (m == 0) {
            lo[k] = 0;
            hi[k] = 1;
        } else {
            lo[k] = hi[k] = x[k];
            for (int64_t i = 0; i < m; i++) {
                double v = x[i * n + k];
                if (isnan(v) || isnan(lo[k]))
                    lo[k] = hi[k] = NAN;
                else {
                    lo[k] = v < lo[k] ? v : lo[k];
                    hi[k] = v > hi[k] ? v : hi[k];
                }
            }
        }
        if (!isfinite(lo[k]) || !isfinite(hi[k])) {
            tensor_set_error("torch.histogramdd: dimension %d's range [%g, %g] is not finite", k, lo[k], hi[k]);
            return false;
        }
        if (lo[k] > hi[k]) {
            tensor_set_error("torch.histogramdd: min should not exceed max, but got min %g max %g for dimension %d",
                             lo[k], hi[k], k);
            return false;
        }
        if (lo[k] == hi[k]) {
            lo[k] -= 0.5;
            hi[k] += 0.5;
        }
    }
    return true;
}

/* x read as (rows, n): the input's last dim holds the coordinates (n = 1
 * and every element a row when flat). */
static double *histogram_rows(const Tensor *input, bool flat, int64_t *rows, int *n)
{
    int64_t numel = tensor_numel(input);
    *n = flat || input->ndim == 0 ? 1 : (int)input->sizes[input->ndim - 1];
    *rows = *n > 0 ? numel / *n : 0;
    return kern_read_all_f64(input);
}

Tensor *tensor_histc(const Tensor *input, int64_t bins, double min, double max)
{
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("histogram_histc_cpu", input->dtype);
        return NULL;
    }
    if (bins <= 0) {
        tensor_set_error("torch.histc: bins must be > 0, but got %" PRId64 " for dimension 0", bins);
        return NULL;
    }
    int64_t rows;
    int n;
    double *x = histogram_rows(input, true, &rows, &n);
    if (!x)
        return NULL;
    double lo = min, hi = max;
    if (lo == hi && rows > 0) {
        lo = hi = x[0];
        for (int64_t i = 0; i < rows; i++) {
            if (isnan(x[i]) || isnan(lo)) {
                lo = hi = NAN;
            } else {
                lo = x[i] < lo ? x[i] : lo;
                hi = x[i] > hi ? x[i] : hi;
            }
        }
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    Tensor *out = NULL;
    if (isinf(lo) || isinf(hi) || isnan(lo) || isnan(hi))
        tensor_set_error("torch.histc: range of [%g, %g] is not finite", lo, hi);
    else if (!(lo < hi))
        tensor_set_error("torch.histc: max must be larger than min");
    else {
        Tensor *edges = tensor_linspace(lo, hi, bins + 1, input->dtype);
        out = edges ? histogram_fill(x, rows, 1, &edges, NULL, false, BINS_LINEAR, input->dtype) : NULL;
        tensor_release(edges);
    }
    free(x);
    return out;
}

bool tensor_histogramdd(const Tensor *input, bool flat, int nbins, const int64_t *bin_counts,
                        Tensor *const *bin_edges, const double *range, const Tensor *weight, bool density,
                        Tensor **hist, Tensor **edges_out)
{
    *hist = NULL;
    for (int k = 0; k < nbins; k++)
        edges_out[k] = NULL;
    int64_t rows;
    int n;
    double *x = NULL;
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("histogramdd", input->dtype);
        return false;
    }
    x = histogram_rows(input, flat, &rows, &n);
    if (!x)
        return false;
    bool ok = histogram_check(input, weight, rows, "histogramdd");
    if (ok && n != nbins) {
        tensor_set_error("torch.histogramdd: expected %d sequences of bin edges for each of the %d dimensions "
                         "of the input tensor, but got %d", n, n, nbins);
        ok = false;
    }
    if (ok && n > TENSOR_MAX_DIMS) {
        tensor_set_error("torch.histogramdd: at most %d dimensions are supported", TENSOR_MAX_DIMS);
        ok = false;
    }
    BinSearch search = bin_edges ? BINS_BINARY_SEARCH : BINS_LINEAR_LOCAL_SEARCH;
    double lo[TENSOR_MAX_DIMS], hi[TENSOR_MAX_DIMS];
    if (ok && !bin_edges)
        ok = outer_bin_edges(x, rows, n, range, lo, hi);
    for (int k = 0; ok && k < n; k++) {
        if (bin_edges) {
            const Tensor *b = bin_edges[k];
            if (b->dtype != input->dtype) {
                tensor_set_error("torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                 "but got input %s and bins for dimension %d %s",
                                 dtype_ts_name(input->dtype), k, dtype_ts_name(b->dtype));
                ok = false;
            } else if (b->ndim != 1) {
                tensor_set_error("torch.histogramdd: bins tensor should have one dimension, but got %d "
                                 "dimensions in the bins tensor for dimension %d", b->ndim, k);
                ok = false;
            } else if (b->sizes[0] < 1) {
                tensor_set_error("torch.histogramdd: bins tensor should have at least 1 element, but got %"
                                 PRId64 " elements in the bins tensor for dimension %d", b->sizes[0], k);
                ok = false;
            } else {
                edges_out[k] = tensor_clone(b);
                ok = edges_out[k] != NULL;
            }
        } else {
            if (bin_counts[k] <= 0) {
                tensor_set_error("torch.histogramdd(): bins must be > 0, but got %" PRId64 " for dimension %d",
                                 bin_counts[k], k);
                ok = false;
            } else {
                edges_out[k] = tensor_linspace(lo[k], hi[k], bin_counts[k] + 1, input->dtype);
                ok = edges_out[k] != NULL;
            }
        }
    }
    double *w = ok && weight ? kern_read_all_f64(weight) : NULL;
    if (ok && weight && !w)
        ok = false;
    if (ok) {
        *hist = histogram_fill(x, rows, n, edges_out, w, density, search, input->dtype);
        ok = *hist != NULL;
    }
    free(w);
    free(x);
    if (!ok) {
        for (int k = 0; k < nbins; k++) {
            tensor_release(edges_out[k]);
            edges_out[k] = NULL;
        }
    }
    return ok;
}

/* ---------------------------------------------------------------- gradient */

/* The temporaries of an expression built from tensor ops: each helper
 * takes NULL arguments (an earlier failure) through as NULL, and every
 * result is released when the pool is. */
typedef struct Pool {
    Tensor *items[96];
    int n;
    bool failed;
} Pool;

static Tensor *keep(Pool *p, Tensor *t)
{
    if (!t || p->n == (int)(sizeof p->items / sizeof p->items[0])) {
        if (t)
            tensor_set_error("gradient: expression too large");
        tensor_release(t);
        p->failed = true;
        return NULL;
    }
    return p->items[p->n++] = t;
}

static void pool_release(Pool *p)
{
    for (int i = 0; i < p->n; i++)
        tensor_release(p->items[i]);
    p->n = 0;
}

static Tensor *p_bin(Pool *p, BinaryOp op, Tensor *a, Tensor *b)
{
    return a && b ? keep(p, tensor_binary(op, a, b)) : NULL;
}
static Tensor *p_add(Pool *p, Tensor *a, Tensor *b) { return a && b ? keep(p, tensor_add(a, b, 1.0)) : NULL; }
static Tensor *p_sub(Pool *p, Tensor *a, Tensor *b) { return a && b ? keep(p, tensor_sub(a, b, 1.0)) : NULL; }
static Tensor *p_num(Pool *p, double v) { return keep(p, tensor_wrapped_float(v)); }
static Tensor *p_int(Pool *p, int64_t v) { return keep(p, tensor_wrapped_int(v)); }
static Tensor *p_slice(Pool *p, Tensor *t, int d, int64_t start, int64_t end)
{
    return t ? keep(p, tensor_slice(t, d, start, end, 1)) : NULL;
}
static Tensor *p_at(Pool *p, Tensor *t, int64_t i) { return t ? keep(p, tensor_select(t, 0, i)) : NULL; }
static Tensor *p_neg(Pool *p, Tensor *t) { return t ? keep(p, tensor_unary(UN_NEG, t, 0, 0)) : NULL; }

#define END INT64_MAX

/* prepend, center and append joined along d (ATen's prepend_append_on_dim) */
static Tensor *join3(Tensor *a, Tensor *b, Tensor *c, int d)
{
    if (!a || !b || !c)
        return NULL;
    Tensor *parts[3] = {a, b, c};
    return tensor_cat(parts, 3, d);
}

/* ATen's gradient_helper_float: constant spacing h along d. */
static Tensor *gradient_uniform(const Tensor *self, int d, const Tensor *h, int64_t edge_order)
{
    Pool p = {.n = 0};
    Tensor *x = (Tensor *)self, *hh = (Tensor *)h;
    Tensor *center = p_bin(&p, BIN_DIV, p_sub(&p, p_slice(&p, x, d, 2, END), p_slice(&p, x, d, 0, -2)), hh);
    Tensor *prepend, *append;
    if (edge_order == 1) {
        prepend = p_bin(&p, BIN_DIV, p_sub(&p, p_slice(&p, x, d, 1, 2), p_slice(&p, x, d, 0, 1)), hh);
        append = p_bin(&p, BIN_DIV, p_sub(&p, p_slice(&p, x, d, -1, END), p_slice(&p, x, d, -2, -1)), hh);
    } else {
        Tensor *a = p_bin(&p, BIN_MUL, p_slice(&p, x, d, 0, 1), p_num(&p, -1.5));
        Tensor *b = p_bin(&p, BIN_MUL, p_slice(&p, x, d, 1, 2), p_int(&p, 2));
        Tensor *c = p_bin(&p, BIN_MUL, p_slice(&p, x, d, 2, 3), p_num(&p, 0.5));
        prepend = p_bin(&p, BIN_DIV, p_sub(&p, p_add(&p, a, b), c), hh);
        a = p_bin(&p, BIN_MUL, p_slice(&p, x, d, -3, -2), p_num(&p, 0.5));
        b = p_bin(&p, BIN_MUL, p_slice(&p, x, d, -2, -1), p_int(&p, -2));
        c = p_bin(&p, BIN_MUL, p_slice(&p, x, d, -1, END), p_num(&p, 1.5));
        append = p_bin(&p, BIN_DIV, p_add(&p, p_add(&p, a, b), c), hh);
    }
    Tensor *out = join3(prepend, p_bin(&p, BIN_DIV, center, p_int(&p, 2)), append, d);
    pool_release(&p);
    return out;
}

/* ATen's gradient_helper: sample coordinates along d (second-order
 * accurate differences for uneven spacing). */
static Tensor *gradient_coordinates(const Tensor *self, int d, const Tensor *coords, int64_t edge_order)
{
    if (coords->ndim != 1) {
        tensor_set_error("torch.gradient expected each element of spacing to have one dimension, but got an "
                         "element with %d dimensions!", coords->ndim);
        return NULL;
    }
    Pool p = {.n = 0};
    Tensor *x = (Tensor *)self;
    int64_t shape[TENSOR_MAX_DIMS];
    for (int k = 0; k < self->ndim; k++)
        shape[k] = k == d ? -1 : 1;
    Tensor *dx = keep(&p, tensor_diff(coords, 1, 0, NULL, NULL));
    Tensor *dx1 = p_slice(&p, dx, 0, 0, -1), *dx2 = p_slice(&p, dx, 0, 1, END);
    Tensor *sum12 = p_add(&p, dx1, dx2);
    Tensor *a = p_bin(&p, BIN_DIV, p_neg(&p, dx2), p_bin(&p, BIN_MUL, dx1, sum12));
    Tensor *b = p_bin(&p, BIN_DIV, p_sub(&p, dx2, dx1), p_bin(&p, BIN_MUL, dx1, dx2));
    Tensor *c = p_bin(&p, BIN_DIV, dx1, p_bin(&p, BIN_MUL, dx2, sum12));
    a = a ? keep(&p, tensor_reshape(a, self->ndim, shape)) : NULL;
    b = b ? keep(&p, tensor_reshape(b, self->ndim, shape)) : NULL;
    c = c ? keep(&p, tensor_reshape(c, self->ndim, shape)) : NULL;
    Tensor *center = p_add(&p, p_add(&p, p_bin(&p, BIN_MUL, a, p_slice(&p, x, d, 0, -2)),
                                     p_bin(&p, BIN_MUL, b, p_slice(&p, x, d, 1, -1))),
                           p_bin(&p, BIN_MUL, c, p_slice(&p, x, d, 2, END)));
    Tensor *prepend, *append;
    Tensor *d0 = p_at(&p, dx, 0), *d1 = p_at(&p, dx, 1), *dl = p_at(&p, dx, -1), *dl2 = p_at(&p, dx, -2);
    if (edge_order == 1) {
        prepend = p_bin(&p, BIN_DIV, p_sub(&p, p_slice(&p, x, d, 1, 2), p_slice(&p, x, d, 0, 1)), d0);
        append = p_bin(&p, BIN_DIV, p_sub(&p, p_slice(&p, x, d, -1, END), p_slice(&p, x, d, -2, -1)), dl);
    } else {
        Tensor *s01 = p_add(&p, d0, d1);
        a = p_bin(&p, BIN_DIV, p_neg(&p, p_add(&p, p_bin(&p, BIN_MUL, p_num(&p, 2.0), d0), d1)),
                  p_bin(&p, BIN_MUL, d0, s01));
        b = p_bin(&p, BIN_DIV, s01, p_bin(&p, BIN_MUL, d0, d1));
        c = p_bin(&p, BIN_DIV, p_neg(&p, d0), p_bin(&p, BIN_MUL, d1, s01));
        prepend = p_add(&p, p_add(&p, p_bin(&p, BIN_MUL, a, p_slice(&p, x, d, 0, 1)),
                                  p_bin(&p, BIN_MUL, b, p_slice(&p, x, d, 1, 2))),
                        p_bin(&p, BIN_MUL, c, p_slice(&p, x, d, 2, 3)));
        Tensor *sl = p_add(&p, dl, dl2);
        a = p_bin(&p, BIN_DIV, dl, p_bin(&p, BIN_MUL, dl2, sl));
        b = p_bin(&p, BIN_DIV, p_neg(&p, sl), p_bin(&p, BIN_MUL, dl, dl2));
        c = p_bin(&p, BIN_DIV, p_add(&p, p_bin(&p, BIN_MUL, p_int(&p, 2), dl), dl2), p_bin(&p, BIN_MUL, dl, sl));
        append = p_add(&p, p_add(&p, p_bin(&p, BIN_MUL, a, p_slice(&p, x, d, -3, -2)),
                                 p_bin(&p, BIN_MUL, b, p_slice(&p, x, d, -2, -1))),
                       p_bin(&p, BIN_MUL, c, p_slice(&p, x, d, -1, END)));
    }
    Tensor *out = join3(prepend, center, append, d);
    pool_release(&p);
    return out;
}

/* torch.gradient: one tensor per dim of dims (every dim when dims is NULL);
 * spacing per dim: the numbers h[k] (uniform) or the coordinate tensors
 * coords[k], either array indexed like dims. */
Tensor **tensor_gradient(const Tensor *self, const int64_t *dims, int ndims, const double *h,
                         Tensor *const *coords, int64_t edge_order)
{
    if (self->dtype == DT_U8) {
        tensor_set_error("torch.gradient does not support uint8 input.");
        return NULL;
    }
    if (edge_order != 1 && edge_order != 2) {
        tensor_set_error("torch.gradient only supports edge_order=1 and edge_order=2.");
        return NULL;
    }
    bool mask[TENSOR_MAX_DIMS];
    if (ndims > 0 && !kern_dims_to_mask(dims, ndims, self->ndim, mask))
        return NULL;
    for (int i = 0; i < ndims; i++) {
        int d = tensor_wrap_dim(dims[i], self->ndim);
        if (self->sizes[d] < edge_order + 1) {
            tensor_set_error("torch.gradient expected each dimension size to be at least edge_order+1");
            return NULL;
        }
    }
    Tensor **out = kern_malloc((size_t)(ndims > 0 ? ndims : 1), sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0; i < ndims; i++) {
        int d = tensor_wrap_dim(dims[i], self->ndim);
        if (coords) {
            out[i] = gradient_coordinates(self, d, coords[i], edge_order);
        } else {
            Tensor *step = h[i] == floor(h[i]) && fabs(h[i]) < 9e15 ? tensor_wrapped_int((int64_t)h[i])
                                                                     : tensor_wrapped_float(h[i]);
            out[i] = step ? gradient_uniform(self, d, step, edge_order) : NULL;
            tensor_release(step);
        }
        if (!out[i]) {
            for (int k = 0; k < i; k++)
                tensor_release(out[k]);
            free(out);
            return NULL;
        }
    }
    return out;
}

/* ---------------------------------------------------------------- segment_reduce */

bool tensor_segment_reduce_from_name(const char *name, SegmentReduce *op)
{
    static const char *const names[] = {"max", "mean", "min", "sum", "prod"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *op = (SegmentReduce)i;
            return true;
        }
    tensor_set_error("unsupported reduction given! %s", name);
    return false;
}

/* ATen's _segment_reduce_lengths_cpu_kernel: data's axis is cut into
 * consecutive segments of the given lengths (one row of lengths per index
 * of the dims before axis); each segment reduces to one element starting
 * from `initial` (or the op's identity, -inf/+inf for max/min); max and min
 * propagate NaN; the mean of an empty segment without initial is NaN.
 * Arithmetic rounds through data's dtype. */
Tensor *tensor_segment_reduce(const Tensor *data, SegmentReduce op, const Tensor *lengths, bool lengths_are_offsets,
                              int64_t axis, bool unsafe, bool has_initial, double initial)
{
    if (!dtype_is_float(data->dtype)) {
        tensor_error_not_implemented("_segment_reduce_cpu", data->dtype);
        return NULL;
    }
    int ax = tensor_wrap_dim(axis, data->ndim);
    if (ax < 0)
        return NULL;
    if (lengths->dtype != DT_I64 && lengths->dtype != DT_I32) {
        tensor_set_error("segment_reduce(): %s must be int32 or int64", lengths_are_offsets ? "offsets" : "lengths");
        return NULL;
    }
    if (ax != lengths->ndim - 1) {
        tensor_set_error("Expected axis to be the last dimension of %s but got %d.",
                         lengths_are_offsets ? "offsets" : "lengths", ax);
        return NULL;
    }
    for (int k = 0; k < ax; k++)
        if (lengths->sizes[k] != data->sizes[k]) {
            tensor_set_error("segment_reduce(): Expected data and %s to have the same shape up to axis",
                             lengths_are_offsets ? "offsets" : "lengths");
            return NULL;
        }
    int64_t *raw = kern_read_all_i64(lengths);
    if (!raw)
        return NULL;
    int64_t row = lengths->sizes[ax];
    int64_t segments = lengths_are_offsets ? (row > 0 ? row - 1 : 0) : row;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < ax; k++)
        outer *= data->sizes[k];
    for (int k = ax + 1; k < data->ndim; k++)
        inner *= data->sizes[k];
    int64_t axis_len = data->sizes[ax];
    int64_t *len = kern_malloc((size_t)(outer * segments + 1), sizeof *len);
    bool ok = len != NULL;
    for (int64_t o = 0; ok && o < outer; o++) {
        int64_t total = 0;
        for (int64_t s = 0; s < segments; s++) {
            int64_t v = lengths_are_offsets ? raw[o * row + s + 1] - raw[o * row + s] : raw[o * row + s];
            len[o * segments + s] = v;
            total += v;
            if (v < 0) {
                tensor_set_error("lengths contains negative value!");
                ok = false;
                break;
            }
        }
        if (ok && !unsafe && total != axis_len) {
            tensor_set_error("segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe.");
            ok = false;
        }
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, data->sizes, sizeof sizes);
    sizes[ax] = segments;
    Tensor *out = ok ? tensor_empty(data->dtype, data->ndim, sizes) : NULL;
    double *x = out ? kern_read_all_f64(data) : NULL;
    TensorDType dt = data->dtype;
    double start = has_initial ? tensor_round_f64(dt, initial)
                   : op == SEG_MAX ? -INFINITY : op == SEG_MIN ? INFINITY : op == SEG_PROD ? 1.0 : 0.0;
    for (int64_t o = 0; x && o < outer; o++) {
        int64_t first = 0;
        for (int64_t s = 0; s < segments; s++) {
            int64_t n = len[o * segments + s];
            for (int64_t i = 0; i < inner; i++) {
                double acc = start;
                for (int64_t j = 0; j < n; j++) {
                    double v = x[(o * axis_len + first + j) * inner + i];
                    switch (op) {
                    case SEG_MAX: acc = isnan(v) ? v : (acc < v ? v : acc); break;
                    case SEG_MIN: acc = isnan(v) ? v : (v < acc ? v : acc); break;
                    case SEG_SUM: case SEG_MEAN: acc = tensor_round_f64(dt, acc + v); break;
                    case SEG_PROD: acc = tensor_round_f64(dt, acc * v); break;
                    }
                }
                if (op == SEG_MEAN) {
                    if (n == 0 && !has_initial)
                        acc = NAN;
                    else if (n > 0 && !isnan(acc))
                        acc = tensor_round_f64(dt, acc / (double)n);
                }
                tensor_set_flat(out, (o * segments + s) * inner + i, acc);
            }
            first += n;
        }
    }
    if (out && !x) {
        tensor_release(out);
        out = NULL;
    }
    free(x);
    free(len);
    free(raw);
    return out;
}
