/* metadata_inplace.c — in-place ops that change a tensor's shape, not its
 * data, become views (run first in prepare, before forward_aliases).
 *
 *   %r = aten::squeeze_(%x, %d)        x itself takes squeeze's layout
 * becomes
 *   %y = aten::squeeze(%x, %d)         a view of x's storage
 * and every later use of x, and every use of r, reads %y. These are the
 * metadata in-place ops (op_inplace_is_metadata: squeeze_, unsqueeze_, t_,
 * transpose_, as_strided_, detach_): their functional variant is a view,
 * so the data is untouched and an alias of x made before the op keeps its
 * own shape, which is what reading %y afterwards and x's old views before
 * gives. Later writes through %y reach x's storage as writes through any
 * view do (alias analysis sees %y as a view of x).
 *
 * The names that denote the tensor object x: x, the in-place results that
 * are x (add_ returns self), unchecked_cast and prim::data of it. All of
 * them read %y after the op. This must run before forward_aliases, which
 * would make %d = aten::detach(%x) (another tensor object, which keeps its
 * shape) read %x.
 *
 * Renaming is exact only when every later read of x is dominated by the op.
 * The op stays (and alias analysis keeps x's storage imperative, the
 * evaluator changing x's layout in place) when it is not: inside a loop
 * body that does not define x (the next iteration would see the new shape),
 * with x read after the end of the If or loop that holds the op, with x
 * stored in a list, tuple, dict or attribute, taken from one, or merged by
 * control flow, or passed before the op to an op the table does not list.
 *
 * Linear in the uses of the names of x, per op.
 */
#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

enum { MAX_NAMES = 64 };

/* Whether n's result is its input 0 itself, the same tensor object. */
static bool is_same_object(const IrNode *n)
{
    const OpInfo *info = op_info(n->op);
    return info->alias == ALIAS_SELF && n->ninputs > 0 && n->noutputs == 1 &&
           (info->mutates == 0 || n->op == OP_PRIM_UNCHECKED_CAST || n->op == OP_PRIM_DATA);
}

/* Whether user sits in block b, directly or inside a node of b. */
static bool within(const IrNode *user, const IrBlock *b)
{
    for (const IrBlock *ub = user->owner; ub; ub = ub->owner ? ub->owner->owner : NULL)
        if (ub == b)
            return true;
    return false;
}

/* Whether a use by `user` may make x reachable under another name that is
 * not a plain result of an op on x. */
static bool stores_or_escapes(const IrNode *user)
{
    switch (user->op) {
    case OP_PRIM_LISTCONSTRUCT: case OP_PRIM_TUPLECONSTRUCT: case OP_PRIM_DICTCONSTRUCT:
    case OP_ATEN_APPEND: case OP_ATEN_SET_ITEM: case OP_ATEN_INSERT: case OP_ATEN_EXTEND:
    case OP_PRIM_SETATTR: case OP_ATEN_SETDEFAULT: case OP_UNKNOWN:
        return true;
    default:
        return false;
    }
}

/* The names of the tensor object x is (x first after the root), or -1 when
 * they cannot all be known. */
static int object_names(IrValue *x, IrValue **names)
{
    IrValue *root = x;
    while (root->def && root->def->op != OP_PRIM_PARAM && is_same_object(root->def))
        root = root->def->inputs[0];
    const IrNode *def = root->def;
    if (def && def->op != OP_PRIM_PARAM) {
        switch (def->op) {
        case OP_PRIM_GETATTR: case OP_PRIM_LISTUNPACK: case OP_PRIM_TUPLEUNPACK:
        case OP_PRIM_TUPLEINDEX: case OP_ATEN_GETITEM: case OP_PRIM_IF: case OP_PRIM_LOOP:
        case OP_UNKNOWN:
            return -1;
        default:
            break;
        }
    } else if (def && def->owner && def->owner->owner) {
        return -1;  /* a block parameter: a loop-carried or merged value */
    }
    int n = 0;
    names[n++] = root;
    for (int i = 0; i < n; i++)
        for (int u = 0; u < names[i]->nuses; u++) {
            IrNode *user = names[i]->uses[u].user;
            if (names[i]->uses[u].index == 0 && is_same_object(user)) {
                if (n == MAX_NAMES)
                    return -1;
                names[n++] = user->outputs[0];
            }
        }
    return n;
}

/* Why renaming x's later reads to the view would not be exact (see the
 * header), or NULL when it is. */
static const char *not_renamable(IrNode *op, IrValue *const *names, int nnames)
{
    const IrBlock *home = names[0]->def ? names[0]->def->owner : NULL;
    for (const IrBlock *b = op->owner; b && b != home && b->owner; b = b->owner->owner)
        if (b->owner->op == OP_PRIM_LOOP)
            return "the shape changes in a loop body, again each iteration";
    for (int i = 0; i < nnames; i++)
        for (int u = 0; u < names[i]->nuses; u++) {
            IrNode *user = names[i]->uses[u].user;
            if (user == op)
                continue;
            bool later = ir_node_is_before(op, user);
            if (later && !within(user, op->owner))
                return "the tensor is read after the block that changes its shape";
            /* stored, carried into a loop or returned from a block before
             * the op: another name of x that the op must change too (a
             * later store keeps the view, which is right) */
            if (!later && (stores_or_escapes(user) || user->op == OP_PRIM_LOOP || user->op == OP_PRIM_RETURN))
                return "the tensor is stored, carried or returned under another name before its shape changes";
        }
    return NULL;
}

static void rewrite(IrGraph *g, IrNode *op, IrValue *const *names, int nnames)
{
    OpId view = op_functional_variant(op->op);
    /* plain Tensor: a declared type of the in-place result may carry self's old sizes */
    IrValue *y = tssa_emit_node(g, op, view, op->inputs, op->ninputs, NULL, NULL);
    y->def->comment = op->comment;
    y->def->line = op->line;
    y->def->col = op->col;
    for (int i = 0; i < nnames; i++)
        if (names[i] != op->outputs[0])
            ir_replace_uses_after(names[i], y, op);
    ir_replace_all_uses(op->outputs[0], y);
    ir_node_destroy(op);
}

static size_t rewrite_block(IrGraph *g, IrBlock *b)
{
    size_t n = 0;
    for (IrNode *node = ir_block_first(b), *next; node->op != OP_PRIM_RETURN; node = next) {
        next = node->next;
        for (int i = 0; i < node->nblocks; i++)
            n += rewrite_block(g, node->blocks[i]);
        if (!op_inplace_is_metadata(node->op) || node->ninputs < 1 || node->noutputs != 1 ||
            !tssa_is_tensor_value(node->inputs[0]))
            continue;
        IrValue *names[MAX_NAMES];
        int nnames = object_names(node->inputs[0], names);
        const char *why = nnames < 0 ? "the tensor comes from a container, a merge or an unknown op"
                                     : not_renamable(node, names, nnames);
        if (why) {
            tssa_note_imperative(node, why);
            continue;
        }
        rewrite(g, node, names, nnames);
        n++;
    }
    return n;
}

size_t tssa_metadata_inplace_to_views(IrGraph *g)
{
    return rewrite_block(g, g->top);
}
