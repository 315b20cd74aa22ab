/* functionalize.c — the TensorSSA pipeline, in order, in one function.
 *
 *   prepare     module attributes assigned in forward threaded as values
 *               (module_state.c), constant folding (module attributes), DCE, in-place shape
 *               changes made views (metadata_inplace.c), values that are
 *               another tensor forwarded to it (forward_aliases.c),
 *               reshapes decided as views or copies (reshape_decide.c)
 *   alias       roots, views, may-alias classes, safe and unsafe writes
 *   inplace     in-place ops -> out-of-place ops + copy_
 *   rewrite     copy_ -> assigns up, accesses down, tssa::update
 *   lists       list writes -> new list versions, tssa::update
 *   propagate   updates leave If/Loop blocks as results / carried values
 *   rename      uses read the version current at their place
 *   remove      the markers go
 *   cleanup     DCE, CSE, constant folding, merged assigns, DCE
 *
 * With opt->verify the graph is checked with ir_verify before the first and
 * after every stage; a failure after a stage is a bug in a pass and is
 * reported as such. Every stage is timed (CPU seconds) into the report, with
 * node and op counts before and after.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "functionalize/functionalize_private.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/value.h"
#include "tssa/util.h"

void tssa_options_default(TssaOptions *o)
{
    memset(o, 0, sizeof *o);
    o->fewer_copies = true;
#ifndef NDEBUG
    o->verify = true;
#endif
}

const char *tssa_stage_name(TssaStage s)
{
    static const char *const names[TSSA_STAGE_COUNT] = {
        "prepare", "alias", "inplace", "rewrite", "lists", "propagate", "rename", "remove_update", "cleanup",
    };
    return s < TSSA_STAGE_COUNT ? names[s] : "?";
}

/* ---------------------------------------------------------------- inputs */

typedef struct Storages {
    const void **items;
    size_t n, cap;
} Storages;

static void collect_storages(Storages *s, const RtValue *v, int depth)
{
    if (!v || depth > 64)
        return;
    if (v->kind == RT_TENSOR && v->u.t) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 16;
            const void **p = xrealloc(s->items, sizeof *s->items * s->cap);
            s->items = p;
        }
        s->items[s->n++] = v->u.t->storage;
    } else if (v->kind == RT_LIST || v->kind == RT_TUPLE || v->kind == RT_DICT) {
        for (int i = 0; i < v->u.list.n; i++)
            collect_storages(s, v->u.list.items[i], depth + 1);
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;
    return (x > y) - (x < y);
}

bool tssa_inputs_disjoint(RtValue *const *inputs, int ninputs)
{
    Storages s = {0};
    for (int i = 0; i < ninputs; i++)
        collect_storages(&s, inputs[i], 0);
    bool disjoint = true;
    if (s.n > 1) {
        qsort(s.items, s.n, sizeof *s.items, cmp_ptr);
        for (size_t i = 1; i < s.n; i++)
            if (s.items[i] == s.items[i - 1])
                disjoint = false;
    }
    free(s.items);
    return disjoint;
}

/* ---------------------------------------------------------------- counting */

typedef struct Counts {
    size_t writes, views, accesses, assigns, updates;
} Counts;

/* List and dict writes are counted by list_versions.c, not as tensor writes. */
static bool writes_container(const IrNode *n, int mutated)
{
    const IrType *t = mutated < n->ninputs ? n->inputs[mutated]->type : NULL;
    return t && (t->kind == TY_LIST || t->kind == TY_DICT);
}

static void count_node(IrNode *n, void *ctx)
{
    Counts *c = ctx;
    const OpInfo *info = op_info(n->op);
    if (n->op == OP_TSSA_UPDATE)
        c->updates++;
    else if (info->cls == OPC_ACCESS)
        c->accesses++;
    else if (info->cls == OPC_ASSIGN)
        c->assigns++;
    else if (info->mutates >= 0 && n->op != OP_ATEN_APPEND && n->op != OP_PRIM_SETATTR &&
             !writes_container(n, info->mutates))
        c->writes++;
    else if (op_is_view(n->op))
        c->views++;
}

static Counts count_ops(IrGraph *g)
{
    Counts c = {0};
    ir_walk(g->top, count_node, &c);
    return c;
}

/* ---------------------------------------------------------------- pipeline */

/* CPU time of the process: the passes are single-threaded, and on a busy
 * machine wall time would measure the neighbours. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct Run {
    IrGraph *g;
    const TssaOptions *opt;
    TssaReport *r;
    FILE *err;
    double started;
    bool ok;
} Run;

/* Ends a stage: its time, the dump, the check. */
static void stage_done(Run *run, TssaStage s)
{
    double t = now_seconds();
    run->r->seconds[s] += t - run->started;
    if (run->opt->dump) {
        fprintf(run->opt->dump, "# after %s\n", tssa_stage_name(s));
        ir_print(run->opt->dump, run->g);
    }
    if (run->ok && run->opt->verify && !ir_verify(run->g, run->err)) {
        if (run->err)
            fprintf(run->err, "tssa-stream: internal error: the graph is broken after the "
                              "functionalization stage '%s'\n", tssa_stage_name(s));
        run->ok = false;
    }
    run->started = now_seconds();
}

/* The stages before alias analysis (shared with tssa_print_alias). */
static void prepare(IrGraph *g, const TssaOptions *opt, TssaReport *r)
{
    r->dce_removed += tssa_drop_grad_scopes(g);
    r->dce_removed += tssa_thread_module_state(g, opt->weights);  /* before folding reads attributes */
    size_t folded = tssa_constant_fold(g, opt->weights);
    r->folded += folded;
    if (folded)
        r->dce_removed += tssa_dce(g);
    tssa_metadata_inplace_to_views(g);   /* before forward_aliases: see the pass */
    tssa_forward_aliases(g);
    tssa_decide_reshapes(g, opt);        /* after metadata_inplace: see the pass */
}

bool tssa_functionalize(IrGraph *g, const TssaOptions *opt, TssaReport *report, FILE *err)
{
    TssaReport local;
    TssaReport *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    if (opt->verify && !ir_verify(g, err))
        return false;
    Counts before = count_ops(g);
    r->nodes_before = ir_graph_count_nodes(g);
    r->mutations_before = before.writes;
    r->views_before = before.views;

    Run run = {g, opt, r, err, now_seconds(), true};
    prepare(g, opt, r);
    stage_done(&run, TSSA_STAGE_PREPARE);

    TssaAlias *alias = tssa_alias_analyze(g, opt);
    stage_done(&run, TSSA_STAGE_ALIAS);

    tssa_inplace_to_functional(g, alias);
    stage_done(&run, TSSA_STAGE_INPLACE);

    tssa_rewrite_mutation(g, alias, opt->fewer_copies, r);
    r->imperative_mutations = tssa_alias_imperative_count(alias);
    tssa_alias_free(alias);
    stage_done(&run, TSSA_STAGE_REWRITE);

    r->list_writes_functional = tssa_list_versions(g, &r->list_writes_kept);
    stage_done(&run, TSSA_STAGE_LISTS);

    tssa_block_propagation(g, &r->if_outputs_added, &r->loop_carried_added);
    stage_done(&run, TSSA_STAGE_PROPAGATE);

    tssa_rename(g);
    stage_done(&run, TSSA_STAGE_RENAME);

    tssa_remove_update(g);
    stage_done(&run, TSSA_STAGE_REMOVE_UPDATE);

    r->dce_removed += tssa_dce(g);
    r->cse_removed += tssa_cse(g);
    size_t changed = tssa_constant_fold(g, opt->weights);
    r->folded += changed;
    if (opt->fewer_copies) {
        size_t merged = tssa_merge_assigns(g);
        r->assigns_merged += merged;
        changed += merged;
    }
    if (changed)        /* what folding and merging left unused */
        r->dce_removed += tssa_dce(g);
    stage_done(&run, TSSA_STAGE_CLEANUP);

    Counts after = count_ops(g);
    r->nodes_after = ir_graph_count_nodes(g);
    r->mutations_after = after.writes;
    r->accesses = after.accesses;
    r->assigns = after.assigns;
    r->updates_left = after.updates;
    return run.ok;
}

void tssa_report_print(FILE *out, const TssaReport *r)
{
    fprintf(out, "nodes_before %zu\nnodes_after %zu\n", r->nodes_before, r->nodes_after);
    fprintf(out, "mutations_before %zu\nmutations_after %zu\n", r->mutations_before,
            r->mutations_after);
    fprintf(out, "imperative_mutations %zu\n", r->imperative_mutations);
    fprintf(out, "list_writes_functional %zu\nlist_writes_kept %zu\n", r->list_writes_functional,
            r->list_writes_kept);
    fprintf(out, "views_before %zu\naccesses %zu\nassigns %zu\n", r->views_before, r->accesses,
            r->assigns);
    fprintf(out, "rereads_skipped %zu\nassigns_merged %zu\n", r->rereads_skipped,
            r->assigns_merged);
    fprintf(out, "if_outputs_added %zu\nloop_carried_added %zu\n", r->if_outputs_added,
            r->loop_carried_added);
    fprintf(out, "folded %zu\ndce_removed %zu\ncse_removed %zu\nupdates_left %zu\n", r->folded,
            r->dce_removed, r->cse_removed, r->updates_left);
    for (int s = 0; s < TSSA_STAGE_COUNT; s++)
        fprintf(out, "seconds_%s %.6f\n", tssa_stage_name((TssaStage)s), r->seconds[s]);
}

void tssa_print_alias(FILE *out, IrGraph *g, const TssaOptions *opt)
{
    TssaReport r;
    memset(&r, 0, sizeof r);
    prepare(g, opt, &r);
    TssaAlias *a = tssa_alias_analyze(g, opt);
    tssa_alias_print(out, a);
    tssa_alias_free(a);
}
