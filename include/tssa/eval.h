/* eval.h — the evaluator: PyTorch's semantics for single IR nodes and
 * blocks, shared by everything that runs IR (the ref backend runs a whole
 * graph with it, the lowering evaluates a program's compile-time slice with
 * it, the cpu backend's firings run their filters' regions with it).
 *
 * A NodeExec holds one value slot per IrValue of its graph (by dense id).
 * The caller puts values into slots (node_exec_set), runs nodes or blocks,
 * reads results (node_exec_get) and clears the slots it no longer needs, so
 * that values reach a node only along the paths the caller chose (the cpu
 * backend: channels). prim::If and prim::Loop run their blocks with the
 * interpreter's semantics (eval/interp.c); every other op goes through the
 * op binding table (eval/dispatch.c), one binding per op family file.
 *
 * Aliasing is exact: a slot holds a reference to the very RtValue (and
 * Tensor) an op returned, so views made by one op and in-place writes made
 * by another share storage exactly as in PyTorch.
 *
 * Errors are reported as "FILE:LINE: error: KIND: WHAT", once, where the
 * failing node is (FILE:LINE from the node's source comment when it has one).
 */
#ifndef TSSA_EVAL_H
#define TSSA_EVAL_H

#include <stdbool.h>
#include <stdio.h>

#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/value.h"

typedef struct NodeExec NodeExec;

/* A context for nodes of g. Values g gets afterwards (a pass that adds
 * nodes) have slots too: set grows the table; get reads them as empty. */
NodeExec *node_exec_new(IrGraph *g, const Safetensors *weights, FILE *err);
void node_exec_free(NodeExec *x);
/* The backend running x, named in the message of an op it cannot run
 * (default "ref"; a static string). */
void node_exec_set_backend(NodeExec *x, const char *name);
/* Where failures and warnings go from now on (NULL: nowhere). */
void node_exec_set_err(NodeExec *x, FILE *err);

/* What runs a tssa::FusionGroup node (the kernels layer's compiled kernel):
 * returns 1 after filling outs[] (new references, one per group output)
 * from args[] (borrowed, one per group input), 0 to have the evaluator
 * interpret the group's block instead, -1 after writing why it failed to
 * err. */
typedef int (*NodeExecGroupRunner)(void *ctx, const IrNode *group, RtValue **args, RtValue **outs,
                                   FILE *err);
/* Installs the group runner (NULL: interpret every group); clones keep it. */
void node_exec_set_group_runner(NodeExec *x, NodeExecGroupRunner fn, void *ctx);

/* What may run nodes elsewhere (a device: the cuda backend). It is offered
 * every node before the evaluator runs it, except constants, Ifs and Loops
 * (their blocks' nodes are offered one by one), with the node's args
 * (borrowed); in_place says that the evaluator is about to write into
 * args[0]'s tensor (node_exec_node_in_place). Returns 1 after filling outs[]
 * (new references, one per output), 0 to have the evaluator run the node
 * (a fused group then goes to the group runner), -1 after recording why it
 * failed with tensor_set_error (the evaluator reports it as the node's
 * failure, with its source line). Clones keep it. */
typedef int (*NodeExecNodeRunner)(void *ctx, const IrNode *n, RtValue **args, RtValue **outs,
                                  bool in_place);
void node_exec_set_node_runner(NodeExec *x, NodeExecNodeRunner fn, void *ctx);
/* What copies a tensor where its data is (a device: the cuda backend's
 * device-to-device copy), for the executor's own copies (a loop's written
 * result, planned as a copy of its initial value): a new reference, or NULL
 * to have the host copy it. With copy_contents false it only makes a tensor
 * of v's sizes and dtype there (its elements unset: a loop that writes
 * every row of it). Clones keep it. */
typedef RtValue *(*NodeExecCloner)(void *ctx, const RtValue *v, bool copy_contents);
void node_exec_set_cloner(NodeExec *x, NodeExecCloner fn, void *ctx);
/* A copy of tensor value v that only the caller holds: the cloner's, else
 * a host copy; NULL (with tensor_last_error) when memory runs out. */
RtValue *node_exec_clone_tensor(NodeExec *x, const RtValue *v);
/* A tensor of v's sizes and dtype, where v's data is, its elements unset
 * (to be overwritten whole); NULL when memory runs out. */
RtValue *node_exec_tensor_like(NodeExec *x, const RtValue *v);

/* Tensor ops the evaluator has run since the last reset, in every context
 * and thread (eval/op_tally.c): library ops (GEMMs, convolutions: OpenBLAS
 * calls), views, and the rest (the reference kernels). A fused group's
 * kernel is not among them. */
typedef struct EvalTally {
    int64_t library;
    int64_t reference;          /* kernels that compute (not views) */
    int64_t views;              /* views: a header on the same data */
} EvalTally;
/* The seed of every random op's draws (eval/ops_random.c; the driver's
 * --seed, default 0): the same seed gives the same numbers on every backend,
 * placement and rank count. */
void eval_set_random_seed(uint64_t seed);
uint64_t eval_random_seed(void);

void eval_tally_reset(void);
EvalTally eval_tally(void);

/* Stores value (takes the caller's reference) as v's current value. */
void node_exec_set(NodeExec *x, const IrValue *v, RtValue *value);
/* v's current value (borrowed), or NULL. */
RtValue *node_exec_get(const NodeExec *x, const IrValue *v);
/* Drops v's current value. */
void node_exec_clear(NodeExec *x, const IrValue *v);
/* Drops the value of every output of n and of every value defined inside
 * its blocks. */
void node_exec_clear_node(NodeExec *x, const IrNode *n);

/* Runs n (its inputs must have values; values used inside its blocks too)
 * and stores its outputs. False after reporting the failure. */
bool node_exec_node(NodeExec *x, IrNode *n);
/* Runs n, an immut::<view>_rev write (x with a region replaced) or an
 * immut::list_set_item, into its first argument's tensor or list in place
 * instead of into a copy: the caller holds that value alone (a destination
 * it planned). n's output is that value. */
bool node_exec_node_in_place(NodeExec *x, IrNode *n);
/* Runs the nodes of b in order (its params must have values). */
bool node_exec_block(NodeExec *x, IrBlock *b);
/* The module attribute at dotted `path` ("backbone.0.weight"; "" is the
 * module itself) read as the graph declares it (`declared`: the type of the
 * prim::GetAttr result): a class type is a module (RT_OBJECT), a Tensor the
 * tensor of that name in the weights (None when Optional or recorded as
 * "None"), anything else the file's __metadata__ string parsed by the type
 * (an absent `training` is false). NULL with a malloc'd *why when the file
 * lacks it or it does not parse (weights may be NULL: no file given). The
 * semantics of prim::GetAttr, shared by the op and by the binding stage,
 * which checks every attribute a graph reads before anything runs. */
RtValue *eval_module_attribute(const Safetensors *weights, const char *path, const IrType *declared,
                               char **why);

/* A list or tuple written as JSON text ("[3,3]", "[0.5,true]"), read by
 * the type `declared` (a List or Tuple, nested, of int, float, bool, str
 * and Optional of them; null is None) with the rules of a container module
 * attribute. NULL when the text is not one JSON value with nothing after
 * it, or does not fit the type. The command line's list bindings. */
RtValue *eval_value_from_json(const char *text, const IrType *declared);

/* The name under which the weights file stores the module tensor at path:
 * path itself, or, for a tied tensor (metadata {"__tensor__": "OTHER"}),
 * OTHER. Two paths with the same name are the same tensor. Returns path
 * when weights is NULL; a result other than path is malloc'd in *owned. */
const char *eval_module_tensor_name(const Safetensors *weights, const char *path, char **owned);

/* prim::isinstance decided by a static type: 1 or 0 when a value of type t
 * is (is not) an instance of one of the `types` attribute's types, -1 when
 * only the run-time value can tell (Union, Optional, Any). eval/type_query.c. */
int eval_isinstance_static(const IrType *t, const IrAttr *types);

/* Whether t is the class of a grad-mode scope (torch.no_grad(),
 * enable_grad, set_grad_enabled, inference_mode), which a forward-only
 * runtime treats as a no-op (eval/grad_scope.c). */
bool eval_is_grad_mode_class(const IrType *t);

/* A new context for the same graph holding new references to every value
 * x holds now (a program's compile-time values, handed to an executor). */
NodeExec *node_exec_clone(const NodeExec *x);

#endif
