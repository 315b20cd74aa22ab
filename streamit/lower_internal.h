/* lower_internal.h — shared state of the lowering passes (lower_*.c). */
#ifndef TSSA_LOWER_INTERNAL_H
#define TSSA_LOWER_INTERNAL_H

#include "backends/ref/node_exec.h"
#include "tssa/lower.h"

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
    /* Set by lower_loop_stream from the loop unit's pops U: */
    IrValue **unit_pops;
    int nunit_pops;
    int *init_pos;          /* per carried value: its initial value's index in
                             * U, or -1 when it is a compile-time value */
    int *kept;              /* indices in U passed on to later stages */
    int nkept;
} LoopPlan;

struct LowerProgram {
    IrGraph *g;
    const Safetensors *weights;
    NodeExec *exec;         /* holds the compile-time values in its slots */
    bool *is_static;        /* by value id */
    StreamGraph *sg;
    int *out_map;           /* per graph output: stream output index or -1 */
    int *in_map, nin;       /* stream input k is graph input in_map[k] */
    LowerStats stats;
};

/* lower_specialize.c: evaluates the scalar slice on the bound inputs and
 * folds prim::If nodes with a known condition. Leaves the compile-time
 * values in p->exec and marks them in p->is_static. */
void lower_specialize(LowerProgram *p, RtValue **inputs, int ninputs);

/* lower_loop.c: a plan when `loop` (a top-level prim::Loop) has a static
 * trip count and either iterations proven independent (a parallel plan) or
 * real carried state within the unrolling limit (a serial plan), else NULL
 * with *why set. */
LoopPlan *lower_loop_plan(LowerProgram *p, IrNode *loop, const char **why);

/* lower_loop.c: the stream of a planned loop (see lower_loop.c); pops are
 * the loop unit's pops, in any order. */
StreamNode *lower_loop_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan, IrValue **pops,
                              int npops);

/* lower_build.c: builds p->sg from the specialized graph. */
bool lower_build(LowerProgram *p, FILE *err);

/* Arena allocation in the program's graph. */
void *lower_alloc(LowerProgram *p, size_t size);

/* True when a value of type t can hold no tensor (ints, floats, bools,
 * strings, None, devices, dtypes, lists and tuples of them). */
bool lower_type_scalar(const IrType *t);
/* True when n is side-effect-free scalar work: no blocks, no in-place
 * write, print, warning or setattr, and only scalar-typed outputs
 * (lower_type_scalar), or a prim::Constant / prim::GetAttr. */
bool lower_node_scalar(const IrNode *n);

/* lower_fire.c: the initial value of carried value k of plan's loop:
 * from `unit` (the loop unit's popped items, indexed like plan->unit_pops)
 * or the program's compile-time values. Borrowed. */
RtValue *lower_loop_initial(LowerProgram *p, const LoopPlan *plan, RtValue **unit, int k);

/* lower_build.c: IR node runs per run of the lowered program and of the
 * interpreter (LowerStats.node_runs*); needs p->sg built. */
void lower_count_node_runs(LowerProgram *p);

/* True when the value holds a tensor anywhere (lists, tuples). */
bool lower_value_has_tensor(const RtValue *v);

#endif
