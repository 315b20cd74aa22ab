/* kernels.h — fused kernels: the kernels layer's stages of the pipeline.
 *
 *   kernels_fuse     groups the specialized program's fusable nodes
 *                    (elementwise ops of the op table, views, TensorSSA's
 *                    accesses and assigns, casts, cat/stack, reductions along
 *                    an axis, softmax) into tssa::FusionGroup nodes, so the
 *                    stream graph lowered afterwards has one filter per
 *                    group (vertical fusion);
 *   kernels_compile  turns every group into kernel IR, prints it as C (one
 *                    source file per program), compiles it with the system C
 *                    compiler (cached under ~/.cache/tssa-stream) and loads
 *                    it;
 *   kernels_install  makes an executor's evaluation context run the groups
 *                    as those kernels (groups without one are interpreted).
 * Preconditions: lower_specialize and shape_infer have run on the program.
 */
#ifndef TSSA_KERNELS_H
#define TSSA_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/eval.h"
#include "tssa/lower.h"

typedef struct KernelsStats {
    int groups;                 /* tssa::FusionGroup nodes made */
    int nodes_fused;            /* IR nodes inside them */
    int kernels;                /* groups with a compiled kernel */
    int interpreted;            /* groups kept interpreted (kernel IR could not express them) */
    const char *interpreted_why;/* the first reason */
    bool compiled;              /* a compiler ran (false: the cache had it) */
    double compile_s;           /* generating, compiling (or finding) and loading */
    int64_t launches;           /* kernel calls so far */
    int64_t fallbacks;          /* groups interpreted at run time so far */
    int64_t copies;             /* inputs made contiguous before a call */
} KernelsStats;

typedef enum KernelsTarget { KERNELS_TARGET_C, KERNELS_TARGET_CUDA } KernelsTarget;

typedef struct KernelProgram KernelProgram;


/* The run's tensor memory planned from liveness in program order
 * (kernels/memory_plan.c): the size of one buffer holding every run-time
 * tensor at a reused place, against the sum of their sizes. */
typedef struct KernelsMemory {
    int64_t bytes_planned;      /* peak of live tensor bytes, places reused */
    int64_t bytes_naive;        /* every tensor at a place of its own */
    int values_planned;
    int values_unknown;         /* tensors of data-dependent shape, not planned */
} KernelsMemory;
KernelsMemory kernels_plan_memory(const LowerProgram *p);

/* The kernels layer's passes over a specialized program, run in order from
 * one table (kernels/passes.c, which lists them with what each needs and
 * makes). They run in two stages: `shapes` (split_loop_tuples,
 * shape_infer) right after lower_specialize, and `fusion` (fold_decided ...
 * fuse, horizontal), which --no-fuse leaves out. The functions below them
 * are the passes themselves, for the table. */
typedef enum KernelsStage { KERNELS_STAGE_SHAPES, KERNELS_STAGE_FUSION } KernelsStage;
typedef struct KernelsPassOptions {
    RtValue **inputs;           /* the bound graph inputs (shape_infer types them) */
    int ninputs;
    bool horizontal;            /* run `horizontal` (the caller decides when it is wanted) */
    /* run `strip_mine` for this many workers that share no memory (ranks
     * on several hosts, devices): data-parallel loops become loops over
     * slices of their iterations; below 2 the pass is left out */
    int slices;
    /* slices must give the same bits as the whole loop (ranks: results are
     * the same for every rank count): each slice's products get whole
     * panels of rows (tensor.h TENSOR_GEMM_PANEL_ROWS). Devices' products
     * (cuBLAS) pick their kernels by shape anyway: any slice. */
    bool slices_exact;
    /* run `sink_sliced_products`: a product read only through column
     * slices is computed slice by slice where each is read (on the cpu
     * backend always, so a run on any number of ranks computes the same
     * products; with devices only when slicing) */
    bool sink_column_products;
    /* ir_verify before the first pass and after every pass; a broken graph
     * is an internal error naming the pass. kernels_pass_options_default
     * sets it in builds with TSSA_VERIFY_PASSES (Debug, sanitizer builds)
     * and from the environment: TSSA_VERIFY_PASSES=1 on, =0 off. */
    bool verify;
    const char *stop_after;     /* a pass name: stop after it (run or left out) */
} KernelsPassOptions;
typedef enum KernelsPassResult {
    KERNELS_PASSES_DONE,        /* every pass of the stage ran */
    KERNELS_PASSES_STOPPED,     /* stopped after stop_after: the caller prints the graph */
    KERNELS_PASSES_FAILED,      /* after a message to err; *status the exit status (1) */
} KernelsPassResult;
void kernels_pass_options_default(KernelsPassOptions *o);
KernelsPassResult kernels_run_passes(LowerProgram *p, KernelsStage stage, const KernelsPassOptions *o,
                                     FILE *err, int *status);
/* The passes' names, in the order they run; kernels_pass_find: the index
 * of a name, or -1. */
int kernels_pass_count(void);
const char *kernels_pass_name(int index);
int kernels_pass_find(const char *name);

/* A loop's state carried as one tuple (unpacked at the top of each
 * iteration, constructed at the bottom) becomes its elements, carried one
 * by one, so shape inference sees them (kernels/split_loop_tuples.c).
 * Returns the number of tuples split. */
int kernels_split_loop_tuples(LowerProgram *p);
/* aten::gru / lstm / rnn_tanh / rnn_relu layers become a prim::Loop over
 * time of their cell per layer and direction (kernels/expand_rnn_layers.c),
 * which the loop lowering, decompose_cells, hoist_input_products and
 * fusion then take apart. Returns the number of layer nodes expanded. */
int kernels_expand_rnn_layers(LowerProgram *p);
/* Scalars, Ifs and in-place checks that the static shapes decide, folded
 * (kernels/fold_decided.c): a GRUCell's rank tests inside a loop's body.
 * Returns the number of nodes folded. */
int kernels_fold_decided(LowerProgram *p);
/* gru_cell, lstm_cell and rnn_tanh_cell of static shapes become their
 * linears and gate ops (kernels/decompose_cells.c), so the gates fuse.
 * Returns the number of cells rewritten. */
int kernels_decompose_cells(LowerProgram *p);
/* linear(embedding(E, idx), W, b) of compile-time E, W, b becomes a lookup
 * in the table E @ W^T + b, computed once (kernels/fold_embedding_linear.c).
 * Returns the number of lookups folded. */
int kernels_fold_embedding_linear(LowerProgram *p);
/* A loop's per-step mm / matmul / linear of its input X[t] by an
 * invariant weight becomes one product of all of X before the loop, read a
 * step's rows at a time (kernels/hoist_input_products.c). Returns the
 * number of products hoisted. */
int kernels_hoist_input_products(LowerProgram *p);
/* linear(x, W, b) and addmm(b, x, W) become the product and an add of b,
 * which fuses into the product's consumer (kernels/split_bias.c). Returns
 * the number of products split. */
int kernels_split_bias(LowerProgram *p);
/* TensorSSA's assigns through a view that covers its whole base (t_rev,
 * transpose_rev, squeeze_rev, unsqueeze_rev) become the inverse view of
 * their source, which fuses (kernels/invert_whole_assigns.c). Returns the
 * number of assigns rewritten. */
int kernels_invert_whole_assigns(LowerProgram *p);
/* chunk / split / unbind and their ListUnpack become one view per piece
 * (kernels/unpack_views.c). Returns the number of lists taken apart. */
int kernels_unpack_views(LowerProgram *p);
/* Vertical fusion. Returns the number of groups made. */
int kernels_fuse(LowerProgram *p);
/* Horizontal fusion (kernels/horizontal.c): a data-parallel loop whose
 * iteration is groups and products by weights, reading rows X[i] and
 * writing row i of its result, becomes groups over all iterations
 * (ir_group_iterations: one kernel each) and products of the stacked rows.
 * After kernels_fuse. Returns the number of loops rewritten. */
int kernels_horizontal(LowerProgram *p);
/* Batched heads (kernels/batch_heads.c): a loop whose iteration h works on
 * the band h*W .. (h+1)*W of a dim of values from outside (a head's columns)
 * and writes its result into the same band of its result becomes batched
 * operations over all iterations: stacked views, one batched product per
 * product of two per-iteration values, groups over all iterations, one
 * group writing the result. After kernels_fuse, where horizontal runs.
 * Returns the number of loops rewritten. */
int kernels_batch_heads(LowerProgram *p);
/* A top-level data-parallel loop (each iteration writes its own row) of N
 * iterations becomes a loop over c equal slices of them, each slice a loop
 * of N / c iterations, for o->slices workers (kernels/strip_mine.c): what
 * horizontal then makes one kernel per slice, and the ranks and devices
 * share out a slice per firing. */
bool kernels_strip_mine(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status);
/* A top-level product x @ W read only through column slices (attention's
 * q[:, :, h*D:(h+1)*D]) becomes x @ W[:, a:b] where each slice is read
 * (kernels/sink_sliced_products.c), so a rank or device running some heads
 * needs only x and W (when o->sink_column_products). */
bool kernels_sink_sliced_products(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status);

/* Builds the kernel of every group. With `compile`, compiles and loads the
 * C; else only keeps the source (for --emit=c / --emit=cuda). NULL after a
 * message to err (a missing compiler, a failed compile: *status 1). */
KernelProgram *kernels_compile(LowerProgram *p, bool compile, FILE *err, int *status);
/* The generated source of every kernel for a target. */
void kernels_print_source(FILE *out, const KernelProgram *kp, KernelsTarget target);
/* After lower_build: every work filter's flops, memory bytes and item bytes
 * per firing (StreamFilter), from the static shapes, for the partitioner
 * (kernels/filter_costs.c says how they are counted). */
void kernels_estimate_costs(const LowerProgram *p);
/* The memory bandwidth and the rate of exp/tanh-class calls of code
 * compiled as the kernels are, run by `threads` threads (about 0.3 s; a
 * DeviceRatesProbe's measure, machine.h; ctx unused). False when the
 * compiler cannot build the probe. kernels/measure_rates.c says how. */
bool kernels_measure_rates(void *ctx, int threads, double *bytes_per_s, double *math_per_s);
void kernels_install(KernelProgram *kp, NodeExec *x);

/* What a group's kernel takes and makes, for an executor that launches it
 * itself (the cuda backend). Tensors are read and written contiguous, of
 * exactly these shapes; an INT used as an index must lie in
 * [0, index_limit) (-1: no limit). */
typedef enum KernelsArgKind { KERNELS_ARG_TENSOR, KERNELS_ARG_INT, KERNELS_ARG_FLOAT } KernelsArgKind;
typedef struct KernelsArg {
    KernelsArgKind kind;
    TensorDType dtype;
    int rank;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t index_limit;
    int64_t blocks;             /* outputs: its CUDA kernel's grid, blocks of */
    int block_threads;          /* this many threads (kir_cuda_grid decides); blocks 0: no
                                 * kernel of its own (empty, or another output's writes it) */
} KernelsArg;
typedef struct KernelsKernel {
    const char *name;           /* in CUDA, output o is written by the __global__ NAME_out<o>
                                 * (or by an earlier output's: blocks 0) */
    const char *where;          /* the group's source location comment, or "" */
    int index;                  /* among the program's kernels: 0 .. kernels_count - 1 */
    int ninputs, noutputs;
    const KernelsArg *inputs, *outputs;
} KernelsKernel;
int kernels_count(const KernelProgram *kp);
const KernelsKernel *kernels_kernel_at(const KernelProgram *kp, int index);
/* The kernel of a tssa::FusionGroup node, or NULL (the group is interpreted). */
const KernelsKernel *kernels_kernel_of(const KernelProgram *kp, const IrNode *group);
/* Whether a call with args (borrowed, one per kernel input) may run the
 * kernel: dtypes, shapes and index ranges as it was built for (layout
 * aside: a strided tensor is made contiguous first). */
bool kernels_args_fit(const KernelsKernel *k, RtValue *const *args);
/* The program's kernels as one source for target (malloc'd, *len bytes). */
char *kernels_source(const KernelProgram *kp, KernelsTarget target, size_t *len);
/* A CUDA kernel's one argument, NAME_args, as kir_print.c declares it: every
 * field 8 bytes, in[n] si[n] sf[n] out[m] with n = max(ninputs, 1),
 * m = max(noutputs, 1). Writes it into buf (at least kernels_args_size
 * bytes) from the device addresses of the tensors (in_ptr[i]; 0 for a
 * scalar), the scalars (si, sf) and the outputs' addresses. */
size_t kernels_args_size(const KernelsKernel *k);
/* A scalar argument as the kernels read it: si (an int, a bool, a float
 * truncated) and sf (as a double). */
void kernels_scalar_arg(const RtValue *a, int64_t *si, double *sf);
void kernels_pack_args(const KernelsKernel *k, const uint64_t *in_ptr, const int64_t *si,
                       const double *sf, const uint64_t *out_ptr, void *buf);
const KernelsStats *kernels_stats(const KernelProgram *kp);
void kernels_free(KernelProgram *kp);

#endif
