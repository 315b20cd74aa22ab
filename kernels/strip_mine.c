/* strip_mine.c — a data-parallel loop as a loop over c contiguous slices of
 * its iterations, each slice a loop of its own, and a large product of
 * stacked rows as such a loop over row slices: the slices are what ranks on
 * different hosts and GPUs share out, one firing (one kernel launch, one
 * GEMM, one message) per slice instead of one per iteration.
 *
 * Why here. Horizontal fusion (horizontal.c) makes a data-parallel loop a
 * few operations over all its iterations, which leaves nothing for ranks or
 * devices to split; splitting the loop per iteration instead costs a launch
 * and a message per iteration. Strip-mining first keeps both: after this
 * pass the inner loop of each slice is what hoist_input_products and
 * horizontal take (one GEMM and one kernel over the slice's rows), and the
 * outer loop is an ordinary data-parallel loop of c iterations, which the
 * loop lowering makes one body filter fired c times, and fission, the
 * partitioner and the device placement spread as they spread any loop.
 *
 * The loop it takes (top level, after shape_infer):
 *     %out = prim::Loop(N, true, %dst)           N a compile-time int >= 2
 *       block0(%i, %d):
 *         ...                                     the body, any nodes
 *         %d2 = immut::select_rev(%d, %v, 0, %i)  out[i] = v
 *         -> (true, %d2)
 * where %d has no other use and %d2 no use but the return (every
 * iteration writes its own row and none reads another's), and the body
 * holds no random op (its numbers are keyed by the iteration it runs in)
 * and no print (messages keep their order only in one filter). With c
 * slices of m = N / c rows (c a divisor of N: slice_count), it becomes
 *     %o = prim::Loop(c, true, %dst)
 *       block0(%s, %d):
 *         %lo = s * m;  %hi = lo + m
 *         %X_s = aten::slice(%X, 0, %lo, %hi, 1)   for each X read as X[i]
 *         %ds  = aten::slice(%dst, 0, %lo, %hi, 1)
 *         %y = prim::Loop(m, true, %ds)          the body, X[i] read as X_s[j]
 *           block0(%j, %c):  ...  -> (true, select_rev(%c, %v, 0, %j))
 *         -> (true, immut::slice_rev(%d, %y, 0, %lo, %hi, 1))
 * Inside a slice, the body's other uses of the iteration number read
 * lo + j. Rows of X are read as rows of its slice only where X is a
 * tensor defined before the loop with N rows or more (else X[lo + j]).
 * Slices of one size keep one kernel per group for all of them; a trip
 * count with no divisor that shares the work out (a prime), or products too
 * small to cut into whole panels, leave the loop whole, to the threads of
 * one rank or device.
 *
 * Every row is computed by the same nodes as before. The generated kernels
 * compute a row alike in a slice and in the whole; a product of stacked
 * rows by a weight gives the same bits only in whole panels of
 * TENSOR_GEMM_PANEL_ROWS rows (BLAS blocks its rows by the product's
 * size), so where results must not depend on the placement (ranks:
 * KernelsPassOptions.slices_exact) a slice holds whole panels of every such
 * product (panel_granule), and a loop that cannot be cut so stays whole.
 * On devices (cuBLAS picks its kernels by shape anyway) any slice goes.
 */
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

static bool static_int_is(const LowerProgram *p, const IrValue *v, int64_t want)
{
    const RtValue *r = lower_static_value(p, v);
    return r && (r->kind == RT_INT || r->kind == RT_BOOL) && r->u.i == want;
}

/* Whether block b, nested blocks included, draws random numbers. */
static bool holds_random(const IrBlock *b)
{
    for (IrNode *m = ir_block_first(b); !ir_node_is_end(m); m = m->next) {
        if (op_info(m->op)->cls == OPC_RANDOM)
            return true;
        for (int k = 0; k < m->nblocks; k++)
            if (holds_random(m->blocks[k]))
                return true;
    }
    return false;
}

/* The iterations a slice must hold a multiple of, so that each product of
 * a per-iteration value by weights from outside the loop (rows stacked
 * into one GEMM by hoist_input_products or horizontal) gets whole panels
 * of TENSOR_GEMM_PANEL_ROWS rows: the same bits as the product of all
 * rows. 0 when a product's rows per iteration are unknown. */
static int64_t panel_granule(const IrNode *loop, const IrBlock *b, int64_t granule)
{
    for (IrNode *n = ir_block_first(b); granule && !ir_node_is_end(n); n = n->next) {
        for (int k = 0; k < n->nblocks; k++)
            granule = panel_granule(loop, n->blocks[k], granule);
        bool product = n->op == OP_ATEN_MM || n->op == OP_ATEN_MATMUL || n->op == OP_ATEN_LINEAR ||
                       n->op == OP_ATEN_ADDMM;
        if (!granule || !product)
            continue;
        int first = n->op == OP_ATEN_ADDMM ? 1 : 0;
        if (n->ninputs < first + 2)
            continue;
        const IrValue *x = n->inputs[first], *w = n->inputs[first + 1];
        const IrTensorType *tw = shape_of(w), *tx = shape_of(x);
        if (!kernels_outside_loop(w, loop) || !tw || tw->rank != 2 || kernels_outside_loop(x, loop))
            continue;       /* per-iteration products of their own: any slicing */
        if (!tx || tx->rank < 1)
            return 0;
        int64_t rows = 1;
        for (int d = 0; d + 1 < tx->rank; d++)
            rows *= tx->sizes[d];
        int64_t need = TENSOR_GEMM_PANEL_ROWS / gcd64(rows > 0 ? rows : 1, TENSOR_GEMM_PANEL_ROWS);
        granule = granule / gcd64(granule, need) * need;
    }
    return granule;
}

/* The loop's trip count when it has the shape above, else 0. */
static int64_t plan_loop(const LowerProgram *p, IrNode *loop)
{
    const RtValue *n = loop->op == OP_PRIM_LOOP && loop->ninputs == 3 && loop->noutputs == 1 && !loop->owner->owner
                           ? lower_static_value(p, loop->inputs[0]) : NULL;
    if (!n || n->kind != RT_INT || n->u.i < 2 || !static_int_is(p, loop->inputs[1], 1))
        return 0;
    IrBlock *body = loop->blocks[0];
    if (ir_block_nreturns(body) != 2 || !static_int_is(p, ir_block_return(body, 0), 1))
        return 0;
    IrValue *counter = ir_block_param(body, 0), *carried = ir_block_param(body, 1);
    IrNode *write = ir_block_return(body, 1)->def;
    const IrTensorType *dst = shape_of(loop->inputs[2]), *row = NULL;
    if (write->op != OP_IMMUT_SELECT_REV || write->owner != body || write->ninputs != 4 ||
        write->inputs[0] != carried || !static_int_is(p, write->inputs[2], 0) || write->inputs[3] != counter ||
        carried->nuses != 1 || write->outputs[0]->nuses != 1)
        return 0;
    row = shape_of(write->inputs[1]);
    if (!dst || !row || dst->rank != row->rank + 1 || dst->sizes[0] != n->u.i || dst->rank > KIR_MAX_RANK)
        return 0;
    return holds_random(body) || ir_node_prints(loop) ? 0 : n->u.i;
}

/* A slice [lo, hi) of dim 0 of x, appended to block b: its type is x's
 * with `rows` rows. */
static IrValue *rows_of(IrGraph *g, LowerProgram *p, IrBlock *b, IrValue *x, IrValue *lo, IrValue *hi, int64_t rows)
{
    IrNode *s = ir_node_new_op(g, OP_ATEN_SLICE);
    ir_append(b, s);
    ir_node_add_input(s, x);
    ir_node_add_input(s, kernels_scalar_constant(p, s, 0, false));
    ir_node_add_input(s, lo);
    ir_node_add_input(s, hi);
    ir_node_add_input(s, kernels_scalar_constant(p, s, 1, false));
    const IrTensorType *t = shape_of(x);
    int64_t sizes[KIR_MAX_RANK];
    memcpy(sizes, t->sizes, (size_t)t->rank * sizeof *sizes);
    sizes[0] = rows;
    return ir_node_add_output(s, ir_type_tensor_refined(g, t->dtype, t->rank, sizes, NULL), NULL);
}

static IrValue *int_op(IrGraph *g, IrBlock *b, OpId op, IrValue *x, IrValue *y)
{
    IrNode *n = ir_node_new_op(g, op);
    ir_append(b, n);
    ir_node_add_input(n, x);
    ir_node_add_input(n, y);
    return ir_node_add_output(n, ir_type_simple(g, TY_INT), NULL);
}

/* immut::slice_rev(root, part, 0, lo, hi, 1) appended to b, of root's
 * type. */
static IrValue *write_rows(IrGraph *g, LowerProgram *p, IrBlock *b, IrValue *root, IrValue *part, IrValue *lo,
                           IrValue *hi)
{
    IrNode *w = ir_node_new_op(g, OP_IMMUT_SLICE_REV);
    ir_append(b, w);
    ir_node_add_input(w, root);
    ir_node_add_input(w, part);
    ir_node_add_input(w, kernels_scalar_constant(p, w, 0, false));
    ir_node_add_input(w, lo);
    ir_node_add_input(w, hi);
    ir_node_add_input(w, kernels_scalar_constant(p, w, 1, false));
    return ir_node_add_output(w, root->type, NULL);
}

/* The loop over c slices of m rows each, before `before`, carrying `dst`
 * (its result of dst's type): a loop whose body has only the slice's bounds
 * lo = s * m and hi = lo + m so far (*lo, *hi); slices_done finishes it. */
typedef struct Slices {
    IrNode *loop;
    IrValue *lo, *hi, *dst;     /* bounds and the carried destination, in the body */
} Slices;

static Slices slices_begin(LowerProgram *p, IrNode *before, int64_t c, int64_t m, IrValue *dst)
{
    IrGraph *g = lower_ir_graph(p);
    Slices sl = {.loop = ir_node_new_op(g, OP_PRIM_LOOP)};
    sl.loop->line = before->line;
    sl.loop->comment = before->comment;
    ir_insert_before(sl.loop, before);
    ir_node_add_input(sl.loop, kernels_scalar_constant(p, sl.loop, c, false));
    ir_node_add_input(sl.loop, kernels_scalar_constant(p, sl.loop, 1, true));
    ir_node_add_input(sl.loop, dst);
    ir_node_add_output(sl.loop, dst->type, NULL);
    IrBlock *b = ir_node_add_block(sl.loop);
    IrValue *s = ir_block_add_param(b, ir_type_simple(g, TY_INT), NULL);
    sl.dst = ir_block_add_param(b, dst->type, NULL);
    IrValue *rows = kernels_scalar_constant(p, sl.loop, m, false);
    sl.lo = int_op(g, b, OP_ATEN_MUL, s, rows);
    sl.hi = int_op(g, b, OP_ATEN_ADD, sl.lo, rows);
    return sl;
}

/* Ends the body: the slice's rows `part` written into the destination.
 * Returns the loop's result. */
static IrValue *slices_done(LowerProgram *p, const Slices *sl, IrValue *part)
{
    IrBlock *b = sl->loop->blocks[0];
    ir_block_add_return(b, kernels_scalar_constant(p, sl->loop, 1, true));
    ir_block_add_return(b, write_rows(lower_ir_graph(p), p, b, sl->dst, part, sl->lo, sl->hi));
    return sl->loop->outputs[0];
}

/* A row read X[i] of a tensor X defined before `loop` with `trips` rows or
 * more: it can be read as a row of X's slice. */
static bool is_row_read(const LowerProgram *p, const IrNode *n, const IrNode *loop, int64_t trips)
{
    const IrValue *counter = ir_block_param(loop->blocks[0], 0);
    const IrTensorType *t = n->op == OP_ATEN_SELECT && n->ninputs == 3 ? shape_of(n->inputs[0]) : NULL;
    return t && t->rank >= 1 && t->sizes[0] >= trips && n->inputs[2] == counter &&
           static_int_is(p, n->inputs[1], 0) && kernels_outside_loop(n->inputs[0], loop);
}

/* Moves the body of `loop` (of `trips` iterations) into a new loop of
 * `rows` iterations appended to outer's body, for the slice of rows [lo,
 * hi) (int values of that body), which starts from the same rows of the
 * loop's destination. Returns the new loop's result (`rows` rows of the
 * destination's shape). `loop` is left with an empty body. */
static IrValue *slice_loop(LowerProgram *p, IrNode *loop, IrNode *outer, IrValue *lo, IrValue *hi, int64_t rows,
                           int64_t trips)
{
    IrBlock *b = outer->blocks[0];
    IrGraph *g = lower_ir_graph(p);
    IrBlock *old = loop->blocks[0];
    IrValue *counter = ir_block_param(old, 0), *carried = ir_block_param(old, 1);
    IrValue *part = rows_of(g, p, b, loop->inputs[2], lo, hi, rows);

    IrNode *inner = ir_node_new_op(g, OP_PRIM_LOOP);
    inner->line = loop->line;
    inner->comment = loop->comment;
    ir_node_add_input(inner, kernels_scalar_constant(p, outer, rows, false));
    ir_node_add_input(inner, kernels_scalar_constant(p, outer, 1, true));
    ir_node_add_input(inner, part);
    IrValue *result = ir_node_add_output(inner, part->type, NULL);
    IrBlock *body = ir_node_add_block(inner);
    IrValue *j = ir_block_add_param(body, counter->type, NULL);
    IrValue *c = ir_block_add_param(body, part->type, NULL);

    /* rows of tensors from outside as rows of their slices, made once per
     * tensor before the inner loop */
    IrValue *sliced_from[64], *sliced[64];
    int nsliced = 0;
    IrValue *global = NULL;
    for (int u = counter->nuses - 1; u >= 0; u--) {
        IrNode *user = counter->uses[u].user;
        int k = counter->uses[u].index;
        if (user->op == OP_IMMUT_SELECT_REV && user->owner == old && user->inputs[0] == carried && k == 3) {
            ir_node_set_input(user, k, j);
            user->outputs[0]->type = part->type;       /* the write's rows: the slice's */
            continue;
        }
        if (user->owner == old && is_row_read(p, user, loop, trips) && k == 2) {
            IrValue *x = user->inputs[0], *xs = NULL;
            for (int s = 0; s < nsliced; s++)
                if (sliced_from[s] == x)
                    xs = sliced[s];
            if (!xs && nsliced < 64) {
                xs = rows_of(g, p, b, x, lo, hi, rows);
                sliced_from[nsliced] = x;
                sliced[nsliced++] = xs;
            }
            if (xs) {
                ir_node_set_input(user, 0, xs);
                ir_node_set_input(user, 2, j);
                continue;
            }
        }
        if (!global)
            global = int_op(g, body, OP_ATEN_ADD, lo, j);
        ir_node_set_input(user, k, global);
    }
    ir_replace_all_uses(carried, c);
    ir_append(b, inner);
    for (IrNode *m = ir_block_first(old), *next; !ir_node_is_end(m); m = next) {
        next = m->next;
        ir_move_before(m, body->ret);
    }
    ir_block_add_return(body, ir_block_return(old, 0));
    ir_block_add_return(body, ir_block_return(old, 1));
    ir_block_remove_return(old, 1);
    ir_block_remove_return(old, 0);
    return result;
}

static IrValue *static_node(LowerProgram *p, IrNode *before, OpId op, IrValue *const *in, int nin, IrType *type,
                            RtValue *value)
{
    IrNode *n = ir_node_new_op(lower_ir_graph(p), op);
    for (int i = 0; i < nin; i++)
        ir_node_add_input(n, in[i]);
    IrValue *out = ir_node_add_output(n, type, NULL);
    ir_insert_before(n, before);
    if (value)
        lower_add_static(p, out, value);
    return out;
}

/* aten::empty of refined tensor type t before `at` (an allocation whose
 * elements are unset), with its sizes and dtype as compile-time values. */
static IrValue *empty_of(LowerProgram *p, IrNode *at, IrType *type)
{
    IrGraph *g = lower_ir_graph(p);
    const IrTensorType *t = &type->tensor;
    IrValue *none = static_node(p, at, OP_PRIM_CONSTANT, NULL, 0, ir_type_simple(g, TY_NONE), rt_none());
    IrValue *dtype = kernels_scalar_constant(p, at, dtype_to_scalar_type((TensorDType)t->dtype), false);
    IrValue *sizes = kernels_int_list_constant(p, at, t->sizes, t->rank);
    return static_node(p, at, OP_ATEN_EMPTY, (IrValue *[]){sizes, dtype, none, none, none, none}, 6, type, NULL);
}

/* A destination made only to be overwritten whole (zeros, ones, full,
 * empty and their _like forms, read by nothing but the loop) becomes an
 * allocation: the slices write every row, and no run should spend a pass
 * over memory filling it (a rank that computes no slice would fill one it
 * never uses). */
static void allocate_only(LowerProgram *p, IrNode *loop)
{
    IrValue *dst = loop->inputs[2];
    IrNode *made = dst->def;
    bool creation = made->op == OP_ATEN_ZEROS || made->op == OP_ATEN_ONES || made->op == OP_ATEN_FULL ||
                    made->op == OP_ATEN_EMPTY || made->op == OP_ATEN_ZEROS_LIKE || made->op == OP_ATEN_ONES_LIKE ||
                    made->op == OP_ATEN_EMPTY_LIKE || made->op == OP_ATEN_FULL_LIKE;
    const IrTensorType *t = shape_of(dst);
    if (!creation || dst->nuses != 1 || made->nblocks || made->noutputs != 1 || !t || t->dtype < 0 ||
        made->owner != loop->owner || t->rank > KIR_MAX_RANK)
        return;
    IrValue *empty = empty_of(p, loop, dst->type);
    ir_node_set_input(loop, 2, empty);
    ir_node_destroy(made);
}

/* The number of equal slices to cut `trips` iterations into for `workers`
 * workers: a divisor c of trips (slices of one shape, so one kernel per
 * group serves them all), at most 8 per worker, each slice a multiple of
 * `granule` iterations (panel_granule), whose busiest worker, with the c
 * slices dealt out as evenly as they go, has the least work (ceil(c /
 * workers) slices of trips / c rows), within 5 %, and among those the
 * fewest slices (each is a launch). 1 when none helps (a prime trip count,
 * products too small for whole panels): the loop stays whole. */
static int64_t slice_count(int64_t trips, int workers, int64_t granule)
{
    int64_t best = 1;
    double best_share = 1.0;
    for (int64_t c = 2; granule > 0 && c <= trips && c <= 8 * (int64_t)workers; c++) {
        if (trips % c != 0 || (trips / c) % granule != 0)
            continue;
        double share = (double)((c + workers - 1) / workers) / (double)c;
        if (share < best_share * 0.95) {
            best = c;
            best_share = share;
        }
    }
    return best;
}

static int strip_mine(LowerProgram *p, IrNode *loop, int workers, bool exact)
{
    int64_t trips = plan_loop(p, loop);
    if (trips < 2)
        return 0;
    int64_t granule = exact ? panel_granule(loop, loop->blocks[0], 1) : 1;
    int64_t c = slice_count(trips, workers, granule);
    if (c < 2)
        return 0;
    int64_t m = trips / c;
    allocate_only(p, loop);
    Slices sl = slices_begin(p, loop, c, m, loop->inputs[2]);
    IrValue *result = slices_done(p, &sl, slice_loop(p, loop, sl.loop, sl.lo, sl.hi, m, trips));
    ir_replace_all_uses(loop->outputs[0], result);
    ir_node_destroy(loop);
    return 1;
}

/* ---------------------------------------------------------------- products */

/* A top-level product of many rows by a weight, y = x @ W (aten::matmul,
 * mm, linear; x of rows [..., K] stacked, W 2-D), is a data-parallel loop
 * too: row slices of x times W. Large ones (attention's projections, an
 * MLP over a batch) become the loop strip_mine makes of a loop:
 *     %rows = x viewed as [M, K] (aten::reshape)
 *     %o = prim::Loop(c, true, aten::empty([M, N], dtype))
 *       block0(%s, %d):  lo = s*m; hi = lo+m
 *         -> (true, immut::slice_rev(%d, product(rows[lo:hi], W...), 0, lo, hi, 1))
 *     %y = aten::reshape(%o, y's sizes)
 * so the ranks and devices share its rows out, a GEMM per slice. Below
 * PRODUCT_SLICE_FLOPS the product stays whole (a message would cost more
 * than the share of work it moves). */
enum { PRODUCT_SLICE_FLOPS = 1 << 26 };

static int slice_product(LowerProgram *p, IrNode *n, int workers, bool exact)
{
    bool product = n->op == OP_ATEN_MATMUL || n->op == OP_ATEN_MM || n->op == OP_ATEN_LINEAR;
    if (!product || n->owner->owner || n->noutputs != 1 || n->ninputs < 2 || n->nblocks)
        return 0;
    const IrTensorType *tx = shape_of(n->inputs[0]), *tw = shape_of(n->inputs[1]), *ty = shape_of(n->outputs[0]);
    if (!tx || !tw || !ty || tw->rank != 2 || tx->rank < 2 || ty->rank != tx->rank || tx->rank > KIR_MAX_RANK)
        return 0;
    for (int i = 2; i < n->ninputs; i++)        /* linear's bias: a tensor or None, outside */
        if (n->inputs[i]->type && n->inputs[i]->type->kind == TY_TENSOR && !shape_of(n->inputs[i]))
            return 0;
    int64_t k = tx->sizes[tx->rank - 1], cols = ty->sizes[ty->rank - 1], rows = 1;
    for (int d = 0; d + 1 < tx->rank; d++)
        rows *= tx->sizes[d];
    if (rows < 2 || (double)rows * (double)k * (double)cols * 2 < PRODUCT_SLICE_FLOPS)
        return 0;
    int64_t granule = exact ? TENSOR_GEMM_PANEL_ROWS : 1;
    int64_t c = slice_count(rows, workers, granule);
    if (c < 2)
        return 0;
    int64_t m = rows / c;
    IrGraph *g = lower_ir_graph(p);
    IrNode *at = n;
    int64_t flat_sizes[2] = {rows, k}, out_sizes[2] = {rows, cols};
    IrValue *flat = n->inputs[0];
    if (tx->rank != 2) {
        IrValue *shape = kernels_int_list_constant(p, at, flat_sizes, 2);
        flat = static_node(p, at, OP_ATEN_RESHAPE, (IrValue *[]){n->inputs[0], shape}, 2,
                           ir_type_tensor_refined(g, tx->dtype, 2, flat_sizes, NULL), NULL);
    }
    IrType *out_type = ir_type_tensor_refined(g, ty->dtype, 2, out_sizes, NULL);
    Slices sl = slices_begin(p, at, c, m, empty_of(p, at, out_type));
    IrBlock *b = sl.loop->blocks[0];
    IrValue *xs = rows_of(g, p, b, flat, sl.lo, sl.hi, m);
    IrNode *part = ir_node_new_op(g, n->op == OP_ATEN_MM ? OP_ATEN_MATMUL : n->op);
    part->line = n->line;
    part->comment = n->comment;
    ir_append(b, part);
    ir_node_add_input(part, xs);
    for (int i = 1; i < n->ninputs; i++)
        ir_node_add_input(part, n->inputs[i]);
    int64_t part_sizes[2] = {m, cols};
    IrValue *all = slices_done(p, &sl, ir_node_add_output(part, ir_type_tensor_refined(g, ty->dtype, 2, part_sizes,
                                                                                      NULL), NULL));
    IrValue *result = all;
    if (ty->rank != 2) {
        IrValue *shape = kernels_int_list_constant(p, at, ty->sizes, ty->rank);
        result = static_node(p, at, OP_ATEN_RESHAPE, (IrValue *[]){all, shape}, 2, n->outputs[0]->type, NULL);
    }
    ir_replace_all_uses(n->outputs[0], result);
    ir_node_destroy(n);
    return 1;
}

bool kernels_strip_mine(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status)
{
    (void)err;
    (void)status;
    if (o->slices < 2)
        return true;
    IrBlock *top = lower_ir_graph(p)->top;
    for (IrNode *n = ir_block_first(top), *next; !ir_node_is_end(n); n = next) {
        next = n->next;
        if (!strip_mine(p, n, o->slices, o->slices_exact))
            slice_product(p, n, o->slices, o->slices_exact);
    }
    lower_graph_grown(p);
    return true;
}
