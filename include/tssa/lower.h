/* lower.h — from a functional graph and its bound inputs to a StreamIt
 * stream graph whose filters run regions of the functional IR.
 *
 * Two stages of the driver's pipeline (multistage compilation: the program is
 * specialized to the bound inputs' shapes, dtypes and scalar values):
 *   lower_specialize  evaluates the scalar slice (constants, module
 *                     attributes, sizes of bound inputs, int arithmetic,
 *                     lists of them) once, at compile time, with the
 *                     evaluator, and folds prim::If nodes whose condition is
 *                     now known;
 *   lower_build       lowers the pure top level to a stream graph
 *                     (streamit/lower_build.c explains the construction), and
 *                     prim::Loops with static trip counts to split-joins over
 *                     independent iterations or pipelines of unrolled steps
 *                     (streamit/lower_loop.c).
 * The stream's input carries the tensor-valued graph inputs, in order; its
 * output the graph outputs that are not compile-time values, in order.
 *
 * Each work filter points (StreamFilter.work) at a LowerWork: what one
 * firing pops, computes and pushes. Executors (backends/) fire them; the
 * lowering only describes them.
 */
#ifndef TSSA_LOWER_H
#define TSSA_LOWER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/eval.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/stream.h"
#include "tssa/value.h"

typedef enum LowerWorkKind {
    /* Runs nodes[] in order: pops bind pops[], pushes come from pushes[]. */
    LOWER_WORK_REGION,
    /* Moves items without computing: pops route_pop items, pushes item
     * route[k] of them as its k-th item (duplicates and drops allowed). */
    LOWER_WORK_ROUTE,
    /* One iteration `iter` of loop `loop`: runs nodes[] (the body without
     * its indexed writes) with the iteration counter bound to iter; pops
     * bind pops[]; pushes the source of every indexed write, in order. */
    LOWER_WORK_LOOP_ITER,
    /* Assembles loop `loop`: pops the carried initial values (pops[]) then
     * trips x nwrites write sources (iteration-major); applies writes[] for
     * every iteration in order (their index arguments computed by nodes[]
     * from the counter); pushes the loop's outputs. */
    LOWER_WORK_LOOP_ASSEMBLE,
    /* One step `iter` of loop `loop` unrolled into a pipeline (real carried
     * state; streamit/lower_loop.c gives the item layout): pops the state
     * and what later steps need, runs the body once, pushes the new state,
     * the values passed on and every write source so far. */
    LOWER_WORK_LOOP_STEP,
} LowerWorkKind;

/* How one carried value of a planned loop behaves (lower_loop.c). */
typedef enum LoopCarried {
    LOOP_CARRIED_INVARIANT,     /* the body returns its parameter unchanged */
    LOOP_CARRIED_WRITTEN,       /* only written at an index of the counter */
    LOOP_CARRIED_STATE,         /* anything else: real carried state */
} LoopCarried;

/* The plan for one prim::Loop with a static trip count (lower_loop.c):
 * a split-join over its iterations when nothing is real state (parallel),
 * else a pipeline of unrolled steps (serial). */
typedef struct LoopPlan {
    IrNode *loop;
    int64_t trips;
    bool serial;
    LoopCarried *carried;   /* per carried value */
    IrNode **writes;        /* the indexed write of each written carried value */
    int nwrites;
    int *state;             /* carried indices of the state values, in order */
    int nstate;
    IrNode **iter_nodes;    /* body nodes an iteration runs (writes and the
                             * nodes only their indices need left out) */
    int niter_nodes;
    IrNode **index_nodes;   /* body nodes the writes' index arguments need */
    int nindex_nodes;
    /* Set by lower_loop_stream from the loop unit's pops U (the item
     * layouts of the loop's stages: streamit/lower_loop.c): */
    IrValue **unit_pops;
    int nunit_pops;
    int *init_pos;          /* per carried value: its initial value's index in
                             * U, or -1 when it is a compile-time value */
    int *kept;              /* indices in U passed on to later stages */
    int nkept;
} LoopPlan;

typedef struct LowerWork {
    LowerWorkKind kind;
    IrNode **nodes;
    int nnodes;
    IrValue **pops;         /* values bound from popped items, in pop order */
    int npops;
    IrValue **pushes;       /* values pushed, in push order (REGION, ITER) */
    int npushes;
    int *route;             /* ROUTE */
    int nroute;
    int64_t route_pop;
    IrNode *loop;           /* ITER, ASSEMBLE */
    int64_t iter, trips;
    IrNode **writes;        /* ITER (to leave out), ASSEMBLE (to apply) */
    int nwrites;
    int64_t executed;       /* top-level work nodes one firing stands for: statistics */
    struct LoopPlan *plan;  /* ITER, ASSEMBLE, STEP: the loop's plan (above) */
} LowerWork;

/* What the lowering did, for reports and tests. */
typedef struct LowerStats {
    bool whole_graph;           /* lowered as one filter; `why` says why */
    const char *why;
    int units;                  /* top-level nodes that do work */
    int stages;                 /* layers of the top-level pipeline */
    int filters, work_filters, identities, separators, routes;
    int splitjoins, duplicate_splitjoins;
    int ifs_folded, static_nodes;
    int loops_parallel, loops_serial;
    int64_t loop_branches;      /* iteration branches made */
    /* Executions of top-level work nodes per run (a loop or an If counts
     * once; constants and compile-time values aside) of this lowering, and with every shared producer replicated into each
     * path to the outputs (the tree unfolding: the thesis's replication of
     * shared work applied to every fan-out). The thesis shares
     * series-parallel fan-outs through duplicate split-joins and replicates
     * only in shapes that are not series-parallel, so its count lies between
     * the two (equal to `executed` on series-parallel programs). */
    int64_t executed, executed_replicated;
    /* Loops with real carried state unrolled into a pipeline of steps. */
    int loops_unrolled;
    /* IR node executions (every node, nested blocks included: a loop's body
     * counts once per iteration when its trip count is static, else once)
     * per run of the program: by this lowering (compile-time values count
     * once, at compile time) and by the interpreter on the same graph; and
     * how many IR nodes the lowering runs more often than the interpreter. */
    int64_t node_runs, node_runs_original;
    int nodes_run_more;
} LowerStats;

typedef struct LowerProgram LowerProgram;

/* Specializes g, a functional graph (TensorSSA's result), to its bound
 * inputs (as bindings_resolve gives them; retained where they are
 * compile-time values) and weights. g is changed (Ifs folded) but stays the
 * caller's: it must outlive the program. On failure writes why to err, sets
 * *status (2: the inputs do not fit the graph) and returns NULL. */
LowerProgram *lower_specialize(IrGraph *g, RtValue **inputs, int ninputs,
                               const Safetensors *weights, FILE *err, int *status);
/* Builds the specialized program's stream graph (and its statistics). False
 * after writing an internal error to err. */
bool lower_build(LowerProgram *p, FILE *err);
void lower_program_free(LowerProgram *p);

StreamGraph *lower_stream_graph(const LowerProgram *p);
IrGraph *lower_ir_graph(const LowerProgram *p);
const LowerStats *lower_stats(const LowerProgram *p);
/* The compile-time value of v (a static value: constants, module
 * attributes, sizes...), borrowed, or NULL when v is computed at run time. */
RtValue *lower_static_value(const LowerProgram *p, const IrValue *v);
/* The compile-time values, in an evaluation context of the program's graph:
 * an executor clones it (node_exec_clone) to run the filters' IR. */
const NodeExec *lower_static_values(const LowerProgram *p);
/* The graph outputs: out_stream[k] is the index of graph output k among the
 * stream's output items, or -1 when output k is a compile-time value. */
const int *lower_output_map(const LowerProgram *p);
/* The graph inputs that enter through the stream's input, in order
 * (indices into the bound inputs). */
const int *lower_input_map(const LowerProgram *p, int *n);

/* Items one firing of w pops and pushes. */
int64_t lower_work_pop(const LowerWork *w);
int64_t lower_work_push(const LowerWork *w);

/* Prints `p`'s stats as "key value" lines. */
void lower_stats_print(FILE *out, const LowerStats *s);

#endif
