/* inplace_to_functional.c — in-place ops become out-of-place ops plus a copy.
 *
 * Precondition: alias analysis ran (after forward_aliases.c gave every
 * tensor one name). Each in-place write the analysis found safe becomes
 *     %t = aten::op(%x, args...)        the out-of-place twin
 *     aten::copy_(%x, %t)               the one form of write left
 * (fill_(x, v) and zero_(x) need no twin: copy_(x, v), copy_(x, 0)). The
 * copy_ is what rewrite_mutation turns into assigns and accesses; the copy
 * also gives back PyTorch's in-place casting rule, since an assign casts its
 * source to the destination's dtype (x.add_(float64 tensor) keeps x's
 * dtype). The in-place op's checks (no broadcasting of self, a result
 * dtype castable to self's: exp_ of an int tensor fails) stay as
 *     %c = tssa::inplace_check(%t, %x)
 * between the two, for every op but the index ops (index_put_, scatter_),
 * whose result always has self's layout. Writes left imperative get a
 * comment saying why.
 */
#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

/* Elementwise ops whose result, with only Python numbers besides self, has
 * self's dtype and shape whenever the in-place form is allowed at all.
 * Comparisons and logical ops return bool, so their in-place forms (which
 * keep self's dtype) are not among them; masked_fill, index_put and scatter
 * always keep self's shape and dtype. */
static bool keeps_self_layout(const IrNode *n, OpId out_of_place)
{
    switch (out_of_place) {
    case OP_ATEN_MASKED_FILL:
    case OP_ATEN_INDEX_PUT:
    case OP_ATEN_SCATTER:
        return true;
    case OP_ATEN_EQ: case OP_ATEN_NE: case OP_ATEN_LT: case OP_ATEN_LE:
    case OP_ATEN_GT: case OP_ATEN_GE:
    case OP_ATEN_LOGICAL_AND: case OP_ATEN_LOGICAL_OR: case OP_ATEN_LOGICAL_NOT:
    case OP_ATEN_LOGICAL_XOR:
        return false;
    default:
        break;
    }
    if (op_info(out_of_place)->cls != OPC_ELEMENTWISE || op_info(out_of_place)->alias != ALIAS_NONE)
        return false;
    for (int i = 1; i < n->ninputs; i++)
        if (tssa_is_tensor_value(n->inputs[i]) || tssa_is_container_value(n->inputs[i]))
            return false;
    return true;
}

/* Replaces the in-place node by `copy_(self, src)` at its place. */
static IrNode *make_copy(IrGraph *g, IrNode *old, IrValue *self, IrValue *src)
{
    IrNode *copy = ir_node_new_op(g, OP_ATEN_COPY_);
    ir_node_add_input(copy, self);
    ir_node_add_input(copy, src);
    ir_node_add_output(copy, self->type, NULL);
    copy->comment = old->comment;
    copy->line = old->line;
    ir_insert_before(copy, old);
    return copy;
}

static void destroy_inplace(IrNode *n, IrValue *self)
{
    for (int i = 0; i < n->noutputs; i++)
        ir_replace_all_uses(n->outputs[i], self);
    ir_node_destroy(n);
}

size_t tssa_inplace_to_functional(IrGraph *g, TssaAlias *a)
{
    size_t converted = 0;
    for (int i = 0; i < a->nmutations; i++) {
        TssaMutation *m = &a->mutations[i];
        IrNode *n = m->node;
        if (m->imperative) {
            tssa_note_imperative(n, m->reason);
            continue;
        }
        IrValue *self = m->target;
        IrNode *copy;
        switch (n->op) {
        case OP_ATEN_COPY_:
            continue;
        case OP_ATEN_FILL_:
            copy = make_copy(g, n, self, n->inputs[1]);
            break;
        case OP_ATEN_ZERO_:
            copy = make_copy(g, n, self, tssa_emit_int(g, n, 0));
            break;
        default: {
            /* The out-of-place twin takes the same arguments. Its result
             * type is left plain: promotion may differ from self's dtype. */
            OpId twin = op_functional_variant(n->op);
            IrValue *args[2];
            IrValue **twin_args = n->inputs;
            if (n->op == OP_ATEN_POLYGAMMA_ && n->ninputs == 2) {
                /* The one twin whose schema orders its arguments differently:
                 * polygamma_(Tensor self, int n) but polygamma(int n, Tensor self). */
                args[0] = n->inputs[1];
                args[1] = n->inputs[0];
                twin_args = args;
            }
            IrValue *t = tssa_emit_node(g, n, twin, twin_args, n->ninputs, ir_type_tensor(g), NULL);
            m->src_matches_target = keeps_self_layout(n, twin);
            t->def->comment = n->comment;
            t->def->line = n->line;
            if (op_info(twin)->cls != OPC_INDEX) {
                /* The copy casts whatever it gets; the in-place op refuses
                 * a result of another shape or an uncastable dtype (an
                 * index op's result always has self's). */
                IrValue *check_in[2] = {t, self};
                t = tssa_emit_node(g, n, OP_TSSA_INPLACE_CHECK, check_in, 2, ir_type_tensor(g), NULL);
                t->def->comment = n->comment;
                t->def->line = n->line;
            }
            copy = make_copy(g, n, self, t);
            break;
        }
        }
        tssa_alias_adopt(a, copy, n);
        destroy_inplace(n, self);
        m->node = copy;
        converted++;
    }
    return converted;
}
