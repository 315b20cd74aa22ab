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
 * Loop stages (ITER, STEP, ASSEMBLE) read their item layouts from the
 * loop's plan; streamit/lower_loop.c describes them.
 */
#include <stdlib.h>

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

static bool fire_region(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed,
                        FILE *err)
{
    for (int i = 0; i < w->npops; i++)
        node_exec_set(x, w->pops[i], rt_retain(popped[i]));
    bool ok = run_nodes(x, w->nodes, w->nnodes);
    for (int k = 0; ok && k < w->npushes; k++) {
        RtValue *v = node_exec_get(x, w->pushes[k]);
        if (!v) {
            if (err)
                fprintf(err, "error: internal: the lowering left %%%s without a value\n",
                        w->pushes[k]->name);
            ok = false;
            break;
        }
        pushed[k] = rt_retain(v);
    }
    clear_nodes(x, w->nodes, w->nnodes);
    for (int i = 0; i < w->npops; i++)
        node_exec_clear(x, w->pops[i]);
    return ok;
}

static RtValue *loop_initial(NodeExec *x, const LoopPlan *plan, RtValue **unit, int k)
{
    int j = plan->init_pos[k];
    return j >= 0 ? unit[j] : node_exec_get(x, plan->loop->inputs[2 + k]);
}

/* The loop unit's items as the body sees them: unit[j] for every popped
 * value U_j the stage has (borrowed; NULL where a later stage no longer
 * gets it), bound to their values so the body can read them. */
static void bind_unit(NodeExec *x, const LoopPlan *plan, RtValue **unit)
{
    for (int j = 0; j < plan->nunit_pops; j++)
        if (unit[j])
            node_exec_set(x, plan->unit_pops[j], rt_retain(unit[j]));
}

/* Units up to this many values are built on the caller's stack, so a
 * firing of a later step or of Assemble allocates nothing in the common
 * case. */
enum { UNIT_SMALL = 16 };

/* unit[] from a stage that pops K at `offset` (later steps, Assemble): in
 * `small` when it fits (free with unit_free), else on the heap. */
static RtValue **unit_from_kept(const LoopPlan *plan, RtValue **popped, int64_t offset,
                                RtValue *small[UNIT_SMALL])
{
    RtValue **unit = small;
    if (plan->nunit_pops > UNIT_SMALL)
        unit = xmallocn((size_t)plan->nunit_pops, sizeof *unit);
    for (int j = 0; j < plan->nunit_pops; j++)
        unit[j] = NULL;
    for (int i = 0; i < plan->nkept; i++)
        unit[plan->kept[i]] = popped[offset + i];
    return unit;
}

static void unit_free(RtValue **unit, RtValue *small[UNIT_SMALL])
{
    if (unit != small)
        free(unit);
}

/* Clears what a loop stage bound or made: the nodes it ran, the body's
 * parameters, the unit's values. */
static void clear_loop_stage(NodeExec *x, const LowerWork *w)
{
    IrBlock *body = w->loop->blocks[0];
    clear_nodes(x, w->nodes, w->nnodes);
    for (int i = 0; i < ir_block_nparams(body); i++)
        node_exec_clear(x, ir_block_param(body, i));
    for (int j = 0; j < w->plan->nunit_pops; j++)
        node_exec_clear(x, w->plan->unit_pops[j]);
}

/* Runs the body once as iteration w->iter: the unit's values and the
 * carried parameters are bound by the caller. */
static bool run_body(NodeExec *x, const LowerWork *w)
{
    node_exec_set(x, ir_block_param(w->loop->blocks[0], 0), rt_int(w->iter));
    return run_nodes(x, w->nodes, w->nnodes);
}

/* Pushes the source of each write of this iteration at pushed[0..]. */
static bool push_write_sources(NodeExec *x, const LowerWork *w, RtValue **pushed)
{
    for (int j = 0; j < w->nwrites; j++) {
        RtValue *v = node_exec_get(x, w->writes[j]->inputs[1]);
        if (!v)
            return false;
        pushed[j] = rt_retain(v);
    }
    return true;
}

/* Binds the carried parameters an iteration reads: invariants to their
 * initial values, state to `state` (one per state value; NULL: initial).
 * Written tensors are never read (the plan proved it). */
static void bind_carried(NodeExec *x, const LoopPlan *plan, RtValue **unit, RtValue **state)
{
    IrBlock *body = plan->loop->blocks[0];
    int ncarried = plan->loop->ninputs - 2;
    for (int k = 0, s = 0; k < ncarried; k++) {
        RtValue *v = NULL;
        if (plan->carried[k] == LOOP_CARRIED_INVARIANT)
            v = loop_initial(x, plan, unit, k);
        else if (plan->carried[k] == LOOP_CARRIED_STATE)
            v = state ? state[s++] : loop_initial(x, plan, unit, k);
        if (v)
            node_exec_set(x, ir_block_param(body, 1 + k), rt_retain(v));
    }
}

/* Parallel plan, iteration w->iter: pops U, pushes its write sources. */
static bool fire_iteration(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed)
{
    bind_unit(x, w->plan, popped);
    bind_carried(x, w->plan, popped, NULL);
    bool ok = run_body(x, w) && push_write_sources(x, w, pushed);
    clear_loop_stage(x, w);
    return ok;
}

/* Serial plan, step t: pops U (t = 0) or S K W0..W{t-1}; pushes S' K
 * W0..W{t}. */
static bool fire_step(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed)
{
    const LoopPlan *plan = w->plan;
    int ns = plan->nstate, nk = plan->nkept;
    bool first = w->iter == 0;
    RtValue *unit_small[UNIT_SMALL];
    RtValue **unit = first ? popped : unit_from_kept(plan, popped, ns, unit_small);
    bind_unit(x, plan, unit);
    bind_carried(x, plan, unit, first ? NULL : popped);
    IrBlock *body = w->loop->blocks[0];
    bool ok = run_body(x, w);
    int64_t at = 0;
    for (int s = 0; ok && s < ns; s++) {
        RtValue *v = node_exec_get(x, ir_block_return(body, 1 + plan->state[s]));
        ok = v != NULL;
        if (ok)
            pushed[at++] = rt_retain(v);
    }
    for (int i = 0; ok && i < nk; i++)
        pushed[at++] = rt_retain(unit[plan->kept[i]]);
    for (int64_t i = 0; ok && !first && i < w->iter * w->nwrites; i++)
        pushed[at++] = rt_retain(popped[ns + nk + i]);
    ok = ok && push_write_sources(x, w, pushed + at);
    clear_loop_stage(x, w);
    if (!first)
        unit_free(unit, unit_small);
    return ok;
}

/* Pops S K W0..W{N-1}; pushes the loop's outputs: the final state, the
 * invariants, and the written tensors with every write applied in
 * iteration order (index arguments computed by w->nodes from the counter). */
static bool fire_assemble(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed)
{
    const LoopPlan *plan = w->plan;
    IrBlock *body = w->loop->blocks[0];
    int ncarried = w->loop->ninputs - 2;
    RtValue *unit_small[UNIT_SMALL];
    RtValue **unit = unit_from_kept(plan, popped, plan->nstate, unit_small);
    RtValue **current = pushed;     /* the carried values, updated in place */
    for (int k = 0, s = 0; k < ncarried; k++)
        current[k] = rt_retain(plan->carried[k] == LOOP_CARRIED_STATE
                                   ? popped[s++] : loop_initial(x, plan, unit, k));
    bool ok = true;
    for (int k = 0; ok && k < ncarried; k++)
        ok = current[k] != NULL;
    for (int64_t i = 0; ok && i < w->trips; i++) {
        node_exec_set(x, ir_block_param(body, 0), rt_int(i));
        ok = run_nodes(x, w->nodes, w->nnodes);
        for (int j = 0; ok && j < w->nwrites; j++) {
            IrNode *write = w->writes[j];
            int k = write->inputs[0]->def_index - 1;    /* which carried value */
            node_exec_set(x, write->inputs[0], rt_retain(current[k]));
            node_exec_set(x, write->inputs[1], rt_retain(popped[w->npops + i * w->nwrites + j]));
            ok = node_exec_node(x, write);
            if (ok) {
                rt_release(current[k]);
                current[k] = rt_retain(node_exec_get(x, write->outputs[0]));
            }
            node_exec_clear(x, write->inputs[0]);
            node_exec_clear(x, write->inputs[1]);
            node_exec_clear_node(x, write);
        }
        clear_nodes(x, w->nodes, w->nnodes);
    }
    node_exec_clear(x, ir_block_param(body, 0));
    unit_free(unit, unit_small);
    if (!ok)
        for (int k = 0; k < ncarried; k++) {
            rt_release(current[k]);
            current[k] = NULL;
        }
    return ok;
}

bool cpu_fire(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed, FILE *err)
{
    node_exec_set_err(x, err);
    int64_t npush = lower_work_push(w);
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
    case LOWER_WORK_LOOP_ITER:
        ok = fire_iteration(x, w, popped, pushed);
        break;
    case LOWER_WORK_LOOP_ASSEMBLE:
        ok = fire_assemble(x, w, popped, pushed);
        break;
    case LOWER_WORK_LOOP_STEP:
        ok = fire_step(x, w, popped, pushed);
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
