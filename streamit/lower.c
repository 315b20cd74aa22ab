/* lower.c — the lowering's entry points: compile (copy, functionalize,
 * specialize, build the stream), the program's accessors, its statistics and
 * the driver's --emit=stream|schedule|dot for .ir models.
 *
 * The caller's graph is never changed: it is printed and parsed back, which
 * keeps every value name (so bindings and messages still match) and costs
 * one pass over the text.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/schedule.h"

static IrGraph *graph_copy(const IrGraph *g, FILE *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return NULL;
    ir_print(mem, g);
    fclose(mem);
    IrGraph *copy = ir_parse(text, len, g->file ? g->file : "<graph>", err);
    free(text);
    return copy;
}

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
static void count_thesis(LowerProgram *p)
{
    IrGraph *g = p->g;
    if (p->stats.whole_graph) {
        p->stats.executed_replicated = p->stats.executed;
        return;
    }
    /* paths[v]: paths from value v to the outputs, saturating. */
    size_t nv = (size_t)g->nvalues + 1;
    int64_t *paths = calloc(nv, sizeof *paths);
    int64_t *work = calloc((size_t)g->nnodes + 1, sizeof *work);
    if (!paths || !work)
        abort();
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
            through = through + paths[n->outputs[i]->id] < INT64_MAX / 4
                          ? through + paths[n->outputs[i]->id] : INT64_MAX / 4;
        if (through == 0)
            through = 1;    /* dead outputs: a separator, still one run */
        for (int i = 0; i < n->ninputs; i++) {
            int64_t *q = &paths[n->inputs[i]->id];
            *q = *q + through < INT64_MAX / 4 ? *q + through : INT64_MAX / 4;
        }
        total += through;
    }
    p->stats.executed_replicated = total;
    free(paths);
    free(work);
}

LowerProgram *lower_functional(IrGraph *g, RtValue **inputs, int ninputs,
                               const Safetensors *weights, FILE *err, int *status)
{
    LowerProgram *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->g = g;
    p->weights = weights;
    int nparams = ir_block_nparams(g->top);
    if (ninputs != nparams) {
        fprintf(err, "%s: error: the graph has %d inputs, %d were given\n",
                g->file ? g->file : "<graph>", nparams, ninputs);
        *status = 2;
        lower_program_free(p);
        return NULL;
    }
    p->exec = node_exec_new(g, weights, NULL);
    p->is_static = calloc((size_t)g->nvalues + 1, sizeof *p->is_static);
    p->out_map = calloc((size_t)ir_block_nreturns(g->top) + 1, sizeof *p->out_map);
    p->in_map = calloc((size_t)nparams + 1, sizeof *p->in_map);
    if (!p->is_static || !p->out_map || !p->in_map)
        abort();
    lower_specialize(p, inputs, ninputs);
    if (!lower_build(p, err)) {
        *status = 1;
        lower_program_free(p);
        return NULL;
    }
    count_stream(p, p->sg->root);
    count_thesis(p);
    *status = 0;
    return p;
}

LowerProgram *lower_compile(const IrGraph *g, RtValue **inputs, int ninputs,
                            const Safetensors *weights, FILE *err, int *status)
{
    IrGraph *copy = graph_copy(g, err);
    if (!copy) {
        *status = 1;
        return NULL;
    }
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.weights = weights;
    opt.inputs_disjoint = tssa_inputs_disjoint(inputs, ninputs);
    if (!tssa_functionalize(copy, &opt, NULL, err)) {
        ir_graph_free(copy);
        *status = 1;
        return NULL;
    }
    return lower_functional(copy, inputs, ninputs, weights, err, status);
}

void lower_program_free(LowerProgram *p)
{
    if (!p)
        return;
    node_exec_free(p->exec);
    stream_graph_free(p->sg);
    free(p->is_static);
    free(p->out_map);
    free(p->in_map);
    if (p->g)
        ir_graph_free(p->g);
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
    return p->is_static[v->id] ? node_exec_get(p->exec, v) : NULL;
}

void lower_stats_print(FILE *out, const LowerStats *s)
{
    fprintf(out, "whole_graph %d\n", s->whole_graph);
    if (s->whole_graph)
        fprintf(out, "why %s\n", s->why);
    fprintf(out, "units %d\nstages %d\nfilters %d\nwork_filters %d\nidentities %d\n"
                 "separators %d\nroutes %d\nsplitjoins %d\nduplicate_splitjoins %d\n"
                 "ifs_folded %d\nstatic_nodes %d\nloops_parallel %d\nloops_serial %d\n"
                 "loop_branches %lld\nexecuted %lld\nexecuted_replicated %lld\n",
            s->units, s->stages, s->filters, s->work_filters, s->identities, s->separators,
            s->routes, s->splitjoins, s->duplicate_splitjoins, s->ifs_folded, s->static_nodes,
            s->loops_parallel, s->loops_serial, (long long)s->loop_branches,
            (long long)s->executed, (long long)s->executed_replicated);
    fprintf(out, "loops_unrolled %d\nnode_runs %lld\nnode_runs_original %lld\nnodes_run_more %d\n",
            s->loops_unrolled, (long long)s->node_runs, (long long)s->node_runs_original,
            s->nodes_run_more);
}

int lower_emit(FILE *out, IrGraph *g, int what, int nbind, char **bind, const char *weights_path,
               FILE *err)
{
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *weights = NULL;
    if (!bindings_resolve(g, nbind, bind, weights_path, &inputs, &ninputs, &weights, err))
        return 2;
    int status = 0;
    LowerProgram *p = lower_compile(g, inputs, ninputs, weights, err, &status);
    if (p) {
        StreamNode *root = p->sg->root;
        if (what == 0) {
            str_print(out, root);
        } else if (what == 3) {
            stream_print_dot(out, root);
        } else {
            Schedule *s = sched_build(root, err);
            if (!s) {
                status = 1;
            } else {
                if (what == 2)
                    sched_print_json(out, s);
                else
                    sched_print_table(out, s);
                sched_free(s);
            }
        }
        lower_program_free(p);
    }
    for (int i = 0; i < ninputs; i++)
        rt_release(inputs[i]);
    free(inputs);
    safetensors_close(weights);
    return status;
}
