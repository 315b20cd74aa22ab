/* split_bias.c — a product's bias added where its consumer reads it.
 *
 * aten::linear(x, W, b) and aten::addmm(b, x, W) (beta = alpha = 1) run as
 * a GEMM whose result starts as b broadcast over its rows: on a GPU one
 * launch for the broadcast before the product, on a CPU one pass over the
 * result. Split into the product alone and an aten::add of b, the add is an
 * elementwise node like any other, so fusion puts it into the kernel that
 * reads the product next (an LSTM's gate kernel adds both biases while it
 * reads both products): the bias is the GEMM's epilogue, fused into its
 * consumer.
 *
 * Preconditions: shapes are inferred; the graph is functional. A product is
 * split when its result and b have static float shapes of one dtype and b
 * is [N] or [1, N] (N the result's last dim; addmm's [M, N] too). Result:
 *   linear(x, W, None), then aten::add(that, b, 1)
 *   aten::mm(x, W),     then aten::add(that, b, 1)
 * the add taking the old result's uses; the old node goes. The sum is
 * x @ W^T + b rounded once more than with b as the GEMM's starting value
 * (PyTorch's own GPU kernels add the bias after the product too).
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static bool is_one(const LowerProgram *p, const IrValue *v)
{
    const RtValue *r = lower_static_value(p, v);
    return r && ((r->kind == RT_INT && r->u.i == 1) || (r->kind == RT_FLOAT && r->u.f == 1.0));
}

static bool bias_fits(const IrTensorType *b, const IrTensorType *out, bool whole)
{
    int64_t n = out->sizes[out->rank - 1];
    if (b->dtype != out->dtype)
        return false;
    if (b->rank == 1)
        return b->sizes[0] == n;
    return b->rank == 2 && b->sizes[1] == n &&
           (b->sizes[0] == 1 || (whole && out->rank == 2 && b->sizes[0] == out->sizes[0]));
}

static int split_node(LowerProgram *p, IrNode *n)
{
    bool linear = n->op == OP_ATEN_LINEAR;
    if ((!linear && n->op != OP_ATEN_ADDMM) || n->noutputs != 1 || n->ninputs < 3)
        return 0;
    if (!linear && (n->ninputs > 5 || (n->ninputs > 3 && !is_one(p, n->inputs[3])) ||
                    (n->ninputs > 4 && !is_one(p, n->inputs[4]))))
        return 0;
    if (linear && n->ninputs != 3)
        return 0;
    IrValue *bias = n->inputs[linear ? 2 : 0];
    const IrTensorType *out = shape_of(n->outputs[0]), *b = shape_of(bias);
    if (!out || !b || out->rank < 1 || (out->dtype != DT_F32 && out->dtype != DT_F64) ||
        !bias_fits(b, out, !linear))
        return 0;
    IrGraph *g = n->graph;
    IrNode *product = ir_node_new_op(g, linear ? OP_ATEN_LINEAR : OP_ATEN_MM);
    if (linear) {
        ir_node_add_input(product, n->inputs[0]);
        ir_node_add_input(product, n->inputs[1]);
        IrNode *none = ir_node_new_op(g, OP_PRIM_CONSTANT);
        IrValue *nv = ir_node_add_output(none, ir_type_simple(g, TY_NONE), NULL);
        ir_insert_before(none, kernels_top_anchor(n));
        lower_add_static(p, nv, rt_none());
        ir_node_add_input(product, nv);
    } else {
        ir_node_add_input(product, n->inputs[1]);
        ir_node_add_input(product, n->inputs[2]);
    }
    IrValue *prod = ir_node_add_output(product, n->outputs[0]->type, NULL);
    product->comment = n->comment;
    ir_insert_before(product, n);
    IrNode *add = ir_node_new_op(g, OP_ATEN_ADD);
    ir_node_add_input(add, prod);
    ir_node_add_input(add, bias);
    ir_node_add_input(add, kernels_scalar_constant(p, n, 1, false));
    IrValue *sum = ir_node_add_output(add, n->outputs[0]->type, NULL);
    add->comment = n->comment;
    ir_insert_before(add, n);
    ir_replace_all_uses(n->outputs[0], sum);
    ir_node_destroy(n);
    return 1;
}

int kernels_split_bias(LowerProgram *p)
{
    return kernels_rewrite_each(p, split_node);
}
