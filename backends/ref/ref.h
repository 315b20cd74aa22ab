/* ref.h — private interface of the reference interpreter (--backend=ref).
 *
 * The interpreter (interp.c) walks the graph's blocks in order. For every
 * node it gathers the RtValues of the inputs, looks the node's OpId up in the
 * binding table (dispatch.c) and calls the binding with a RefCall: the
 * arguments (borrowed) and the output slots the binding fills with new
 * references. A binding that fails returns false after describing the
 * problem with ref_fail(), or leaves the message of the tensor kernel that
 * failed (tensor_last_error()); the interpreter adds the node kind and its
 * source line.
 *
 * Bindings are grouped by family, one file each (scalar_ops.c,
 * ops_creation.c, ops_view.c, ops_elementwise.c, ops_reduce.c, ops_index.c,
 * ops_nn.c, module.c); args.c holds the argument decoding they share, so
 * that every binding reads like its TorchScript schema.
 */
#ifndef TSSA_REF_H
#define TSSA_REF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tssa/backend.h"

/* ---------------------------------------------------------------- runs */

/* State of one backend_ref_run. */
typedef struct RefRun {
    IrGraph *graph;
    const Safetensors *weights;
    RtValue **slots;        /* current value of each IrValue, by id */
    RtValue **constants;    /* tensor constants, cloned once per run, by node id */
    char *message;          /* what went wrong in the failing op (malloc'd) */
    FILE *err;              /* where warnings (aten::warn) go */
} RefRun;

/* One call of a binding: the node, its arguments and its results. */
typedef struct RefCall {
    RefRun *run;
    IrNode *node;
    RtValue **args;         /* borrowed, one per node input */
    int nargs;
    RtValue **outs;         /* the binding stores a new reference in each */
    int nouts;
} RefCall;

typedef bool (*RefOpFn)(RefCall *c);

/* The binding of op, or NULL (dispatch.c). */
RefOpFn ref_binding(OpId op);
/* Runs c->node's op: its binding, or for an in-place op without one, its
 * functional variant followed by a checked copy into self. False with a
 * message when the op is not supported or fails. */
bool ref_dispatch(RefCall *c);

/* The value of a prim::Constant node (constants.c). */
bool ref_constant(RefCall *c);

/* Runs one node (If and Loop with their blocks) on run's slots: its outputs
 * land in run->slots. On failure reports "FILE:LINE: error: KIND: WHAT" to
 * err (once, by the innermost failing node) and returns false. */
bool ref_node_run(RefRun *run, IrNode *n, FILE *err);
/* Runs every node of b in order, then checks that its results have values. */
bool ref_block_run(RefRun *run, IrBlock *b, FILE *err);

/* Records the message of the failing op; always returns false. */
bool ref_fail(RefCall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records the tensor kernel's last error (or `fallback` if it left none). */
bool ref_fail_kernel(RefCall *c, const char *fallback);

/* ---------------------------------------------------------------- memory */

/* malloc and friends that stop with an internal error when memory runs out. */
void *ref_xmalloc(size_t n);
void *ref_xcalloc(size_t n, size_t size);
void *ref_xrealloc(void *p, size_t n);
char *ref_xstrdup(const char *s);

/* ---------------------------------------------------------------- values */

const char *rt_kind_name(RtKind kind);
RtValue *rt_device(const char *s);
RtValue *rt_object(const char *path);
RtValue *rt_uninit(void);
/* rt_tensor that takes over the caller's reference to t (NULL stays NULL). */
RtValue *rt_tensor_take(Tensor *t);
/* Appends item (retained) to a list. */
void rt_list_append(RtValue *list, RtValue *item);
/* True if v is an int, float or bool (a Python number). */
bool rt_is_number(const RtValue *v);
double rt_number(const RtValue *v);             /* int, float or bool as double */

/* A growing string for messages and Python-style formatting. */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
void sb_puts(StrBuf *sb, const char *s);
void sb_free(StrBuf *sb);

/* str() of a value as TorchScript prints it: floats as "1." or 17
 * significant digits, lists "[1, 2]", tuples "(1,)", bools "True", strings
 * unquoted even inside lists, tensors as ATen's C++ printer does. */
void rt_format_str(StrBuf *sb, const RtValue *v);
/* A tensor as ATen's operator<< prints it, ending "[ CPUFloatType{2} ]"
 * (tensor_repr.c). */
void tensor_format_repr(StrBuf *sb, const Tensor *t);
/* A float as TorchScript's str() spells it. */
void rt_format_float(StrBuf *sb, double v);

/* ---------------------------------------------------------------- arguments */
/* Each decoder checks the kind of args[i] and fails with a message naming the
 * argument when it does not fit. Tensors come back borrowed. */

bool ref_nargs(RefCall *c, int lo, int hi);
bool ref_arg_tensor(RefCall *c, int i, Tensor **t);
bool ref_arg_tensor_opt(RefCall *c, int i, Tensor **t);        /* None -> NULL */
bool ref_arg_int(RefCall *c, int i, int64_t *v);                /* int or bool */
bool ref_arg_int_opt(RefCall *c, int i, int64_t *v, bool *present);
bool ref_arg_double(RefCall *c, int i, double *v);              /* any number */
bool ref_arg_double_opt(RefCall *c, int i, double *v, bool *present);
bool ref_arg_bool(RefCall *c, int i, bool *v);
bool ref_arg_bool_opt(RefCall *c, int i, bool *v, bool *present);
bool ref_arg_str(RefCall *c, int i, const char **s);
bool ref_arg_str_opt(RefCall *c, int i, const char **s);       /* None -> NULL */
/* int[] (or a single int, which stands for a one-element list); at most cap. */
bool ref_arg_ints(RefCall *c, int i, int64_t *buf, int cap, int *n);
bool ref_arg_ints_opt(RefCall *c, int i, int64_t *buf, int cap, int *n, bool *present);
/* int[N] for N = 1 or 2 spatial dims: a one-element list repeats. */
bool ref_arg_ints_fixed(RefCall *c, int i, int64_t *buf, int n);
/* ScalarType? -> TensorDType, -1 for None. */
bool ref_arg_dtype_opt(RefCall *c, int i, int *dt);
/* A Tensor or a Python number as a tensor (numbers become wrapped-number
 * 0-d tensors, so type promotion matches PyTorch). New reference. */
bool ref_arg_operand(RefCall *c, int i, Tensor **t);
/* Tensor[] / Tensor?[]: a malloc'd array of borrowed tensors (NULL for None
 * when optional). */
bool ref_arg_tensor_list(RefCall *c, int i, bool optional, Tensor ***ts, int *n);
bool ref_arg_list(RefCall *c, int i, RtValue **list);          /* borrowed list */

bool ref_is_tensor(const RefCall *c, int i);
bool ref_is_none(const RefCall *c, int i);
RtKind ref_kind(const RefCall *c, int i);
/* Type of output i as written in the graph. */
const IrType *ref_out_type(const RefCall *c, int i);

/* Stores a result; takes the caller's reference. A NULL tensor means the
 * kernel failed: returns false with its message. */
bool ref_out_tensor(RefCall *c, int i, Tensor *t);
bool ref_out_value(RefCall *c, int i, RtValue *v);
/* Output i is input j itself (in-place ops return self). */
bool ref_out_arg(RefCall *c, int i, int j);

/* Converts a Python number to the graph's declared result type (int, float,
 * bool or number) of output i; NULL after ref_fail for an unrepresentable int. */
RtValue *ref_number_for_output(RefCall *c, int i, double v, bool is_int, int64_t iv);

/* ---------------------------------------------------------------- modules */

/* The tensor stored under `name` in the weights, or NULL (weights absent). */
Tensor *ref_weight(const RefRun *run, const char *name);

#endif
