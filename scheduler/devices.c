/* devices.c — the GPUs of a rank as devices of the placement (--backend=cuda,
 * --devices N).
 *
 * Every work filter gets a device (0 unless said otherwise). With N >= 2
 * devices, each data-parallel work filter (one fission may split:
 * sched_fission_eligible) becomes N copies behind a round-robin split-join
 * (scheduler/fission.c), copy j on device j: the horizontal parallelism of
 * a loop body spread over the devices, each copy firing about reps/N times.
 * Filters that keep state, peek, or sit in a feedback loop stay whole on
 * device 0; data movers (splitters, joiners, unstack/stack routes) have no
 * device: the executor runs them on the host.
 *
 * It runs before the rank partitioner, which then places the copies on
 * ranks as it places any filter; each copy keeps its device, so a point of
 * the placement is (rank, device). Devices are logical: the cuda backend
 * maps device d to GPU d of its rank, or, with fewer GPUs than devices,
 * shares them out (one GPU standing in for several).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tssa/schedule.h"
#include "tssa/stream.h"
#include "tssa/util.h"

static void set_device(StreamNode *n, int device)
{
    if (n->kind == STREAM_FILTER) {
        if (n->filter.role == FILTER_WORK)
            n->filter.device = device;
        return;
    }
    for (int i = 0; i < n->nchildren; i++)
        set_device(n->children[i], device);
}

Schedule *sched_place_devices(Schedule *s, int ndevices, FILE *err)
{
    const StreamFlat *f = s->flat;
    StreamNode **graph_nodes = s->root->graph->nodes;
    set_device(s->root, 0);
    if (ndevices < 2)
        return s;
    /* The eligible filters first: fission adds nodes while the flat view
     * still describes the graph as it was. */
    StreamNode **split = xcalloc((size_t)f->nactors + 1, sizeof *split);
    int64_t *reps = xcalloc((size_t)f->nactors + 1, sizeof *reps);
    int n = 0;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind == ACTOR_FILTER && actor->node->filter.role == FILTER_WORK &&
            sched_fission_eligible(actor->node, s->repetitions[a])) {
            split[n] = graph_nodes[actor->node->id];
            reps[n++] = s->repetitions[a];
        }
    }
    for (int i = 0; i < n; i++) {
        StreamNode *sj = sched_fission_split(split[i], reps[i], ndevices);
        for (int j = 0; sj && j < sj->nchildren; j++)
            set_device(sj->children[j], j % ndevices);
    }
    free(split);
    free(reps);
    if (n == 0)
        return s;
    StreamNode *root = s->root;
    sched_free(s);
    return sched_build(root, err);
}

const char *sched_actor_device(const Schedule *s, int a, char *buf, size_t size)
{
    if (!s->actor_rank)
        return "-";
    const StreamActor *actor = &s->flat->actors[a];
    if (actor->kind != ACTOR_FILTER || actor->node->filter.device < 0)
        return "cpu";
    snprintf(buf, size, "cuda:%d", actor->node->filter.device);
    return buf;
}
