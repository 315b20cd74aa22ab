/* fission.c — StreamIt's fission: a stateless filter that fires N times per
 * steady state becomes k data-parallel copies behind a round-robin
 * split-join, each firing about N/k times.
 *
 * A filter F (pop o, push u, repetitions N) is replaced, at the same place
 * in its parent (pipeline stage, split-join branch, or the graph's root),
 * by
 *     splitjoin F_fission {
 *       split roundrobin(o*w_0, ..., o*w_{c-1});
 *       F_0; ...; F_{c-1};              copies of F
 *       join roundrobin(u*w_0, ..., u*w_{c-1});
 *     }
 * with c = min(k, N) copies and w_j = N/c + (j < N%c ? 1 : 0), so the
 * weights sum to N and copy j fires w_j times per steady state. One firing
 * of the splitter hands copy j the items of w_j consecutive firings of F,
 * in order, and the joiner collects their outputs in the same order: the
 * split-join's output stream is F's, which is why F must not keep state
 * between firings. It consumes o*N and produces u*N items per local steady
 * state, F's own traffic per steady state, so the weights of F's parent
 * stay valid and every other actor keeps its repetitions (the split-join
 * fires once per steady state); fissing one filter does not change another
 * filter's N.
 *
 * Eligible filters: work or identity filters (a separator only drops
 * items), not stateful, peek == pop (a peeking filter's copies would need
 * the items of their neighbours' windows: StreamIt duplicates them; not
 * done here), moving items (pop or push > 0), firing N >= 2 times, not
 * inside a feedback loop, and with o*N and u*N within STREAM_MAX_RATE (the
 * splitter's and joiner's weights). Inside a feedback loop a split-join's
 * splitter would wait for the items of N firings at once where the filter
 * could fire as each item came around the loop path: with few enqueued
 * items the loop deadlocks.
 *
 * A filter inside a phased loop (StreamPhasing in stream.h: a long loop run
 * in phases of C iterations) fires C times per phase, but the split-join's
 * weights hand out all N firings per steady state: its splitter would wait
 * for every phase's items at once while the loop's Unstack waits for the
 * Stack to finish the phase before it. Splitting such a filter first makes
 * its loop unphased again (every node of the loop's region loses its
 * phasing): the loop then holds all its iterations' items at once, as
 * before phases, and its body runs on k copies. Every splitting (--fission,
 * --devices, --place, the rank partitioner) comes through
 * sched_fission_split, so a loop stays phased exactly when nothing in it is
 * split.
 *
 * Copies share the filter's work (the lowering's LowerWork, the nodes it
 * runs): lowered work is stateless, every firing sees only the items it
 * pops, so executors fire copies like the original.
 */
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/rational.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"
#include "tssa/util.h"

static bool inside_feedback_loop(const StreamNode *n)
{
    for (const StreamNode *p = n->parent; p; p = p->parent)
        if (p->kind == STREAM_FEEDBACKLOOP)
            return true;
    return false;
}

/* The phased loop region (a pipeline with phasing) around n, or NULL. */
static StreamNode *phased_region(const StreamNode *n)
{
    for (StreamNode *p = n->parent; p; p = p->parent)
        if (p->kind == STREAM_PIPELINE && p->phasing)
            return p;
    return NULL;
}

static void clear_phasing(StreamNode *n)
{
    n->phasing = NULL;
    if (n->kind != STREAM_FILTER)
        for (int i = 0; i < n->nchildren; i++)
            clear_phasing(n->children[i]);
}

/* The loop around a filter about to be split runs unphased (see above). */
static void unphase_region(StreamNode *region)
{
    clear_phasing(region);
    char text[1024];
    snprintf(text, sizeof text, "%s\nunphased: a filter of the loop is split into data-parallel copies",
             region->comment ? region->comment : "");
    stream_node_set_comment(region, text);
}

bool sched_fission_eligible(const StreamNode *filter, int64_t reps)
{
    if (filter->kind != STREAM_FILTER)
        return false;
    const StreamFilter *f = &filter->filter;
    int64_t items_in, items_out;
    return (f->role == FILTER_WORK || f->role == FILTER_IDENTITY) && !f->stateful && f->peek == f->pop &&
           (f->pop > 0 || f->push > 0) && reps >= 2 && !inside_feedback_loop(filter) &&
           mul64(f->pop, reps, &items_in) && items_in <= STREAM_MAX_RATE && mul64(f->push, reps, &items_out) &&
           items_out <= STREAM_MAX_RATE;
}

int sched_fission_filter(StreamNode *filter, int64_t reps, int k)
{
    StreamNode *sj = sched_fission_split(filter, reps, k);
    return sj ? sj->nchildren : 0;
}

StreamNode *sched_fission_split(StreamNode *filter, int64_t reps, int k)
{
    if (k < 2 || !sched_fission_eligible(filter, reps))
        return NULL;
    StreamNode *region = phased_region(filter);
    if (region)
        unphase_region(region);
    int copies = reps < k ? (int)reps : k;
    StreamGraph *g = filter->graph;
    char name[STREAM_MAX_NAME + 32];
    snprintf(name, sizeof name, "%s_fission", filter->name);
    StreamNode *sj = stream_splitjoin_new(g, name, SPLIT_ROUNDROBIN);
    /* The split-join stands where the filter was: its declaration moves
     * there. */
    sj->line = filter->line;
    sj->col = filter->col;
    /* A lowered filter's comment (what its loop is) moves there, once, and
     * says how the loop's iterations are now shared out. */
    if (filter->comment) {
        char text[640];
        int64_t most = reps / copies + (reps % copies ? 1 : 0);
        snprintf(text, sizeof text, "%s\nfission: %d data-parallel copies firing %lld%s times each",
                 filter->comment, copies, (long long)most,
                 reps % copies ? " or one fewer" : "");
        stream_node_set_comment(sj, text);
    }
    for (int j = 0; j < copies; j++) {
        int64_t w = reps / copies + (j < reps % copies ? 1 : 0);
        snprintf(name, sizeof name, "%s_%d", filter->name, j);
        StreamNode *copy = stream_filter_copy(filter, name);
        copy->comment = NULL;
        stream_splitjoin_add(sj, copy, filter->filter.pop * w, filter->filter.push * w);
    }
    stream_replace(filter, sj);
    return sj;
}

int sched_fission_all(const Schedule *s, int k)
{
    const StreamFlat *f = s->flat;
    StreamNode **graph_nodes = s->root->graph->nodes;
    /* The eligible filters first: fission adds nodes to the graph while the
     * flat view still describes it as it was. */
    StreamNode **split = xcalloc((size_t)f->nactors + 1, sizeof *split);
    int64_t *reps = xcalloc((size_t)f->nactors + 1, sizeof *reps);
    int n = 0;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind == ACTOR_FILTER && sched_fission_eligible(actor->node, s->repetitions[a])) {
            split[n] = graph_nodes[actor->node->id];
            reps[n++] = s->repetitions[a];
        }
    }
    int count = 0;
    for (int i = 0; i < n; i++)
        count += sched_fission_filter(split[i], reps[i], k) > 0;
    free(split);
    free(reps);
    return count;
}
