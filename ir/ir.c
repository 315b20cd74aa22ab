/* ir.c — building and editing graphs: nodes, blocks, values, use lists,
 * names, attributes, and program order.
 *
 * Use lists. Each value keeps an array of (user, input index). Each node
 * remembers, per input, where its use sits in that array (use_slots), so
 * removing a use is O(1): the last use moves into the hole. Use order is
 * therefore not program order; nothing relies on it.
 *
 * Program order. Nodes in a block carry increasing `order` numbers. A node
 * inserted between two others takes the midpoint; appending adds a fixed
 * stride, so the parser never renumbers. When two neighbours leave no room,
 * a window around the insertion point doubles until it spans enough numbers
 * to be spread out evenly (order-maintenance by local relabelling), so
 * repeated insertion at one spot costs amortized O(log n), never a pass over
 * the whole block. ir_node_is_before lifts both nodes to their first common
 * block (depth of nesting, not length of blocks) and compares numbers.
 *
 * Names. A hash table maps each live value's name to the value; a second
 * one remembers, per base name, the next ".N" suffix to try, so handing out
 * x.1, x.2, ... stays linear however many values share a base. Destroyed
 * values give their names back.
 */
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

struct NameTable {
    StrMap values;      /* name -> live IrValue */
    StrMap interned;    /* string -> its one arena copy */
    StrMap suffixes;    /* base name -> next suffix to try (as uintptr_t) */
    struct Tensor **tensors;    /* tensor attribute data the graph owns */
    size_t ntensors, cap_tensors;
};

enum { ORDER_STRIDE = 1 << 20 };
#define ORDER_END INT64_MAX

/* ---------------------------------------------------------------- graph */

static IrNode *node_alloc(IrGraph *g, const char *kind, OpId op)
{
    IrNode *n = arena_alloc(g->arena, sizeof *n);
    n->kind = kind;
    n->op = op;
    n->graph = g;
    n->id = g->nnodes++;
    return n;
}

static IrBlock *block_new(IrGraph *g, IrNode *owner)
{
    IrBlock *b = arena_alloc(g->arena, sizeof *b);
    b->graph = g;
    b->owner = owner;
    b->param = node_alloc(g, op_table[OP_PRIM_PARAM].name, OP_PRIM_PARAM);
    b->ret = node_alloc(g, op_table[OP_PRIM_RETURN].name, OP_PRIM_RETURN);
    b->param->owner = b->ret->owner = b;
    b->param->next = b->ret;
    b->ret->prev = b->param;
    b->param->order = 0;
    b->ret->order = ORDER_END;
    return b;
}

IrGraph *ir_graph_new(void)
{
    IrGraph *g = calloc(1, sizeof *g);
    if (!g)
        diag_die("out of memory creating a graph");
    g->arena = arena_new();
    g->names = calloc(1, sizeof *g->names);
    if (!g->names)
        diag_die("out of memory creating a graph");
    strmap_init(&g->names->values);
    strmap_init(&g->names->interned);
    strmap_init(&g->names->suffixes);
    g->next_number = 1;
    g->top = block_new(g, NULL);
    return g;
}

void ir_graph_free(IrGraph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->names->ntensors; i++)
        tensor_release(g->names->tensors[i]);
    free(g->names->tensors);
    strmap_release(&g->names->values);
    strmap_release(&g->names->interned);
    strmap_release(&g->names->suffixes);
    free(g->names);
    arena_free(g->arena);
    free(g);
}

const char *ir_intern_n(IrGraph *g, const char *s, size_t len)
{
    const char *have = strmap_get_key(&g->names->interned, s, len);
    if (have)
        return have;
    char *copy = arena_strndup(g->arena, s, len);
    strmap_put(&g->names->interned, copy, len, copy);
    return copy;
}

const char *ir_intern(IrGraph *g, const char *s)
{
    return ir_intern_n(g, s, strlen(s));
}

const char *ir_internf(IrGraph *g, const char *format, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(buf, sizeof buf, format, ap);
    va_end(ap);
    return ir_intern(g, buf);
}

/* ---------------------------------------------------------------- names */

static bool name_taken(IrGraph *g, const char *s, size_t len)
{
    return strmap_get(&g->names->values, s, len) != NULL;
}

/* Length of name without a trailing ".N" (digits) suffix; the whole length
 * when there is none or nothing would be left before it. */
static size_t base_name_length(const char *name, size_t len)
{
    size_t i = len;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == len || i < 2 || name[i - 1] != '.')
        return len;
    return i - 1;
}

/* An arena copy of a name no live value has: `want` itself when free, else
 * base.N with the smallest N this base has not handed out yet; a fresh
 * number for want == NULL. */
static const char *name_unique(IrGraph *g, const char *want)
{
    char buf[64];
    if (!want) {
        for (;;) {
            int n = snprintf(buf, sizeof buf, "%" PRIu64, g->next_number++);
            if (!name_taken(g, buf, (size_t)n))
                return arena_strndup(g->arena, buf, (size_t)n);
        }
    }
    size_t len = strlen(want);
    if (!name_taken(g, want, len))
        return arena_strndup(g->arena, want, len);
    size_t base = base_name_length(want, len);
    uintptr_t next = (uintptr_t)strmap_get(&g->names->suffixes, want, base);
    if (next == 0)
        next = 1;
    char *cand = arena_alloc(g->arena, base + 24);
    memcpy(cand, want, base);
    for (;; next++) {
        int n = snprintf(cand + base, 24, ".%" PRIuPTR, next);
        if (!name_taken(g, cand, base + (size_t)n))
            break;
    }
    const char *key = strmap_get_key(&g->names->suffixes, want, base);
    if (!key)
        key = arena_strndup(g->arena, want, base);
    strmap_put(&g->names->suffixes, key, base, (void *)(next + 1));
    return cand;
}

static void name_claim(IrGraph *g, IrValue *v, const char *want)
{
    v->name = name_unique(g, want);
    strmap_put(&g->names->values, v->name, strlen(v->name), v);
}

static void name_release(IrGraph *g, IrValue *v)
{
    size_t len = strlen(v->name);
    if (strmap_get(&g->names->values, v->name, len) == v)
        strmap_remove(&g->names->values, v->name, len);
}

void ir_value_set_name(IrGraph *g, IrValue *v, const char *name)
{
    if (name && strcmp(v->name, name) == 0)
        return;
    name_release(g, v);
    name_claim(g, v, name);
}

IrValue *ir_graph_lookup_n(IrGraph *g, const char *name, size_t len)
{
    return strmap_get(&g->names->values, name, len);
}

IrValue *ir_graph_lookup(IrGraph *g, const char *name)
{
    return ir_graph_lookup_n(g, name, strlen(name));
}

const char *ir_value_base_name(const IrValue *v, char *buf, size_t size)
{
    size_t len = strlen(v->name);
    size_t base = base_name_length(v->name, len);
    if (size == 0)
        return buf;
    if (base >= size)
        base = size - 1;
    memcpy(buf, v->name, base);
    buf[base] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- arrays */

/* Doubles an arena array of `count` used elements of `elem` bytes; an
 * empty one starts with `first` elements (most nodes have one output, one
 * or two inputs and at most one attribute, so small first sizes keep
 * million-node graphs compact). */
static void *grow(IrGraph *g, void *old, int count, int *cap, size_t elem, int first)
{
    if (*cap > (1 << 29))
        diag_die("array of %d elements is too large", *cap);
    int ncap = *cap ? *cap * 2 : first;
    void *p = arena_alloc(g->arena, (size_t)ncap * elem);
    if (count)
        memcpy(p, old, (size_t)count * elem);
    *cap = ncap;
    return p;
}

/* ---------------------------------------------------------------- uses */

static void use_add(IrValue *v, IrNode *user, int index)
{
    if (v->nuses == v->cap_uses)
        v->uses = grow(user->graph, v->uses, v->nuses, &v->cap_uses, sizeof *v->uses, 2);
    v->uses[v->nuses].user = user;
    v->uses[v->nuses].index = index;
    user->use_slots[index] = v->nuses++;
}

static void use_remove(IrNode *user, int index)
{
    IrValue *v = user->inputs[index];
    int slot = user->use_slots[index];
    if (slot < 0 || slot >= v->nuses || v->uses[slot].user != user || v->uses[slot].index != index)
        diag_die("use list of %%%s out of step with input %d of %s", v->name, index, user->kind);
    int last = --v->nuses;
    if (slot != last) {
        v->uses[slot] = v->uses[last];
        v->uses[slot].user->use_slots[v->uses[slot].index] = slot;
    }
}

/* ---------------------------------------------------------------- nodes */

IrNode *ir_node_new(IrGraph *g, const char *kind)
{
    const char *k = ir_intern(g, kind);
    return node_alloc(g, k, op_lookup(k));
}

IrNode *ir_node_new_op(IrGraph *g, OpId op)
{
    if (op <= OP_UNKNOWN || op >= OP_COUNT)
        diag_die("ir_node_new_op: op id %d is not in the op table", (int)op);
    return node_alloc(g, ir_intern(g, op_table[op].name), op);
}

void ir_node_add_input(IrNode *n, IrValue *v)
{
    if (!v)
        diag_die("ir_node_add_input: NULL value for %s", n->kind);
    if (n->ninputs == n->cap_inputs) {
        int cap = n->cap_inputs;
        n->inputs = grow(n->graph, n->inputs, n->ninputs, &n->cap_inputs, sizeof *n->inputs, 2);
        n->use_slots = grow(n->graph, n->use_slots, n->ninputs, &cap, sizeof *n->use_slots, 2);
    }
    int i = n->ninputs++;
    n->inputs[i] = v;
    use_add(v, n, i);
}

void ir_node_set_input(IrNode *n, int i, IrValue *v)
{
    if (i < 0 || i >= n->ninputs || !v)
        diag_die("ir_node_set_input: bad input %d of %s", i, n->kind);
    use_remove(n, i);
    n->inputs[i] = v;
    use_add(v, n, i);
}

void ir_node_remove_input(IrNode *n, int i)
{
    if (i < 0 || i >= n->ninputs)
        diag_die("ir_node_remove_input: %s has no input %d", n->kind, i);
    use_remove(n, i);
    for (int j = i + 1; j < n->ninputs; j++) {
        n->inputs[j - 1] = n->inputs[j];
        n->use_slots[j - 1] = n->use_slots[j];
        n->inputs[j - 1]->uses[n->use_slots[j - 1]].index = j - 1;
    }
    n->ninputs--;
}

void ir_node_remove_all_inputs(IrNode *n)
{
    while (n->ninputs > 0)
        use_remove(n, --n->ninputs);
}

IrValue *ir_node_add_output(IrNode *n, IrType *type, const char *name)
{
    IrGraph *g = n->graph;
    IrValue *v = arena_alloc(g->arena, sizeof *v);
    v->type = type ? type : ir_type_tensor(g);
    v->def = n;
    v->id = g->nvalues++;
    name_claim(g, v, name);
    if (n->noutputs == n->cap_outputs)
        n->outputs = grow(g, n->outputs, n->noutputs, &n->cap_outputs, sizeof *n->outputs, 1);
    v->def_index = n->noutputs;
    n->outputs[n->noutputs++] = v;
    return v;
}

IrValue *ir_node_add_output_exact(IrNode *n, IrType *type, const char *name, size_t len,
                                  IrValue **taken)
{
    IrGraph *g = n->graph;
    IrValue *v = arena_alloc(g->arena, sizeof *v);
    v->name = arena_strndup(g->arena, name, len);
    *taken = strmap_put_if_absent(&g->names->values, v->name, len, v);
    if (*taken)
        return NULL;
    v->type = type ? type : ir_type_tensor(g);
    v->def = n;
    v->id = g->nvalues++;
    if (n->noutputs == n->cap_outputs)
        n->outputs = grow(g, n->outputs, n->noutputs, &n->cap_outputs, sizeof *n->outputs, 1);
    v->def_index = n->noutputs;
    n->outputs[n->noutputs++] = v;
    return v;
}

void ir_node_remove_output(IrNode *n, int i)
{
    if (i < 0 || i >= n->noutputs)
        diag_die("ir_node_remove_output: %s has no output %d", n->kind, i);
    IrValue *v = n->outputs[i];
    if (v->nuses)
        diag_die("ir_node_remove_output: %%%s still has %d uses", v->name, v->nuses);
    name_release(n->graph, v);
    for (int j = i + 1; j < n->noutputs; j++) {
        n->outputs[j - 1] = n->outputs[j];
        n->outputs[j - 1]->def_index = j - 1;
    }
    n->noutputs--;
}

IrBlock *ir_node_add_block(IrNode *n)
{
    if (n->nblocks == n->cap_blocks)
        n->blocks = grow(n->graph, n->blocks, n->nblocks, &n->cap_blocks, sizeof *n->blocks, 2);
    IrBlock *b = block_new(n->graph, n);
    n->blocks[n->nblocks++] = b;
    return b;
}

IrValue *ir_block_add_param(IrBlock *b, IrType *type, const char *name)
{
    return ir_node_add_output(b->param, type, name);
}

void ir_block_remove_param(IrBlock *b, int i)
{
    ir_node_remove_output(b->param, i);
}

void ir_block_add_return(IrBlock *b, IrValue *v)
{
    ir_node_add_input(b->ret, v);
}

void ir_block_remove_return(IrBlock *b, int i)
{
    ir_node_remove_input(b->ret, i);
}

/* ---------------------------------------------------------------- attributes */

IrAttr *ir_attr_find(const IrNode *n, const char *name)
{
    for (int i = 0; i < n->nattrs; i++)
        if (n->attrs[i].name == name || strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t ir_group_iterations(const IrNode *group)
{
    const IrAttr *a = ir_attr_find(group, "iterations");
    return a && a->kind == ATTR_INT ? a->u.i : 0;
}

IrAttr *ir_attr_add(IrNode *n, const char *name, IrAttrKind kind)
{
    IrAttr *a = ir_attr_find(n, name);
    if (!a) {
        if (n->nattrs == n->cap_attrs)
            n->attrs = grow(n->graph, n->attrs, n->nattrs, &n->cap_attrs, sizeof *n->attrs, 1);
        a = &n->attrs[n->nattrs++];
    }
    memset(a, 0, sizeof *a);
    a->name = ir_intern(n->graph, name);
    a->kind = kind;
    return a;
}

void ir_graph_own_tensor(IrGraph *g, Tensor *t)
{
    struct NameTable *nt = g->names;
    if (nt->ntensors == nt->cap_tensors) {
        size_t cap = nt->cap_tensors ? nt->cap_tensors * 2 : 8;
        Tensor **p = realloc(nt->tensors, cap * sizeof *p);
        if (!p)
            diag_die("out of memory recording a tensor constant");
        nt->tensors = p;
        nt->cap_tensors = cap;
    }
    nt->tensors[nt->ntensors++] = t;
}

void ir_attr_set_tensor(IrNode *n, const char *name, Tensor *t, const char *text)
{
    IrAttr *a = ir_attr_add(n, name, ATTR_TENSOR);
    a->u.t.tensor = t;
    a->u.t.text = text ? arena_strdup(n->graph->arena, text) : NULL;
    if (t)
        ir_graph_own_tensor(n->graph, t);
}

void ir_attr_set_int(IrNode *n, const char *name, int64_t v)
{
    ir_attr_add(n, name, ATTR_INT)->u.i = v;
}

void ir_attr_set_float(IrNode *n, const char *name, double v)
{
    ir_attr_add(n, name, ATTR_FLOAT)->u.f = v;
}

void ir_attr_set_str(IrNode *n, const char *name, const char *v)
{
    ir_attr_add(n, name, ATTR_STR)->u.s = arena_strdup(n->graph->arena, v);
}

void ir_attr_set_ints(IrNode *n, const char *name, const int64_t *v, int count)
{
    IrAttr *a = ir_attr_add(n, name, ATTR_INTS);
    a->n = count;
    a->u.is = arena_alloc(n->graph->arena, sizeof *a->u.is * (size_t)(count > 0 ? count : 1));
    if (count > 0)
        memcpy(a->u.is, v, sizeof *v * (size_t)count);
}

void ir_attr_set_floats(IrNode *n, const char *name, const double *v, int count)
{
    IrAttr *a = ir_attr_add(n, name, ATTR_FLOATS);
    a->n = count;
    a->u.fs = arena_alloc(n->graph->arena, sizeof *a->u.fs * (size_t)(count > 0 ? count : 1));
    if (count > 0)
        memcpy(a->u.fs, v, sizeof *v * (size_t)count);
}

/* ---------------------------------------------------------------- order */

/* Gives n, just linked between two nodes of its block, an order number
 * between theirs, relabelling a neighbourhood when there is no room. */
static void order_assign(IrNode *n)
{
    int64_t lo = n->prev->order, hi = n->next->order;
    int64_t gap = hi - lo;      /* lo >= 0, so this cannot overflow */
    if (gap >= 2) {
        int64_t step = gap / 2 < ORDER_STRIDE ? gap / 2 : ORDER_STRIDE;
        if (n->next->op == OP_PRIM_RETURN)
            n->order = lo + step;
        else if (n->prev->op == OP_PRIM_PARAM)
            n->order = hi - step;
        else
            n->order = lo + gap / 2;
        return;
    }
    /* Grow a window [left, right] (exclusive ends) around n until the
     * numbers between its ends leave each node a gap at least as large as
     * the window's node count, then spread the window's nodes evenly. */
    IrNode *left = n->prev, *right = n->next;
    int64_t count = 1;
    for (int64_t reach = 1;; reach *= 2) {
        for (int64_t k = 0; k < reach && left->op != OP_PRIM_PARAM; k++) {
            left = left->prev;
            count++;
        }
        for (int64_t k = 0; k < reach && right->op != OP_PRIM_RETURN; k++) {
            right = right->next;
            count++;
        }
        int64_t range = right->order - left->order;
        int64_t spacing = range / (count + 1);
        bool whole_block = left->op == OP_PRIM_PARAM && right->op == OP_PRIM_RETURN;
        if (spacing > count || (whole_block && spacing >= 2)) {
            /* Next to the block's end keep appends cheap: no need to
             * spread the window over everything up to INT64_MAX. */
            int64_t enough = count * 2 > ORDER_STRIDE ? count * 2 : ORDER_STRIDE;
            if (right->op == OP_PRIM_RETURN && spacing > enough)
                spacing = enough;
            int64_t at = left->order;
            for (IrNode *m = left->next; m != right; m = m->next) {
                at += spacing;
                m->order = at;
            }
            return;
        }
        if (whole_block)
            diag_die("block of %" PRId64 " nodes is too large to order", count);
    }
}

static void link_before(IrNode *n, IrNode *pos)
{
    if (n->owner || n->dead)
        diag_die("inserting %s, which is %s", n->kind, n->dead ? "destroyed" : "already in a block");
    if (n->op == OP_PRIM_PARAM || n->op == OP_PRIM_RETURN)
        diag_die("inserting a %s node: those exist only as a block's sentinels", n->kind);
    if (!pos->owner || pos->op == OP_PRIM_PARAM || pos->dead)
        diag_die("inserting %s before %s, which is not a place in a block", n->kind, pos->kind);
    n->prev = pos->prev;
    n->next = pos;
    pos->prev->next = n;
    pos->prev = n;
    n->owner = pos->owner;
    order_assign(n);
}

static void unlink_node(IrNode *n)
{
    if (!n->owner)
        return;
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
    n->owner = NULL;
}

void ir_insert_before(IrNode *n, IrNode *pos)
{
    link_before(n, pos);
}

void ir_insert_after(IrNode *n, IrNode *pos)
{
    if (pos->op == OP_PRIM_RETURN || !pos->next)
        diag_die("inserting %s after %s, which ends its block", n->kind, pos->kind);
    link_before(n, pos->next);
}

void ir_append(IrBlock *b, IrNode *n)
{
    link_before(n, b->ret);
}

void ir_prepend(IrBlock *b, IrNode *n)
{
    link_before(n, b->param->next);
}

void ir_move_before(IrNode *n, IrNode *pos)
{
    if (n == pos)
        return;
    unlink_node(n);
    link_before(n, pos);
}

void ir_move_after(IrNode *n, IrNode *pos)
{
    if (n == pos)
        return;
    unlink_node(n);
    ir_insert_after(n, pos);
}

const IrNode *ir_node_prints(const IrNode *n)
{
    if (n->op == OP_PRIM_PRINT || n->op == OP_ATEN_WARN)
        return n;
    for (int i = 0; i < n->nblocks; i++)
        IR_FOREACH_NODE(m, n->blocks[i]) {
            const IrNode *at = ir_node_prints(m);
            if (at)
                return at;
        }
    return NULL;
}

static int block_depth(const IrBlock *b)
{
    int d = 0;
    for (; b->owner; b = b->owner->owner)
        d++;
    return d;
}

bool ir_node_is_before(const IrNode *a, const IrNode *b)
{
    if (!a->owner || !b->owner)
        diag_die("ir_node_is_before: %s is not in a block", a->owner ? b->kind : a->kind);
    if (a == b)
        return false;
    /* Lift both to their first common block, remembering through which
     * block of the lifted node each came (for siblings of one node). */
    const IrNode *la = a, *lb = b;
    const IrBlock *via_a = NULL, *via_b = NULL;
    int da = block_depth(a->owner), db = block_depth(b->owner);
    for (; da > db; da--) {
        via_a = la->owner;
        la = la->owner->owner;
    }
    for (; db > da; db--) {
        via_b = lb->owner;
        lb = lb->owner->owner;
    }
    while (la->owner != lb->owner) {
        if (!la->owner->owner || !lb->owner->owner)
            diag_die("ir_node_is_before: %s and %s are in different graphs", a->kind, b->kind);
        via_a = la->owner;
        la = la->owner->owner;
        via_b = lb->owner;
        lb = lb->owner->owner;
    }
    if (la != lb)
        return la->order < lb->order;
    /* One contains the other (the container is first), or both sit in
     * blocks of one node (block0's contents come before block1's). */
    if (la == a || lb == b)
        return la == a;
    int ia = 0, ib = 0;
    for (int i = 0; i < la->nblocks; i++) {
        if (la->blocks[i] == via_a)
            ia = i;
        if (la->blocks[i] == via_b)
            ib = i;
    }
    return ia < ib;
}

/* True when user, a node or block return, comes after `after` and is not
 * inside one of after's blocks. */
static bool use_is_after(const IrNode *user, const IrNode *after)
{
    if (!ir_node_is_before(after, user))
        return false;
    for (const IrBlock *b = user->owner; b && b->owner; b = b->owner->owner)
        if (b->owner == after)
            return false;
    return true;
}

/* ---------------------------------------------------------------- rewiring */

void ir_replace_all_uses(IrValue *from, IrValue *to)
{
    if (from == to)
        return;
    for (int i = 0; i < from->nuses; i++) {
        IrUse u = from->uses[i];
        u.user->inputs[u.index] = to;
        use_add(to, u.user, u.index);
    }
    from->nuses = 0;
}

void ir_replace_uses_after(IrValue *from, IrValue *to, IrNode *after)
{
    if (from == to)
        return;
    int i = 0;
    while (i < from->nuses) {
        IrUse u = from->uses[i];
        if (use_is_after(u.user, after)) {
            use_remove(u.user, u.index);    /* moves the last use into slot i */
            u.user->inputs[u.index] = to;
            use_add(to, u.user, u.index);
        } else {
            i++;
        }
    }
}

/* Drops every use n and its nested nodes make, gives their values' names
 * back and marks them destroyed. */
static void drop_node(IrNode *n)
{
    for (int b = 0; b < n->nblocks; b++) {
        IrBlock *blk = n->blocks[b];
        for (IrNode *m = blk->param->next; m != blk->ret; m = m->next)
            drop_node(m);
        ir_node_remove_all_inputs(blk->ret);
        for (int i = 0; i < blk->param->noutputs; i++)
            name_release(n->graph, blk->param->outputs[i]);
        blk->param->dead = blk->ret->dead = true;
    }
    ir_node_remove_all_inputs(n);
    for (int i = 0; i < n->noutputs; i++)
        name_release(n->graph, n->outputs[i]);
    n->dead = true;
}

void ir_node_destroy(IrNode *n)
{
    if (n->dead)
        diag_die("destroying %s twice", n->kind);
    if (n->op == OP_PRIM_PARAM || n->op == OP_PRIM_RETURN)
        diag_die("destroying a block's %s sentinel", n->kind);
    for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i]->nuses)
            diag_die("destroying %s whose output %%%s still has %d uses", n->kind,
                     n->outputs[i]->name, n->outputs[i]->nuses);
    drop_node(n);
    unlink_node(n);
}

/* ---------------------------------------------------------------- walking */

IrNode *ir_block_first(const IrBlock *b)
{
    return b->param->next;
}

void ir_walk(IrBlock *b, IrNodeVisitor visit, void *ctx)
{
    IrNode *n = b->param->next;
    while (n != b->ret) {
        /* Taken first so the visitor may destroy or move n itself. */
        IrNode *next = n->next;
        visit(n, ctx);
        if (!n->dead)
            for (int i = 0; i < n->nblocks; i++)
                ir_walk(n->blocks[i], visit, ctx);
        n = next;
    }
}

static size_t count_block(const IrBlock *b)
{
    size_t count = 0;
    for (const IrNode *n = b->param->next; n != b->ret; n = n->next) {
        count++;
        for (int i = 0; i < n->nblocks; i++)
            count += count_block(n->blocks[i]);
    }
    return count;
}

size_t ir_graph_count_nodes(const IrGraph *g)
{
    return count_block(g->top);
}
