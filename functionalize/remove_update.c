/* remove_update.c — drops the tssa::update markers.
 *
 * Precondition: rename ran, so no use depends on a marker any more; the
 * markers have no outputs and only record what renaming already applied.
 * Afterwards the graph holds no tssa:: op.
 */
#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

static void remove_marker(IrNode *n, void *ctx)
{
    size_t *count = ctx;
    if (n->op != OP_TSSA_UPDATE)
        return;
    ir_node_destroy(n);
    (*count)++;
}

size_t tssa_remove_update(IrGraph *g)
{
    size_t count = 0;
    ir_walk(g->top, remove_marker, &count);
    return count;
}
