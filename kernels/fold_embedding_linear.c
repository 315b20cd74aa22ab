/* fold_embedding_linear.c — a linear layer of an embedding lookup, looked up
 * in a table computed once.
 *
 * linear(embedding(E, idx), W, b) with E, W and b compile-time tensors (a
 * decoder's token embedding feeding a GRU cell's input GEMM, every step) is
 * embedding(linear(E, W, b), idx): row idx of E @ W^T + b. The table
 * E @ W^T + b is computed here, once per compilation, with the reference
 * kernels (OpenBLAS); each step then gathers rows instead of running a GEMM.
 * The products are the same; their sums are blocked differently by BLAS, so
 * results agree to rounding, as any two GEMMs do.
 *
 * Preconditions: shape_infer ran (and decompose_cells, whose input GEMMs
 * are the usual case). A lookup is folded when the table has at most 16M
 * elements and at most 4 times the elements of E and W together. Result: a
 * compile-time aten::linear(E, W, b) at the top level (its value is the
 * table; it never runs), and aten::embedding(table, idx, ...) in place of
 * the linear; the old embedding goes when nothing else reads it.
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static const Tensor *static_tensor(const LowerProgram *p, const IrValue *v)
{
    const RtValue *r = lower_static_value(p, v);
    return r && r->kind == RT_TENSOR ? r->u.t : NULL;
}

static bool fold(LowerProgram *p, IrNode *linear)
{
    if (linear->ninputs != 3 || linear->noutputs != 1)
        return false;
    IrNode *emb = linear->inputs[0]->def;
    if (emb->op != OP_ATEN_EMBEDDING || emb->ninputs < 2 || emb->noutputs != 1)
        return false;
    const Tensor *e = static_tensor(p, emb->inputs[0]), *w = static_tensor(p, linear->inputs[1]);
    const Tensor *b = static_tensor(p, linear->inputs[2]);
    const RtValue *bias = lower_static_value(p, linear->inputs[2]);
    const IrTensorType *out = shape_of(linear->outputs[0]);
    if (!e || !w || !bias || (!b && bias->kind != RT_NONE) || !out || e->ndim != 2 ||
        w->ndim != 2 || e->dtype != w->dtype || (b && b->dtype != w->dtype) || e->sizes[1] != w->sizes[1])
        return false;
    int64_t rows = e->sizes[0], cols = w->sizes[0];
    int64_t table = rows * cols, weights = tensor_numel(e) + tensor_numel(w);
    if (rows <= 0 || cols <= 0 || table > (16 << 20) || table > 4 * weights)
        return false;
    Tensor *t = tensor_linear(e, w, b);
    if (!t)
        return false;
    IrGraph *g = lower_ir_graph(p);
    IrNode *top = kernels_top_anchor(linear);
    IrNode *precompute = ir_node_new_op(g, OP_ATEN_LINEAR);
    for (int i = 0; i < 3; i++)
        ir_node_add_input(precompute, i == 0 ? emb->inputs[0] : linear->inputs[i]);
    int64_t tsizes[2] = {rows, cols};
    IrValue *tv = ir_node_add_output(precompute, ir_type_tensor_refined(g, t->dtype, 2, tsizes, NULL), NULL);
    ir_insert_before(precompute, top);
    lower_add_static(p, tv, rt_tensor_take(t));
    IrNode *lookup = ir_node_new_op(g, OP_ATEN_EMBEDDING);
    ir_node_add_input(lookup, tv);
    for (int i = 1; i < emb->ninputs; i++)
        ir_node_add_input(lookup, emb->inputs[i]);
    IrValue *lv = ir_node_add_output(lookup, ir_type_tensor_refined(g, out->dtype, out->rank, out->sizes, NULL), NULL);
    ir_insert_before(lookup, linear);
    ir_replace_all_uses(linear->outputs[0], lv);
    ir_node_destroy(linear);
    if (emb->outputs[0]->nuses == 0)
        ir_node_destroy(emb);
    return true;
}

static int fold_node(LowerProgram *p, IrNode *node)
{
    return node->op == OP_ATEN_LINEAR && fold(p, node);
}

int kernels_fold_embedding_linear(LowerProgram *p)
{
    return kernels_rewrite_each(p, fold_node);
}
