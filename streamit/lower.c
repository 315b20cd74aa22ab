/* lower.c — the lowering's entry points (specialize, build the stream), the
 * program's accessors, the rates of each work kind and the statistics.
 */
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/util.h"

static void count_stream(LowerProgram *p, const StreamNode *n)
{
    LowerStats *s = &p->stats;
    if (n->kind == STREAM_FILTER) {
        s->filters++;
        if (n->filter.role == FILTER_IDENTITY)
            s->identities++;
        else if (n->filter.role == FILTER_SEPARATOR)
            s->separators++;
        else if (n->filter.work && ((LowerWork *)n->filter.work)->kind == LOWER_WORK_ROUTE)
            s->routes++;
        else
            s->work_filters++;
        if (n->filter.work)
            s->executed += ((LowerWork *)n->filter.work)->executed;
        return;
    }
    if (n->kind == STREAM_SPLITJOIN) {
        s->splitjoins++;
        s->duplicate_splitjoins += n->split == SPLIT_DUPLICATE;
    }
    if (n->kind == STREAM_PIPELINE && n->parent == NULL)
        s->stages = n->nchildren;
    for (int i = 0; i < n->nchildren; i++)
        count_stream(p, n->children[i]);
}

/* Executions with every shared producer replicated into each path from it
 * to the outputs (the tree unfolding), each unit weighted by the IR nodes
 * one run of it executes: an upper bound on the thesis's replication (see
 * LowerStats). */
/* Path counts grow exponentially in a deep fan-out: they saturate here. */
#define PATHS_CAP (INT64_MAX / 4)

static void count_thesis(LowerProgram *p)
{
    IrGraph *g = p->g;
    if (p->stats.whole_graph) {
        p->stats.executed_replicated = p->stats.executed;
        return;
    }
    /* paths[v]: paths from value v to the outputs, saturating. */
    size_t nv = (size_t)g->nvalues + 1;
    int64_t *paths = xcalloc(nv, sizeof *paths);
    int64_t *work = xcalloc((size_t)g->nnodes + 1, sizeof *work);
    for (int k = 0; k < ir_block_nreturns(g->top); k++)
        paths[ir_block_return(g->top, k)->id]++;
    /* Users come after their producers: walk the top level backwards. */
    int64_t total = 0;
    for (IrNode *n = g->top->ret->prev; n != g->top->param; n = n->prev) {
        bool is_static = n->noutputs > 0;
        for (int i = 0; i < n->noutputs; i++)
            is_static = is_static && p->is_static[n->outputs[i]->id];
        if (is_static)
            continue;
        int64_t through = 0;
        for (int i = 0; i < n->noutputs; i++)
            through = sat_add_i64(through, paths[n->outputs[i]->id], PATHS_CAP);
        if (through == 0)
            through = 1;    /* dead outputs: a separator, still one run */
        for (int i = 0; i < n->ninputs; i++) {
            int64_t *q = &paths[n->inputs[i]->id];
            *q = sat_add_i64(*q, through, PATHS_CAP);
        }
        total = sat_add_i64(total, through, PATHS_CAP);
    }
    p->stats.executed_replicated = total;
    free(paths);
    free(work);
}

LowerProgram *lower_specialize(IrGraph *g, RtValue **inputs, int ninputs,
                               const Safetensors *weights, FILE *err, int *status)
{
    int nparams = ir_block_nparams(g->top);
    if (ninputs != nparams) {
        fprintf(err, "%s: error: the graph has %d inputs, %d were given\n",
                g->file ? g->file : "<graph>", nparams, ninputs);
        *status = 2;
        return NULL;
    }
    LowerProgram *p = xcalloc(1, sizeof *p);
    p->g = g;
    p->weights = weights;
    p->exec = node_exec_new(g, weights, NULL);
    p->is_static = xcalloc((size_t)g->nvalues + 1, sizeof *p->is_static);
    p->nstatic = g->nvalues;
    p->out_map = xcalloc((size_t)ir_block_nreturns(g->top) + 1, sizeof *p->out_map);
    p->in_map = xcalloc((size_t)nparams + 1, sizeof *p->in_map);
    lower_specialize_values(p, inputs, ninputs);
    *status = 0;
    return p;
}

void lower_set_loop_chunk(LowerProgram *p, int64_t chunk)
{
    p->loop_chunk = chunk;
}

bool lower_build(LowerProgram *p, FILE *err)
{
    if (!lower_build_stream(p, err))
        return false;
    count_stream(p, p->sg->root);
    count_thesis(p);
    return true;
}

void lower_program_free(LowerProgram *p)
{
    if (!p)
        return;
    node_exec_free(p->exec);
    stream_graph_free(p->sg);
    free(p->is_static);
    free(p->out_map);
    free(p->loop_lines);
    free(p->in_map);
    free(p);
}

StreamGraph *lower_stream_graph(const LowerProgram *p) { return p->sg; }
IrGraph *lower_ir_graph(const LowerProgram *p) { return p->g; }
const LowerStats *lower_stats(const LowerProgram *p) { return &p->stats; }
const int *lower_output_map(const LowerProgram *p) { return p->out_map; }

const int *lower_input_map(const LowerProgram *p, int *n)
{
    *n = p->nin;
    return p->in_map;
}

RtValue *lower_static_value(const LowerProgram *p, const IrValue *v)
{
    return v->id < p->nstatic && p->is_static[v->id] ? node_exec_get(p->exec, v) : NULL;
}

void lower_add_static(LowerProgram *p, const IrValue *v, RtValue *value)
{
    lower_graph_grown(p);
    node_exec_set(p->exec, v, value);
    p->is_static[v->id] = true;
}

void lower_graph_grown(LowerProgram *p)
{
    uint32_t n = p->g->nvalues;
    if (n <= p->nstatic)
        return;
    p->is_static = xrealloc(p->is_static, ((size_t)n + 1) * sizeof *p->is_static);
    memset(p->is_static + p->nstatic, 0, ((size_t)n + 1 - p->nstatic) * sizeof *p->is_static);
    p->nstatic = n;
}

const NodeExec *lower_static_values(const LowerProgram *p) { return p->exec; }

int64_t lower_work_pop(const LowerWork *w)
{
    const LoopPlan *plan = w->plan;
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        return w->route_pop;
    case LOWER_WORK_REGION:
        return w->npops + w->npass;
    case LOWER_WORK_UNSTACK:
        return plan->nunit_pops;
    case LOWER_WORK_LOOP_BODY:
        return w->npops + 2 * (int64_t)plan->nstate;
    case LOWER_WORK_LOOP_STACK:
        return plan->nkept + plan->trips * (plan->nstate + plan->nouts);
    }
    return 0;
}

int64_t lower_work_push(const LowerWork *w)
{
    const LoopPlan *plan = w->plan;
    switch (w->kind) {
    case LOWER_WORK_ROUTE:
        return w->nroute;
    case LOWER_WORK_REGION:
        return w->npushes + w->npass;
    case LOWER_WORK_UNSTACK:
        return plan->trips * (plan->nstep_items + (plan->feedback ? plan->nstate : 0));
    case LOWER_WORK_LOOP_BODY:
        return w->npushes;
    case LOWER_WORK_LOOP_STACK:
        return plan->loop->noutputs;
    }
    return 0;
}

void lower_stats_print(FILE *out, const LowerStats *s)
{
    fprintf(out, "whole_graph %d\n", s->whole_graph);
    if (s->whole_graph)
        fprintf(out, "why %s\n", s->why);
    fprintf(out, "units %d\nstages %d\nfilters %d\nwork_filters %d\nidentities %d\n"
                 "separators %d\nroutes %d\nsplitjoins %d\nduplicate_splitjoins %d\n"
                 "ifs_folded %d\nstatic_nodes %d\nloops_folded %d\nloops_parallel %d\nloops_feedback %d\n"
                 "loops_serial %d\nloops_nested %d\nnested_filters %d\nloop_iterations %lld\n"
                 "executed %lld\nexecuted_replicated %lld\n",
            s->units, s->stages, s->filters, s->work_filters, s->identities, s->separators,
            s->routes, s->splitjoins, s->duplicate_splitjoins, s->ifs_folded, s->static_nodes,
            s->loops_folded, s->loops_parallel, s->loops_feedback, s->loops_serial, s->loops_nested,
            s->nested_filters, (long long)s->loop_iterations,
            (long long)s->executed, (long long)s->executed_replicated);
    fprintf(out, "node_runs %lld\nnode_runs_original %lld\nnodes_run_more %d\n"
                 "tensor_nodes_run_more %d\n",
            (long long)s->node_runs, (long long)s->node_runs_original, s->nodes_run_more,
            s->tensor_nodes_run_more);
}
