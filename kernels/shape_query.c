/* shape_query.c — reading the static types shape_infer wrote.
 *
 * shape_infer (kernels/shape_infer.c) writes what it works out into the
 * graph as refined tensor types; every pass after it (fold_decided, the
 * rewrites, fusion, the kernel builder, the cost model, the memory plan)
 * reads them back through these queries. They read the types only, so they
 * depend on the IR and on nothing else of the kernels layer: the inference
 * and the passes both use them, and neither needs the other for them.
 */
#include <string.h>

#include "tssa/shapes.h"

static bool is_tensor(const IrValue *v)
{
    return v->type && v->type->kind == TY_TENSOR;
}

const IrTensorType *shape_of(const IrValue *v)
{
    if (!v->type || v->type->kind != TY_TENSOR)
        return NULL;
    const IrTensorType *t = &v->type->tensor;
    if (t->dtype < 0 || t->rank < 0 || t->rank > TENSOR_MAX_DIMS)
        return NULL;
    for (int i = 0; i < t->rank; i++)
        if (t->sizes[i] < 0)
            return NULL;
    return t;
}

bool shape_same(const IrValue *a, const IrValue *b)
{
    const IrTensorType *x = shape_of(a), *y = shape_of(b);
    return x && y && x->dtype == y->dtype && x->rank == y->rank &&
           memcmp(x->sizes, y->sizes, (size_t)x->rank * sizeof *x->sizes) == 0;
}

static void count_block(const IrBlock *b, int *refined, int *unknown)
{
    for (int i = 0; i < ir_block_nparams(b); i++)
        if (is_tensor(ir_block_param(b, i)))
            (shape_of(ir_block_param(b, i)) ? (*refined)++ : (*unknown)++);
    IR_FOREACH_NODE(n, b) {
        for (int k = 0; k < n->noutputs; k++)
            if (is_tensor(n->outputs[k]))
                (shape_of(n->outputs[k]) ? (*refined)++ : (*unknown)++);
        for (int k = 0; k < n->nblocks; k++)
            count_block(n->blocks[k], refined, unknown);
    }
}

void shape_count(const IrGraph *g, int *refined, int *unknown)
{
    *refined = *unknown = 0;
    count_block(g->top, refined, unknown);
}
