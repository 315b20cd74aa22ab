/* kernels_internal.h — what the kernels layer's files share: building
 * kernel IR from fused groups (kir_build.c), printing it (kir_print.c),
 * forming the groups (fuse.c) and running them (kernel_program.c). */
#ifndef TSSA_KERNELS_INTERNAL_H
#define TSSA_KERNELS_INTERNAL_H

#include "kernels/kir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"

/* Below this much work (elements times expression nodes) an output's loop
 * nest runs on one thread: the OpenMP fork and join (a few microseconds)
 * would cost more than it saves. */
#define KIR_PARALLEL_MIN 200000

typedef enum KirTarget { KIR_TARGET_C, KIR_TARGET_CUDA } KirTarget;

/* The compile-time value of v, where v may be a param of group's block
 * (it then stands for the group's input), or NULL. group may be NULL. */
const RtValue *kir_static(const LowerProgram *p, const IrNode *group, const IrValue *v);
/* Whether node n (not yet in a group) can be computed inside a kernel: an
 * op with a kernel rule, static shapes, compile-time arguments where the
 * rule needs them. */
bool kir_fusable(const LowerProgram *p, const IrNode *n);
/* The kernel of a tssa::FusionGroup node, named `name`, or NULL with *why. */
KKernel *kir_build_kernel(KirBuilder *b, const LowerProgram *p, const IrNode *group,
                          const char *name, const char **why);

/* Scalars that static shapes decide (kernels/decide_scalar.c). A lookup
 * gives the value of an int or bool: the program's compile-time values,
 * then what its pass decided so far (decided may be NULL). */
typedef struct ScalarLookup {
    const LowerProgram *p;
    bool (*decided)(void *ctx, const IrValue *v, int64_t *out);
    void *ctx;
} ScalarLookup;
/* The int or bool n computes, when the shapes of its inputs and the
 * decided scalars fix it: dim, size, len, numel of a tensor of static
 * shape; __contains__, comparisons, __not__ of decided numbers. */
bool kernels_decide_scalar(const ScalarLookup *lk, const IrNode *n, int64_t *out);
/* The int or bool v holds by the lookup (a compile-time value, or one its
 * pass decided), never a tensor. */
bool kernels_lookup_scalar(const ScalarLookup *lk, const IrValue *v, int64_t *out);
/* Shape inference's general rule (kernels/shape_eval.c): a node run on the
 * evaluator with stand-in tensors of its inputs' static shapes and dtypes.
 * One ShapeEval per graph and inference. */
typedef struct ShapeEval ShapeEval;
/* inputs: the bound inputs the program is specialized to (one per graph
 * input; borrowed, may be NULL), the last stand-ins tried. */
ShapeEval *shape_eval_new(IrGraph *g, RtValue **inputs, int ninputs);
void shape_eval_free(ShapeEval *se);
/* n's results run on stand-ins (outs[k]: new references, one per output of
 * n), or false when n may not or cannot be evaluated so: an op whose result
 * shapes depend on values, an op that writes, an input with no static
 * shape or value, an op that fails on stand-ins, too much work. */
bool shape_eval_node(ShapeEval *se, const ScalarLookup *lk, IrNode *n, RtValue **outs);
/* A graph rewrite offered one node (after the nodes of its blocks): the
 * number of rewrites it made there (0: node left as it was). It may
 * replace or remove node, and add nodes before it or before its loop. */
typedef int (*KernelsRewrite)(LowerProgram *p, IrNode *node);
/* Offers every node of p's graph to rewrite, nested blocks included, in
 * program order; then grows p's tables to the new values. Returns the
 * rewrites made (kernels/pass_util.c). */
int kernels_rewrite_each(LowerProgram *p, KernelsRewrite rewrite);
/* Whether v is defined outside `loop` (before it, or in an outer block). */
bool kernels_outside_loop(const IrValue *v, const IrNode *loop);
/* Puts every node of b (and of its nested blocks) after the nodes whose
 * values it reads, keeping the order of nodes that need no move: a stable
 * repair of program order after a rewrite moved a definition past a use.
 * The graph must be acyclic. */
void kernels_restore_def_order(IrBlock *b);
/* The top-level node that holds n (the loop around it, or n itself): where
 * a pass puts the compile-time values it makes, with the program's other
 * constants (inside a loop's body the lowering would take them for the
 * body's own work). */
IrNode *kernels_top_anchor(IrNode *n);
/* A new int (bool when as_bool) prim::Constant at the top level before the
 * top-level node holding `at`, a compile-time value of p. */
IrValue *kernels_scalar_constant(LowerProgram *p, IrNode *at, int64_t v, bool as_bool);

/* One entry of the pass table (kernels/passes.c): a pass that rewrites
 * (its count is not needed), or one that may fail (run: false after a
 * message to err, *status set), and when it runs (wanted NULL: always).
 * kernels_run_pass_table runs the entries of `stage` in order, as
 * kernels_run_passes does with the kernels' own table (a test runs one of
 * its own). */
typedef struct KernelsPass {
    const char *name;
    KernelsStage stage;
    bool (*wanted)(const KernelsPassOptions *o);
    int (*rewrite)(LowerProgram *p);
    bool (*run)(LowerProgram *p, const KernelsPassOptions *o, FILE *err, int *status);
} KernelsPass;
KernelsPassResult kernels_run_pass_table(LowerProgram *p, const KernelsPass *table, int npasses,
                                         KernelsStage stage, const KernelsPassOptions *o,
                                         FILE *err, int *status);

void kir_print_prelude(TextBuf *t, KirTarget target);
/* How many calls of the math library's vectorized functions (exp, log,
 * tanh, ..., pow: the prelude's list) an op table template makes per
 * element: "(T)1 / ((T)1 + EXP(-$0))" makes 1. */
int kir_math_calls(const char *template_text);
void kir_print_kernel(TextBuf *t, const KKernel *k, KirTarget target);
/* The CUDA threads output o of k launches: one per element, or one per row
 * of its last dim when it reduces along it (a softmax: the row's max and
 * sum once per row, not once per element); 0 when o has no kernel of its
 * own (empty, or an earlier same-shaped elementwise output's kernel
 * writes it: what the printer prints is what the cuda backend launches). */
int64_t kir_cuda_threads(const KKernel *k, int o);

#endif
