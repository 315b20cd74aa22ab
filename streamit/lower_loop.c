/* lower_loop.c — horizontal parallelism: a prim::Loop whose iterations are
 * independent becomes a split-join over its iterations.
 *
 * A loop qualifies when, after specialization,
 *   - its trip count is a compile-time int (1 .. LOOP_MAX_BRANCHES), its
 *     entry condition is true and its body returns the constant true as
 *     the condition (a for loop);
 *   - every carried value is either passed through unchanged (the body
 *     returns its parameter: a loop invariant) or is an indexed write: the
 *     body returns W = immut::select_rev(c, v, dim, index) or
 *     immut::slice_rev(c, v, dim, start, end, step) of its parameter c, c has
 *     no other use (no iteration reads the carried tensor) and W no other
 *     use than the return;
 *   - the index arguments of every W depend only on the loop counter and
 *     compile-time values (through scalar ops in the body), and
 *   - the regions the iterations write are pairwise disjoint. This is proven,
 *     not assumed: the index arguments are evaluated for every iteration
 *     (the trip count is static) and the written regions compared: the same
 *     dim in every iteration, indices (or [start, end) intervals, which
 *     contain every element a stepped slice writes) non-negative and pairwise
 *     disjoint. A negative index or an open end would wrap or stretch by the
 *     carried tensor's size, which is not known here, so it is refused.
 * Then iteration i is a function of the loop-invariant inputs and i alone,
 * and the result is the carried initial value with every iteration's
 * write applied, in any order (disjoint regions commute).
 *
 * The stream:  pipeline Loop {
 *                splitjoin { split duplicate;
 *                            Carried (Route: passes the carried initial values),
 *                            Iter0 ... Iter{N-1} (the body, writes left out,
 *                                                 pushes each write's source);
 *                            join roundrobin(ncarried, nwrites, ..., nwrites); }
 *                Assemble (applies the writes of iteration 0, 1, ... to the
 *                          initial values: index math only, no body work) }
 * Loops that do not qualify (an RNN's hidden state is real carried state)
 * stay one filter that runs the whole loop: a feedback loop would need one
 * item per turn of every carried value and buys no parallelism here, since
 * each turn needs the previous one; the split-join is where the lowering
 * gains (the input projections of an RNN are not hoisted yet).
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"

#define LOOP_MAX_BRANCHES 1024

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

/* Adds to the plan's index nodes, in body order, every body node the value
 * depends on; false when one is not scalar work on the counter and
 * compile-time values. `mark` flags nodes already taken. */
static bool index_slice(LowerProgram *p, IrBlock *body, IrValue *v, LoopPlan *plan, bool *mark)
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
        if (!index_slice(p, body, d->inputs[i], plan, mark))
            return false;
    mark[d->id] = true;
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
    Region *r = malloc((size_t)plan->trips * sizeof *r);
    if (!r)
        abort();
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

LoopPlan *lower_loop_plan(LowerProgram *p, IrNode *loop, const char **why)
{
    int64_t trips, entry;
    if (loop->nblocks != 1 || loop->ninputs < 2) {
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
    plan->writes = lower_alloc(p, (size_t)ncarried * sizeof *plan->writes);
    for (int k = 0; k < ncarried; k++) {
        IrValue *c = ir_block_param(body, 1 + k), *r = ir_block_return(body, 1 + k);
        if (r == c)
            continue;
        IrNode *w = r->def;
        if (w->owner != body || (w->op != OP_IMMUT_SELECT_REV && w->op != OP_IMMUT_SLICE_REV) ||
            w->inputs[0] != c || c->nuses != 1 || r->nuses != 1 || w->ninputs < 3) {
            *why = "a carried value is read or rewritten by the body (real carried state)";
            return NULL;
        }
        plan->writes[plan->nwrites++] = w;
    }
    if (plan->nwrites == 0) {
        *why = "nothing is written";
        return NULL;
    }
    bool *mark = calloc((size_t)p->g->nnodes + 1, sizeof *mark);
    if (!mark)
        abort();
    bool ok = true;
    for (int j = 0; ok && j < plan->nwrites; j++)
        for (int k = 2; ok && k < plan->writes[j]->ninputs; k++)
            ok = index_slice(p, body, plan->writes[j]->inputs[k], plan, mark);
    if (!ok) {
        free(mark);
        *why = "a write's index depends on run-time values";
        return NULL;
    }
    int nbody = 0;
    IR_FOREACH_NODE(n, body)
        nbody++;
    plan->index_nodes = lower_alloc(p, (size_t)nbody * sizeof *plan->index_nodes);
    plan->iter_nodes = lower_alloc(p, (size_t)nbody * sizeof *plan->iter_nodes);
    IR_FOREACH_NODE(n, body) {
        if (mark[n->id])
            plan->index_nodes[plan->nindex_nodes++] = n;
        bool is_write = false;
        for (int j = 0; j < plan->nwrites; j++)
            is_write = is_write || plan->writes[j] == n;
        if (!is_write)
            plan->iter_nodes[plan->niter_nodes++] = n;
    }
    free(mark);
    for (int j = 0; j < plan->nwrites; j++)
        if (!writes_disjoint(p, plan, plan->writes[j], why))
            return NULL;
    return plan;
}

StreamNode *lower_loop_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan, IrValue **pops,
                              int npops)
{
    IrNode *loop = plan->loop;
    int ncarried = loop->ninputs - 2;
    StreamNode *pipe = stream_pipeline_new(sg, "Loop");
    StreamNode *sj = stream_splitjoin_new(sg, "Iterations", SPLIT_DUPLICATE);

    LowerWork *carried = lower_alloc(p, sizeof *carried);
    carried->kind = LOWER_WORK_ROUTE;
    carried->route_pop = npops;
    carried->nroute = ncarried;
    carried->route = lower_alloc(p, (size_t)ncarried * sizeof *carried->route);
    for (int k = 0; k < ncarried; k++)
        carried->route[k] = k;  /* the unit pops the carried initial values first */
    StreamNode *f = stream_filter_new(sg, "Carried", npops, npops, ncarried);
    f->filter.work = carried;
    stream_splitjoin_add(sj, f, 1, ncarried);

    for (int64_t i = 0; i < plan->trips; i++) {
        LowerWork *w = lower_alloc(p, sizeof *w);
        w->kind = LOWER_WORK_LOOP_ITER;
        w->loop = loop;
        w->iter = i;
        w->trips = plan->trips;
        w->nodes = plan->iter_nodes;
        w->nnodes = plan->niter_nodes;
        w->pops = pops;
        w->npops = npops;
        w->writes = plan->writes;
        w->nwrites = plan->nwrites;
        w->executed = 0;    /* the loop unit counts once, at Assemble */
        char name[48];
        snprintf(name, sizeof name, "Iter%lld", (long long)i);
        StreamNode *it = stream_filter_new(sg, name, npops, npops, plan->nwrites);
        it->filter.work = w;
        it->filter.nodes = w->nodes;
        it->filter.nnodes = w->nnodes;
        stream_splitjoin_add(sj, it, 1, plan->nwrites);
    }
    stream_pipeline_add(pipe, sj);

    LowerWork *a = lower_alloc(p, sizeof *a);
    a->kind = LOWER_WORK_LOOP_ASSEMBLE;
    a->loop = loop;
    a->trips = plan->trips;
    a->nodes = plan->index_nodes;
    a->nnodes = plan->nindex_nodes;
    a->pops = pops;
    a->npops = ncarried;
    a->writes = plan->writes;
    a->nwrites = plan->nwrites;
    a->executed = 1;
    StreamNode *asm_filter = stream_filter_new(sg, "Assemble", lower_work_pop(a), lower_work_pop(a),
                                               lower_work_push(a));
    asm_filter->filter.work = a;
    asm_filter->filter.nodes = a->writes;
    asm_filter->filter.nnodes = a->nwrites;
    stream_pipeline_add(pipe, asm_filter);
    p->stats.loop_branches += plan->trips;
    return pipe;
}
