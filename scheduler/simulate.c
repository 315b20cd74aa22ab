/* simulate.c — runs a firing plan on item counts to find its phase order.
 *
 * Items are only counted. A ready queue (a binary min-heap of actor
 * indices) always hands out the ready actor that comes first in the flat
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
 * Cost: O((actors + phases) log actors). The caller bounds the phases.
 * Precondition: no channel can exceed INT64_MAX items (sched_build checks
 * initial + (init + reps) * push for every channel).
 */
#include <stdlib.h>

#include "scheduler/sched_internal.h"
#include "tssa/diag.h"

typedef struct Heap {
    int *items;
    int n;
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

static int heap_pop(Heap *h)
{
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

/* How many of its remaining firings actor a can do now. */
static int64_t ready_firings(const StreamFlat *f, const int64_t *fill, int a, int64_t remaining)
{
    const StreamActor *actor = &f->actors[a];
    int64_t k = remaining;
    for (int p = 0; p < actor->nin && k > 0; p++) {
        const StreamChannel *c = &f->channels[actor->in[p]];
        if (c->pop == 0)
            continue;
        int64_t items = fill[actor->in[p]];
        int64_t can = items < c->peek ? 0 : (items - c->peek) / c->pop + 1;
        if (can < k)
            k = can;
    }
    return k;
}

static void append_phase(PhaseList *out, int a, int64_t k)
{
    if (out->n > 0 && out->phases[out->n - 1].actor == a) {
        out->phases[out->n - 1].firings += k;
        return;
    }
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 256;
        out->phases = realloc(out->phases, (size_t)out->cap * sizeof *out->phases);
        if (!out->phases)
            diag_die("out of memory (schedule phases)");
    }
    out->phases[out->n++] = (SchedPhase){a, k};
}

SimResult sched_simulate(const StreamFlat *f, int64_t *remaining, int64_t *fill, int64_t *max_fill,
                         int max_phases, PhaseList *out, int *culprit)
{
    int n = f->nactors;
    bool *queued = malloc((size_t)n * sizeof *queued);
    Heap heap = {malloc((size_t)n * sizeof *heap.items), 0};
    if (!queued || !heap.items)
        diag_die("out of memory (schedule simulation)");
    for (int a = 0; a < n; a++) {
        queued[a] = remaining[a] > 0;
        if (queued[a])
            heap.items[heap.n++] = a;     /* increasing: already a heap */
    }
    SimResult result = SIM_DONE;
    while (heap.n > 0) {
        int a = heap_pop(&heap);
        queued[a] = false;
        int64_t k = ready_firings(f, fill, a, remaining[a]);
        if (k == 0)
            continue;
        const StreamActor *actor = &f->actors[a];
        for (int p = 0; p < actor->nin; p++)
            fill[actor->in[p]] -= k * f->channels[actor->in[p]].pop;
        for (int p = 0; p < actor->nout; p++) {
            int c = actor->out[p];
            fill[c] += k * f->channels[c].push;
            if (fill[c] > max_fill[c])
                max_fill[c] = fill[c];
            int b = f->channels[c].dst;
            if (f->channels[c].push > 0 && remaining[b] > 0 && !queued[b]) {
                queued[b] = true;
                heap_push(&heap, b);
            }
        }
        remaining[a] -= k;
        append_phase(out, a, k);
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
    free(queued);
    free(heap.items);
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
