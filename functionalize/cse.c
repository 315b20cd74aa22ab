/* cse.c — common-subexpression elimination over the block tree.
 *
 * A pure node (deterministic, no effects, no blocks: see
 * tssa_node_is_pure) is replaced by an earlier node with the same op,
 * inputs, attributes and output types that dominates it: one in the same
 * block before it, or in an enclosing block before the node holding it.
 * The walk keeps a hash table of the nodes seen on the way down; leaving a
 * block removes what the block added (entries sit at the heads of their
 * buckets in stack order, so popping is O(1)).
 *
 * Only after functionalization is this sound for tensors: two reads of a
 * tensor that is written in place between them differ. So while any write
 * is left (imperative regions), nodes touching tensors or containers are
 * not merged; scalar arithmetic and constants still are. Likewise nodes
 * reading lists or dicts (of any element type) are not merged when the
 * graph mutates one in place (append, remove, clear, insert, pop, +=...:
 * len(l) changes), and module attributes not when prim::SetAttr may rebind
 * them (left only where module_state.c declined the graph).
 *
 * Linear in nodes plus inputs (expected, with hashing).
 */
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

typedef struct Entry {
    IrNode *node;
    uint64_t hash;
    int next;           /* next entry in the bucket, -1 at the end */
    size_t bucket;
} Entry;

typedef struct Cse {
    int *buckets;       /* head entry index, -1 when empty */
    size_t nbuckets;
    Entry *entries;     /* a stack */
    int nentries, cap_entries;
    bool writes_left;
    bool lists_mutated;
    bool attributes_rebound;
    size_t removed;
} Cse;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_attr(const IrAttr *a)
{
    uint64_t h = hash_bytes(a->name, strlen(a->name));
    h = mix(h, (uint64_t)a->kind);
    switch (a->kind) {
    case ATTR_INT: return mix(h, (uint64_t)a->u.i);
    case ATTR_FLOAT: return mix(h, hash_bytes(&a->u.f, sizeof a->u.f));
    case ATTR_STR: return mix(h, hash_bytes(a->u.s, strlen(a->u.s)));
    case ATTR_INTS: return mix(h, hash_bytes(a->u.is, sizeof *a->u.is * (size_t)a->n));
    case ATTR_FLOATS: return mix(h, hash_bytes(a->u.fs, sizeof *a->u.fs * (size_t)a->n));
    default: return mix(h, (uint64_t)a->n);
    }
}

static uint64_t hash_node(const IrNode *n)
{
    uint64_t h = mix(0, (uint64_t)n->op);
    for (int i = 0; i < n->ninputs; i++)
        h = mix(h, n->inputs[i]->id);
    for (int i = 0; i < n->nattrs; i++)
        h = mix(h, hash_attr(&n->attrs[i]));
    return mix(h, (uint64_t)n->noutputs);
}

static bool attr_equal(const IrAttr *a, const IrAttr *b)
{
    if (strcmp(a->name, b->name) != 0 || a->kind != b->kind || a->n != b->n)
        return false;
    switch (a->kind) {
    case ATTR_INT: return a->u.i == b->u.i;
    case ATTR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
    case ATTR_STR: return strcmp(a->u.s, b->u.s) == 0;
    case ATTR_INTS: return a->n == 0 || memcmp(a->u.is, b->u.is, sizeof *a->u.is * (size_t)a->n) == 0;
    case ATTR_FLOATS: return a->n == 0 || memcmp(a->u.fs, b->u.fs, sizeof *a->u.fs * (size_t)a->n) == 0;
    case ATTR_STRS:
        for (int i = 0; i < a->n; i++)
            if (strcmp(a->u.ss[i], b->u.ss[i]) != 0)
                return false;
        return true;
    case ATTR_TENSOR:
        /* Only the same constant object is known to be equal. */
        return a->u.t.tensor == b->u.t.tensor && a->u.t.tensor != NULL;
    case ATTR_RAW:
        return strcmp(a->u.raw, b->u.raw) == 0;
    }
    return false;
}

static bool nodes_equal(const IrNode *a, const IrNode *b)
{
    if (a->op != b->op || a->ninputs != b->ninputs || a->noutputs != b->noutputs ||
        a->nattrs != b->nattrs)
        return false;
    for (int i = 0; i < a->ninputs; i++)
        if (a->inputs[i] != b->inputs[i])
            return false;
    for (int i = 0; i < a->noutputs; i++)
        if (!ir_type_equal(a->outputs[i]->type, b->outputs[i]->type))
            return false;
    for (int i = 0; i < a->nattrs; i++)
        if (!attr_equal(&a->attrs[i], &b->attrs[i]))
            return false;
    return true;
}

static bool touches(const IrNode *n, bool (*is)(const IrValue *))
{
    for (int i = 0; i < n->ninputs; i++)
        if (is(n->inputs[i]))
            return true;
    for (int i = 0; i < n->noutputs; i++)
        if (is(n->outputs[i]))
            return true;
    return false;
}

/* A list or dict: containers a program can change in place. */
static bool is_mutable_container(const IrValue *v)
{
    return v->type && (v->type->kind == TY_LIST || v->type->kind == TY_DICT);
}

static bool candidate(const Cse *c, const IrNode *n)
{
    if (n->noutputs == 0 || n->op == OP_UNKNOWN || !tssa_node_is_pure(n))
        return false;
    if (c->writes_left && touches(n, tssa_is_tensor_value))
        return false;
    if (c->writes_left && touches(n, tssa_is_container_value))
        return false;
    if (c->lists_mutated && touches(n, is_mutable_container))
        return false;
    if (c->attributes_rebound && n->op == OP_PRIM_GETATTR)
        return false;
    return true;
}

static void push_entry(Cse *c, IrNode *n, uint64_t h)
{
    if (c->nentries == c->cap_entries) {
        c->cap_entries = c->cap_entries ? c->cap_entries * 2 : 1024;
        c->entries = realloc(c->entries, sizeof *c->entries * (size_t)c->cap_entries);
        if (!c->entries)
            diag_die("out of memory in CSE");
    }
    size_t b = h & (c->nbuckets - 1);
    Entry *e = &c->entries[c->nentries];
    e->node = n;
    e->hash = h;
    e->bucket = b;
    e->next = c->buckets[b];
    c->buckets[b] = c->nentries++;
}

static void cse_block(Cse *c, IrBlock *b)
{
    int mark = c->nentries;
    IrNode *n = ir_block_first(b);
    while (n != b->ret) {
        IrNode *next = n->next;
        for (int i = 0; i < n->nblocks; i++)
            cse_block(c, n->blocks[i]);
        if (candidate(c, n)) {
            uint64_t h = hash_node(n);
            IrNode *same = NULL;
            for (int e = c->buckets[h & (c->nbuckets - 1)]; e >= 0; e = c->entries[e].next)
                if (c->entries[e].hash == h && nodes_equal(c->entries[e].node, n)) {
                    same = c->entries[e].node;
                    break;
                }
            if (same) {
                for (int i = 0; i < n->noutputs; i++)
                    ir_replace_all_uses(n->outputs[i], same->outputs[i]);
                ir_node_destroy(n);
                c->removed++;
            } else {
                push_entry(c, n, h);
            }
        }
        n = next;
    }
    while (c->nentries > mark) {
        Entry *e = &c->entries[--c->nentries];
        c->buckets[e->bucket] = e->next;
    }
}

typedef struct Scan {
    bool writes, list_writes, setattr;
} Scan;

static void scan_node(IrNode *n, void *ctx)
{
    Scan *s = ctx;
    int mutated = n->op == OP_UNKNOWN ? -1 : op_info(n->op)->mutates;
    if (n->op == OP_PRIM_SETATTR)
        s->setattr = true;
    else if (mutated >= 0 && mutated < n->ninputs && is_mutable_container(n->inputs[mutated]))
        s->list_writes = true;
    else if (n->noutputs == 0 && n->ninputs > 0 && is_mutable_container(n->inputs[0]))
        s->list_writes = true;   /* list.sort(): aten::sort(list) with no result */
    else if (n->op == OP_UNKNOWN || op_is_inplace(n->op))
        s->writes = true;
}

size_t tssa_cse(IrGraph *g)
{
    Cse c = {0};
    Scan s = {0};
    ir_walk(g->top, scan_node, &s);
    c.writes_left = s.writes;
    c.lists_mutated = s.list_writes;
    c.attributes_rebound = s.setattr;
    size_t want = 2 * ir_graph_count_nodes(g) + 16;
    c.nbuckets = 16;
    while (c.nbuckets < want)
        c.nbuckets *= 2;
    c.buckets = malloc(sizeof *c.buckets * c.nbuckets);
    if (!c.buckets)
        diag_die("out of memory in CSE");
    for (size_t i = 0; i < c.nbuckets; i++)
        c.buckets[i] = -1;
    cse_block(&c, g->top);
    free(c.buckets);
    free(c.entries);
    return c.removed;
}
