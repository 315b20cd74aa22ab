/* ops_stats.c — bindings of the stats family: order statistics (median,
 * nanmedian, kthvalue, mode, msort, quantile), scans (cummax, cummin,
 * logcumsumexp), NaN-aware and paired reductions (nansum, nanmean,
 * std_mean, var_mean, aminmax, count_nonzero), histograms, bucketize,
 * isin, segment_reduce, unique, diff, gradient and the trapezoid rules.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* Stores a (values, indices)-like pair of results, or reports the kernel's failure. */
static bool out_pair(EvalCall *c, bool ok, Tensor *a, Tensor *b)
{
    if (!ok) {
        tensor_release(a);
        tensor_release(b);
        return eval_fail_kernel(c, "the kernel failed");
    }
    if (c->nouts != 2) {
        tensor_release(a);
        tensor_release(b);
        return eval_fail(c, "the op has 2 results, the node has %d outputs", c->nouts);
    }
    return eval_out_tensor(c, 0, a) && eval_out_tensor(c, 1, b);
}

/* ---------------------------------------------------------------- order statistics */

bool eval_op_msort(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_tensor(c, 0, tensor_msort(self));
}

/* kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) */
bool eval_op_kthvalue(EvalCall *c)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t k, dim = -1;
    bool keepdim = false;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &k) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)))
        return false;
    bool ok = tensor_kthvalue(self, k, dim, keepdim, &values, &indices);
    return out_pair(c, ok, values, indices);
}

/* median/nanmedian(Tensor self) -> Tensor;
 * (Tensor self, int dim, bool keepdim=False) -> (values, indices) */
static bool median_common(EvalCall *c, bool ignore_nan)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 1)
        return eval_out_tensor(c, 0, tensor_median_all(self, ignore_nan));
    if (!eval_arg_int(c, 1, &dim) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    bool ok = tensor_median_dim(self, dim, keepdim, ignore_nan, &values, &indices);
    return out_pair(c, ok, values, indices);
}
bool eval_op_median(EvalCall *c) { return median_common(c, false); }
bool eval_op_nanmedian(EvalCall *c) { return median_common(c, true); }

/* mode(Tensor self, int dim=-1, bool keepdim=False) */
bool eval_op_mode(EvalCall *c)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim = -1;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &dim)) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    bool ok = tensor_mode(self, dim, keepdim, &values, &indices);
    return out_pair(c, ok, values, indices);
}

/* ---------------------------------------------------------------- scans */

/* cummax/cummin(Tensor self, int dim) -> (values, indices) */
static bool cum_extreme(EvalCall *c, bool want_max)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim))
        return false;
    bool ok = tensor_cum_extreme(self, dim, want_max, &values, &indices);
    return out_pair(c, ok, values, indices);
}
bool eval_op_cummax(EvalCall *c) { return cum_extreme(c, true); }
bool eval_op_cummin(EvalCall *c) { return cum_extreme(c, false); }

/* logcumsumexp(Tensor self, int dim) */
bool eval_op_logcumsumexp(EvalCall *c)
{
    Tensor *self;
    int64_t dim;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_out_tensor(c, 0, tensor_logcumsumexp(self, dim));
}

/* ---------------------------------------------------------------- reductions */

/* nansum/nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *,
 * ScalarType? dtype=None), or the older (Tensor self, *, ScalarType? dtype) */
static bool nan_reduction(EvalCall *c, bool mean)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, dt = -1;
    bool keepdim = false, has_dims;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 2) {
        if (!eval_arg_dtype_opt(c, 1, &dt))
            return false;
    } else if (c->nargs > 2) {
        if (!eval_arg_ints_opt(c, 1, dims, TENSOR_MAX_DIMS, &ndims, &has_dims) ||
            !eval_arg_bool(c, 2, &keepdim) || (c->nargs > 3 && !eval_arg_dtype_opt(c, 3, &dt)))
            return false;
    }
    const int64_t *d = ndims ? dims : NULL;
    return eval_out_tensor(c, 0, mean ? tensor_nanmean(self, d, ndims, keepdim, dt)
                                      : tensor_nansum(self, d, ndims, keepdim, dt));
}
bool eval_op_nansum(EvalCall *c) { return nan_reduction(c, false); }
bool eval_op_nanmean(EvalCall *c) { return nan_reduction(c, true); }

/* count_nonzero(Tensor self, int[] dim) / (Tensor self, int? dim=None) */
bool eval_op_count_nonzero(EvalCall *c)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0;
    bool present = false;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 2) {
        if (eval_kind(c, 1) == RT_LIST) {
            if (!eval_arg_ints(c, 1, dims, TENSOR_MAX_DIMS, &ndims))
                return false;
            present = true;
        } else if (!eval_arg_int_opt(c, 1, &dims[0], &present)) {
            return false;
        } else {
            ndims = present ? 1 : 0;
        }
    }
    /* count_nonzero(x, []) counts over no dim: every element is its own count */
    if (present && ndims == 0) {
        Tensor *zero = tensor_wrapped_int(0);
        Tensor *ne = zero ? tensor_binary(BIN_NE, self, zero) : NULL;
        tensor_release(zero);
        Tensor *out = ne ? tensor_to_dtype(ne, DT_I64) : NULL;
        tensor_release(ne);
        return eval_out_tensor(c, 0, out);
    }
    return eval_out_tensor(c, 0, tensor_count_nonzero(self, ndims ? dims : NULL, ndims));
}

/* aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (min, max) */
bool eval_op_aminmax(EvalCall *c)
{
    Tensor *self, *min = NULL, *max = NULL;
    int64_t dim = 0;
    bool has_dim = false, keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int_opt(c, 1, &dim, &has_dim)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    bool ok = tensor_aminmax(self, has_dim, dim, keepdim, &min, &max);
    return out_pair(c, ok, min, max);
}

/* var_mean/std_mean(Tensor self, bool unbiased=True) /
 * (self, int[1]? dim, bool unbiased=True, bool keepdim=False) /
 * (self, int[1]? dim=None, *, int? correction=None, bool keepdim=False) */
static bool spread_mean(EvalCall *c, bool take_sqrt)
{
    Tensor *self, *spread = NULL, *mean = NULL;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims;
    bool keepdim;
    double correction;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) ||
        !eval_args_var(c, dims, &ndims, &correction, &keepdim))
        return false;
    bool ok = tensor_var_mean(self, ndims ? dims : NULL, ndims, correction, keepdim, take_sqrt, &spread, &mean);
    return out_pair(c, ok, spread, mean);
}
bool eval_op_var_mean(EvalCall *c) { return spread_mean(c, false); }
bool eval_op_std_mean(EvalCall *c) { return spread_mean(c, true); }

/* quantile/nanquantile(Tensor self, Tensor q | float q, int? dim=None,
 * bool keepdim=False, *, str interpolation='linear') */
static bool quantile_common(EvalCall *c, bool ignore_nan)
{
    Tensor *self, *q;
    int64_t dim = 0;
    bool has_dim = false, keepdim = false;
    const char *name = "linear";
    QuantileMode mode;
    if (!eval_nargs(c, 2, 5) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 2 && !eval_arg_int_opt(c, 2, &dim, &has_dim)) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)) || (c->nargs > 4 && !eval_arg_str(c, 4, &name)))
        return false;
    if (!tensor_quantile_mode_from_name(name, &mode))
        return eval_fail_kernel(c, "bad interpolation");
    if (eval_is_tensor(c, 1)) {
        q = tensor_retain(c->args[1]->u.t);
    } else {
        double qv;
        if (!eval_arg_double(c, 1, &qv))
            return false;
        if (!(qv >= 0 && qv <= 1))
            return eval_fail(c, "%s() q must be in the range [0, 1] but got %g",
                             ignore_nan ? "nanquantile" : "quantile", qv);
        q = tensor_scalar(self->dtype, qv);
        if (!q)
            return eval_fail_kernel(c, "out of memory");
    }
    Tensor *out = tensor_quantile(self, q, has_dim, dim, keepdim, mode, ignore_nan);
    tensor_release(q);
    return eval_out_tensor(c, 0, out);
}
bool eval_op_quantile(EvalCall *c) { return quantile_common(c, false); }
bool eval_op_nanquantile(EvalCall *c) { return quantile_common(c, true); }

/* ---------------------------------------------------------------- differences and integrals */

/* diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) */
bool eval_op_diff(EvalCall *c)
{
    Tensor *self, *prepend = NULL, *append = NULL;
    int64_t n = 1, dim = -1;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &n)) || (c->nargs > 2 && !eval_arg_int(c, 2, &dim)) ||
        (c->nargs > 3 && !eval_arg_tensor_opt(c, 3, &prepend)) ||
        (c->nargs > 4 && !eval_arg_tensor_opt(c, 4, &append)))
        return false;
    return eval_out_tensor(c, 0, tensor_diff(self, n, dim, prepend, append));
}

typedef Tensor *(*TrapezoidFn)(const Tensor *, const Tensor *, double, int64_t);

/* (Tensor y, Tensor x, *, int dim=-1) / (Tensor y, *, Scalar dx=1, int dim=-1) */
static bool trapezoid_common(EvalCall *c, TrapezoidFn fn)
{
    Tensor *y, *x = NULL;
    double dx = 1;
    int64_t dim = -1;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &y))
        return false;
    if (c->nargs > 1) {
        if (eval_is_tensor(c, 1)) {
            x = c->args[1]->u.t;
        } else if (eval_kind(c, 1) == RT_BOOL) {
            return eval_fail(c, "trapezoid: Currently, we only support dx as a real number.");
        } else if (!eval_arg_double(c, 1, &dx)) {
            return false;
        }
    }
    if (c->nargs > 2 && !eval_arg_int(c, 2, &dim))
        return false;
    return eval_out_tensor(c, 0, fn(y, x, dx, dim));
}
bool eval_op_trapezoid(EvalCall *c) { return trapezoid_common(c, tensor_trapezoid); }
bool eval_op_trapz(EvalCall *c) { return trapezoid_common(c, tensor_trapezoid); }
bool eval_op_cumulative_trapezoid(EvalCall *c) { return trapezoid_common(c, tensor_cumulative_trapezoid); }

/* ---------------------------------------------------------------- bucketize, isin */

/* bucketize(Tensor self | Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) */
bool eval_op_bucketize(EvalCall *c)
{
    Tensor *self, *boundaries;
    bool out_int32 = false, right = false;
    if (!eval_nargs(c, 2, 4) || !eval_arg_operand(c, 0, &self))
        return false;
    bool ok = eval_arg_tensor(c, 1, &boundaries) && (c->nargs < 3 || eval_arg_bool(c, 2, &out_int32)) &&
              (c->nargs < 4 || eval_arg_bool(c, 3, &right));
    Tensor *out = ok ? tensor_bucketize(self, boundaries, out_int32, right) : NULL;
    tensor_release(self);
    return ok && eval_out_tensor(c, 0, out);
}

/* isin(Tensor|Scalar elements, Tensor|Scalar test_elements, *,
 * bool assume_unique=False, bool invert=False) */
bool eval_op_isin(EvalCall *c)
{
    Tensor *elements = NULL, *test = NULL;
    bool assume_unique = false, invert = false;
    if (!eval_nargs(c, 2, 4))
        return false;
    bool ok = eval_arg_operand(c, 0, &elements) && eval_arg_operand(c, 1, &test) &&
              (c->nargs < 3 || eval_arg_bool(c, 2, &assume_unique)) &&
              (c->nargs < 4 || eval_arg_bool(c, 3, &invert));
    Tensor *out = ok ? tensor_isin(elements, test, invert) : NULL;
    tensor_release(elements);
    tensor_release(test);
    return ok && eval_out_tensor(c, 0, out);
}

/* ---------------------------------------------------------------- histograms */

/* histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) */
bool eval_op_histc(EvalCall *c)
{
    Tensor *self;
    int64_t bins = 100;
    double min = 0, max = 0;
    return eval_nargs(c, 1, 4) && eval_arg_tensor(c, 0, &self) && (c->nargs < 2 || eval_arg_int(c, 1, &bins)) &&
           (c->nargs < 3 || eval_arg_double(c, 2, &min)) && (c->nargs < 4 || eval_arg_double(c, 3, &max)) &&
           eval_out_tensor(c, 0, tensor_histc(self, bins, min, max));
}

/* float[]? range: NULL for None, else its n numbers in buf. */
static bool range_arg(EvalCall *c, int i, double *buf, int cap, int *n, bool *present)
{
    *n = 0;
    *present = false;
    if (eval_is_none(c, i))
        return true;
    RtValue *list;
    if (!eval_arg_list(c, i, &list))
        return false;
    if (list->u.list.n > cap)
        return eval_fail(c, "range has %d elements, at most %d are supported", list->u.list.n, cap);
    for (int k = 0; k < list->u.list.n; k++) {
        if (!rt_is_number(list->u.list.items[k]))
            return eval_fail(c, "range must be a list of floats");
        buf[k] = rt_number(list->u.list.items[k]);
    }
    *n = list->u.list.n;
    *present = true;
    return true;
}

/* Stores (hist, bin_edges) with bin_edges a tensor (histogram) or a list
 * of n tensors (histogramdd). */
static bool out_histogram(EvalCall *c, bool ok, Tensor *hist, Tensor **edges, int n, bool as_list)
{
    if (!ok)
        return eval_fail_kernel(c, "histogram failed");
    if (c->nouts != 2) {
        tensor_release(hist);
        for (int k = 0; k < n; k++)
            tensor_release(edges[k]);
        return eval_fail(c, "the op has 2 results, the node has %d outputs", c->nouts);
    }
    if (!as_list)
        return eval_out_tensor(c, 0, hist) && eval_out_tensor(c, 1, edges[0]);
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int k = 0; k < n; k++) {
        RtValue *item = rt_tensor_take(edges[k]);
        rt_list_append(list, item);
        rt_release(item);
    }
    return eval_out_tensor(c, 0, hist) && eval_out_value(c, 1, list);
}

/* histogram(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) /
 * histogram(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) */
bool eval_op_histogram(EvalCall *c)
{
    Tensor *self, *weight = NULL, *hist = NULL, *edges[1] = {NULL};
    bool density = false;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs > 1 && eval_is_tensor(c, 1)) {
        Tensor *bins = c->args[1]->u.t;
        if (!eval_nargs(c, 2, 4) || (c->nargs > 2 && !eval_arg_tensor_opt(c, 2, &weight)) ||
            (c->nargs > 3 && !eval_arg_bool(c, 3, &density)))
            return false;
        bool ok = tensor_histogramdd(self, true, 1, NULL, &bins, NULL, weight, density, &hist, edges);
        return out_histogram(c, ok, hist, edges, 1, false);
    }
    int64_t bins = 100;
    double range[2];
    int nrange;
    bool has_range = false;
    if ((c->nargs > 1 && !eval_arg_int(c, 1, &bins)) ||
        (c->nargs > 2 && !range_arg(c, 2, range, 2, &nrange, &has_range)) ||
        (c->nargs > 3 && !eval_arg_tensor_opt(c, 3, &weight)) || (c->nargs > 4 && !eval_arg_bool(c, 4, &density)))
        return false;
    if (has_range && nrange != 2)
        return eval_fail(c, "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                            "but got %d", nrange);
    bool ok = tensor_histogramdd(self, true, 1, &bins, NULL, has_range ? range : NULL, weight, density, &hist,
                                 edges);
    return out_histogram(c, ok, hist, edges, 1, false);
}

/* histogramdd(Tensor self, int[] bins | int bins | Tensor[] bins,
 * float[]? range=None, Tensor? weight=None, bool density=False) -> (hist, bin_edges[]) */
bool eval_op_histogramdd(EvalCall *c)
{
    Tensor *self, *weight = NULL, *hist = NULL, *edges[TENSOR_MAX_DIMS];
    int64_t counts[TENSOR_MAX_DIMS];
    double range[2 * TENSOR_MAX_DIMS];
    int nbins = 0, nrange = 0;
    bool has_range = false, density = false;
    Tensor **bin_tensors = NULL;
    if (!eval_nargs(c, 2, 5) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 2 && !range_arg(c, 2, range, 2 * TENSOR_MAX_DIMS, &nrange, &has_range)) ||
        (c->nargs > 3 && !eval_arg_tensor_opt(c, 3, &weight)) || (c->nargs > 4 && !eval_arg_bool(c, 4, &density)))
        return false;
    int dims = self->ndim == 0 ? 1 : (int)self->sizes[self->ndim - 1];
    if (eval_kind(c, 1) == RT_INT) {
        int64_t count;
        if (!eval_arg_int(c, 1, &count))
            return false;
        if (dims > TENSOR_MAX_DIMS)
            return eval_fail(c, "histogramdd over %d dimensions is not supported", dims);
        nbins = dims;
        for (int k = 0; k < nbins; k++)
            counts[k] = count;
    } else {
        RtValue *list;
        if (!eval_arg_list(c, 1, &list))
            return false;
        if (list->u.list.n > 0 && list->u.list.items[0]->kind == RT_TENSOR) {
            if (!eval_arg_tensor_list(c, 1, false, &bin_tensors, &nbins))
                return false;
        } else if (!eval_arg_ints(c, 1, counts, TENSOR_MAX_DIMS, &nbins)) {
            return false;
        }
        if (nbins > TENSOR_MAX_DIMS) {
            free(bin_tensors);
            return eval_fail(c, "histogramdd over %d dimensions is not supported", nbins);
        }
    }
    if (has_range && nrange != 2 * nbins) {
        free(bin_tensors);
        return eval_fail(c, "torch.histogramdd: for a %d-dimensional histogram range should have %d elements, "
                            "but got %d", nbins, 2 * nbins, nrange);
    }
    bool ok = tensor_histogramdd(self, false, nbins, bin_tensors ? NULL : counts, bin_tensors,
                                 has_range ? range : NULL, weight, density, &hist, edges);
    free(bin_tensors);
    return out_histogram(c, ok, hist, edges, nbins, true);
}

/* ---------------------------------------------------------------- gradient, segment_reduce */

/* gradient(Tensor self, *, Scalar? spacing | Scalar[] spacing | Tensor[] spacing,
 * int? dim | int[] dim, int edge_order=1) -> Tensor[]; or
 * gradient(Tensor self, *, int[] dim, int edge_order=1) */
bool eval_op_gradient(EvalCall *c)
{
    Tensor *self, **coords = NULL;
    int64_t dims[TENSOR_MAX_DIMS], edge_order = 1;
    double h[TENSOR_MAX_DIMS];
    int ndims = 0, nspacing = -1;   /* -1: no spacing given */
    if (!eval_nargs(c, 3, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    int dim_arg = c->nargs == 4 ? 2 : 1, spacing_arg = c->nargs == 4 ? 1 : -1;
    if (!eval_arg_int(c, dim_arg + 1, &edge_order))
        return false;
    bool dim_given = !eval_is_none(c, dim_arg);
    if (!dim_given) {
        ndims = self->ndim;
        for (int k = 0; k < ndims; k++)
            dims[k] = k;
    } else if (!eval_arg_ints(c, dim_arg, dims, TENSOR_MAX_DIMS, &ndims)) {
        return false;
    }
    if (spacing_arg > 0 && !eval_is_none(c, spacing_arg)) {
        RtKind kind = eval_kind(c, spacing_arg);
        if (kind == RT_LIST || kind == RT_TUPLE) {
            RtValue *list;
            if (!eval_arg_list(c, spacing_arg, &list))
                return false;
            nspacing = list->u.list.n;
            if (nspacing > 0 && list->u.list.items[0]->kind == RT_TENSOR) {
                if (!eval_arg_tensor_list(c, spacing_arg, false, &coords, &nspacing))
                    return false;
            } else {
                for (int k = 0; k < nspacing && k < TENSOR_MAX_DIMS; k++) {
                    if (!rt_is_number(list->u.list.items[k]))
                        return eval_fail(c, "torch.gradient: spacing must hold numbers or tensors");
                    h[k] = rt_number(list->u.list.items[k]);
                }
            }
        } else {
            double step;
            if (!eval_arg_double(c, spacing_arg, &step))
                return false;
            for (int k = 0; k < ndims; k++)
                h[k] = step;
        }
    } else {
        for (int k = 0; k < ndims; k++)
            h[k] = 1.0;
    }
    bool ok = true;
    if (nspacing >= 0 && !dim_given && nspacing != 1 && nspacing != self->ndim)
        ok = eval_fail(c, "torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                          "equal to 'self.dim() = %d', since dim argument was not given, but got a list of "
                          "length %d", self->ndim, nspacing);
    else if (nspacing >= 0 && dim_given && nspacing != ndims)
        ok = eval_fail(c, "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                          "arguments to have the same length, but got a spacing argument of length %d and a "
                          "dim argument of length %d.", nspacing, ndims);
    else if (nspacing >= 0 && nspacing != ndims)
        /* one spacing for several dims: ATen reads past the end of the list */
        ok = eval_fail(c, "torch.gradient with one spacing for %d dims is not implemented", ndims);
    Tensor **out = ok ? tensor_gradient(self, dims, ndims, h, coords, edge_order) : NULL;
    free(coords);
    if (!ok)
        return false;
    if (!out)
        return eval_fail_kernel(c, "gradient failed");
    return eval_out_tensor_list(c, out, ndims);
}

/* segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None,
 * Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) */
bool eval_op_segment_reduce(EvalCall *c)
{
    Tensor *data, *lengths = NULL, *indices = NULL, *offsets = NULL;
    const char *name;
    int64_t axis = 0;
    bool unsafe = false, has_initial = false;
    double initial = 0;
    SegmentReduce op;
    if (!eval_nargs(c, 2, 8) || !eval_arg_tensor(c, 0, &data) || !eval_arg_str(c, 1, &name) ||
        (c->nargs > 2 && !eval_arg_tensor_opt(c, 2, &lengths)) ||
        (c->nargs > 3 && !eval_arg_tensor_opt(c, 3, &indices)) ||
        (c->nargs > 4 && !eval_arg_tensor_opt(c, 4, &offsets)) || (c->nargs > 5 && !eval_arg_int(c, 5, &axis)) ||
        (c->nargs > 6 && !eval_arg_bool(c, 6, &unsafe)) ||
        (c->nargs > 7 && !eval_arg_double_opt(c, 7, &initial, &has_initial)))
        return false;
    if (!tensor_segment_reduce_from_name(name, &op))
        return eval_fail_kernel(c, "bad reduction");
    if (indices)
        return eval_fail(c, "segment_reduce with indices is not implemented");
    if (!lengths && !offsets)
        return eval_fail(c, "segment_reduce(): Either lengths or offsets must be defined");
    return eval_out_tensor(c, 0, tensor_segment_reduce(data, op, lengths ? lengths : offsets, !lengths, axis,
                                                       unsafe, has_initial, initial));
}

/* ---------------------------------------------------------------- unique */

static bool out_unique(EvalCall *c, bool ok, Tensor *values, Tensor *inverse, Tensor *counts)
{
    if (!ok)
        return eval_fail_kernel(c, "unique failed");
    if (c->nouts != 3) {
        tensor_release(values);
        tensor_release(inverse);
        tensor_release(counts);
        return eval_fail(c, "unique has 3 results, the node has %d outputs", c->nouts);
    }
    return eval_out_tensor(c, 0, values) && eval_out_tensor(c, 1, inverse) && eval_out_tensor(c, 2, counts);
}

/* _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) */
bool eval_op_unique2(EvalCall *c)
{
    Tensor *self, *values = NULL, *inverse = NULL, *counts = NULL;
    bool sorted = true, inv = false, cnt = false;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) || (c->nargs > 1 && !eval_arg_bool(c, 1, &sorted)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &inv)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &cnt)))
        return false;
    /* ATen sorts bool input either way; other unsorted output is in its hash set's order */
    bool ok = sorted || self->dtype == DT_BOOL
                  ? tensor_unique_sorted(self, false, 0, inv, cnt, &values, &inverse, &counts)
                  : tensor_unique_unsorted(self, inv, cnt, &values, &inverse, &counts);
    return out_unique(c, ok, values, inverse, counts);
}

/* unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) */
bool eval_op_unique_dim(EvalCall *c)
{
    Tensor *self, *values = NULL, *inverse = NULL, *counts = NULL;
    int64_t dim;
    bool sorted = true, inv = false, cnt = false;
    if (!eval_nargs(c, 2, 5) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &sorted)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &inv)) ||
        (c->nargs > 4 && !eval_arg_bool(c, 4, &cnt)))
        return false;
    bool ok = tensor_unique_sorted(self, true, dim, inv, cnt, &values, &inverse, &counts);
    return out_unique(c, ok, values, inverse, counts);
}
