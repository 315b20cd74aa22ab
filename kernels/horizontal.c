/* horizontal.c — a data-parallel loop whose iteration is one fused group
 * becomes one group over all iterations (FuncTs' parallel functor): one
 * kernel with the iteration as its outermost loop variable, one launch on a
 * GPU instead of one per iteration.
 *
 * The loop it takes (after kernels_fuse):
 *     %out = prim::Loop(N, true, %dst)            N a compile-time int
 *       block0(%i, %d):
 *         %x_k = aten::select(%X_k, 0, %i)        rows of values from outside
 *         %r = tssa::FusionGroup(...)             reading rows, outside values, %i
 *         %d2 = immut::select_rev(%d, %r, 0, %i)  row i of the result
 *         -> (true, %d2)
 * where %dst has exactly N rows of %r's shape and nothing else reads %d or
 * %r: every row of the result is written once, each from its own iteration,
 * so the result is the N rows of %r stacked, whatever %dst held. It becomes
 *     %out = tssa::FusionGroup[iterations=N](0, %X_k..., outside values...)
 *       block0(%it, %pX_k..., ...):
 *         %x_k = aten::select(%pX_k, 0, %it)     the group's nodes, as they were
 *         ...  -> (%r)
 * (ir_group_iterations). The kernel builder binds %it to the output's new
 * dim 0 (kir_build.c); the evaluator, when it interprets such a group,
 * runs its block N times and stacks the results (eval/interp.c).
 *
 * The loop leaves the stream graph, so fission has nothing to split: the
 * driver runs this pass only where one kernel is the better choice (the
 * cuda backend on one device), not where the loop's firings are to be
 * spread over ranks or devices.
 */
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static bool static_true(const LowerProgram *p, const IrValue *v)
{
    const RtValue *r = lower_static_value(p, v);
    return r && (r->kind == RT_BOOL || r->kind == RT_INT) && r->u.i != 0;
}

static bool static_is(const LowerProgram *p, const IrValue *v, int64_t want)
{
    const RtValue *r = lower_static_value(p, v);
    return r && r->kind == RT_INT && r->u.i == want;
}

static bool outside(const IrValue *v, const IrNode *loop)
{
    for (const IrNode *d = v->def; d; d = d->owner ? d->owner->owner : NULL)
        if (d == loop)
            return false;
    return true;
}

/* A row of a value from outside: aten::select(X, 0, counter) in the body,
 * read by the group alone. */
static bool is_row(const LowerProgram *p, const IrNode *n, const IrNode *loop, const IrNode *group)
{
    const IrValue *counter = ir_block_param(loop->blocks[0], 0);
    if (n->op != OP_ATEN_SELECT || n->owner != loop->blocks[0] || n->ninputs != 3 ||
        !outside(n->inputs[0], loop) || !static_is(p, n->inputs[1], 0) || n->inputs[2] != counter)
        return false;
    for (int u = 0; u < n->outputs[0]->nuses; u++)
        if (n->outputs[0]->uses[u].user != group)
            return false;
    return true;
}

/* The loop's group, when the loop has the shape above. */
static IrNode *loop_group(const LowerProgram *p, IrNode *loop, int64_t *trips)
{
    const RtValue *n = loop->op == OP_PRIM_LOOP && loop->ninputs == 3 && loop->noutputs == 1
                           ? lower_static_value(p, loop->inputs[0]) : NULL;
    if (!n || n->kind != RT_INT || n->u.i < 1 || !static_true(p, loop->inputs[1]))
        return NULL;
    IrBlock *body = loop->blocks[0];
    IrValue *counter = ir_block_param(body, 0), *carried = ir_block_param(body, 1);
    if (ir_block_nreturns(body) != 2 || !static_true(p, ir_block_return(body, 0)))
        return NULL;
    IrNode *write = ir_block_return(body, 1)->def;
    if (write->op != OP_IMMUT_SELECT_REV || write->owner != body || write->ninputs != 4 ||
        write->inputs[0] != carried || !static_is(p, write->inputs[2], 0) || write->inputs[3] != counter ||
        carried->nuses != 1 || write->outputs[0]->nuses != 1)
        return NULL;
    IrNode *group = write->inputs[1]->def;
    if (group->op != OP_TSSA_FUSION_GROUP || group->owner != body || group->noutputs != 1 ||
        group->outputs[0]->nuses != 1 || ir_group_iterations(group) != 0)
        return NULL;
    const IrTensorType *td = shape_of(loop->inputs[2]), *tr = shape_of(group->outputs[0]);
    if (!td || !tr || td->rank != tr->rank + 1 || td->rank > KIR_MAX_RANK || td->sizes[0] != n->u.i ||
        td->dtype != tr->dtype || memcmp(td->sizes + 1, tr->sizes, (size_t)tr->rank * sizeof *tr->sizes) != 0)
        return NULL;
    /* nothing else in the body: the rows, the group, the write */
    IR_FOREACH_NODE(m, body) {
        if (m != write && m != group && !is_row(p, m, loop, group))
            return NULL;
    }
    for (int k = 0; k < group->ninputs; k++) {
        const IrValue *in = group->inputs[k];
        if (in != counter && !outside(in, loop) && !is_row(p, in->def, loop, group))
            return NULL;
    }
    *trips = n->u.i;
    return group;
}

/* The parameter of h standing for outside value v (added on first use). */
static IrValue *param_for(IrNode *h, IrValue *v)
{
    IrBlock *hb = h->blocks[0];
    for (int j = 1; j < h->ninputs; j++)
        if (h->inputs[j] == v)
            return ir_block_param(hb, j);
    ir_node_add_input(h, v);
    return ir_block_add_param(hb, v->type, NULL);
}

static int horizontal(LowerProgram *p, IrNode *loop)
{
    int64_t trips = 0;
    IrNode *group = loop->op == OP_PRIM_LOOP ? loop_group(p, loop, &trips) : NULL;
    if (!group)
        return 0;
    IrGraph *g = lower_ir_graph(p);
    IrBlock *body = loop->blocks[0], *gb = group->blocks[0];
    IrValue *counter = ir_block_param(body, 0);
    IrNode *h = ir_node_new_op(g, OP_TSSA_FUSION_GROUP);
    ir_insert_before(h, loop);
    h->comment = group->comment;
    h->line = group->line;
    ir_attr_set_int(h, "iterations", trips);
    IrBlock *hb = ir_node_add_block(h);
    ir_node_add_input(h, kernels_scalar_constant(p, h, 0, false));
    IrValue *it = ir_block_add_param(hb, counter->type, NULL);
    IrValue *dim0 = NULL;
    for (int k = 0; k < group->ninputs; k++) {
        IrValue *in = group->inputs[k], *to;
        if (in == counter) {
            to = it;
        } else if (outside(in, loop)) {
            to = param_for(h, in);
        } else {                                /* a row X[i]: selected inside */
            IrNode *sel = in->def;
            if (!dim0)
                dim0 = param_for(h, kernels_scalar_constant(p, h, 0, false));
            IrNode *row = ir_node_new_op(g, OP_ATEN_SELECT);
            ir_node_add_input(row, param_for(h, sel->inputs[0]));
            ir_node_add_input(row, dim0);
            ir_node_add_input(row, it);
            to = ir_node_add_output(row, in->type, NULL);
            row->comment = sel->comment;
            ir_append(hb, row);
        }
        ir_replace_all_uses(ir_block_param(gb, k), to);
    }
    for (IrNode *m = ir_block_first(gb), *next; !ir_node_is_end(m); m = next) {
        next = m->next;
        ir_move_before(m, hb->ret);
    }
    ir_block_add_return(hb, ir_block_return(gb, 0));
    const IrTensorType *td = shape_of(loop->inputs[2]);
    IrValue *out = ir_node_add_output(h, loop->outputs[0]->type ? loop->outputs[0]->type
                                         : ir_type_tensor_refined(g, td->dtype, td->rank, td->sizes, NULL), NULL);
    ir_replace_all_uses(loop->outputs[0], out);
    IrNode *init = loop->inputs[2]->def;
    ir_node_destroy(loop);
    /* the destination's creation (aten::empty) is dead now */
    if (init && init->owner && init->noutputs == 1 && init->outputs[0]->nuses == 0 && init->nblocks == 0 &&
        op_info(init->op)->mutates < 0 &&
        (init->op == OP_ATEN_EMPTY || init->op == OP_ATEN_ZEROS || init->op == OP_ATEN_EMPTY_LIKE ||
         init->op == OP_ATEN_ZEROS_LIKE))
        ir_node_destroy(init);
    return 1;
}

int kernels_horizontal(LowerProgram *p)
{
    int made = kernels_rewrite_each(p, horizontal);
    return made;
}
