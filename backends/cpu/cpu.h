/* cpu.h — private interface of the cpu backend (--backend=cpu).
 *
 * Planning and executing are separate steps: cpu_plan holds what is decided
 * before anything runs (the lowered program and its static schedule with
 * channel buffer sizes); cpu_execute runs a plan once on inputs. Later
 * executors (OpenMP, MPI, CUDA) take the same plan.
 */
#ifndef TSSA_CPU_H
#define TSSA_CPU_H

#include "tssa/backend.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"

typedef struct CpuPlan {
    LowerProgram *program;  /* owned */
    Schedule *schedule;     /* owned */
} CpuPlan;

/* Runs one steady state of the plan (one run of the program: every lowered
 * filter fires once per steady state) after its init phase. stream_inputs
 * are the items the stream's input pushes, in order; the items the stream's
 * output pops are returned in *items (new references, *nitems of them).
 * False after reporting a failure to err. */
bool cpu_execute(const CpuPlan *plan, RtValue **stream_inputs, int ninputs, RtValue ***items,
                 int *nitems, FILE *err);

#endif
