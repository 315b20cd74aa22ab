/* forward_aliases.c — every use of a value that *is* another tensor reads
 * that tensor directly (run before alias analysis).
 *
 *   %5 = aten::add_(%a, ...)          an in-place op returns self: %5 is %a
 *   %6 = aten::slice(%a, d, None, None, 1)   (or start 0, end INT64_MAX)
 *   %7 = aten::alias(%a), aten::detach(%a)   the same storage and geometry
 *
 * The values keep their definitions (in-place ops still write; the others
 * become dead and DCE removes them), but no use refers to them any more.
 * Afterwards a tensor has one name however it was reached, so views of
 * views are chains without no-op links (TorchScript writes x[:, 1:3] as a
 * full slice of dim 0 followed by a slice of dim 1) and no later pass needs
 * to know that %5 is %a. Exact: reading or writing %5 is reading or writing
 * %a, element for element.
 */
#include <stdint.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

static bool absent_or_int(const IrNode *n, int i, int64_t want)
{
    int64_t v;
    return i >= n->ninputs || tssa_is_none(n->inputs[i]) ||
           (tssa_const_int(n->inputs[i], &v) && v == want);
}

/* slice(x, dim, None|0, None|INT64_MAX, 1): every element, same geometry. */
static bool full_slice(const IrNode *n)
{
    int64_t end;
    if (n->op != OP_ATEN_SLICE || n->ninputs < 1 || !tssa_is_tensor_value(n->inputs[0]))
        return false;
    bool end_open = n->ninputs <= 3 || tssa_is_none(n->inputs[3]) ||
                    (tssa_const_int(n->inputs[3], &end) && end == INT64_MAX);
    return absent_or_int(n, 2, 0) && end_open && absent_or_int(n, 4, 1);
}

/* The tensor n's result is, or NULL. */
static IrValue *same_tensor(const IrNode *n)
{
    const OpInfo *info = op_info(n->op);
    if (info->mutates >= 0 && info->alias == ALIAS_SELF && info->mutates < n->ninputs)
        return n->inputs[info->mutates];
    if ((n->op == OP_ATEN_ALIAS || n->op == OP_ATEN_DETACH || full_slice(n)) && n->ninputs >= 1)
        return n->inputs[0];
    return NULL;
}

static void forward_node(IrNode *n, void *ctx)
{
    size_t *count = ctx;
    IrValue *self = same_tensor(n);
    if (!self || n->noutputs < 1 || !n->outputs[0]->nuses)
        return;
    /* A refined result type ("Float(2, 3)") names the same tensor as a plain
     * one; users do not depend on the spelling. */
    ir_replace_all_uses(n->outputs[0], self);
    (*count)++;
}

size_t tssa_forward_aliases(IrGraph *g)
{
    size_t count = 0;
    ir_walk(g->top, forward_node, &count);
    return count;
}
