/* lower_loop.c — a prim::Loop with a static trip count becomes a split-join
 * over its iterations when they are independent (horizontal parallelism),
 * or a pipeline of unrolled steps when it carries real state (an RNN's
 * hidden state: pipeline parallelism over a stream of inputs).
 *
 * Every loop planned here has a compile-time trip count (1 .. LOOP_MAX_BRANCHES),
 * a true entry condition and a body that returns the constant true as its
 * condition (a for loop). Its carried values are classified:
 *   - invariant: the body returns its parameter unchanged;
 *   - written: the body returns W = immut::select_rev(c, v, dim, index) or
 *     immut::slice_rev(c, v, dim, start, end, step) of its parameter c, c
 *     has no other use (no iteration reads the carried tensor), W no other
 *     use than the return, and the index arguments depend only on the loop
 *     counter and compile-time values (through scalar ops in the body);
 *   - state: anything else (the iteration reads what an earlier one made).
 *
 * Parallel plan (no state). The regions the iterations write must also be
 * pairwise disjoint. This is proven, not assumed: the index arguments are
 * evaluated for every iteration (the trip count is static) and the written
 * regions compared: the same dim in every iteration, indices (or [start,
 * end) intervals, which contain every element a stepped slice writes)
 * non-negative and pairwise disjoint. A negative index or an open end would
 * wrap or stretch by the carried tensor's size, which is not known here, so
 * it is refused. Then iteration i is a function of the loop-invariant
 * inputs and i alone, and the result is the carried initial value with
 * every iteration's write applied, in any order (disjoint regions commute).
 *   pipeline Loop {
 *     splitjoin Iterations { split duplicate;
 *                            Carried (Route: the initial values Assemble needs),
 *                            Iter0 ... Iter{N-1} (the body, writes left out,
 *                                                 pushes each write's source);
 *                            join roundrobin(nkept, nwrites, ..., nwrites); }
 *     Assemble (applies the writes of iteration 0, 1, ... to the initial
 *               values: index math only, no body work) }
 *
 * Serial plan (some state), within LOOP_MAX_STEPS iterations and
 * LOOP_MAX_UNROLLED_NODES body nodes in all. Choice: an unrolled pipeline,
 * not a FeedbackLoop. Each step is its own filter, so a later partitioner
 * can put step t on its own rank or device and, over a stream of program
 * inputs, run step t of one input beside step t+1 of the previous one (the
 * steps are stateless filters; every one fires once per steady state, like
 * the rest of the lowered program). A FeedbackLoop would be one stateful
 * body filter firing N times per steady state: it needs the counter as
 * hidden filter state, joiner and splitter weights that change between the
 * first, middle and last turns (the initial state enters once, the result
 * leaves once), and it gives no step a place of its own. The unrolling
 * costs stream size, hence the limits; beyond them the loop stays one
 * filter (as do while loops and data-dependent trip counts).
 *   pipeline Recurrence {
 *     Step0      pops U (the loop unit's items), pushes S K W0
 *     Step{t}    pops S K W0..W{t-1}, pushes S' K W0..W{t}
 *     Assemble   pops S K W0..W{N-1}, pushes the loop's outputs }
 * where S is the state (one item per state value, in carried order), K the
 * items of U that later steps or Assemble read (values the body reads from
 * outside, initial values of invariants and written tensors; an initial
 * state value rides no further than Step0), and Wt the sources of step t's
 * writes. So the written tensors do not travel through the chain, only
 * their per-step pieces do; Assemble applies them in iteration order, which
 * gives the loop's result whatever the indices (overlapping writes
 * included: the later one wins, as in the loop), so no disjointness proof
 * is needed here. A step runs the body once; Assemble runs only the nodes
 * the write indices need (index arithmetic the steps leave out), so no IR
 * node runs more often than in the loop (LowerStats.nodes_run_more).
 *
 * A carried value that starts as a compile-time value is no item: the
 * first step and Assemble read it from the program's constants.
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/eval.h"
#include "tssa/value.h"
#include "tssa/diag.h"
#include "tssa/util.h"

#define LOOP_MAX_BRANCHES 1024
/* The serial plan's limits: steps, and steps x body nodes. Step t pushes
 * the write sources of t + 1 steps, so the items moved grow with steps^2. */
#define LOOP_MAX_STEPS 256
#define LOOP_MAX_UNROLLED_NODES 8192

static bool static_int(LowerProgram *p, const IrValue *v, int64_t *out)
{
    if (!p->is_static[v->id])
        return false;
    const RtValue *r = node_exec_get(p->exec, v);
    if (!r || (r->kind != RT_INT && r->kind != RT_BOOL))
        return false;
    *out = r->u.i;
    return true;
}

static bool is_true_constant(LowerProgram *p, const IrValue *v)
{
    int64_t b;
    if (static_int(p, v, &b))
        return b != 0;
    if (v->def->op == OP_PRIM_CONSTANT && v->def->noutputs == 1) {
        const IrAttr *a = ir_attr_find(v->def, "value");
        return a && a->kind == ATTR_INT && a->u.i == 1 && v->type && v->type->kind == TY_BOOL;
    }
    return false;
}

/* Marks, in `mark`, every body node the value depends on, and lists the
 * nodes it newly marks in taken[*ntaken] (so a failed attempt can be
 * undone); false when one is not scalar work on the counter and
 * compile-time values. */
static bool index_slice(LowerProgram *p, IrBlock *body, IrValue *v, bool *mark, IrNode **taken,
                        int *ntaken)
{
    if (p->is_static[v->id] || v == ir_block_param(body, 0))
        return true;
    IrNode *d = v->def;
    if (d->owner != body || d->op == OP_PRIM_PARAM)
        return false;    /* a carried parameter, or an outer run-time value */
    if (mark[d->id])
        return true;
    if (!lower_node_scalar(d) || d->op == OP_PRIM_GETATTR)
        return false;
    for (int i = 0; i < d->ninputs; i++)
        if (!index_slice(p, body, d->inputs[i], mark, taken, ntaken))
            return false;
    mark[d->id] = true;
    taken[(*ntaken)++] = d;
    return true;
}

typedef struct Region {
    int64_t lo, hi;     /* [lo, hi) along dim */
} Region;

static int region_cmp(const void *a, const void *b)
{
    const Region *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool arg_int(const RtValue *v, int64_t *out, int64_t dflt, bool none_ok)
{
    if (!v || v->kind == RT_NONE) {
        *out = dflt;
        return none_ok;
    }
    if (v->kind != RT_INT && v->kind != RT_BOOL)
        return false;
    *out = v->u.i;
    return true;
}

/* Evaluates the index arguments of write w for every iteration and checks
 * that the regions are pairwise disjoint. */
static bool writes_disjoint(LowerProgram *p, LoopPlan *plan, IrNode *w, const char **why)
{
    IrBlock *body = plan->loop->blocks[0];
    Region *r = xmalloc((size_t)plan->trips * sizeof *r);
    bool ok = true;
    int64_t dim0 = 0;
    node_exec_set_err(p->exec, NULL);
    for (int64_t i = 0; ok && i < plan->trips; i++) {
        node_exec_set(p->exec, ir_block_param(body, 0), rt_int(i));
        for (int k = 0; ok && k < plan->nindex_nodes; k++)
            ok = node_exec_node(p->exec, plan->index_nodes[k]);
        if (!ok) {
            *why = "an index of a write fails to evaluate";
            break;
        }
        RtValue *a[4] = {NULL, NULL, NULL, NULL};
        for (int k = 2; k < w->ninputs && k < 6; k++)
            a[k - 2] = node_exec_get(p->exec, w->inputs[k]);
        int64_t dim = 0, lo = 0, hi = 0, step = 1;
        if (w->op == OP_IMMUT_SELECT_REV) {
            ok = w->ninputs == 4 && arg_int(a[0], &dim, 0, false) && arg_int(a[1], &lo, 0, false);
            hi = lo + 1;
        } else {
            ok = arg_int(a[0], &dim, 0, true) && arg_int(a[1], &lo, 0, true) &&
                 arg_int(a[2], &hi, 0, false) && arg_int(a[3], &step, 1, true) && step >= 1;
            if (ok && hi < lo)
                hi = lo;    /* an empty slice writes nothing */
        }
        if (!ok) {
            *why = "a write's index is not a compile-time int (or its slice end is open)";
        } else if (lo < 0) {
            ok = false;
            *why = "a write's index is negative (it would wrap by an unknown size)";
        } else if (i > 0 && dim != dim0) {
            ok = false;
            *why = "iterations write along different dims";
        }
        dim0 = dim;
        r[i] = (Region){lo, hi};
    }
    for (int k = 0; k < plan->nindex_nodes; k++)
        node_exec_clear_node(p->exec, plan->index_nodes[k]);
    node_exec_clear(p->exec, ir_block_param(body, 0));
    if (ok) {
        qsort(r, (size_t)plan->trips, sizeof *r, region_cmp);
        for (int64_t i = 1; ok && i < plan->trips; i++)
            if (r[i].lo < r[i - 1].hi) {
                ok = false;
                *why = "the regions written by two iterations overlap";
            }
    }
    free(r);
    return ok;
}

/* True when the write w is of the indexed-write shape on carried parameter
 * c with body result r (the classification at the top of this file, index
 * aside). */
static bool write_shape(IrBlock *body, IrValue *c, IrValue *r)
{
    IrNode *w = r->def;
    return w->owner == body && (w->op == OP_IMMUT_SELECT_REV || w->op == OP_IMMUT_SLICE_REV) &&
           w->ninputs >= 3 && w->inputs[0] == c && c->nuses == 1 && r->nuses == 1;
}

static bool is_plan_write(const LoopPlan *plan, const IrNode *n)
{
    for (int j = 0; j < plan->nwrites; j++)
        if (plan->writes[j] == n)
            return true;
    return false;
}

/* True when every use of n's outputs is an index argument of a write or a
 * use by a node in `index_only`: the iterations need not compute n. */
static bool only_indexes(const LoopPlan *plan, const IrNode *n, const bool *index_only)
{
    for (int i = 0; i < n->noutputs; i++)
        for (int u = 0; u < n->outputs[i]->nuses; u++) {
            const IrUse *use = &n->outputs[i]->uses[u];
            bool by_index = is_plan_write(plan, use->user) ? use->index >= 2
                                                           : index_only[use->user->id];
            if (!by_index)
                return false;
        }
    return true;
}

LoopPlan *lower_loop_plan(LowerProgram *p, IrNode *loop, const char **why)
{
    int64_t trips, entry;
    if (loop->nblocks != 1 || loop->ninputs < 2 || loop->noutputs != loop->ninputs - 2 ||
        ir_block_nparams(loop->blocks[0]) != loop->ninputs - 1 ||
        ir_block_nreturns(loop->blocks[0]) != loop->ninputs - 1) {
        *why = "malformed loop";
        return NULL;
    }
    IrBlock *body = loop->blocks[0];
    int ncarried = loop->ninputs - 2;
    if (!static_int(p, loop->inputs[0], &trips) || !static_int(p, loop->inputs[1], &entry) ||
        !entry || !is_true_constant(p, ir_block_return(body, 0))) {
        *why = "the trip count is not static (a while loop or a data-dependent bound)";
        return NULL;
    }
    if (trips < 1 || trips > LOOP_MAX_BRANCHES || ncarried == 0) {
        *why = trips < 1 ? "the loop never runs" : "too many iterations or nothing carried";
        return NULL;
    }
    LoopPlan *plan = lower_alloc(p, sizeof *plan);
    plan->loop = loop;
    plan->trips = trips;
    plan->carried = lower_alloc(p, (size_t)ncarried * sizeof *plan->carried);
    plan->writes = lower_alloc(p, (size_t)ncarried * sizeof *plan->writes);
    plan->state = lower_alloc(p, (size_t)ncarried * sizeof *plan->state);
    int nbody = 0;
    IR_FOREACH_NODE(n, body)
        nbody++;
    bool *mark = xcalloc((size_t)p->g->nnodes + 1, sizeof *mark);
    IrNode **taken = xmalloc(((size_t)nbody + 1) * sizeof *taken);
    for (int k = 0; k < ncarried; k++) {
        IrValue *c = ir_block_param(body, 1 + k), *r = ir_block_return(body, 1 + k);
        plan->carried[k] = LOOP_CARRIED_STATE;
        if (r == c) {
            plan->carried[k] = LOOP_CARRIED_INVARIANT;
            continue;
        }
        if (!write_shape(body, c, r))
            continue;
        IrNode *w = r->def;
        int ntaken = 0;
        bool ok = true;
        for (int i = 2; ok && i < w->ninputs; i++)
            ok = index_slice(p, body, w->inputs[i], mark, taken, &ntaken);
        if (!ok) {
            /* An index that needs state or run-time values: the carried
             * tensor is state (the steps carry it whole). */
            for (int i = 0; i < ntaken; i++)
                mark[taken[i]->id] = false;
            continue;
        }
        plan->carried[k] = LOOP_CARRIED_WRITTEN;
        plan->writes[plan->nwrites++] = w;
    }
    free(taken);
    for (int k = 0; k < ncarried; k++)
        if (plan->carried[k] == LOOP_CARRIED_STATE)
            plan->state[plan->nstate++] = k;
    plan->serial = plan->nstate > 0;

    /* Nodes for Assemble (index arithmetic) and for the iterations: every
     * other body node, and index nodes that something else needs too. */
    bool *index_only = xcalloc((size_t)p->g->nnodes + 1, sizeof *index_only);
    for (IrNode *n = body->ret->prev; n != body->param; n = n->prev)
        index_only[n->id] = mark[n->id] && only_indexes(plan, n, index_only);
    plan->index_nodes = lower_alloc(p, (size_t)nbody * sizeof *plan->index_nodes);
    plan->iter_nodes = lower_alloc(p, (size_t)nbody * sizeof *plan->iter_nodes);
    IR_FOREACH_NODE(n, body) {
        if (mark[n->id])
            plan->index_nodes[plan->nindex_nodes++] = n;
        if (!is_plan_write(plan, n) && !index_only[n->id])
            plan->iter_nodes[plan->niter_nodes++] = n;
    }
    free(mark);
    free(index_only);

    if (plan->serial) {
        if (trips > LOOP_MAX_STEPS || trips * nbody > LOOP_MAX_UNROLLED_NODES) {
            *why = "real carried state, and too many iterations to unroll";
            return NULL;
        }
        return plan;
    }
    if (plan->nwrites == 0) {
        *why = "nothing is written";
        return NULL;
    }
    for (int j = 0; j < plan->nwrites; j++)
        if (!writes_disjoint(p, plan, plan->writes[j], why))
            return NULL;
    return plan;
}

/* Marks by value id every value the block (and blocks nested in it) reads. */
static void mark_reads(const IrBlock *blk, bool *read)
{
    IR_FOREACH_NODE(n, blk) {
        for (int i = 0; i < n->ninputs; i++)
            read[n->inputs[i]->id] = true;
        for (int i = 0; i < n->nblocks; i++)
            mark_reads(n->blocks[i], read);
    }
    for (int i = 0; i < ir_block_nreturns(blk); i++)
        read[ir_block_return(blk, i)->id] = true;
}

/* Where the carried initial values sit among the unit's pops, and which
 * popped items later stages read (K in the layouts above). */
static void plan_items(LowerProgram *p, LoopPlan *plan, IrValue **pops, int npops)
{
    IrNode *loop = plan->loop;
    int ncarried = loop->ninputs - 2;
    plan->unit_pops = pops;
    plan->nunit_pops = npops;
    plan->init_pos = lower_alloc(p, (size_t)ncarried * sizeof *plan->init_pos);
    plan->kept = lower_alloc(p, (size_t)npops * sizeof *plan->kept);
    bool *read = xcalloc((size_t)p->g->nvalues + 1, sizeof *read);
    bool *keep = xcalloc((size_t)npops + 1, sizeof *keep);
    if (plan->serial)
        mark_reads(loop->blocks[0], read);
    for (int k = 0; k < ncarried; k++) {
        plan->init_pos[k] = -1;
        for (int j = 0; j < npops && plan->init_pos[k] < 0; j++)
            if (pops[j] == loop->inputs[2 + k])
                plan->init_pos[k] = j;
        if (plan->init_pos[k] < 0 && !p->is_static[loop->inputs[2 + k]->id])
            diag_die("loop plan: carried value %d is neither popped nor static", k);
        if (plan->init_pos[k] >= 0 && plan->carried[k] != LOOP_CARRIED_STATE)
            keep[plan->init_pos[k]] = true;
    }
    for (int j = 0; j < npops; j++)
        if (keep[j] || read[pops[j]->id])
            plan->kept[plan->nkept++] = j;
    free(read);
    free(keep);
}

static LowerWork *loop_work(LowerProgram *p, LoopPlan *plan, LowerWorkKind kind)
{
    LowerWork *w = lower_alloc(p, sizeof *w);
    w->kind = kind;
    w->plan = plan;
    w->loop = plan->loop;
    w->trips = plan->trips;
    w->writes = plan->writes;
    w->nwrites = plan->nwrites;
    return w;
}

static StreamNode *loop_filter(StreamGraph *sg, const char *name, LowerWork *w)
{
    StreamNode *f = stream_filter_new(sg, name, lower_work_pop(w), lower_work_pop(w),
                                      lower_work_push(w));
    f->filter.work = w;
    f->filter.nodes = w->nodes;
    f->filter.nnodes = w->nnodes;
    return f;
}

/* Applies the writes to the initial values: pops S K W0..W{N-1}. */
static StreamNode *assemble_filter(LowerProgram *p, StreamGraph *sg, LoopPlan *plan)
{
    LowerWork *a = loop_work(p, plan, LOWER_WORK_LOOP_ASSEMBLE);
    a->nodes = plan->index_nodes;
    a->nnodes = plan->nindex_nodes;
    a->npops = plan->nstate + plan->nkept;
    a->executed = 1;    /* the loop unit counts once, here */
    StreamNode *f = loop_filter(sg, "Assemble", a);
    f->filter.nodes = plan->writes;
    f->filter.nnodes = plan->nwrites;
    return f;
}

static StreamNode *parallel_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan)
{
    int npops = plan->nunit_pops;
    StreamNode *pipe = stream_pipeline_new(sg, "Loop");
    StreamNode *sj = stream_splitjoin_new(sg, "Iterations", SPLIT_DUPLICATE);
    if (plan->nkept > 0) {
        LowerWork *carried = lower_alloc(p, sizeof *carried);
        carried->kind = LOWER_WORK_ROUTE;
        carried->route_pop = npops;
        carried->nroute = plan->nkept;
        carried->route = plan->kept;
        stream_splitjoin_add(sj, loop_filter(sg, "Carried", carried), 1, plan->nkept);
    }
    for (int64_t i = 0; i < plan->trips; i++) {
        LowerWork *w = loop_work(p, plan, LOWER_WORK_LOOP_ITER);
        w->iter = i;
        w->nodes = plan->iter_nodes;
        w->nnodes = plan->niter_nodes;
        w->pops = plan->unit_pops;
        w->npops = npops;
        char name[48];
        snprintf(name, sizeof name, "Iter%lld", (long long)i);
        stream_splitjoin_add(sj, loop_filter(sg, name, w), 1, plan->nwrites);
    }
    stream_pipeline_add(pipe, sj);
    stream_pipeline_add(pipe, assemble_filter(p, sg, plan));
    p->stats.loop_branches += plan->trips;
    return pipe;
}

static StreamNode *serial_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan)
{
    StreamNode *pipe = stream_pipeline_new(sg, "Recurrence");
    int64_t passed = plan->nstate + plan->nkept;
    for (int64_t t = 0; t < plan->trips; t++) {
        LowerWork *w = loop_work(p, plan, LOWER_WORK_LOOP_STEP);
        w->iter = t;
        w->nodes = plan->iter_nodes;
        w->nnodes = plan->niter_nodes;
        w->pops = plan->unit_pops;
        w->npops = t == 0 ? plan->nunit_pops : (int)(passed + t * plan->nwrites);
        w->npushes = (int)(passed + (t + 1) * plan->nwrites);
        char name[48];
        snprintf(name, sizeof name, "Step%lld", (long long)t);
        stream_pipeline_add(pipe, loop_filter(sg, name, w));
    }
    stream_pipeline_add(pipe, assemble_filter(p, sg, plan));
    return pipe;
}

StreamNode *lower_loop_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan, IrValue **pops,
                              int npops)
{
    plan_items(p, plan, pops, npops);
    return plan->serial ? serial_stream(p, sg, plan) : parallel_stream(p, sg, plan);
}
