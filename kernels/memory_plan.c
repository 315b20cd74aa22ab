/* memory_plan.c — the program's tensor memory, planned from liveness.
 *
 * Preconditions: shapes are inferred and fusion is done. Walks the
 * specialized graph in program order (the order the schedule runs the
 * top-level work in) with every tensor value's static byte size, and gives
 * each value made at run time a place in one buffer: offset-first-fit over
 * the blocks freed by values whose last use has passed (ggml-alloc's
 * scheme). A loop counts with the largest footprint of one iteration of its
 * body (its iterations reuse the same places); a group's members need no
 * memory of their own (a kernel computes them in registers), only its
 * outputs. What the plan gives:
 *   - bytes_planned: the buffer size (the peak of live tensor bytes after
 *     reuse), the number --stats prints;
 *   - bytes_naive:   the sum of every value's bytes (what allocating each
 *     result anew, never reusing, would touch);
 * Values of unknown shape (data-dependent) are counted apart.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

typedef struct Block {
    int64_t offset, size;
} Block;

typedef struct Planner {
    const LowerProgram *p;
    Block *free_blocks;
    int nfree, capfree;
    int64_t top;                /* end of the buffer so far */
    int64_t *offset;            /* by value id: its place, or -1 */
    uint32_t nvalues;
    KernelsMemory m;
} Planner;

static int64_t bytes_of(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    if (!t)
        return -1;
    int64_t n = (int64_t)dtype_size((TensorDType)t->dtype);
    for (int d = 0; d < t->rank; d++)
        n *= t->sizes[d];
    return (n + 63) / 64 * 64;     /* cache-line aligned places */
}

static int64_t place(Planner *pl, int64_t size)
{
    int best = -1;
    for (int i = 0; i < pl->nfree; i++)
        if (pl->free_blocks[i].size >= size &&
            (best < 0 || pl->free_blocks[i].size < pl->free_blocks[best].size))
            best = i;
    if (best >= 0) {
        Block *b = &pl->free_blocks[best];
        int64_t at = b->offset;
        b->offset += size;
        b->size -= size;
        if (b->size == 0)
            pl->free_blocks[best] = pl->free_blocks[--pl->nfree];
        return at;
    }
    int64_t at = pl->top;
    pl->top += size;
    return at;
}

/* Returns [at, at+size) to the free list, merging with its neighbours. */
static void release(Planner *pl, int64_t at, int64_t size)
{
    for (int i = 0; i < pl->nfree; i++) {
        Block *b = &pl->free_blocks[i];
        if (b->offset + b->size == at) {
            b->size += size;
            return;
        }
        if (at + size == b->offset) {
            b->offset = at;
            b->size += size;
            return;
        }
    }
    if (at + size == pl->top) {
        pl->top = at;
        return;
    }
    if (pl->nfree == pl->capfree) {
        pl->capfree = pl->capfree ? pl->capfree * 2 : 16;
        pl->free_blocks = xrealloc(pl->free_blocks, (size_t)pl->capfree * sizeof *pl->free_blocks);
    }
    pl->free_blocks[pl->nfree++] = (Block){at, size};
}

/* The last node of block b (or b's return) that reads v, seen at b's level. */
static const IrNode *last_use(const IrValue *v, const IrBlock *b)
{
    const IrNode *last = NULL;
    for (int u = 0; u < v->nuses; u++) {
        const IrNode *at = v->uses[u].user;
        while (at->owner != b && at->owner && at->owner->owner)
            at = at->owner->owner;
        if (at->owner != b)
            continue;
        if (!last || at->op == OP_PRIM_RETURN || (last->op != OP_PRIM_RETURN && ir_node_is_before(last, at)))
            last = at;
    }
    return last;
}

static void plan_block(Planner *pl, const IrBlock *b);

static void make(Planner *pl, const IrValue *v)
{
    if (lower_static_value(pl->p, v) || !v->type || v->type->kind != TY_TENSOR)
        return;
    int64_t size = bytes_of(v);
    if (size < 0) {
        pl->m.values_unknown++;
        return;
    }
    pl->m.values_planned++;
    pl->m.bytes_naive += size;
    if (v->id < pl->nvalues)
        pl->offset[v->id] = place(pl, size);
    if (pl->top > pl->m.bytes_planned)
        pl->m.bytes_planned = pl->top;
}

/* Frees the values whose last use in b is n. */
static void free_dead(Planner *pl, const IrBlock *b, const IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *v = n->inputs[i];
        if (v->id >= pl->nvalues || pl->offset[v->id] < 0 || last_use(v, b) != n)
            continue;
        int64_t size = bytes_of(v);
        release(pl, pl->offset[v->id], size);
        pl->offset[v->id] = -1;
    }
}

static void plan_block(Planner *pl, const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        /* a group's members live in registers; other blocks are planned
         * in the same buffer while they run */
        if (n->op != OP_TSSA_FUSION_GROUP)
            for (int k = 0; k < n->nblocks; k++)
                plan_block(pl, n->blocks[k]);
        for (int o = 0; o < n->noutputs; o++)
            make(pl, n->outputs[o]);
        free_dead(pl, b, n);
    }
}

KernelsMemory kernels_plan_memory(const LowerProgram *p)
{
    IrGraph *g = lower_ir_graph(p);
    Planner pl = {.p = p, .nvalues = g->nvalues};
    pl.offset = xmalloc(((size_t)g->nvalues + 1) * sizeof *pl.offset);
    for (uint32_t i = 0; i <= g->nvalues; i++)
        pl.offset[i] = -1;
    plan_block(&pl, g->top);
    free(pl.offset);
    free(pl.free_blocks);
    return pl.m;
}
