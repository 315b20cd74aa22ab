/* ops_reduce.c — bindings of the reductions and the ops that scan or order
 * along a dim: sum, mean, prod, max/min (three overloads each), argmax,
 * amax, softmax, cumsum, all/any, topk, sort, argsort, nonzero, norm,
 * var/std (unbiased and correction forms), logsumexp.
 *
 * Dim lists follow PyTorch: None or [] means every dim. sum/all/any of a
 * Python list are TorchScript's builtins (eval_list_reduce); aten::sort of a
 * list sorts it in place, as list.sort() does.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

static bool is_list(const EvalCall *c, int i)
{
    return eval_kind(c, i) == RT_LIST || eval_kind(c, i) == RT_TUPLE;
}

static bool two_tensors(EvalCall *c, bool ok, Tensor *a, Tensor *b)
{
    if (!ok || c->nouts != 2) {
        tensor_release(a);
        tensor_release(b);
        if (ok)
            return eval_fail(c, "the op has 2 results, the node has %d outputs", c->nouts);
        return eval_fail_kernel(c, "the reduction kernel failed");
    }
    return eval_out_tensor(c, 0, a) && eval_out_tensor(c, 1, b);
}

typedef Tensor *(*DimsReduction)(const Tensor *, const int64_t *, int, bool, int);

/* sum/mean(Tensor self, ScalarType? dtype) or
 * (Tensor self, int[1]? dim, bool keepdim=False, ScalarType? dtype) */
static bool dims_reduction(EvalCall *c, DimsReduction fn)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, dt = -1;
    bool keepdim = false, has_dims;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs <= 2) {
        if (c->nargs == 2 && !eval_arg_dtype_opt(c, 1, &dt))
            return false;
    } else if (!eval_arg_ints_opt(c, 1, dims, TENSOR_MAX_DIMS, &ndims, &has_dims) ||
               !eval_arg_bool(c, 2, &keepdim) || (c->nargs > 3 && !eval_arg_dtype_opt(c, 3, &dt))) {
        return false;
    }
    return eval_out_tensor(c, 0, fn(self, ndims ? dims : NULL, ndims, keepdim, dt));
}

bool eval_op_sum(EvalCall *c)
{
    if (is_list(c, 0))
        return eval_list_reduce(c);
    return dims_reduction(c, tensor_sum);
}

bool eval_op_mean(EvalCall *c) { return dims_reduction(c, tensor_mean); }

/* prod(Tensor self, ScalarType? dtype) / prod(self, int dim, bool keepdim, ScalarType? dtype) */
bool eval_op_prod(EvalCall *c)
{
    Tensor *self;
    int64_t dim;
    int dt = -1;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs <= 2)
        return (c->nargs < 2 || eval_arg_dtype_opt(c, 1, &dt)) &&
               eval_out_tensor(c, 0, tensor_prod(self, NULL, 0, false, dt));
    return eval_arg_int(c, 1, &dim) && eval_arg_bool(c, 2, &keepdim) &&
           (c->nargs < 4 || eval_arg_dtype_opt(c, 3, &dt)) &&
           eval_out_tensor(c, 0, tensor_prod(self, &dim, 1, keepdim, dt));
}

/* max/min(Tensor self) -> Tensor; (self, Tensor other) -> maximum;
 * (self, int dim, bool keepdim=False) -> (values, indices) */
static bool max_min(EvalCall *c, bool is_max)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 1)
        return eval_out_tensor(c, 0, is_max ? tensor_max_all(self) : tensor_min_all(self));
    if (eval_is_tensor(c, 1)) {
        if (c->nargs != 2)
            return eval_nargs(c, 2, 2);
        return eval_out_tensor(c, 0, tensor_binary(is_max ? BIN_MAXIMUM : BIN_MINIMUM, self,
                                                  c->args[1]->u.t));
    }
    int64_t dim;
    bool keepdim = false;
    if (!eval_arg_int(c, 1, &dim) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    if (c->nouts != 2)
        return eval_fail(c, "max/min over a dim has 2 results, the node has %d", c->nouts);
    Tensor *values = NULL, *indices = NULL;
    bool ok = is_max ? tensor_max_dim(self, dim, keepdim, &values, &indices)
                     : tensor_min_dim(self, dim, keepdim, &values, &indices);
    return two_tensors(c, ok, values, indices);
}
bool eval_op_max(EvalCall *c) { return max_min(c, true); }
bool eval_op_min(EvalCall *c) { return max_min(c, false); }

/* argmax/argmin(Tensor self, int? dim=None, bool keepdim=False) */
static bool arg_extreme(EvalCall *c, bool is_max)
{
    Tensor *self;
    int64_t dim = 0;
    bool has_dim, keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        !eval_arg_int_opt(c, 1, &dim, &has_dim) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    return eval_out_tensor(c, 0, is_max ? tensor_argmax(self, has_dim, dim, keepdim)
                                       : tensor_argmin(self, has_dim, dim, keepdim));
}
bool eval_op_argmax(EvalCall *c) { return arg_extreme(c, true); }
bool eval_op_argmin(EvalCall *c) { return arg_extreme(c, false); }

/* (Tensor self, int[1] dim, bool keepdim=False), dim required or, when
 * optional, None or [] for every dim (ndims 0). */
static bool dims_keepdim_args(EvalCall *c, bool dim_required, Tensor **self, int64_t *dims,
                              int *ndims, bool *keepdim)
{
    bool has_dims;
    *keepdim = false;
    return eval_nargs(c, dim_required ? 2 : 1, 3) && eval_arg_tensor(c, 0, self) &&
           (dim_required ? eval_arg_ints(c, 1, dims, TENSOR_MAX_DIMS, ndims)
                         : eval_arg_ints_opt(c, 1, dims, TENSOR_MAX_DIMS, ndims, &has_dims)) &&
           (c->nargs < 3 || eval_arg_bool(c, 2, keepdim));
}

typedef Tensor *(*DimsKeepdimFn)(const Tensor *, const int64_t *, int, bool);

/* amax/amin(Tensor self, int[1] dim=[], bool keepdim=False),
 * logsumexp(Tensor self, int[1] dim, bool keepdim=False) */
static bool dims_keepdim(EvalCall *c, bool dim_required, DimsKeepdimFn fn)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims;
    bool keepdim;
    return dims_keepdim_args(c, dim_required, &self, dims, &ndims, &keepdim) &&
           eval_out_tensor(c, 0, fn(self, ndims ? dims : NULL, ndims, keepdim));
}
bool eval_op_amax(EvalCall *c) { return dims_keepdim(c, false, tensor_amax); }
bool eval_op_amin(EvalCall *c) { return dims_keepdim(c, false, tensor_amin); }
bool eval_op_logsumexp(EvalCall *c) { return dims_keepdim(c, true, tensor_logsumexp); }

/* softmax/log_softmax/cumsum/cumprod(Tensor self, int dim, ScalarType? dtype) */
typedef Tensor *(*DimScan)(const Tensor *, int64_t, int);
static bool dim_scan(EvalCall *c, DimScan fn)
{
    Tensor *self;
    int64_t dim;
    int dt = -1;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           (c->nargs < 3 || eval_arg_dtype_opt(c, 2, &dt)) &&
           eval_out_tensor(c, 0, fn(self, dim, dt));
}
bool eval_op_softmax(EvalCall *c) { return dim_scan(c, tensor_softmax); }
bool eval_op_log_softmax(EvalCall *c) { return dim_scan(c, tensor_log_softmax); }
bool eval_op_cumsum(EvalCall *c) { return dim_scan(c, tensor_cumsum); }
bool eval_op_cumprod(EvalCall *c) { return dim_scan(c, tensor_cumprod); }

/* all/any(Tensor self) / (self, int dim, bool keepdim=False) /
 * (self, int[]? dim, bool keepdim) with at most one dim; or of a list. */
static bool all_any(EvalCall *c, bool is_all)
{
    if (is_list(c, 0))
        return eval_list_reduce(c);
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims;
    bool keepdim;
    if (!dims_keepdim_args(c, false, &self, dims, &ndims, &keepdim))
        return false;
    if (ndims > 1)
        return eval_fail(c, "all/any over several dims is not supported");
    bool has_dim = ndims == 1;
    return eval_out_tensor(c, 0, is_all ? tensor_all(self, has_dim, dims[0], keepdim)
                                       : tensor_any(self, has_dim, dims[0], keepdim));
}
bool eval_op_all(EvalCall *c) { return all_any(c, true); }
bool eval_op_any(EvalCall *c) { return all_any(c, false); }

/* topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) */
bool eval_op_topk(EvalCall *c)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t k, dim = -1;
    bool largest = true, sorted = true;
    if (!eval_nargs(c, 2, 5) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &k) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &largest)) ||
        (c->nargs > 4 && !eval_arg_bool(c, 4, &sorted)))
        return false;
    bool ok = tensor_topk(self, k, dim, largest, sorted, &values, &indices);
    return two_tensors(c, ok, values, indices);
}

/* Items of a list being sorted, ordered: strings by bytes, numbers and
 * one-element tensors (TorchScript compares tensors with lt) by value. */
static int sort_compare(const RtValue *v, const RtValue *u)
{
    if (v->kind == RT_STR)
        return strcmp(v->u.s, u->u.s);
    double a = v->kind == RT_TENSOR ? tensor_item(v->u.t) : rt_number(v);
    double b = u->kind == RT_TENSOR ? tensor_item(u->u.t) : rt_number(u);
    return (a > b) - (a < b);
}

/* Python's list.sort(reverse=...) on numbers, strings or one-element
 * tensors, in place and stable (insertion sort: lists in graphs are
 * short); false after the error for items that do not sort. */
static bool sort_items(EvalCall *c, RtValue *list, bool reverse)
{
    RtValue **items = list->u.list.items;
    int n = list->u.list.n;
    for (int i = 0; i < n; i++) {
        RtKind k = items[i]->kind;
        RtKind first = items[0]->kind == RT_STR || items[0]->kind == RT_TENSOR ? items[0]->kind : RT_INT;
        if (!rt_is_number(items[i]) && k != RT_STR && k != RT_TENSOR)
            return eval_fail(c, "sorting a list of %s is not supported", rt_kind_name(k));
        if ((k == RT_STR || k == RT_TENSOR ? k : RT_INT) != first)
            return eval_fail(c, "cannot sort a list mixing %s and %s", rt_kind_name(items[0]->kind),
                             rt_kind_name(k));
        if (k == RT_TENSOR && tensor_numel(items[i]->u.t) != 1)
            return eval_fail(c, "Boolean value of Tensor with more than one value is ambiguous");
    }
    for (int i = 1; i < n; i++) {
        RtValue *v = items[i];
        int j = i;
        while (j > 0) {
            int cmp = sort_compare(v, items[j - 1]);
            if (!(reverse ? cmp > 0 : cmp < 0))
                break;
            items[j] = items[j - 1];
            j--;
        }
        items[j] = v;
    }
    return true;
}

/* list.sort(reverse=False): aten::sort(t[] self, bool reverse=False). */
static bool list_sort(EvalCall *c)
{
    RtValue *list;
    bool reverse = false;
    return eval_nargs(c, 1, 2) && eval_arg_list(c, 0, &list) &&
           (c->nargs < 2 || eval_arg_bool(c, 1, &reverse)) && sort_items(c, list, reverse);
}

/* immut::list_sort(t[] l, bool reverse=False) -> t[]: a sorted copy of l
 * (TensorSSA's form of list.sort(), with its errors); a list the caller
 * holds alone (eval_arg_owned) is sorted in place. */
bool eval_op_list_sort(EvalCall *c)
{
    RtValue *list;
    bool reverse = false;
    if (!eval_nargs(c, 1, 2) || !eval_arg_list(c, 0, &list) ||
        (c->nargs > 1 && !eval_arg_bool(c, 1, &reverse)))
        return false;
    RtValue *copy = eval_arg_take(c, 0) ? rt_retain(list)
                                         : rt_list(RT_LIST, list->u.list.n, list->u.list.items);
    if (!sort_items(c, copy, reverse)) {
        rt_release(copy);
        return false;
    }
    return eval_out_value(c, 0, copy);
}

/* sort(Tensor self, int dim=-1, bool descending=False) or
 * sort(self, *, bool? stable, int dim=-1, bool descending=False) */
bool eval_op_sort(EvalCall *c)
{
    if (is_list(c, 0))
        return list_sort(c);
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim = -1;
    bool descending = false, stable = false, has_stable;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    int first = 1;
    if (c->nargs == 4) {
        if (!eval_arg_bool_opt(c, 1, &stable, &has_stable))
            return false;
        first = 2;
    }
    if ((c->nargs > first && !eval_arg_int(c, first, &dim)) ||
        (c->nargs > first + 1 && !eval_arg_bool(c, first + 1, &descending)))
        return false;
    bool ok = tensor_sort(self, dim, descending, stable, &values, &indices);
    return two_tensors(c, ok, values, indices);
}

/* argsort(Tensor self, int dim=-1, bool descending=False) or
 * argsort(self, *, bool stable, int dim=-1, bool descending=False) */
bool eval_op_argsort(EvalCall *c)
{
    Tensor *self;
    int64_t dim = -1;
    bool descending = false, stable = false;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    int first = 1;
    if (c->nargs == 4) {
        if (!eval_arg_bool(c, 1, &stable))
            return false;
        first = 2;
    }
    if ((c->nargs > first && !eval_arg_int(c, first, &dim)) ||
        (c->nargs > first + 1 && !eval_arg_bool(c, first + 1, &descending)))
        return false;
    return eval_out_tensor(c, 0, tensor_argsort(self, dim, descending, stable));
}

bool eval_op_nonzero(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_tensor(c, 0, tensor_nonzero(self));
}

/* norm(Tensor self, Scalar p=2) / norm(self, Scalar? p, int[1] dim,
 * bool keepdim=False[, ScalarType dtype]) */
bool eval_op_norm(EvalCall *c)
{
    Tensor *self;
    double p = 2;
    bool has_p, keepdim = false, has_dims;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, dt = -1;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (eval_kind(c, 1) == RT_STR)
        return eval_fail(c, "norm with p='%s' is not supported", c->args[1]->u.s);
    if (!eval_arg_double_opt(c, 1, &p, &has_p))
        return false;
    if (!has_p)
        p = 2;
    if (c->nargs > 2 && (!eval_arg_ints_opt(c, 2, dims, TENSOR_MAX_DIMS, &ndims, &has_dims) ||
                         (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)) ||
                         (c->nargs > 4 && !eval_arg_dtype_opt(c, 4, &dt))))
        return false;
    Tensor *r = tensor_norm(self, p, ndims ? dims : NULL, ndims, keepdim);
    if (r && dt >= 0 && (int)r->dtype != dt) {
        Tensor *cast = tensor_to_dtype(r, (TensorDType)dt);
        tensor_release(r);
        r = cast;
    }
    return eval_out_tensor(c, 0, r);
}

/* var/std(Tensor self, bool unbiased=True) /
 * (self, int[1]? dim, bool unbiased=True, bool keepdim=False) /
 * (self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) */
static bool var_std(EvalCall *c, bool is_std)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims;
    bool keepdim;
    double correction;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) ||
        !eval_args_var(c, dims, &ndims, &correction, &keepdim))
        return false;
    const int64_t *d = ndims ? dims : NULL;
    return eval_out_tensor(c, 0, is_std ? tensor_std(self, d, ndims, correction, keepdim)
                                       : tensor_var(self, d, ndims, correction, keepdim));
}
bool eval_op_var(EvalCall *c) { return var_std(c, false); }
bool eval_op_std(EvalCall *c) { return var_std(c, true); }

/* unique_consecutive(Tensor self, bool return_inverse=False,
 *                    bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor) */
bool eval_op_unique_consecutive(EvalCall *c)
{
    Tensor *x, *values, *inverse, *counts;
    bool inv = false, cnt = false, present, has_dim = false;
    int64_t dim = 0;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &x) ||
        (c->nargs > 1 && !eval_arg_bool_opt(c, 1, &inv, &present)) ||
        (c->nargs > 2 && !eval_arg_bool_opt(c, 2, &cnt, &present)) ||
        (c->nargs > 3 && !eval_arg_int_opt(c, 3, &dim, &has_dim)))
        return false;
    if (!tensor_unique_consecutive(x, inv, cnt, has_dim, dim, &values, &inverse, &counts))
        return eval_fail_kernel(c, "unique_consecutive failed");
    return eval_out_tensors(c, (Tensor *[]){values, inverse, counts}, 3);
}
