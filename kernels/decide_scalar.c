/* decide_scalar.c — the ints and bools that static shapes decide.
 *
 * Inside a loop's body the scalars that test a carried tensor's rank (a
 * GRUCell's `if input.dim() not in (1, 2): raise`) stay run-time values
 * after specialization; once shape_infer has typed the body they are known.
 * kernels_decide_scalar is the one rule for them, used by shape_infer (which
 * follows a decided If into its taken branch only, so the types flow
 * through it) and by kernels_fold_decided (which folds them away). It reads
 * types through shape_of (kernels/shape_query.c) and depends on neither
 * user: the dependency runs shape_infer -> decide_scalar and
 * fold_decided -> decide_scalar, never between the two.
 *
 * What it decides:
 *   aten::dim(x), aten::size(x, d), aten::len(x), aten::numel(x)
 *                          of a tensor of static shape;
 *   aten::len(list)        of a prim::ListConstruct that no use can change
 *                          (YOLOX's `[x.flatten(2) for x in outputs]` over
 *                          a list of three tensors);
 *   prim::dtype(x), aten::is_floating_point(x)
 *                          of a tensor of static dtype (torchvision's
 *                          `if boxes.is_floating_point()` casts);
 *   aten::__contains__(list, v), eq / ne / lt / le / gt / ge, __not__
 *                          of decided ints and bools;
 *   prim::min, prim::max   of two decided ints or a list built of them
 *                          (the trip count of enumerate and zip loops);
 *   aten::add / sub / mul / floordiv (Python's floor division), aten::neg
 *                          of decided ints (k-diffusion's
 *                          `for i in range(len(sigmas) - 1)`: the trip
 *                          count of a loop over a tensor of static shape);
 *                          an overflow or a division by zero is left to
 *                          run time;
 *   aten::__is__(x, None), aten::__isnot__(x, None)
 *                          of a tensor of static shape (an Optional[Tensor]
 *                          the caller passed a tensor: torch 2.x's GRUCell
 *                          tests `hx is not None` before checking its rank).
 */
#include <stdint.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"
#include "tssa/util.h"

bool kernels_lookup_scalar(const ScalarLookup *lk, const IrValue *v, int64_t *out)
{
    if (v->type && v->type->kind == TY_TENSOR)
        return false;
    const RtValue *r = lower_static_value(lk->p, v);
    if (r) {
        if (r->kind != RT_INT && r->kind != RT_BOOL)
            return false;
        *out = r->u.i;
        return true;
    }
    return lk->decided && lk->decided(lk->ctx, v, out);
}

/* prim::min / prim::max of two decided ints, or of a list built of them:
 * `for i, row in enumerate(t)` and zip loop `min([INT_MAX, len(t)])` times,
 * so the trip count of a loop over a computed tensor's rows is this. */
static bool decide_min_max(const ScalarLookup *lk, const IrNode *n, int64_t *out)
{
    if (!n->outputs[0]->type || n->outputs[0]->type->kind != TY_INT)
        return false;
    const IrNode *list = n->ninputs == 1 ? n->inputs[0]->def : NULL;
    bool from_list = list && list->op == OP_PRIM_LISTCONSTRUCT;
    int count = from_list ? list->ninputs : n->ninputs == 2 ? 2 : 0;
    for (int i = 0; i < count; i++) {
        int64_t a;
        if (!kernels_lookup_scalar(lk, from_list ? list->inputs[i] : n->inputs[i], &a))
            return false;
        if (i == 0 || (n->op == OP_PRIM_MIN ? a < *out : a > *out))
            *out = a;
    }
    return count > 0;
}

/* A list made by prim::ListConstruct that nothing can lengthen or shorten:
 * every use reads it (no op writes it in place or returns an alias of it,
 * and it is neither returned from a block nor carried by a loop or an If),
 * so its length is the construct's input count. */
static bool unchanged_list(const IrValue *list)
{
    if (list->def->op != OP_PRIM_LISTCONSTRUCT)
        return false;
    for (int i = 0; i < list->nuses; i++) {
        const IrNode *user = list->uses[i].user;
        const OpInfo *info = op_info(user->op);
        if (user->op == OP_PRIM_RETURN || user->nblocks > 0 || info->mutates >= 0 ||
            info->alias != ALIAS_NONE)
            return false;
    }
    return true;
}

/* An int-typed result: aten::add and the others are tensor ops too. */
static bool int_result(const IrNode *n)
{
    return n->outputs[0]->type && n->outputs[0]->type->kind == TY_INT;
}

/* a op b on ints as TorchScript computes them (floordiv rounds toward
 * negative infinity); false on overflow or division by zero, which run
 * time reports. */
static bool int_arith(int op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case OP_ATEN_ADD:
        return ckd_add_i64(out, a, b);
    case OP_ATEN_SUB:
        return ckd_sub_i64(out, a, b);
    case OP_ATEN_MUL:
        return ckd_mul_i64(out, a, b);
    case OP_ATEN_FLOORDIV:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return false;
        *out = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
        return true;
    default:
        return false;
    }
}

bool kernels_decide_scalar(const ScalarLookup *lk, const IrNode *n, int64_t *out)
{
    if (n->noutputs != 1 || n->nblocks > 0 || n->ninputs < 1)
        return false;
    const IrTensorType *t = shape_of(n->inputs[0]);
    int64_t a, b;
    switch (n->op) {
    case OP_ATEN_DIM:
        if (!t || n->ninputs != 1)
            return false;
        *out = t->rank;
        return true;
    case OP_ATEN_LEN:
        if (n->ninputs == 1 && !t && unchanged_list(n->inputs[0])) {
            *out = n->inputs[0]->def->ninputs;
            return true;
        }
        if (!t || n->ninputs != 1 || t->rank < 1)
            return false;
        *out = t->sizes[0];
        return true;
    case OP_PRIM_DTYPE:         /* x.dtype: its ScalarType code */
        if (!t || n->ninputs != 1)
            return false;
        *out = dtype_to_scalar_type((TensorDType)t->dtype);
        return true;
    case OP_ATEN_IS_FLOATING_POINT:
        if (!t || n->ninputs != 1)
            return false;
        *out = dtype_is_float((TensorDType)t->dtype);
        return true;
    case OP_ATEN_NUMEL:
        if (!t || n->ninputs != 1)
            return false;
        *out = 1;
        for (int i = 0; i < t->rank; i++)
            *out *= t->sizes[i];
        return true;
    case OP_ATEN_SIZE:
        if (!t || n->ninputs != 2 || !kernels_lookup_scalar(lk, n->inputs[1], &a))
            return false;
        if (a < 0)
            a += t->rank;
        if (a < 0 || a >= t->rank)
            return false;       /* left to fail at run time, with PyTorch's message */
        *out = t->sizes[a];
        return true;
    case OP_ATEN_NOT:
        if (n->ninputs != 1 || !kernels_lookup_scalar(lk, n->inputs[0], &a))
            return false;
        *out = !a;
        return true;
    case OP_ATEN_CONTAINS: {
        const RtValue *list = lower_static_value(lk->p, n->inputs[0]);
        if (n->ninputs != 2 || !list || list->kind != RT_LIST ||
            !kernels_lookup_scalar(lk, n->inputs[1], &a))
            return false;
        *out = 0;
        for (int i = 0; i < list->u.list.n; i++) {
            const RtValue *item = list->u.list.items[i];
            if (item->kind != RT_INT && item->kind != RT_BOOL)
                return false;
            *out |= item->u.i == a;
        }
        return true;
    }
    case OP_ATEN_IS: case OP_ATEN_ISNOT: {
        if (n->ninputs != 2)
            return false;
        const RtValue *none = lower_static_value(lk->p, n->inputs[1]);
        if (!t || !none || none->kind != RT_NONE)
            return false;
        *out = n->op == OP_ATEN_ISNOT;      /* a tensor is not None */
        return true;
    }
    case OP_PRIM_MIN: case OP_PRIM_MAX:
        return decide_min_max(lk, n, out);
    case OP_ATEN_NEG:
        if (n->ninputs != 1 || !int_result(n) || !kernels_lookup_scalar(lk, n->inputs[0], &a) ||
            a == INT64_MIN)
            return false;
        *out = -a;
        return true;
    case OP_ATEN_ADD: case OP_ATEN_SUB: case OP_ATEN_MUL: case OP_ATEN_FLOORDIV:
        if (n->ninputs != 2 || !int_result(n) || !kernels_lookup_scalar(lk, n->inputs[0], &a) ||
            !kernels_lookup_scalar(lk, n->inputs[1], &b))
            return false;
        return int_arith(n->op, a, b, out);
    case OP_ATEN_EQ: case OP_ATEN_NE: case OP_ATEN_LT: case OP_ATEN_LE: case OP_ATEN_GT:
    case OP_ATEN_GE:
        if (n->ninputs != 2 || !kernels_lookup_scalar(lk, n->inputs[0], &a) ||
            !kernels_lookup_scalar(lk, n->inputs[1], &b))
            return false;
        *out = n->op == OP_ATEN_EQ ? a == b : n->op == OP_ATEN_NE ? a != b
             : n->op == OP_ATEN_LT ? a < b  : n->op == OP_ATEN_LE ? a <= b
             : n->op == OP_ATEN_GT ? a > b  : a >= b;
        return true;
    default:
        return false;
    }
}
