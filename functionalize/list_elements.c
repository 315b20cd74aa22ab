/* list_elements.c — which in-place writes through an element of a tensor
 * list TensorSSA may take out of the program (issue 30: "TensorSSA follows
 * tensors through lists").
 *
 * A write through y = aten::__getitem__(l, i) (or through a view of y)
 * becomes, as every write does, a new version y' of y; the list slot is
 * one more alias of y, so rewrite_mutation.c writes the new version back
 * with aten::_set_item(l, i, y') right after the write, and list_versions.c
 * makes that set a new version of the list like any other. In the program
 * as written that set is a no-op (the slot already holds y), which is why
 * the rewrite is exact once every other name of y's object is accounted
 * for. This file decides when it is; alias.c asks it for each such write
 * and keeps the write imperative with the answer as its reason otherwise.
 *
 * Lists are Tensor[] values joined into classes (one list object under
 * several names): the result of append/_set_item is its input, and a loop's
 * initial value, body parameter, body result and result, and an If's
 * result and its blocks' results are joined. A write through y = l[i] at m
 * is rewritten only when
 *
 *  1. Closed. Every name of l's class is made by prim::ListConstruct, by
 *     control flow from names of the class, by append/_set_item, or is
 *     prim::Uninitialized; and every use of a name reads it in a known way:
 *     __getitem__, ListUnpack, len, append/_set_item/insert on it, pop (its
 *     item leaves the list: alias.c takes it as a tensor out of a
 *     container), remove, del, reverse or clear on it, a known op that
 *     makes a new tensor from it (cat, stack), a merge into another name of
 *     the class, or the graph's result. Nothing copies its elements into
 *     another container (list(l), l + r, l[a:b], l2.extend(l)), and nothing
 *     can reach the list under a name outside the class.
 *  2. Owned elements. Every tensor put into the class (an element of the
 *     ListConstruct, the value appended or set) is a fresh allocation, put
 *     there whole (not a view), stored into a container nowhere else and
 *     once only: not twice in one ListConstruct, and not in a loop that
 *     does not make it anew each iteration. So every slot of the list
 *     holds its own object. A set that stores back what it just read from
 *     the same slot (`l[i] += v` is __getitem__, add_, _set_item) stores
 *     nothing new and is not counted; nor is an insert or append of an
 *     item popped from the class whose only use it is (`ts.insert(0,
 *     ts.pop())`): the object moves and is still in one slot.
 *     Where the class fails this only for other slots (a graph input kept
 *     beside fresh tensors, `ts = [x, x * 2]`), a write through l[k] is
 *     still taken when the slot is known (slot_known_owned): l is the
 *     ListConstruct, k a constant, only appends run before the read, so
 *     the slot holds the construct's input k, which passes this rule, and
 *     no other store of the class can be that tensor (each is another
 *     allocation, a graph input or attribute, or a move).
 *  3. Stable slot. No write of the class (append, _set_item, insert, pop,
 *     remove, del, reverse, clear) may run between the read of y and the write (with the loops around the write that do not
 *     make y counted whole): i must name y's slot at the write. An append
 *     cannot move a slot whose index is a non-negative constant or a loop's
 *     iteration count.
 *
 * Two tensors provably differ when the element's list is owned and the
 * other is a fresh tensor not put into that list, or a tensor read out of
 * another container (tssa_list_elements_distinct): the element's tensor
 * leaves its list only through __getitem__ or ListUnpack of a name of the
 * class, and alias.c keeps the write imperative when any such name (or one
 * control flow, a reshape or an unknown op joins to it) is stored in a
 * container. alias.c's one class of everything kept in containers then
 * need not make their writes wait for each other.
 *
 * alias.c adds the rest: y itself is not stored elsewhere nor passed to an
 * unknown op; every other tensor of y's may-alias class that is stored in
 * a container, unless provably not y's (above), is an owned element (rule
 * 2), a graph input, a module attribute or a fresh tensor (none of which
 * is y's), or is stored only after the write (it then stores the new
 * version); and no other name that may alias y (the stored value, a loop
 * result carrying it, another element read before the write) is read
 * after the write.
 *
 * Cost: linear in nodes and uses of lists, plus per write the writes of its
 * list's class.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

typedef struct Store {
    IrNode *node;           /* the ListConstruct, append or _set_item */
    IrValue *value;         /* the tensor put in */
} Store;

struct TssaListElements {
    TssaAlias *a;
    uint32_t nvalues;
    int *parent;            /* by value id: union-find over Tensor[] values, -1 for others */
    const char **reason;    /* by class representative: why the class is not closed (rule 1) */
    const char **unowned;   /* by class representative: why rule 2 fails, once settled */
    bool *settled;          /* by class representative: rule 2 checked */
    IrValue **names;        /* every Tensor[] value */
    size_t nnames, cap_names;
    IrNode **writes;        /* append and _set_item nodes on Tensor[] values */
    size_t nwrites, cap_writes;
    Store *stores;
    size_t nstores, cap_stores;
};

static int find(TssaListElements *le, int v)
{
    while (le->parent[v] != v) {
        le->parent[v] = le->parent[le->parent[v]];
        v = le->parent[v];
    }
    return v;
}

static int class_of(TssaListElements *le, const IrValue *v)
{
    if (v->id >= le->nvalues || le->parent[v->id] < 0)
        return -1;
    return find(le, (int)v->id);
}

static void join(TssaListElements *le, const IrValue *x, const IrValue *y)
{
    int a = class_of(le, x), b = class_of(le, y);
    if (a < 0 || b < 0 || a == b)
        return;
    le->parent[b] = a;
    if (!le->reason[a])
        le->reason[a] = le->reason[b];     /* a reason found before the join stays */
}

static void not_closed(TssaListElements *le, const IrValue *v, const char *why)
{
    int c = class_of(le, v);
    if (c >= 0 && !le->reason[c])
        le->reason[c] = why;
}

/* ---------------------------------------------------------------- names and classes */

static void add_name(TssaListElements *le, IrValue *v)
{
    if (!tssa_is_tensor_list(v) || v->id >= le->nvalues)
        return;
    le->parent[v->id] = (int)v->id;
    if (le->nnames == le->cap_names) {
        le->cap_names = le->cap_names ? le->cap_names * 2 : 32;
        le->names = xrealloc(le->names, sizeof *le->names * le->cap_names);
    }
    le->names[le->nnames++] = v;
}

static void collect_names(TssaListElements *le, IrBlock *b)
{
    for (int i = 0; i < ir_block_nparams(b); i++)
        add_name(le, ir_block_param(b, i));
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            collect_names(le, n->blocks[i]);
        for (int i = 0; i < n->noutputs; i++)
            add_name(le, n->outputs[i]);
    }
}

/* Joins the names control flow merges, and says which names come from
 * where the class cannot follow. */
static void classify_defs(TssaListElements *le, IrBlock *b)
{
    IrGraph *g = le->a->g;
    IrNode *owner = b->owner;
    for (int i = 0; i < ir_block_nparams(b); i++) {
        IrValue *v = ir_block_param(b, i);
        if (class_of(le, v) < 0)
            continue;
        if (!owner)
            not_closed(le, v, ir_internf(g, "%%%s is a graph input", v->name));
        else if (owner->op != OP_PRIM_LOOP || i == 0)
            not_closed(le, v, ir_internf(g, "%%%s is a parameter of a %s block", v->name, owner->kind));
    }
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            classify_defs(le, n->blocks[i]);
        if (n->op == OP_PRIM_IF) {
            for (int i = 0; i < n->noutputs; i++)
                for (int k = 0; k < n->nblocks; k++)
                    if (i < ir_block_nreturns(n->blocks[k]))
                        join(le, n->outputs[i], ir_block_return(n->blocks[k], i));
        } else if (n->op == OP_PRIM_LOOP && n->nblocks == 1) {
            IrBlock *body = n->blocks[0];
            for (int j = 0; j < n->noutputs; j++) {
                IrValue *o = n->outputs[j];
                if (2 + j < n->ninputs)
                    join(le, o, n->inputs[2 + j]);
                if (1 + j < ir_block_nparams(body))
                    join(le, o, ir_block_param(body, 1 + j));
                if (1 + j < ir_block_nreturns(body))
                    join(le, o, ir_block_return(body, 1 + j));
            }
        }
        for (int i = 0; i < n->noutputs; i++) {
            IrValue *v = n->outputs[i];
            if (class_of(le, v) < 0)
                continue;
            if ((n->op == OP_ATEN_APPEND || n->op == OP_ATEN_SET_ITEM) && i == 0)
                join(le, v, n->inputs[0]);
            else if (n->op != OP_PRIM_LISTCONSTRUCT && n->op != OP_PRIM_IF &&
                     n->op != OP_PRIM_LOOP && n->op != OP_PRIM_UNINITIALIZED)
                not_closed(le, v, ir_internf(g, "%%%s comes from %s, which may hold tensors named elsewhere",
                                      v->name, n->kind));
        }
    }
}

static void push_write(TssaListElements *le, IrNode *n)
{
    if (le->nwrites == le->cap_writes) {
        le->cap_writes = le->cap_writes ? le->cap_writes * 2 : 16;
        le->writes = xrealloc(le->writes, sizeof *le->writes * le->cap_writes);
    }
    le->writes[le->nwrites++] = n;
}

static void push_store(TssaListElements *le, IrNode *n, IrValue *v)
{
    if (le->nstores == le->cap_stores) {
        le->cap_stores = le->cap_stores ? le->cap_stores * 2 : 16;
        le->stores = xrealloc(le->stores, sizeof *le->stores * le->cap_stores);
    }
    le->stores[le->nstores++] = (Store){n, v};
}

/* Reads the list's elements into a new tensor (cat, stack, ...), or only
 * other operands of an in-place op: nothing keeps an element. */
static bool only_reads(const IrNode *user, int index)
{
    const OpInfo *info = op_info(user->op);
    if (user->op == OP_UNKNOWN || op_info(user->op)->cls == OPC_STRUCTURE)
        return false;
    if (info->mutates >= 0 ? index == info->mutates : info->alias != ALIAS_NONE)
        return false;
    for (int i = 0; i < user->noutputs; i++)
        if (tssa_is_container_value(user->outputs[i]))
            return false;
    return true;
}

static void classify_uses(TssaListElements *le)
{
    IrGraph *g = le->a->g;
    for (size_t k = 0; k < le->nnames; k++) {
        IrValue *v = le->names[k];
        for (int u = 0; u < v->nuses; u++) {
            IrNode *user = v->uses[u].user;
            int index = v->uses[u].index;
            if (user->op == OP_PRIM_RETURN && !user->owner->owner)
                continue;                               /* the graph's result */
            if (user->op == OP_PRIM_RETURN || user->op == OP_PRIM_LOOP) {
                IrValue *to = tssa_merge_target(user, index);
                if (!to || class_of(le, to) < 0)
                    not_closed(le, v, ir_internf(g, "%%%s flows into a value that is not a tensor list",
                                          v->name));
                continue;
            }
            if ((user->op == OP_ATEN_GETITEM || user->op == OP_PRIM_LISTUNPACK ||
                 user->op == OP_ATEN_LEN) && index == 0)
                continue;
            if (user->op == OP_ATEN_APPEND && index == 0 && user->ninputs == 2) {
                push_write(le, user);
                push_store(le, user, user->inputs[1]);
                continue;
            }
            if ((user->op == OP_ATEN_SET_ITEM || user->op == OP_ATEN_INSERT) && index == 0 &&
                user->ninputs == 3) {
                push_write(le, user);
                push_store(le, user, user->inputs[2]);
                continue;
            }
            /* Writes that move or drop slots and store nothing: pop hands
             * its item out as __getitem__ does (alias.c takes it as a
             * tensor out of a container). */
            if (index == 0 && ((user->op == OP_ATEN_POP && user->ninputs <= 2) ||
                               ((user->op == OP_ATEN_REMOVE || user->op == OP_ATEN_DELETE) &&
                                user->ninputs == 2) ||
                               ((user->op == OP_ATEN_REVERSE || user->op == OP_ATEN_CLEAR) &&
                                user->ninputs == 1))) {
                push_write(le, user);
                continue;
            }
            if (user->op == OP_PRIM_LISTCONSTRUCT || user->op == OP_PRIM_TUPLECONSTRUCT ||
                user->op == OP_PRIM_DICTCONSTRUCT || !only_reads(user, index))
                not_closed(le, v, ir_internf(g, "%%%s is used by %s, which may keep its elements", v->name,
                                      user->kind));
        }
    }
    /* The elements of the ListConstructs that make names of a class. */
    for (size_t k = 0; k < le->nnames; k++) {
        IrValue *v = le->names[k];
        if (v->def->op == OP_PRIM_LISTCONSTRUCT)
            for (int i = 0; i < v->def->ninputs; i++)
                push_store(le, v->def, v->def->inputs[i]);
    }
}

TssaListElements *tssa_list_elements_new(TssaAlias *a)
{
    TssaListElements *le = xcalloc(1, sizeof *le);
    le->a = a;
    le->nvalues = a->g->nvalues;
    size_t n = le->nvalues ? le->nvalues : 1;
    le->parent = xcalloc(n, sizeof *le->parent);
    for (uint32_t i = 0; i < le->nvalues; i++)
        le->parent[i] = -1;
    le->reason = xcalloc(n, sizeof *le->reason);
    le->unowned = xcalloc(n, sizeof *le->unowned);
    le->settled = xcalloc(n, sizeof *le->settled);
    collect_names(le, a->g->top);
    classify_defs(le, a->g->top);
    classify_uses(le);
    return le;
}

void tssa_list_elements_free(TssaListElements *le)
{
    if (!le)
        return;
    free(le->parent);
    free(le->reason);
    free(le->unowned);
    free(le->settled);
    free(le->names);
    free(le->writes);
    free(le->stores);
    free(le);
}

/* ---------------------------------------------------------------- slots */

/* The outermost loop around m that does not contain v's definition (its
 * next iteration comes back to m), or NULL. */
static const IrNode *loop_around(const TssaAlias *a, const IrValue *v, const IrNode *m)
{
    const IrNode *found = NULL;
    int64_t p = tssa_alias_pos(a, v->def);
    for (const IrBlock *b = m->owner; b && b->owner; b = b->owner->owner) {
        const IrNode *n = b->owner;
        if (n->op != OP_PRIM_LOOP)
            continue;
        if (p > tssa_alias_pos(a, n) && p <= tssa_alias_pos(a, n->blocks[n->nblocks - 1]->ret))
            break;      /* v is made anew in every iteration of n */
        found = n;
    }
    return found;
}

/* An index that is never negative: a constant >= 0 or a loop's count. */
static bool index_not_negative(const IrValue *i)
{
    int64_t k;
    if (tssa_const_int(i, &k))
        return k >= 0;
    const IrNode *d = i->def;
    return d->op == OP_PRIM_PARAM && d->outputs[0] == i && d->owner->owner &&
           d->owner->owner->op == OP_PRIM_LOOP;
}

/* Whether node w may run after `read` and before m, where y (read's
 * result) is still the value read: between them in program order, or in
 * a loop around m that does not make y. */
static bool may_run_between(const TssaAlias *a, const IrNode *w, const IrNode *read,
                            const IrNode *m)
{
    int64_t p = tssa_alias_pos(a, w);
    if (p > tssa_alias_pos(a, read) && p < tssa_alias_pos(a, m))
        return true;
    const IrNode *loop = loop_around(a, read->outputs[0], m);
    if (!loop)
        return false;
    int64_t lo = tssa_alias_pos(a, loop);
    /* The loop's last position: its body's return. */
    int64_t hi = tssa_alias_pos(a, loop->blocks[loop->nblocks - 1]->ret);
    return p > lo && p <= hi;
}

/* Rule 3: why the slot `read` took its element from may name another
 * tensor at m, or NULL. */
static const char *slot_moved(TssaListElements *le, const IrNode *read, const IrNode *m,
                              const IrNode *skip)
{
    TssaAlias *a = le->a;
    int c = class_of(le, read->inputs[0]);
    for (size_t k = 0; k < le->nwrites; k++) {
        IrNode *w = le->writes[k];
        if (w == skip || w->dead || class_of(le, w->inputs[0]) != c || !may_run_between(a, w, read, m))
            continue;
        if (w->op == OP_ATEN_APPEND && index_not_negative(read->inputs[1]))
            continue;
        return ir_internf(a->g, "%%%s is written by %s between the read of the element and "
                         "this write, so the index may name another slot",
                   read->inputs[0]->name, w->kind);
    }
    return NULL;
}

bool tssa_list_elements_self_store(TssaListElements *le, const IrNode *set)
{
    if (set->op != OP_ATEN_SET_ITEM || set->ninputs != 3 || class_of(le, set->inputs[0]) < 0)
        return false;
    const IrNode *read = set->inputs[2]->def;
    if (read->op != OP_ATEN_GETITEM || read->ninputs != 2 || read->inputs[0] != set->inputs[0] ||
        read->inputs[1] != set->inputs[1])
        return false;
    return !slot_moved(le, read, set, set);
}

/* The store puts back an item popped from a list of the same class, whose
 * only use it is (`ts.insert(0, ts.pop())`): the object moves between
 * slots and is still in one. */
static bool store_is_move(TssaListElements *le, const Store *s)
{
    const IrValue *v = s->value;
    const IrNode *pop = v->def;
    const IrValue *list = s->node->op == OP_PRIM_LISTCONSTRUCT ? NULL : s->node->inputs[0];
    return list && pop->op == OP_ATEN_POP && pop->ninputs >= 1 && v->nuses == 1 &&
           class_of(le, pop->inputs[0]) >= 0 && class_of(le, pop->inputs[0]) == class_of(le, list) &&
           tssa_alias_after_threshold(le->a, v, s->node) == tssa_alias_pos(le->a, s->node);
}

/* Rule 2 for one store: why it does not give its slot its own object. */
static const char *store_not_owned(TssaListElements *le, const Store *s)
{
    TssaAlias *a = le->a;
    IrGraph *g = a->g;
    const IrValue *v = s->value;
    if (store_is_move(le, s))
        return NULL;
    const TssaValueInfo *info = tssa_alias_info(a, v);
    if (!info)
        return ir_internf(g, "%%%s is put into the list but is not a tensor the analysis follows", v->name);
    const TssaRoot *root = &a->roots[info->root];
    if (root->kind != TSSA_ROOT_FRESH || root->value != v)
        return ir_internf(g, "%%%s is put into the list but is not a fresh tensor of its own (%s)", v->name,
                   root->kind == TSSA_ROOT_FRESH ? "a view" : "it may be another tensor");
    if (root->nstores != 1 || root->store != s->node)
        return ir_internf(g, "%%%s is put into a container more than once (the same tensor in two "
                      "slots or containers)", v->name);
    int count = 0;
    for (int i = 0; i < s->node->ninputs; i++)
        count += s->node->inputs[i] == v;
    if (count != 1)
        return ir_internf(g, "%%%s is put into one list twice", v->name);
    if (tssa_alias_after_threshold(a, v, s->node) != tssa_alias_pos(a, s->node))
        return ir_internf(g, "%%%s is put into the list in a loop that does not make it anew (the same "
                      "tensor in several slots)", v->name);
    for (int t = 0; t < root->ntree; t++) {
        const IrValue *w = root->tree[t];
        for (int u = 0; u < w->nuses; u++)
            if (w->uses[u].user->op == OP_UNKNOWN)
                return ir_internf(g, "%%%s is used by %s, which may keep it", w->name, w->uses[u].user->kind);
    }
    return NULL;
}

static const IrValue *store_list(const Store *s)
{
    return s->node->op == OP_PRIM_LISTCONSTRUCT ? s->node->outputs[0] : s->node->inputs[0];
}

/* Rules 1 and 2 for the class of list l: NULL when closed and owned. */
static const char *class_unowned(TssaListElements *le, const IrValue *l)
{
    int c = class_of(le, l);
    if (c < 0)
        return ir_internf(le->a->g, "%%%s is not a list of tensors", l->name);
    if (le->reason[c])
        return le->reason[c];
    if (!le->settled[c]) {
        le->settled[c] = true;
        for (size_t k = 0; !le->unowned[c] && k < le->nstores; k++) {
            const Store *s = &le->stores[k];
            if (class_of(le, store_list(s)) != c || tssa_list_elements_self_store(le, s->node))
                continue;
            le->unowned[c] = store_not_owned(le, s);
        }
    }
    return le->unowned[c];
}

/* Rule 2 for one slot, where the class as a whole fails it (a graph input
 * kept beside fresh tensors: `ts = [x, x * 2]`): the element read is
 * l[k], l a prim::ListConstruct, k a constant below its length, and only
 * appends of the class (which leave slot k alone) may run before the read,
 * which no loop around it repeats without making l anew; so the slot holds
 * the construct's input k. That tensor must pass rule 2 (a fresh one of
 * its own, stored once), and every other store of the class must be a
 * tensor that cannot be it: another allocation, a graph input or module
 * attribute, or an item moved back from a pop (store_is_move). */
static bool slot_known_owned(TssaListElements *le, const IrNode *read)
{
    TssaAlias *a = le->a;
    const IrValue *l = read->inputs[0];
    const IrNode *construct = l->def;
    int64_t k;
    if (construct->op != OP_PRIM_LISTCONSTRUCT || read->ninputs != 2 ||
        !tssa_const_int(read->inputs[1], &k) || k < 0 || k >= construct->ninputs ||
        loop_around(a, l, read))
        return false;
    int c = class_of(le, l);
    int64_t p = tssa_alias_pos(a, read);
    for (size_t i = 0; i < le->nwrites; i++) {
        const IrNode *w = le->writes[i];
        if (!w->dead && class_of(le, w->inputs[0]) == c && w->op != OP_ATEN_APPEND &&
            tssa_alias_pos(a, w) < p)
            return false;
    }
    Store slot = {(IrNode *)construct, construct->inputs[k]};
    if (store_not_owned(le, &slot))
        return false;
    for (size_t i = 0; i < le->nstores; i++) {
        const Store *s = &le->stores[i];
        if (class_of(le, store_list(s)) != c || (s->node == construct && s->value == slot.value) ||
            store_is_move(le, s))
            continue;
        const TssaValueInfo *info = tssa_alias_info(a, s->value);
        TssaRootKind kind = info ? a->roots[info->root].kind : TSSA_ROOT_OPAQUE;
        if (kind != TSSA_ROOT_FRESH && kind != TSSA_ROOT_INPUT && kind != TSSA_ROOT_ATTRIBUTE)
            return false;
    }
    return true;
}

bool tssa_list_elements_stored_later(TssaListElements *le, const TssaRoot *root,
                                     const IrValue *element, const IrNode *m)
{
    const TssaAlias *a = le->a;
    if (root->nstores != 1 || !root->store)
        return false;
    int64_t p = tssa_alias_pos(a, root->store);
    if (p <= tssa_alias_pos(a, m))
        return false;
    const IrNode *loop = loop_around(a, element, m);
    return !loop || p > tssa_alias_pos(a, loop->blocks[loop->nblocks - 1]->ret);
}

static const IrValue *stored_into(const IrNode *store);

bool tssa_list_elements_owned_store(TssaListElements *le, const TssaRoot *root)
{
    const IrValue *list = stored_into(root->store);
    return list && class_of(le, list) >= 0 && !class_unowned(le, list);
}

/* The list a store put its tensor into, or NULL. */
static const IrValue *stored_into(const IrNode *store)
{
    if (!store)
        return NULL;
    if (store->op == OP_PRIM_LISTCONSTRUCT)
        return store->outputs[0];
    if ((store->op == OP_ATEN_APPEND || store->op == OP_ATEN_SET_ITEM || store->op == OP_ATEN_INSERT) &&
        store->ninputs >= 1)
        return store->inputs[0];
    return NULL;
}

bool tssa_list_elements_distinct(TssaListElements *le, const TssaRoot *element, const TssaRoot *other)
{
    const IrNode *read = element->slot;
    if (!read || class_unowned(le, read->inputs[0]))
        return false;
    int c = class_of(le, read->inputs[0]);
    /* element's tensor is a fresh one whose only store put it into c. */
    if (other->kind == TSSA_ROOT_FRESH) {
        const IrValue *list = stored_into(other->store);
        return !list || class_of(le, list) != c;
    }
    /* A tensor read out of another container: the element's tensor gets
     * into one only under a name alias.c sees stored (and then keeps the
     * write), since no name of c's class is stored or copied anywhere. */
    if (other->kind == TSSA_ROOT_CONTAINER) {
        const IrNode *from = other->value->def;
        return from->ninputs >= 1 && class_of(le, from->inputs[0]) != c;
    }
    return false;
}

const char *tssa_list_elements_unsafe(TssaListElements *le, const TssaRoot *root, const IrNode *m)
{
    const IrNode *read = root->slot;
    if (!read)
        return NULL;
    const char *why = class_unowned(le, read->inputs[0]);
    int c = class_of(le, read->inputs[0]);
    if (why && (c < 0 || le->reason[c] || !slot_known_owned(le, read)))
        return why;
    return slot_moved(le, read, m, NULL);
}
