/* block_propagation.c — new versions made inside prim::If and prim::Loop
 * blocks leave their blocks as results.
 *
 * Precondition: rewrite_mutation placed tssa::update(new, old) after every
 * write, where `old` is the original value (the key) and uses after the
 * marker mean `new`. A marker inside a block of node N whose key is defined
 * outside N says the key changes inside N, which the code after N must see:
 *
 *   prim::If   gets an output o; each block returns the key (renaming turns
 *              that into the block's last version: the updated one, or the
 *              version current before the If); after N, update(o, key).
 *   prim::Loop carries the key: it becomes an input of N (the version
 *              before the loop), a body parameter p with update(p, key) at
 *              the body's start (uses in the body read the carried
 *              version), a body result (the version at the end of the
 *              iteration) and an output o with update(o, key) after N.
 *
 * Nodes are handled innermost first, so the update a nested node leaves
 * behind is seen by the node around it, through any depth of nesting.
 * Cost: each marker is listed once, by its own block; keys are deduplicated
 * per control node with a stamp per value; checking where a key is defined
 * walks up the nesting. Linear in nodes plus markers times nesting depth.
 */
#include <stdlib.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

typedef struct KeyList {
    IrValue **keys;
    int n, cap;
} KeyList;

typedef struct Propagation {
    IrGraph *g;
    uint32_t nvalues;
    uint64_t *stamp;        /* by value id: the key list it was last added to */
    uint64_t next_stamp;
    size_t if_outputs, loop_carried;
} Propagation;

static void key_push(KeyList *l, IrValue *key)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->keys = realloc(l->keys, sizeof *l->keys * (size_t)l->cap);
        if (!l->keys)
            diag_die("out of memory in block propagation");
    }
    l->keys[l->n++] = key;
}

/* Adds key unless this stamp saw it already (keys made after the pass
 * started have no stamp slot; they are compared one by one). */
static void key_add_once(Propagation *p, KeyList *l, uint64_t stamp, IrValue *key)
{
    if (key->id < p->nvalues) {
        if (p->stamp[key->id] == stamp)
            return;
        p->stamp[key->id] = stamp;
    } else {
        for (int i = 0; i < l->n; i++)
            if (l->keys[i] == key)
                return;
    }
    key_push(l, key);
}

/* True if v is defined inside node n (in one of its blocks, at any depth). */
static bool defined_inside(const IrValue *v, const IrNode *n)
{
    for (const IrBlock *b = v->def->owner; b && b->owner; b = b->owner->owner)
        if (b->owner == n)
            return true;
    return false;
}

static void emit_update_after(IrGraph *g, IrNode *after, IrValue *new_version, IrValue *key)
{
    IrNode *u = ir_node_new_op(g, OP_TSSA_UPDATE);
    ir_node_add_input(u, new_version);
    ir_node_add_input(u, key);
    ir_insert_after(u, after);
}

static void propagate_if(Propagation *p, IrNode *n, IrValue *key)
{
    char buf[128];
    IrValue *o = ir_node_add_output(n, key->type, tssa_base_name(key, buf, sizeof buf));
    for (int b = 0; b < n->nblocks; b++)
        ir_block_add_return(n->blocks[b], key);
    emit_update_after(p->g, n, o, key);
    p->if_outputs++;
}

static void propagate_loop(Propagation *p, IrNode *n, IrValue *key)
{
    char buf[128];
    const char *name = tssa_base_name(key, buf, sizeof buf);
    IrBlock *body = n->blocks[0];
    ir_node_add_input(n, key);
    IrValue *param = ir_block_add_param(body, key->type, name);
    IrNode *u = ir_node_new_op(p->g, OP_TSSA_UPDATE);
    ir_node_add_input(u, param);
    ir_node_add_input(u, key);
    ir_prepend(body, u);
    ir_block_add_return(body, key);
    IrValue *o = ir_node_add_output(n, key->type, name);
    emit_update_after(p->g, n, o, key);
    p->loop_carried++;
}

/* Handles the control nodes of b (innermost first) and appends to out the
 * keys updated directly in b (possibly more than once). */
static void propagate_block(Propagation *p, IrBlock *b, KeyList *out)
{
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        if (n->op == OP_TSSA_UPDATE) {
            key_push(out, n->inputs[1]);
            continue;
        }
        if (n->op != OP_PRIM_IF && n->op != OP_PRIM_LOOP)
            continue;
        KeyList inner = {0};
        for (int i = 0; i < n->nblocks; i++)
            propagate_block(p, n->blocks[i], &inner);
        uint64_t stamp = ++p->next_stamp;
        KeyList unique = {0};
        for (int j = 0; j < inner.n; j++)
            if (!defined_inside(inner.keys[j], n))
                key_add_once(p, &unique, stamp, inner.keys[j]);
        free(inner.keys);
        /* The updates placed after n are nodes of b: the walk reaches them
         * next and records their keys for b. */
        for (int j = 0; j < unique.n; j++) {
            if (n->op == OP_PRIM_IF)
                propagate_if(p, n, unique.keys[j]);
            else if (n->nblocks == 1)
                propagate_loop(p, n, unique.keys[j]);
            else
                diag_die("block propagation: prim::Loop with %d blocks", n->nblocks);
        }
        free(unique.keys);
    }
}

void tssa_block_propagation(IrGraph *g, size_t *if_outputs, size_t *loop_carried)
{
    Propagation p = {0};
    p.g = g;
    p.nvalues = g->nvalues;
    p.stamp = calloc(p.nvalues ? p.nvalues : 1, sizeof *p.stamp);
    if (!p.stamp)
        diag_die("out of memory in block propagation");
    KeyList top = {0};
    propagate_block(&p, g->top, &top);
    free(top.keys);
    free(p.stamp);
    if (if_outputs)
        *if_outputs = p.if_outputs;
    if (loop_carried)
        *loop_carried = p.loop_carried;
}
