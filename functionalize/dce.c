/* dce.c — dead-code elimination, including unused prim::If results and
 * loop-carried values.
 *
 * Mark: the graph's results and every node with effects (writes, raising,
 * printing, unknown ops) are live; a live node makes its inputs live and
 * the control node around it live. A live value makes its definition live,
 * except for results of control nodes, where only the parts that produce
 * it become live: an If result i makes each block's result i live; a loop
 * slot j (its output, its body parameter) makes the initial value and the
 * body's result j live. A live If needs its condition, a live Loop its trip
 * count, initial condition and the body's continue condition.
 *
 * Sweep, each block from its end backwards (users before definitions):
 * dead nodes are destroyed; live control nodes lose their dead results and
 * dead loop slots (output, body parameter, body result, input).
 *
 * Linear in nodes plus inputs.
 */
#include <stdlib.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

typedef struct Dce {
    uint32_t nvalues, nnodes;
    unsigned char *value_live;      /* by value id */
    unsigned char *slot_live;       /* by value id of a loop output */
    unsigned char *node_live;       /* by node id */
    IrNode **work;
    size_t nwork, cap_work;
    size_t removed;
} Dce;

static void push(Dce *d, IrNode *n)
{
    if (d->nwork == d->cap_work) {
        d->cap_work = d->cap_work ? d->cap_work * 2 : 256;
        d->work = realloc(d->work, sizeof *d->work * d->cap_work);
        if (!d->work)
            diag_die("out of memory in dead-code elimination");
    }
    d->work[d->nwork++] = n;
}

static void mark_node(Dce *d, IrNode *n)
{
    if (n->id >= d->nnodes || d->node_live[n->id])
        return;
    d->node_live[n->id] = 1;
    push(d, n);
}

static void mark_value(Dce *d, IrValue *v);

static void mark_slot(Dce *d, IrNode *loop, int j)
{
    IrValue *o = loop->outputs[j];
    if (d->slot_live[o->id])
        return;
    d->slot_live[o->id] = 1;
    mark_node(d, loop);
    if (2 + j < loop->ninputs)
        mark_value(d, loop->inputs[2 + j]);
    IrBlock *body = loop->blocks[0];
    if (1 + j < ir_block_nreturns(body))
        mark_value(d, ir_block_return(body, 1 + j));
}

static void mark_value(Dce *d, IrValue *v)
{
    if (v->id >= d->nvalues || d->value_live[v->id])
        return;
    d->value_live[v->id] = 1;
    IrNode *def = v->def;
    if (def->op == OP_PRIM_PARAM) {
        IrNode *owner = def->owner->owner;
        if (!owner)
            return;
        mark_node(d, owner);
        if (owner->op == OP_PRIM_LOOP && v->def_index > 0 && v->def_index - 1 < owner->noutputs)
            mark_slot(d, owner, v->def_index - 1);
        return;
    }
    if (def->op == OP_PRIM_IF) {
        mark_node(d, def);
        for (int b = 0; b < def->nblocks; b++)
            if (v->def_index < ir_block_nreturns(def->blocks[b]))
                mark_value(d, ir_block_return(def->blocks[b], v->def_index));
        return;
    }
    if (def->op == OP_PRIM_LOOP) {
        mark_slot(d, def, v->def_index);
        return;
    }
    mark_node(d, def);
}

/* Effects of the node itself, not of what its blocks hold. */
static bool own_effects(const IrNode *n)
{
    if (n->op == OP_PRIM_IF || n->op == OP_PRIM_LOOP)
        return false;
    return tssa_node_has_effects(n);
}

static void seed_block(Dce *d, IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (own_effects(n))
            mark_node(d, n);
        for (int i = 0; i < n->nblocks; i++)
            seed_block(d, n->blocks[i]);
    }
}

static void process(Dce *d, IrNode *n)
{
    IrNode *owner = n->owner ? n->owner->owner : NULL;
    if (owner)
        mark_node(d, owner);
    switch (n->op) {
    case OP_PRIM_IF:
        if (n->ninputs > 0)
            mark_value(d, n->inputs[0]);
        break;
    case OP_PRIM_LOOP:
        for (int i = 0; i < 2 && i < n->ninputs; i++)
            mark_value(d, n->inputs[i]);
        if (n->nblocks && ir_block_nreturns(n->blocks[0]) > 0)
            mark_value(d, ir_block_return(n->blocks[0], 0));
        break;
    default:
        for (int i = 0; i < n->ninputs; i++)
            mark_value(d, n->inputs[i]);
        break;
    }
}

static void sweep_block(Dce *d, IrBlock *b);

static void sweep_if(Dce *d, IrNode *n)
{
    for (int i = n->noutputs - 1; i >= 0; i--) {
        if (d->value_live[n->outputs[i]->id])
            continue;
        ir_node_remove_output(n, i);
        for (int b = 0; b < n->nblocks; b++)
            if (i < ir_block_nreturns(n->blocks[b]))
                ir_block_remove_return(n->blocks[b], i);
    }
    for (int b = 0; b < n->nblocks; b++)
        sweep_block(d, n->blocks[b]);
}

static void sweep_loop(Dce *d, IrNode *n)
{
    IrBlock *body = n->blocks[0];
    int nout = n->noutputs;
    unsigned char *dead = calloc((size_t)nout + 1, 1);
    if (!dead)
        diag_die("out of memory in dead-code elimination");
    for (int j = 0; j < nout; j++)
        dead[j] = !d->slot_live[n->outputs[j]->id];
    for (int j = nout - 1; j >= 0; j--)
        if (dead[j] && 1 + j < ir_block_nreturns(body))
            ir_block_remove_return(body, 1 + j);
    sweep_block(d, body);
    for (int j = nout - 1; j >= 0; j--) {
        if (!dead[j])
            continue;
        ir_node_remove_output(n, j);
        if (1 + j < ir_block_nparams(body))
            ir_block_remove_param(body, 1 + j);
        if (2 + j < n->ninputs)
            ir_node_remove_input(n, 2 + j);
    }
    free(dead);
}

static void sweep_block(Dce *d, IrBlock *b)
{
    IrNode *n = b->ret->prev;
    while (n != b->param) {
        IrNode *prev = n->prev;
        if (!d->node_live[n->id]) {
            ir_node_destroy(n);
            d->removed++;
        } else if (n->op == OP_PRIM_IF) {
            sweep_if(d, n);
        } else if (n->op == OP_PRIM_LOOP) {
            sweep_loop(d, n);
        } else {
            for (int i = 0; i < n->nblocks; i++)
                sweep_block(d, n->blocks[i]);
        }
        n = prev;
    }
}

size_t tssa_dce(IrGraph *g)
{
    Dce d = {0};
    d.nvalues = g->nvalues;
    d.nnodes = g->nnodes;
    d.value_live = calloc(d.nvalues ? d.nvalues : 1, 1);
    d.slot_live = calloc(d.nvalues ? d.nvalues : 1, 1);
    d.node_live = calloc(d.nnodes ? d.nnodes : 1, 1);
    if (!d.value_live || !d.slot_live || !d.node_live)
        diag_die("out of memory in dead-code elimination");
    for (int i = 0; i < ir_block_nreturns(g->top); i++)
        mark_value(&d, ir_block_return(g->top, i));
    seed_block(&d, g->top);
    while (d.nwork)
        process(&d, d.work[--d.nwork]);
    sweep_block(&d, g->top);
    free(d.value_live);
    free(d.slot_live);
    free(d.node_live);
    free(d.work);
    return d.removed;
}
