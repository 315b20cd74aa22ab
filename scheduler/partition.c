/* partition.c — places every actor of a schedule on a rank: the cost
 * model and the partitioner (after StreamIt's dynamic-programming
 * partitioner over the stream hierarchy).
 *
 * Cost model. A filter firing costs firing_s + flops / flop rate + math /
 * math rate + bytes / memory rate (its estimates, StreamFilter; the
 * device's rates: math counts the elements through exp/tanh-class calls,
 * which cost one core of the test host ~0.7 ns each, 60 times a flop of a
 * GEMM). Compute and memory add up rather than overlap (the ECM model's
 * view of one core): a product's packing and its C's zeroing stream
 * memory between the compute kernel's calls (batch_map's 16384 x 128 x
 * 128 product took 6.9 ms where its flops alone give 6.2 and its 16 MB
 * 0.7), and the fused kernel after it, 2M tanh over 25 MB, took about
 * 2.1 ms: between the larger of its two times (1.6) and their sum (2.7).
 * With the larger alone every workload of the scaling study was predicted
 * 6-38% fast on one core;
 * per steady state that times its repetitions. A channel between ranks
 * costs latency per message (one per producer firing) plus its bytes per
 * steady state over the link's bandwidth.
 *
 * A placement of a stream on p ranks has a latency L (one steady state,
 * start to end) and a bottleneck B (the busiest rank's work and
 * communication per steady state). Running `sets` input sets back to back
 * takes about L + (sets - 1) * B, the score minimised here: for one run a
 * pipeline split over ranks only adds messages, for a long stream of
 * inputs it overlaps the stages.
 *
 * The partitioner, bottom-up over the hierarchy, best placement of each
 * stream on each number of ranks q <= p (memoized by stream and q):
 *   filter       one rank; or, if fission may split it (stateless, N >= 2
 *                firings, not in a feedback loop: sched_fission_eligible),
 *                k <= q data-parallel copies on k ranks, the first on the
 *                home rank, which scatters the items and gathers results
 *   pipeline     contiguous segments of stages: several stages together
 *                on one rank, or one stage alone on several ranks; each
 *                cut between segments is a channel between ranks
 *   split-join   contiguous groups of branches: several branches on one
 *                rank, or one branch on several; groups run side by side,
 *                the first on the home rank with the splitter and joiner
 * In both, a segment may also stay on the home rank beside the others
 * (adding its work to that rank's), so a small stage or branch next to a
 * data-parallel one does not take a rank of its own. Or every child uses
 * all q ranks, one after the other (time multiplexing: each stage spreads
 * its own data-parallel work over the same ranks).
 *   feedback     always one rank (its state goes around the loop each step)
 *   loop
 * Ranks are handed out in order from the stream's home rank, so the root's
 * first stage (which reads the inputs) is on rank 0. When the best
 * placement on N ranks does not beat one rank by 2%, everything stays on
 * rank 0 and the reason is reported; that one-rank case is costed at rank
 * 0's rates alone on its host (o->alone_*: the idle ranks' cores join it).
 * Ties go to fewer ranks and to earlier cuts, so every rank computes the
 * same placement from the same inputs. predict.c restates the chosen
 * placement's cost per rank for --emit=schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "scheduler/sched_internal.h"
#include "tssa/ir.h"
#include "tssa/schedule.h"
#include "tssa/util.h"

typedef struct Cost {
    double latency, load;
} Cost;

typedef struct Partitioner {
    const PartitionOptions *o;
    const Schedule *s;
    int maxq;
    int *actor_of_node;         /* filter node id -> actor, or -1 */
    double *node_seconds;       /* filter node id: work per steady state (one rank) */
    double *node_in_bytes;      /* node id: bytes entering it per steady state */
    double *node_out_bytes;
    double *node_in_msgs;       /* node id: messages entering it per steady state */
    Cost *memo;                 /* [node id * (maxq + 1) + q] */
    bool *known;
    bool *multiplexed;          /* the memo's choice: time_multiplexed */
} Partitioner;

static double score(const Partitioner *P, Cost c)
{
    return c.latency + (double)(P->o->sets - 1) * c.load;
}

static bool better(const Partitioner *P, Cost a, Cost b)
{
    return score(P, a) < score(P, b) * (1 - 1e-9);
}

static double message_seconds(const Partitioner *P, double bytes, double messages)
{
    return messages * P->o->link_latency_s + bytes / P->o->link_bytes_per_s;
}

double sched_firing_seconds(const StreamFilter *f, const PartitionOptions *o)
{
    if (f->role != FILTER_WORK)
        return 0;
    double compute = f->flops / o->flops_per_s + (o->math_per_s > 0 ? f->math / o->math_per_s : 0);
    double memory = f->bytes / o->bytes_per_s;
    return o->firing_s + compute + memory;
}

/* ---------------------------------------------------------------- traffic */

static bool is_ancestor(const StreamNode *a, const StreamNode *n)
{
    for (; n; n = n->parent)
        if (n == a)
            return true;
    return false;
}

/* Whether items pass through actor a unchanged in size: splitters,
 * joiners, identities, and work filters whose cost is unknown (a Route
 * that reorders items, a hand-written filter). */
static bool passes_items(const StreamActor *a)
{
    if (a->kind == ACTOR_SPLITTER || a->kind == ACTOR_JOINER)
        return true;
    if (a->kind != ACTOR_FILTER)
        return false;
    const StreamFilter *f = &a->node->filter;
    return f->role == FILTER_IDENTITY || (f->bytes_in == 0 && f->bytes_out == 0);
}

/* The size of one item of every channel: its producer's pushed bytes per
 * item, or its consumer's popped bytes per item; channels between data
 * movers take the size the items have on their other side (a few passes
 * carry sizes through splitters, joiners and routes). 0 when unknown. */
double *sched_item_bytes(const Schedule *s)
{
    const StreamFlat *f = s->flat;
    double *item = xcalloc((size_t)f->nchannels + 1, sizeof *item);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        const StreamActor *src = &f->actors[ch->src], *dst = &f->actors[ch->dst];
        if (src->kind == ACTOR_FILTER && ch->push > 0 && src->node->filter.bytes_out > 0)
            item[c] = src->node->filter.bytes_out / (double)ch->push;
        else if (dst->kind == ACTOR_FILTER && ch->pop > 0 && dst->node->filter.bytes_in > 0)
            item[c] = dst->node->filter.bytes_in / (double)ch->pop;
    }
    for (int pass = 0; pass < 8; pass++) {
        for (int a = 0; a < f->nactors; a++) {
            const StreamActor *actor = &f->actors[a];
            if (!passes_items(actor))
                continue;
            double in = 0, out = 0;
            for (int p = 0; p < actor->nin; p++)
                in = item[actor->in[p]] > in ? item[actor->in[p]] : in;
            for (int p = 0; p < actor->nout; p++)
                out = item[actor->out[p]] > out ? item[actor->out[p]] : out;
            for (int p = 0; p < actor->nin; p++)
                if (item[actor->in[p]] == 0)
                    item[actor->in[p]] = out;
            for (int p = 0; p < actor->nout; p++)
                if (item[actor->out[p]] == 0)
                    item[actor->out[p]] = in;
        }
    }
    return item;
}

/* Bytes per steady state of every channel, counted on each stream the
 * channel enters or leaves (the streams below the lowest common container
 * of its two ends). */
double sched_channel_bytes(const Schedule *s, const double *item_bytes, int channel)
{
    const StreamChannel *ch = &s->flat->channels[channel];
    const StreamActor *dst = &s->flat->actors[ch->dst];
    double firings = (double)s->repetitions[ch->src];
    double bytes = item_bytes[channel] * (double)ch->push * firings;
    /* Items the consumer pops every firing alike (a loop's weights) travel
     * once per message. */
    if (dst->kind == ACTOR_FILTER)
        bytes += dst->node->filter.bytes_in_shared * firings;
    return bytes;
}

bool sched_channel_messaged(const Schedule *s, const StreamChannel *ch)
{
    const unsigned char *tail = s->owned_tail;
    return !s->replicated[ch->src] && !(tail[ch->dst] == TAIL_BEFORE_STACK && !tail[ch->src]);
}

static void count_traffic(Partitioner *P)
{
    const StreamFlat *f = P->s->flat;
    double *item = sched_item_bytes(P->s);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        /* items made from the inputs by moving them (every rank makes its
         * own) and rows kept where they were computed travel in no message */
        if (!sched_channel_messaged(P->s, ch))
            continue;
        const StreamActor *src = &f->actors[ch->src], *dst = &f->actors[ch->dst];
        double firings = (double)P->s->repetitions[ch->src];
        double bytes = sched_channel_bytes(P->s, item, c);
        for (const StreamNode *n = dst->node; n && !is_ancestor(n, src->node); n = n->parent) {
            P->node_in_bytes[n->id] += bytes;
            P->node_in_msgs[n->id] += firings;
        }
        for (const StreamNode *n = src->node; n && !is_ancestor(n, dst->node); n = n->parent)
            P->node_out_bytes[n->id] += bytes;
    }
    free(item);
}

/* ---------------------------------------------------------------- the dynamic program */

static Cost plan(Partitioner *P, const StreamNode *n, int q);

static Cost sum_on_one_rank(Partitioner *P, const StreamNode *n)
{
    if (n->kind == STREAM_FILTER) {
        double t = P->node_seconds[n->id];
        return (Cost){t, t};
    }
    double t = 0;
    for (int i = 0; i < n->nchildren; i++)
        t += sum_on_one_rank(P, n->children[i]).latency;
    return (Cost){t, t};
}

static int64_t filter_reps(const Partitioner *P, const StreamNode *n)
{
    int a = P->actor_of_node[n->id];
    return a >= 0 ? P->s->repetitions[a] : 0;
}

/* A filter as k data-parallel copies: the home rank sends each other copy
 * its share of the items and takes its results back. */
static Cost fissioned(Partitioner *P, const StreamNode *n, int k)
{
    int64_t reps = filter_reps(P, n);
    double per_firing = P->node_seconds[n->id] / (double)reps;
    double copy = per_firing * (double)((reps + k - 1) / k);
    double share = (double)(k - 1) / k;
    double scatter = message_seconds(P, P->node_in_bytes[n->id] * share, k - 1);
    double gather = message_seconds(P, P->node_out_bytes[n->id] * share, k - 1);
    return (Cost){scatter + copy + gather, copy + scatter + gather};
}

static Cost plan_filter(Partitioner *P, const StreamNode *n, int q, int *copies)
{
    Cost best = sum_on_one_rank(P, n);
    *copies = 1;
    int64_t reps = filter_reps(P, n);
    if (q < 2 || !sched_fission_eligible(n, reps))
        return best;
    for (int k = 2; k <= q && k <= reps; k++) {
        Cost c = fissioned(P, n, k);
        if (better(P, c, best)) {
            best = c;
            *copies = k;
        }
    }
    return best;
}

/* Segments of a container's children: children [first, first + count)
 * together on `ranks` ranks (count > 1 only with ranks == 1). */
typedef struct Segment {
    int first, count, ranks;
} Segment;

typedef struct Cell {
    Cost cost;
    bool set;
    Segment last;
    int prev_ranks;
} Cell;

/* What putting children [first, first + count) on their own ranks costs in
 * messages: for a pipeline, the channel into the segment (unless it is the
 * first); for a split-join, the branches' items there and back (unless it
 * is the home group). */
static double cut_seconds(Partitioner *P, const StreamNode *n, int first, int count)
{
    if (first == 0)
        return 0;
    double bytes = 0, msgs = 0;
    for (int i = first; i < first + count; i++) {
        const StreamNode *c = n->children[i];
        if (n->kind == STREAM_PIPELINE) {
            if (i == first) {
                bytes += P->node_in_bytes[c->id];
                msgs += P->node_in_msgs[c->id];
            }
        } else {
            bytes += P->node_in_bytes[c->id] + P->node_out_bytes[c->id];
            msgs += 2;
        }
    }
    return message_seconds(P, bytes, msgs);
}

/* The containers' dynamic program: cells[i][r] is the best placement of the
 * first i children on r ranks (r ranks exactly, ranks in order). */
static Cost plan_children(Partitioner *P, const StreamNode *n, int q, Segment *segs, int *nsegs)
{
    int m = n->nchildren;
    bool side_by_side = n->kind == STREAM_SPLITJOIN;
    Cell *cells = xcalloc((size_t)(m + 1) * (size_t)(q + 1), sizeof *cells);
#define CELL(i, r) cells[(size_t)(i) * (size_t)(q + 1) + (size_t)(r)]
    CELL(0, 0).set = true;
    for (int i = 1; i <= m; i++) {
        for (int r = 0; r <= q; r++) {
            Cell *best = &CELL(i, r);
            /* The last segment: children [j, i) on the home rank beside
             * the others (ranks 0: they add to its work), on a rank of
             * their own, or child i-1 alone on several. */
            for (int j = i - 1; j >= 0; j--) {
                for (int ranks = 0; ranks <= r; ranks++) {
                    if (ranks > 1 && j != i - 1)
                        continue;
                    const Cell *prev = &CELL(j, r - ranks);
                    if (!prev->set)
                        continue;
                    Cost seg = {0, 0};
                    if (ranks <= 1) {
                        for (int k = j; k < i; k++) {
                            Cost c = sum_on_one_rank(P, n->children[k]);
                            seg.latency += c.latency;
                        }
                        seg.load = seg.latency;
                    } else {
                        seg = plan(P, n->children[i - 1], ranks);
                    }
                    double cut = ranks == 0 ? 0 : cut_seconds(P, n, j, i - j);
                    /* The first ranks taken start at the home rank, where
                     * the home segments run: their work adds up there. */
                    bool on_home = ranks == 0 || r - ranks == 0;
                    Cost c;
                    if (on_home) {
                        c.latency = prev->cost.latency + cut + seg.latency;
                        c.load = prev->cost.load + seg.load + cut;
                        /* A pipeline's stage back on the home rank after
                         * stages on others (r >= 2: ranks beyond the home
                         * one are in use) waits there for their items of
                         * the same set before the home rank can start the
                         * next set's first stages: nothing overlaps, and
                         * each set takes the whole latency. */
                        if (ranks == 0 && r >= 2 && !side_by_side && c.load < c.latency)
                            c.load = c.latency;
                    } else if (side_by_side) {
                        c.latency = prev->cost.latency > seg.latency + cut ? prev->cost.latency
                                                                           : seg.latency + cut;
                        c.load = prev->cost.load > seg.load + cut ? prev->cost.load : seg.load + cut;
                    } else {
                        c.latency = prev->cost.latency + cut + seg.latency;
                        c.load = prev->cost.load > seg.load + cut ? prev->cost.load : seg.load + cut;
                    }
                    if (!best->set || better(P, c, best->cost)) {
                        *best = (Cell){c, true, {j, i - j, ranks}, r - ranks};
                    }
                }
            }
        }
    }
    int best_r = 0;     /* 0: everything on the home rank */
    for (int r = 1; r <= q; r++)
        if (CELL(m, r).set && better(P, CELL(m, r).cost, CELL(m, best_r).cost))
            best_r = r;
    Cost result = CELL(m, best_r).cost;
    if (segs) {
        int count = 0;
        for (int i = m, r = best_r; i > 0;) {
            const Cell *c = &CELL(i, r);
            segs[count++] = c->last;
            i = c->last.first;
            r = c->prev_ranks;
        }
        for (int a = 0, b = count - 1; a < b; a++, b--) {
            Segment t = segs[a];
            segs[a] = segs[b];
            segs[b] = t;
        }
        *nsegs = count;
    }
#undef CELL
    free(cells);
    return result;
}

/* Every child on all q ranks, one child after the other (time
 * multiplexing): each spreads its own work (a data-parallel filter over q
 * copies) and its results gather on the home rank before the next starts. */
static Cost time_multiplexed(Partitioner *P, const StreamNode *n, int q)
{
    Cost c = {0, 0};
    for (int i = 0; i < n->nchildren; i++) {
        Cost k = plan(P, n->children[i], q);
        c.latency += k.latency;
        c.load += k.load;
    }
    return c;
}

static Cost plan(Partitioner *P, const StreamNode *n, int q)
{
    size_t key = (size_t)n->id * (size_t)(P->maxq + 1) + (size_t)q;
    if (P->known[key])
        return P->memo[key];
    Cost c;
    int copies;
    P->multiplexed[key] = false;
    if (n->kind == STREAM_FILTER) {
        c = plan_filter(P, n, q, &copies);
    } else if (n->kind == STREAM_FEEDBACKLOOP || q == 1 || n->nchildren == 0) {
        c = sum_on_one_rank(P, n);
    } else {
        c = plan_children(P, n, q, NULL, NULL);
        Cost tm = time_multiplexed(P, n, q);
        if (better(P, tm, c)) {
            c = tm;
            P->multiplexed[key] = true;
        }
    }
    P->memo[key] = c;
    P->known[key] = true;
    return c;
}

/* ---------------------------------------------------------------- assignment */

static void place_all(StreamNode *n, int rank)
{
    if (n->kind == STREAM_FILTER) {
        n->filter.rank = rank;
        return;
    }
    for (int i = 0; i < n->nchildren; i++)
        place_all(n->children[i], rank);
}

/* Fission into `copies` copies, copy j on rank base + j. The copies are
 * the newest nodes of the graph (stream_filter_copy appends them). */
static void split_over_ranks(StreamNode *n, int64_t reps, int copies, int base)
{
    StreamGraph *g = n->graph;
    int before = g->nnodes;
    if (sched_fission_filter(n, reps, copies) == 0)
        return;
    int j = 0;
    for (int id = before; id < g->nnodes; id++)
        if (g->nodes[id]->kind == STREAM_FILTER)
            g->nodes[id]->filter.rank = base + j++;
}

/* Places n on ranks [base, base + q) as plan() chose; fission splits the
 * filters it chose to split (the schedule is stale afterwards). */
static void assign(Partitioner *P, StreamNode *n, int q, int base)
{
    if (n->kind == STREAM_FILTER) {
        int copies = 1;
        plan_filter(P, n, q, &copies);
        n->filter.rank = base;
        if (copies > 1)
            split_over_ranks(n, filter_reps(P, n), copies, base);
        return;
    }
    if (n->kind == STREAM_FEEDBACKLOOP || q == 1 || n->nchildren == 0) {
        place_all(n, base);
        return;
    }
    plan(P, n, q);
    if (P->multiplexed[(size_t)n->id * (size_t)(P->maxq + 1) + (size_t)q]) {
        /* Children are read before fission replaces any of them. */
        int m = n->nchildren;
        StreamNode **kids = xcalloc((size_t)m + 1, sizeof *kids);
        memcpy(kids, n->children, (size_t)m * sizeof *kids);
        for (int i = 0; i < m; i++)
            assign(P, kids[i], q, base);
        free(kids);
        return;
    }
    Segment *segs = xcalloc((size_t)n->nchildren + 1, sizeof *segs);
    int nsegs = 0;
    plan_children(P, n, q, segs, &nsegs);
    /* Children are read before fission replaces any of them. */
    StreamNode **kids = xcalloc((size_t)n->nchildren + 1, sizeof *kids);
    memcpy(kids, n->children, (size_t)n->nchildren * sizeof *kids);
    int rank = base;
    for (int s = 0; s < nsegs; s++) {
        for (int k = segs[s].first; k < segs[s].first + segs[s].count; k++)
            if (segs[s].ranks > 1)
                assign(P, kids[k], segs[s].ranks, rank);
            else
                place_all(kids[k], segs[s].ranks == 0 ? base : rank);
        rank += segs[s].ranks;
    }
    free(kids);
    free(segs);
}

/* ---------------------------------------------------------------- the schedule's actors */

/* The rank of a splitter or joiner: its container's first filter's (the
 * home rank); the input and output are rank 0's, where the files are. */
static int first_filter_rank(const StreamNode *n)
{
    while (n->kind != STREAM_FILTER) {
        if (n->nchildren == 0)
            return 0;
        n = n->children[0];
    }
    return n->filter.rank >= 0 ? n->filter.rank : 0;
}

void sched_rank_actors(Schedule *s, int nranks, const PartitionOptions *o)
{
    const StreamFlat *f = s->flat;
    s->nranks = nranks;
    s->actor_rank = xcalloc((size_t)f->nactors + 1, sizeof *s->actor_rank);
    s->actor_seconds = xcalloc((size_t)f->nactors + 1, sizeof *s->actor_seconds);
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind == ACTOR_FILTER) {
            s->actor_rank[a] = actor->node->filter.rank >= 0 ? actor->node->filter.rank : 0;
            s->actor_seconds[a] = (double)s->repetitions[a] * sched_firing_seconds(&actor->node->filter, o);
        } else if (actor->kind == ACTOR_SPLITTER || actor->kind == ACTOR_JOINER) {
            s->actor_rank[a] = first_filter_rank(actor->node);
        }
    }
}

static Partitioner *partitioner_new(const Schedule *s, const PartitionOptions *o)
{
    Partitioner *P = xcalloc(1, sizeof *P);
    P->o = o;
    P->s = s;
    P->maxq = o->nranks;
    size_t nodes = (size_t)s->root->graph->nnodes + 1;
    P->actor_of_node = xcalloc(nodes, sizeof *P->actor_of_node);
    P->node_seconds = xcalloc(nodes, sizeof *P->node_seconds);
    P->node_in_bytes = xcalloc(nodes, sizeof *P->node_in_bytes);
    P->node_out_bytes = xcalloc(nodes, sizeof *P->node_out_bytes);
    P->node_in_msgs = xcalloc(nodes, sizeof *P->node_in_msgs);
    P->memo = xcalloc(nodes * (size_t)(P->maxq + 1), sizeof *P->memo);
    P->known = xcalloc(nodes * (size_t)(P->maxq + 1), sizeof *P->known);
    P->multiplexed = xcalloc(nodes * (size_t)(P->maxq + 1), sizeof *P->multiplexed);
    for (size_t i = 0; i < nodes; i++)
        P->actor_of_node[i] = -1;
    const StreamFlat *f = s->flat;
    /* what every rank makes for itself from the inputs (views, routes,
     * allocations) runs where it is needed, at next to no cost: it does
     * not weigh on the rank the partitioner names for it */
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind != ACTOR_FILTER)
            continue;
        P->actor_of_node[actor->node->id] = a;
        P->node_seconds[actor->node->id] =
            s->replicated[a] ? 0 : (double)s->repetitions[a] * sched_firing_seconds(&actor->node->filter, o);
    }
    count_traffic(P);
    return P;
}

static void partitioner_free(Partitioner *P)
{
    free(P->actor_of_node);
    free(P->node_seconds);
    free(P->node_in_bytes);
    free(P->node_out_bytes);
    free(P->node_in_msgs);
    free(P->memo);
    free(P->known);
    free(P->multiplexed);
    free(P);
}

/* The first print or warning a filter of n runs, or NULL. */
static const IrNode *stream_prints(const StreamNode *n)
{
    if (n->kind == STREAM_FILTER) {
        for (int i = 0; i < n->filter.nnodes; i++) {
            const IrNode *at = ir_node_prints(n->filter.nodes[i]);
            if (at)
                return at;
        }
        return NULL;
    }
    for (int i = 0; i < n->nchildren; i++) {
        const IrNode *at = stream_prints(n->children[i]);
        if (at)
            return at;
    }
    return NULL;
}

Schedule *sched_partition(Schedule *s, const PartitionOptions *o, FILE *err)
{
    char why[320] = "";
    double latency = -1;    /* the chosen plan's L, when the partitioner spread it */
    StreamNode *root = s->root;
    int nodes_before = root->graph->nnodes;
    place_all(root, 0);
    int used = 1;
    /* rank 0 alone: its filters' times at its rates alone (the schedule's
     * est ms) when the placement keeps everything there */
    PartitionOptions ao = *o;
    ao.flops_per_s = o->alone_flops_per_s > 0 ? o->alone_flops_per_s : o->flops_per_s;
    ao.bytes_per_s = o->alone_bytes_per_s > 0 ? o->alone_bytes_per_s : o->bytes_per_s;
    ao.math_per_s = o->alone_math_per_s > 0 ? o->alone_math_per_s : o->math_per_s;
    const PartitionOptions *rated = &ao;
    /* Only rank 0's output is shown (the driver quiets the others): a
     * program that prints keeps every filter there. */
    const IrNode *prints = o->nranks > 1 ? stream_prints(root) : NULL;
    if (prints) {
        snprintf(why, sizeof why, "all on rank 0: a filter prints (%s, graph text line %d) and "
                 "only rank 0's output is shown", prints->kind, prints->line);
        used = o->nranks;
    } else if (o->nranks > 1) {
        Partitioner *A = partitioner_new(s, &ao);
        Cost alone = sum_on_one_rank(A, root);
        partitioner_free(A);
        Partitioner *P = partitioner_new(s, o);
        Cost spread = plan(P, root, o->nranks);
        if (score(P, spread) < 0.98 * score(P, alone)) {
            assign(P, root, o->nranks, 0);
            rated = o;
            latency = spread.latency;
            snprintf(why, sizeof why, "estimated %.3g ms per run on %d ranks against %.3g ms on one",
                     score(P, spread) * 1e3 / (double)o->sets, o->nranks,
                     score(P, alone) * 1e3 / (double)o->sets);
        } else {
            snprintf(why, sizeof why, "all on rank 0: the estimated %.3g ms per run on one rank would not "
                     "drop on %d ranks (%.3g ms): messages would cost more than they save",
                     score(P, alone) * 1e3 / (double)o->sets, o->nranks,
                     score(P, spread) * 1e3 / (double)o->sets);
        }
        partitioner_free(P);
        used = o->nranks;
    }
    StreamGraph *g = root->graph;
    if (g->nnodes != nodes_before) {     /* fission changed the graph: plan it again */
        Schedule *split = sched_build(g->root, err);
        sched_free(s);
        if (!(s = split))
            return NULL;
    }
    sched_rank_actors(s, used, rated);
    sched_predict(s, rated, latency);
    if (why[0])
        s->placement_note = xstrdup(why);
    return s;
}
