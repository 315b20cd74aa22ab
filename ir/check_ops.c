/* check_ops.c — the graph against the op table (ir_check_ops, see ir.h).
 *
 * The parser accepts any namespace::name as a node kind, so that any graph
 * TorchScript prints can be read and printed back. Everything after that
 * needs to know what each op means, so before any stage works on a graph
 * the driver checks it here: an op the table does not list is the user's
 * error (exit 2), found at once rather than when the run reaches it, and a
 * result declared with a type the op cannot produce is a graph that lies.
 *
 * Code that can never run is not checked: the branch of a prim::If whose
 * condition is a constant and selects the other branch. TorchScript's
 * inliner leaves such branches behind (F.max_pool2d keeps the
 * return_indices=True path, aten::max_pool2d_with_indices, under a constant
 * False), and an op there cannot fail a run.
 *
 * The type check is deliberately one-sided: only ops that make nothing but
 * tensors are checked (op_returns_tensors_only), and only that their
 * results are tensor-like. Ops that double as Python builtins on numbers,
 * lists and strings are not, since their result type depends on the
 * overload, which the op table does not record.
 */
#include "tssa/diag.h"
#include "tssa/ir.h"

typedef struct OpCheck {
    const IrGraph *g;
    FILE *err;
    bool ok;
} OpCheck;

/* A Tensor, or an Optional, list or tuple of tensor-like types, or Any. */
static bool tensor_like(const IrType *t)
{
    switch (t->kind) {
    case TY_TENSOR:
    case TY_ANY:
        return true;
    case TY_OPTIONAL:
    case TY_LIST:
    case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (!tensor_like(t->elems[i]))
                return false;
        return true;
    default:
        return false;
    }
}

static void check_block(OpCheck *c, IrBlock *b);

/* The block of an If that a constant condition rules out, or -1. */
static int dead_branch(const IrNode *n)
{
    if (n->op != OP_PRIM_IF || n->ninputs != 1 || n->nblocks != 2)
        return -1;
    const IrNode *def = n->inputs[0]->def;
    const IrAttr *value = def && def->op == OP_PRIM_CONSTANT ? ir_attr_find(def, "value") : NULL;
    if (!value || value->kind != ATTR_INT)
        return -1;
    return value->u.i ? 1 : 0;
}

static void check_node(OpCheck *c, IrNode *n)
{
    DiagSource src = {.file = c->g->file ? c->g->file : "<graph>"};
    if (n->op == OP_UNKNOWN) {
        diag_error_line(c->err, &src, n->line, n->col,
                        "unknown op '%s': the op table does not list it, so it cannot be "
                        "compiled or run", n->kind);
        c->ok = false;
        return;
    }
    if (!op_returns_tensors_only(n->op))
        return;
    for (int i = 0; i < n->noutputs; i++) {
        const IrType *t = n->outputs[i]->type;
        if (t && !tensor_like(t)) {
            TextBuf text = {0};
            ir_type_format(&text, t);
            diag_error_line(c->err, &src, n->line, n->col,
                            "%s returns tensors, but its result %%%s is declared %s", n->kind,
                            n->outputs[i]->name, textbuf_cstr(&text));
            textbuf_release(&text);
            c->ok = false;
        }
    }
}

static void check_block(OpCheck *c, IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        check_node(c, n);
        int dead = dead_branch(n);
        for (int i = 0; i < n->nblocks; i++)
            if (i != dead)
                check_block(c, n->blocks[i]);
    }
}

bool ir_check_ops(const IrGraph *g, FILE *err)
{
    OpCheck c = {.g = g, .err = err, .ok = true};
    check_block(&c, g->top);
    return c.ok;
}
