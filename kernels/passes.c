/* passes.c — the kernels layer's passes over a specialized program: the one
 * list of them, in order, and the runner that checks the graph between them.
 *
 * Each pass's own file states its preconditions and result in detail; in
 * short, in the order they run:
 *
 *   stage shapes (after lower_specialize; the driver's --emit=tssa stop
 *   follows it)
 *     expand_rnn_layers   -> gru/lstm/rnn_tanh/rnn_relu layers are loops
 *                         over time of their cells (untyped: shape_infer
 *                         types them)
 *     split_loop_tuples   functional graph -> a loop's tuple state carried as
 *                         its elements, so they can be typed
 *     shape_infer         -> refined tensor types (shape_of) wherever the
 *                         bound inputs' shapes fix them
 *   stage fusion (not with --no-fuse; shapes inferred, graph functional)
 *     fold_decided        -> scalars, Ifs and in-place checks the shapes
 *                         decide are folded (a GRUCell's rank tests)
 *     decompose_cells     -> gru/lstm/rnn_tanh cells of static shapes are
 *                         their linears and gate ops
 *     fold_embedding_linear -> linear(embedding(E, i), W, b) of compile-time
 *                         E, W, b is a lookup in E @ W^T + b
 *     sink_sliced_products  (cpu backend, or workers that share no memory)
 *                         a product read only through column slices -> a
 *                         product by the weight's columns where each is read
 *     strip_mine          only for workers that share no memory (ranks
 *                         on several hosts, several devices): a
 *                         data-parallel loop -> a loop over equal slices
 *                         of its iterations, each slice a loop
 *     hoist_input_products -> a loop's per-step product of X[t] by an
 *                         invariant weight is one product before the loop
 *     split_bias          -> linear / addmm are a product and an add of the
 *                         bias (which then fuses into the next kernel)
 *     invert_whole_assigns -> assigns through a view of the whole base
 *                         (t_rev, squeeze_rev, ...) are the inverse view
 *                         of their source
 *     unpack_views        -> chunk / split / unbind + ListUnpack are views
 *     fuse                -> fusable nodes are tssa::FusionGroup nodes
 *                         (vertical fusion)
 *     horizontal          only when horizontal fusion is wanted (the
 *                         driver decides: no --keep-loops, --fission,
 *                         --place, several devices or hosts) -> a
 *                         data-parallel loop of groups and products is
 *                         groups over all its iterations (after fuse)
 *     batch_heads         when horizontal runs -> a loop over heads (each
 *                         iteration a band h*W of a dim, written into the
 *                         same band of its result) is batched products,
 *                         groups over all heads and one write
 *
 * Between passes, with KernelsPassOptions.verify, ir_verify checks the graph
 * (before the first pass too: a graph broken by specialization is not
 * blamed on a pass). The verifier checks what every pass relies on
 * (scoping, use lists, node lists, If and Loop shapes); tssa::FusionGroup
 * nodes are ordinary nodes with one block to it, checked like any other. It
 * does not check the types shape_infer wrote, nor the group-specific
 * invariants (a group's block reads only its params; kir_build refuses, and
 * the group is interpreted, where those do not hold). A failure is an
 * internal error naming the pass, never ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static bool run_shape_infer(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status)
{
    return shape_infer(p, o->inputs, o->ninputs, err, status);
}

static bool horizontal_wanted(const KernelsPassOptions *o)
{
    return o->horizontal;
}

static bool slices_wanted(const KernelsPassOptions *o)
{
    return o->slices >= 2;
}

static bool sinking_wanted(const KernelsPassOptions *o)
{
    return o->sink_column_products;
}

static const KernelsPass kernels_passes[] = {
    {"expand_rnn_layers",     KERNELS_STAGE_SHAPES, NULL, kernels_expand_rnn_layers, NULL},
    {"split_loop_tuples",     KERNELS_STAGE_SHAPES, NULL, kernels_split_loop_tuples, NULL},
    {"shape_infer",           KERNELS_STAGE_SHAPES, NULL, NULL, run_shape_infer},
    {"fold_decided",          KERNELS_STAGE_FUSION, NULL, kernels_fold_decided, NULL},
    {"decompose_cells",       KERNELS_STAGE_FUSION, NULL, kernels_decompose_cells, NULL},
    {"fold_embedding_linear", KERNELS_STAGE_FUSION, NULL, kernels_fold_embedding_linear, NULL},
    {"sink_sliced_products",  KERNELS_STAGE_FUSION, sinking_wanted, NULL, kernels_sink_sliced_products},
    {"strip_mine",            KERNELS_STAGE_FUSION, slices_wanted, NULL, kernels_strip_mine},
    {"hoist_input_products",  KERNELS_STAGE_FUSION, NULL, kernels_hoist_input_products, NULL},
    {"split_bias",            KERNELS_STAGE_FUSION, NULL, kernels_split_bias, NULL},
    {"invert_whole_assigns",  KERNELS_STAGE_FUSION, NULL, kernels_invert_whole_assigns, NULL},
    {"unpack_views",          KERNELS_STAGE_FUSION, NULL, kernels_unpack_views, NULL},
    {"fuse",                  KERNELS_STAGE_FUSION, NULL, kernels_fuse, NULL},
    {"horizontal",            KERNELS_STAGE_FUSION, horizontal_wanted, kernels_horizontal, NULL},
    {"batch_heads",           KERNELS_STAGE_FUSION, horizontal_wanted, kernels_batch_heads, NULL},
};
enum { NPASSES = sizeof kernels_passes / sizeof *kernels_passes };

int kernels_pass_count(void)
{
    return NPASSES;
}

const char *kernels_pass_name(int index)
{
    return index >= 0 && index < NPASSES ? kernels_passes[index].name : NULL;
}

int kernels_pass_find(const char *name)
{
    for (int i = 0; i < NPASSES; i++)
        if (strcmp(kernels_passes[i].name, name) == 0)
            return i;
    return -1;
}

void kernels_pass_options_default(KernelsPassOptions *o)
{
    memset(o, 0, sizeof *o);
#ifdef TSSA_VERIFY_PASSES
    o->verify = true;
#endif
    const char *env = getenv("TSSA_VERIFY_PASSES");
    if (env && *env)
        o->verify = strcmp(env, "0") != 0;
}

typedef struct VerifyFailure {
    FILE *err;
    const char *when;           /* "after kernel pass 'NAME'" */
    const char *file;
} VerifyFailure;

static void report_problem(void *ctx, const IrNode *where, const char *message)
{
    VerifyFailure *f = ctx;
    if (!f->err)
        return;
    if (where && where->line > 0)
        fprintf(f->err, "tssa-stream: internal error: %s: %s:%d: %s\n", f->when, f->file,
                where->line, message);
    else
        fprintf(f->err, "tssa-stream: internal error: %s: %s: %s\n", f->when, f->file, message);
}

static bool verified(LowerProgram *p, const char *when, FILE *err)
{
    IrGraph *g = lower_ir_graph(p);
    VerifyFailure f = {err, when, g->file ? g->file : "<graph>"};
    return ir_verify_report(g, report_problem, &f);
}

KernelsPassResult kernels_run_pass_table(LowerProgram *p, const KernelsPass *table, int npasses,
                                         KernelsStage stage, const KernelsPassOptions *o,
                                         FILE *err, int *status)
{
    *status = 0;
    bool starts = npasses > 0 && table[0].stage == stage;
    if (starts && o->verify && !verified(p, "before the kernel passes (the specialized graph)", err)) {
        *status = 1;
        return KERNELS_PASSES_FAILED;
    }
    for (int i = 0; i < npasses; i++) {
        const KernelsPass *pass = &table[i];
        if (pass->stage != stage)
            continue;
        if (!pass->wanted || pass->wanted(o)) {
            if (pass->run && !pass->run(p, o, err, status)) {
                if (!*status)
                    *status = 1;
                return KERNELS_PASSES_FAILED;
            }
            if (pass->rewrite)
                pass->rewrite(p);
            char when[128];
            snprintf(when, sizeof when, "after kernel pass '%s'", pass->name);
            if (o->verify && !verified(p, when, err)) {
                *status = 1;
                return KERNELS_PASSES_FAILED;
            }
        }
        /* A pass left out (not wanted) is still a place to stop: the graph
         * as the passes before it left it. */
        if (o->stop_after && strcmp(o->stop_after, pass->name) == 0)
            return KERNELS_PASSES_STOPPED;
    }
    return KERNELS_PASSES_DONE;
}

KernelsPassResult kernels_run_passes(LowerProgram *p, KernelsStage stage, const KernelsPassOptions *o,
                                     FILE *err, int *status)
{
    return kernels_run_pass_table(p, kernels_passes, NPASSES, stage, o, err, status);
}
