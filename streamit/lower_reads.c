/* lower_reads.c — what a set of IR nodes reads from outside itself: the
 * items a filter pops. A unit of the top level (lower_build.c) and the
 * filters of a loop (lower_loop.c) both ask it.
 *
 * One pass over the nodes with stamped marks by value id, so a new set
 * costs nothing to start: values made inside the set (node outputs, block
 * parameters, at any depth) are marked first, then the values read are
 * listed in first-use order, each once. Compile-time values are no items
 * and are left out, as are the values the caller marks in `skip`.
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/util.h"

void lower_reads_init(LowerReads *r, LowerProgram *p)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->inside = xcalloc((size_t)p->g->nvalues + 1, sizeof *r->inside);
    r->seen = xcalloc((size_t)p->g->nvalues + 1, sizeof *r->seen);
}

void lower_reads_free(LowerReads *r)
{
    free(r->inside);
    free(r->seen);
    free(r->list);
}

void lower_reads_begin(LowerReads *r)
{
    r->stamp++;
    r->n = 0;
}

static void mark_block_inside(LowerReads *r, const IrBlock *b)
{
    for (int i = 0; i < ir_block_nparams(b); i++)
        r->inside[ir_block_param(b, i)->id] = r->stamp;
    IR_FOREACH_NODE(x, b)
        lower_reads_inside(r, x);
}

void lower_reads_inside(LowerReads *r, const IrNode *n)
{
    for (int i = 0; i < n->noutputs; i++)
        r->inside[n->outputs[i]->id] = r->stamp;
    for (int b = 0; b < n->nblocks; b++)
        mark_block_inside(r, n->blocks[b]);
}

void lower_reads_use(LowerReads *r, IrValue *v)
{
    if (r->inside[v->id] == r->stamp || r->seen[v->id] == r->stamp || r->p->is_static[v->id] ||
        (r->skip && r->skip[v->id]))
        return;
    r->seen[v->id] = r->stamp;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->list = xrealloc(r->list, (size_t)r->cap * sizeof *r->list);
    }
    r->list[r->n++] = v;
}

void lower_reads_node(LowerReads *r, const IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++)
        lower_reads_use(r, n->inputs[i]);
    for (int b = 0; b < n->nblocks; b++) {
        IR_FOREACH_NODE(x, n->blocks[b])
            lower_reads_node(r, x);
        for (int i = 0; i < ir_block_nreturns(n->blocks[b]); i++)
            lower_reads_use(r, ir_block_return(n->blocks[b], i));
    }
}

IrValue **lower_reads_take(LowerReads *r, int *n)
{
    IrValue **out = lower_alloc(r->p, (size_t)r->n * sizeof *out);
    if (r->n > 0)
        memcpy(out, r->list, (size_t)r->n * sizeof *out);
    *n = r->n;
    return out;
}
