/* list_versions.c — TensorSSA for lists and dicts: an in-place list or
 * dict operation on a container nothing else can observe becomes a new
 * version of it, announced with tssa::update exactly as a tensor write is.
 *
 *   aten::append(L, v)          L' = aten::add(L, prim::ListConstruct(v))
 *   aten::add_(L, R)  (L += R)  L' = aten::add(L, R)
 *   aten::extend(L, R)          L' = aten::add(L, R)
 *   aten::_set_item(L, i, v)    L' = immut::list_set_item(L, i, v)
 *   aten::insert(L, i, v)       L' = immut::list_insert(L, i, v)
 *   x = aten::pop(L[, i])       L', x = immut::list_pop(L, i)  (i = -1 if not given)
 *   aten::remove(L, v)          L' = immut::list_remove(L, v)
 *   aten::reverse(L)            L' = aten::slice(L, None, None, -1)
 *   aten::clear(L)              L' = prim::ListConstruct()
 *   aten::Delete(L, i)          L' = immut::list_delete(L, i)  (del l[i])
 *   aten::mul_(L, n)  (L *= n)  L' = aten::mul(L, n)
 *   aten::sort(L[, reverse])    L' = immut::list_sort(L[, reverse])  (list.sort())
 *   aten::_set_item(D, k, v)    D' = immut::dict_set_item(D, k, v)
 *   x = aten::pop(D, k[, d])    D', x = immut::dict_pop(D, k[, d])
 *   x = aten::setdefault(D, k, d)   D' = immut::dict_setdefault(D, k, d);
 *                                   x = aten::__getitem__(D', k)
 *   aten::update(D, E)          D' = immut::dict_update(D, E)
 *   aten::clear(D)              D' = prim::DictConstruct()
 *   aten::Delete(D, k)          D', _ = immut::dict_pop(D, k)  (del d[k])
 *   x = aten::popitem(D)        D', x = immut::dict_popitem(D)
 *
 * (Below, "list" reads "list or dict": the rules are the same.) A write
 * that also returns a value gets it from the same node (pop and popitem:
 * a second output, so the errors are the op's own, "pop from empty list",
 * KeyError, at the op's place, and the old version has one reader, which
 * lets the evaluator pop from it in place) or from a pure read of the new
 * version (setdefault). Each immut:: op raises exactly what its in-place op
 * raises (eval/scalar_ops.c, ops_dict.c, ops_reduce.c share the code).
 *
 * Each is followed by tssa::update(L', L); the op's own result (append,
 * add_, mul_ and _set_item return L) is read as L. Block propagation,
 * renaming and marker removal then thread the versions through prim::If
 * and prim::Loop as they do for tensors, so a list appended to in a loop
 * becomes a loop-carried value. aten::add, aten::mul, ListConstruct,
 * slicing and the immut:: list and dict ops make new lists, and a new
 * version holds the same element objects as the old one, as Python's list
 * copies do: elements keep their identity.
 *
 * Names of one list. The result of append, add_ and _set_item is another
 * name of its input (an identity name). Every other list value is a root;
 * roots that may be the same object are joined into classes: a prim::Loop's
 * initial value, body parameter, body result and result, and a prim::If's
 * result and its blocks' results. A class is rewritten only when all of
 * the following hold; otherwise its in-place ops stay and each carries the
 * reason in its comment (tssa: kept imperative: ...).
 *
 *  1. Fresh. The root written, and every root whose list may flow into it
 *     through merges (an If's result from its blocks' results, a loop's
 *     body parameter and result from its initial and carried values), is a
 *     merge or is made by an op that
 *     returns a new list: ListConstruct, DictConstruct, aten::list, list + list, list * n,
 *     slicing, the split/chunk/unbind family (a new list of views is still
 *     a new list), aten::size, a dict's keys/values/items, and
 *     prim::Uninitialized (what a branch that raises gives a variable it
 *     never set: never read), and a module attribute the graph reads once
 *     (module_state.c leaves one read of each list or dict attribute, and
 *     a run's copy of it is its own), and a new version this pass made
 *     (the immut:: ops' first output). Not a graph input, a module
 *     attribute read more than once, a list taken out of a container
 *     (__getitem__, ListUnpack, TupleUnpack, dict get, pop...), or the
 *     result of any other op, which may be an existing list. Such a root
 *     in the class elsewhere (a cached list in one branch, a list built in
 *     the other, as torchvision's anchor cache has it) does not stop a
 *     write to a root it cannot flow into: that list is made here and, by
 *     3 and 5, nothing else names it yet.
 *  2. Rewritable. Every in-place op on the class is one of the table
 *     above (an unknown op, or an overload with other operands, keeps it
 *     imperative), and no write is inside a block of a node other than If
 *     and Loop (propagation only knows those).
 *  3. No hidden names. No name of the class is used by an unknown op,
 *     and none is given a name this pass does not follow (by
 *     prim::unchecked_cast, or flowing into a merge whose value is not a
 *     list: an Optional list) where that may run before a write of the
 *     class (as in 5): a name taken after the last write holds the last
 *     version.
 *  4. No stale name. For each write m through root R, no other root S of
 *     the class whose definition dominates m is read after m: renaming only
 *     gives R's later uses the new version. "After" is alias.c's: a use in
 *     a loop around m that does not define S counts, since the next
 *     iteration reads it. So the value a loop starts from is not read after
 *     a loop that carries the list and writes it.
 *  5. No store before a write. A name of the class stored into a container
 *     (an element of ListConstruct, TupleConstruct or DictConstruct, an
 *     element appended, set or inserted into another list or dict, a module
 *     attribute) must not be stored where that may run before a write of
 *     the class: the container would hold the object the write changes. It
 *     may run before m when it comes first in program order, or when both
 *     are in a loop that some root of the class is defined outside of.
 *  6. Mutable elements. A list whose elements (a dict whose values) may be
 *     lists or dicts is rewritten only when no other list or dict write
 *     stays imperative, so that no element changes in place behind the
 *     outer container's versions.
 *
 * Why this is exact. By 1 and 3 every name the object has at a write is in
 * its class, and by 5 no container holds it while it changes. Uses of R after m read
 * the version current at their place (renaming, with propagation adding If
 * results and loop-carried values). A root that dominates m is not read
 * after it (4). A root that does not dominate m is read only where its
 * definition dominates, so it is defined after m on every path from m to
 * such a read, and defined from versions that renaming already updated
 * (an If or Loop result from its blocks' renamed results).
 *
 * Runs after rewrite_mutation (tensor writes, which saw the list ops as
 * they were written) and before block propagation. Cost: linear in nodes
 * and uses, plus per write the roots of its class and its class's stores.
 *
 * At run time a new version is a copy of the list (its item references)
 * unless the old version is dead and held nowhere else: then the evaluator
 * extends, sets, inserts into or pops from it in place (eval_arg_take in
 * eval/args.c), so n appends, or pushes and pops at the end, in a loop stay
 * O(n). A loop taken apart by the lowering never copies an appended list:
 * its Stack joins the iterations' pieces once (a list carried as a
 * feedback loop's state is copied each step: the Stack keeps every step's).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

typedef struct ListRoot {
    IrValue *value;
    int cls;                /* union-find parent (root indices) */
    const char *unsafe;     /* why this root keeps its class imperative, or NULL */
    const char *not_fresh;  /* why it may be a list made elsewhere (rule 1), or NULL */
    const char *may_be_old; /* not_fresh of a root whose list may flow into this one */
    int64_t last_use;       /* latest use position over the root's names */
} ListRoot;

typedef struct ListUse {
    IrNode *node;
    int root;
} ListUse;

typedef struct UseList {
    ListUse *items;
    int n, cap;
} UseList;

typedef struct Lists {
    IrGraph *g;
    uint32_t nvalues, nnodes;
    int64_t *pos;           /* by node id: pre-order position, -1 if not numbered */
    int64_t *end;           /* by node id: last position inside it (a Param: its block's end) */
    int *root_of;           /* by value id: root index, -1 for values that are not lists */
    IrValue **names;        /* every list value, in definition order */
    size_t nnames, cap_names;
    ListRoot *roots;
    int nroots, cap_roots;
    const char **class_unsafe;  /* by class representative */
    bool *class_mutated;        /* by class representative: written in place at all */
    /* Roots and stores grouped by class: those of representative c are
     * members[start[c] .. start[c] + count[c]) and stores likewise. */
    int *member_start, *member_count, *members;
    int *store_start, *store_count;
    ListUse *class_stores;
    UseList writes;         /* rewritable in-place ops, by the root written */
    UseList stores;         /* a name stored into a container, by its root */
    UseList hidden;         /* a name given another name this pass does not follow */
    int *flow;              /* merge edges, two root indices each: the list of the
                             * first may flow into the second */
    size_t nflow, cap_flow;
} Lists;

/* ---------------------------------------------------------------- small helpers */

static bool is_list(const IrValue *v)
{
    return v->type && v->type->kind == TY_LIST;
}

static bool is_dict(const IrValue *v)
{
    return v->type && v->type->kind == TY_DICT;
}

/* The values this pass versions: lists and dicts. */
static bool is_container(const IrValue *v)
{
    return is_list(v) || is_dict(v);
}

/* A type whose values may be (or hold) a list or a dict. */
static bool may_hold_container(const IrType *t)
{
    switch (t->kind) {
    case TY_LIST:
    case TY_DICT:
    case TY_ANY:
    case TY_CLASS:
    case TY_OTHER:
        return true;
    case TY_OPTIONAL:
    case TY_TUPLE:
    case TY_UNION:
    case TY_FUTURE:
        for (int i = 0; i < t->nelems; i++)
            if (may_hold_container(t->elems[i]))
                return true;
        return false;
    default:
        return false;
    }
}

static int64_t pos_of(const Lists *l, const IrNode *n)
{
    return n->id < l->nnodes ? l->pos[n->id] : -1;
}

static int64_t end_of(const Lists *l, const IrNode *n)
{
    return n->id < l->nnodes ? l->end[n->id] : -1;
}

static int root_of(const Lists *l, const IrValue *v)
{
    return v->id < l->nvalues ? l->root_of[v->id] : -1;
}

static int find(Lists *l, int r)
{
    while (l->roots[r].cls != r) {
        l->roots[r].cls = l->roots[l->roots[r].cls].cls;
        r = l->roots[r].cls;
    }
    return r;
}

static void join(Lists *l, int r, int s)
{
    if (r < 0 || s < 0)
        return;
    r = find(l, r);
    s = find(l, s);
    if (r != s)
        l->roots[s].cls = r;
}

static void use_push(UseList *u, IrNode *n, int root)
{
    if (u->n == u->cap) {
        u->cap = u->cap ? u->cap * 2 : 16;
        u->items = xrealloc(u->items, sizeof *u->items * (size_t)u->cap);
    }
    u->items[u->n++] = (ListUse){n, root};
}

static void mark_unsafe(Lists *l, int root, const char *why)
{
    if (root >= 0 && !l->roots[root].unsafe)
        l->roots[root].unsafe = why;
}

/* ---------------------------------------------------------------- positions */

static void number_block(Lists *l, IrBlock *b, int64_t *next)
{
    l->pos[b->param->id] = (*next)++;
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        l->pos[n->id] = (*next)++;
        for (int i = 0; i < n->nblocks; i++)
            number_block(l, n->blocks[i], next);
        l->end[n->id] = n->nblocks ? *next - 1 : l->pos[n->id];
    }
    l->pos[b->ret->id] = (*next)++;
    l->end[b->param->id] = l->pos[b->ret->id];
    l->end[b->ret->id] = l->pos[b->ret->id];
}

static bool inside(const Lists *l, const IrNode *outer, const IrNode *n)
{
    int64_t p = pos_of(l, n);
    return p > pos_of(l, outer) && p <= end_of(l, outer);
}

/* v's definition dominates node m (as tssa_alias_dominates). */
static bool dominates(const Lists *l, const IrValue *v, const IrNode *m)
{
    const IrNode *d = v->def;
    int64_t pd = d->op == OP_PRIM_PARAM ? pos_of(l, d) : end_of(l, d);
    int64_t pm = pos_of(l, m);
    if (pd < 0 || pm < 0 || pd >= pm)
        return false;
    const IrBlock *b = d->owner;
    return pos_of(l, b->param) <= pm && pm <= end_of(l, b->param);
}

/* The position after which a use of v counts as after m (as
 * tssa_alias_after_threshold). */
static int64_t after_threshold(const Lists *l, const IrValue *v, const IrNode *m)
{
    int64_t threshold = pos_of(l, m);
    for (const IrBlock *b = m->owner; b && b->owner; b = b->owner->owner) {
        const IrNode *n = b->owner;
        if (n->op != OP_PRIM_LOOP)
            continue;
        if (inside(l, n, v->def))
            break;
        threshold = pos_of(l, n);
    }
    return threshold;
}

/* ---------------------------------------------------------------- roots and classes */

static int add_root(Lists *l, IrValue *v, const char *unsafe)
{
    if (l->nroots == l->cap_roots) {
        l->cap_roots = l->cap_roots ? l->cap_roots * 2 : 32;
        l->roots = xrealloc(l->roots, sizeof *l->roots * (size_t)l->cap_roots);
    }
    int r = l->nroots++;
    l->roots[r] = (ListRoot){v, r, unsafe, NULL, NULL, -1};
    l->root_of[v->id] = r;
    return r;
}

/* A root that may be a list made elsewhere (rule 1): it makes a write
 * unsafe only where its list may flow into the one written (see decide). */
static void add_stale_root(Lists *l, IrValue *v, const char *why)
{
    int r = add_root(l, v, NULL);
    l->roots[r].not_fresh = l->roots[r].may_be_old = why;
}

static void add_name(Lists *l, IrValue *v)
{
    if (l->nnames == l->cap_names) {
        l->cap_names = l->cap_names ? l->cap_names * 2 : 64;
        l->names = xrealloc(l->names, sizeof *l->names * l->cap_names);
    }
    l->names[l->nnames++] = v;
}

/* Output i of n is a list made for this call (rule 1). The second
 * output of immut::list_pop and immut::dict_pop is an item taken out of
 * the container, not fresh. */
static bool makes_fresh_list(const IrNode *n, int i)
{
    switch (n->op) {
    case OP_PRIM_LISTCONSTRUCT:
    case OP_ATEN_LIST:
    case OP_ATEN_ADD:
    case OP_ATEN_MUL:
    case OP_ATEN_SLICE:
    case OP_ATEN_SIZE:
    case OP_ATEN_KEYS:
    case OP_ATEN_VALUES:
    case OP_ATEN_ITEMS:
    case OP_PRIM_TOLIST:
    case OP_ATEN_DICT:
    case OP_IMMUT_LIST_SET_ITEM:
    case OP_PRIM_DICTCONSTRUCT:
    case OP_IMMUT_DICT_SET_ITEM:
    case OP_IMMUT_LIST_INSERT:
    case OP_IMMUT_LIST_REMOVE:
    case OP_IMMUT_LIST_SORT:
    case OP_IMMUT_LIST_DELETE:
    case OP_IMMUT_DICT_SETDEFAULT:
    case OP_IMMUT_DICT_UPDATE:
    case OP_PRIM_UNINITIALIZED:     /* a placeholder on paths that never read it */
        return true;
    case OP_IMMUT_LIST_POP:
    case OP_IMMUT_DICT_POP:
    case OP_IMMUT_DICT_POPITEM:
        return i == 0;
    default:
        return op_info(n->op)->alias == ALIAS_VIEWS;
    }
}

/* The list and dict ops this pass rewrites (they write input 0), with the
 * operand counts of their list or dict overloads. */
static bool rewritable(const IrNode *n)
{
    if (n->ninputs < 1)
        return false;
    bool dict = is_dict(n->inputs[0]), list = is_list(n->inputs[0]);
    switch (n->op) {
    case OP_ATEN_APPEND:
    case OP_ATEN_ADD_:
    case OP_ATEN_EXTEND:
        return list && n->ninputs == 2;
    case OP_ATEN_SET_ITEM:
        return n->ninputs == 3;
    case OP_ATEN_INSERT:
        return list && n->ninputs == 3;
    case OP_ATEN_POP:       /* list.pop([index]), dict.pop(key[, default]) */
        return n->noutputs == 1 && (list ? n->ninputs <= 2 : dict && n->ninputs >= 2 && n->ninputs <= 3);
    case OP_ATEN_REMOVE:
        return list && n->ninputs == 2;
    case OP_ATEN_REVERSE:
        return list && n->ninputs == 1;
    case OP_ATEN_CLEAR:
        return n->ninputs == 1;
    case OP_ATEN_DELETE:    /* del l[i], del d[k] */
        return n->ninputs == 2 && (list || dict);
    case OP_ATEN_MUL_:      /* l *= n; on a tensor it is not this pass's */
        return list && n->ninputs == 2;
    case OP_ATEN_SORT:      /* list.sort(reverse=False); the tensor op is pure */
        return list && n->ninputs <= 2;
    case OP_ATEN_SETDEFAULT:
        return dict && n->ninputs == 3 && n->noutputs == 1;
    case OP_ATEN_UPDATE:
        return dict && n->ninputs == 2 && is_dict(n->inputs[1]);
    case OP_ATEN_POPITEM:
        return dict && n->ninputs == 1 && n->noutputs == 1;
    default:
        return false;
    }
}

typedef struct AttributeReads {
    IrGraph *g;
    const char *path;
    int count;
} AttributeReads;

static void count_attribute_read(IrNode *n, void *ctx)
{
    AttributeReads *r = ctx;
    if (n->op == OP_PRIM_GETATTR && tssa_attribute_chain_from_input(n) &&
        strcmp(tssa_attribute_path(r->g, n), r->path) == 0)
        r->count++;
}

/* read, a prim::GetAttr chain from %self, is the graph's only read of its
 * attribute: module_state.c made every read of a list or dict attribute
 * one value, and each run starts from its own copy of the weights file's
 * (eval/module.c), which no other name holds. */
static bool attribute_read_once(IrGraph *g, const IrNode *read)
{
    if (!tssa_attribute_chain_from_input(read))
        return false;
    AttributeReads r = {g, tssa_attribute_path(g, read), 0};
    ir_walk(g->top, count_attribute_read, &r);
    return r.count == 1;
}

static void classify_output(Lists *l, IrNode *n, int i)
{
    IrValue *v = n->outputs[i];
    if (!is_container(v))
        return;
    add_name(l, v);
    const OpInfo *info = op_info(n->op);
    if (i == 0 && info->mutates == 0 && info->alias == ALIAS_SELF && n->ninputs >= 1 &&
        root_of(l, n->inputs[0]) >= 0) {
        l->root_of[v->id] = root_of(l, n->inputs[0]);     /* an identity name */
        return;
    }
    if (n->op == OP_PRIM_IF || n->op == OP_PRIM_LOOP || makes_fresh_list(n, i))
        add_root(l, v, NULL);
    else if (n->op == OP_PRIM_GETATTR && !attribute_read_once(l->g, n))
        add_stale_root(l, v, ir_internf(l->g, "%%%s is a module attribute", v->name));
    else if (n->op == OP_PRIM_GETATTR)
        add_root(l, v, NULL);
    else
        add_stale_root(l, v, ir_internf(l->g, "%%%s comes from %s, which may return an existing list",
                                 v->name, n->kind));
}

/* The list of root `from` may flow into root `to` at a merge: join their
 * classes and remember the direction (may_be_old follows it). */
static void merge_edge(Lists *l, int from, int to)
{
    if (from < 0 || to < 0)
        return;
    join(l, from, to);
    if (l->nflow + 2 > l->cap_flow) {
        l->cap_flow = l->cap_flow ? l->cap_flow * 2 : 32;
        l->flow = xrealloc(l->flow, sizeof *l->flow * l->cap_flow);
    }
    l->flow[l->nflow++] = from;
    l->flow[l->nflow++] = to;
}

/* The merges of n join the roots that flow into them. */
static void join_merges(Lists *l, IrNode *n)
{
    if (n->op == OP_PRIM_IF) {
        for (int i = 0; i < n->noutputs; i++)
            for (int b = 0; b < n->nblocks; b++)
                if (i < ir_block_nreturns(n->blocks[b]))
                    merge_edge(l, root_of(l, ir_block_return(n->blocks[b], i)), root_of(l, n->outputs[i]));
        return;
    }
    IrBlock *body = n->blocks[0];
    for (int j = 0; j < n->noutputs; j++) {
        int o = root_of(l, n->outputs[j]);
        int p = 1 + j < ir_block_nparams(body) ? root_of(l, ir_block_param(body, 1 + j)) : -1;
        int init = 2 + j < n->ninputs ? root_of(l, n->inputs[2 + j]) : -1;
        int back = 1 + j < ir_block_nreturns(body) ? root_of(l, ir_block_return(body, 1 + j)) : -1;
        merge_edge(l, init, p);
        merge_edge(l, back, p);
        merge_edge(l, p, o);
        merge_edge(l, init, o);     /* no iteration */
        merge_edge(l, back, o);
        join(l, o, p);
    }
}

/* may_be_old along the merge edges, to a fixed point. */
static void propagate_may_be_old(Lists *l)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 0; k < l->nflow; k += 2) {
            ListRoot *from = &l->roots[l->flow[k]], *to = &l->roots[l->flow[k + 1]];
            if (from->may_be_old && !to->may_be_old) {
                to->may_be_old = from->may_be_old;
                changed = true;
            }
        }
    }
}

static void collect_block(Lists *l, IrBlock *b)
{
    IrNode *owner = b->owner;
    for (int i = 0; i < ir_block_nparams(b); i++) {
        IrValue *v = ir_block_param(b, i);
        if (!is_container(v))
            continue;
        add_name(l, v);
        if (!owner)
            add_stale_root(l, v, ir_internf(l->g, "%%%s is a graph input", v->name));
        else if (owner->op == OP_PRIM_LOOP && i > 0)
            add_root(l, v, NULL);
        else
            add_root(l, v, ir_internf(l->g, "%%%s is a parameter of a %s block", v->name, owner->kind));
    }
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        for (int i = 0; i < n->nblocks; i++)
            collect_block(l, n->blocks[i]);
        for (int i = 0; i < n->noutputs; i++)
            classify_output(l, n, i);
        if (n->op == OP_PRIM_IF || (n->op == OP_PRIM_LOOP && n->nblocks == 1))
            join_merges(l, n);
    }
}

/* ---------------------------------------------------------------- uses */

/* The node writes its input `index` in place: the op table's mutated
 * input, or list.sort() (aten::sort on a list, which the table lists as a
 * tensor op). */
static bool written_in_place(const IrNode *user, int index)
{
    int mut = op_info(user->op)->mutates;
    return (mut >= 0 && index == mut) || (user->op == OP_ATEN_SORT && index == 0);
}

/* A node inside a block of a node that block propagation does not know. */
static const IrNode *unknown_block_holder(const IrNode *n)
{
    for (const IrBlock *b = n->owner; b && b->owner; b = b->owner->owner)
        if (b->owner->op != OP_PRIM_IF && b->owner->op != OP_PRIM_LOOP)
            return b->owner;
    return NULL;
}

static void classify_use(Lists *l, IrValue *v, IrNode *user, int index)
{
    int r = root_of(l, v);
    const OpInfo *info = op_info(user->op);
    if (user->op == OP_PRIM_RETURN && !user->owner->owner)
        return;                                     /* a graph output: read at the end */
    if (user->op == OP_PRIM_RETURN || user->op == OP_PRIM_LOOP) {
        IrValue *to = tssa_merge_target(user, index);
        if (!to || !is_container(to))
            use_push(&l->hidden, user, r);  /* an Optional list: rule 3 */
        return;
    }
    if (user->op == OP_PRIM_UNCHECKED_CAST || user->op == OP_PRIM_DATA) {
        use_push(&l->hidden, user, r);
        return;
    }
    if (user->op == OP_UNKNOWN || user->op == OP_TSSA_UPDATE) {
        mark_unsafe(l, r, ir_internf(l->g, "%%%s is used by %s, which may give it another name", v->name,
                              user->kind));
        return;
    }
    if (written_in_place(user, index)) {
        if (!rewritable(user)) {
            mark_unsafe(l, r, ir_internf(l->g, "%%%s is also written by %s, which has no functional form "
                                        "for lists", v->name, user->kind));
        } else if (unknown_block_holder(user)) {
            mark_unsafe(l, r, ir_internf(l->g, "%s is inside a block of %s", user->kind,
                                  unknown_block_holder(user)->kind));
        } else {
            use_push(&l->writes, user, r);
        }
        return;
    }
    /* Another operand of a write into a container (appended, set, inserted
     * as an element; a module attribute), or an element of a new one. add_,
     * extend and update only read the items of their second list or dict. */
    bool reads_items = (user->op == OP_ATEN_ADD_ || user->op == OP_ATEN_EXTEND ||
                        user->op == OP_ATEN_UPDATE) && index == 1;
    if ((info->mutates >= 0 && !reads_items) || user->op == OP_PRIM_LISTCONSTRUCT ||
        user->op == OP_PRIM_TUPLECONSTRUCT || user->op == OP_PRIM_DICTCONSTRUCT)
        use_push(&l->stores, user, r);
}

static void collect_uses(Lists *l)
{
    for (size_t k = 0; k < l->nnames; k++) {
        IrValue *v = l->names[k];
        int r = root_of(l, v);
        for (int u = 0; u < v->nuses; u++) {
            IrNode *user = v->uses[u].user;
            int64_t p = pos_of(l, user);
            if (p > l->roots[r].last_use)
                l->roots[r].last_use = p;
            classify_use(l, v, user, v->uses[u].index);
        }
    }
}

/* ---------------------------------------------------------------- the rules */

/* Fills the per-class groups of roots and stores (a counting sort by
 * class representative). */
static void group_by_class(Lists *l)
{
    int n = l->nroots ? l->nroots : 1;
    l->member_start = xcalloc((size_t)n, sizeof *l->member_start);
    l->member_count = xcalloc((size_t)n, sizeof *l->member_count);
    l->members = xcalloc((size_t)n, sizeof *l->members);
    l->store_start = xcalloc((size_t)n, sizeof *l->store_start);
    l->store_count = xcalloc((size_t)n, sizeof *l->store_count);
    l->class_stores = xcalloc(l->stores.n ? (size_t)l->stores.n : 1, sizeof *l->class_stores);
    for (int r = 0; r < l->nroots; r++)
        l->member_count[find(l, r)]++;
    for (int i = 0; i < l->stores.n; i++)
        l->store_count[find(l, l->stores.items[i].root)]++;
    int members = 0, stores = 0;
    for (int c = 0; c < l->nroots; c++) {
        l->member_start[c] = members;
        l->store_start[c] = stores;
        members += l->member_count[c];
        stores += l->store_count[c];
    }
    int *fill = xcalloc((size_t)n, sizeof *fill);
    for (int r = 0; r < l->nroots; r++) {
        int c = find(l, r);
        l->members[l->member_start[c] + fill[c]++] = r;
    }
    memset(fill, 0, sizeof *fill * (size_t)n);
    for (int i = 0; i < l->stores.n; i++) {
        int c = find(l, l->stores.items[i].root);
        l->class_stores[l->store_start[c] + fill[c]++] = l->stores.items[i];
    }
    free(fill);
}

/* Rule 4 for write w: another root of its class, alive at w, read after it. */
static const char *stale_name(Lists *l, const ListUse *w)
{
    int cls = find(l, w->root);
    for (int k = 0; k < l->member_count[cls]; k++) {
        int s = l->members[l->member_start[cls] + k];
        if (s == w->root)
            continue;
        IrValue *sv = l->roots[s].value;
        if (!dominates(l, sv, w->node))
            continue;
        if (l->roots[s].last_use > after_threshold(l, sv, w->node))
            return ir_internf(l->g, "%%%s names the same list as %%%s and is read after this write",
                       sv->name, l->roots[w->root].value->name);
    }
    return NULL;
}

/* Some root of class cls is defined outside loop n (it may outlive one
 * iteration). */
static bool class_outlives(const Lists *l, int cls, const IrNode *n)
{
    for (int k = 0; k < l->member_count[cls]; k++)
        if (!inside(l, n, l->roots[l->members[l->member_start[cls] + k]].value->def))
            return true;
    return false;
}

/* Rule 5: store e may run before write w. */
static bool may_run_before(Lists *l, const IrNode *e, const ListUse *w)
{
    if (pos_of(l, e) < pos_of(l, w->node))
        return true;
    for (const IrBlock *b = w->node->owner; b && b->owner; b = b->owner->owner) {
        const IrNode *n = b->owner;
        if (n->op == OP_PRIM_LOOP && inside(l, n, e) && class_outlives(l, find(l, w->root), n))
            return true;
    }
    return false;
}

static void set_class_unsafe(Lists *l, int root, const char *why)
{
    int c = find(l, root);
    if (!l->class_unsafe[c])
        l->class_unsafe[c] = why;
}

static void decide(Lists *l)
{
    for (int r = 0; r < l->nroots; r++)
        if (l->roots[r].unsafe)
            set_class_unsafe(l, r, l->roots[r].unsafe);
    for (int i = 0; i < l->writes.n; i++) {
        const ListUse *w = &l->writes.items[i];
        if (l->class_unsafe[find(l, w->root)])
            continue;
        const char *why = l->roots[w->root].may_be_old;
        if (!why)
            why = stale_name(l, w);
        int cls = find(l, w->root);
        for (int j = 0; !why && j < l->hidden.n; j++) {
            const ListUse *h = &l->hidden.items[j];
            if (find(l, h->root) == cls && may_run_before(l, h->node, w))
                why = h->node->op == OP_PRIM_RETURN || h->node->op == OP_PRIM_LOOP
                          ? ir_internf(l->g, "%%%s flows into a %s value that is not a list or dict before "
                                      "this write", l->roots[h->root].value->name,
                                h->node->op == OP_PRIM_LOOP ? "loop-carried" : "block's")
                          : ir_internf(l->g, "%%%s is given another name by %s before this write",
                                l->roots[h->root].value->name, h->node->kind);
        }
        for (int j = 0; !why && j < l->store_count[cls]; j++) {
            const ListUse *e = &l->class_stores[l->store_start[cls] + j];
            if (may_run_before(l, e->node, w))
                why = ir_internf(l->g, "%%%s is stored in a container (%s) before this write",
                          l->roots[e->root].value->name, e->node->kind);
        }
        if (why)
            set_class_unsafe(l, w->root, why);
    }
    /* Rule 6, once the others are settled. */
    bool kept = false;
    for (int r = 0; r < l->nroots; r++)
        kept |= l->class_mutated[find(l, r)] && l->class_unsafe[find(l, r)];
    if (!kept)
        return;
    for (int r = 0; r < l->nroots; r++) {
        const IrType *t = l->roots[r].value->type;
        const IrType *elem = t->kind == TY_LIST && t->nelems == 1   ? t->elems[0]
                             : t->kind == TY_DICT && t->nelems == 2 ? t->elems[1]
                                                                    : NULL;
        if (elem && may_hold_container(elem) && l->class_mutated[find(l, r)])
            set_class_unsafe(l, r, ir_internf(l->g, "the elements of %%%s may be lists or dicts, and "
                                             "another container is written in place",
                                       l->roots[r].value->name));
    }
}

/* ---------------------------------------------------------------- rewriting */

static IrValue *emit_constant(IrGraph *g, IrNode *pos, IrType *type, bool none, int64_t value)
{
    IrNode *n = ir_node_new_op(g, OP_PRIM_CONSTANT);
    if (!none)
        ir_attr_set_int(n, "value", value);
    IrValue *v = ir_node_add_output(n, type, NULL);
    ir_insert_before(n, pos);
    return v;
}

/* A node of op with the given inputs and two outputs, the new version
 * (key's type) and what the write returned (its output's type; for del
 * d[k], which returns nothing, the dict's value type), placed before n:
 * immut::list_pop, dict_pop and dict_popitem. *result gets the second
 * when n returns it. */
static IrValue *emit_pair(IrGraph *g, IrNode *n, OpId op, IrValue *const *inputs, int ninputs,
                          IrValue *key, const char *name, IrValue **result)
{
    IrNode *m = ir_node_new_op(g, op);
    for (int i = 0; i < ninputs; i++)
        ir_node_add_input(m, inputs[i]);
    IrValue *fresh = ir_node_add_output(m, key->type, name);
    IrType *second = n->noutputs ? n->outputs[0]->type
                     : key->type->nelems == 2 ? key->type->elems[1]
                                              : ir_type_simple(g, TY_ANY);
    IrValue *item = ir_node_add_output(m, second, NULL);
    if (n->noutputs)
        *result = item;
    ir_insert_before(m, n);
    return fresh;
}

/* The new version of list `key` that write n makes, placed before n, and
 * in *result the value that stands for n's output (key itself for the
 * writes that return their list; NULL for those that return nothing). */
static IrValue *new_version(IrGraph *g, IrNode *n, IrValue *key, IrValue **result)
{
    char buf[128];
    const char *name = tssa_base_name(key, buf, sizeof buf);
    *result = n->noutputs ? key : NULL;
    switch (n->op) {
    case OP_ATEN_APPEND: {
        IrValue *item = tssa_emit_node(g, n, OP_PRIM_LISTCONSTRUCT, &n->inputs[1], 1, key->type, NULL);
        IrValue *args[2] = {key, item};
        return tssa_emit_node(g, n, OP_ATEN_ADD, args, 2, key->type, name);
    }
    case OP_ATEN_ADD_:
    case OP_ATEN_EXTEND: {
        IrValue *args[2] = {key, n->inputs[1]};
        return tssa_emit_node(g, n, OP_ATEN_ADD, args, 2, key->type, name);
    }
    case OP_ATEN_SET_ITEM: {
        IrValue *args[3] = {key, n->inputs[1], n->inputs[2]};
        return tssa_emit_node(g, n, is_dict(key) ? OP_IMMUT_DICT_SET_ITEM : OP_IMMUT_LIST_SET_ITEM,
                              args, 3, key->type, name);
    }
    case OP_ATEN_INSERT: {
        IrValue *args[3] = {key, n->inputs[1], n->inputs[2]};
        return tssa_emit_node(g, n, OP_IMMUT_LIST_INSERT, args, 3, key->type, name);
    }
    case OP_ATEN_POP: {
        IrValue *args[3] = {key, NULL, NULL};
        for (int i = 1; i < n->ninputs; i++)
            args[i] = n->inputs[i];
        if (is_dict(key))
            return emit_pair(g, n, OP_IMMUT_DICT_POP, args, n->ninputs, key, name, result);
        if (n->ninputs == 1)    /* list.pop(): the last item */
            args[1] = emit_constant(g, n, ir_type_simple(g, TY_INT), false, -1);
        return emit_pair(g, n, OP_IMMUT_LIST_POP, args, 2, key, name, result);
    }
    case OP_ATEN_REMOVE: {
        IrValue *args[2] = {key, n->inputs[1]};
        return tssa_emit_node(g, n, OP_IMMUT_LIST_REMOVE, args, 2, key->type, name);
    }
    case OP_ATEN_REVERSE: {
        IrValue *none = emit_constant(g, n, ir_type_simple(g, TY_NONE), true, 0);
        IrValue *step = emit_constant(g, n, ir_type_simple(g, TY_INT), false, -1);
        IrValue *args[4] = {key, none, none, step};
        return tssa_emit_node(g, n, OP_ATEN_SLICE, args, 4, key->type, name);
    }
    case OP_ATEN_DELETE: {
        IrValue *args[2] = {key, n->inputs[1]};
        if (is_dict(key))   /* pop's KeyError is del's */
            return emit_pair(g, n, OP_IMMUT_DICT_POP, args, 2, key, name, result);
        return tssa_emit_node(g, n, OP_IMMUT_LIST_DELETE, args, 2, key->type, name);
    }
    case OP_ATEN_MUL_: {
        IrValue *args[2] = {key, n->inputs[1]};
        return tssa_emit_node(g, n, OP_ATEN_MUL, args, 2, key->type, name);
    }
    case OP_ATEN_CLEAR:     /* a new empty list or dict of the same type */
        return tssa_emit_node(g, n, is_dict(key) ? OP_PRIM_DICTCONSTRUCT : OP_PRIM_LISTCONSTRUCT, NULL, 0,
                              key->type, name);
    case OP_ATEN_SORT: {
        IrValue *args[2] = {key, n->ninputs > 1 ? n->inputs[1] : NULL};
        return tssa_emit_node(g, n, OP_IMMUT_LIST_SORT, args, n->ninputs, key->type, name);
    }
    case OP_ATEN_SETDEFAULT: {
        /* The result is d[key] read from the new version: the value there
         * before, or the default just set. */
        IrValue *args[3] = {key, n->inputs[1], n->inputs[2]};
        IrValue *fresh = tssa_emit_node(g, n, OP_IMMUT_DICT_SETDEFAULT, args, 3, key->type, name);
        IrValue *read[2] = {fresh, n->inputs[1]};
        *result = tssa_emit_node(g, n, OP_ATEN_GETITEM, read, 2, n->outputs[0]->type, NULL);
        return fresh;
    }
    case OP_ATEN_UPDATE: {
        IrValue *args[2] = {key, n->inputs[1]};
        return tssa_emit_node(g, n, OP_IMMUT_DICT_UPDATE, args, 2, key->type, name);
    }
    case OP_ATEN_POPITEM:
        return emit_pair(g, n, OP_IMMUT_DICT_POPITEM, &key, 1, key, name, result);
    default:
        return NULL;
    }
}

static void rewrite_write(IrGraph *g, IrNode *n, IrValue *key)
{
    IrValue *result;
    IrValue *fresh = new_version(g, n, key, &result);
    fresh->def->comment = n->comment;   /* messages name the source line */
    fresh->def->line = n->line;
    if (result && result != key && result->def != fresh->def) {     /* setdefault's read */
        result->def->comment = n->comment;
        result->def->line = n->line;
    }
    IrNode *u = ir_node_new_op(g, OP_TSSA_UPDATE);
    ir_node_add_input(u, fresh);
    ir_node_add_input(u, key);
    ir_insert_before(u, n);
    for (int i = 0; i < n->noutputs; i++)
        ir_replace_all_uses(n->outputs[i], result ? result : key);
    ir_node_destroy(n);
}

static void rewrite(Lists *l, size_t *functional, size_t *kept)
{
    /* Identity names read their root directly, so that renaming the root
     * reaches every use. */
    for (size_t k = 0; k < l->nnames; k++) {
        IrValue *v = l->names[k];
        int r = root_of(l, v);
        if (!l->class_unsafe[find(l, r)] && l->roots[r].value != v)
            ir_replace_all_uses(v, l->roots[r].value);
    }
    for (int i = 0; i < l->writes.n; i++) {
        const ListUse *w = &l->writes.items[i];
        if (l->class_unsafe[find(l, w->root)])
            continue;
        rewrite_write(l->g, w->node, l->roots[w->root].value);
        (*functional)++;
    }
    /* Every in-place op on a list of an unsafe class says why it stays. */
    for (size_t k = 0; k < l->nnames; k++) {
        IrValue *v = l->names[k];
        const char *why = l->class_unsafe[find(l, root_of(l, v))];
        for (int u = 0; why && u < v->nuses; u++) {
            IrNode *user = v->uses[u].user;
            if (!written_in_place(user, v->uses[u].index))
                continue;
            if (!rewritable(user))
                tssa_note_imperative(user, ir_internf(l->g, "%s has no functional form for lists", user->kind));
            else
                tssa_note_imperative(user, why);
            (*kept)++;
        }
    }
}

size_t tssa_list_versions(IrGraph *g, size_t *kept)
{
    Lists l = {0};
    l.g = g;
    l.nvalues = g->nvalues;
    l.nnodes = g->nnodes;
    l.pos = xcalloc(l.nnodes ? l.nnodes : 1, sizeof *l.pos);
    l.end = xcalloc(l.nnodes ? l.nnodes : 1, sizeof *l.end);
    for (uint32_t i = 0; i < l.nnodes; i++)
        l.pos[i] = l.end[i] = -1;
    l.root_of = xcalloc(l.nvalues ? l.nvalues : 1, sizeof *l.root_of);
    for (uint32_t i = 0; i < l.nvalues; i++)
        l.root_of[i] = -1;
    int64_t next = 0;
    number_block(&l, g->top, &next);

    collect_block(&l, g->top);
    propagate_may_be_old(&l);
    collect_uses(&l);
    l.class_unsafe = xcalloc(l.nroots ? (size_t)l.nroots : 1, sizeof *l.class_unsafe);
    l.class_mutated = xcalloc(l.nroots ? (size_t)l.nroots : 1, sizeof *l.class_mutated);
    for (size_t k = 0; k < l.nnames; k++) {
        IrValue *v = l.names[k];
        for (int u = 0; u < v->nuses; u++) {
            const IrNode *user = v->uses[u].user;
            if (written_in_place(user, v->uses[u].index) || user->op == OP_UNKNOWN)
                l.class_mutated[find(&l, root_of(&l, v))] = true;
        }
    }
    group_by_class(&l);
    decide(&l);

    size_t functional = 0, imperative = 0;
    rewrite(&l, &functional, &imperative);
    if (kept)
        *kept = imperative;

    free(l.pos);
    free(l.end);
    free(l.root_of);
    free(l.names);
    free(l.roots);
    free(l.class_unsafe);
    free(l.class_mutated);
    free(l.member_start);
    free(l.member_count);
    free(l.members);
    free(l.store_start);
    free(l.store_count);
    free(l.class_stores);
    free(l.writes.items);
    free(l.stores.items);
    free(l.hidden.items);
    free(l.flow);
    return functional;
}
