/* predict.c — the cost model's prediction for a placed schedule: what
 * --emit=schedule prints under its "cost model:" lines (and its JSON
 * "cost" object), so that a measured run can be held against it.
 *
 * Per rank, per steady state:
 *   work          the sum of its filters' estimates (partition.c's cost of
 *                 a firing times the repetitions: s->actor_seconds), less
 *                 what every rank makes for itself from the inputs (views,
 *                 routes: Schedule.replicated), which the partitioner
 *                 takes as free
 *   messages in   every channel that enters the rank from another and
 *                 carries its items in messages (not what every rank makes
 *                 itself, nor result rows kept until they are written:
 *                 sched_channel_messaged): one message per producer firing
 *                 at the link's latency, plus the channel's bytes over the
 *                 link's bandwidth
 *   messages out  the same for the channels that leave it
 *   total         work + in + out (a rank sends, receives and computes in
 *                 turn: the runtime does not overlap them within a rank)
 * The bottleneck B is the largest total. The latency L is the
 * partitioner's for the plan it chose (its L, partition.c); for a placement
 * it did not plan (everything kept on rank 0, or a --place file) it is the
 * finish time of one steady state simulated actor by actor in a
 * topological order of the channels (feedback channels left out): an actor
 * starts when its rank is free and its inputs have arrived (a message
 * where they cross ranks), and runs for its estimate; never below B.
 * `sets` steady states back to back (--repeat N: N + 1 sets; --inputs: one
 * per set) take L + (sets - 1) * B, the score the partitioner minimises.
 */
#include <stdlib.h>

#include "scheduler/sched_internal.h"
#include "tssa/schedule.h"
#include "tssa/util.h"

static double link_seconds(const PartitionOptions *o, double bytes, double messages)
{
    return messages * o->link_latency_s + bytes / o->link_bytes_per_s;
}

/* The seconds of every channel's messages per steady state (0 when both
 * ends are on one rank, or when no message carries its items: partition.c's
 * sched_channel_messaged). */
static double *channel_seconds(const Schedule *s, const PartitionOptions *o)
{
    const StreamFlat *f = s->flat;
    double *item = sched_item_bytes(s);
    double *secs = xcalloc((size_t)f->nchannels + 1, sizeof *secs);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        if (s->actor_rank[ch->src] == s->actor_rank[ch->dst] || !sched_carries_items(ch) ||
            !sched_channel_messaged(s, ch))
            continue;
        secs[c] = link_seconds(o, sched_channel_bytes(s, item, c), (double)s->repetitions[ch->src]);
    }
    free(item);
    return secs;
}

/* One steady state's finish time, simulated (see the header). */
static double simulated_latency(const Schedule *s, const double *msg, int nranks)
{
    const StreamFlat *f = s->flat;
    int n = f->nactors;
    int *waiting = xcalloc((size_t)n + 1, sizeof *waiting);
    int *ready = xcalloc((size_t)n + 1, sizeof *ready);
    double *arrive = xcalloc((size_t)n + 1, sizeof *arrive);
    double *rank_free = xcalloc((size_t)nranks + 1, sizeof *rank_free);
    for (int c = 0; c < f->nchannels; c++)
        if (!f->channels[c].feedback)
            waiting[f->channels[c].dst]++;
    int head = 0, tail = 0;
    for (int a = 0; a < n; a++)
        if (waiting[a] == 0)
            ready[tail++] = a;
    double latency = 0;
    while (head < tail) {
        int a = ready[head++];
        int r = s->actor_rank[a];
        double start = arrive[a] > rank_free[r] ? arrive[a] : rank_free[r];
        double finish = start + (s->actor_seconds && !s->replicated[a] ? s->actor_seconds[a] : 0);
        rank_free[r] = finish;
        latency = finish > latency ? finish : latency;
        const StreamActor *actor = &f->actors[a];
        for (int p = 0; p < actor->nout; p++) {
            int c = actor->out[p];
            if (f->channels[c].feedback)
                continue;
            int d = f->channels[c].dst;
            double at = finish + msg[c];
            arrive[d] = at > arrive[d] ? at : arrive[d];
            if (--waiting[d] == 0)
                ready[tail++] = d;
        }
    }
    free(waiting);
    free(ready);
    free(arrive);
    free(rank_free);
    return latency;
}

void sched_predict(Schedule *s, const PartitionOptions *o, double latency_s)
{
    SchedPrediction *p = &s->predicted;
    free(p->rank_work_s);
    free(p->rank_in_s);
    free(p->rank_out_s);
    int nranks = s->nranks > 0 ? s->nranks : 1;
    *p = (SchedPrediction){
        .known = true, .flops_per_s = o->flops_per_s, .bytes_per_s = o->bytes_per_s,
        .math_per_s = o->math_per_s, .firing_s = o->firing_s, .link_latency_s = o->link_latency_s,
        .link_bytes_per_s = o->link_bytes_per_s, .sets = o->sets > 0 ? o->sets : 1, .nranks = nranks,
        .rank_work_s = xcalloc((size_t)nranks, sizeof(double)),
        .rank_in_s = xcalloc((size_t)nranks, sizeof(double)),
        .rank_out_s = xcalloc((size_t)nranks, sizeof(double)),
    };
    const StreamFlat *f = s->flat;
    /* What every rank makes for itself from the inputs (views, routes,
     * allocations) is free to the partitioner (partition.c), so here too. */
    for (int a = 0; a < f->nactors; a++)
        if (s->actor_seconds && s->actor_rank[a] < nranks && !s->replicated[a])
            p->rank_work_s[s->actor_rank[a]] += s->actor_seconds[a];
    double *msg = channel_seconds(s, o);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        if (msg[c] > 0 && s->actor_rank[ch->src] < nranks && s->actor_rank[ch->dst] < nranks) {
            p->rank_out_s[s->actor_rank[ch->src]] += msg[c];
            p->rank_in_s[s->actor_rank[ch->dst]] += msg[c];
        }
    }
    for (int r = 0; r < nranks; r++) {
        double total = p->rank_work_s[r] + p->rank_in_s[r] + p->rank_out_s[r];
        p->bottleneck_s = total > p->bottleneck_s ? total : p->bottleneck_s;
    }
    p->latency_s = latency_s >= 0 ? latency_s : simulated_latency(s, msg, nranks);
    if (p->latency_s < p->bottleneck_s)
        p->latency_s = p->bottleneck_s;
    free(msg);
}
