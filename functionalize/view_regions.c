/* view_regions.c — the "fewer copies" steps (the ViewDialect idea of the
 * TensorSSA seed material): reason about which part of a root each view
 * covers, so that functionalization copies less.
 *
 * 1. Disjoint regions. A view made from its root by select, slice, narrow
 *    (and unbind/split pieces) with constant, non-negative arguments covers
 *    a box of the root: per root dimension a point, or an arithmetic
 *    progression [lo, hi) with a step. Two boxes are disjoint when, in some
 *    root dimension, their index sets cannot meet (disjoint intervals,
 *    a point outside the other's progression, or equal steps with different
 *    residues: x[0::2] and x[1::2]). rewrite_mutation skips the pass-down
 *    re-read of a view whose box is disjoint from the written one: its old
 *    value is still exact. Slice bounds past the end only shrink the real
 *    sets, so the test stays sound without knowing the root's shape.
 *    Where two chains part into different pieces of one chunk, split or
 *    unbind, they are disjoint whatever the sizes. Anything else (negative
 *    indices, permutes, reshapes, unknown values) answers "may overlap".
 *
 * 2. Assigns merged into their source. A write of a whole root becomes
 *    immut::assign(x, t), because in general t's dtype or shape may differ
 *    from x's. Where the graph's types say both are the same dtype and the
 *    same fully known sizes, the assign is the identity and t is used
 *    directly. (The other case, t made by the out-of-place twin of an
 *    in-place op that keeps self's layout, is known when the write is
 *    rewritten: see inplace_to_functional.c.)
 */
#include <stdint.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

/* ---------------------------------------------------------------- boxes */

enum { BOX_DIMS = 16 };
#define BOX_INF INT64_MAX

typedef struct Box {
    bool constrained[BOX_DIMS];
    bool removed[BOX_DIMS];     /* selected away: no longer a dim of the view */
    int64_t lo[BOX_DIMS], hi[BOX_DIMS], step[BOX_DIMS];
} Box;

/* Root dimension of the view's dim d (views here never reorder dims). */
static int root_dim(const Box *b, int64_t d)
{
    for (int r = 0; r < BOX_DIMS; r++) {
        if (b->removed[r])
            continue;
        if (d-- == 0)
            return r;
    }
    return -1;
}

static bool box_slice(Box *b, int64_t dim, int64_t start, int64_t end, int64_t step)
{
    int r = root_dim(b, dim);
    if (r < 0 || start < 0 || end < 0 || step < 1)
        return false;
    if (!b->constrained[r]) {
        b->constrained[r] = true;
        b->lo[r] = 0;
        b->hi[r] = BOX_INF;
        b->step[r] = 1;
    }
    int64_t lo = b->lo[r], st = b->step[r];
    if (start > (BOX_INF - lo) / st || (end != BOX_INF && end > (BOX_INF - lo) / st) ||
        step > BOX_INF / st)
        return false;
    int64_t new_lo = lo + start * st;
    int64_t new_hi = end == BOX_INF ? b->hi[r] : lo + end * st;
    if (new_hi > b->hi[r])
        new_hi = b->hi[r];
    b->lo[r] = new_lo;
    b->hi[r] = new_hi;
    b->step[r] = st * step;
    return true;
}

static bool box_select(Box *b, int64_t dim, int64_t index)
{
    int r = root_dim(b, dim);
    if (!box_slice(b, dim, index, index + 1, 1))
        return false;
    b->removed[r] = true;
    return true;
}

static bool arg_int(const IrNode *n, int i, int64_t dflt, int64_t *out)
{
    if (i >= n->ninputs || tssa_is_none(n->inputs[i])) {
        *out = dflt;
        return true;
    }
    return tssa_const_int(n->inputs[i], out);
}

static bool apply_step(Box *b, const TssaStep *s)
{
    const IrNode *n = s->node;
    int64_t dim, x, y, z;
    switch (s->kind) {
    case TSSA_STEP_NONE:
    case TSSA_STEP_IDENTITY:
        return true;
    case TSSA_STEP_VIEW:
        switch (n->op) {
        case OP_ATEN_SELECT:
            return arg_int(n, 1, 0, &dim) && arg_int(n, 2, 0, &x) && box_select(b, dim, x);
        case OP_ATEN_SLICE:
            return arg_int(n, 1, 0, &dim) && arg_int(n, 2, 0, &x) && arg_int(n, 3, BOX_INF, &y) &&
                   arg_int(n, 4, 1, &z) && box_slice(b, dim, x, y, z);
        case OP_ATEN_NARROW:
            return arg_int(n, 1, 0, &dim) && arg_int(n, 2, 0, &x) && arg_int(n, 3, 0, &y) &&
                   y >= 0 && x >= 0 && x <= BOX_INF - y && box_slice(b, dim, x, x + y, 1);
        default:
            return false;
        }
    case TSSA_STEP_PIECE:
        if (s->index)
            return false;   /* a run-time piece: its region is not known */
        if (n->op == OP_ATEN_UNBIND)
            return arg_int(n, 1, 0, &dim) && box_select(b, dim, s->piece);
        if (n->op == OP_ATEN_SPLIT && n->ninputs > 1 && n->inputs[1]->type &&
            n->inputs[1]->type->kind == TY_INT) {
            return arg_int(n, 1, 0, &x) && arg_int(n, 2, 0, &dim) && x > 0 &&
                   s->piece < BOX_INF / x - 1 &&
                   box_slice(b, dim, x * s->piece, x * (s->piece + 1), 1);
        }
        return false;
    }
    return false;
}

static bool box_of(const TssaAlias *al, const IrValue *v, Box *b)
{
    const TssaStep *steps[256];
    int n = 0;
    for (const TssaValueInfo *info = tssa_alias_info(al, v); info && info->parent;
         info = tssa_alias_info(al, info->parent)) {
        if (n == 256)
            return false;
        steps[n++] = &info->step;
    }
    memset(b, 0, sizeof *b);
    for (int i = n - 1; i >= 0; i--)
        if (!apply_step(b, steps[i]))
            return false;
    return true;
}

static int64_t floor_mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

static bool in_progression(int64_t p, int64_t lo, int64_t hi, int64_t step)
{
    return p >= lo && p < hi && floor_mod(p - lo, step) == 0;
}

static bool dims_disjoint(const Box *a, const Box *b, int r)
{
    if (!a->constrained[r] || !b->constrained[r])
        return false;
    int64_t lo1 = a->lo[r], hi1 = a->hi[r], s1 = a->step[r];
    int64_t lo2 = b->lo[r], hi2 = b->hi[r], s2 = b->step[r];
    if (hi1 <= lo2 || hi2 <= lo1)
        return true;
    if (hi1 - lo1 == 1)
        return !in_progression(lo1, lo2, hi2, s2);
    if (hi2 - lo2 == 1)
        return !in_progression(lo2, lo1, hi1, s1);
    return s1 == s2 && floor_mod(lo1 - lo2, s1) != 0;
}

/* Values from the root down to v (path[0] is the root); the count, or -1. */
static int path_of(const TssaAlias *al, const IrValue *v, const IrValue **path, int cap)
{
    int n = 0;
    for (const IrValue *at = v; at; n++) {
        if (n == cap)
            return -1;
        path[n] = at;
        const TssaValueInfo *info = tssa_alias_info(al, at);
        at = info ? info->parent : NULL;
    }
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        const IrValue *t = path[i];
        path[i] = path[j];
        path[j] = t;
    }
    return n;
}

/* Where the two chains part, both are different pieces of one chunk, split
 * or unbind: such pieces never share an element, whatever the sizes. */
static bool different_pieces(const TssaAlias *al, const IrValue *a, const IrValue *b)
{
    const IrValue *pa[256], *pb[256];
    int na = path_of(al, a, pa, 256), nb = path_of(al, b, pb, 256);
    if (na < 0 || nb < 0)
        return false;
    int i = 0;
    while (i < na && i < nb && pa[i] == pb[i])
        i++;
    if (i == 0 || i >= na || i >= nb)
        return false;
    const TssaStep *sa = &tssa_alias_info(al, pa[i])->step, *sb = &tssa_alias_info(al, pb[i])->step;
    return sa->kind == TSSA_STEP_PIECE && sb->kind == TSSA_STEP_PIECE && sa->node == sb->node &&
           !sa->index && !sb->index && sa->piece != sb->piece;
}

bool tssa_regions_disjoint(const TssaAlias *al, const IrValue *a, const IrValue *b)
{
    if (different_pieces(al, a, b))
        return true;
    Box ba, bb;
    if (!box_of(al, a, &ba) || !box_of(al, b, &bb))
        return false;
    for (int r = 0; r < BOX_DIMS; r++)
        if (dims_disjoint(&ba, &bb, r))
            return true;
    return false;
}

/* ---------------------------------------------------------------- merged assigns */

static bool fully_known(const IrType *t)
{
    if (!t || t->kind != TY_TENSOR || !t->tensor.scalar || t->tensor.rank < 0)
        return false;
    for (int i = 0; i < t->tensor.rank; i++)
        if (t->tensor.sizes[i] < 0)
            return false;
    return true;
}

static bool same_layout(const IrType *a, const IrType *b)
{
    if (!fully_known(a) || !fully_known(b) || a->tensor.rank != b->tensor.rank ||
        strcmp(a->tensor.scalar, b->tensor.scalar) != 0)
        return false;
    for (int i = 0; i < a->tensor.rank; i++)
        if (a->tensor.sizes[i] != b->tensor.sizes[i])
            return false;
    return true;
}

typedef struct Merge {
    size_t count;
} Merge;

static void merge_node(IrNode *n, void *ctx)
{
    Merge *m = ctx;
    if (n->op != OP_IMMUT_ASSIGN || n->ninputs != 2 || n->noutputs != 1)
        return;
    if (!same_layout(n->inputs[0]->type, n->inputs[1]->type))
        return;
    ir_replace_all_uses(n->outputs[0], n->inputs[1]);
    m->count++;
}

size_t tssa_merge_assigns(IrGraph *g)
{
    Merge m = {0};
    ir_walk(g->top, merge_node, &m);
    return m.count;
}
