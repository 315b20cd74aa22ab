/* fire.c — what one firing of a lowered filter does (the meaning of the
 * LowerWork kinds in lower.h), on the evaluator's op bindings (NodeExec).
 *
 * A firing binds the popped items to the values they stand for, runs its IR
 * nodes, takes the pushed items from their values, and then clears every
 * value it bound or made: a filter sees only what its channels bring it and
 * the program's compile-time values (the executor's NodeExec starts as a
 * clone of the program's static values and keeps them for the whole run), so a lowering that forgot a channel fails loudly
 * instead of reading a stale value.
 *
 * A loop's Unstack, Body (with state) and Stack read their item layouts
 * from the loop's plan; streamit/lower_loop.c describes them. A
 * hierarchical filter (a loop decided at run time) fires its body's steady
 * state once per iteration (run_nested_loop).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu.h"

static bool run_nodes(NodeExec *x, IrNode **nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (!node_exec_node(x, nodes[i]))
            return false;
    return true;
}

static void clear_nodes(NodeExec *x, IrNode **nodes, int n)
{
    for (int i = 0; i < n; i++)
        node_exec_clear_node(x, nodes[i]);
}

static void bind_values(NodeExec *x, IrValue **values, int n, RtValue **items)
{
    for (int i = 0; i < n; i++)
        node_exec_set(x, values[i], rt_retain(items[i]));
}

static void clear_values(NodeExec *x, IrValue **values, int n)
{
    for (int i = 0; i < n; i++)
        node_exec_clear(x, values[i]);
}

/* Takes pushed[k] from the value of values[k]; false (after a message)
 * when the lowering left one without a value. */
static bool push_values(NodeExec *x, IrValue **values, int n, RtValue **pushed, FILE *err)
{
    for (int k = 0; k < n; k++) {
        RtValue *v = node_exec_get(x, values[k]);
        if (!v) {
            if (err)
                fprintf(err, "error: internal: the lowering left %%%s without a value\n",
                        values[k]->name);
            return false;
        }
        pushed[k] = rt_retain(v);
    }
    return true;
}

static bool run_nested_loop(NodeExec *x, const LowerWork *w, FILE *err);

/* One step of a body's steady state: its nodes, or a nested loop's
 * iterations; it reads and makes the body's values in place. */
static bool run_step(NodeExec *x, const LowerWork *w, FILE *err)
{
    return w->steps ? run_nested_loop(x, w, err) : run_nodes(x, w->nodes, w->nnodes);
}

/* Drops what a step made. A nested loop's body values are gone already
 * (its iterations clear them); clearing its node as a whole would also drop
 * the compile-time values its body holds (a list of constants that shape
 * inference made static), which no step runs again. */
static void clear_step(NodeExec *x, const LowerWork *w)
{
    if (!w->steps) {
        clear_nodes(x, w->nodes, w->nnodes);
        return;
    }
    for (int i = 0; i < w->nodes[0]->noutputs; i++)
        node_exec_clear(x, w->nodes[0]->outputs[i]);
}

/* The loop's trip count or condition; a None trip count is no limit (as
 * prim::Loop has it). */
static bool loop_scalar(NodeExec *x, const IrValue *v, const char *what, int64_t *out, FILE *err)
{
    const RtValue *r = node_exec_get(x, v);
    if (r && (r->kind == RT_INT || r->kind == RT_BOOL)) {
        *out = r->u.i;
        return true;
    }
    if (r && r->kind == RT_NONE && strcmp(what, "trip count") == 0) {
        *out = INT64_MAX;
        return true;
    }
    if (err)
        fprintf(err, "error: the loop's %s %%%s is a %s, expected an int or bool\n", what, v->name,
                r ? rt_kind_name(r->kind) : "missing value");
    return false;
}

/* A hierarchical filter's loop (w->nodes[0]; lower.h, LowerWork.steps):
 * with its inputs bound, runs the body's steady state once per iteration
 * while the counter is under the trip count and the condition holds, as
 * prim::Loop does, and binds the loop's outputs to the final carried
 * values. Each iteration's body values are cleared after it, so an
 * iteration sees only its counter, the carried values and outer values. */
static bool run_nested_loop(NodeExec *x, const LowerWork *w, FILE *err)
{
    IrNode *loop = w->nodes[0];
    IrBlock *body = loop->blocks[0];
    int ncarried = loop->ninputs - 2;
    int64_t trips, cond;
    if (!loop_scalar(x, loop->inputs[0], "trip count", &trips, err) ||
        !loop_scalar(x, loop->inputs[1], "condition", &cond, err))
        return false;
    RtValue *carried_small[16];
    RtValue **carried = ncarried <= 16 ? carried_small : xmalloc((size_t)ncarried * sizeof *carried);
    for (int k = 0; k < ncarried; k++)
        carried[k] = rt_retain(node_exec_get(x, loop->inputs[2 + k]));
    bool ok = true;
    for (int64_t i = 0; ok && cond && i < trips; i++) {
        node_exec_set(x, ir_block_param(body, 0), rt_int(i));
        for (int k = 0; k < ncarried; k++) {
            node_exec_set(x, ir_block_param(body, 1 + k), carried[k]);    /* takes it */
            carried[k] = NULL;
        }
        for (int s = 0; ok && s < w->nsteps; s++)
            ok = run_step(x, w->steps[s], err);
        ok = ok && loop_scalar(x, ir_block_return(body, 0), "condition", &cond, err);
        for (int k = 0; ok && k < ncarried; k++) {
            carried[k] = rt_retain(node_exec_get(x, ir_block_return(body, 1 + k)));
            if (!carried[k]) {
                if (err)
                    fprintf(err, "error: internal: the loop body left %%%s without a value\n",
                            ir_block_return(body, 1 + k)->name);
                ok = false;
            }
        }
        for (int j = 0; j < ir_block_nparams(body); j++)
            node_exec_clear(x, ir_block_param(body, j));
        for (int s = 0; s < w->nsteps; s++)
            clear_step(x, w->steps[s]);
    }
    for (int k = 0; k < ncarried; k++) {
        if (ok)
            node_exec_set(x, loop->outputs[k], carried[k]);
        else
            rt_release(carried[k]);
    }
    if (carried != carried_small)
        free(carried);
    return ok;
}

static bool fire_region(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed,
                        FILE *err)
{
    bind_values(x, w->pops, w->npops, popped);
    if (w->order_token)
        node_exec_set(x, w->order_token, rt_none());
    bool ok = run_step(x, w, err) && push_values(x, w->pushes, w->npushes, pushed, err);
    for (int i = 0; ok && i < w->npass; i++)
        pushed[w->npushes + i] = rt_retain(popped[w->npops + i]);
    clear_step(x, w);
    clear_values(x, w->pops, w->npops);
    if (w->order_token)
        node_exec_clear(x, w->order_token);
    return ok;
}

/* The initial value of carried value k: an item of the loop unit, or a
 * compile-time value. */
static RtValue *loop_initial(NodeExec *x, const LoopPlan *plan, RtValue **unit, int k)
{
    int j = plan->init_pos[k];
    return j >= 0 ? unit[j] : node_exec_get(x, plan->loop->inputs[2 + k]);
}

static IrValue *carried_param(const LoopPlan *plan, int k)
{
    return ir_block_param(plan->loop->blocks[0], 1 + k);
}

/* What a phased loop's Unstack or Stack keeps between its phases (see
 * StreamPhasing in stream.h): the Unstack the values its slicers read (the
 * loop unit's items, invariant carried values, the hoisted nodes'
 * results), the Stack its results so far. */
struct CpuPhaseState {
    IrValue **values;       /* Unstack: bound again in every phase */
    RtValue **saved;
    int nvalues;
    RtValue **results;      /* Stack: per carried value */
    struct Elems *lists;
    int ncarried;
};

/* Elements of list values appended to a growing array, each a reference
 * the array holds: a phased Stack keeps them past the phase whose popped
 * lists they came from, and those lists are released when the phase ends. */
typedef struct Elems {
    RtValue **items;
    int64_t n, cap;
} Elems;

void cpu_phase_state_free(CpuPhaseState *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->nvalues; i++)
        rt_release(st->saved[i]);
    free(st->values);
    free(st->saved);
    for (int k = 0; k < st->ncarried; k++) {
        if (st->results)
            rt_release(st->results[k]);
        if (st->lists) {
            for (int64_t i = 0; i < st->lists[k].n; i++)
                rt_release(st->lists[k].items[i]);
            free(st->lists[k].items);
        }
    }
    free(st->results);
    free(st->lists);
    free(st);
}

/* The Unstack's bound values after phase 0: kept for its later phases. */
static CpuPhaseState *unstack_save(NodeExec *x, const LoopPlan *plan)
{
    int ncarried = plan->loop->ninputs - 2;
    int cap = plan->nunit_pops + ncarried;
    for (int i = 0; i < plan->nhoisted; i++)
        cap += plan->hoisted[i]->noutputs;
    CpuPhaseState *st = xcalloc(1, sizeof *st);
    st->values = xcalloc((size_t)cap + 1, sizeof *st->values);
    st->saved = xcalloc((size_t)cap + 1, sizeof *st->saved);
    for (int i = 0; i < plan->nunit_pops; i++)
        st->values[st->nvalues++] = plan->unit_pops[i];
    for (int k = 0; k < ncarried; k++)
        if (plan->carried[k] == LOOP_CARRIED_INVARIANT)
            st->values[st->nvalues++] = carried_param(plan, k);
    for (int i = 0; i < plan->nhoisted; i++)
        for (int o = 0; o < plan->hoisted[i]->noutputs; o++)
            st->values[st->nvalues++] = plan->hoisted[i]->outputs[o];
    for (int i = 0; i < st->nvalues; i++) {
        RtValue *v = node_exec_get(x, st->values[i]);
        st->saved[i] = v ? rt_retain(v) : NULL;
    }
    return st;
}

/* Pops U; runs the hoisted nodes once; per iteration t binds the counter,
 * runs the slicers and pushes the iteration's items, then (with state) the
 * initial-state slots: the initial values at t = 0, None later. A phased
 * Unstack does this for the phase's iterations; phase 0 pops U and runs the
 * hoisted nodes, the later phases bind what phase 0 kept. */
static bool fire_unstack(NodeExec *x, const LowerWork *w, const CpuLoopPhase *ph, RtValue **popped,
                         RtValue **pushed, FILE *err)
{
    const LoopPlan *plan = w->plan;
    int ncarried = plan->loop->ninputs - 2;
    CpuPhaseState *st = *ph->state;
    if (ph->first == 0) {
        bind_values(x, plan->unit_pops, plan->nunit_pops, popped);
        for (int k = 0; k < ncarried; k++)
            if (plan->carried[k] == LOOP_CARRIED_INVARIANT) {
                RtValue *v = loop_initial(x, plan, popped, k);
                if (v)
                    node_exec_set(x, carried_param(plan, k), rt_retain(v));
            }
    } else {
        for (int i = 0; st && i < st->nvalues; i++)
            if (st->saved[i])
                node_exec_set(x, st->values[i], rt_retain(st->saved[i]));
    }
    bool ok = ph->first == 0 ? run_nodes(x, plan->hoisted, plan->nhoisted) : st != NULL;
    if (ok && ph->first == 0 && !ph->last)
        *ph->state = unstack_save(x, plan);
    int64_t at = 0;
    for (int64_t t = ph->first; ok && t < ph->first + ph->count; t++) {
        node_exec_set(x, plan->counter, rt_int(t));
        ok = run_nodes(x, w->nodes, w->nnodes) &&
             push_values(x, plan->step_items, plan->nstep_items, pushed + at, err);
        if (ok)
            at += plan->nstep_items;
        for (int s = 0; ok && plan->feedback && s < plan->nstate; s++) {
            RtValue *v = t == 0 ? loop_initial(x, plan, popped, plan->state[s]) : NULL;
            pushed[at++] = v ? rt_retain(v) : rt_none();
        }
        clear_nodes(x, w->nodes, w->nnodes);
        node_exec_clear(x, plan->counter);
    }
    if (!ok)
        for (int64_t i = 0; i < at; i++) {
            rt_release(pushed[i]);
            pushed[i] = NULL;
        }
    clear_nodes(x, plan->hoisted, plan->nhoisted);
    for (int k = 0; k < ncarried; k++)
        node_exec_clear(x, carried_param(plan, k));
    clear_values(x, plan->unit_pops, plan->nunit_pops);
    if (ph->last || !ok) {
        cpu_phase_state_free(*ph->state);
        *ph->state = NULL;
    }
    return ok;
}

/* One step of a loop with state: pops its items, the initial-state slots
 * and the state from the loop path; step 0 (the counter is one of its
 * items) starts from the slots. Pushes the new state and the step's
 * outputs. */
static bool fire_loop_body(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed,
                           FILE *err)
{
    const LoopPlan *plan = w->plan;
    bind_values(x, w->pops, w->npops, popped);
    RtValue *counter = node_exec_get(x, plan->counter);
    bool ok = counter && counter->kind == RT_INT;
    if (!ok && err)
        fprintf(err, "error: internal: a loop step has no iteration counter\n");
    RtValue **slots = popped + w->npops, **loop_state = slots + plan->nstate;
    for (int s = 0; ok && s < plan->nstate; s++)
        node_exec_set(x, carried_param(plan, plan->state[s]),
                      rt_retain(counter->u.i == 0 ? slots[s] : loop_state[s]));
    ok = ok && run_nodes(x, w->nodes, w->nnodes) &&
         push_values(x, w->pushes, w->npushes, pushed, err);
    clear_nodes(x, w->nodes, w->nnodes);
    for (int s = 0; s < plan->nstate; s++)
        node_exec_clear(x, carried_param(plan, plan->state[s]));
    clear_values(x, w->pops, w->npops);
    return ok;
}

/* Units up to this many values are built on the caller's stack, so a
 * Stack firing allocates nothing for them in the common case. */
enum { UNIT_SMALL = 16 };

/* unit[] (the loop unit's items, NULL where the stage has none) from the
 * kept items at popped[0..nkept): in `small` when it fits (free with
 * unit_free), else on the heap. */
static RtValue **unit_from_kept(const LoopPlan *plan, RtValue **popped, RtValue *small[UNIT_SMALL])
{
    RtValue **unit = small;
    if (plan->nunit_pops > UNIT_SMALL)
        unit = xmallocn((size_t)plan->nunit_pops, sizeof *unit);
    for (int j = 0; j < plan->nunit_pops; j++)
        unit[j] = NULL;
    for (int i = 0; i < plan->nkept; i++)
        unit[plan->kept[i]] = popped[i];
    return unit;
}

static void unit_free(RtValue **unit, RtValue *small[UNIT_SMALL])
{
    if (unit != small)
        free(unit);
}

/* Appends list v's items to e; `what` names v in the message when v is not
 * a list. */
static bool elems_add_list(Elems *e, const RtValue *v, const char *what, FILE *err)
{
    if (!v || v->kind != RT_LIST) {
        if (err)
            fprintf(err, "error: internal: %s is not a list\n", what);
        return false;
    }
    if (e->n + v->u.list.n > RT_LIST_MAX_ITEMS) {
        if (err)
            fprintf(err, "error: a loop appended more than %d items to a list\n", RT_LIST_MAX_ITEMS);
        return false;
    }
    for (int i = 0; i < v->u.list.n; i++) {
        if (e->n == e->cap) {
            e->cap = e->cap ? 2 * e->cap : 16;
            e->items = xrealloc(e->items, (size_t)e->cap * sizeof *e->items);
        }
        e->items[e->n++] = rt_retain(v->u.list.items[i]);
    }
    return true;
}

/* ---------------------------------------------------------------- owned rows */

enum { MAX_ABSENT_RANKS = 1 << 16 };
static RtValue *absent_items[MAX_ABSENT_RANKS];
static int absent_top;          /* ranks below this may have a placeholder */

RtValue *cpu_absent_item(int rank)
{
    if (rank < 0 || rank >= MAX_ABSENT_RANKS)
        rank = MAX_ABSENT_RANKS - 1;
    if (!absent_items[rank])
        absent_items[rank] = rt_none();     /* kept for the process's life */
    if (rank >= absent_top)
        absent_top = rank + 1;
    return rt_retain(absent_items[rank]);
}

int cpu_absent_rank(const RtValue *v)
{
    if (!v || v->kind != RT_NONE)
        return -1;
    for (int r = 0; r < absent_top; r++)
        if (absent_items[r] == v)
            return r;
    return -1;
}

void cpu_regions_clear(CpuRegions *r)
{
    for (int i = 0; i < r->n; i++)
        rt_release(r->items[i].tensor);
    free(r->items);
    *r = (CpuRegions){0};
}

static int64_t int_arg(NodeExec *x, const IrValue *v, int64_t dflt)
{
    const RtValue *r = node_exec_get(x, v);
    return r && (r->kind == RT_INT || r->kind == RT_BOOL) ? r->u.i : dflt;
}

/* The rows of dim 0 that write (select_rev at an index, or slice_rev from
 * start to end by 1: LoopPlan.overwrites) covers in a result of `rows`
 * rows, as Python indexes them, recorded with `tensor` (rank 0: the
 * result, whose rows `owner` computed; another rank: the rows it computed,
 * owner -1). */
static bool record_rows(NodeExec *x, CpuRegions *regions, const IrNode *write, RtValue *tensor, int64_t rows,
                        int owner, FILE *err)
{
    if (!tensor || tensor->kind != RT_TENSOR) {
        fprintf(err, "error: internal: a loop's written rows are not a tensor\n");
        return false;
    }
    int64_t lo, hi;
    if (write->op == OP_IMMUT_SELECT_REV) {
        lo = int_arg(x, write->inputs[3], 0);
        lo = lo < 0 ? lo + rows : lo;
        hi = lo + 1;
    } else {
        lo = int_arg(x, write->inputs[3], 0);
        hi = int_arg(x, write->inputs[4], rows);
        lo = lo < 0 ? lo + rows : lo;
        hi = hi < 0 ? hi + rows : hi;
        lo = lo < 0 ? 0 : lo > rows ? rows : lo;
        hi = hi < lo ? lo : hi > rows ? rows : hi;
    }
    if (regions->n == regions->cap) {
        regions->cap = regions->cap ? 2 * regions->cap : 16;
        regions->items = xrealloc(regions->items, (size_t)regions->cap * sizeof *regions->items);
    }
    regions->items[regions->n++] = (CpuRegion){rt_retain(tensor), lo, hi, owner,
                                                write->op == OP_IMMUT_SELECT_REV};
    return true;
}

/* The rows (dim 0) of carried value k, which a loop whose writes cover it
 * has statically (LoopPlan.overwrites). */
static int64_t written_rows(const LoopPlan *plan, int k)
{
    const IrType *t = plan->loop->outputs[k]->type;
    return t && t->kind == TY_TENSOR && t->tensor.rank >= 1 ? t->tensor.sizes[0] : 0;
}

/* Pops K (the kept initial values) and every iteration's S + O items;
 * pushes the loop's results in carried order: invariants as they came, the
 * final state from the last iteration, each written tensor as one copy of
 * its initial value with every iteration's write applied in place, in
 * iteration order, and each appended list joined in order. A phased Stack
 * pops K in phase 0, each phase's iterations' items in every phase, keeps
 * the results so far (the state of the phase's last iteration only) and
 * pushes them in the last phase. */
static bool fire_stack(NodeExec *x, const LowerWork *w, const CpuLoopPhase *ph, RtValue **popped,
                       RtValue **pushed, FILE *err)
{
    const LoopPlan *plan = w->plan;
    int ncarried = plan->loop->ninputs - 2;
    int64_t per = plan->nstate + plan->nouts;
    RtValue **items = popped;
    bool ok = true;
    CpuPhaseState *st = *ph->state;
    if (ph->first == 0) {
        st = *ph->state = xcalloc(1, sizeof *st);
        st->ncarried = ncarried;
        st->results = xcalloc((size_t)ncarried + 1, sizeof *st->results);
        st->lists = xcalloc((size_t)ncarried + 1, sizeof *st->lists);
        RtValue *unit_small[UNIT_SMALL];
        RtValue **unit = unit_from_kept(plan, popped, unit_small);
        items = popped + plan->nkept;
        for (int k = 0; ok && k < ncarried; k++) {
            RtValue *init = loop_initial(x, plan, unit, k);
            RtValue **res = &st->results[k];
            switch (plan->carried[k]) {
            case LOOP_CARRIED_INVARIANT:
                *res = init ? rt_retain(init) : NULL;
                break;
            case LOOP_CARRIED_STATE:
                *res = rt_none();       /* set from the phases' last iterations */
                break;
            case LOOP_CARRIED_WRITTEN:
                /* The destination, planned once: a copy of the initial value
                 * that only this firing holds, so the writes go in place
                 * (only its shape when the writes cover all of it). A rank
                 * that sends its rows to rank 0 keeps none. */
                if (ph->sends_rows)
                    *res = rt_none();
                else if (init && init->kind == RT_TENSOR)
                    *res = plan->overwrites[k] ? node_exec_tensor_like(x, init)   /* where init is */
                                               : node_exec_clone_tensor(x, init);
                else if (init && init->kind == RT_LIST)     /* xs[i] = v */
                    *res = rt_list(RT_LIST, init->u.list.n, init->u.list.items);
                break;
            case LOOP_CARRIED_APPENDED:
                ok = elems_add_list(&st->lists[k], init, "the initial value of an appended loop value", err);
                break;
            }
            if (ok && plan->carried[k] != LOOP_CARRIED_APPENDED && !*res) {
                if (err)
                    fprintf(err, "error: internal: carried value %d of a loop has no value\n", k);
                ok = false;
            }
        }
        unit_free(unit, unit_small);
    }
    if (ok && !st) {
        if (err)
            fprintf(err, "error: internal: a loop's Stack lost its results between phases\n");
        ok = false;
    }
    for (int k = 0, s = 0; ok && k < ncarried; k++)
        if (plan->carried[k] == LOOP_CARRIED_STATE) {
            rt_release(st->results[k]);
            st->results[k] = rt_retain(items[(ph->count - 1) * per + s++]);
        }
    for (int64_t t = ph->first; ok && plan->nouts > 0 && t < ph->first + ph->count; t++) {
        node_exec_set(x, plan->counter, rt_int(t));
        ok = run_nodes(x, w->nodes, w->nnodes);
        RtValue **outs = items + (t - ph->first) * per + plan->nstate;
        for (int k = 0, j = 0; ok && k < ncarried; k++) {
            IrNode *write = plan->writes[k];
            if (!write)
                continue;
            RtValue *src = outs[j++];
            if (plan->carried[k] == LOOP_CARRIED_APPENDED) {
                ok = elems_add_list(&st->lists[k], src, "what a loop iteration appended", err);
                continue;
            }
            int owner = cpu_absent_rank(src);
            if (ph->sends_rows) {       /* this rank's own rows, for rank 0 */
                if (owner < 0)
                    ok = record_rows(x, ph->regions, write, src, written_rows(plan, k), -1, err);
                continue;
            }
            if (owner >= 0 && ph->regions)      /* another rank's rows: it sends them */
                ok = record_rows(x, ph->regions, write, st->results[k], written_rows(plan, k), owner, err);
            if (owner >= 0)
                continue;
            IrValue *src_value = write->inputs[lower_write_source(write)];
            node_exec_set(x, write->inputs[0], rt_retain(st->results[k]));
            node_exec_set(x, src_value, rt_retain(src));
            ok = node_exec_node_in_place(x, write);
            node_exec_clear(x, write->inputs[0]);
            node_exec_clear(x, src_value);
            node_exec_clear_node(x, write);
        }
        clear_nodes(x, w->nodes, w->nnodes);
        node_exec_clear(x, plan->counter);
    }
    if (ok && ph->last)
        for (int k = 0; k < ncarried; k++) {
            if (plan->carried[k] == LOOP_CARRIED_APPENDED) {
                pushed[k] = rt_list(RT_LIST, (int)st->lists[k].n, st->lists[k].items);
            } else {
                pushed[k] = st->results[k];
                st->results[k] = NULL;
            }
        }
    if (ph->last || !ok) {
        cpu_phase_state_free(*ph->state);
        *ph->state = NULL;
    }
    return ok;
}

bool cpu_fire(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed, FILE *err)
{
    CpuPhaseState *state = NULL;
    int64_t trips = w->plan ? w->plan->trips : 0;
    CpuLoopPhase whole = {0, trips, true, &state, NULL, false};
    return cpu_fire_phase(x, w, &whole, lower_work_push(w), popped, pushed, err);
}

bool cpu_fire_phase(NodeExec *x, const LowerWork *w, const CpuLoopPhase *ph, int64_t npush,
                    RtValue **popped, RtValue **pushed, FILE *err)
{
    node_exec_set_err(x, err);
    for (int64_t k = 0; k < npush; k++)
        pushed[k] = NULL;
    bool ok;
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        for (int k = 0; k < w->nroute; k++)
            pushed[k] = rt_retain(popped[w->route[k]]);
        return true;
    case LOWER_WORK_REGION:
        ok = fire_region(x, w, popped, pushed, err);
        break;
    case LOWER_WORK_UNSTACK:
        ok = fire_unstack(x, w, ph, popped, pushed, err);
        break;
    case LOWER_WORK_LOOP_BODY:
        ok = fire_loop_body(x, w, popped, pushed, err);
        break;
    case LOWER_WORK_LOOP_STACK:
        ok = fire_stack(x, w, ph, popped, pushed, err);
        break;
    default:
        ok = false;
        break;
    }
    if (!ok)
        for (int64_t k = 0; k < npush; k++) {
            rt_release(pushed[k]);
            pushed[k] = NULL;
        }
    return ok;
}
