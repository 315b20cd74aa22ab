/* schedule_json.c — the schedule as JSON (--emit=schedule --json).
 *
 * Schema (every count an exact integer, written as JSON numbers from int64):
 *   {
 *     "stream": "Echo", "kind": "pipeline",
 *     "items_in": 1, "items_out": 1,          per steady state
 *     "actors": [{
 *         "index": 0, "path": "Echo/join", "kind": "join",
 *                        (input, output, split, join; a filter's role:
 *                         filter, identity, separator)
 *         "pop": [1, 1], "peek": [1, 1], "push": [2],   per port and firing
 *         "repetitions": 1, "init_firings": 0,
 *         "rank": 0, "device": "cpu", "est_seconds": 1e-6,  placement
 *         "firing_seconds": 1e-7,                     est_seconds / repetitions
 *                                                     (device "cuda:D" on the cuda backend)
 *                        (null before placement; est_seconds: work
 *                         filters' estimated time per steady state)
 *         "stateful": false, "work": "aten::add"          filters only
 *         "inner": {...}     a hierarchical filter only: its inner stream's
 *                            own schedule, an object of this schema
 *     }, ...],
 *     "init":   [{"actor": 0, "firings": 2}, ...],       phases in order;
 *     "steady": [...],                 {"repeat": R, "span": L} runs the L
 *                                      entries before it R more times
 *     "channels": [{
 *         "index": 0, "from": 0, "from_port": 0, "to": 1, "to_port": 0,
 *         "push": 1, "pop": 1, "peek": 1, "initial": 0, "feedback": false,
 *         "fill_after_init": 0, "buffer": 1,
 *         "from_rank": 0, "to_rank": 1                   null before placement
 *     }, ...],
 *     "ranks": 2, "placement_note": "..."     null before placement
 *     "cost": {                                null before placement
 *         "flops_per_s": 2e10, "bytes_per_s": 1e10, "math_per_s": 2e9,
 *         "firing_s": 2e-6,
 *         "link_latency_s": 5e-6, "link_bytes_per_s": 5e9,   the rates used
 *         "ranks": [{"rank": 0, "work_s": ..., "messages_in_s": ...,
 *                    "messages_out_s": ..., "total_s": ...}, ...],
 *         "latency_s": L, "bottleneck_s": B,     per steady state
 *         "sets": 10, "predicted_s": L + (sets - 1) B,
 *         "predicted_per_set_s": predicted_s / sets
 *     }                                 (scheduler/predict.c says how)
 *     "device_note": "..."                     --devices N: the predicted speedup (absent otherwise)
 *   }
 * The same actors and channels as the table: the external input and output
 * only when they carry items. Integers go through cJSON's raw values so
 * counts above 2^53 stay exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/schedule.h"

static cJSON *json_int(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return cJSON_CreateRaw(buf);
}

static void add_int(cJSON *obj, const char *key, int64_t v)
{
    cJSON_AddItemToObject(obj, key, json_int(v));
}

static char *actor_path(const StreamActor *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        diag_die("out of memory (schedule json)");
    stream_actor_print_path(m, a);
    fclose(m);
    return text;
}

/* kind 0: pops, 1: peeks, 2: pushes of the actor's ports. */
static cJSON *port_rates(const StreamFlat *f, const StreamActor *a, int kind)
{
    cJSON *list = cJSON_CreateArray();
    int n = kind == 2 ? a->nout : a->nin;
    const int *ports = kind == 2 ? a->out : a->in;
    for (int p = 0; p < n; p++) {
        const StreamChannel *c = &f->channels[ports[p]];
        cJSON_AddItemToArray(list, json_int(kind == 0 ? c->pop : kind == 1 ? c->peek : c->push));
    }
    return list;
}

static cJSON *phases_json(const SchedPhase *phases, int n)
{
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        if (phases[i].actor == SCHED_REPEAT) {
            add_int(p, "repeat", phases[i].firings);
            add_int(p, "span", phases[i].span);
        } else {
            add_int(p, "actor", phases[i].actor);
            add_int(p, "firings", phases[i].firings);
        }
        cJSON_AddItemToArray(list, p);
    }
    return list;
}

static void add_rank(cJSON *obj, const char *key, const Schedule *s, int actor)
{
    if (s->actor_rank)
        add_int(obj, key, s->actor_rank[actor]);
    else
        cJSON_AddNullToObject(obj, key);
}

static cJSON *prediction_json(const SchedPrediction *p)
{
    if (!p->known)
        return cJSON_CreateNull();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "flops_per_s", p->flops_per_s);
    cJSON_AddNumberToObject(j, "bytes_per_s", p->bytes_per_s);
    cJSON_AddNumberToObject(j, "math_per_s", p->math_per_s);
    cJSON_AddNumberToObject(j, "firing_s", p->firing_s);
    cJSON_AddNumberToObject(j, "link_latency_s", p->link_latency_s);
    cJSON_AddNumberToObject(j, "link_bytes_per_s", p->link_bytes_per_s);
    cJSON *ranks = cJSON_AddArrayToObject(j, "ranks");
    for (int r = 0; r < p->nranks; r++) {
        cJSON *k = cJSON_CreateObject();
        add_int(k, "rank", r);
        cJSON_AddNumberToObject(k, "work_s", p->rank_work_s[r]);
        cJSON_AddNumberToObject(k, "messages_in_s", p->rank_in_s[r]);
        cJSON_AddNumberToObject(k, "messages_out_s", p->rank_out_s[r]);
        cJSON_AddNumberToObject(k, "total_s", p->rank_work_s[r] + p->rank_in_s[r] + p->rank_out_s[r]);
        cJSON_AddItemToArray(ranks, k);
    }
    cJSON_AddNumberToObject(j, "latency_s", p->latency_s);
    cJSON_AddNumberToObject(j, "bottleneck_s", p->bottleneck_s);
    add_int(j, "sets", p->sets);
    double total = p->latency_s + (double)(p->sets - 1) * p->bottleneck_s;
    cJSON_AddNumberToObject(j, "predicted_s", total);
    cJSON_AddNumberToObject(j, "predicted_per_set_s", total / (double)p->sets);
    return j;
}

static cJSON *schedule_json(const Schedule *s)
{
    const StreamFlat *f = s->flat;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "stream", s->root->name);
    cJSON_AddStringToObject(root, "kind", stream_node_keyword(s->root));
    int64_t in_items, out_items;
    sched_external_items(s, &in_items, &out_items);
    add_int(root, "items_in", in_items);
    add_int(root, "items_out", out_items);

    cJSON *actors = cJSON_AddArrayToObject(root, "actors");
    for (int a = 0; a < f->nactors; a++) {
        if (!sched_actor_shown(f, a))
            continue;
        const StreamActor *actor = &f->actors[a];
        cJSON *j = cJSON_CreateObject();
        add_int(j, "index", a);
        char *path = actor_path(actor);
        cJSON_AddStringToObject(j, "path", path);
        free(path);
        cJSON_AddStringToObject(j, "kind", actor->kind == ACTOR_FILTER ? stream_node_keyword(actor->node)
                                                                        : stream_actor_kind_name(actor->kind));
        cJSON_AddItemToObject(j, "pop", port_rates(f, actor, 0));
        cJSON_AddItemToObject(j, "peek", port_rates(f, actor, 1));
        cJSON_AddItemToObject(j, "push", port_rates(f, actor, 2));
        add_int(j, "repetitions", s->repetitions[a]);
        add_int(j, "init_firings", s->init_firings[a]);
        bool filter = actor->kind == ACTOR_FILTER;
        add_rank(j, "rank", s, a);
        char device[32];
        if (s->actor_rank)
            cJSON_AddStringToObject(j, "device", sched_actor_device(s, a, device, sizeof device));
        else
            cJSON_AddNullToObject(j, "device");
        if (s->actor_seconds && filter && actor->node->filter.role == FILTER_WORK) {
            cJSON_AddNumberToObject(j, "est_seconds", s->actor_seconds[a]);
            cJSON_AddNumberToObject(j, "firing_seconds", s->repetitions[a] > 0
                                    ? s->actor_seconds[a] / (double)s->repetitions[a] : 0);
        }
        if (filter) {
            cJSON_AddBoolToObject(j, "stateful", actor->node->filter.stateful);
            if (actor->node->filter.work_op)
                cJSON_AddStringToObject(j, "work", actor->node->filter.work_op);
            for (int i = 0; i < s->ninner; i++)
                if (s->inner_actor[i] == a)
                    cJSON_AddItemToObject(j, "inner", schedule_json(s->inner[i]));
        }
        cJSON_AddItemToArray(actors, j);
    }
    cJSON_AddItemToObject(root, "init", phases_json(s->init, s->ninit));
    cJSON_AddItemToObject(root, "steady", phases_json(s->steady, s->nsteady));

    cJSON *channels = cJSON_AddArrayToObject(root, "channels");
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        if (!sched_actor_shown(f, ch->src) || !sched_actor_shown(f, ch->dst))
            continue;
        cJSON *j = cJSON_CreateObject();
        add_int(j, "index", c);
        add_int(j, "from", ch->src);
        add_int(j, "from_port", ch->src_port);
        add_int(j, "to", ch->dst);
        add_int(j, "to_port", ch->dst_port);
        add_int(j, "push", ch->push);
        add_int(j, "pop", ch->pop);
        add_int(j, "peek", ch->peek);
        add_int(j, "initial", ch->initial);
        cJSON_AddBoolToObject(j, "feedback", ch->feedback);
        add_int(j, "fill_after_init", s->fill_after_init[c]);
        add_int(j, "buffer", s->buffer_size[c]);
        add_rank(j, "from_rank", s, ch->src);
        add_rank(j, "to_rank", s, ch->dst);
        cJSON_AddItemToArray(channels, j);
    }
    if (s->actor_rank)
        add_int(root, "ranks", s->nranks);
    else
        cJSON_AddNullToObject(root, "ranks");
    if (s->device_note)
        cJSON_AddStringToObject(root, "device_note", s->device_note);
    if (s->placement_note)
        cJSON_AddStringToObject(root, "placement_note", s->placement_note);
    else
        cJSON_AddNullToObject(root, "placement_note");
    cJSON_AddItemToObject(root, "cost", prediction_json(&s->predicted));
    return root;
}

void sched_print_json(FILE *out, const Schedule *s)
{
    cJSON *root = schedule_json(s);
    char *text = cJSON_Print(root);
    if (!text)
        diag_die("out of memory (schedule json)");
    fputs(text, out);
    fputc('\n', out);
    cJSON_free(text);
    cJSON_Delete(root);
}
