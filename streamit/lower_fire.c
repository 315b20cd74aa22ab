/* lower_fire.c — what one firing of a lowered filter does (the meaning of
 * the LowerWork kinds in lower.h), on the ref backend's op bindings through
 * node_exec.
 *
 * A firing binds the popped items to the values they stand for, runs its IR
 * nodes, takes the pushed items from their values, and then clears every
 * value it bound or made: a filter sees only what its channels bring it and
 * the program's compile-time values (kept in the same NodeExec for the
 * program's lifetime), so a lowering that forgot a channel fails loudly
 * instead of reading a stale value.
 */
#include "streamit/lower_internal.h"

int64_t lower_work_pop(const LowerWork *w)
{
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        return w->route_pop;
    case LOWER_WORK_LOOP_ASSEMBLE:
        return w->npops + w->trips * w->nwrites;
    default:
        return w->npops;
    }
}

int64_t lower_work_push(const LowerWork *w)
{
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        return w->nroute;
    case LOWER_WORK_LOOP_ITER:
        return w->nwrites;
    case LOWER_WORK_LOOP_ASSEMBLE:
        return w->loop->noutputs;
    default:
        return w->npushes;
    }
}

static bool run_nodes(NodeExec *x, IrNode **nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (!node_exec_node(x, nodes[i]))
            return false;
    return true;
}

static void clear_nodes(LowerProgram *p, IrNode **nodes, int n)
{
    for (int i = 0; i < n; i++)
        node_exec_clear_node(p->exec, nodes[i]);
}

static bool fire_region(LowerProgram *p, const LowerWork *w, RtValue **popped, RtValue **pushed,
                        FILE *err)
{
    NodeExec *x = p->exec;
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
    clear_nodes(p, w->nodes, w->nnodes);
    for (int i = 0; i < w->npops; i++)
        node_exec_clear(x, w->pops[i]);
    return ok;
}

static bool fire_iteration(LowerProgram *p, const LowerWork *w, RtValue **popped, RtValue **pushed)
{
    NodeExec *x = p->exec;
    IrBlock *body = w->loop->blocks[0];
    int ncarried = w->loop->ninputs - 2;
    for (int i = 0; i < w->npops; i++)
        node_exec_set(x, w->pops[i], rt_retain(popped[i]));
    node_exec_set(x, ir_block_param(body, 0), rt_int(w->iter));
    /* Loop invariants (carried values the body passes through) are the
     * initial values; written carried values are never read (proven). */
    for (int k = 0; k < ncarried; k++)
        if (ir_block_return(body, 1 + k) == ir_block_param(body, 1 + k))
            node_exec_set(x, ir_block_param(body, 1 + k), rt_retain(popped[k]));
    bool ok = run_nodes(x, w->nodes, w->nnodes);
    for (int j = 0; ok && j < w->nwrites; j++) {
        RtValue *v = node_exec_get(x, w->writes[j]->inputs[1]);
        ok = v != NULL;
        if (ok)
            pushed[j] = rt_retain(v);
    }
    for (int k = 0; k < w->nnodes; k++)
        node_exec_clear_node(x, w->nodes[k]);
    for (int i = 0; i < ir_block_nparams(body); i++)
        node_exec_clear(x, ir_block_param(body, i));
    for (int i = 0; i < w->npops; i++)
        node_exec_clear(x, w->pops[i]);
    return ok;
}

static bool fire_assemble(LowerProgram *p, const LowerWork *w, RtValue **popped, RtValue **pushed)
{
    NodeExec *x = p->exec;
    IrBlock *body = w->loop->blocks[0];
    int ncarried = w->loop->ninputs - 2;
    RtValue **current = pushed;     /* the carried values, updated in place */
    for (int k = 0; k < ncarried; k++)
        current[k] = rt_retain(popped[k]);
    bool ok = true;
    for (int64_t i = 0; ok && i < w->trips; i++) {
        node_exec_set(x, ir_block_param(body, 0), rt_int(i));
        ok = run_nodes(x, w->nodes, w->nnodes);
        for (int j = 0; ok && j < w->nwrites; j++) {
            IrNode *write = w->writes[j];
            int k = write->inputs[0]->def_index - 1;    /* which carried value */
            node_exec_set(x, write->inputs[0], rt_retain(current[k]));
            node_exec_set(x, write->inputs[1], rt_retain(popped[ncarried + i * w->nwrites + j]));
            ok = node_exec_node(x, write);
            if (ok) {
                rt_release(current[k]);
                current[k] = rt_retain(node_exec_get(x, write->outputs[0]));
            }
            node_exec_clear(x, write->inputs[0]);
            node_exec_clear(x, write->inputs[1]);
            node_exec_clear_node(x, write);
        }
        for (int k = 0; k < w->nnodes; k++)
            node_exec_clear_node(x, w->nodes[k]);
    }
    node_exec_clear(x, ir_block_param(body, 0));
    if (!ok)
        for (int k = 0; k < ncarried; k++) {
            rt_release(current[k]);
            current[k] = NULL;
        }
    return ok;
}

bool lower_work_fire(LowerProgram *p, const LowerWork *w, RtValue **popped, RtValue **pushed,
                     FILE *err)
{
    node_exec_set_err(p->exec, err);
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
        ok = fire_region(p, w, popped, pushed, err);
        break;
    case LOWER_WORK_LOOP_ITER:
        ok = fire_iteration(p, w, popped, pushed);
        break;
    case LOWER_WORK_LOOP_ASSEMBLE:
        ok = fire_assemble(p, w, popped, pushed);
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
