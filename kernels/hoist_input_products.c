/* hoist_input_products.c — a loop's per-step product with its input, as
 * one product before the loop.
 *
 * An RNN's step multiplies the step's input by a weight that does not
 * change (`x[t] @ w_ih.t()`): N small GEMMs of the same weight. They do
 * not depend on the carried state, so they are one GEMM of all N inputs
 * before the loop (what cuDNN's RNNs do), and each step reads its rows:
 *     for t < N:  y = mm(select(X, 0, t), W)     (X: [N, M, K])
 * becomes
 *     P = mm-like(X, W)                          ([N, M, P], before the loop)
 *     for t < N:  y = select(P, 0, t)            (a view: the loop's slicer)
 * for aten::mm, aten::matmul and aten::linear (with its bias). The products
 * are the same; one GEMM of N*M rows blocks its sums differently from N
 * GEMMs of M rows, so results agree to rounding.
 *
 * A data-parallel loop's row times a weight (`x[i] @ w`, X: [N, K]) is the
 * same with one rank less: one [N, K] x [K, P] GEMM instead of N GEMVs.
 *
 * Preconditions: shape_infer ran. A product is hoisted when its loop's trip
 * count N is a compile-time value, its first operand is X[t] (aten::select
 * of dim 0 at the loop's counter) of an X of N rows or more defined before
 * the loop (read as X[:N]), and its other operands are defined
 * before the loop or computed in the body from such values by views alone
 * (`w_ih.t()`: those views move before the loop too). Result: as above; X[t] goes when nothing else
 * reads it. P is at most 4 times X's size (an LSTM's four gates).
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

/* v's value is the same in every iteration: defined outside the loop, or a
 * view (no blocks) of such values straight in the body. Those views are
 * collected in `views` (dependencies first) to move before the loop. */
static bool invariant(const IrValue *v, const IrNode *loop, IrNode **views, int *nviews, int depth)
{
    if (kernels_outside_loop(v, loop))
        return true;
    IrNode *d = v->def;
    if (depth > 8 || d->owner != loop->blocks[0] || d->nblocks > 0 || !op_is_view(d->op) ||
        op_is_inplace(d->op) || *nviews >= 16)
        return false;
    for (int i = 0; i < d->ninputs; i++)
        if (!invariant(d->inputs[i], loop, views, nviews, depth + 1))
            return false;
    for (int i = 0; i < *nviews; i++)
        if (views[i] == d)
            return true;
    views[(*nviews)++] = d;
    return true;
}

static bool hoist(LowerProgram *p, IrNode *loop, int64_t trips, IrNode *n)
{
    IrBlock *body = loop->blocks[0];
    const IrValue *counter = ir_block_param(body, 0);
    if (n->noutputs != 1 || n->ninputs < 2 || (n->op == OP_ATEN_LINEAR ? n->ninputs != 3 : n->ninputs != 2))
        return false;
    IrNode *sel = n->inputs[0]->def;
    int64_t dim;
    const RtValue *dv = sel->ninputs == 3 ? lower_static_value(p, sel->inputs[1]) : NULL;
    if (sel->op != OP_ATEN_SELECT || sel->owner != body || !dv || dv->kind != RT_INT ||
        sel->inputs[2] != counter)
        return false;
    dim = dv->u.i;
    IrValue *x = sel->inputs[0];
    const IrTensorType *tx = shape_of(x), *ty = shape_of(n->outputs[0]);
    /* X[t] a matrix (an RNN's batch of rows) or a vector (a data-parallel
     * loop's row: vector @ W), the product one rank less than X */
    if (dim != 0 || !tx || !ty || (tx->rank != 3 && tx->rank != 2) || ty->rank != tx->rank - 1 ||
        tx->sizes[0] < trips || !kernels_outside_loop(x, loop))
        return false;       /* fewer rows than steps: x[t] fails at run time, as it should */
    /* P's size against X's (which the run holds already), not against a
     * bound of its own: the decision must not depend on the trip count
     * (a loop lowers to the same stream for 10 steps as for 2,000) */
    int64_t row_x = 1, row_y = 1;
    for (int d = 1; d < tx->rank; d++)
        row_x *= tx->sizes[d];
    for (int d = 0; d < ty->rank; d++)
        row_y *= ty->sizes[d];
    if (row_y > 4 * row_x)
        return false;
    IrNode *views[16];
    int nviews = 0;
    for (int i = 1; i < n->ninputs; i++)
        if (!invariant(n->inputs[i], loop, views, &nviews, 0))
            return false;
    for (int i = 0; i < nviews; i++)
        ir_move_before(views[i], loop);
    IrGraph *g = lower_ir_graph(p);
    {
        /* the rows the steps read, X[:N] (a view; made when N is all of X
         * too, so the stream is the same for every trip count) */
        IrNode *rows = ir_node_new_op(g, OP_ATEN_SLICE);
        ir_node_add_input(rows, x);
        ir_node_add_input(rows, kernels_scalar_constant(p, loop, 0, false));
        ir_node_add_input(rows, kernels_scalar_constant(p, loop, 0, false));
        ir_node_add_input(rows, kernels_scalar_constant(p, loop, trips, false));
        ir_node_add_input(rows, kernels_scalar_constant(p, loop, 1, false));
        int64_t rs[3] = {trips, tx->sizes[1], tx->rank == 3 ? tx->sizes[2] : 0};
        x = ir_node_add_output(rows, ir_type_tensor_refined(g, tx->dtype, tx->rank, rs, NULL), NULL);
        ir_insert_before(rows, loop);
    }
    IrNode *all = ir_node_new_op(g, n->op == OP_ATEN_MM ? OP_ATEN_MATMUL : n->op);  /* mm is 2-d only */
    ir_node_add_input(all, x);
    for (int i = 1; i < n->ninputs; i++)
        ir_node_add_input(all, n->inputs[i]);
    int64_t sizes[KIR_MAX_RANK] = {trips};
    for (int i = 0; i < ty->rank; i++)
        sizes[1 + i] = ty->sizes[i];
    IrValue *pv = ir_node_add_output(all, ir_type_tensor_refined(g, ty->dtype, ty->rank + 1, sizes, NULL), NULL);
    ir_insert_before(all, loop);
    IrNode *row = ir_node_new_op(g, OP_ATEN_SELECT);
    ir_node_add_input(row, pv);
    ir_node_add_input(row, kernels_scalar_constant(p, loop, 0, false));
    ir_node_add_input(row, (IrValue *)counter);
    IrValue *rv = ir_node_add_output(row, ir_type_tensor_refined(g, ty->dtype, ty->rank, ty->sizes, NULL), NULL);
    ir_insert_before(row, n);
    ir_replace_all_uses(n->outputs[0], rv);
    ir_node_destroy(n);
    if (sel->outputs[0]->nuses == 0)
        ir_node_destroy(sel);
    return true;
}

/* The products of loop's body that hoist. */
static int hoist_loop(LowerProgram *p, IrNode *loop)
{
    const RtValue *trips = loop->op == OP_PRIM_LOOP && loop->ninputs >= 2
                               ? lower_static_value(p, loop->inputs[0]) : NULL;
    if (!trips || trips->kind != RT_INT || trips->u.i < 1)
        return 0;
    int count = 0;
    for (IrNode *n = ir_block_first(loop->blocks[0]), *next; !ir_node_is_end(n); n = next) {
        next = n->next;
        if ((n->op == OP_ATEN_MM || n->op == OP_ATEN_MATMUL || n->op == OP_ATEN_LINEAR) &&
            hoist(p, loop, trips->u.i, n))
            count++;
    }
    return count;
}

int kernels_hoist_input_products(LowerProgram *p)
{
    return kernels_rewrite_each(p, hoist_loop);
}
