/* batch_heads.c — a loop over heads (each iteration a slice at h*W of a
 * dim) as batched operations over all heads: one strided-batched GEMM per
 * product, one kernel per fused group, one kernel for the write, where the
 * loop made each of them once per head (multi-head attention's head loop:
 * 52 launches for 12 heads become about 10).
 *
 * The loop it takes (after kernels_fuse):
 *     %out = prim::Loop(N, true, %dst)                 N a compile-time int
 *       block0(%h, %d):
 *         %s = aten::mul(%h, W) ...                    int arithmetic of %h
 *         %xh = aten::slice(%X, dim, %s, %e, 1)        X from outside
 *         %kt = aten::transpose(%kh, a, b)             of a step's value (or t)
 *         %p = aten::bmm(%xh, %kt)                     of two steps' values
 *         %g = tssa::FusionGroup(%p, outside..., %h)   (or matmul; or mm /
 *         %r = aten::bmm(%g, %vh)                      matmul / linear of a
 *         %d2 = immut::slice_rev(%d, %r, dim', %s', %e', 1)   step by weights,
 *         -> (true, %d2)                               or mm / matmul of an
 *                                                      outside value by a step)
 * Preconditions, all checked:
 *   - N is a compile-time int >= 1 and the condition a compile-time true;
 *   - every slice's start and end are int arithmetic (mul, add, sub,
 *     floordiv) of %h and compile-time ints whose values at h = 0..N-1 are
 *     c + h*W and c + (h+1)*W, step 1, inside the dim (no clamping): the
 *     iterations' slices are disjoint and side by side;
 *   - the write is slice_rev of the carried value %d, which nothing else
 *     reads, at such slices of dim' whose width is %r's size there, its
 *     result read only by the body's return: no iteration reads what
 *     another wrote, and each writes its own columns once;
 *   - every step reads only values from outside the loop, the counter
 *     (groups only), the index arithmetic (slices only) and earlier steps'
 *     values, and its value is read only by later steps (the last step's by
 *     the write): nothing of an iteration escapes it but the write.
 * Then the loop's result is %dst with columns c .. c+N*W of dim' replaced by
 * the N values of %r side by side; where they cover the dim, %dst is not
 * read at all. Each step's value becomes its N values stacked along a new
 * dim 0:
 *     slice of X       X's columns c .. c+N*W of dim, reshaped to [.., N, W,
 *                      ..] and permuted to [N, ..] (a view)
 *     transpose(a, b)  transpose(a+1, b+1) of the stacked value (t of a
 *                      matrix: transpose(1, 2))
 *     bmm / matmul of two steps: matmul of the stacked values (one batched
 *                      GEMM; an operand whose layout the GEMM cannot read is
 *                      made contiguous on the device by one copy)
 *     mm / matmul / linear by weights: matmul / linear of the stacked value
 *     mm / matmul of X from outside by a step's matrix: for x @ w[:, band]
 *                      (as sink_sliced_products leaves a head's projection)
 *                      the bands of x @ w[:, c:c+N*W], one GEMM; else X as
 *                      [1, .., M, K] by the stacked matrices as [N, 1.., K,
 *                      W] (a broadcast batched product)
 *     a group          the group over all iterations (horizontal.c's)
 * and the write is one group that permutes the stacked result back ([N, ..,
 * W, ..] to [.., N*W, ..]: one kernel; a view where that moves N past dims
 * of size 1 only, as for one head), written into %dst by one slice_rev
 * where it does not cover the dim.
 *
 * Why a pass of its own: horizontal.c takes loops whose iteration i is row
 * i (select / select_rev on dim 0); here an iteration is a band of columns
 * of any dim, found by evaluating the index arithmetic, and a step may be a
 * product of two per-iteration values. It runs where horizontal runs (the
 * driver's horizontal_wanted: not with --keep-loops, --fission, --place,
 * several devices or hosts).
 */
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

enum { MAX_STEPS = 32, MAX_INDEX_DEPTH = 32, MAX_TRIPS = 1 << 16 };

typedef struct HeadLoop {
    const LowerProgram *p;
    IrNode *loop;
    IrValue *counter;
    int64_t trips;
} HeadLoop;

static bool static_int(const LowerProgram *p, const IrValue *v, int64_t *out)
{
    const RtValue *r = lower_static_value(p, v);
    if (!r || (r->kind != RT_INT && r->kind != RT_BOOL))
        return false;
    *out = r->u.i;
    return true;
}

static bool is_index_op(const IrNode *n)
{
    return (n->op == OP_ATEN_MUL || n->op == OP_ATEN_ADD || n->op == OP_ATEN_SUB || n->op == OP_ATEN_FLOORDIV) &&
           n->ninputs == 2 && n->noutputs == 1 && n->outputs[0]->type && n->outputs[0]->type->kind == TY_INT;
}

/* The body's index arithmetic in iteration h, for kernels_decide_scalar:
 * the counter is h, an index node's value decided from its inputs
 * (depth-bounded). */
typedef struct IndexAt {
    const HeadLoop *hl;
    int64_t h;
    int depth;
} IndexAt;

static bool index_decided(void *ctx, const IrValue *v, int64_t *out)
{
    IndexAt *at = ctx;
    if (v == at->hl->counter) {
        *out = at->h;
        return true;
    }
    const IrNode *n = v->def;
    if (at->depth >= MAX_INDEX_DEPTH || n->owner != at->hl->loop->blocks[0] || !is_index_op(n))
        return false;
    ScalarLookup lk = {at->hl->p, index_decided, at};
    at->depth++;
    bool ok = kernels_decide_scalar(&lk, n, out);
    at->depth--;
    return ok;
}

/* The value of int v in iteration h: a compile-time int, the counter, or
 * the body's index arithmetic of them; false otherwise or on overflow /
 * division by zero. */
static bool index_value(const HeadLoop *hl, const IrValue *v, int64_t h, int64_t *out)
{
    IndexAt at = {hl, h, 0};
    ScalarLookup lk = {hl->p, index_decided, &at};
    return kernels_lookup_scalar(&lk, v, out);
}

/* Whether [start, end) step `step` is c + h*W .. c + (h+1)*W in iteration h
 * for every h, inside [0, size): *c and *w. */
static bool band_of(const HeadLoop *hl, const IrValue *start, const IrValue *end, const IrValue *step,
                    int64_t size, int64_t *c, int64_t *w)
{
    int64_t one, s0, e0;
    if (!static_int(hl->p, step, &one) || one != 1 || !index_value(hl, start, 0, &s0) ||
        !index_value(hl, end, 0, &e0) || s0 < 0 || e0 <= s0)
        return false;
    int64_t width = e0 - s0;
    if (width > size || hl->trips > (size - s0) / width)
        return false;       /* the last band would be clamped */
    for (int64_t h = 1; h < hl->trips; h++) {
        int64_t s, e;
        if (!index_value(hl, start, h, &s) || !index_value(hl, end, h, &e) || s != s0 + h * width ||
            e != s + width)
            return false;
    }
    *c = s0;
    *w = width;
    return true;
}

static bool static_dim(const LowerProgram *p, const IrValue *v, int rank, int64_t *dim)
{
    if (!static_int(p, v, dim) || *dim < -rank || *dim >= rank)
        return false;
    if (*dim < 0)
        *dim += rank;
    return true;
}

/* A slice of a value from outside at the iteration's band of one dim. */
static bool is_band_slice(const HeadLoop *hl, const IrNode *n)
{
    const IrTensorType *tx = n->op == OP_ATEN_SLICE && n->ninputs == 5 ? shape_of(n->inputs[0]) : NULL;
    int64_t dim, c, w;
    return tx && tx->rank >= 1 && tx->rank < KIR_MAX_RANK && kernels_outside_loop(n->inputs[0], hl->loop) &&
           static_dim(hl->p, n->inputs[1], tx->rank, &dim) &&
           band_of(hl, n->inputs[2], n->inputs[3], n->inputs[4], tx->sizes[dim], &c, &w);
}

static bool is_step_value(IrNode *const *steps, int nsteps, const IrValue *v)
{
    for (int j = 0; j < nsteps; j++)
        if (steps[j]->outputs[0] == v)
            return true;
    return false;
}

/* bmm / matmul of two steps' values of one rank (>= 2: one batched GEMM
 * whose batch dims the device reads), or mm / matmul / linear of a step's
 * value by 2-d weights from outside. */
static bool is_product(const HeadLoop *hl, const IrNode *n, IrNode *const *steps, int nsteps)
{
    if (n->noutputs != 1)
        return false;
    const IrTensorType *a = n->ninputs >= 2 ? shape_of(n->inputs[0]) : NULL, *b = a ? shape_of(n->inputs[1]) : NULL;
    if (!a || !b)
        return false;
    /* a value from outside by a step's matrix (x @ w[:, band], as
     * sink_sliced_products leaves a head's projection on the cpu backend) */
    if ((n->op == OP_ATEN_MM || n->op == OP_ATEN_MATMUL) && n->ninputs == 2 &&
        kernels_outside_loop(n->inputs[0], hl->loop) && is_step_value(steps, nsteps, n->inputs[1]))
        return b->rank == 2 && a->rank >= 2 && a->rank < KIR_MAX_RANK;
    if (!is_step_value(steps, nsteps, n->inputs[0]))
        return false;
    if ((n->op == OP_ATEN_BMM || n->op == OP_ATEN_MATMUL) && n->ninputs == 2 &&
        is_step_value(steps, nsteps, n->inputs[1]))
        return a->rank >= 2 && a->rank == b->rank && a->rank < KIR_MAX_RANK;
    if (n->op != OP_ATEN_MM && n->op != OP_ATEN_MATMUL && n->op != OP_ATEN_LINEAR)
        return false;
    if (n->op == OP_ATEN_LINEAR ? n->ninputs != 3 : n->ninputs != 2)
        return false;
    for (int k = 1; k < n->ninputs; k++)
        if (!kernels_outside_loop(n->inputs[k], hl->loop))
            return false;
    return b->rank == 2 && a->rank < KIR_MAX_RANK;
}

static bool is_step(const HeadLoop *hl, const IrNode *n, IrNode *const *steps, int nsteps)
{
    if (!n->noutputs || !shape_of(n->outputs[0]))
        return false;
    if (n->op == OP_TSSA_FUSION_GROUP)
        return n->noutputs == 1 && ir_group_iterations(n) == 0;
    if (n->op == OP_ATEN_TRANSPOSE) {
        const IrTensorType *t = n->ninputs == 3 ? shape_of(n->inputs[0]) : NULL;
        int64_t a, b;
        return t && n->noutputs == 1 && t->rank < KIR_MAX_RANK && is_step_value(steps, nsteps, n->inputs[0]) &&
               static_dim(hl->p, n->inputs[1], t->rank, &a) && static_dim(hl->p, n->inputs[2], t->rank, &b);
    }
    if (n->op == OP_ATEN_T) {
        const IrTensorType *t = n->ninputs == 1 ? shape_of(n->inputs[0]) : NULL;
        return t && n->noutputs == 1 && t->rank == 2 && is_step_value(steps, nsteps, n->inputs[0]);
    }
    return is_band_slice(hl, n) || is_product(hl, n, steps, nsteps);
}

/* The loop's steps in order when it has the shape and meets the
 * preconditions above; else 0. */
static int plan_loop(HeadLoop *hl, IrNode **steps)
{
    IrNode *loop = hl->loop;
    IrBlock *body = loop->blocks[0];
    hl->counter = ir_block_param(body, 0);
    IrValue *carried = ir_block_param(body, 1);
    int64_t cond;
    if (ir_block_nreturns(body) != 2 || !static_int(hl->p, ir_block_return(body, 0), &cond) || cond == 0)
        return 0;
    IrNode *write = ir_block_return(body, 1)->def;
    const IrTensorType *td = shape_of(loop->inputs[2]);
    if (write->op != OP_IMMUT_SLICE_REV || write->owner != body || write->ninputs != 6 ||
        write->inputs[0] != carried || carried->nuses != 1 || write->outputs[0]->nuses != 1 || !td ||
        td->rank > KIR_MAX_RANK)
        return 0;
    int nsteps = 0;
    IR_FOREACH_NODE(m, body) {
        if (m == write)
            continue;
        if (is_index_op(m)) {
            /* read by slices, the write, and more index arithmetic only */
            for (int u = 0; u < m->outputs[0]->nuses; u++) {
                const IrNode *user = m->outputs[0]->uses[u].user;
                if (user->owner != body || (user->op != OP_ATEN_SLICE && user != write && !is_index_op(user)))
                    return 0;
            }
            continue;
        }
        if (nsteps == MAX_STEPS || !is_step(hl, m, steps, nsteps))
            return 0;
        for (int k = 0; k < m->ninputs; k++) {
            const IrValue *in = m->inputs[k];
            bool ok = kernels_outside_loop(in, loop) || is_step_value(steps, nsteps, in) ||
                      (in == hl->counter && m->op == OP_TSSA_FUSION_GROUP) ||
                      (m->op == OP_ATEN_SLICE && k >= 2);   /* its band: checked */
            if (!ok)
                return 0;
        }
        for (int u = 0; u < m->outputs[0]->nuses; u++) {
            const IrNode *user = m->outputs[0]->uses[u].user;
            if (user->owner != body || user == m)
                return 0;
        }
        steps[nsteps++] = m;
    }
    /* the write: the last step's value at its band of dim' */
    const IrTensorType *tr = shape_of(write->inputs[1]);
    int64_t dim, c, w;
    if (nsteps == 0 || write->inputs[1] != steps[nsteps - 1]->outputs[0] || !tr || tr->rank != td->rank ||
        tr->dtype != td->dtype || !static_dim(hl->p, write->inputs[2], td->rank, &dim) ||
        !band_of(hl, write->inputs[3], write->inputs[4], write->inputs[5], td->sizes[dim], &c, &w) ||
        tr->sizes[dim] != w)
        return 0;
    for (int d = 0; d < td->rank; d++)
        if (d != dim && tr->sizes[d] != td->sizes[d])
            return 0;
    /* the last step's value is read by the write alone; the others by
     * steps (checked above), never by the write */
    if (steps[nsteps - 1]->outputs[0]->nuses != 1)
        return 0;
    for (int j = 0; j + 1 < nsteps; j++)
        for (int u = 0; u < steps[j]->outputs[0]->nuses; u++)
            if (steps[j]->outputs[0]->uses[u].user == write)
                return 0;
    return nsteps;
}

static IrValue *new_node(LowerProgram *p, IrNode *before, OpId op, IrValue *const *in, int nin, IrType *type,
                         const IrNode *like)
{
    IrNode *n = ir_node_new_op(lower_ir_graph(p), op);
    for (int i = 0; i < nin; i++)
        ir_node_add_input(n, in[i]);
    if (like) {
        n->comment = like->comment;
        n->line = like->line;
    }
    ir_insert_before(n, before);
    return ir_node_add_output(n, type, NULL);
}

static IrValue *int_constant(LowerProgram *p, IrNode *at, int64_t v)
{
    return kernels_scalar_constant(p, at, v, false);
}

static IrType *tensor_type(LowerProgram *p, int dtype, int rank, const int64_t *sizes)
{
    return ir_type_tensor_refined(lower_ir_graph(p), dtype, rank, sizes, NULL);
}

/* aten::permute(x, perm) before `before`. */
static IrValue *permuted(LowerProgram *p, IrNode *before, IrValue *x, const int64_t *perm, const IrNode *like)
{
    const IrTensorType *t = shape_of(x);
    int64_t sizes[KIR_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        sizes[d] = t->sizes[perm[d]];
    IrValue *list = kernels_int_list_constant(p, before, perm, t->rank);
    return new_node(p, before, OP_ATEN_PERMUTE, (IrValue *[]){x, list}, 2, tensor_type(p, t->dtype, t->rank, sizes),
                    like);
}

/* aten::view(x, sizes) before `before`: sizes that split dims of x (a view
 * of any strides, ATen's computeStride) or merge dims of a contiguous x. */
static IrValue *view_of(LowerProgram *p, IrNode *before, IrValue *x, int rank, const int64_t *sizes,
                         const IrNode *like)
{
    IrValue *list = kernels_int_list_constant(p, before, sizes, rank);
    return new_node(p, before, OP_ATEN_VIEW, (IrValue *[]){x, list}, 2,
                    tensor_type(p, shape_of(x)->dtype, rank, sizes), like);
}

/* The bands of slice step n (a band of dim of x from outside): where
 * *dim, *c, *w. */
static void band_slice_of(const HeadLoop *hl, const IrNode *n, int64_t *dim, int64_t *c, int64_t *w)
{
    const IrTensorType *tx = shape_of(n->inputs[0]);
    static_dim(hl->p, n->inputs[1], tx->rank, dim);
    band_of(hl, n->inputs[2], n->inputs[3], n->inputs[4], tx->sizes[*dim], c, w);
}

/* x[.., c:c+N*W, ..] (of dim) before the loop; x itself where that is all
 * of it. */
static IrValue *all_bands(LowerProgram *p, const HeadLoop *hl, IrValue *x, int64_t dim, int64_t c, int64_t w,
                          const IrNode *like)
{
    const IrTensorType *tx = shape_of(x);
    int64_t n_w = hl->trips * w;
    if (c == 0 && n_w == tx->sizes[dim])
        return x;
    int64_t sizes[KIR_MAX_RANK];
    memcpy(sizes, tx->sizes, (size_t)tx->rank * sizeof *sizes);
    sizes[dim] = n_w;
    IrValue *in[] = {x, int_constant(p, hl->loop, dim), int_constant(p, hl->loop, c),
                     int_constant(p, hl->loop, c + n_w), int_constant(p, hl->loop, 1)};
    return new_node(p, hl->loop, OP_ATEN_SLICE, in, 5, tensor_type(p, tx->dtype, tx->rank, sizes), like);
}

/* x's N bands of width W side by side along dim (all of dim) as [N, .., W,
 * ..]: a view. */
static IrValue *bands_stacked(LowerProgram *p, const HeadLoop *hl, IrValue *x, int64_t dim, int64_t w,
                              const IrNode *like)
{
    /* [.., N*W, ..] -> [.., N, W, ..] -> [N, .., W, ..] */
    const IrTensorType *tx = shape_of(x);
    int rank = tx->rank + 1;
    int64_t split[KIR_MAX_RANK], perm[KIR_MAX_RANK];
    for (int d = 0, j = 0; d < tx->rank; d++) {
        if (d == dim) {
            split[j++] = hl->trips;
            split[j++] = w;
        } else {
            split[j++] = tx->sizes[d];
        }
    }
    perm[0] = dim;
    for (int d = 0, j = 1; d < rank; d++)
        if (d != dim)
            perm[j++] = d;
    return permuted(p, hl->loop, view_of(p, hl->loop, x, rank, split, like), perm, like);
}

/* The bands of X's dim, all iterations': X[.., c:c+N*W, ..] as [N, .., W,
 * ..] (a view). */
static IrValue *stacked_slice(LowerProgram *p, const HeadLoop *hl, IrNode *n)
{
    int64_t dim, c, w;
    band_slice_of(hl, n, &dim, &c, &w);
    return bands_stacked(p, hl, all_bands(p, hl, n->inputs[0], dim, c, w, n), dim, w, n);
}

/* transpose(a, b) (t: of a matrix, transpose(0, 1)) of the stacked value:
 * transpose(a+1, b+1). */
static IrValue *stacked_transpose(LowerProgram *p, const HeadLoop *hl, IrNode *n, const KernelsStacked *st)
{
    const IrTensorType *t = shape_of(n->inputs[0]);
    int64_t a = 0, b = 1;
    if (n->op == OP_ATEN_TRANSPOSE) {
        static_dim(hl->p, n->inputs[1], t->rank, &a);
        static_dim(hl->p, n->inputs[2], t->rank, &b);
    }
    IrValue *in[] = {kernels_stacked_of(st, n->inputs[0]), int_constant(p, hl->loop, a + 1),
                     int_constant(p, hl->loop, b + 1)};
    return new_node(p, hl->loop, OP_ATEN_TRANSPOSE, in, 3,
                    kernels_stacked_type(lower_ir_graph(p), n->outputs[0], hl->trips), n);
}

/* aten::unsqueeze(x, dim) before `before`. */
static IrValue *unsqueezed(LowerProgram *p, IrNode *before, IrValue *x, int64_t dim, const IrNode *like)
{
    const IrTensorType *t = shape_of(x);
    int64_t sizes[KIR_MAX_RANK];
    for (int d = 0, j = 0; d <= t->rank; d++)
        sizes[d] = d == dim ? 1 : t->sizes[j++];
    return new_node(p, before, OP_ATEN_UNSQUEEZE, (IrValue *[]){x, int_constant(p, before, dim)}, 2,
                    tensor_type(p, t->dtype, t->rank + 1, sizes), like);
}

/* bmm / mm of stacked values: matmul (bmm and mm take 3-d and 2-d only);
 * matmul and linear broadcast over the new dim 0. X [.., M, K] from outside
 * by stacked matrices [N, K, W]: X as [1, .., M, K] by [N, 1.., K, W]. */
static IrValue *stacked_product(LowerProgram *p, const HeadLoop *hl, IrNode *n, const KernelsStacked *st)
{
    IrValue *in[3];
    for (int k = 0; k < n->ninputs; k++) {
        IrValue *all = kernels_stacked_of(st, n->inputs[k]);
        in[k] = all ? all : n->inputs[k];
    }
    int lead = shape_of(n->inputs[0])->rank - 2;
    const IrNode *band = n->inputs[1]->def;
    if (in[0] == n->inputs[0] && band->op == OP_ATEN_SLICE && shape_of(band->inputs[0])->rank == 2) {
        /* X @ W[:, band]: the bands of X @ W[:, c:c+N*W] (one GEMM) */
        int64_t dim, c, w;
        band_slice_of(hl, band, &dim, &c, &w);
        if (dim == 1) {
            IrValue *cols = all_bands(p, hl, band->inputs[0], 1, c, w, n);
            const IrTensorType *tx = shape_of(n->inputs[0]);
            int64_t sizes[KIR_MAX_RANK];
            memcpy(sizes, tx->sizes, (size_t)tx->rank * sizeof *sizes);
            sizes[tx->rank - 1] = hl->trips * w;
            IrValue *product = new_node(p, hl->loop, OP_ATEN_MATMUL, (IrValue *[]){n->inputs[0], cols}, 2,
                                        tensor_type(p, tx->dtype, tx->rank, sizes), n);
            return bands_stacked(p, hl, product, tx->rank - 1, w, n);
        }
    }
    if (in[0] == n->inputs[0] && lead > 0) {
        in[0] = unsqueezed(p, hl->loop, in[0], 0, n);
        for (int d = 0; d < lead; d++)
            in[1] = unsqueezed(p, hl->loop, in[1], 1, n);
    }
    OpId op = n->op == OP_ATEN_LINEAR ? OP_ATEN_LINEAR : OP_ATEN_MATMUL;
    return new_node(p, hl->loop, op, in, n->ninputs, kernels_stacked_type(lower_ir_graph(p), n->outputs[0], hl->trips),
                    n);
}

/* The stacked result [N, .., W, ..] as [.., N*W, ..] (W at dim): a view of
 * it where it is contiguous (a product's or group's) and N moves past dims
 * of size 1 only (one head; bands of rows); else made by one group (one
 * kernel), since the permute is no view a GEMM or copy reads whole. */
static IrValue *unstacked(LowerProgram *p, const HeadLoop *hl, IrValue *all, bool contiguous, int64_t dim,
                          const IrNode *like)
{
    const IrTensorType *t = shape_of(all);
    int rank = t->rank - 1;
    int64_t perm[KIR_MAX_RANK], sizes[KIR_MAX_RANK];
    bool in_order = true;       /* the permute moves N past dims of size 1 only */
    for (int j = 0; j < dim; j++) {
        perm[j] = j + 1;
        in_order = in_order && t->sizes[j + 1] == 1;
    }
    perm[dim] = 0;
    for (int j = (int)dim + 1; j <= rank; j++)
        perm[j] = j;
    for (int d = 0; d < rank; d++)
        sizes[d] = t->sizes[d + 1];
    sizes[dim] *= hl->trips;
    if (contiguous && (in_order || hl->trips == 1))
        return view_of(p, hl->loop, all, rank, sizes, like);
    IrGraph *g = lower_ir_graph(p);
    IrValue *perm_list = kernels_int_list_constant(p, hl->loop, perm, t->rank);
    IrValue *size_list = kernels_int_list_constant(p, hl->loop, sizes, rank);
    IrNode *h = ir_node_new_op(g, OP_TSSA_FUSION_GROUP);
    ir_insert_before(h, hl->loop);
    h->comment = like->comment;
    h->line = like->line;
    IrBlock *hb = ir_node_add_block(h);
    ir_node_add_input(h, all);
    IrValue *x = ir_block_add_param(hb, all->type, NULL);
    ir_node_add_input(h, perm_list);
    IrValue *perm_param = ir_block_add_param(hb, perm_list->type, NULL);
    ir_node_add_input(h, size_list);
    IrValue *size_param = ir_block_add_param(hb, size_list->type, NULL);
    int64_t psizes[KIR_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        psizes[d] = t->sizes[perm[d]];
    IrNode *pm = ir_node_new_op(g, OP_ATEN_PERMUTE);
    ir_node_add_input(pm, x);
    ir_node_add_input(pm, perm_param);
    IrValue *pv = ir_node_add_output(pm, tensor_type(p, t->dtype, t->rank, psizes), NULL);
    ir_append(hb, pm);
    IrNode *rs = ir_node_new_op(g, OP_ATEN_RESHAPE);
    ir_node_add_input(rs, pv);
    ir_node_add_input(rs, size_param);
    IrValue *rv = ir_node_add_output(rs, tensor_type(p, t->dtype, rank, sizes), NULL);
    ir_append(hb, rs);
    ir_block_add_return(hb, rv);
    return ir_node_add_output(h, rv->type, NULL);
}

/* Removes v's node where nothing reads v and it is a view or an int list
 * (a stacked value a product did not use, as X @ W[:, band] reads W's
 * columns whole), then its inputs' the same way. */
static void drop_unread(IrValue *v)
{
    IrNode *n = v->def;
    if (v->nuses != 0 || !n->owner || n == n->owner->param || n->nblocks != 0 || n->noutputs != 1 ||
        (n->op != OP_ATEN_VIEW && n->op != OP_ATEN_PERMUTE && n->op != OP_ATEN_SLICE && n->op != OP_ATEN_TRANSPOSE &&
         n->op != OP_ATEN_UNSQUEEZE && n->op != OP_PRIM_LISTCONSTRUCT))
        return;
    IrValue *in[8];
    int nin = n->ninputs < 8 ? n->ninputs : 8;
    for (int k = 0; k < nin; k++)
        in[k] = n->inputs[k];
    ir_node_destroy(n);
    for (int k = 0; k < nin; k++)
        drop_unread(in[k]);
}

static int batch_heads(LowerProgram *p, IrNode *loop)
{
    const RtValue *trips = loop->op == OP_PRIM_LOOP && loop->ninputs == 3 && loop->noutputs == 1
                               ? lower_static_value(p, loop->inputs[0]) : NULL;
    if (!trips || trips->kind != RT_INT || trips->u.i < 1 || trips->u.i > MAX_TRIPS)
        return 0;
    HeadLoop hl = {.p = p, .loop = loop, .trips = trips->u.i};
    IrNode *steps[MAX_STEPS];
    int nsteps = plan_loop(&hl, steps);
    if (nsteps == 0)
        return 0;
    /* every step reads only earlier steps and outside values: in order,
     * each becomes nodes before the loop */
    IrValue *values[MAX_STEPS];
    KernelsStacked st = {steps, values, 0};
    for (int j = 0; j < nsteps; j++) {
        IrNode *m = steps[j];
        if (m->op == OP_ATEN_SLICE)
            values[j] = stacked_slice(p, &hl, m);
        else if (m->op == OP_ATEN_TRANSPOSE || m->op == OP_ATEN_T)
            values[j] = stacked_transpose(p, &hl, m, &st);
        else if (m->op == OP_TSSA_FUSION_GROUP)
            values[j] = kernels_iterations_group(p, loop, m, &st, hl.trips);
        else
            values[j] = stacked_product(p, &hl, m, &st);
        st.n = j + 1;
    }
    IrNode *write = ir_block_return(loop->blocks[0], 1)->def;
    IrValue *dst = loop->inputs[2];
    const IrTensorType *td = shape_of(dst);
    int64_t dim, c, w;
    static_dim(p, write->inputs[2], td->rank, &dim);
    band_of(&hl, write->inputs[3], write->inputs[4], write->inputs[5], td->sizes[dim], &c, &w);
    /* a product's or group's value is a new tensor, except the bands of X
     * @ W[:, c:c+N*W] (stacked_product): a permute of that product's, which
     * is contiguous as [.., N*W] (the write's dim the last) only */
    const IrNode *last = steps[nsteps - 1];
    bool contiguous = last->op == OP_TSSA_FUSION_GROUP || last->op == OP_ATEN_BMM || last->op == OP_ATEN_MATMUL ||
                      last->op == OP_ATEN_MM || last->op == OP_ATEN_LINEAR;
    if (values[nsteps - 1]->def->op == OP_ATEN_PERMUTE && dim != td->rank - 1)
        contiguous = false;
    IrValue *result = unstacked(p, &hl, values[nsteps - 1], contiguous, dim, loop);
    if (c != 0 || hl.trips * w != td->sizes[dim]) {
        /* the bands do not cover the dim: the rest of %dst stays */
        IrValue *in[] = {dst, result, int_constant(p, loop, dim), int_constant(p, loop, c),
                         int_constant(p, loop, c + hl.trips * w), int_constant(p, loop, 1)};
        result = new_node(p, loop, OP_IMMUT_SLICE_REV, in, 6, dst->type, write);
    }
    ir_replace_all_uses(loop->outputs[0], result);
    IrNode *init = dst->def;
    ir_node_destroy(loop);
    for (int j = nsteps - 1; j >= 0; j--)
        drop_unread(values[j]);
    if (init && init->owner && init->noutputs == 1 && init->outputs[0]->nuses == 0 && init->nblocks == 0 &&
        (init->op == OP_ATEN_EMPTY || init->op == OP_ATEN_ZEROS || init->op == OP_ATEN_EMPTY_LIKE ||
         init->op == OP_ATEN_ZEROS_LIKE))
        ir_node_destroy(init);
    return 1;
}

int kernels_batch_heads(LowerProgram *p)
{
    return kernels_rewrite_each(p, batch_heads);
}
