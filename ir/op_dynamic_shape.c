/* op_dynamic_shape.c — which ops make results whose shapes depend on the
 * values of their tensor arguments (op_has_dynamic_shape, see ops.h).
 *
 * The rows come from PyTorch (ir/gen_op_dynamic_shape.py writes
 * op_dynamic_shape.inc, sorted by name): ops tagged dynamic_output_shape in
 * its registry, and ops whose rows of the per-op corpus give results of
 * other shapes when run on other values of the same shapes. Shape inference
 * never evaluates such an op on stand-in tensors (kernels/shape_eval.c):
 * their results stay of unknown shape, as FakeTensor refuses them
 * (DynamicOutputShapeException). aten::index is in the list for its boolean
 * masks only; the caller decides per node from the indices' dtypes.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/ops.h"

typedef struct OpDynamicShape {
    const char *name;
    const char *why;            /* the tag or the corpus row that showed it */
} OpDynamicShape;

static const OpDynamicShape op_dynamic_shapes[] = {
#include "op_dynamic_shape.inc"
};

static int compare_name(const void *name, const void *row)
{
    return strcmp(name, ((const OpDynamicShape *)row)->name);
}

bool op_has_dynamic_shape(OpId op)
{
    return op != OP_UNKNOWN &&
           bsearch(op_table[op].name, op_dynamic_shapes, sizeof op_dynamic_shapes / sizeof *op_dynamic_shapes,
                   sizeof *op_dynamic_shapes, compare_name) != NULL;
}
