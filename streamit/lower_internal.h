/* lower_internal.h — shared state of the lowering passes (lower_*.c). */
#ifndef TSSA_LOWER_INTERNAL_H
#define TSSA_LOWER_INTERNAL_H

#include "tssa/eval.h"
#include "tssa/lower.h"
#include "tssa/util.h"

struct LowerProgram {
    IrGraph *g;
    const Safetensors *weights;
    NodeExec *exec;         /* holds the compile-time values in its slots */
    bool *is_static;        /* by value id */
    uint32_t nstatic;       /* values is_static covers */
    StreamGraph *sg;
    int *out_map;           /* per graph output: stream output index or -1 */
    int *in_map, nin;       /* stream input k is graph input in_map[k] */
    LowerStats stats;
    int *loop_lines, nloop_lines;  /* source lines of the loops planned so far */
    int64_t loop_chunk;            /* iterations per phase of a long loop (lower_set_loop_chunk) */
    bool fold_tensors;             /* tensor work on compile-time values runs at compile time */
    int64_t constants_held;        /* elements of the tensors that work made */
};

/* lower_specialize.c: evaluates the scalar slice on the bound inputs and
 * folds prim::If nodes with a known condition. Leaves the compile-time
 * values in p->exec and marks them in p->is_static. */
void lower_specialize_values(LowerProgram *p, RtValue **inputs, int ninputs);

/* lower_unroll.c: a top-level for loop of at most LOWER_UNROLL_MAX
 * compile-time iterations that reads a list or dict of tensors it carries
 * (see lower_unroll.c) is unrolled; *trips its iterations. */
enum { LOWER_UNROLL_MAX = 8 };
bool lower_unroll_wanted(const LowerProgram *p, const IrNode *loop, int64_t *trips);
/* Replaces loop by `trips` copies of its body; returns the first node made
 * (the node after the loop when none). */
IrNode *lower_unroll(LowerProgram *p, IrNode *loop, int64_t trips);

/* lower_containers.c: the contents of lists and dicts of run-time values
 * at the top level, and the reads they fold (see lower_containers.c). */
typedef struct LowerContainers LowerContainers;
LowerContainers *lower_containers_new(void);
void lower_containers_free(LowerContainers *lc);
/* After the specialization's walk handled n (a top-level node): records
 * what n makes, or folds n's read; returns the node the walk goes on at. */
IrNode *lower_containers_visit(LowerProgram *p, LowerContainers *lc, IrNode *n);
/* How many reads it folded away (their containers may be left unread). */
int lower_containers_folded(const LowerContainers *lc);

/* lower_loop.c: a plan when `loop` (a top-level prim::Loop) is a for loop
 * with a static trip count of at least one iteration, else NULL with *why
 * set. */
LoopPlan *lower_loop_plan(LowerProgram *p, IrNode *loop, const char **why);

/* lower_loop.c: the stream of a planned loop (see lower_loop.c); pops are
 * the loop unit's pops, in any order. */
StreamNode *lower_loop_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan, IrValue **pops,
                              int npops);

/* lower_loop.c: n's source comment ("file.py:14:4"), or "", and its line
 * (14), or 0. */
const char *lower_source_text(const IrNode *n);
int lower_source_line(const IrNode *n);

/* lower_reads.c: the run-time values a set of nodes reads from outside
 * itself (the items its filter pops), first use first, each once;
 * compile-time values and values marked in `skip` are left out. Per set:
 * lower_reads_begin, lower_reads_inside for every node of the set, then
 * lower_reads_use / lower_reads_node in the order the reads should come,
 * then lower_reads_take. */
typedef struct LowerReads {
    LowerProgram *p;
    uint32_t *inside, *seen, stamp;     /* by value id */
    IrValue **list;
    int n, cap;
    const bool *skip;                   /* by value id, or NULL */
} LowerReads;
void lower_reads_init(LowerReads *r, LowerProgram *p);
void lower_reads_free(LowerReads *r);
void lower_reads_begin(LowerReads *r);
/* n's outputs and everything made in its blocks belong to the set. */
void lower_reads_inside(LowerReads *r, const IrNode *n);
void lower_reads_use(LowerReads *r, IrValue *v);
/* n's inputs, then what its blocks read, in order. */
void lower_reads_node(LowerReads *r, const IrNode *n);
/* The list so far, copied into the program's arena. */
IrValue **lower_reads_take(LowerReads *r, int *n);

/* lower_build.c: builds p->sg from the specialized graph. */
bool lower_build_stream(LowerProgram *p, FILE *err);

/* Arena allocation in the program's graph. */
void *lower_alloc(LowerProgram *p, size_t size);

/* True when a value of type t can hold no tensor (ints, floats, bools,
 * strings, None, devices, dtypes, lists and tuples of them). */
bool lower_type_scalar(const IrType *t);
/* True when n is side-effect-free scalar work: no blocks, no in-place
 * write, print, warning or setattr, and only scalar-typed outputs
 * (lower_type_scalar), or a prim::Constant / prim::GetAttr. */
bool lower_node_scalar(const IrNode *n);
/* True when n, or a node in its blocks, is a random op (OPC_RANDOM): it
 * reads its loop's iteration, so it stays in the body and the body gets
 * the counter (lower_loop.c). */
bool lower_node_draws_random(const IrNode *n);

/* lower_build.c: IR node runs per run of the lowered program and of the
 * interpreter (LowerStats.node_runs*); needs p->sg built. */
void lower_count_node_runs(LowerProgram *p);

/* True when the value holds a tensor anywhere (lists, tuples). */
bool lower_value_has_tensor(const RtValue *v);

#endif
