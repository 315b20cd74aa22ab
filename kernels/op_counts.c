/* op_counts.c — the tensor ops a run executes outside generated kernels
 * (--stats: library_calls_per_run, fallbacks_per_run).
 *
 * Counted per node of the specialized graph: tensor work (elementwise,
 * views, indexing, reductions, nn, copies, TensorSSA accesses and assigns),
 * never scalar or constant work; GEMM-like ops (OPC_LINALG, convolutions)
 * are library calls; a fused group counts nothing here (it is a kernel);
 * a for loop's body counts its trip count times when that is static.
 */
#include "kernels/kernels_internal.h"

static bool library_op(OpId op)
{
    return op_info(op)->cls == OPC_LINALG || op == OP_ATEN_CONV2D || op == OP_ATEN_CONV1D ||
           op == OP_ATEN_CONVOLUTION || op == OP_ATEN_LINEAR;
}

static bool tensor_work(OpId op)
{
    switch (op_info(op)->cls) {
    case OPC_CREATION: case OPC_VIEW: case OPC_INDEX: case OPC_ELEMENTWISE: case OPC_REDUCTION:
    case OPC_LINALG: case OPC_NN: case OPC_COPY: case OPC_ACCESS: case OPC_ASSIGN:
        return true;
    default:
        return false;
    }
}

static void count_block(const LowerProgram *p, const IrBlock *b, int64_t times, KernelsOpCounts *c)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_TSSA_FUSION_GROUP)
            continue;
        int64_t inner = times;
        if (n->op == OP_PRIM_LOOP && n->ninputs > 0) {
            const RtValue *trips = lower_static_value(p, n->inputs[0]);
            if (trips && trips->kind == RT_INT && trips->u.i >= 0)
                inner = times * trips->u.i;
        }
        for (int i = 0; i < n->nblocks; i++)
            count_block(p, n->blocks[i], inner, c);
        bool is_static = n->noutputs > 0;
        for (int i = 0; i < n->noutputs; i++)
            is_static = is_static && lower_static_value(p, n->outputs[i]);
        if (is_static || !tensor_work(n->op))
            continue;
        if (library_op(n->op))
            c->library += times;
        else
            c->reference += times;
    }
}

KernelsOpCounts kernels_count_ops(const LowerProgram *p)
{
    KernelsOpCounts c = {0, 0};
    count_block(p, lower_ir_graph(p)->top, 1, &c);
    return c;
}
