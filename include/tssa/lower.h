/* lower.h — from a TorchScript graph and its bound inputs to a StreamIt
 * stream graph whose filters run regions of the functional IR.
 *
 * lower_compile is the whole front half of the compiler for one set of
 * inputs (multistage compilation: the program is specialized to the bound
 * inputs' shapes, dtypes and scalar values):
 *   1. copy the graph (the caller's graph is not changed) and functionalize
 *      the copy (TensorSSA) under what the bound inputs tell (disjointness,
 *      module attributes);
 *   2. specialize: evaluate the scalar slice (constants, module attributes,
 *      sizes of bound inputs, int arithmetic, lists of them) once, at compile
 *      time, with the ref op implementations, and fold prim::If nodes whose
 *      condition is now known;
 *   3. lower the pure top level to a stream graph (streamit/lower_build.c
 *      explains the construction) and prim::Loops with static trip counts
 *      and provably independent iterations to split-joins over their
 *      iterations (streamit/lower_loop.c).
 * The stream's input carries the tensor-valued graph inputs, in order; its
 * output the graph outputs that are not compile-time values, in order.
 *
 * Each work filter points (StreamFilter.work) at a LowerWork: what one
 * firing pops, computes and pushes. Executors (backends/cpu) fire them.
 */
#ifndef TSSA_LOWER_H
#define TSSA_LOWER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/backend.h"
#include "tssa/ir.h"
#include "tssa/stream.h"

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

struct LoopPlan;

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
    struct LoopPlan *plan;  /* ITER, ASSEMBLE, STEP: the loop's plan (lower_internal.h) */
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

/* Steps 1-3 above for g and its bound inputs (as bindings_resolve gives
 * them). On failure writes why to err, sets *status (2: the program or its
 * inputs are bad, 1: internal) and returns NULL. */
LowerProgram *lower_compile(const IrGraph *g, RtValue **inputs, int ninputs,
                            const Safetensors *weights, FILE *err, int *status);
/* Steps 2-3 only, on a graph that is already functional; takes g over.
 * (Benchmarks and tests that build graphs directly.) */
LowerProgram *lower_functional(IrGraph *g, RtValue **inputs, int ninputs,
                               const Safetensors *weights, FILE *err, int *status);
void lower_program_free(LowerProgram *p);

StreamGraph *lower_stream_graph(const LowerProgram *p);
IrGraph *lower_ir_graph(const LowerProgram *p);
const LowerStats *lower_stats(const LowerProgram *p);
/* The compile-time value of v (a static value: constants, module
 * attributes, sizes...), borrowed, or NULL when v is computed at run time. */
RtValue *lower_static_value(const LowerProgram *p, const IrValue *v);
/* The graph outputs: out_stream[k] is the index of graph output k among the
 * stream's output items, or -1 when output k is a compile-time value. */
const int *lower_output_map(const LowerProgram *p);
/* The graph inputs that enter through the stream's input, in order
 * (indices into the bound inputs). */
const int *lower_input_map(const LowerProgram *p, int *n);

/* Fires w once (the meaning of every work kind is above): popped[0..] are
 * the items it pops (borrowed), pushed[0..] receive new references to the
 * items it pushes. False after reporting a runtime failure to err. */
bool lower_work_fire(LowerProgram *p, const LowerWork *w, RtValue **popped, RtValue **pushed,
                     FILE *err);
/* Items one firing of w pops and pushes. */
int64_t lower_work_pop(const LowerWork *w);
int64_t lower_work_push(const LowerWork *w);

/* Prints `p`'s stats as "key value" lines. */
void lower_stats_print(FILE *out, const LowerStats *s);

typedef enum LowerEmit {
    LOWER_EMIT_STREAM = 0,          /* --emit=stream */
    LOWER_EMIT_SCHEDULE = 1,        /* --emit=schedule */
    LOWER_EMIT_SCHEDULE_JSON = 2,   /* --emit=schedule --json */
    LOWER_EMIT_DOT = 3,             /* --emit=dot */
} LowerEmit;

/* What the driver's --emit=stream|schedule|dot print for a .ir model:
 * bindings are resolved as for a run (they are needed: the lowering
 * specializes on them). Returns the exit status: 0, 2 bad input or bindings,
 * 1 internal error. */
int lower_emit(FILE *out, IrGraph *g, int what, int nbind, char **bind, const char *weights_path,
               FILE *err);

#endif
