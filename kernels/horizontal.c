/* horizontal.c — a data-parallel loop as a few operations over all its
 * iterations (FuncTs' parallel functor): each fused group of its body one
 * kernel with the iteration as its outermost loop variable, each product by
 * a weight one GEMM of the stacked rows; one launch on a GPU where the loop
 * made one per iteration.
 *
 * The loop it takes (after kernels_fuse):
 *     %out = prim::Loop(N, true, %dst)            N a compile-time int
 *       block0(%i, %d):
 *         %x_k = aten::select(%X_k, 0, %i)        rows of values from outside
 *         %a = tssa::FusionGroup(...)             reading rows, outside values,
 *         %b = aten::mm(%a, %W)                   earlier steps' values, %i;
 *         %r = tssa::FusionGroup(...)             products of an earlier step's
 *         %d2 = immut::select_rev(%d, %r, 0, %i)  value by outside weights
 *         -> (true, %d2)
 * (%r may also be a row X_k[i] itself: the loop copies X_k's first N rows)
 * where %dst has exactly N rows of %r's shape, nothing else reads %d, and
 * each step's value is read only by later steps (the last by the write):
 * every row of the result is written once, from its own iteration, so the
 * result is the N values of %r stacked, whatever %dst held. Step by step,
 * each value becomes its N values stacked along a new dim 0:
 *     a row X_k[i]     X_k (its first N rows)
 *     a group          tssa::FusionGroup[iterations=N](0, stacked inputs...,
 *                        outside values...), its block the group's nodes
 *                        after `x = aten::select(%stacked, 0, %it)` for each
 *                        stacked input (%it: block param 0)
 *     mm / matmul / linear of a stacked value by weights: matmul / linear of
 *                      the stacked value (they broadcast over dim 0)
 * (ir_group_iterations). The kernel builder binds %it to the output's new
 * dim 0 (kir_build.c); the evaluator, when it interprets such a group,
 * runs its block N times and stacks the results (eval/interp.c).
 *
 * The loop leaves the stream graph, so fission has nothing to split: where
 * ranks on several hosts or several devices are to share the loop out,
 * strip_mine.c first made it a loop over slices, and this pass makes each
 * slice's inner loop one kernel over the slice's rows.
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

enum { MAX_STEPS = 32 };

/* A row of a value from outside: aten::select(X, 0, counter) in the body
 * (X of N rows or more). */
static bool is_row(const LowerProgram *p, const IrNode *n, const IrNode *loop, int64_t trips)
{
    const IrValue *counter = ir_block_param(loop->blocks[0], 0);
    const IrTensorType *tx = n->op == OP_ATEN_SELECT && n->ninputs == 3 ? shape_of(n->inputs[0]) : NULL;
    return tx && n->owner == loop->blocks[0] && kernels_outside_loop(n->inputs[0], loop) && static_is(p, n->inputs[1], 0) &&
           n->inputs[2] == counter && tx->rank >= 1 && tx->sizes[0] >= trips;
}

/* A product of a per-iteration value (input 0) by values from outside:
 * over all iterations, one product of the stacked values. */
static bool is_gemm(const IrNode *n, const IrNode *loop)
{
    if (n->op != OP_ATEN_MM && n->op != OP_ATEN_MATMUL && n->op != OP_ATEN_LINEAR)
        return false;
    if (n->noutputs != 1 || n->ninputs < 2 || (n->op == OP_ATEN_LINEAR ? n->ninputs != 3 : n->ninputs != 2))
        return false;
    const IrTensorType *w = shape_of(n->inputs[1]);
    if (!w || w->rank != 2)
        return false;
    for (int k = 1; k < n->ninputs; k++)
        if (!kernels_outside_loop(n->inputs[k], loop))
            return false;
    return true;
}

/* The loop's steps in order (row selects, groups, products) when the loop
 * has the shape above, every value of a step read only by later steps (or,
 * for the last, by the write), and the write's value made by a group, a
 * product or a row select; else 0. */
static int plan_loop(const LowerProgram *p, IrNode *loop, int64_t *trips, IrNode **steps)
{
    const RtValue *n = loop->op == OP_PRIM_LOOP && loop->ninputs == 3 && loop->noutputs == 1
                           ? lower_static_value(p, loop->inputs[0]) : NULL;
    if (!n || n->kind != RT_INT || n->u.i < 1 || !static_true(p, loop->inputs[1]))
        return 0;
    IrBlock *body = loop->blocks[0];
    IrValue *counter = ir_block_param(body, 0), *carried = ir_block_param(body, 1);
    if (ir_block_nreturns(body) != 2 || !static_true(p, ir_block_return(body, 0)))
        return 0;
    IrNode *write = ir_block_return(body, 1)->def;
    if (write->op != OP_IMMUT_SELECT_REV || write->owner != body || write->ninputs != 4 ||
        write->inputs[0] != carried || !static_is(p, write->inputs[2], 0) || write->inputs[3] != counter ||
        carried->nuses != 1 || write->outputs[0]->nuses != 1)
        return 0;
    const IrNode *last = write->inputs[1]->def;
    const IrTensorType *td = shape_of(loop->inputs[2]), *tr = shape_of(write->inputs[1]);
    if (last->owner != body ||
        (last->op != OP_TSSA_FUSION_GROUP && !is_gemm(last, loop) && !is_row(p, last, loop, n->u.i)) || !td || !tr ||
        td->rank != tr->rank + 1 || td->rank > KIR_MAX_RANK || td->sizes[0] != n->u.i || td->dtype != tr->dtype ||
        memcmp(td->sizes + 1, tr->sizes, (size_t)tr->rank * sizeof *tr->sizes) != 0)
        return 0;
    int nsteps = 0;
    IR_FOREACH_NODE(m, body) {
        if (m == write)
            continue;
        bool group = m->op == OP_TSSA_FUSION_GROUP && m->noutputs == 1 && ir_group_iterations(m) == 0;
        bool gemm = !group && is_gemm(m, loop);
        if (nsteps == MAX_STEPS || (!group && !gemm && !is_row(p, m, loop, n->u.i)))
            return 0;
        if (gemm && kernels_outside_loop(m->inputs[0], loop))
            return 0;       /* the same product every iteration: not this pass's */
        /* inputs: the counter (groups only), values from outside, earlier steps */
        for (int k = 0; k < m->ninputs; k++) {
            const IrValue *in = m->inputs[k];
            if (kernels_outside_loop(in, loop) || (in == counter && group) || (m->op == OP_ATEN_SELECT))
                continue;
            if (in->def->owner != body || in->def == m || !shape_of(in))
                return 0;
        }
        /* outputs: read only by later steps and the write */
        for (int u = 0; u < m->outputs[0]->nuses; u++) {
            const IrNode *user = m->outputs[0]->uses[u].user;
            if (user->owner != body || (user == write && m != last))
                return 0;
        }
        if (!shape_of(m->outputs[0]))
            return 0;
        steps[nsteps++] = m;
    }
    *trips = n->u.i;
    return nsteps;
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

IrValue *kernels_stacked_of(const KernelsStacked *st, const IrValue *v)
{
    for (int j = 0; j < st->n; j++)
        if (st->steps[j]->outputs[0] == v)
            return st->values[j];
    return NULL;
}

IrType *kernels_stacked_type(IrGraph *g, const IrValue *v, int64_t trips)
{
    const IrTensorType *t = shape_of(v);
    int64_t sizes[KIR_MAX_RANK] = {trips};
    memcpy(sizes + 1, t->sizes, (size_t)t->rank * sizeof *t->sizes);
    return ir_type_tensor_refined(g, t->dtype, t->rank + 1, sizes, NULL);
}

/* X[:trips] before `before`: a view, also when X has no more rows, so the
 * program's graph does not depend on whether the trip count is X's rows. */
static IrValue *first_rows(LowerProgram *p, IrNode *before, IrValue *x, int64_t trips)
{
    const IrTensorType *tx = shape_of(x);
    IrGraph *g = lower_ir_graph(p);
    IrNode *rows = ir_node_new_op(g, OP_ATEN_SLICE);
    ir_insert_before(rows, before);
    ir_node_add_input(rows, x);
    ir_node_add_input(rows, kernels_scalar_constant(p, rows, 0, false));
    ir_node_add_input(rows, kernels_scalar_constant(p, rows, 0, false));
    ir_node_add_input(rows, kernels_scalar_constant(p, rows, trips, false));
    ir_node_add_input(rows, kernels_scalar_constant(p, rows, 1, false));
    int64_t sizes[KIR_MAX_RANK];
    memcpy(sizes, tx->sizes, (size_t)tx->rank * sizeof *sizes);
    sizes[0] = trips;
    return ir_node_add_output(rows, ir_type_tensor_refined(g, tx->dtype, tx->rank, sizes, NULL), NULL);
}

IrValue *kernels_iterations_group(LowerProgram *p, IrNode *loop, IrNode *group, const KernelsStacked *st,
                                  int64_t trips)
{
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
        IrValue *all = kernels_stacked_of(st, in);
        if (in == counter) {
            to = it;
        } else if (!all) {
            to = param_for(h, in);
        } else {                                /* this iteration's row of a stacked value */
            if (!dim0)
                dim0 = param_for(h, kernels_scalar_constant(p, h, 0, false));
            IrNode *row = ir_node_new_op(g, OP_ATEN_SELECT);
            ir_node_add_input(row, param_for(h, all));
            ir_node_add_input(row, dim0);
            ir_node_add_input(row, it);
            to = ir_node_add_output(row, in->type, NULL);
            row->comment = in->def->comment;
            ir_append(hb, row);
        }
        ir_replace_all_uses(ir_block_param(gb, k), to);
    }
    for (IrNode *m = ir_block_first(gb), *next; !ir_node_is_end(m); m = next) {
        next = m->next;
        ir_move_before(m, hb->ret);
    }
    ir_block_add_return(hb, ir_block_return(gb, 0));
    return ir_node_add_output(h, kernels_stacked_type(g, group->outputs[0], trips), NULL);
}

/* The product over all iterations: the stacked first operand times the
 * same weights (matmul and linear broadcast over the leading dims). */
static IrValue *stacked_gemm(LowerProgram *p, IrNode *loop, IrNode *n, const KernelsStacked *st, int64_t trips)
{
    IrGraph *g = lower_ir_graph(p);
    IrNode *all = ir_node_new_op(g, n->op == OP_ATEN_MM ? OP_ATEN_MATMUL : n->op);
    ir_insert_before(all, loop);
    all->comment = n->comment;
    all->line = n->line;
    ir_node_add_input(all, kernels_stacked_of(st, n->inputs[0]));
    for (int k = 1; k < n->ninputs; k++)
        ir_node_add_input(all, n->inputs[k]);
    return ir_node_add_output(all, kernels_stacked_type(g, n->outputs[0], trips), NULL);
}

static int horizontal(LowerProgram *p, IrNode *loop)
{
    int64_t trips = 0;
    IrNode *steps[MAX_STEPS];
    int nsteps = loop->op == OP_PRIM_LOOP ? plan_loop(p, loop, &trips, steps) : 0;
    if (nsteps == 0)
        return 0;
    /* every product's first operand and every group input of the body is
     * stacked by an earlier step, so the steps become top-level nodes in
     * order */
    IrValue *values[MAX_STEPS];
    KernelsStacked st = {steps, values, 0};
    for (int j = 0; j < nsteps; j++) {
        IrNode *m = steps[j];
        if (m->op == OP_ATEN_SELECT)
            values[j] = first_rows(p, loop, m->inputs[0], trips);
        else if (m->op == OP_TSSA_FUSION_GROUP)
            values[j] = kernels_iterations_group(p, loop, m, &st, trips);
        else
            values[j] = stacked_gemm(p, loop, m, &st, trips);
        st.n = j + 1;
    }
    IrBlock *body = loop->blocks[0];
    IrValue *result = kernels_stacked_of(&st, ir_block_return(body, 1)->def->inputs[1]);
    ir_replace_all_uses(loop->outputs[0], result);
    IrNode *init = loop->inputs[2]->def;
    ir_node_destroy(loop);
    /* the destination's creation (aten::empty, or a slice's rows of it:
     * strip_mine.c) is dead now */
    if (init && init->owner && init->noutputs == 1 && init->outputs[0]->nuses == 0 && init->nblocks == 0 &&
        (init->op == OP_ATEN_EMPTY || init->op == OP_ATEN_ZEROS || init->op == OP_ATEN_EMPTY_LIKE ||
         init->op == OP_ATEN_ZEROS_LIKE || init->op == OP_ATEN_SLICE))
        ir_node_destroy(init);
    return 1;
}

int kernels_horizontal(LowerProgram *p)
{
    int made = kernels_rewrite_each(p, horizontal);
    return made;
}
