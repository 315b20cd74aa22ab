/* cpu.h — private interface of the cpu backend (--backend=cpu).
 *
 * The backend is handed an ExecPlan (backend.h): the lowered program and
 * its static schedule, decided before anything runs. cpu_execute runs the
 * schedule once (cpu_exec.c); each work filter's firing is cpu_fire
 * (fire.c), which runs the filter's IR region on the evaluator. Later
 * executors (OpenMP, MPI, CUDA) take the same plan.
 */
#ifndef TSSA_CPU_H
#define TSSA_CPU_H

#include "tssa/backend.h"
#include "tssa/eval.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/value.h"

/* Runs the init phase and one steady state of the plan (one run of the
 * program: every lowered filter fires once per steady state), firing work
 * filters on `values` (a clone of the program's compile-time values).
 * stream_inputs are the items the stream's input pushes, in order; the
 * items the stream's output pops are returned in *items (new references,
 * *nitems of them). False after reporting a failure to err. */
/* Outputs a run left to be taken later: the output actor's items that
 * come from another rank are not waited for; *items holds NULL where each
 * goes, and channels[k] is the channel of the k-th such hole (in order),
 * from[channel] its producer's rank. Rank 0 takes them once it has started
 * the next input set, so the ranks' stages overlap; MPI keeps a channel's
 * messages in order, so they are the right items. */
typedef struct CpuDeferred {
    int *channels;
    int n;
    int *from;
} CpuDeferred;

/* As above; with deferred not NULL, outputs from other ranks are deferred
 * (filled in *deferred) and the transport is not flushed (the caller
 * flushes after the last run). */
bool cpu_execute(const ExecPlan *plan, NodeExec *values, RtValue **stream_inputs, int ninputs,
                 RtValue ***items, int *nitems, CpuDeferred *deferred, FILE *err);

/* Fires w once on x: popped[0..] are the items it pops (borrowed),
 * pushed[0..lower_work_push(w)) receive new references to the items it
 * pushes. False after reporting a runtime failure to err (and nothing is
 * left in pushed). */
bool cpu_fire(NodeExec *x, const LowerWork *w, RtValue **popped, RtValue **pushed, FILE *err);

/* One phase of a phased loop Unstack or Stack (StreamPhasing in stream.h):
 * the iterations [first, first + count), `last` when it is the firing's
 * last phase; *state is what the filter keeps between its phases (NULL
 * before phase 0 and after the last; cpu_phase_state_free releases what a
 * failed run left). Other work ignores the phase. Pushes npush items. */
typedef struct CpuPhaseState CpuPhaseState;
/* Rows [lo, hi) of dim 0 of a loop's result that the owned tail
 * (Schedule.owned_tail) moves to rank 0 after a run, recorded by the
 * Stacks in firing order, which is the same on every rank: on rank 0 the
 * result and the rows rank `owner` computed (its items reached rank 0 as
 * placeholders, cpu_absent_item); on another rank the rows it computed
 * itself (tensor: the iteration's item, owner -1). */
typedef struct CpuRegion {
    RtValue *tensor;        /* a reference */
    int64_t lo, hi;
    int owner;
    bool row;               /* rows [lo, lo + 1) as one row (select_rev's) */
} CpuRegion;
typedef struct CpuRegions {
    CpuRegion *items;
    int n, cap;
} CpuRegions;
void cpu_regions_clear(CpuRegions *r);

/* The placeholder standing for the items rank `rank` made and kept (the
 * same value every time: compare pointers), and the rank a placeholder
 * stands for (-1 for any other value). */
RtValue *cpu_absent_item(int rank);
int cpu_absent_rank(const RtValue *v);

typedef struct CpuLoopPhase {
    int64_t first, count;
    bool last;
    CpuPhaseState **state;
    CpuRegions *regions;    /* a Stack records its rows here, or NULL */
    bool sends_rows;        /* a Stack on a rank other than 0: it keeps no result,
                             * only records its own iterations' rows for rank 0 */
} CpuLoopPhase;
bool cpu_fire_phase(NodeExec *x, const LowerWork *w, const CpuLoopPhase *ph, int64_t npush,
                    RtValue **popped, RtValue **pushed, FILE *err);
void cpu_phase_state_free(CpuPhaseState *st);

#endif
