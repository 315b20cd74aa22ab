/* backend.h — the executors: each is handed what the compiler decided and
 * runs it. A backend never parses, functionalizes, lowers or schedules.
 *
 *   backend_ref_run   the oracle: the original imperative graph, op by op,
 *                     with PyTorch's semantics (aliasing exact)
 *   backend_cpu_run   a scheduled plan (the lowered stream graph and its
 *                     static schedule), its filters fired in schedule order
 *                     with channel buffers sized by the scheduler
 *
 * Both take the bound inputs (one RtValue per graph input, as
 * bindings_resolve gives them; not consumed) and on success fill outputs
 * (one per graph output; the caller releases them) and return 0. On a
 * runtime failure they write "FILE:LINE: error: OP: WHAT", naming the node
 * and its source line, to err and return 1.
 */
#ifndef TSSA_BACKEND_H
#define TSSA_BACKEND_H

#include <stdio.h>

#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/value.h"

/* Runs g on inputs with PyTorch's imperative semantics. Tensors bound as
 * inputs may be mutated, as PyTorch would mutate them. */
int backend_ref_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err);

/* What the compiler hands an executor: the lowered program (its stream
 * graph, the functional IR its filters run and the compile-time values) and
 * the static schedule of that stream graph. Executors only read it, so one
 * plan can be run many times. */
typedef struct ExecPlan {
    const LowerProgram *program;
    const Schedule *schedule;
    KernelProgram *kernels;     /* compiled fusion groups, or NULL: interpret them */
} ExecPlan;

/* Runs the plan once on the bound inputs of the graph it was compiled from
 * (the same inputs it was specialized to). */
int backend_cpu_run(const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err);

#endif
