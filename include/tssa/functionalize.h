/* functionalize.h — TensorSSA: turning an imperative graph (views, in-place
 * ops, mutation inside prim::If and prim::Loop) into an equivalent graph
 * with no mutation and no aliasing.
 *
 * The conversion follows the TensorSSA paper (DAC'24, Algorithm 1) and its
 * FuncTs implementation, one pass per file under functionalize/:
 *
 *   constant_fold   module attributes (training=false), constant conditions
 *   dce             drop what the folding killed
 *   forward_aliases uses of in-place results, full slices, alias and detach
 *                   read the tensor they are
 *   reshape_decide  reshape, flatten, ravel, reshape_as and contiguous made
 *                   the view or the copy PyTorch makes, where the strides
 *                   of their input are known
 *   alias           roots, view chains, may-alias classes; which mutations
 *                   are safe to functionalize (the others stay imperative)
 *   inplace_to_functional   op_(x, ...) -> t = op(x, ...); copy_(x, t)
 *   rewrite_mutation  each copy_ into assigns up the view chain to the root
 *                   (pass up) and accesses to the other live views (pass
 *                   down), each new version announced by tssa::update
 *   list_versions   in-place list ops on lists nothing else observes into
 *                   new list versions, announced the same way
 *   view_regions    (fewer copies) drops pass-down re-reads of views whose
 *                   region cannot overlap the mutated one
 *   block_propagation  updates inside prim::If / prim::Loop blocks become
 *                   block outputs and loop-carried values
 *   rename          every use dominated by tssa::update(new, old) reads new
 *   remove_update   the markers go
 *   dce, cse, constant_fold, view_regions (assigns merged into the op that
 *                   made their source), dce
 *
 * tssa_functionalize runs them in that order (functionalize.c). Mutation
 * whose effect cannot be proven (a tensor that only may-alias another, such
 * as two graph inputs, is written while the other is read later) is left
 * imperative: the in-place op stays, its node's comment says why, and the
 * report counts it. The result never changes what the program computes.
 *
 * Ops of the functional form (ops.h): immut::<view>(x, args...) is a copy
 * of the region the view aten::<view>(x, args...) would alias;
 * immut::<view>_rev(x, src, args...) is a copy of x with that region
 * replaced by src (broadcast to the region, cast to x's dtype);
 * immut::assign(x, src) is src broadcast and cast to x's shape and dtype.
 */
#ifndef TSSA_FUNCTIONALIZE_H
#define TSSA_FUNCTIONALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/ir.h"

typedef struct Safetensors Safetensors;
struct RtValue;

/* ---------------------------------------------------------------- options */

typedef struct TssaOptions {
    /* Module state for constant folding of attributes (training, and any
     * int/float/bool attribute named in the file's __metadata__); NULL when
     * the module is not known at compile time. */
    const Safetensors *weights;
    /* The graph inputs are known not to share storage (the driver knows it
     * once the inputs are bound: tssa_inputs_disjoint). Otherwise graph
     * inputs may alias each other and their mutation is functionalized only
     * where that cannot matter. */
    bool inputs_disjoint;
    /* The bound graph inputs (one per parameter of the top block, %self
     * included), or NULL: their sizes and strides let reshape_decide.c
     * decide a reshape of a view of an input as PyTorch does (a view or a
     * copy). Every input set must have these shapes (the driver checks). */
    struct RtValue *const *inputs;
    int ninputs;
    /* Run the "fewer copies" steps (view_regions.c). */
    bool fewer_copies;
    /* ir_verify after every pass; a failure is an internal error. */
    bool verify;
    /* When set, the graph is printed here after every pass (debugging). */
    FILE *dump;
} TssaOptions;

/* Defaults: no weights, inputs may alias, fewer copies on, verify in debug
 * builds (NDEBUG not defined). */
void tssa_options_default(TssaOptions *o);

/* True when no two tensors among the bound inputs (looking inside lists and
 * tuples) share storage. */
bool tssa_inputs_disjoint(struct RtValue *const *inputs, int ninputs);

/* ---------------------------------------------------------------- report */

typedef enum TssaStage {
    TSSA_STAGE_PREPARE,       /* first constant folding and DCE */
    TSSA_STAGE_ALIAS,
    TSSA_STAGE_INPLACE,
    TSSA_STAGE_REWRITE,
    TSSA_STAGE_LISTS,         /* list writes -> new list versions */
    TSSA_STAGE_PROPAGATE,
    TSSA_STAGE_RENAME,
    TSSA_STAGE_REMOVE_UPDATE,
    TSSA_STAGE_CLEANUP,       /* DCE, CSE, constant folding, merges */
    TSSA_STAGE_COUNT
} TssaStage;

const char *tssa_stage_name(TssaStage s);

typedef struct TssaReport {
    size_t nodes_before, nodes_after;           /* ir_graph_count_nodes */
    size_t mutations_before, mutations_after;   /* in-place ops on tensors (not lists, dicts) */
    size_t views_before;                        /* aten views (alias-making ops) */
    size_t accesses, assigns;                   /* immut:: ops in the result */
    size_t updates_left;                        /* tssa::update in the result: 0 */
    size_t imperative_mutations;                /* in-place ops kept (may-alias) */
    size_t list_writes_functional;              /* list writes made new versions */
    size_t list_writes_kept;                    /* list writes left in place */
    size_t rereads_skipped;                     /* pass-down re-reads proven unneeded */
    size_t assigns_merged;                      /* immut::assign folded into its source */
    size_t loop_carried_added, if_outputs_added;
    size_t folded, dce_removed, cse_removed;
    double seconds[TSSA_STAGE_COUNT];           /* CPU seconds per stage */
} TssaReport;

/* Functionalizes g in place. Returns false only when the graph is broken
 * (in verify mode: ir_verify fails before the first pass or after one),
 * after writing why to err. Mutation it cannot prove safe to remove is kept (see
 * the top of this file), so success does not mean "no mutation left": read
 * report->imperative_mutations. report may be NULL. */
bool tssa_functionalize(IrGraph *g, const TssaOptions *opt, TssaReport *report, FILE *err);

/* The report as "key value" lines (tests and benchmarks read them). */
void tssa_report_print(FILE *out, const TssaReport *r);

/* Prints the alias analysis of g (roots, view trees with their chains,
 * may-alias classes, which mutations are functionalized and why not) as
 * '#'-comment lines. Runs the same preparation tssa_functionalize runs
 * first, so g is folded and dead code removed. */
void tssa_print_alias(FILE *out, IrGraph *g, const TssaOptions *opt);

/* What --emit=tssa prints: g (functionalized with opt, which r reports)
 * as graph text, after '#' comment lines that say whether the graph inputs
 * were taken to be disjoint (the driver sets inputs_disjoint when the bound
 * tensors share no storage: the graph is then specialized to such inputs)
 * and what changed. */
void tssa_print(FILE *out, const IrGraph *g, const TssaOptions *opt, const TssaReport *r);

/* The comment prefix of an in-place op left imperative; the reason follows. */
#define TSSA_IMPERATIVE_NOTE "tssa: kept imperative:"

/* ---------------------------------------------------------------- passes */
/* Each pass can run alone (tests, benchmarks); tssa_functionalize spells
 * out the order. Counts returned are of nodes changed or removed. */

typedef struct TssaAlias TssaAlias;

/* Replaces every use of a value that is another tensor (an in-place op's
 * result, a full slice, alias, detach) by that tensor, so later passes see
 * one name per tensor. */
size_t tssa_forward_aliases(IrGraph *g);

/* Alias analysis of the graph as it is now (see alias.c). */
TssaAlias *tssa_alias_analyze(IrGraph *g, const TssaOptions *opt);
void tssa_alias_free(TssaAlias *a);
void tssa_alias_print(FILE *out, const TssaAlias *a);
size_t tssa_alias_imperative_count(const TssaAlias *a);

/* In-place ops on safe roots become out-of-place ops plus aten::copy_;
 * in-place ops left imperative get their comment. */
size_t tssa_inplace_to_functional(IrGraph *g, TssaAlias *a);
/* Every aten::copy_ on a safe root becomes assigns up its view chain and
 * accesses down to the live views, with tssa::update markers; views of
 * mutated roots become immut:: accesses. Returns the mutations rewritten.
 * With fewer_copies, re-reads of views disjoint from the written region
 * are skipped and whole-root writes whose source already has the root's
 * shape and dtype need no immut::assign (counted in report, may be NULL). */
size_t tssa_rewrite_mutation(IrGraph *g, TssaAlias *a, bool fewer_copies, TssaReport *report);
/* In-place list ops (append, +=, extend, l[i] = v, reverse) on lists that
 * nothing else can observe become new list versions with tssa::update
 * markers (list_versions.c). Returns the writes rewritten; *kept (may be
 * NULL) gets the list writes left in place, each with its reason. */
size_t tssa_list_versions(IrGraph *g, size_t *kept);
/* tssa::update markers inside blocks become prim::If outputs and
 * loop-carried values. Counts the outputs and carried values added. */
void tssa_block_propagation(IrGraph *g, size_t *if_outputs, size_t *loop_carried);
/* Each use dominated by tssa::update(new, old) reads new instead of old. */
void tssa_rename(IrGraph *g);
size_t tssa_remove_update(IrGraph *g);
size_t tssa_dce(IrGraph *g);
size_t tssa_cse(IrGraph *g);
size_t tssa_constant_fold(IrGraph *g, const Safetensors *weights);
/* immut::assign(x, t) where the types of x and t are refined to the same
 * dtype and the same fully known sizes becomes t. */
size_t tssa_merge_assigns(IrGraph *g);

#endif
