/* fresh_objects.c — objects of TorchScript classes created inside the
 * program, replaced by their attributes' values (ir_replace_fresh_objects).
 *
 * `b = BoxCoder((1., 2., 3., 4.))` followed by `b.decode(...)` inlines to
 *
 *   %b : __torch__.BoxCoder = prim::CreateObject()
 *    = prim::SetAttr[name="weights"](%b, %w)          (its inlined __init__)
 *    = prim::SetAttr[name="bbox_xform_clip"](%b, %c)
 *   ...
 *   %weights : (float, float, float, float) = prim::GetAttr[name="weights"](%b)
 *
 * Such an object is a record of values that never leaves the program: each
 * prim::GetAttr reads the value of the last prim::SetAttr of that name
 * before it. This pass makes that explicit (scalar replacement of an
 * aggregate): the GetAttr's uses take the SetAttr's value, and the
 * CreateObject, its SetAttrs and GetAttrs go. Afterwards no backend sees
 * the object, so every backend runs it and lowering treats the values as
 * any other.
 *
 * Precondition (checked per object; an object that fails it is left as it
 * is, and the interpreter refuses it at run time naming the class): every
 * use of the object is a prim::SetAttr on it (as the object, not as the
 * value) in the block that creates it, after the CreateObject, or a
 * prim::GetAttr on it anywhere below that block, preceded in that block by
 * a SetAttr of its name. So the reaching write of every read is known from
 * the node order alone. Objects that escape (returned, put in a list,
 * passed to prim::Enter as grad-mode scopes are) are never touched.
 *
 * prim::SetAttr on modules (self.x = ...) is not this pass's business: a
 * module is not created by the program.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/ir.h"
#include "tssa/util.h"

static const char *attr_name(const IrNode *n)
{
    const IrAttr *a = ir_attr_find(n, "name");
    return a && a->kind == ATTR_STR ? a->u.s : NULL;
}

/* The node in `block` that holds n (n itself, or the node whose blocks
 * contain n); NULL when n is not inside block. */
static const IrNode *ancestor_in(const IrNode *n, const IrBlock *block)
{
    while (n && n->owner != block)
        n = n->owner ? n->owner->owner : NULL;
    return n;
}

/* The SetAttr of `name` on the object that a read at `at` (a node of the
 * object's block) sees: the last one before it. */
static const IrNode *reaching_write(IrNode *const *writes, int nwrites, const char *name,
                                    const IrNode *at)
{
    const IrNode *found = NULL;
    for (int i = 0; i < nwrites; i++)
        if (strcmp(attr_name(writes[i]), name) == 0 && ir_node_is_before(writes[i], at) &&
            (!found || ir_node_is_before(found, writes[i])))
            found = writes[i];
    return found;
}

/* Replaces one object when it meets the precondition; true if it did. */
static bool replace_object(IrNode *create)
{
    IrValue *obj = create->outputs[0];
    IrBlock *home = create->owner;
    int nuses = obj->nuses;
    IrNode **writes = xcalloc((size_t)nuses + 1, sizeof *writes);
    IrNode **reads = xcalloc((size_t)nuses + 1, sizeof *reads);
    const IrNode **sources = xcalloc((size_t)nuses + 1, sizeof *sources);
    int nwrites = 0, nreads = 0;
    bool ok = true;
    for (int i = 0; i < nuses && ok; i++) {
        IrNode *user = obj->uses[i].user;
        bool named = attr_name(user) != NULL;
        if (user->op == OP_PRIM_SETATTR && obj->uses[i].index == 0 && user->ninputs == 2 && named &&
            user->owner == home && ir_node_is_before(create, user))
            writes[nwrites++] = user;
        else if (user->op == OP_PRIM_GETATTR && user->ninputs == 1 && user->noutputs == 1 && named &&
                 ancestor_in(user, home))
            reads[nreads++] = user;
        else
            ok = false;
    }
    for (int i = 0; i < nreads && ok; i++) {
        sources[i] = reaching_write(writes, nwrites, attr_name(reads[i]), ancestor_in(reads[i], home));
        ok = sources[i] != NULL;
    }
    if (ok) {
        for (int i = 0; i < nreads; i++) {
            ir_replace_all_uses(reads[i]->outputs[0], sources[i]->inputs[1]);
            ir_node_destroy(reads[i]);
        }
        for (int i = 0; i < nwrites; i++)
            ir_node_destroy(writes[i]);
        ir_node_destroy(create);
    }
    free(writes);
    free(reads);
    free(sources);
    return ok;
}

typedef struct Creates {
    IrNode **nodes;
    int n, cap;
} Creates;

static void collect_create(IrNode *n, void *ctx)
{
    Creates *c = ctx;
    if (n->op != OP_PRIM_CREATEOBJECT || n->noutputs != 1 || n->ninputs != 0 ||
        n->outputs[0]->type->kind != TY_CLASS)
        return;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->nodes = xrealloc(c->nodes, (size_t)c->cap * sizeof *c->nodes);
    }
    c->nodes[c->n++] = n;
}

/* An object held by another (`self.inner = Inner(3)` in an inlined
 * __init__) is a SetAttr's value until its holder is replaced, so the walk
 * repeats until a round replaces nothing: each round removes at least one
 * CreateObject, so it ends. */
int ir_replace_fresh_objects(IrGraph *g)
{
    int replaced = 0;
    for (int round = -1; round != 0;) {
        Creates c = {0};
        ir_walk(g->top, collect_create, &c);
        round = 0;
        for (int i = 0; i < c.n; i++)
            round += replace_object(c.nodes[i]);
        free(c.nodes);
        replaced += round;
    }
    return replaced;
}
