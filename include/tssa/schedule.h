/* schedule.h — static (synchronous dataflow) schedules of stream graphs.
 *
 * sched_build plans how a stream graph runs, without running it:
 *   1. repetitions: the balance equations, solved hierarchically in exact
 *      rationals (each container relates its children's local steady states),
 *      give the least positive integer number of firings of every actor per
 *      steady state;
 *   2. init phase: the least firings that leave every peeking filter
 *      peek - pop extra items on its input (feedback loops start with their
 *      enqueued items), executed by simulation to check they can run;
 *   3. steady phase: one firing of the repetition vector, in a simulated
 *      phase order (below), which returns every channel to its fill after
 *      the init phase;
 *   4. buffers: each channel's size is the most items it holds at any point
 *      of the init phase and one steady phase.
 *
 * Phase order: the simulator fires the ready actor that comes first in the
 * flat view's topological order, as many times as it can at once, and
 * records (actor, firings). For a graph without feedback loops this is the
 * single-appearance schedule in topological order (every actor appears once
 * with all its firings: a filter later runs as one batched kernel); feedback
 * loops interleave their joiner, body, splitter and loop path as far as the
 * enqueued items allow. A turn of a feedback loop that leaves the loop's
 * channels as it found them is not written out again and again: one entry
 * SCHED_REPEAT says to run the entries of that turn again, so a loop that
 * turns a million times costs a few entries (a looped schedule).
 *
 * Errors name the stream: inconsistent rates ("splitjoin Equalizer: branch 2
 * produces 3 items for every 2 the joiner takes from it"), streams that are
 * not connected, counts that overflow 64 bits, and deadlocked feedback loops
 * (too few enqueued items to complete a steady state or to fill the peeks
 * inside the loop). A phase that would need more than max(2^22, 8 per
 * actor) entries even after folding is refused, naming the loop.
 *
 * Placement (rank, device per filter) lives on the filters themselves
 * (StreamFilter) and is printed from there.
 */
#ifndef TSSA_SCHEDULE_H
#define TSSA_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/stream.h"

/* One entry of a phase: `firings` consecutive firings of `actor`, or, when
 * actor is SCHED_REPEAT, "run the `span` entries before this one `firings`
 * more times" (those entries may hold repeats themselves, always wholly
 * inside the span). */
typedef struct SchedPhase {
    int actor;          /* index in the flat view, or SCHED_REPEAT */
    int span;           /* SCHED_REPEAT: how many entries back; else 0 */
    int64_t firings;    /* consecutive firings, or extra repetitions */
} SchedPhase;

#define SCHED_REPEAT (-1)

/* Calls fire(actor, firings, ctx) for every run of firings of phases[0..n-1]
 * in order, expanding the repeats. */
typedef void (*SchedFire)(int actor, int64_t firings, void *ctx);
void sched_phases_run(const SchedPhase *phases, int n, SchedFire fire, void *ctx);

/* What the cost model predicts for a placed schedule (scheduler/predict.c),
 * per steady state, in seconds: each rank's work (its filters' estimates)
 * and messages (those it receives and those it sends, each at the link's
 * latency per message plus bytes over its bandwidth); the latency L (one
 * steady state, start to end) and the bottleneck B (the busiest rank's
 * total); `sets` steady states back to back take L + (sets - 1) * B. The
 * rates are the ones the estimates used. known is false before placement. */
typedef struct SchedPrediction {
    bool known;
    double flops_per_s, bytes_per_s, math_per_s, firing_s, link_latency_s, link_bytes_per_s;
    int64_t sets;
    double latency_s, bottleneck_s;
    int nranks;
    double *rank_work_s, *rank_in_s, *rank_out_s;   /* [nranks] */
} SchedPrediction;

typedef struct Schedule {
    StreamNode *root;
    StreamFlat *flat;           /* owned */
    /* Per actor (flat view order). The input and output count items. */
    int64_t *repetitions;       /* firings per steady state */
    int64_t *init_firings;      /* firings in the init phase */
    /* Per channel. */
    int64_t *fill_after_init;   /* items at the start of every steady state */
    int64_t *buffer_size;       /* most items held at once */
    /* Per actor, from the flat view alone (scheduler/replicate.c): fired by
     * every rank that needs it (the input and what only moves and views its
     * items; no message carries them), and the owned tail (TAIL_*). */
    bool *replicated;
    unsigned char *owned_tail;
    SchedPhase *init;
    int ninit;
    SchedPhase *steady;
    int nsteady;
    /* Placement (sched_partition): the rank that fires each actor, for
     * nranks ranks; NULL before placement (everything on rank 0). */
    int nranks;
    int *actor_rank;
    double *actor_seconds;      /* estimated time per steady state, or NULL */
    char *placement_note;       /* why the placement is what it is, or NULL */
    SchedPrediction predicted;  /* the cost model's times (scheduler/predict.c) */
    char *device_note;          /* --devices N: the predicted speedup (sched_note_devices), or NULL */
    /* Hierarchical filters (StreamFilter.inner), in actor order: the actor
     * and its inner stream's own static schedule, built as this one is;
     * one steady state of it is one iteration of the filter's loop. */
    int ninner;
    int *inner_actor;
    struct Schedule **inner;
} Schedule;

/* A GPU's rates for the devices' cost model (scheduler/device_speedup.c),
 * as the backend knows them (BackendIface.gpu_rates). */
typedef struct GpuRates {
    double flops_per_s;         /* FP32 */
    double bytes_per_s;         /* device memory */
    double launch_s;            /* one firing's kernel launch */
    double link_bytes_per_s, link_latency_s;    /* between two GPUs */
    int gpus;                   /* GPUs the N devices are on */
    char source[160];           /* where the figures come from */
} GpuRates;

/* The steady state's predicted time with every filter on one device
 * (*one) and on the placement's ndevices devices over r->gpus GPUs
 * (*many: the busiest GPU's time). */
void sched_device_times(const Schedule *s, int ndevices, const GpuRates *r, double *one, double *many);
/* Sets s->device_note ("devices: N, predicted 1.9x ...", saying when the
 * devices are logical ones sharing fewer GPUs); nothing for N < 2.
 * one_s: the time on one device, from the schedule before the devices
 * split it (sched_device_times on it); <= 0: this schedule's, all on one. */
void sched_note_devices(Schedule *s, int ndevices, const GpuRates *r, double one_s);

/* Plans root (see above). On error writes a message naming the stream, the
 * channel or the loop ("FILE:LINE:COL: error: ..." when the graph came from
 * text) to err and returns NULL. */
Schedule *sched_build(StreamNode *root, FILE *err);
void sched_free(Schedule *s);

/* A readable table: the actors with path, kind, pop/peek/push, repetitions,
 * init firings and placement (rank, device; '-' when not placed), the init
 * and steady phases, then the channels with fills and buffer sizes. */
void sched_print_table(FILE *out, const Schedule *s);
/* The same content as one JSON object (schema in scheduler/schedule_json.c). */
void sched_print_json(FILE *out, const Schedule *s);

/* ---------------------------------------------------------------- fission */

/* Fission (scheduler/fission.c): a stateless filter that fires N times per
 * steady state becomes a round-robin split-join of min(k, N) copies of it,
 * named after it (F_fission holding F_0, F_1, ...), copy j firing
 * N/k + (j < N%k) times; the split-join takes the filter's place in its
 * parent. Eligible: a work or identity filter that is not stateful, does not
 * peek past its pops, pops or pushes items, fires N >= 2 times and is not
 * inside a feedback loop (fission.c says why). The graph's other actors keep
 * their repetitions. Schedules built before are stale afterwards (their
 * flat view describes the old tree): build a new one with sched_build. */
bool sched_fission_eligible(const StreamNode *filter, int64_t reps);
/* Schedule.owned_tail (scheduler/replicate.c): the actors between the work
 * and the output that only gather rows (movers, and loop Stacks whose
 * iterations each overwrite their own rows), before or after the Stacks.
 * Every rank fires them on the items it made itself, so no message carries
 * the rows of the results until they are written (the executor gathers
 * them after the run). */
enum { TAIL_NONE, TAIL_BEFORE_STACK, TAIL_AFTER_STACK };
/* Splits one filter firing `reps` times per steady state into k copies;
 * returns the copies made (0 when it is not eligible or k < 2). */
int sched_fission_filter(StreamNode *filter, int64_t reps, int k);
/* The same, returning the split-join that now stands in the filter's place
 * (its children are the copies, in order), or NULL. */
StreamNode *sched_fission_split(StreamNode *filter, int64_t reps, int k);
/* Splits every eligible filter of s->root, with the repetitions of s, into
 * k copies; returns how many filters were split. */
int sched_fission_all(const Schedule *s, int k);

/* ---------------------------------------------------------------- devices */

/* Devices for the cuda backend (scheduler/devices.c): every work filter
 * gets a device; with ndevices >= 2 each data-parallel work filter (one
 * fission may split) is fissioned into ndevices copies, copy j on device
 * j (its rank is the partitioner's, decided afterwards). Returns the
 * schedule of the new graph (s itself when nothing was split; else s is
 * freed), or NULL after writing why to err. */
Schedule *sched_place_devices(Schedule *s, int ndevices, FILE *err);
/* Where actor a runs, for the tables: "-" before placement, "cpu", or
 * "cuda:D" (a filter with a device; buf holds it). */
const char *sched_actor_device(const Schedule *s, int a, char *buf, size_t size);

/* ---------------------------------------------------------------- placement */

/* What the partitioner (scheduler/partition.c) weighs: the ranks, how many
 * input sets run back to back, the device's rates and the link's. */
typedef struct PartitionOptions {
    int nranks;
    int64_t sets;               /* >= 1 */
    double flops_per_s, bytes_per_s, math_per_s, firing_s;
    double link_latency_s, link_bytes_per_s;
    /* The rates of rank 0 alone, with the cores of its host's idle ranks
     * (what a placement on one rank runs with); 0: the rates above. */
    double alone_flops_per_s, alone_bytes_per_s, alone_math_per_s;
} PartitionOptions;

/* The estimated seconds of one firing of f (0 for data movers). */
double sched_firing_seconds(const StreamFilter *f, const PartitionOptions *o);
/* Places every actor of s on one of o->nranks ranks (partition.c says
 * how), fissioning the filters it spreads over ranks; returns the schedule
 * of the placed graph (s itself, or a new one after fission: s is freed),
 * with actor_rank and actor_seconds filled, or NULL (s freed) after
 * writing why to err. placement_note says why the partitioner chose what
 * it chose (NULL with one rank). */
Schedule *sched_partition(Schedule *s, const PartitionOptions *o, FILE *err);
/* --place FILE: the placement a user pins (scheduler/place_file.c has the
 * format). Fissions and places as the file says, every filter it does not
 * name on rank 0; returns the new schedule as sched_partition does, or
 * NULL after writing "FILE: error: ..." to err (*bad_file: the file's
 * fault, exit 2). Like sched_partition it consumes s. */
Schedule *sched_place_file(Schedule *s, const char *path, const PartitionOptions *o, FILE *err, bool *bad_file);

#endif
