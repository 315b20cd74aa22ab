/* filter_costs.c — what one firing of each filter costs, from the static
 * shapes, for the partitioner's cost model (scheduler/partition.c).
 *
 * Preconditions: shape_infer and fusion have run and the stream graph is
 * built (lower_build). Result: every work filter of lower_stream_graph(p)
 * has flops, bytes, bytes_in and bytes_out per firing (StreamFilter).
 *
 * Per node of the filter's region, with its static shapes (a value whose
 * shape is unknown counts 0):
 *   products (OPC_LINALG)   2 * out * K, K the reduced size: the last size
 *                           of the first input of rank >= 2 whose last size
 *                           is not the output's (addmm's bias is skipped),
 *                           else the largest last size
 *   convolutions (OPC_NN    2 * out * (weight elements / out channels)
 *   with a weight of rank >= 3)
 *   everything else         one flop per output element
 *   math calls              per output element, the calls of exp, tanh,
 *                           log, ... its kernel template makes (one for
 *                           softmax and log_softmax): StreamFilter.math
 *   memory                  every tensor read and written once
 * A fused group over a loop's iterations costs its body (one iteration)
 * times their count. A loop body's popped items that are the same every iteration (loop
 * invariants) are counted apart (bytes_in_shared): a message carries them
 * once. A fused group is one pass: its members' flops, but only the group's own
 * inputs and outputs as memory (what fusion saves). An If costs its dearer
 * branch; a loop its body times its trip count when that is a compile-time
 * value, else once.
 */
#include "kernels/kernels_internal.h"
#include "tssa/kernels.h"
#include "tssa/ops.h"
#include "tssa/shapes.h"

typedef struct Cost {
    double flops, bytes, math;
} Cost;

static double numel_of(const IrTensorType *t)
{
    double n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= (double)t->sizes[d];
    return n;
}

static double bytes_of(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    return t ? numel_of(t) * (double)dtype_size((TensorDType)t->dtype) : 0;
}

static double product_flops(const IrNode *n, const IrTensorType *out)
{
    int64_t out_last = out->rank > 0 ? out->sizes[out->rank - 1] : 1;
    int64_t k = 0, largest = 1;
    for (int i = 0; i < n->ninputs; i++) {
        const IrTensorType *t = shape_of(n->inputs[i]);
        if (!t || t->rank < 1)
            continue;
        int64_t last = t->sizes[t->rank - 1];
        largest = last > largest ? last : largest;
        if (!k && t->rank >= 2 && last != out_last)
            k = last;
    }
    return 2.0 * numel_of(out) * (double)(k ? k : largest);
}

static double node_flops(const IrNode *n)
{
    const OpInfo *info = op_info(n->op);
    if (info->cls == OPC_VIEW || info->cls == OPC_CONSTANT || info->cls == OPC_SCALAR ||
        info->cls == OPC_STRUCTURE)
        return 0;
    const IrTensorType *out = n->noutputs > 0 ? shape_of(n->outputs[0]) : NULL;
    if (!out)
        return 0;
    if (info->cls == OPC_LINALG)
        return product_flops(n, out);
    if (info->cls == OPC_NN && n->ninputs > 1) {
        const IrTensorType *w = shape_of(n->inputs[1]);
        if (w && w->rank >= 3 && w->sizes[0] > 0)
            return 2.0 * numel_of(out) * numel_of(w) / (double)w->sizes[0];
    }
    return numel_of(out);
}

static double node_math(const IrNode *n)
{
    const IrTensorType *out = n->noutputs > 0 ? shape_of(n->outputs[0]) : NULL;
    if (!out)
        return 0;
    if (n->op == OP_ATEN_SOFTMAX || n->op == OP_ATEN_LOG_SOFTMAX)
        return numel_of(out);
    const OpTemplate *t = op_template(n->op);
    return t ? numel_of(out) * kir_math_calls(t->text) : 0;
}

static double node_bytes(const IrNode *n)
{
    if (op_info(n->op)->cls == OPC_VIEW)
        return 0;
    double b = 0;
    for (int i = 0; i < n->ninputs; i++)
        b += bytes_of(n->inputs[i]);
    for (int i = 0; i < n->noutputs; i++)
        b += bytes_of(n->outputs[i]);
    return b;
}

static Cost block_cost(const LowerProgram *p, const IrBlock *b);

static Cost node_cost(const LowerProgram *p, const IrNode *n)
{
    Cost c = {0};
    if (n->op == OP_TSSA_FUSION_GROUP && n->nblocks == 1) {
        /* an iterations group's body is one iteration (horizontal.c) */
        Cost body = block_cost(p, n->blocks[0]);
        double times = ir_group_iterations(n) > 0 ? (double)ir_group_iterations(n) : 1;
        c.flops = body.flops * times;
        c.math = body.math * times;
        c.bytes = node_bytes(n);
    } else if (n->op == OP_PRIM_IF) {
        for (int i = 0; i < n->nblocks; i++) {
            Cost arm = block_cost(p, n->blocks[i]);
            c.flops = arm.flops > c.flops ? arm.flops : c.flops;
            c.math = arm.math > c.math ? arm.math : c.math;
            c.bytes = arm.bytes > c.bytes ? arm.bytes : c.bytes;
        }
    } else if (n->op == OP_PRIM_LOOP && n->nblocks == 1) {
        Cost body = block_cost(p, n->blocks[0]);
        const RtValue *trips = n->ninputs > 0 ? kir_static(p, NULL, n->inputs[0]) : NULL;
        double times = trips && trips->kind == RT_INT && trips->u.i > 0 ? (double)trips->u.i : 1;
        c.flops = body.flops * times;
        c.math = body.math * times;
        c.bytes = body.bytes * times;
    } else {
        c.flops = node_flops(n);
        c.math = node_math(n);
        c.bytes = node_bytes(n);
    }
    return c;
}

static Cost block_cost(const LowerProgram *p, const IrBlock *b)
{
    Cost c = {0};
    for (const IrNode *n = b->param->next; n && n != b->ret; n = n->next) {
        Cost one = node_cost(p, n);
        c.flops += one.flops;
        c.bytes += one.bytes;
        c.math += one.math;
    }
    return c;
}

/* Whether a loop body's popped value is the same item every iteration (a
 * weight the Unstack hoisted), not one of the slices the counter picks:
 * the MPI channels send such an item once per message (value_wire.c). */
static bool loop_invariant(const LowerWork *w, const IrValue *v)
{
    if (!w->plan)
        return false;
    for (int i = 0; i < w->plan->nslicers; i++)
        if (w->plan->slicers[i] == v->def)
            return false;
    return true;
}

void kernels_estimate_costs(const LowerProgram *p)
{
    StreamGraph *g = lower_stream_graph(p);
    for (int i = 0; g && i < g->nnodes; i++) {
        StreamNode *node = g->nodes[i];
        if (node->kind != STREAM_FILTER || node->filter.role != FILTER_WORK)
            continue;
        StreamFilter *f = &node->filter;
        f->flops = f->math = f->bytes = f->bytes_in = f->bytes_in_shared = f->bytes_out = 0;
        for (int k = 0; k < f->nnodes; k++) {
            Cost c = node_cost(p, f->nodes[k]);
            f->flops += c.flops;
            f->math += c.math;
            f->bytes += c.bytes;
        }
        const LowerWork *w = f->work;
        for (int k = 0; w && w->pops && k < w->npops; k++) {
            if (w->kind == LOWER_WORK_LOOP_BODY && loop_invariant(w, w->pops[k]))
                f->bytes_in_shared += bytes_of(w->pops[k]);
            else
                f->bytes_in += bytes_of(w->pops[k]);
        }
        for (int k = 0; w && w->pushes && k < w->npushes; k++)
            f->bytes_out += bytes_of(w->pushes[k]);
    }
}
