/* sink_sliced_products.c — a product read only through column slices, as
 * one product per slice, where the slice is read.
 *
 * Multi-head attention computes q = x @ W_q once and then reads each head's
 * columns, q[:, :, h*D:(h+1)*D], inside the loop over heads. A rank or a
 * device that runs some of the heads then needs all of q, made elsewhere,
 * before it can start. Since (x @ W)[..., a:b] is x @ W[:, a:b], each such
 * slice becomes a product of x by the weight's columns, made where the slice
 * was read (in the loop's body: each head's share of the projection goes
 * with its head), and the whole product goes. x and W come from before the
 * loop, so whoever runs a head needs only them.
 *
 * The product it takes (top level, after shape_infer): %p = aten::matmul(%x,
 * %W) (or aten::mm) with W 2-D of static shape [K, N] and x of static shape
 * [..., K], every use of %p an aten::slice of its last dim by 1 (any start
 * and end, computed anywhere). Result: each slice %s = aten::slice(%p, d, a,
 * b, 1) becomes %w = aten::slice(%W, 1, a, b, 1); %s' = aten::matmul(%x,
 * %w), before it; %p is removed. The values are those of the product's
 * columns, computed by a narrower GEMM (the same flops in all), so results
 * agree with the whole product to rounding.
 *
 * The driver runs it on the cpu backend always (a product's bits must not
 * depend on how many ranks share the heads: every rank count computes the
 * same narrower products) and on devices when it slices for several GPUs;
 * one GPU keeps the one larger GEMM (fewer launches).
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static bool static_is(const LowerProgram *p, const IrValue *v, int64_t want)
{
    const RtValue *r = lower_static_value(p, v);
    return r && r->kind == RT_INT && r->u.i == want;
}

/* Whether use u of the product (rank `rank`) is a slice of its last dim by 1. */
static bool column_slice(const LowerProgram *p, const IrNode *u, const IrValue *prod, int rank)
{
    return u->op == OP_ATEN_SLICE && u->ninputs == 5 && u->inputs[0] == prod &&
           (static_is(p, u->inputs[1], rank - 1) || static_is(p, u->inputs[1], -1)) &&
           static_is(p, u->inputs[4], 1) && shape_of(u->outputs[0]) != NULL;
}

static int sink(LowerProgram *p, IrNode *n)
{
    if ((n->op != OP_ATEN_MATMUL && n->op != OP_ATEN_MM) || n->owner->owner || n->ninputs != 2 || n->noutputs != 1)
        return 0;
    IrValue *x = n->inputs[0], *w = n->inputs[1], *prod = n->outputs[0];
    const IrTensorType *tw = shape_of(w), *tx = shape_of(x), *tp = shape_of(prod);
    if (!tw || !tx || !tp || tw->rank != 2 || tx->rank < 2 || tp->rank != tx->rank || prod->nuses == 0)
        return 0;
    for (int i = 0; i < prod->nuses; i++)
        if (!column_slice(p, prod->uses[i].user, prod, tp->rank))
            return 0;
    IrGraph *g = lower_ir_graph(p);
    while (prod->nuses > 0) {
        IrNode *s = prod->uses[0].user;
        const IrTensorType *ts = shape_of(s->outputs[0]);
        IrNode *cols = ir_node_new_op(g, OP_ATEN_SLICE);
        ir_insert_before(cols, s);
        ir_node_add_input(cols, w);
        ir_node_add_input(cols, kernels_scalar_constant(p, s, 1, false));
        ir_node_add_input(cols, s->inputs[2]);
        ir_node_add_input(cols, s->inputs[3]);
        ir_node_add_input(cols, s->inputs[4]);
        int64_t sizes[2] = {tw->sizes[0], ts->sizes[ts->rank - 1]};
        IrValue *wc = ir_node_add_output(cols, ir_type_tensor_refined(g, tw->dtype, 2, sizes, NULL), NULL);
        IrNode *mm = ir_node_new_op(g, OP_ATEN_MATMUL);
        mm->line = n->line;
        mm->comment = n->comment;
        ir_insert_before(mm, s);
        ir_node_add_input(mm, x);
        ir_node_add_input(mm, wc);
        IrValue *y = ir_node_add_output(mm, s->outputs[0]->type, NULL);
        ir_replace_all_uses(s->outputs[0], y);
        ir_node_destroy(s);
    }
    ir_node_destroy(n);
    return 1;
}

bool kernels_sink_sliced_products(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status)
{
    (void)err;
    (void)status;
    (void)o;
    IrBlock *top = lower_ir_graph(p)->top;
    for (IrNode *n = ir_block_first(top), *next; !ir_node_is_end(n); n = next) {
        next = n->next;
        sink(p, n);
    }
    lower_graph_grown(p);
    return true;
}
