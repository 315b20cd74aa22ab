/* constant_fold.c — constant propagation: module attributes, scalar
 * arithmetic, `is None` tests, tuple round trips, and prim::If on a known
 * condition.
 *
 * Module attributes. With the weights file known, a prim::GetAttr chain
 * from the module input that yields a bool, int or float is read from the
 * file's __metadata__ under its dotted path ("conv1.1.training"); an absent
 * `training` is false, as at run time (README: --weights). Folding `training` kills
 * the bookkeeping branch of batch norm (num_batches_tracked += 1), so the
 * inference graph holds no write to module state at all.
 *
 * Scalars: int comparisons and arithmetic (and x + 0, x * 1, x * 0 with one
 * unknown int), bool not/and/or, aten::Bool and
 * aten::Int of constants, aten::dim of a tensor whose type gives its rank;
 * `x is None` where x is the None constant or has a type that cannot be
 * None. Tuples: TupleUnpack and TupleIndex of a TupleConstruct read its
 * inputs. Control: an If on a constant is replaced by the taken block.
 *
 * Rounds of one walk each run until nothing changes (a fold can make the
 * next one possible); each round is linear in the nodes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/eval.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

typedef struct Fold {
    IrGraph *g;
    const Safetensors *weights;
    size_t count;
} Fold;

static IrValue *emit_const_int(IrGraph *g, IrNode *pos, int64_t v, IrTypeKind kind)
{
    IrNode *n = ir_node_new_op(g, OP_PRIM_CONSTANT);
    ir_attr_set_int(n, "value", v);
    IrValue *out = ir_node_add_output(n, ir_type_simple(g, kind), NULL);
    ir_insert_before(n, pos);
    return out;
}

static IrValue *emit_const_float(IrGraph *g, IrNode *pos, double v)
{
    IrNode *n = ir_node_new_op(g, OP_PRIM_CONSTANT);
    ir_attr_set_float(n, "value", v);
    IrValue *out = ir_node_add_output(n, ir_type_simple(g, TY_FLOAT), NULL);
    ir_insert_before(n, pos);
    return out;
}

static void replace_output(Fold *f, IrNode *n, IrValue *with)
{
    ir_replace_all_uses(n->outputs[0], with);
    f->count++;
}

static bool parse_bool(const char *s, bool *out)
{
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1"))
        *out = true;
    else if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "0"))
        *out = false;
    else
        return false;
    return true;
}

static bool fold_attribute(Fold *f, IrNode *n)
{
    if (!f->weights || n->noutputs != 1 || !n->outputs[0]->nuses ||
        !tssa_attribute_chain_from_input(n))
        return false;
    IrTypeKind kind = n->outputs[0]->type->kind;
    if (kind != TY_BOOL && kind != TY_INT && kind != TY_FLOAT)
        return false;
    const char *path = tssa_attribute_path(f->g, n);
    const char *text = safetensors_metadata(f->weights, path);
    const IrAttr *name = ir_attr_find(n, "name");
    bool is_training = name && name->kind == ATTR_STR && !strcmp(name->u.s, "training");
    if (kind == TY_BOOL) {
        bool b = false;
        if (text ? !parse_bool(text, &b) : !is_training)
            return false;
        replace_output(f, n, emit_const_int(f->g, n, b, TY_BOOL));
        return true;
    }
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    if (kind == TY_INT) {
        long long v = strtoll(text, &end, 10);
        if (*end || errno)
            return false;
        replace_output(f, n, emit_const_int(f->g, n, v, TY_INT));
    } else {
        double v = strtod(text, &end);
        if (*end || errno)
            return false;
        replace_output(f, n, emit_const_float(f->g, n, v));
    }
    return true;
}

/* Replaces n by the nodes of its taken block. */
static void inline_if(Fold *f, IrNode *n, bool cond)
{
    IrBlock *taken = n->blocks[cond ? 0 : 1];
    while (ir_block_first(taken) != taken->ret)
        ir_move_before(ir_block_first(taken), n);
    for (int i = 0; i < n->noutputs && i < ir_block_nreturns(taken); i++)
        ir_replace_all_uses(n->outputs[i], ir_block_return(taken, i));
    ir_node_destroy(n);
    f->count++;
}

static bool is_none_type(const IrType *t)
{
    return t && t->kind == TY_NONE;
}

/* A value of this type is never None. */
static bool never_none(const IrType *t)
{
    if (!t)
        return false;
    switch (t->kind) {
    case TY_NONE:
    case TY_OPTIONAL:
    case TY_ANY:
    case TY_UNION:
    case TY_OTHER:
    case TY_CLASS:
        return false;
    default:
        return true;
    }
}

static bool both_ints(const IrNode *n, int64_t *a, int64_t *b)
{
    return n->ninputs == 2 && tssa_const_int(n->inputs[0], a) && tssa_const_int(n->inputs[1], b);
}

static bool out_kind(const IrNode *n, IrTypeKind kind)
{
    return n->noutputs == 1 && n->outputs[0]->type && n->outputs[0]->type->kind == kind;
}

/* x + 0, 0 + x, x - 0, x * 1, 1 * x, x // 1 are x; x * 0 is 0 (ints). */
static bool fold_int_identity(Fold *f, IrNode *n)
{
    int64_t c;
    IrValue *x = n->inputs[0], *y = n->inputs[1];
    if (x->type->kind != TY_INT || y->type->kind != TY_INT)
        return false;
    bool left = tssa_const_int(x, &c);
    if (!left && !tssa_const_int(y, &c))
        return false;
    IrValue *other = left ? y : x;
    switch (n->op) {
    case OP_ATEN_ADD:
        if (c != 0)
            return false;
        break;
    case OP_ATEN_SUB:
    case OP_ATEN_FLOORDIV:
        if (left || c != (n->op == OP_ATEN_SUB ? 0 : 1))
            return false;
        break;
    case OP_ATEN_MUL:
        if (c == 0) {
            replace_output(f, n, emit_const_int(f->g, n, 0, TY_INT));
            return true;
        }
        if (c != 1)
            return false;
        break;
    default:
        return false;
    }
    replace_output(f, n, other);
    return true;
}

static bool fold_scalar(Fold *f, IrNode *n)
{
    int64_t a, b, r = 0;
    bool x, y;
    switch (n->op) {
    case OP_ATEN_NOT:
        if (n->ninputs == 1 && tssa_const_bool(n->inputs[0], &x) && out_kind(n, TY_BOOL)) {
            replace_output(f, n, emit_const_int(f->g, n, !x, TY_BOOL));
            return true;
        }
        return false;
    case OP_ATEN_AND:
    case OP_ATEN_OR:
        if (n->ninputs == 2 && tssa_const_bool(n->inputs[0], &x) &&
            tssa_const_bool(n->inputs[1], &y) && out_kind(n, TY_BOOL)) {
            bool v = n->op == OP_ATEN_AND ? (x && y) : (x || y);
            replace_output(f, n, emit_const_int(f->g, n, v, TY_BOOL));
            return true;
        }
        return false;
    case OP_PRIM_ISINSTANCE: {
        /* prim::unchecked_cast changes a value's static type, not the
         * value: a Tensor passed as Union[int, Tensor] (a Union-typed
         * parameter of an inlined function) is known to be a Tensor from
         * the cast's input, so every type along the chain of casts may
         * decide the answer */
        int known = -1;
        const IrValue *v = n->ninputs == 1 && out_kind(n, TY_BOOL) ? n->inputs[0] : NULL;
        for (int depth = 0; v && known < 0 && depth < 64; depth++) {
            known = eval_isinstance_static(v->type, ir_attr_find(n, "types"));
            v = v->def && v->def->op == OP_PRIM_UNCHECKED_CAST && v->def->ninputs == 1 ? v->def->inputs[0]
                                                                                     : NULL;
        }
        if (known < 0)
            return false;
        replace_output(f, n, emit_const_int(f->g, n, known, TY_BOOL));
        return true;
    }
    case OP_ATEN_IS:
    case OP_ATEN_ISNOT: {
        if (n->ninputs != 2 || !out_kind(n, TY_BOOL))
            return false;
        const IrType *ta = n->inputs[0]->type, *tb = n->inputs[1]->type;
        bool known, same;
        if (n->inputs[0] == n->inputs[1]) {
            /* one value is one object (nn.MultiheadAttention's `query is key`
             * on self-attention): a write renames every later use of it */
            known = true, same = true;
        } else if (is_none_type(ta) && is_none_type(tb)) {
            known = true, same = true;
        } else if ((is_none_type(ta) && never_none(tb)) || (is_none_type(tb) && never_none(ta))) {
            known = true, same = false;
        } else {
            known = false, same = false;
        }
        if (!known)
            return false;
        bool v = n->op == OP_ATEN_IS ? same : !same;
        replace_output(f, n, emit_const_int(f->g, n, v, TY_BOOL));
        return true;
    }
    case OP_ATEN_EQ: case OP_ATEN_NE: case OP_ATEN_LT:
    case OP_ATEN_LE: case OP_ATEN_GT: case OP_ATEN_GE: {
        if (!both_ints(n, &a, &b) || !out_kind(n, TY_BOOL))
            return false;
        bool v = n->op == OP_ATEN_EQ ? a == b : n->op == OP_ATEN_NE ? a != b
               : n->op == OP_ATEN_LT ? a < b : n->op == OP_ATEN_LE ? a <= b
               : n->op == OP_ATEN_GT ? a > b : a >= b;
        replace_output(f, n, emit_const_int(f->g, n, v, TY_BOOL));
        return true;
    }
    case OP_ATEN_ADD: case OP_ATEN_SUB: case OP_ATEN_MUL: case OP_ATEN_FLOORDIV:
        if (!out_kind(n, TY_INT) || n->ninputs != 2)
            return false;
        if (!both_ints(n, &a, &b))
            return fold_int_identity(f, n);
        if (n->op == OP_ATEN_ADD ? !ckd_add_i64(&r, a, b)
            : n->op == OP_ATEN_SUB ? !ckd_sub_i64(&r, a, b)
            : n->op == OP_ATEN_MUL ? !ckd_mul_i64(&r, a, b)
            : (b == 0 || (a == INT64_MIN && b == -1)))
            return false;
        if (n->op == OP_ATEN_FLOORDIV)
            r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
        replace_output(f, n, emit_const_int(f->g, n, r, TY_INT));
        return true;
    case OP_ATEN_BOOL_SCALAR:
    case OP_ATEN_INT:
        if (n->ninputs == 1 && tssa_const_int(n->inputs[0], &a) &&
            (out_kind(n, TY_BOOL) || out_kind(n, TY_INT))) {
            IrTypeKind k = n->outputs[0]->type->kind;
            replace_output(f, n, emit_const_int(f->g, n, k == TY_BOOL ? a != 0 : a, k));
            return true;
        }
        return false;
    case OP_ATEN_DIM: {
        if (n->ninputs != 1 || !out_kind(n, TY_INT))
            return false;
        const IrType *t = n->inputs[0]->type;
        if (!t || t->kind != TY_TENSOR || t->tensor.rank < 0)
            return false;
        replace_output(f, n, emit_const_int(f->g, n, t->tensor.rank, TY_INT));
        return true;
    }
    default:
        return false;
    }
}

static bool fold_tuple(Fold *f, IrNode *n)
{
    if (n->ninputs < 1)
        return false;
    const IrNode *src = n->inputs[0]->def;
    if (!src || src->op != OP_PRIM_TUPLECONSTRUCT)
        return false;
    if (n->op == OP_PRIM_TUPLEUNPACK) {
        if (n->noutputs != src->ninputs)
            return false;
        bool any = false;
        for (int i = 0; i < n->noutputs; i++)
            if (n->outputs[i]->nuses) {
                ir_replace_all_uses(n->outputs[i], src->inputs[i]);
                any = true;
            }
        f->count += any;
        return any;
    }
    int64_t k;
    if (n->op == OP_PRIM_TUPLEINDEX && n->ninputs == 2 && tssa_const_int(n->inputs[1], &k) &&
        n->outputs[0]->nuses) {
        if (k < 0)
            k += src->ninputs;
        if (k < 0 || k >= src->ninputs)
            return false;
        replace_output(f, n, src->inputs[k]);
        return true;
    }
    return false;
}

static bool fold_block(Fold *f, IrBlock *b)
{
    bool changed = false;
    IrNode *n = ir_block_first(b);
    while (n != b->ret) {
        IrNode *next = n->next;
        bool cond;
        if (n->op == OP_PRIM_IF && n->nblocks == 2 && n->ninputs == 1 &&
            tssa_const_bool(n->inputs[0], &cond)) {
            inline_if(f, n, cond);
            changed = true;
            n = next;
            continue;
        }
        for (int i = 0; i < n->nblocks; i++)
            changed |= fold_block(f, n->blocks[i]);
        if (n->op == OP_PRIM_GETATTR)
            changed |= fold_attribute(f, n);
        else if (n->op == OP_PRIM_TUPLEUNPACK || n->op == OP_PRIM_TUPLEINDEX)
            changed |= fold_tuple(f, n);
        else if (n->noutputs == 1 && n->outputs[0]->nuses)
            changed |= fold_scalar(f, n);
        n = next;
    }
    return changed;
}

size_t tssa_constant_fold(IrGraph *g, const Safetensors *weights)
{
    Fold f = {g, weights, 0};
    for (int round = 0; round < 64 && fold_block(&f, g->top); round++)
        ;
    return f.count;
}
