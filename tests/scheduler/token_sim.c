/* token_sim.c — the independent schedule checker of token_sim.h.
 *
 * The expected connections come from the tree: a stream's input enters at
 * its first actor (a filter, a pipeline's first stage, a split-join's
 * splitter, a feedback loop's joiner port 0) and its output leaves at its
 * last (a filter, a pipeline's last stage, a split-join's joiner, a feedback
 * loop's splitter port 0). Actors are found in the flat view by their node
 * and kind only; everything else is recomputed here.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/token_sim.h"

typedef struct Edge {
    int src, src_port, dst, dst_port;
    int64_t initial;
    bool feedback;
} Edge;

typedef struct Checker {
    const Schedule *s;
    const StreamFlat *f;
    FILE *err;
    int *filter_actor, *split_actor, *join_actor;   /* by node id */
    Edge *edges;
    int nedges, cap_edges;
    bool ok;
} Checker;

static void fail(Checker *k, const char *fmt, const char *what, int64_t a, int64_t b)
{
    k->ok = false;
    fprintf(k->err, "token_sim: ");
    fprintf(k->err, fmt, what, a, b);
    fputc('\n', k->err);
}

static void add_edge(Checker *k, int src, int src_port, int dst, int dst_port, int64_t initial, bool feedback)
{
    if (k->nedges == k->cap_edges) {
        k->cap_edges = k->cap_edges ? 2 * k->cap_edges : 64;
        k->edges = realloc(k->edges, (size_t)k->cap_edges * sizeof *k->edges);
    }
    k->edges[k->nedges++] = (Edge){src, src_port, dst, dst_port, initial, feedback};
}

static int entry_actor(const Checker *k, const StreamNode *n)
{
    switch (n->kind) {
    case STREAM_FILTER: return k->filter_actor[n->id];
    case STREAM_PIPELINE: return entry_actor(k, n->children[0]);
    case STREAM_SPLITJOIN: return k->split_actor[n->id];
    case STREAM_FEEDBACKLOOP: return k->join_actor[n->id];
    }
    return -1;
}

static int exit_actor(const Checker *k, const StreamNode *n)
{
    switch (n->kind) {
    case STREAM_FILTER: return k->filter_actor[n->id];
    case STREAM_PIPELINE: return exit_actor(k, n->children[n->nchildren - 1]);
    case STREAM_SPLITJOIN: return k->join_actor[n->id];
    case STREAM_FEEDBACKLOOP: return k->split_actor[n->id];
    }
    return -1;
}

static void expect_edges(Checker *k, const StreamNode *n)
{
    switch (n->kind) {
    case STREAM_FILTER: return;
    case STREAM_PIPELINE:
        for (int i = 0; i + 1 < n->nchildren; i++)
            add_edge(k, exit_actor(k, n->children[i]), 0, entry_actor(k, n->children[i + 1]), 0, 0, false);
        break;
    case STREAM_SPLITJOIN:
        for (int i = 0; i < n->nchildren; i++) {
            add_edge(k, k->split_actor[n->id], i, entry_actor(k, n->children[i]), 0, 0, false);
            add_edge(k, exit_actor(k, n->children[i]), 0, k->join_actor[n->id], i, 0, false);
        }
        break;
    case STREAM_FEEDBACKLOOP:
        add_edge(k, k->join_actor[n->id], 0, entry_actor(k, n->children[0]), 0, 0, false);
        add_edge(k, exit_actor(k, n->children[0]), 0, k->split_actor[n->id], 0, 0, false);
        add_edge(k, k->split_actor[n->id], 1, entry_actor(k, n->children[1]), 0, 0, false);
        add_edge(k, exit_actor(k, n->children[1]), 0, k->join_actor[n->id], 1, n->enqueued, true);
        break;
    }
    for (int i = 0; i < n->nchildren; i++)
        expect_edges(k, n->children[i]);
}

/* Items actor a pushes on port p per firing, from its node. */
static int64_t tree_push(const Checker *k, int a, int p)
{
    const StreamActor *actor = &k->f->actors[a];
    const StreamNode *n = actor->node;
    int ports = n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren;
    int64_t sum = 0;
    switch (actor->kind) {
    case ACTOR_FILTER: return n->filter.push;
    case ACTOR_SPLITTER: return n->split == SPLIT_DUPLICATE ? 1 : n->split_weights[p];
    case ACTOR_JOINER:
        for (int i = 0; i < ports; i++)
            sum += n->join_weights[i];
        return sum;
    default: return -1;
    }
}

/* Items actor a pops on port p per firing (and peeks), from its node. */
static int64_t tree_pop(const Checker *k, int a, int p, int64_t *peek)
{
    const StreamActor *actor = &k->f->actors[a];
    const StreamNode *n = actor->node;
    int ports = n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren;
    int64_t sum = 0;
    switch (actor->kind) {
    case ACTOR_FILTER:
        *peek = n->filter.peek;
        return n->filter.pop;
    case ACTOR_SPLITTER:
        if (n->split == SPLIT_DUPLICATE)
            sum = 1;
        else
            for (int i = 0; i < ports; i++)
                sum += n->split_weights[i];
        break;
    case ACTOR_JOINER: sum = n->join_weights[p]; break;
    default: sum = -1;
    }
    *peek = sum;
    return sum;
}

static void check_structure(Checker *k)
{
    const StreamFlat *f = k->f;
    int nnodes = k->s->root->graph->nnodes;
    k->filter_actor = malloc(3 * (size_t)nnodes * sizeof(int));
    k->split_actor = k->filter_actor + nnodes;
    k->join_actor = k->split_actor + nnodes;
    for (int i = 0; i < 3 * nnodes; i++)
        k->filter_actor[i] = -1;
    int input = -1, output = -1;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        int *slot = NULL;
        switch (actor->kind) {
        case ACTOR_INPUT: input = a; continue;
        case ACTOR_OUTPUT: output = a; continue;
        case ACTOR_FILTER: slot = &k->filter_actor[actor->node->id]; break;
        case ACTOR_SPLITTER: slot = &k->split_actor[actor->node->id]; break;
        case ACTOR_JOINER: slot = &k->join_actor[actor->node->id]; break;
        }
        if (*slot >= 0)
            fail(k, "%s: two actors for one node (%" PRId64 ", %" PRId64 ")", "structure", *slot, a);
        *slot = a;
    }
    if (input < 0 || output < 0) {
        fail(k, "%s: no input or output actor (%" PRId64 ", %" PRId64 ")", "structure", input, output);
        return;
    }
    add_edge(k, input, 0, entry_actor(k, k->s->root), 0, 0, false);
    add_edge(k, exit_actor(k, k->s->root), 0, output, 0, 0, false);
    expect_edges(k, k->s->root);
    if (k->nedges != f->nchannels)
        fail(k, "%s: %" PRId64 " channels expected, %" PRId64 " found", "structure", k->nedges, f->nchannels);
    for (int e = 0; e < k->nedges && k->ok; e++) {
        const Edge *x = &k->edges[e];
        if (x->src < 0 || x->dst < 0 || x->src_port >= f->actors[x->src].nout ||
            x->dst_port >= f->actors[x->dst].nin) {
            fail(k, "%s: edge %" PRId64 " has a missing end (%" PRId64 ")", "structure", e, x->src);
            return;
        }
        int c = f->actors[x->src].out[x->src_port];
        const StreamChannel *ch = &f->channels[c];
        if (ch->src != x->src || ch->src_port != x->src_port || ch->dst != x->dst || ch->dst_port != x->dst_port ||
            f->actors[x->dst].in[x->dst_port] != c)
            fail(k, "%s: channel %" PRId64 " connects other ports than the tree says (to actor %" PRId64 ")",
                 "structure", c, ch->dst);
        if (ch->initial != x->initial || ch->feedback != x->feedback)
            fail(k, "%s: channel %" PRId64 " initial items %" PRId64 " differ", "structure", c, ch->initial);
        int64_t push = tree_push(k, x->src, x->src_port), peek = 0;
        int64_t pop = tree_pop(k, x->dst, x->dst_port, &peek);
        if (x->src == input) {
            push = pop > 0;
        }
        if (x->dst == output) {
            pop = peek = push > 0;
        }
        if (ch->push != push || ch->pop != pop || ch->peek != peek)
            fail(k, "%s: channel %" PRId64 " rates differ from the nodes' (push %" PRId64 ")", "structure", c,
                 ch->push);
    }
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void check_balance(Checker *k)
{
    const StreamFlat *f = k->f;
    const int64_t *reps = k->s->repetitions;
    int64_t g = 0;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind == ACTOR_FILTER && reps[a] <= 0)
            fail(k, "%s: filter actor %" PRId64 " fires %" PRId64 " times per steady state", "balance", a, reps[a]);
        if (actor->kind != ACTOR_INPUT && actor->kind != ACTOR_OUTPUT)
            g = gcd(g, reps[a]);
    }
    if (g != 1)
        fail(k, "%s: the repetitions have gcd %" PRId64 " (%" PRId64 ")", "balance", g, 1);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        if (reps[ch->src] * ch->push != reps[ch->dst] * ch->pop)
            fail(k, "%s: channel %" PRId64 " is unbalanced (%" PRId64 " in)", "balance", c, reps[ch->src] * ch->push);
    }
}

/* Runs entries [lo, hi) from fill[], expanding repeats (an entry
 * SCHED_REPEAT at i runs [i - span, i) `firings` more times); counts
 * firings per actor into fired[]. */
static void run_phases(Checker *k, const char *name, const SchedPhase *phases, int lo, int hi, int64_t *fill,
                       int64_t *max_fill, int64_t *fired)
{
    const StreamFlat *f = k->f;
    for (int i = lo; i < hi && k->ok; i++) {
        int a = phases[i].actor;
        int64_t times = phases[i].firings;
        if (a == SCHED_REPEAT) {
            if (phases[i].span <= 0 || i - phases[i].span < lo || times <= 0) {
                fail(k, "%s phase: a repeat reaches outside its turn (entry %" PRId64 ", span %" PRId64 ")", name, i,
                     phases[i].span);
                return;
            }
            for (int64_t r = 0; r < times && k->ok; r++)
                run_phases(k, name, phases, i - phases[i].span, i, fill, max_fill, fired);
            continue;
        }
        if (a < 0 || a >= f->nactors || times <= 0) {
            fail(k, "%s phase: bad phase entry (actor %" PRId64 ", %" PRId64 " firings)", name, a, times);
            return;
        }
        const StreamActor *actor = &f->actors[a];
        for (int p = 0; p < actor->nin; p++) {
            int c = actor->in[p];
            const StreamChannel *ch = &f->channels[c];
            int64_t need = ch->pop > 0 ? (times - 1) * ch->pop + ch->peek : 0;
            if (fill[c] < need)
                fail(k, "%s phase: channel underflows (channel %" PRId64 ", needs %" PRId64 ")", name, c, need);
            fill[c] -= times * ch->pop;
        }
        for (int p = 0; p < actor->nout; p++) {
            int c = actor->out[p];
            fill[c] += times * f->channels[c].push;
            if (fill[c] > max_fill[c])
                max_fill[c] = fill[c];
        }
        fired[a] += times;
    }
}

static void check_execution(Checker *k)
{
    const Schedule *s = k->s;
    const StreamFlat *f = k->f;
    int64_t *fill = calloc((size_t)f->nchannels + 1, sizeof *fill);
    int64_t *max_fill = calloc((size_t)f->nchannels + 1, sizeof *max_fill);
    int64_t *fired = calloc((size_t)f->nactors + 1, sizeof *fired);
    for (int c = 0; c < f->nchannels; c++)
        fill[c] = max_fill[c] = f->channels[c].initial;
    run_phases(k, "init", s->init, 0, s->ninit, fill, max_fill, fired);
    for (int a = 0; a < f->nactors && k->ok; a++)
        if (fired[a] != s->init_firings[a])
            fail(k, "%s: actor %" PRId64 " fired %" PRId64 " times", "init phase", a, fired[a]);
    for (int c = 0; c < f->nchannels && k->ok; c++) {
        const StreamChannel *ch = &f->channels[c];
        if (fill[c] != s->fill_after_init[c])
            fail(k, "%s: channel %" PRId64 " holds %" PRId64 " items, not as reported", "init phase", c, fill[c]);
        if (fill[c] < ch->peek - ch->pop)
            fail(k, "%s: channel %" PRId64 " holds %" PRId64 " items, fewer than the consumer peeks ahead",
                 "init phase", c, fill[c]);
    }
    memset(fired, 0, (size_t)f->nactors * sizeof *fired);
    run_phases(k, "steady", s->steady, 0, s->nsteady, fill, max_fill, fired);
    for (int a = 0; a < f->nactors && k->ok; a++)
        if (fired[a] != s->repetitions[a])
            fail(k, "%s: actor %" PRId64 " fired %" PRId64 " times", "steady phase", a, fired[a]);
    for (int c = 0; c < f->nchannels && k->ok; c++) {
        if (fill[c] != s->fill_after_init[c])
            fail(k, "%s: channel %" PRId64 " ends with %" PRId64 " items, not its post-init fill", "steady phase", c,
                 fill[c]);
        if (max_fill[c] != s->buffer_size[c])
            fail(k, "%s: channel %" PRId64 " held at most %" PRId64 " items, not its buffer size", "buffers", c,
                 max_fill[c]);
    }
    free(fill);
    free(max_fill);
    free(fired);
}

bool token_sim_check(const Schedule *s, FILE *err)
{
    Checker k = {.s = s, .f = s->flat, .err = err, .ok = true};
    check_structure(&k);
    if (k.ok)
        check_balance(&k);
    if (k.ok)
        check_execution(&k);
    free(k.filter_actor);
    free(k.edges);
    return k.ok;
}
