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
/* A phased actor (stream.h: StreamPhasing) counts phases in remaining[]
 * (its firings times its phases) and fires one phase per entry step;
 * phase_done[a] counts the phases it fired so far (kept by the caller
 * across the init and steady phases), which says which phase comes next. */
SimResult sched_simulate(const StreamFlat *f, int64_t *remaining, int64_t *fill, int64_t *max_fill,
                         int64_t *phase_done, int max_phases, PhaseList *out, int *culprit);

/* The innermost feedback loop around actor a (or the loop a splitter or
 * joiner belongs to), or NULL. */
const StreamNode *sched_enclosing_loop(const StreamFlat *f, int a);

/* A channel that moves items (the external input and output of a graph
 * that neither reads nor writes have push or pop 0). */
static inline bool sched_carries_items(const StreamChannel *c)
{
    return c->push > 0 && c->pop > 0;
}

/* The schedule outputs show the external input and output actors only when
 * they carry items; every other actor is shown. */
static inline bool sched_actor_shown(const StreamFlat *f, int a)
{
    const StreamActor *actor = &f->actors[a];
    if (actor->kind == ACTOR_INPUT)
        return sched_carries_items(&f->channels[actor->out[0]]);
    if (actor->kind == ACTOR_OUTPUT)
        return sched_carries_items(&f->channels[actor->in[0]]);
    return true;
}

/* Items the graph reads from its input and writes to its output per steady
 * state (the repetitions of the external actors; 0 where there is none). */
static inline void sched_external_items(const Schedule *s, int64_t *in_items, int64_t *out_items)
{
    const StreamFlat *f = s->flat;
    *in_items = *out_items = 0;
    for (int a = 0; a < f->nactors; a++) {
        if (f->actors[a].kind == ACTOR_INPUT)
            *in_items = s->repetitions[a];
        if (f->actors[a].kind == ACTOR_OUTPUT)
            *out_items = s->repetitions[a];
    }
}

/* Fills s->actor_rank and actor_seconds from the filters' ranks
 * (partition.c): splitters and joiners with their container's first
 * filter, the input and output on rank 0. */
void sched_rank_actors(Schedule *s, int nranks, const PartitionOptions *o);

/* The size in bytes of one item of every channel of s (partition.c; 0 where
 * unknown), and the bytes every firing of a channel's consumer receives
 * beside its items (a loop's weights); the caller frees the array. */
double *sched_item_bytes(const Schedule *s);
/* A channel's bytes per steady state, given sched_item_bytes' array. */
double sched_channel_bytes(const Schedule *s, const double *item_bytes, int channel);
/* Whether a channel's items travel in messages when its ends are on
 * different ranks: not those every rank makes itself, nor the rows of
 * results each rank keeps until they are written (Schedule.replicated,
 * Schedule.owned_tail). */
bool sched_channel_messaged(const Schedule *s, const StreamChannel *ch);

/* The cost model's prediction of a placed schedule (predict.c): fills
 * s->predicted from the actors' ranks and estimates (sched_rank_actors) and
 * o's rates; latency_s is the partitioner's L for this placement, or < 0
 * to derive it from the placement (predict.c says how). */
void sched_predict(Schedule *s, const PartitionOptions *o, double latency_s);

/* Schedule.replicated and Schedule.owned_tail of a flat view
 * (scheduler/replicate.c): per actor, malloc'd. */
bool *sched_replicated_actors(const StreamFlat *f);
unsigned char *sched_owned_tail_actors(const StreamFlat *f);

#endif
