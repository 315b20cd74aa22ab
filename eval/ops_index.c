/* ops_index.c — bindings of advanced indexing and the in-place writes:
 * index, index_select, masked_select, gather, index_put(_), masked_fill(_),
 * scatter(_), and the copies copy_, clone, fill_, zero_.
 *
 * In-place forms write through self (which may be a view: the write reaches
 * every alias) and return self itself. Out-of-place forms are PyTorch's
 * definitions: a copy of self (for masked_fill, self broadcast against the
 * mask first) followed by the in-place kernel.
 */
#include <stdlib.h>

#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* index(Tensor self, Tensor?[] indices), or list.index(x) on a list. */
bool eval_op_index(EvalCall *c)
{
    if (eval_kind(c, 0) == RT_LIST)
        return eval_list_index_of(c);
    Tensor *self, **indices;
    int n;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self) ||
        !eval_arg_tensor_list(c, 1, true, &indices, &n))
        return false;
    bool ok = eval_out_tensor(c, 0, tensor_index(self, indices, n));
    free(indices);
    return ok;
}

/* index_put(_)(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) */
static bool index_put(EvalCall *c, bool inplace)
{
    Tensor *self, **indices = NULL, *values = NULL;
    bool accumulate = false;
    int n;
    if (!eval_nargs(c, 3, 4) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &accumulate)) ||
        !eval_arg_tensor_list(c, 1, true, &indices, &n))
        return false;
    bool ok = eval_arg_operand(c, 2, &values);
    if (ok && inplace) {
        ok = eval_out_self(c, tensor_index_put_(self, indices, n, values, accumulate),
                           "index_put_ failed");
    } else if (ok) {
        Tensor *copy = tensor_clone_preserve(self); /* PyTorch: clone(preserve_format) */
        bool done = copy && tensor_index_put_(copy, indices, n, values, accumulate);
        ok = eval_out_written_copy(c, copy, done, "index_put failed");
    }
    tensor_release(values);
    free(indices);
    return ok;
}
bool eval_op_index_put(EvalCall *c) { return index_put(c, false); }
bool eval_op_index_put_(EvalCall *c) { return index_put(c, true); }

/* index_select(Tensor self, int dim, Tensor index) */
bool eval_op_index_select(EvalCall *c)
{
    Tensor *self, *index;
    int64_t dim;
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_arg_tensor(c, 2, &index) &&
           eval_out_tensor(c, 0, tensor_index_select(self, dim, index));
}

/* masked_select(Tensor self, Tensor mask) */
bool eval_op_masked_select(EvalCall *c) { return eval_call_tensor_pair(c, tensor_masked_select); }

/* gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) */
bool eval_op_gather(EvalCall *c)
{
    Tensor *self, *index;
    int64_t dim;
    return eval_nargs(c, 3, 4) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_arg_tensor(c, 2, &index) && eval_out_tensor(c, 0, tensor_gather(self, dim, index));
}

/* masked_fill(_)(Tensor self, Tensor mask, Scalar|Tensor value) */
static bool masked_fill(EvalCall *c, bool inplace)
{
    Tensor *self, *mask, *value = NULL;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &mask) ||
        !eval_arg_operand(c, 2, &value))
        return false;
    bool ok;
    if (value->ndim != 0) {
        ok = eval_fail(c, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                         "with %d dimension(s).", value->ndim);
    } else if (inplace) {
        ok = eval_out_self(c, tensor_masked_fill_(self, mask, value), "masked_fill_ failed");
    } else {
        /* The result has the broadcast shape of self and mask. */
        int64_t shape[TENSOR_MAX_DIMS];
        int nd = tensor_broadcast_shape(self->ndim, self->sizes, mask->ndim, mask->sizes, shape);
        Tensor *expanded = nd < 0 ? NULL : tensor_expand(self, nd, shape);
        Tensor *copy = expanded ? tensor_clone(expanded) : NULL;
        tensor_release(expanded);
        bool done = copy && tensor_masked_fill_(copy, mask, value);
        ok = eval_out_written_copy(c, copy, done, "masked_fill failed");
    }
    tensor_release(value);
    return ok;
}
bool eval_op_masked_fill(EvalCall *c) { return masked_fill(c, false); }
bool eval_op_masked_fill_(EvalCall *c) { return masked_fill(c, true); }

/* scatter(_)(Tensor self, int dim, Tensor index, Tensor src|Scalar value
 * [, str reduce]) */
static bool scatter(EvalCall *c, bool inplace)
{
    Tensor *self, *index, *src = NULL;
    int64_t dim;
    const char *reduce = NULL;
    if (!eval_nargs(c, 4, 5) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || (c->nargs > 4 && !eval_arg_str_opt(c, 4, &reduce)) ||
        !eval_arg_operand(c, 3, &src))
        return false;
    bool ok;
    if (inplace) {
        ok = eval_out_self(c, tensor_scatter_(self, dim, index, src, reduce), "scatter_ failed");
    } else {
        Tensor *copy = tensor_clone(self);
        bool done = copy && tensor_scatter_(copy, dim, index, src, reduce);
        ok = eval_out_written_copy(c, copy, done, "scatter failed");
    }
    tensor_release(src);
    return ok;
}
bool eval_op_scatter(EvalCall *c) { return scatter(c, false); }

/* scatter_add(_)(Tensor self, int dim, Tensor index, Tensor src) */
static bool scatter_add(EvalCall *c, bool inplace)
{
    Tensor *self, *index, *src;
    int64_t dim;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || !eval_arg_tensor(c, 3, &src))
        return false;
    if (inplace)
        return eval_out_self(c, tensor_scatter_(self, dim, index, src, "add"), "scatter_add_ failed");
    Tensor *copy = tensor_clone(self);
    bool done = copy && tensor_scatter_(copy, dim, index, src, "add");
    return eval_out_written_copy(c, copy, done, "scatter_add failed");
}
bool eval_op_scatter_add(EvalCall *c) { return scatter_add(c, false); }
bool eval_op_scatter_add_(EvalCall *c) { return scatter_add(c, true); }

/* index_add(_)(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) */
static bool index_add(EvalCall *c, bool inplace)
{
    Tensor *self, *index, *source;
    int64_t dim;
    double alpha = 1;
    if (!eval_nargs(c, 4, 5) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || !eval_arg_tensor(c, 3, &source) ||
        (c->nargs == 5 && !eval_arg_double(c, 4, &alpha)))
        return false;
    if (inplace)
        return eval_out_self(c, tensor_index_add_(self, dim, index, source, alpha), "index_add_ failed");
    Tensor *copy = tensor_clone(self);
    bool done = copy && tensor_index_add_(copy, dim, index, source, alpha);
    return eval_out_written_copy(c, copy, done, "index_add failed");
}
bool eval_op_index_add(EvalCall *c) { return index_add(c, false); }
bool eval_op_index_add_(EvalCall *c) { return index_add(c, true); }

/* bincount(Tensor self, Tensor? weights=None, int minlength=0) */
bool eval_op_bincount(EvalCall *c)
{
    Tensor *x, *weights = NULL;
    int64_t minlength = 0;
    return eval_nargs(c, 1, 3) && eval_arg_tensor(c, 0, &x) &&
           (c->nargs < 2 || eval_arg_tensor_opt(c, 1, &weights)) &&
           (c->nargs < 3 || eval_arg_int(c, 2, &minlength)) &&
           eval_out_tensor(c, 0, tensor_bincount(x, weights, minlength));
}

/* searchsorted(Tensor sorted_sequence, Tensor self, *, bool out_int32=False,
 *              bool right=False, str? side=None, Tensor? sorter=None) */
bool eval_op_searchsorted(EvalCall *c)
{
    Tensor *sorted, *values, *sorter = NULL;
    bool out_int32 = false, right = false, present;
    const char *side = NULL;
    if (!eval_nargs(c, 2, 6) || !eval_arg_tensor(c, 0, &sorted) || !eval_arg_tensor(c, 1, &values) ||
        (c->nargs > 2 && !eval_arg_bool_opt(c, 2, &out_int32, &present)) ||
        (c->nargs > 3 && !eval_arg_bool_opt(c, 3, &right, &present)) ||
        (c->nargs > 4 && !eval_arg_str_opt(c, 4, &side)) ||
        (c->nargs > 5 && !eval_arg_tensor_opt(c, 5, &sorter)))
        return false;
    if (side && strcmp(side, "left") != 0 && strcmp(side, "right") != 0)
        return eval_fail(c, "torch.searchsorted(): side can only be 'left' or 'right' but got '%s'", side);
    if (side && right && strcmp(side, "left") == 0)
        return eval_fail(c, "torch.searchsorted(): side and right can't be set to opposites, got side "
                            "of left while right was True");
    right = right || (side && strcmp(side, "right") == 0);
    return eval_out_tensor(c, 0, sorter ? tensor_searchsorted_sorter(sorted, values, sorter, out_int32, right)
                                        : tensor_searchsorted(sorted, values, out_int32, right));
}
bool eval_op_scatter_(EvalCall *c) { return scatter(c, true); }

/* ---------------------------------------------------------------- copies */

/* copy_(Tensor self, Tensor src, bool non_blocking=False): any dtype casts,
 * src broadcasts to self. */
bool eval_op_copy_(EvalCall *c)
{
    Tensor *self, *src;
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &src))
        return false;
    return eval_out_self(c, tensor_copy_(self, src), "copy_ failed");
}

/* clone(Tensor self, *, MemoryFormat? memory_format=None): None (preserve)
 * keeps a dense tensor's strides, as PyTorch does, which decides whether a
 * later view() of the copy works; contiguous_format (0) gives row-major. */
bool eval_op_clone(EvalCall *c)
{
    Tensor *self;
    int64_t format = 1;
    bool has_format;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &self) ||
        !eval_arg_int_opt(c, 1, &format, &has_format))
        return false;
    return eval_out_tensor(c, 0, has_format && format == 0 ? tensor_clone(self)
                                                          : tensor_clone_preserve(self));
}

/* fill_(Tensor self, Scalar|Tensor value); a tensor value must be 0-d. */
bool eval_op_fill_(EvalCall *c)
{
    Tensor *self;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self))
        return false;
    const RtValue *v = c->args[1];
    bool done;
    if (v->kind == RT_TENSOR) {
        const Tensor *value = v->u.t;
        if (value->ndim != 0)
            return eval_fail(c, "fill_ only supports 0-dimension value tensor but got tensor with "
                               "%d dimensions.", value->ndim);
        done = dtype_is_float(value->dtype) ? tensor_fill_(self, tensor_item(value))
                                            : tensor_fill_int_(self, tensor_item_int(value));
    } else if (v->kind == RT_FLOAT) {
        done = tensor_fill_(self, v->u.f);
    } else if (v->kind == RT_INT || v->kind == RT_BOOL) {
        done = tensor_fill_int_(self, v->u.i);
    } else {
        return eval_fail(c, "fill_ value must be a number or a tensor, got %s",
                        rt_kind_name(v->kind));
    }
    return eval_out_self(c, done, "fill_ failed");
}

bool eval_op_zero_(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_self(c, tensor_fill_int_(self, 0), "zero_ failed");
}
