/* ops_immut.c — the immutable ops of TensorSSA on the ref backend, with
 * copying semantics: nothing they return shares storage with an argument.
 *
 *   immut::<v>(x, args...)            a copy of the region aten::<v>(x, args...)
 *                                     would view: the aten binding's view,
 *                                     cloned
 *   immut::<v>_rev(x, src, args...)   a copy of x whose region aten::<v>(x,
 *                                     args...) holds src, broadcast to the
 *                                     region and cast to x's dtype: x cloned,
 *                                     the aten binding's view of the clone,
 *                                     src copied into it
 *   immut::assign(x, src)             src broadcast and cast to x's shape
 *                                     and dtype (x's values are not read)
 *
 * So every pair shares its argument decoding and its semantics with the
 * aten view op it stands for (ops_view.c), by construction. src may be a
 * tensor or a Python number. Regions that write one element more than once
 * (expand, whose stretched dims have stride 0, and repeat, whose tiles all
 * come from one element) keep the value written last in row-major order:
 * the last index along every stretched dim, the last tile of repeat.
 * immut::index is aten::index (already a copy); immut::index_rev is
 * index_put with accumulate=False on a clone.
 */
#include <stdlib.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "eval/ops_immut.h"

typedef struct ImmutOp {
    OpId access, assign;
    EvalOpFn view;           /* the aten binding that makes the region */
} ImmutOp;

static const ImmutOp immut_ops[] = {
    {OP_IMMUT_SELECT, OP_IMMUT_SELECT_REV, eval_op_select},
    {OP_IMMUT_SLICE, OP_IMMUT_SLICE_REV, eval_op_slice},
    {OP_IMMUT_SQUEEZE, OP_IMMUT_SQUEEZE_REV, eval_op_squeeze},
    {OP_IMMUT_UNSQUEEZE, OP_IMMUT_UNSQUEEZE_REV, eval_op_unsqueeze},
    {OP_IMMUT_VIEW, OP_IMMUT_VIEW_REV, eval_op_view},
    {OP_IMMUT_RESHAPE, OP_IMMUT_RESHAPE_REV, eval_op_reshape},
    {OP_IMMUT_EXPAND, OP_IMMUT_EXPAND_REV, eval_op_expand},
    {OP_IMMUT_EXPAND_AS, OP_IMMUT_EXPAND_AS_REV, eval_op_expand_as},
    {OP_IMMUT_REPEAT, OP_IMMUT_REPEAT_REV, eval_op_repeat},
    {OP_IMMUT_PERMUTE, OP_IMMUT_PERMUTE_REV, eval_op_permute},
    {OP_IMMUT_TRANSPOSE, OP_IMMUT_TRANSPOSE_REV, eval_op_transpose},
    {OP_IMMUT_NARROW, OP_IMMUT_NARROW_REV, eval_op_narrow},
    {OP_IMMUT_DIAGONAL, OP_IMMUT_DIAGONAL_REV, eval_op_diagonal},
    {OP_IMMUT_INDEX, OP_IMMUT_INDEX_REV, eval_op_index},
    {OP_IMMUT_T, OP_IMMUT_T_REV, eval_op_t},
};

static const ImmutOp *immut_op(OpId op)
{
    for (size_t i = 0; i < sizeof immut_ops / sizeof *immut_ops; i++)
        if (immut_ops[i].access == op || immut_ops[i].assign == op)
            return &immut_ops[i];
    return NULL;
}

/* Runs the aten binding `fn` on (self, args[first..]) and returns what it
 * made (a new reference), or NULL after recording the failure in c. */
static Tensor *call_view(EvalCall *c, EvalOpFn fn, RtValue *self, int first)
{
    int nargs = 1 + (c->nargs - first);
    RtValue **args = xcalloc((size_t)nargs, sizeof *args);
    args[0] = self;
    for (int i = first; i < c->nargs; i++)
        args[1 + i - first] = c->args[i];
    RtValue *result = NULL;
    EvalCall inner = *c;
    inner.args = args;
    inner.nargs = nargs;
    inner.outs = &result;
    inner.nouts = 1;
    bool ok = fn(&inner);
    free(args);
    Tensor *t = NULL;
    if (ok && result && result->kind == RT_TENSOR)
        t = tensor_retain(result->u.t);
    else if (ok)
        eval_fail(c, "the region is not a tensor");
    rt_release(result);
    return t;
}

/* immut::<v>(x, args...): the region, copied. */
static bool immut_access(EvalCall *c)
{
    const ImmutOp *op = immut_op(c->node->op);
    if (!op || c->nargs < 1 || !eval_is_tensor(c, 0))
        return eval_fail(c, "expected a tensor as the first argument");
    Tensor *view = call_view(c, op->view, c->args[0], 1);
    if (!view)
        return false;
    Tensor *copy = tensor_clone(view);
    tensor_release(view);
    return eval_out_tensor(c, 0, copy);
}

/* The sub-region written last: every dim of stride 0 (and size > 1) cut to
 * its last index, in the region and in the source broadcast to it. */
static bool last_writes(Tensor **region, Tensor **src)
{
    Tensor *r = *region;
    Tensor *s = tensor_expand(*src, r->ndim, r->sizes);
    if (!s)
        return false;       /* src does not broadcast to the region */
    for (int d = 0; d < r->ndim; d++) {
        if (r->strides[d] != 0 || r->sizes[d] <= 1)
            continue;
        int64_t last = r->sizes[d] - 1;
        Tensor *r2 = tensor_narrow(r, d, last, 1), *s2 = tensor_narrow(s, d, last, 1);
        tensor_release(r);
        tensor_release(s);
        r = r2;
        s = s2;
        if (!r || !s) {
            tensor_release(r);
            tensor_release(s);
            *region = NULL;
            return false;
        }
    }
    *region = r;
    tensor_release(*src);
    *src = s;
    return true;
}

/* repeat_rev(x, src, repeats): x with each element set from the last tile
 * of src (broadcast to repeat's result shape). */
static bool repeat_rev(EvalCall *c, Tensor *root, Tensor *src)
{
    int64_t reps[TENSOR_MAX_DIMS];
    int n;
    if (!eval_arg_ints(c, 2, reps, TENSOR_MAX_DIMS, &n))
        return false;
    if (n < root->ndim)
        return eval_fail(c, "Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor");
    Tensor *out = tensor_clone(root);
    if (!out)
        return eval_fail_kernel(c, "clone failed");
    int64_t shape[TENSOR_MAX_DIMS], tile[TENSOR_MAX_DIMS];
    bool empty = false;
    for (int d = 0; d < n; d++) {
        int rd = d - (n - root->ndim);
        tile[d] = rd >= 0 ? root->sizes[rd] : 1;
        if (reps[d] < 0) {
            tensor_release(out);
            return eval_fail(c, "Trying to create tensor with negative dimension %lld",
                            (long long)reps[d]);
        }
        shape[d] = tile[d] * reps[d];
        empty |= shape[d] == 0;
    }
    if (empty)
        return eval_out_tensor(c, 0, out);
    Tensor *s = tensor_expand(src, n, shape);
    for (int d = 0; d < n && s; d++) {
        Tensor *next = tensor_narrow(s, d, shape[d] - tile[d], tile[d]);
        tensor_release(s);
        s = next;
    }
    Tensor *last = s ? tensor_view(s, root->ndim, root->sizes) : NULL;
    if (!last && s) {
        Tensor *dense = tensor_contiguous(s);
        last = dense ? tensor_view(dense, root->ndim, root->sizes) : NULL;
        tensor_release(dense);
    }
    bool ok = last && tensor_copy_(out, last);
    tensor_release(s);
    tensor_release(last);
    if (!ok) {
        tensor_release(out);
        return eval_fail_kernel(c, "repeat_rev failed");
    }
    return eval_out_tensor(c, 0, out);
}

/* index_rev(x, src, indices): x[indices] = src on a copy of x. */
static bool index_rev(EvalCall *c, Tensor *root, Tensor *src)
{
    Tensor **indices;
    int n;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor_list(c, 2, true, &indices, &n))
        return false;
    Tensor *out = c->run->write_in_place ? tensor_retain(root) : tensor_clone(root);
    bool ok = out && tensor_index_put_(out, indices, n, src, false);
    free(indices);
    if (!ok) {
        tensor_release(out);
        return eval_fail_kernel(c, "index_rev failed");
    }
    return eval_out_tensor(c, 0, out);
}

/* immut::<v>_rev(x, src, args...) */
static bool immut_assign_region(EvalCall *c)
{
    const ImmutOp *op = immut_op(c->node->op);
    Tensor *root, *src;
    if (!op || !eval_nargs(c, 2, 64) || !eval_arg_tensor(c, 0, &root) || !eval_arg_operand(c, 1, &src))
        return false;
    bool ok;
    if (op->assign == OP_IMMUT_REPEAT_REV) {
        ok = repeat_rev(c, root, src);
    } else if (op->assign == OP_IMMUT_INDEX_REV) {
        ok = index_rev(c, root, src);
    } else {
        Tensor *out = c->run->write_in_place ? tensor_retain(root) : tensor_clone(root);
        RtValue *holder = out ? rt_tensor(out) : NULL;
        Tensor *region = holder ? call_view(c, op->view, holder, 2) : NULL;
        ok = region && last_writes(&region, &src) && tensor_copy_(region, src);
        if (!ok && !c->run->message)
            eval_fail_kernel(c, "writing the region failed");
        tensor_release(region);
        rt_release(holder);
        if (ok)
            ok = eval_out_tensor(c, 0, out);
        else
            tensor_release(out);
    }
    tensor_release(src);
    return ok;
}

/* immut::assign(x, src) */
static bool immut_assign(EvalCall *c)
{
    Tensor *root, *src;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &root) || !eval_arg_operand(c, 1, &src))
        return false;
    Tensor *out = tensor_empty(root->dtype, root->ndim, root->sizes);
    bool ok = out && tensor_copy_(out, src);
    tensor_release(src);
    if (!ok) {
        tensor_release(out);
        return eval_fail_kernel(c, "immut::assign failed");
    }
    return eval_out_tensor(c, 0, out);
}

EvalOpFn eval_immut_binding(OpId op)
{
    if (op == OP_IMMUT_ASSIGN)
        return immut_assign;
    const ImmutOp *entry = immut_op(op);
    if (!entry)
        return NULL;
    return entry->access == op ? immut_access : immut_assign_region;
}
