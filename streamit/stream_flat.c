/* stream_flat.c — the flat view of a stream graph: actors and channels.
 *
 * One recursive walk turns the tree into actors (filters, splitters and
 * joiners, plus the graph's external input and output) and the channels
 * between them. Each subtree reports where its input enters (actor, input
 * port) and where its output leaves (actor, output port); containers wire
 * their children's ends together:
 *   pipeline      stage k's exit -> stage k+1's entry
 *   splitjoin     splitter port k -> branch k -> joiner port k
 *   feedbackloop  joiner -> body -> splitter port 0 (out); splitter port 1 ->
 *                 loop path -> joiner port 1 (the feedback channel, holding
 *                 the enqueued items)
 * Actors are created in the order that makes the list topological without
 * the feedback channels (see stream.h). A channel's rates are read from its
 * two ends: what the producer pushes on that port, what the consumer pops and
 * peeks on that port.
 *
 * Precondition: stream_check(root) holds (no empty container).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/diag.h"
#include "tssa/stream.h"
#include "tssa/util.h"

typedef struct End {
    int actor, port;
} End;

/* Channels are numbered by producer (actor, then output port), so they read
 * in the actors' topological order. Every output port carries exactly one
 * channel and actors are created in order, so an actor's first channel
 * number is known when it is created (the output ports of the actors before
 * it): connect() writes each channel in its place, with no renumbering pass
 * and no second copy of the channel array. */
typedef struct Builder {
    StreamFlat *f;
    int cap_actors, cap_channels;
    int nout_ports;                     /* output ports of the actors so far */
    int64_t cap_ports;
    int64_t *in_offset, *out_offset;    /* per actor, into f->ports */
    int *first_channel;                 /* per actor: its output port 0's channel */
} Builder;

static int add_actor(Builder *b, StreamActorKind kind, const StreamNode *node, int nin, int nout)
{
    StreamFlat *f = b->f;
    if (f->nactors == b->cap_actors) {
        b->cap_actors = b->cap_actors ? 2 * b->cap_actors : 64;
        f->actors = xreallocn(f->actors, (size_t)b->cap_actors, sizeof *f->actors);
        b->in_offset = xreallocn(b->in_offset, (size_t)b->cap_actors, sizeof *b->in_offset);
        b->out_offset = xreallocn(b->out_offset, (size_t)b->cap_actors, sizeof *b->out_offset);
        b->first_channel = xreallocn(b->first_channel, (size_t)b->cap_actors, sizeof *b->first_channel);
    }
    if (nout > INT_MAX - b->nout_ports)
        diag_die("stream_flatten: more than %d channels", INT_MAX);
    while (b->nout_ports + nout > b->cap_channels) {
        b->cap_channels = b->cap_channels ? 2 * b->cap_channels : 64;
        f->channels = xreallocn(f->channels, (size_t)b->cap_channels, sizeof *f->channels);
    }
    while (f->nports + nin + nout > b->cap_ports) {
        b->cap_ports = b->cap_ports ? 2 * b->cap_ports : 256;
        f->ports = xreallocn(f->ports, (size_t)b->cap_ports, sizeof *f->ports);
    }
    int a = f->nactors++;
    StreamActor *actor = &f->actors[a];
    memset(actor, 0, sizeof *actor);
    actor->kind = kind;
    actor->node = node;
    actor->nin = nin;
    actor->nout = nout;
    b->in_offset[a] = f->nports;
    b->out_offset[a] = f->nports + nin;
    b->first_channel[a] = b->nout_ports;
    b->nout_ports += nout;
    for (int i = 0; i < nin + nout; i++)
        f->ports[f->nports + i] = -1;
    f->nports += nin + nout;
    return a;
}

/* Sums of weights saturate at INT64_MAX; the scheduler's checked products
 * then report the overflow. */
static int64_t saturating_add(int64_t a, int64_t b)
{
    int64_t sum;
    return ckd_add_i64(&sum, a, b) ? sum : INT64_MAX;
}

/* Items actor a pushes on output port `port` per firing. */
static int64_t push_rate(const StreamFlat *f, int a, int port)
{
    const StreamActor *actor = &f->actors[a];
    const StreamNode *n = actor->node;
    switch (actor->kind) {
    case ACTOR_FILTER: return n->filter.push;
    case ACTOR_SPLITTER: return n->split == SPLIT_DUPLICATE ? 1 : n->split_weights[port];
    case ACTOR_JOINER: {
        int64_t sum = 0;
        int ports = n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren;
        for (int k = 0; k < ports; k++)
            sum = saturating_add(sum, n->join_weights[k]);
        return sum;
    }
    case ACTOR_INPUT:
    case ACTOR_OUTPUT: return 0;    /* the input's rate is set when it is wired */
    }
    return 0;
}

/* Items actor a pops (and peeks) on input port `port` per firing. */
static int64_t pop_rate(const StreamFlat *f, int a, int port, int64_t *peek)
{
    const StreamActor *actor = &f->actors[a];
    const StreamNode *n = actor->node;
    int64_t pop = 0;
    switch (actor->kind) {
    case ACTOR_FILTER:
        *peek = n->filter.peek;
        return n->filter.pop;
    case ACTOR_SPLITTER:
        if (n->split == SPLIT_DUPLICATE) {
            pop = 1;
        } else {
            int ports = n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren;
            for (int k = 0; k < ports; k++)
                pop = saturating_add(pop, n->split_weights[k]);
        }
        break;
    case ACTOR_JOINER: pop = n->join_weights[port]; break;
    case ACTOR_INPUT:
    case ACTOR_OUTPUT: pop = 0; break;
    }
    *peek = pop;
    return pop;
}

static void connect(Builder *b, End from, End to, int64_t initial, bool feedback)
{
    StreamFlat *f = b->f;
    int c = b->first_channel[from.actor] + from.port;
    f->nchannels++;
    StreamChannel *ch = &f->channels[c];
    memset(ch, 0, sizeof *ch);
    ch->src = from.actor;
    ch->src_port = from.port;
    ch->dst = to.actor;
    ch->dst_port = to.port;
    ch->push = push_rate(f, from.actor, from.port);
    ch->pop = pop_rate(f, to.actor, to.port, &ch->peek);
    if (f->actors[from.actor].kind == ACTOR_INPUT)
        ch->push = ch->pop > 0 ? 1 : 0;
    if (f->actors[to.actor].kind == ACTOR_OUTPUT)
        ch->pop = ch->peek = ch->push > 0 ? 1 : 0;
    ch->initial = initial;
    ch->feedback = feedback;
    f->ports[b->out_offset[from.actor] + from.port] = c;
    f->ports[b->in_offset[to.actor] + to.port] = c;
}

static void flatten_node(Builder *b, const StreamNode *n, End *entry, End *exit);

/* Records the range of actors each node's subtree becomes. */
static void flatten(Builder *b, const StreamNode *n, End *entry, End *exit)
{
    b->f->first_actor[n->id] = b->f->nactors;
    flatten_node(b, n, entry, exit);
    b->f->last_actor[n->id] = b->f->nactors - 1;
}

static void flatten_node(Builder *b, const StreamNode *n, End *entry, End *exit)
{
    switch (n->kind) {
    case STREAM_FILTER: {
        int a = add_actor(b, ACTOR_FILTER, n, 1, 1);
        *entry = (End){a, 0};
        *exit = (End){a, 0};
        return;
    }
    case STREAM_PIPELINE: {
        End prev_exit = {-1, 0};
        for (int k = 0; k < n->nchildren; k++) {
            End e, x;
            flatten(b, n->children[k], &e, &x);
            if (k == 0)
                *entry = e;
            else
                connect(b, prev_exit, e, 0, false);
            prev_exit = x;
        }
        *exit = prev_exit;
        return;
    }
    case STREAM_SPLITJOIN: {
        int split = add_actor(b, ACTOR_SPLITTER, n, 1, n->nchildren);
        End *exits = xmalloc((size_t)n->nchildren * sizeof *exits);
        for (int k = 0; k < n->nchildren; k++) {
            End e;
            flatten(b, n->children[k], &e, &exits[k]);
            connect(b, (End){split, k}, e, 0, false);
        }
        int join = add_actor(b, ACTOR_JOINER, n, n->nchildren, 1);
        for (int k = 0; k < n->nchildren; k++)
            connect(b, exits[k], (End){join, k}, 0, false);
        free(exits);
        *entry = (End){split, 0};
        *exit = (End){join, 0};
        return;
    }
    case STREAM_FEEDBACKLOOP: {
        int join = add_actor(b, ACTOR_JOINER, n, 2, 1);
        End body_entry, body_exit, loop_entry, loop_exit;
        flatten(b, n->children[0], &body_entry, &body_exit);
        connect(b, (End){join, 0}, body_entry, 0, false);
        int split = add_actor(b, ACTOR_SPLITTER, n, 1, 2);
        connect(b, body_exit, (End){split, 0}, 0, false);
        flatten(b, n->children[1], &loop_entry, &loop_exit);
        connect(b, (End){split, 1}, loop_entry, 0, false);
        connect(b, loop_exit, (End){join, 1}, n->enqueued, true);
        *entry = (End){join, 0};
        *exit = (End){split, 0};
        return;
    }
    }
}

StreamFlat *stream_flatten(const StreamNode *root)
{
    StreamFlat *f = xcalloc(1, sizeof *f);
    f->root = root;
    size_t nnodes = (size_t)root->graph->nnodes;
    f->first_actor = xmalloc((nnodes ? nnodes : 1) * sizeof *f->first_actor);
    f->last_actor = xmalloc((nnodes ? nnodes : 1) * sizeof *f->last_actor);
    for (size_t i = 0; i < nnodes; i++)
        f->first_actor[i] = f->last_actor[i] = -1;
    Builder b = {.f = f};
    int input = add_actor(&b, ACTOR_INPUT, root, 0, 1);
    End entry, exit;
    flatten(&b, root, &entry, &exit);
    int output = add_actor(&b, ACTOR_OUTPUT, root, 1, 0);
    connect(&b, (End){input, 0}, entry, 0, false);
    connect(&b, exit, (End){output, 0}, 0, false);
    if (f->nchannels != b.nout_ports)
        diag_die("stream_flatten: %d output ports but %d channels", b.nout_ports, f->nchannels);
    for (int a = 0; a < f->nactors; a++) {
        f->actors[a].in = f->ports + b.in_offset[a];
        f->actors[a].out = f->ports + b.out_offset[a];
    }
    free(b.in_offset);
    free(b.out_offset);
    free(b.first_channel);
    return f;
}

void stream_flat_free(StreamFlat *f)
{
    if (!f)
        return;
    free(f->actors);
    free(f->channels);
    free(f->ports);
    free(f->first_actor);
    free(f->last_actor);
    free(f);
}

const char *stream_actor_kind_name(StreamActorKind k)
{
    switch (k) {
    case ACTOR_INPUT: return "input";
    case ACTOR_FILTER: return "filter";
    case ACTOR_SPLITTER: return "split";
    case ACTOR_JOINER: return "join";
    case ACTOR_OUTPUT: return "output";
    }
    return "?";
}

void stream_actor_print_path(FILE *out, const StreamActor *a)
{
    switch (a->kind) {
    case ACTOR_INPUT: fputs("input", out); return;
    case ACTOR_OUTPUT: fputs("output", out); return;
    case ACTOR_FILTER: stream_node_print_path(out, a->node); return;
    case ACTOR_SPLITTER:
        stream_node_print_path(out, a->node);
        fputs("/split", out);
        return;
    case ACTOR_JOINER:
        stream_node_print_path(out, a->node);
        fputs("/join", out);
        return;
    }
}

const StreamPhasing *stream_actor_phasing(const StreamActor *a)
{
    if (a->kind == ACTOR_FILTER && a->node->kind == STREAM_FILTER)
        return a->node->phasing;
    if (a->kind == ACTOR_JOINER && a->node->kind == STREAM_SPLITJOIN)
        return a->node->phasing;
    return NULL;
}

int64_t stream_actor_phases(const StreamActor *a)
{
    const StreamPhasing *ph = stream_actor_phasing(a);
    return ph ? (ph->trips + ph->chunk - 1) / ph->chunk : 1;
}

int64_t stream_phasing_iterations(const StreamPhasing *ph, int64_t j)
{
    int64_t start = j * ph->chunk, end = start + ph->chunk;
    return (end < ph->trips ? end : ph->trips) - start;
}

int64_t stream_channel_push_at(const StreamFlat *f, int c, int64_t j)
{
    const StreamChannel *ch = &f->channels[c];
    const StreamActor *a = &f->actors[ch->src];
    const StreamPhasing *ph = stream_actor_phasing(a);
    if (!ph)
        return ch->push;
    int64_t once = ch->push - ph->out_per * ph->trips;
    int64_t once_at = ph->emit_last ? stream_actor_phases(a) - 1 : 0;
    return ph->out_per * stream_phasing_iterations(ph, j) + (j == once_at ? once : 0);
}

int64_t stream_channel_pop_at(const StreamFlat *f, int c, int64_t j)
{
    const StreamChannel *ch = &f->channels[c];
    const StreamPhasing *ph = stream_actor_phasing(&f->actors[ch->dst]);
    if (!ph)
        return ch->pop;
    int64_t per = ch->dst_port < 2 ? ph->in_per[ch->dst_port] : 0;
    return per * stream_phasing_iterations(ph, j) + (j == 0 ? ch->pop - per * ph->trips : 0);
}
