/* simulate.c — runs a firing plan on item counts to find its phase order.
 *
 * Items are only counted. A ready queue (the actors in increasing order,
 * and a min-heap of those woken again; see Heap) always hands out the ready actor that comes first in the flat
 * view's topological order; it fires as many times as its inputs and its
 * remaining count allow, at once, and wakes the consumers of its outputs.
 * An actor with a peek reads (k - 1) * pop + peek items for k firings.
 *
 * Without feedback loops every actor is first handed out after all its
 * producers have finished, so it fires all its firings in one phase: the
 * single-appearance schedule in topological order. Inside a feedback loop
 * the joiner, body, splitter and loop path take turns as far as the items on
 * the loop path allow, each turn waking the joiner again, which comes first.
 *
 * Turns of a feedback loop are folded (a looped schedule). A turn starts
 * when the loop's joiner fires; when the joiner is handed out again, every
 * entry since the start of one of its last few turns fired an actor of the
 * loop, and every channel inside the loop holds what it held then, those
 * entries can run again from here, unchanged, as long as each of the
 * loop's actors has firings left for them and the channels into the loop
 * hold enough items: R more runs are applied at once (remaining firings,
 * the fills of the channels into and out of the loop) and recorded as one
 * SCHED_REPEAT entry. Remembering several turn starts catches loops whose
 * turns alternate between shapes. Channels inside the loop go through the same fills in every turn,
 * so their largest fill does not change. Without folding, a loop with few
 * enqueued items that turns once per item would cost entries (and time) in
 * proportion to its firings.
 *
 * Phased actors (a long loop's Unstack, Stack and Iterations joiner: see
 * StreamPhasing in stream.h) fire one phase at a time, at that phase's
 * rates. Within a phased region (the loop's pipeline) a phased actor does
 * not start phase n before every later phased actor of the region has done
 * phase n - 1: the Unstack hands out phase n's items once the Stack has
 * taken phase n - 1's, so the region's channels hold one phase's items.
 * The region folds like a feedback loop, its turns starting at its first
 * phased actor: a turn of middle phases (not the first, which takes the
 * loop's inputs, nor the last, which is shorter and gives the results)
 * that leaves the region's channels as it found them is repeated, so a
 * loop of a million iterations in phases of 1024 costs a few entries.
 *
 * Cost: O(actors + entries log actors), plus the size of a loop for each
 * turn started. The caller bounds the entries.
 * Precondition: no channel can exceed INT64_MAX items (sched_build checks
 * initial + (init + reps) * push for every channel).
 */
#include <stdint.h>
#include <stdlib.h>

#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/util.h"

/* The ready queue: the actors queued at the start, in increasing order
 * (a cursor walks them), and a binary min-heap of those queued later. Most
 * actors are handed out once, in order, from the first part: the heap
 * only holds actors woken again (feedback loops, an actor handed out
 * before its inputs were there), so a big acyclic graph costs no heap
 * operations. Handing out the smaller of the two fronts keeps the order
 * of a single heap. */
typedef struct Heap {
    int *items;
    int n;
    const int *initial;
    int ninitial, next_initial;
} Heap;

static void heap_push(Heap *h, int v)
{
    int i = h->n++;
    h->items[i] = v;
    while (i > 0 && h->items[(i - 1) / 2] > h->items[i]) {
        int parent = (i - 1) / 2, t = h->items[parent];
        h->items[parent] = h->items[i];
        h->items[i] = t;
        i = parent;
    }
}

static bool queue_empty(const Heap *h)
{
    return h->n == 0 && h->next_initial == h->ninitial;
}

static int heap_pop(Heap *h)
{
    if (h->next_initial < h->ninitial && (h->n == 0 || h->initial[h->next_initial] < h->items[0]))
        return h->initial[h->next_initial++];
    int top = h->items[0];
    h->items[0] = h->items[--h->n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->items[l] < h->items[m])
            m = l;
        if (r < h->n && h->items[r] < h->items[m])
            m = r;
        if (m == i)
            break;
        int t = h->items[m];
        h->items[m] = h->items[i];
        h->items[i] = t;
        i = m;
    }
    return top;
}

/* Turns remembered per loop: a loop whose turns alternate between a few
 * shapes repeats with a period of several turns. */
enum { TURNS_REMEMBERED = 4 };

/* The state of a loop when one of its turns started. */
typedef struct Turn {
    int start;              /* entry where the turn began, or -1 */
    int64_t *fill;          /* per Loop.channels[i] */
    int64_t *remaining;     /* per actor first..last */
} Turn;

/* A feedback loop: its actors first..last (the joiner is first), the
 * channels that touch them, and its latest turns (a ring, newest at
 * `newest`). */
typedef struct Loop {
    int first, last;
    bool region;            /* a phased region, its turns started by its first phased actor */
    int *channels;          /* channels with an end among the loop's actors */
    int nchannels;
    Turn turns[TURNS_REMEMBERED];
    int newest;
} Loop;

typedef struct Sim {
    const StreamFlat *f;
    int64_t *remaining, *fill, *max_fill;
    bool *queued;
    Heap heap;
    PhaseList *out;
    int merge_floor;        /* entries before this index are never merged into */
    Loop *loops;
    int nloops;
    int *loop_of;           /* by actor: the loop whose joiner (or region lead) it is, or -1 */
    int64_t *phase_done;    /* phases fired so far, by actor */
    int64_t *nphases;       /* phases per firing, by actor (1: not phased) */
    int *region_end;        /* phased actors: the last actor of their region */
} Sim;

static bool phased(const Sim *s, int a)
{
    return s->nphases[a] > 1;
}

static int64_t phase_now(const Sim *s, int a)
{
    return s->phase_done[a] % s->nphases[a];
}

static bool inside(const Loop *l, int a)
{
    return a >= l->first && a <= l->last;
}

static void setup_loops(Sim *s)
{
    const StreamFlat *f = s->f;
    s->loop_of = xmalloc((size_t)f->nactors * sizeof *s->loop_of);
    int count = 0;
    s->nphases = xmalloc((size_t)f->nactors * sizeof *s->nphases);
    s->region_end = xmalloc((size_t)f->nactors * sizeof *s->region_end);
    bool *lead = xcalloc((size_t)f->nactors + 1, sizeof *lead);
    for (int a = 0; a < f->nactors; a++) {
        s->loop_of[a] = -1;
        s->nphases[a] = stream_actor_phases(&f->actors[a]);
        s->region_end[a] = a;
        count += f->actors[a].kind == ACTOR_JOINER && f->actors[a].node->kind == STREAM_FEEDBACKLOOP;
    }
    /* A phased actor's region: the innermost enclosing stream marked as
     * one; its first phased actor leads it. */
    for (int a = 0; a < f->nactors; a++) {
        if (!phased(s, a))
            continue;
        const StreamNode *r = f->actors[a].node;
        while (r && !(r->kind == STREAM_PIPELINE && r->phasing))
            r = r->parent;
        if (!r || f->first_actor[r->id] < 0)
            continue;
        s->region_end[a] = f->last_actor[r->id];
        bool first = true;
        for (int b = f->first_actor[r->id]; b < a; b++)
            first = first && !phased(s, b);
        lead[a] = first;
        count += first;
    }
    s->loops = xmalloc(((size_t)count + 1) * sizeof *s->loops);
    s->nloops = 0;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        bool is_region = lead[a];
        if (!is_region && (actor->kind != ACTOR_JOINER || actor->node->kind != STREAM_FEEDBACKLOOP))
            continue;
        Loop *l = &s->loops[s->nloops];
        l->region = is_region;
        if (is_region) {
            const StreamNode *r = actor->node;
            while (!(r->kind == STREAM_PIPELINE && r->phasing))
                r = r->parent;
            l->first = f->first_actor[r->id];
            l->last = f->last_actor[r->id];
        } else {
            l->first = f->first_actor[actor->node->id];
            l->last = f->last_actor[actor->node->id];
        }
        if (!is_region && l->first != a)
            diag_die("scheduler: a feedback loop's actors do not start with its joiner");
        /* Out-channels of the loop's actors, and in-channels from outside. */
        int n = 0;
        for (int b = l->first; b <= l->last; b++) {
            n += f->actors[b].nout;
            for (int p = 0; p < f->actors[b].nin; p++)
                n += !inside(l, f->channels[f->actors[b].in[p]].src);
        }
        l->channels = xmalloc((size_t)n * sizeof *l->channels);
        l->nchannels = 0;
        for (int b = l->first; b <= l->last; b++) {
            for (int p = 0; p < f->actors[b].nout; p++)
                l->channels[l->nchannels++] = f->actors[b].out[p];
            for (int p = 0; p < f->actors[b].nin; p++)
                if (!inside(l, f->channels[f->actors[b].in[p]].src))
                    l->channels[l->nchannels++] = f->actors[b].in[p];
        }
        for (int t = 0; t < TURNS_REMEMBERED; t++) {
            l->turns[t].start = -1;
            l->turns[t].fill = xmalloc((size_t)n * sizeof *l->turns[t].fill);
            l->turns[t].remaining = xmalloc((size_t)(l->last - l->first + 1) * sizeof *l->turns[t].remaining);
        }
        l->newest = 0;
        s->loop_of[a] = s->nloops++;
    }
    free(lead);
}

static void free_loops(Sim *s)
{
    for (int i = 0; i < s->nloops; i++) {
        free(s->loops[i].channels);
        for (int t = 0; t < TURNS_REMEMBERED; t++) {
            free(s->loops[i].turns[t].fill);
            free(s->loops[i].turns[t].remaining);
        }
    }
    free(s->loops);
    free(s->loop_of);
    free(s->nphases);
    free(s->region_end);
}

static void append_entry(Sim *s, SchedPhase e)
{
    PhaseList *out = s->out;
    if (e.actor != SCHED_REPEAT && out->n > s->merge_floor && out->phases[out->n - 1].actor == e.actor) {
        out->phases[out->n - 1].firings += e.firings;
        return;
    }
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 256;
        out->phases = realloc(out->phases, (size_t)out->cap * sizeof *out->phases);
        if (!out->phases)
            diag_die("out of memory (schedule phases)");
    }
    out->phases[out->n++] = e;
}

static void start_turn(Sim *s, Loop *l)
{
    l->newest = (l->newest + 1) % TURNS_REMEMBERED;
    Turn *t = &l->turns[l->newest];
    t->start = s->out->n;
    s->merge_floor = s->out->n;
    for (int i = 0; i < l->nchannels; i++)
        t->fill[i] = s->fill[l->channels[i]];
    for (int a = l->first; a <= l->last; a++)
        t->remaining[a - l->first] = s->remaining[a];
}

/* Folds the entries since turn t began if they can run again unchanged (see
 * the file comment); true when it did. */
static bool fold_since(Sim *s, Loop *l, const Turn *t)
{
    const StreamFlat *f = s->f;
    PhaseList *out = s->out;
    int span = out->n - t->start;
    if (t->start < 0 || span <= 0)
        return false;
    /* Only the loop's own actors fired, and any repeat in the span repeats
     * entries of the span (not a turn of an enclosing loop, folded after
     * this turn began). */
    for (int i = t->start; i < out->n; i++) {
        const SchedPhase *e = &out->phases[i];
        if (e->actor == SCHED_REPEAT ? i - e->span < t->start : !inside(l, e->actor))
            return false;
    }
    int64_t turns = INT64_MAX;
    for (int i = 0; i < l->nchannels; i++) {
        int c = l->channels[i];
        const StreamChannel *ch = &f->channels[c];
        bool internal = inside(l, ch->src) && inside(l, ch->dst);
        if (internal && s->fill[c] != t->fill[i])
            return false;
        if (!inside(l, ch->src) && s->fill[c] < t->fill[i]) {
            /* A channel into the loop: the span consumed from it. */
            int64_t consumed = t->fill[i] - s->fill[c];
            int64_t spare = s->fill[c] - (ch->pop > 0 ? ch->peek - ch->pop : 0);
            int64_t can = spare < 0 ? 0 : spare / consumed;
            if (can < turns)
                turns = can;
        }
    }
    bool fired = false;
    for (int a = l->first; a <= l->last; a++) {
        int64_t per_span = t->remaining[a - l->first] - s->remaining[a];
        if (per_span > 0) {
            fired = true;
            int64_t can = s->remaining[a] / per_span;
            if (phased(s, a)) {
                /* Only middle phases repeat: the span began after phase 0
                 * and the repeats end before the last phase. */
                int64_t now = phase_now(s, a);
                if (now - per_span < 1)
                    return false;
                can = (s->nphases[a] - 1 - now) / per_span;
            }
            if (can < turns)
                turns = can;
        }
    }
    if (!fired || turns <= 0)
        return false;
    for (int a = l->first; a <= l->last; a++) {
        int64_t per_span = t->remaining[a - l->first] - s->remaining[a];
        s->remaining[a] -= turns * per_span;
        s->phase_done[a] += phased(s, a) ? turns * per_span : 0;
    }
    for (int i = 0; i < l->nchannels; i++) {
        int c = l->channels[i];
        const StreamChannel *ch = &f->channels[c];
        if (inside(l, ch->src) && inside(l, ch->dst))
            continue;
        s->fill[c] += turns * (s->fill[c] - t->fill[i]);
        if (s->fill[c] > s->max_fill[c])
            s->max_fill[c] = s->fill[c];
        /* The consumer outside may have been handed out and found nothing
         * during the span: it has items now. */
        if (!inside(l, ch->dst) && s->remaining[ch->dst] > 0 && !s->queued[ch->dst]) {
            s->queued[ch->dst] = true;
            heap_push(&s->heap, ch->dst);
        }
    }
    append_entry(s, (SchedPhase){SCHED_REPEAT, span, turns});
    s->merge_floor = out->n;
    return true;
}

/* The joiner of l is handed out again: fold the entries since the latest
 * remembered turn start whose state has come back, newest first. */
static void fold_turns(Sim *s, Loop *l)
{
    for (int k = 0; k < TURNS_REMEMBERED; k++) {
        Turn *t = &l->turns[(l->newest - k + TURNS_REMEMBERED) % TURNS_REMEMBERED];
        if (fold_since(s, l, t)) {
            for (int j = 0; j < TURNS_REMEMBERED; j++)
                l->turns[j].start = -1;
            return;
        }
    }
}

/* How many of its remaining firings actor a can do now. */
static int64_t ready_firings(const Sim *s, int a)
{
    const StreamActor *actor = &s->f->actors[a];
    int64_t k = s->remaining[a];
    if (phased(s, a) && k > 0) {
        /* One phase, at its rates, once the later phased actors of the
         * region have caught up. */
        for (int b = a + 1; b <= s->region_end[a]; b++)
            if (phased(s, b) && s->phase_done[b] < s->phase_done[a])
                return 0;
        int64_t j = phase_now(s, a);
        for (int p = 0; p < actor->nin; p++)
            if (s->fill[actor->in[p]] < stream_channel_pop_at(s->f, actor->in[p], j))
                return 0;
        return 1;
    }
    for (int p = 0; p < actor->nin && k > 0; p++) {
        const StreamChannel *c = &s->f->channels[actor->in[p]];
        if (c->pop == 0)
            continue;
        int64_t items = s->fill[actor->in[p]];
        int64_t can = items < c->peek ? 0 : (items - c->peek) / c->pop + 1;
        if (can < k)
            k = can;
    }
    return k;
}

static void wake(Sim *s, int b)
{
    if (s->remaining[b] > 0 && !s->queued[b]) {
        s->queued[b] = true;
        heap_push(&s->heap, b);
    }
}

/* k firings of a, or (phased) its next phase, k = 1. */
static void fire(Sim *s, int a, int64_t k)
{
    const StreamFlat *f = s->f;
    const StreamActor *actor = &f->actors[a];
    bool phases = phased(s, a);
    int64_t j = phases ? phase_now(s, a) : 0;
    for (int p = 0; p < actor->nin; p++)
        s->fill[actor->in[p]] -= phases ? stream_channel_pop_at(f, actor->in[p], j)
                                        : k * f->channels[actor->in[p]].pop;
    for (int p = 0; p < actor->nout; p++) {
        int c = actor->out[p];
        int64_t pushed = phases ? stream_channel_push_at(f, c, j) : k * f->channels[c].push;
        s->fill[c] += pushed;
        if (s->fill[c] > s->max_fill[c])
            s->max_fill[c] = s->fill[c];
        if (pushed > 0)
            wake(s, f->channels[c].dst);
    }
    s->remaining[a] -= k;
    if (phases) {
        s->phase_done[a]++;
        /* The earlier phased actors of the region may go on now; this one
         * may have its next phase's items already. */
        const StreamNode *r = actor->node;
        while (r && !(r->kind == STREAM_PIPELINE && r->phasing))
            r = r->parent;
        for (int b = r ? f->first_actor[r->id] : a; b < a; b++)
            if (phased(s, b))
                wake(s, b);
    }
    append_entry(s, (SchedPhase){a, 0, k});
    if (phases)
        wake(s, a);
}

SimResult sched_simulate(const StreamFlat *f, int64_t *remaining, int64_t *fill, int64_t *max_fill,
                         int64_t *phase_done, int max_phases, PhaseList *out, int *culprit)
{
    int n = f->nactors;
    int *initial = xmalloc((size_t)n * sizeof *initial);
    Sim s = {f, remaining, fill, max_fill, xmalloc((size_t)n * sizeof(bool)),
             {xmalloc((size_t)n * sizeof(int)), 0, initial, 0, 0}, out, out->n, NULL, 0, NULL,
             phase_done, NULL, NULL};
    setup_loops(&s);
    for (int a = 0; a < n; a++) {
        s.queued[a] = remaining[a] > 0;
        if (s.queued[a])
            initial[s.heap.ninitial++] = a;
    }
    SimResult result = SIM_DONE;
    while (!queue_empty(&s.heap)) {
        int a = heap_pop(&s.heap);
        s.queued[a] = false;
        Loop *loop = s.loop_of[a] >= 0 ? &s.loops[s.loop_of[a]] : NULL;
        if (loop)
            fold_turns(&s, loop);
        int64_t k = ready_firings(&s, a);
        if (k > 0) {
            if (loop)
                start_turn(&s, loop);
            fire(&s, a, k);
        }
        if (out->n > max_phases) {
            result = SIM_TOO_LONG;
            *culprit = a;
            break;
        }
    }
    if (result == SIM_DONE) {
        for (int a = 0; a < n; a++) {
            if (remaining[a] > 0) {
                result = SIM_STUCK;
                *culprit = a;
                break;
            }
        }
    }
    free_loops(&s);
    free(s.queued);
    free(s.heap.items);
    free(initial);
    return result;
}

const StreamNode *sched_enclosing_loop(const StreamFlat *f, int a)
{
    const StreamActor *actor = &f->actors[a];
    if (actor->kind == ACTOR_INPUT || actor->kind == ACTOR_OUTPUT)
        return NULL;
    for (const StreamNode *p = actor->kind == ACTOR_FILTER ? actor->node->parent : actor->node; p; p = p->parent)
        if (p->kind == STREAM_FEEDBACKLOOP)
            return p;
    return NULL;
}
