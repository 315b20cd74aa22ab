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
 *                     prim::Loops with static trip counts to a body filter
 *                     with repetitions between an Unstack and a Stack, inside
 *                     a feedback loop when they carry state
 *                     (streamit/lower_loop.c); any other loop to a
 *                     hierarchical filter whose body is a stream of its
 *                     own, fired once per iteration (lower_build.c).
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
    /* Runs nodes[] in order: pops bind pops[], pushes come from pushes[];
     * then the last `npass` popped items are pushed on unchanged. */
    LOWER_WORK_REGION,
    /* Moves items without computing: pops route_pop items, pushes item
     * route[k] of them as its k-th item (duplicates and drops allowed). */
    LOWER_WORK_ROUTE,
    /* A loop's Unstack (streamit/lower_loop.c): pops the loop unit's items,
     * runs the loop-invariant nodes once, then for every iteration the
     * slicing nodes, and pushes each iteration's items (slices are views). */
    LOWER_WORK_UNSTACK,
    /* The body of a loop with carried state, in its feedback loop: pops an
     * iteration's items, the initial-state slots and the state from the loop
     * path; pushes the new state and the iteration's outputs. */
    LOWER_WORK_LOOP_BODY,
    /* A loop's Stack: pops the kept initial values and every iteration's
     * outputs; pushes the loop's results (written tensors assembled in
     * place, appended lists joined, the final state). */
    LOWER_WORK_LOOP_STACK,
} LowerWorkKind;

/* How one carried value of a planned loop behaves (lower_loop.c). */
typedef enum LoopCarried {
    LOOP_CARRIED_INVARIANT,     /* the body returns its parameter unchanged */
    LOOP_CARRIED_WRITTEN,       /* only written at an index of the counter */
    LOOP_CARRIED_APPENDED,      /* a list only extended: aten::add(c, list) */
    LOOP_CARRIED_STATE,         /* anything else: real carried state */
} LoopCarried;

/* The plan for one prim::Loop with a static trip count (lower_loop.c
 * describes the streams and item layouts). Nothing in it grows with the
 * trip count. */
typedef struct LoopPlan {
    IrNode *loop;
    int64_t trips;
    bool feedback;              /* some carried value is state */
    int line;                   /* source line (from the node's comment), or 0 */
    int line_seq;               /* 1 for the first loop planned on that line, 2 ... */
    LoopCarried *carried;       /* per carried value */
    IrNode **writes;            /* per carried value: its write (select_rev,
                                 * slice_rev, aten::add of lists), or NULL */
    bool *overwrites;           /* per carried value: its writes cover every
                                 * element of its initial value (out[i] = v
                                 * over all rows), which is then never read */
    int *state;                 /* carried indices of the state values, in order */
    int nstate;
    IrValue *counter;           /* the body's iteration counter */
    /* The loop unit's pops U (set by lower_loop_stream). */
    IrValue **unit_pops;
    int nunit_pops;
    int *init_pos;              /* per carried value: its initial value's index in
                                 * U, or -1 when it is a compile-time value */
    int *kept;                  /* indices in U that Stack pops */
    int nkept;
    /* Unstack: hoisted[] once (bound: U, invariant carried parameters),
     * then per iteration slicers[] (with the scalar nodes they need, in
     * body order), and pushes step_items[] and, with feedback, nstate
     * initial-state slots (iteration 0: the initial values; later: None). */
    IrNode **hoisted;
    int nhoisted;
    IrNode **slicers;
    int nslicers;
    IrValue **step_items;
    int nstep_items;
    /* Stack: per iteration, write_index[] (the scalar nodes the writes'
     * index arguments need), then the writes, in place. */
    IrNode **write_index;
    int nwrite_index;
    /* Per iteration, after the new state: the values the Stack needs (write
     * sources, appended lists), in carried order. */
    IrValue **outs;
    int nouts;
} LoopPlan;

typedef struct LowerWork {
    LowerWorkKind kind;
    IrNode **nodes;
    int nnodes;
    IrValue **pops;         /* values bound from popped items, in pop order */
    int npops;
    IrValue **pushes;       /* values pushed, in push order (REGION, BODY) */
    int npushes;
    int npass;              /* REGION, BODY: trailing items passed through */
    int *route;             /* ROUTE */
    int nroute;
    int64_t route_pop;
    int64_t executed;       /* top-level work nodes one firing stands for: statistics */
    int64_t firings;        /* firings per run (a loop's body: its trip count) */
    struct LoopPlan *plan;  /* UNSTACK, BODY, STACK: the loop's plan */
    /* REGION of a hierarchical filter (StreamFilter.inner): nodes[0] is a
     * prim::Loop whose trip count or condition is decided at run time, and
     * steps[] the work filters of its body's stream in the order of one
     * steady state. A firing runs the steady state once per iteration,
     * until the trip count is reached or the condition fails; the items
     * between the body's filters are the body's values (each filter fires
     * once per iteration, so a value is the one item on its channel). */
    struct LowerWork **steps;
    int nsteps;
    /* REGION that prints (a print or warning at its top level or inside):
     * the print-ordering token it pushes last, or NULL. The token is None;
     * the next printing filter pops it, so prints keep program order on
     * every schedule (lower_build.c, "Prints"). */
    IrValue *order_token;
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
    int loops_folded;           /* scalar loops run at compile time */
    /* Loops as data-parallel filters with repetitions, as feedback loops,
     * and kept as one filter (a malformed loop only: see loops_nested). */
    int loops_parallel, loops_feedback, loops_serial;
    /* Loops whose trip count or condition is decided at run time (while
     * loops, break, trip counts from tensor data), as hierarchical filters
     * whose body is a stream of its own (lower_build.c), at every depth;
     * and the work filters of those bodies' streams. */
    int loops_nested, nested_filters;
    int64_t loop_iterations;    /* iterations of the loops taken apart, per run */
    /* Executions of top-level work nodes per run (a loop or an If counts
     * once; constants and compile-time values aside) of this lowering, and with every shared producer replicated into each
     * path to the outputs (the tree unfolding: the thesis's replication of
     * shared work applied to every fan-out). The thesis shares
     * series-parallel fan-outs through duplicate split-joins and replicates
     * only in shapes that are not series-parallel, so its count lies between
     * the two (equal to `executed` on series-parallel programs). */
    int64_t executed, executed_replicated;
    /* IR node executions (every node, nested blocks included: a loop's body
     * counts once per iteration when its trip count is static, else once)
     * per run of the program: by this lowering (compile-time values count
     * once, at compile time) and by the interpreter on the same graph; and
     * how many IR nodes the lowering runs more often than the interpreter. */
    int64_t node_runs, node_runs_original;
    int nodes_run_more;
    int tensor_nodes_run_more;  /* of those, nodes that are not scalar work */
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
/* A loop of more than `chunk` iterations runs its steady state in phases
 * of `chunk` iterations (streamit/lower_loop.c); before lower_build. 0:
 * LOWER_LOOP_CHUNK. */
#define LOWER_LOOP_CHUNK 1024
void lower_set_loop_chunk(LowerProgram *p, int64_t chunk);
bool lower_build(LowerProgram *p, FILE *err);
void lower_program_free(LowerProgram *p);
/* A pass between specialization and lowering added nodes and values to the
 * graph (kernels_fuse): the program's tables grow to cover them (the new
 * values are run-time values). */
void lower_graph_grown(LowerProgram *p);
/* Makes v (a value such a pass made, e.g. a prim::Constant) a compile-time
 * value of the program; takes the reference to value. */
void lower_add_static(LowerProgram *p, const IrValue *v, RtValue *value);
/* Runs n, a node of the scalar slice (lower_node_scalar) whose inputs are
 * all compile-time values, now (with the ref backend's op bindings), and
 * makes its results compile-time values. False, with nothing recorded,
 * when it fails or its result would hold a run-time tensor: the node is
 * left to run (and fail) at run time. */
bool lower_run_static(LowerProgram *p, IrNode *n);
/* The same for tensor work whose inputs are all compile-time values (an
 * arange of sizes shape inference made known): run once, its results kept
 * as weights are, within the limits lower_specialize.c gives. */
bool lower_run_constant_tensor(LowerProgram *p, IrNode *n);

/* Replaces n, a prim::If whose condition a pass decided to be `cond`, by
 * its taken block: the block's nodes move before n and its results replace
 * n's outputs. Returns the node to go on at (the first moved node, or the
 * one after n when nothing moved). */
IrNode *lower_fold_if(LowerProgram *p, IrNode *n, bool cond);

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

/* The input of a loop's write (LoopPlan.writes[k]) that holds what it
 * writes: 1 for immut::<view>_rev(c, src, ...) and aten::add(c, list), 2
 * for immut::list_set_item(c, index, src). Its other inputs after the
 * first are indices. */
int lower_write_source(const IrNode *w);

/* Items one firing of w pops and pushes. */
int64_t lower_work_pop(const LowerWork *w);
int64_t lower_work_push(const LowerWork *w);

/* Prints `p`'s stats as "key value" lines. */
void lower_stats_print(FILE *out, const LowerStats *s);

#endif
