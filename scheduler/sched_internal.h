/* sched_internal.h — the passes of the scheduler and what they hand each
 * other (private to scheduler/). sched_build (schedule.c) runs them in order:
 *   sched_solve_rates      balance equations per container, bottom-up
 *   sched_repetitions      the repetition vector of the flat view
 *   sched_init_firings     init firings from the peeks and enqueued items
 *   sched_simulate         init phase, then steady phase, by simulation
 */
#ifndef TSSA_SCHED_INTERNAL_H
#define TSSA_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/schedule.h"
#include "tssa/stream.h"

/* Per node id (arrays sized by the graph's node count). A node's "local
 * steady state" is the least balanced firing of its own children and its
 * splitter and joiner; a filter's is one firing. */
typedef struct SchedRates {
    int64_t *items_in;      /* items consumed per local steady state */
    int64_t *items_out;     /* items produced per local steady state */
    int64_t *local;         /* local steady states per parent's local steady state */
    int64_t *split_firings; /* splitter firings per local steady state (0: null splitter) */
    int64_t *join_firings;  /* joiner firings per local steady state (0: null joiner) */
    int64_t *global;        /* local steady states per steady state of the root */
} SchedRates;

bool sched_solve_rates(const StreamNode *root, SchedRates *r, FILE *err);
void sched_rates_free(SchedRates *r);

/* Firings per steady state of every actor (items for input and output), and
 * a check that every channel is balanced and its traffic fits in 64 bits. */
bool sched_repetitions(const StreamFlat *f, const SchedRates *r, int64_t *reps, FILE *err);

/* The least init firings that leave every channel with at least peek - pop
 * items for its consumer, counting the enqueued items of feedback loops.
 * A feedback loop that can never hold enough is a deadlock error naming it. */
bool sched_init_firings(const StreamFlat *f, const int64_t *reps, int64_t *init, FILE *err);

typedef enum SimResult {
    SIM_DONE,
    SIM_STUCK,      /* some actor could not complete its firings */
    SIM_TOO_LONG,   /* more phases than the limit */
} SimResult;

typedef struct PhaseList {
    SchedPhase *phases;
    int n, cap;
} PhaseList;

/* Fires every actor a remaining[a] more times, from the fills in fill[], in
 * the phase order of schedule.h, counting remaining[], fill[] down and up
 * in place; raises max_fill[c] to the most items channel c holds; appends
 * the phases to out. On SIM_STUCK or SIM_TOO_LONG, *culprit is an actor
 * where it happened (remaining[] tells which actors could not finish). */
SimResult sched_simulate(const StreamFlat *f, int64_t *remaining, int64_t *fill, int64_t *max_fill,
                         int max_phases, PhaseList *out, int *culprit);

/* The innermost feedback loop around actor a (or the loop a splitter or
 * joiner belongs to), or NULL. */
const StreamNode *sched_enclosing_loop(const StreamFlat *f, int a);

#endif
