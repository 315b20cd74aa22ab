/* eval_internal.h — private interface of the evaluator (eval/), the op
 * semantics every executor of IR shares (see include/tssa/eval.h).
 *
 * The node runner (interp.c) walks a block's nodes in order. For every
 * node it gathers the RtValues of the inputs, looks the node's OpId up in the
 * binding table (dispatch.c) and calls the binding with an EvalCall: the
 * arguments (borrowed) and the output slots the binding fills with new
 * references. A binding that fails returns false after describing the
 * problem with eval_fail(), or leaves the message of the tensor kernel that
 * failed (tensor_last_error()); the interpreter adds the node kind and its
 * source line.
 *
 * Bindings are grouped by family, one file each (scalar_ops.c, ops_str.c,
 * ops_creation.c, ops_view.c, ops_elementwise.c, ops_math.c, ops_special.c,
 * ops_reduce.c, ops_stats.c, ops_index.c, ops_shape_index.c, ops_nn.c,
 * ops_pool_norm.c, ops_resample.c, ops_loss.c, ops_linalg*.c, ops_random.c, module.c, ...;
 * each op's row in include/tssa/ops.h names its binding); args.c holds the argument decoding and the call
 * shapes they share, so that every binding reads like its TorchScript schema.
 */
#ifndef TSSA_EVAL_INTERNAL_H
#define TSSA_EVAL_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tssa/eval.h"
#include "tssa/io.h"
#include "tssa/util.h"
#include "tssa/value.h"

/* ---------------------------------------------------------------- runs */

/* The state of one NodeExec: a value slot per IrValue. */
typedef struct EvalRun {
    IrGraph *graph;
    const Safetensors *weights;
    RtValue **slots;        /* current value of each IrValue, by id */
    RtValue **constants;    /* tensor constants, cloned once per run, by node id */
    char *message;          /* what went wrong in the failing op (malloc'd) */
    FILE *err;              /* where warnings (aten::warn) go */
    const char *backend;    /* who is running, for messages: "ref", "cpu" */
    /* immut::<view>_rev writes into its first argument instead of a copy
     * (node_exec_node_in_place: the caller owns that tensor alone). */
    bool write_in_place;
    /* Runs tssa::FusionGroup nodes as compiled kernels (node_exec_set_group_runner). */
    NodeExecGroupRunner group_runner;
    void *group_ctx;
    /* Offered every node before the evaluator runs it (node_exec_set_node_runner). */
    NodeExecNodeRunner node_runner;
    void *node_ctx;
    /* Copies tensors where their data is (node_exec_set_cloner). */
    NodeExecCloner cloner;
    void *cloner_ctx;
    /* Module attributes this run assigned with prim::SetAttr (module.c):
     * a later prim::GetAttr of the same dotted path reads them instead of
     * the weights file. They live as long as the run's NodeExec: every run
     * starts from the weights file (README: module state). */
    struct EvalAssignedAttr *assigned;
    int nassigned, assigned_cap;
} EvalRun;

/* The marker object of a grad-mode scope (grad_scope.c). */
bool eval_is_grad_scope_object(const RtValue *v);
/* Forgets the attributes run assigned (node_exec_free). */
void eval_assigned_attrs_free(EvalRun *run);

/* Counts op as run (eval/op_tally.c). */
void eval_tally_op(OpId op);

/* One call of a binding: the node, its arguments and its results. */
typedef struct EvalCall {
    EvalRun *run;
    IrNode *node;
    RtValue **args;         /* borrowed, one per node input */
    int nargs;
    RtValue **outs;         /* the binding stores a new reference in each */
    int nouts;
    unsigned taken;         /* bit i: the binding took argument i (eval_arg_take) */
} EvalCall;

typedef bool (*EvalOpFn)(EvalCall *c);

/* The binding of op, or NULL (dispatch.c). */
EvalOpFn eval_binding(OpId op);
/* Runs c->node's op: its binding, or for an in-place op without one, its
 * functional variant followed by a checked copy into self. False with a
 * message when the op is not supported or fails. */
bool eval_dispatch(EvalCall *c);

/* The value of a prim::Constant node (constants.c). */
bool eval_constant(EvalCall *c);

/* Runs one node (If and Loop with their blocks) on run's slots: its outputs
 * land in run->slots. On failure reports "FILE:LINE: error: KIND: WHAT" to
 * err (once, by the innermost failing node) and returns false. */
bool eval_node_run(EvalRun *run, IrNode *n, FILE *err);
/* Runs every node of b in order, then checks that its results have values. */
bool eval_block_run(EvalRun *run, IrBlock *b, FILE *err);

/* Records the message of the failing op; always returns false. */
bool eval_fail(EvalCall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The failure of an op the evaluator has no binding for: names the backend
 * that was running and the kinds of the arguments it was called with. */
bool eval_fail_unimplemented(EvalCall *c);
/* Records the tensor kernel's last error (or `fallback` if it left none). */
bool eval_fail_kernel(EvalCall *c, const char *fallback);

/* ---------------------------------------------------------------- arguments */
/* Each decoder checks the kind of args[i] and fails with a message naming the
 * argument when it does not fit. Tensors come back borrowed. */

bool eval_nargs(EvalCall *c, int lo, int hi);
bool eval_arg_tensor(EvalCall *c, int i, Tensor **t);
bool eval_arg_tensor_opt(EvalCall *c, int i, Tensor **t);        /* None -> NULL */
bool eval_arg_int(EvalCall *c, int i, int64_t *v);                /* int or bool */
bool eval_arg_int_opt(EvalCall *c, int i, int64_t *v, bool *present);
bool eval_arg_double(EvalCall *c, int i, double *v);              /* any number */
bool eval_arg_double_opt(EvalCall *c, int i, double *v, bool *present);
/* The arguments after self of var/std and var_mean/std_mean, in every
 * overload: (bool unbiased) / (int[1]? dim, bool unbiased, bool keepdim) /
 * (int[1]? dim, *, Scalar? correction, bool keepdim). Defaults: all dims,
 * correction 1, keepdim false. */
bool eval_args_var(EvalCall *c, int64_t dims[TENSOR_MAX_DIMS], int *ndims, double *correction,
                   bool *keepdim);
bool eval_arg_bool(EvalCall *c, int i, bool *v);
bool eval_arg_bool_opt(EvalCall *c, int i, bool *v, bool *present);
bool eval_arg_str(EvalCall *c, int i, const char **s);
bool eval_arg_str_opt(EvalCall *c, int i, const char **s);       /* None -> NULL */
/* int[] (or a single int, which stands for a one-element list); at most cap. */
bool eval_arg_ints(EvalCall *c, int i, int64_t *buf, int cap, int *n);
bool eval_arg_ints_opt(EvalCall *c, int i, int64_t *buf, int cap, int *n, bool *present);
/* int[N] for N = 1 or 2 spatial dims: a one-element list repeats. */
bool eval_arg_ints_fixed(EvalCall *c, int i, int64_t *buf, int n);
/* ScalarType? -> TensorDType, -1 for None. */
bool eval_arg_dtype_opt(EvalCall *c, int i, int *dt);
/* A Tensor or a Python number as a tensor (numbers become wrapped-number
 * 0-d tensors, so type promotion matches PyTorch). New reference. */
bool eval_arg_operand(EvalCall *c, int i, Tensor **t);
/* Tensor[] / Tensor?[]: a malloc'd array of borrowed tensors (NULL for None
 * when optional). */
bool eval_arg_tensor_list(EvalCall *c, int i, bool optional, Tensor ***ts, int *n);
bool eval_arg_list(EvalCall *c, int i, RtValue **list);          /* borrowed list */

bool eval_is_tensor(const EvalCall *c, int i);
bool eval_is_none(const EvalCall *c, int i);
RtKind eval_kind(const EvalCall *c, int i);
/* Type of output i as written in the graph. */
const IrType *eval_out_type(const EvalCall *c, int i);

/* Stores a result; takes the caller's reference. A NULL tensor means the
 * kernel failed: returns false with its message. */
bool eval_out_tensor(EvalCall *c, int i, Tensor *t);
/* Stores ts[0..n) as outputs 0..n-1 (ops with several results); takes all n
 * references, releasing those not stored when one store fails. */
bool eval_out_tensors(EvalCall *c, Tensor *const *ts, int n);
bool eval_out_value(EvalCall *c, int i, RtValue *v);
/* True when argument i is the node's to consume: the slot holds the value's
 * only reference, every other use of its IR value has run (an earlier node
 * of this node's block, or inside one), and this node is not in a loop
 * body that the value is defined outside of (the next iteration reads it
 * again). A binding may then reuse it for its result instead of copying it
 * (a functional list append in a loop, ys = ys + [y], or a push with
 * l.insert(len(l), v), stays linear, not quadratic). */
bool eval_arg_owned(const EvalCall *c, int i);
/* eval_arg_owned, and when true the binding takes argument i for its result:
 * the interpreter then drops the argument's slot after the call (nothing
 * reads it again), so a second write in place to the same list in the same
 * iteration (an insert, then a pop) finds it owned too. */
bool eval_arg_take(EvalCall *c, int i);
/* Output i is input j itself (in-place ops return self). */
bool eval_out_arg(EvalCall *c, int i, int j);

/* Output 0 is self (input 0) after an in-place kernel that returned `done`;
 * when it failed, the kernel's message (or `fallback`). */
bool eval_out_self(EvalCall *c, bool done, const char *fallback);
/* Output 0 is copy, a copy of self that an in-place kernel wrote into
 * (`done` when it succeeded); on failure copy (or NULL) is released and the
 * kernel's message (or `fallback`) reported. */
bool eval_out_written_copy(EvalCall *c, Tensor *copy, bool done, const char *fallback);
/* Output 0 is a list of the n tensors: takes their references, frees ts. */
bool eval_out_tensor_list(EvalCall *c, Tensor **ts, int n);

/* Converts a Python number to the graph's declared result type (int, float,
 * bool or number) of output i; NULL after eval_fail for an unrepresentable int. */
RtValue *eval_number_for_output(EvalCall *c, int i, double v, bool is_int, int64_t iv);

/* ---------------------------------------------------------------- call shapes */
/* Whole bindings for schemas that many ops share: each checks the argument
 * count, decodes the arguments, calls fn and stores its tensor as output 0,
 * so that a binding is one line naming its kernel. */

typedef Tensor *(*EvalTensorPairFn)(const Tensor *, const Tensor *);
typedef Tensor *(*EvalTensorIntsFn)(const Tensor *, int, const int64_t *);
/* The view kernels take self as non-const (the view shares its storage). */
typedef Tensor *(*EvalViewIntsFn)(Tensor *, int, const int64_t *);

/* (Tensor self, Tensor other) -> fn(self, other) */
bool eval_call_tensor_pair(EvalCall *c, EvalTensorPairFn fn);
/* (Tensor self, int[] list) -> fn(self, n, list) */
bool eval_call_tensor_ints(EvalCall *c, EvalTensorIntsFn fn);
bool eval_call_view_ints(EvalCall *c, EvalViewIntsFn fn);
/* Their decoding, for schemas that go on: (Tensor self, int[] list, ...)
 * with 2 to hi arguments; list holds TENSOR_MAX_DIMS entries. */
bool eval_args_tensor_ints(EvalCall *c, int hi, Tensor **self, int64_t *list, int *n);

#endif
