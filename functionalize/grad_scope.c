/* grad_scope.c — dropping grad-mode scopes before alias analysis.
 *
 * Precondition: none. Result: every `with torch.no_grad():` scope (a
 * prim::CreateObject of a grad-mode class, its prim::SetAttr bookkeeping,
 * prim::Enter and prim::Exit) is gone, unless one of those nodes' results is
 * used (then the scope stays and the interpreter runs it as a no-op). A
 * forward-only program means the same without them (eval/grad_scope.c), and
 * without them SetAttr no longer looks like a module attribute being
 * reassigned to the passes that follow. Returns the nodes removed.
 */
#include "functionalize/functionalize_private.h"
#include "tssa/eval.h"
#include "tssa/ir.h"

static bool outputs_unused(const IrNode *n)
{
    for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i]->nuses > 0)
            return false;
    return true;
}

static bool scope_removable(const IrNode *create)
{
    const IrValue *scope = create->outputs[0];
    for (int i = 0; i < scope->nuses; i++) {
        const IrNode *u = scope->uses[i].user;
        if ((u->op != OP_PRIM_SETATTR && u->op != OP_PRIM_ENTER && u->op != OP_PRIM_EXIT) ||
            scope->uses[i].index != 0 || !outputs_unused(u))
            return false;
    }
    return true;
}

static size_t drop_in_block(IrBlock *b)
{
    size_t removed = 0;
    for (IrNode *n = ir_block_first(b), *next; n != b->ret; n = next) {
        next = n->next;
        for (int i = 0; i < n->nblocks; i++)
            removed += drop_in_block(n->blocks[i]);
        if (n->op != OP_PRIM_CREATEOBJECT || n->noutputs != 1 ||
            !eval_is_grad_mode_class(n->outputs[0]->type) || !scope_removable(n))
            continue;
        IrValue *scope = n->outputs[0];
        while (scope->nuses > 0) {
            IrNode *u = scope->uses[0].user;
            if (u == next)
                next = u->next;
            ir_node_destroy(u);
            removed++;
        }
        ir_node_destroy(n);
        removed++;
    }
    return removed;
}

size_t tssa_drop_grad_scopes(IrGraph *g)
{
    return drop_in_block(g->top);
}
