/* schedule.c — sched_build: the scheduler's passes, in order.
 *
 *   stream_check          containers have children, nesting is bounded
 *   sched_solve_rates     balance equations per container (repetitions.c)
 *   stream_flatten        actors and channels
 *   sched_repetitions     firings per steady state of every actor
 *   sched_init_firings    the init phase's firings (init_phase.c)
 *   sched_simulate        the init phase, then one steady phase, recording
 *                         their phase orders and every channel's largest fill
 *
 * After the steady phase every channel must hold what it held after the init
 * phase (the balance equations guarantee it; a difference is a bug, and
 * aborts). A simulation that cannot finish is a deadlock in a feedback loop;
 * one that needs too many entries (below) is refused with the loop named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/rational.h"
#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/schedule.h"
#include "tssa/util.h"

/* Phase lists longer than this, or than 8 entries per actor (per phase), are
 * refused: a feedback loop whose turns do not fold (simulate.c) and that
 * needs millions of them per steady state holds too few items. */
enum { MAX_PHASES = 1 << 22 };

/* A simulation stopped early: find the feedback loop to blame. */
static void report_stuck(const StreamFlat *f, const int64_t *remaining, const int64_t *fill, const char *phase,
                         int culprit, FILE *err)
{
    const StreamNode *loop = NULL;
    const StreamChannel *loop_channel = NULL;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (remaining[a] == 0 || actor->kind != ACTOR_JOINER || actor->node->kind != STREAM_FEEDBACKLOOP)
            continue;
        const StreamChannel *c = &f->channels[actor->in[1]];
        if (fill[actor->in[1]] >= c->peek)
            continue;
        if (!loop || stream_node_depth(actor->node) > stream_node_depth(loop)) {
            loop = actor->node;
            loop_channel = c;
        }
    }
    if (loop) {
        stream_node_error(err, loop,
                          "feedbackloop %s: deadlock in the %s phase: the joiner waits for items from the loop path "
                          "(it takes %lld per firing; %lld enqueued item%s); enqueue more items",
                          loop->name, phase, (long long)loop_channel->pop, (long long)loop_channel->initial,
                          loop_channel->initial == 1 ? "" : "s");
        return;
    }
    loop = sched_enclosing_loop(f, culprit);
    if (!loop)
        diag_die("scheduler: the %s phase is stuck outside any feedback loop", phase);
    stream_node_error(err, loop, "feedbackloop %s: deadlock in the %s phase: too few enqueued items (%lld)",
                      loop->name, phase, (long long)loop->enqueued);
}

static void report_too_long(const StreamFlat *f, const char *phase, int max_phases, int culprit, FILE *err)
{
    const StreamNode *loop = sched_enclosing_loop(f, culprit);
    const StreamNode *at = loop ? loop : f->root;
    stream_node_error(err, at,
                      "%s %s: the %s phase needs more than %d phases%s", stream_node_keyword(at), at->name, phase,
                      max_phases,
                      loop ? ": the loop path holds too few items for the loop's firings per steady state; enqueue more"
                           : "");
}

/* Every channel's fill stays within int64 through the init and one steady
 * phase if initial + (init + reps) * push fits. */
static bool check_traffic(const StreamFlat *f, const int64_t *reps, const int64_t *init, FILE *err)
{
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        int64_t firings, items;
        if (!add64(reps[ch->src], init[ch->src], &firings) || !mul64(firings, ch->push, &items) ||
            !add64(items, ch->initial, &items)) {
            const StreamNode *n = f->actors[ch->src].node;
            stream_node_error(err, n, "%s %s: the items on its output channel overflow 64 bits",
                              stream_node_keyword(n), n->name);
            return false;
        }
    }
    return true;
}

Schedule *sched_build(StreamNode *root, FILE *err)
{
    if (!stream_check(root, err))
        return NULL;
    SchedRates rates = {0};
    Schedule *s = xcalloc(1, sizeof *s);
    s->root = root;
    if (!sched_solve_rates(root, &rates, err))
        goto fail;
    StreamFlat *f = s->flat = stream_flatten(root);
    s->replicated = sched_replicated_actors(f);
    s->owned_tail = sched_owned_tail_actors(f);
    size_t nactors = (size_t)f->nactors, nchannels = (size_t)f->nchannels;
    s->repetitions = xcalloc(nactors, sizeof(int64_t));
    s->init_firings = xcalloc(nactors, sizeof(int64_t));
    s->fill_after_init = xcalloc(nchannels, sizeof(int64_t));
    s->buffer_size = xcalloc(nchannels, sizeof(int64_t));
    if (!sched_repetitions(f, &rates, s->repetitions, err) ||
        !sched_init_firings(f, s->repetitions, s->init_firings, err) ||
        !check_traffic(f, s->repetitions, s->init_firings, err))
        goto fail;

    int64_t *fill = xcalloc(nchannels, sizeof(int64_t));
    int64_t *remaining = xcalloc(nactors, sizeof(int64_t));
    for (size_t c = 0; c < nchannels; c++)
        fill[c] = s->buffer_size[c] = f->channels[c].initial;
    static const char *const phase_names[2] = {"init", "steady"};
    const int64_t *targets[2] = {s->init_firings, s->repetitions};
    PhaseList lists[2] = {{0}, {0}};
    int max_phases = f->nactors > MAX_PHASES / 8 ? 8 * f->nactors : MAX_PHASES;
    bool ok = true;
    int64_t *phase_done = xcalloc(nactors + 1, sizeof(int64_t));
    for (int phase = 0; phase < 2 && ok; phase++) {
        /* A phased actor counts phases (at most 2^40 of them: a loop's
         * trip count, per firing that fires once per steady state). */
        for (size_t a = 0; a < nactors; a++)
            remaining[a] = targets[phase][a] * stream_actor_phases(&f->actors[a]);
        int culprit = -1;
        SimResult result = sched_simulate(f, remaining, fill, s->buffer_size, phase_done, max_phases,
                                          &lists[phase], &culprit);
        if (result == SIM_STUCK)
            report_stuck(f, remaining, fill, phase_names[phase], culprit, err);
        else if (result == SIM_TOO_LONG)
            report_too_long(f, phase_names[phase], max_phases, culprit, err);
        ok = result == SIM_DONE;
        if (ok && phase == 0)
            memcpy(s->fill_after_init, fill, nchannels * sizeof(int64_t));
    }
    s->init = lists[0].phases;
    s->ninit = lists[0].n;
    s->steady = lists[1].phases;
    s->nsteady = lists[1].n;
    for (size_t c = 0; c < nchannels && ok; c++)
        if (fill[c] != s->fill_after_init[c])
            diag_die("scheduler: channel %zu holds %lld items after the steady phase, %lld before", c,
                     (long long)fill[c], (long long)s->fill_after_init[c]);
    free(fill);
    free(remaining);
    free(phase_done);
    if (!ok)
        goto fail;
    /* Hierarchical filters: their inner streams are scheduled on their own
     * (to this schedule each is one actor). */
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind != ACTOR_FILTER || !actor->node->filter.inner)
            continue;
        Schedule *inner = sched_build(actor->node->filter.inner, err);
        if (!inner)
            goto fail;
        s->inner = xrealloc(s->inner, ((size_t)s->ninner + 1) * sizeof *s->inner);
        s->inner_actor = xrealloc(s->inner_actor, ((size_t)s->ninner + 1) * sizeof *s->inner_actor);
        s->inner_actor[s->ninner] = a;
        s->inner[s->ninner++] = inner;
    }
    sched_rates_free(&rates);
    return s;
fail:
    sched_rates_free(&rates);
    sched_free(s);
    return NULL;
}

void sched_free(Schedule *s)
{
    if (!s)
        return;
    stream_flat_free(s->flat);
    free(s->replicated);
    free(s->owned_tail);
    free(s->repetitions);
    free(s->init_firings);
    free(s->fill_after_init);
    free(s->buffer_size);
    free(s->init);
    free(s->steady);
    free(s->actor_rank);
    free(s->actor_seconds);
    free(s->placement_note);
    free(s->predicted.rank_work_s);
    free(s->predicted.rank_in_s);
    free(s->predicted.rank_out_s);
    free(s->device_note);
    for (int i = 0; i < s->ninner; i++)
        sched_free(s->inner[i]);
    free(s->inner);
    free(s->inner_actor);
    free(s);
}
