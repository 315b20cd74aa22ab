/* backend.h — runtime values, input binding, and the backends that run a graph.
 *
 * An RtValue is what flows along a graph edge at run time: a tensor, a Python
 * scalar, a string, None, a device or dtype, a list or tuple of values, or a
 * module object (the %self input, resolved through the weights file).
 * RtValues are reference counted; lists are mutable (aten::append) and shared
 * by reference, as in TorchScript.
 *
 * The driver's sequence for running a graph:
 *   bindings_resolve()  NAME=VALUE strings + weights -> one RtValue per graph input
 *   backend_ref_run()   runs the graph, op by op (the oracle)
 *   outputs_write()     flattens the results to DIR/out0.npy, out1.npy, ...
 */
#ifndef TSSA_BACKEND_H
#define TSSA_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/ir.h"
#include "tssa/tensor.h"

typedef struct Safetensors Safetensors;

typedef enum RtKind {
    RT_NONE,
    RT_TENSOR,
    RT_INT,
    RT_FLOAT,
    RT_BOOL,
    RT_STR,
    RT_DEVICE,      /* s holds "cpu", "cuda:0" */
    RT_LIST,
    RT_TUPLE,
    RT_OBJECT,      /* a module: its dotted path in the weights file */
    RT_UNINIT,      /* prim::Uninitialized */
} RtKind;

typedef struct RtValue RtValue;
struct RtValue {
    int refcount;
    RtKind kind;
    union {
        Tensor *t;
        int64_t i;      /* RT_INT, RT_BOOL */
        double f;
        char *s;        /* RT_STR, RT_DEVICE, RT_OBJECT (dotted path, "" for the root) */
        struct {
            RtValue **items;
            int n, cap;
        } list;         /* RT_LIST, RT_TUPLE */
    } u;
};

RtValue *rt_none(void);
RtValue *rt_tensor(Tensor *t);          /* takes a new reference to t */
RtValue *rt_int(int64_t v);
RtValue *rt_float(double v);
RtValue *rt_bool(bool v);
RtValue *rt_str(const char *s);
RtValue *rt_list(RtKind kind /* RT_LIST or RT_TUPLE */, int n, RtValue **items); /* retains items */
RtValue *rt_retain(RtValue *v);
void rt_release(RtValue *v);            /* NULL is fine */
void rt_print(FILE *out, const RtValue *v);     /* short summary: "Tensor float32[2, 3]" */

/* Resolves the command-line bindings ("x=in.npy", "n=3", "flag=true") and the
 * weights file against the graph's inputs. Fills inputs[0..ninputs-1] (one per
 * graph input, in order; the caller releases them). On a missing or extra
 * input, an unreadable file, a value that does not fit the input's type
 * (a float for an int, a tensor whose dtype or rank contradicts a refined
 * type) or a module input without --weights: writes a message naming the
 * input to err and returns false (the driver exits 2). */
bool bindings_resolve(IrGraph *g, int nbind, char **bind, const char *weights_path,
                      RtValue ***inputs, int *ninputs, Safetensors **weights, FILE *err);

/* Runs g on inputs with PyTorch's imperative semantics (aliasing exact).
 * On success fills outputs (the caller releases them) and returns 0. On a
 * runtime failure (missing op, bad shapes, prim::RaiseException) writes
 * "FILE:LINE: error: OP: WHAT" naming the node and its source line to err
 * and returns 1. Inputs are not consumed; tensors bound as inputs may be
 * mutated, as PyTorch would mutate them. */
int backend_ref_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err);

/* Runs g on inputs on the cpu backend (backends/cpu): functionalizes and
 * specializes g to the inputs, lowers it to a stream graph, schedules it
 * statically and runs the schedule with the planned channel buffers. Same
 * contract as backend_ref_run (g itself is not changed). */
int backend_cpu_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err);

/* Writes outputs flattened (tuples and lists in order, recursively) as
 * DIR/out0.npy, DIR/out1.npy, ...; ints as 0-d int64, floats as 0-d float64,
 * bools as 0-d bool. Creates DIR if needed. Values that cannot be written
 * (strings, None, modules) are an error naming the output, reported before any
 * file is written. Returns false after writing a message to err. */
bool outputs_write(const char *dir, RtValue **outputs, int noutputs, FILE *err);
/* Prints a one-line summary per flattened output (no -o). */
void outputs_summarize(FILE *out, RtValue **outputs, int noutputs);

#endif
