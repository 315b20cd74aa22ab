/* lower_containers.c — the contents of lists and dicts of run-time values,
 * followed during specialization.
 *
 * The scalar slice (lower_specialize.c) computes a list or dict only when
 * every item is a compile-time value. A list of computed tensors (an FPN's
 * `laterals.append(conv(x))`, TensorSSA's `immut::list_set_item` for
 * `laterals[i - 1] += ...`) or a dict of them (an anchor cache,
 * `immut::dict_set_item`) is a run-time value, yet which value each item
 * is, and how many there are, is known: the graph says so. This file
 * follows that, at the top level, in program order:
 *
 *   made by                              contents
 *   prim::ListConstruct(a, b, ...)       [a, b, ...]
 *   aten::add(l1, l2) of two lists       l1's then l2's
 *   aten::list(l)                        l's
 *   immut::list_set_item(l, i, v)        l's with item i (a compile-time
 *                                        int, Python's negative indexing) v
 *   prim::DictConstruct(k, v, ...)       the pairs (compile-time keys)
 *   immut::dict_set_item(d, k, v)        d's with k set to v (k
 *                                        compile-time; a new key last)
 *   a compile-time empty list or dict    nothing (a module's `self._cache
 *                                        = {}` read with prim::GetAttr)
 *
 * and folds the reads of a container whose contents it knows:
 *   aten::__getitem__(l, i), aten::__getitem__(d, k) with compile-time i, k
 *                          present: its uses read the item itself (and
 *                          the node goes), so shape inference types it;
 *   prim::ListUnpack(l)    of as many items: each output the item;
 *   aten::len(l or d)      a compile-time int;
 *   aten::__contains__(d, k)  a compile-time bool (the If it decides then
 *                          folds).
 * A read out of range or of a missing key is left to fail at run time.
 * Items are references, as Python's are: reading the item value is reading
 * what the container holds, even for an item that is itself a container.
 * Only a container written in place (append, a dict's _set_item: an op of
 * the table that mutates it, which TensorSSA left imperative) changes
 * after it is made. Such a write may reach a container under another name
 * (`got = cache[k]` then `got.append(v)` changes the list the dict holds,
 * and a folded read turns `got` into that list's own value), so a graph
 * with any list or dict written in place, or passed to an op the table
 * does not know, has no container followed at all.
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/eval.h"
#include "tssa/value.h"

typedef struct Contents {
    int n;
    IrValue **items;        /* the values held, in order */
    RtValue **keys;         /* a dict's compile-time keys; NULL for a list */
} Contents;

struct LowerContainers {
    int state;              /* 0: not looked yet; 1: followed; -1: the graph writes a container */
    Contents **of;          /* by value id; NULL: not known */
    uint32_t cap;
    int folded;             /* reads folded */
};

int lower_containers_folded(const LowerContainers *lc)
{
    return lc->folded;
}

LowerContainers *lower_containers_new(void)
{
    return xcalloc(1, sizeof(LowerContainers));
}

static void contents_free(Contents *c)
{
    if (!c)
        return;
    if (c->keys)
        for (int i = 0; i < c->n; i++)
            rt_release(c->keys[i]);
    free(c->keys);
    free(c->items);
    free(c);
}

void lower_containers_free(LowerContainers *lc)
{
    if (!lc)
        return;
    for (uint32_t i = 0; i < lc->cap; i++)
        contents_free(lc->of[i]);
    free(lc->of);
    free(lc);
}

static Contents *get(const LowerContainers *lc, const IrValue *v)
{
    return v->id < lc->cap ? lc->of[v->id] : NULL;
}

static Contents *contents_new(int n, bool dict)
{
    Contents *c = xcalloc(1, sizeof *c);
    c->n = n;
    c->items = xcalloc((size_t)n + 1, sizeof *c->items);
    if (dict)
        c->keys = xcalloc((size_t)n + 1, sizeof *c->keys);
    return c;
}

static Contents *contents_copy(const Contents *from, int extra)
{
    Contents *c = contents_new(from->n + extra, from->keys != NULL);
    c->n = from->n;
    memcpy(c->items, from->items, (size_t)from->n * sizeof *c->items);
    if (from->keys)
        for (int i = 0; i < from->n; i++)
            c->keys[i] = rt_retain(from->keys[i]);
    return c;
}

static void put(LowerContainers *lc, const IrValue *v, Contents *c)
{
    if (v->id >= lc->cap) {
        uint32_t cap = v->id + 64;
        lc->of = xrealloc(lc->of, cap * sizeof *lc->of);
        memset(lc->of + lc->cap, 0, (cap - lc->cap) * sizeof *lc->of);
        lc->cap = cap;
    }
    contents_free(lc->of[v->id]);
    lc->of[v->id] = c;
}

/* A compile-time value of v, or NULL. */
static const RtValue *static_value(const LowerProgram *p, const IrValue *v)
{
    return v->id < p->nstatic && p->is_static[v->id] ? node_exec_get(p->exec, v) : NULL;
}

static bool is_kind(const IrValue *v, IrTypeKind k)
{
    return v->type && v->type->kind == k;
}

/* v is written in place by one of its uses (the op table's mutated input,
 * or list.sort(), which has no result). */
static bool written_in_place(const IrValue *v)
{
    for (int u = 0; u < v->nuses; u++) {
        const IrNode *user = v->uses[u].user;
        int mut = user->op == OP_UNKNOWN ? -1 : op_info(user->op)->mutates;
        if (mut == v->uses[u].index || (user->noutputs == 0 && v->uses[u].index == 0 &&
                                        user->op != OP_PRIM_RETURN))
            return true;
    }
    return false;
}

static bool static_int(const LowerProgram *p, const IrValue *v, int64_t *out)
{
    const RtValue *r = static_value(p, v);
    if (!r || r->kind != RT_INT)
        return false;
    *out = r->u.i;
    return true;
}

/* Python's index i into n items, or -1 when out of range. */
static int item_index(int64_t i, int n)
{
    if (i < 0)
        i += n;
    return i >= 0 && i < n ? (int)i : -1;
}

static int key_index(const Contents *c, const RtValue *key)
{
    for (int i = 0; i < c->n; i++)
        if (rt_equal(c->keys[i], key))
            return i;
    return -1;
}

/* The contents of n's result when n makes a container this file follows,
 * or NULL. */
static Contents *made(const LowerProgram *p, const LowerContainers *lc, const IrNode *n)
{
    const IrValue *out = n->noutputs == 1 ? n->outputs[0] : NULL;
    if (!out || (!is_kind(out, TY_LIST) && !is_kind(out, TY_DICT)))
        return NULL;
    const RtValue *s = static_value(p, out);
    if (s && (s->kind == RT_LIST || s->kind == RT_DICT) && s->u.list.n == 0)
        return contents_new(0, s->kind == RT_DICT);
    switch (n->op) {
    case OP_PRIM_LISTCONSTRUCT: {
        Contents *c = contents_new(n->ninputs, false);
        if (n->ninputs > 0)
            memcpy(c->items, n->inputs, (size_t)n->ninputs * sizeof *c->items);
        return c;
    }
    case OP_ATEN_ADD: {
        const Contents *a, *b;
        if (n->ninputs != 2 || !is_kind(out, TY_LIST) || !(a = get(lc, n->inputs[0])) ||
            !(b = get(lc, n->inputs[1])))
            return NULL;
        Contents *c = contents_copy(a, b->n);
        memcpy(c->items + c->n, b->items, (size_t)b->n * sizeof *c->items);
        c->n += b->n;
        return c;
    }
    case OP_ATEN_LIST: {
        const Contents *a = n->ninputs == 1 ? get(lc, n->inputs[0]) : NULL;
        return a ? contents_copy(a, 0) : NULL;
    }
    case OP_IMMUT_LIST_SET_ITEM: {
        const Contents *a = n->ninputs == 3 ? get(lc, n->inputs[0]) : NULL;
        int64_t i;
        int at = a && static_int(p, n->inputs[1], &i) ? item_index(i, a->n) : -1;
        if (at < 0)
            return NULL;
        Contents *c = contents_copy(a, 0);
        c->items[at] = n->inputs[2];
        return c;
    }
    case OP_PRIM_DICTCONSTRUCT: {
        if (n->ninputs % 2 != 0)
            return NULL;
        Contents *c = contents_new(n->ninputs / 2, true);
        c->n = 0;
        for (int i = 0; i < n->ninputs; i += 2) {
            const RtValue *k = static_value(p, n->inputs[i]);
            if (!k) {
                contents_free(c);
                return NULL;
            }
            int at = key_index(c, k);
            if (at < 0) {
                at = c->n++;
                c->keys[at] = rt_retain((RtValue *)k);
            }
            c->items[at] = n->inputs[i + 1];
        }
        return c;
    }
    case OP_IMMUT_DICT_SET_ITEM: {
        const Contents *a = n->ninputs == 3 ? get(lc, n->inputs[0]) : NULL;
        const RtValue *k = a ? static_value(p, n->inputs[1]) : NULL;
        if (!k || !a->keys)
            return NULL;
        Contents *c = contents_copy(a, 1);
        int at = key_index(c, k);
        if (at < 0) {
            at = c->n++;
            c->keys[at] = rt_retain((RtValue *)k);
        }
        c->items[at] = n->inputs[2];
        return c;
    }
    default:
        return NULL;
    }
}

/* The item n (aten::__getitem__) reads, or NULL. */
static IrValue *item_read(const LowerProgram *p, const Contents *c, const IrNode *n)
{
    if (n->ninputs != 2 || n->noutputs != 1)
        return NULL;
    if (!c->keys) {
        int64_t i;
        int at = static_int(p, n->inputs[1], &i) ? item_index(i, c->n) : -1;
        return at >= 0 ? c->items[at] : NULL;
    }
    const RtValue *k = static_value(p, n->inputs[1]);
    int at = k ? key_index(c, k) : -1;
    return at >= 0 ? c->items[at] : NULL;
}

/* n's one int or bool result is v: its uses read a new compile-time
 * prim::Constant instead, and n goes (so the container it read is left
 * unread when nothing else reads it). */
static void replace_by_constant(LowerProgram *p, LowerContainers *lc, IrNode *n, int64_t v)
{
    bool as_bool = is_kind(n->outputs[0], TY_BOOL);
    IrNode *k = ir_node_new_op(p->g, OP_PRIM_CONSTANT);
    ir_attr_set_int(k, "value", as_bool ? v != 0 : v);
    IrValue *out = ir_node_add_output(k, n->outputs[0]->type, NULL);
    ir_insert_before(k, n);
    lower_add_static(p, out, as_bool ? rt_bool(v != 0) : rt_int(v));
    ir_replace_all_uses(n->outputs[0], out);
    ir_node_destroy(n);
    p->stats.static_nodes++;
    lc->folded++;
}

static bool makes_or_reads(const IrNode *n)
{
    switch (n->op) {
    case OP_PRIM_LISTCONSTRUCT: case OP_ATEN_ADD: case OP_ATEN_LIST: case OP_IMMUT_LIST_SET_ITEM:
    case OP_PRIM_DICTCONSTRUCT: case OP_IMMUT_DICT_SET_ITEM: case OP_ATEN_GETITEM: case OP_ATEN_LEN:
    case OP_ATEN_CONTAINS: case OP_PRIM_LISTUNPACK:
        return true;
    default:
        return false;
    }
}

/* A list of known items that n takes whole (torch.stack(outs), cat) is
 * passed as a prim::ListConstruct of them, made just before n: the same
 * items in a new list, which shape inference and fusion read item by item
 * (a chain of appends they do not follow). */
static void construct_whole_lists(LowerProgram *p, LowerContainers *lc, IrNode *n)
{
    if (n->op == OP_UNKNOWN || n->nblocks > 0 || makes_or_reads(n) || n->op == OP_PRIM_RETURN)
        return;
    for (int i = 0; i < n->ninputs; i++) {
        IrValue *l = n->inputs[i];
        const Contents *c = is_kind(l, TY_LIST) ? get(lc, l) : NULL;
        if (!c || c->keys || l->def->op == OP_PRIM_LISTCONSTRUCT || static_value(p, l))
            continue;
        IrNode *lc_node = ir_node_new_op(p->g, OP_PRIM_LISTCONSTRUCT);
        for (int k = 0; k < c->n; k++)
            ir_node_add_input(lc_node, c->items[k]);
        IrValue *fresh = ir_node_add_output(lc_node, l->type, NULL);
        ir_insert_before(lc_node, n);
        ir_node_set_input(n, i, fresh);
        Contents *copy = contents_copy(c, 0);
        put(lc, fresh, copy);
        lc->folded++;
    }
}

/* Some node in b (blocks included) writes a list or dict in place, or
 * hands one to an op the table does not know. */
static bool writes_a_container(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->ninputs; i++) {
            const IrValue *v = n->inputs[i];
            if (!is_kind(v, TY_LIST) && !is_kind(v, TY_DICT))
                continue;
            int mut = n->op == OP_UNKNOWN ? i : op_info(n->op)->mutates;
            if (mut == i || (n->noutputs == 0 && i == 0 && n->op != OP_PRIM_RETURN))
                return true;
        }
        for (int i = 0; i < n->nblocks; i++)
            if (writes_a_container(n->blocks[i]))
                return true;
    }
    return false;
}

IrNode *lower_containers_visit(LowerProgram *p, LowerContainers *lc, IrNode *n)
{
    IrNode *next = n->next;
    if (lc->state == 0)
        lc->state = writes_a_container(p->g->top) ? -1 : 1;
    if (lc->state < 0)
        return next;
    construct_whole_lists(p, lc, n);
    Contents *m = made(p, lc, n);
    if (m) {
        if (written_in_place(n->outputs[0]))
            contents_free(m);
        else
            put(lc, n->outputs[0], m);
        return next;
    }
    const Contents *c = n->ninputs >= 1 ? get(lc, n->inputs[0]) : NULL;
    if (!c || n->noutputs < 1 || static_value(p, n->outputs[0]))
        return next;
    switch (n->op) {
    case OP_ATEN_GETITEM: {
        IrValue *item = item_read(p, c, n);
        if (!item)
            return next;
        ir_replace_all_uses(n->outputs[0], item);
        ir_node_destroy(n);
        lc->folded++;
        return next;
    }
    case OP_PRIM_LISTUNPACK:
        if (c->keys || n->noutputs != c->n)
            return next;
        for (int i = 0; i < n->noutputs; i++)
            ir_replace_all_uses(n->outputs[i], c->items[i]);
        ir_node_destroy(n);
        lc->folded++;
        return next;
    case OP_ATEN_LEN:
        if (n->ninputs == 1 && n->noutputs == 1 && is_kind(n->outputs[0], TY_INT))
            replace_by_constant(p, lc, n, c->n);
        return next;
    case OP_ATEN_CONTAINS: {
        const RtValue *k = c->keys && n->ninputs == 2 ? static_value(p, n->inputs[1]) : NULL;
        if (k && n->noutputs == 1 && is_kind(n->outputs[0], TY_BOOL))
            replace_by_constant(p, lc, n, key_index(c, k) >= 0);
        return next;
    }
    default:
        return next;
    }
}
