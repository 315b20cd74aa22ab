/* op_tally.c — how many tensor ops the evaluator has run (--stats:
 * library_calls_per_run, fallbacks_per_run).
 *
 * Counted as the ops run, so a loop's body counts once per iteration, an
 * If only its taken branch, and a node the lowering hoisted out of a loop
 * once: tensor work (elementwise, views, indexing, reductions, nn, copies,
 * TensorSSA's accesses and assigns with a tensor result), never scalar
 * (aten::add of two ints) or constant work.
 * GEMM-like ops (OPC_LINALG, linear, convolutions) are library calls
 * (OpenBLAS), views (the op table's ops that always alias: a new header
 * on the same data, no kernel) are counted apart; a fused group is not counted here
 * (the kernels layer counts its launches). The counters are process-wide and atomic: an executor's
 * filters may run on several threads.
 */
#include <stdatomic.h>

#include "eval/eval_internal.h"

static _Atomic int64_t library_ops, reference_ops, view_ops;

static bool library_op(OpId op)
{
    return op_info(op)->cls == OPC_LINALG || op == OP_ATEN_CONV2D || op == OP_ATEN_CONV1D || op == OP_ATEN_CONV3D ||
           op == OP_ATEN_CONVOLUTION || op == OP_ATEN_LINEAR;
}

static bool tensor_work(OpId op)
{
    switch (op_info(op)->cls) {
    case OPC_CREATION: case OPC_VIEW: case OPC_INDEX: case OPC_ELEMENTWISE: case OPC_REDUCTION:
    case OPC_LINALG: case OPC_NN: case OPC_COPY: case OPC_ACCESS: case OPC_ASSIGN: case OPC_RANDOM:
        return true;
    default:
        return false;
    }
}

void eval_tally_op(OpId op)
{
    if (op <= OP_UNKNOWN || op >= OP_COUNT || !tensor_work(op))
        return;
    if (library_op(op))
        atomic_fetch_add_explicit(&library_ops, 1, memory_order_relaxed);
    else if (op_info(op)->alias == ALIAS_VIEW || op_info(op)->alias == ALIAS_VIEWS)
        atomic_fetch_add_explicit(&view_ops, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&reference_ops, 1, memory_order_relaxed);
}

void eval_tally_reset(void)
{
    atomic_store(&library_ops, 0);
    atomic_store(&reference_ops, 0);
    atomic_store(&view_ops, 0);
}

EvalTally eval_tally(void)
{
    return (EvalTally){atomic_load(&library_ops), atomic_load(&reference_ops), atomic_load(&view_ops)};
}
