/* place_file.c — `--place FILE`: a placement the user pins, for
 * experiments.
 *
 * The file is one JSON object with two optional members:
 *     {
 *       "fission": {"Body_L14": 2},
 *       "ranks":   {"Body_L14_0": 0, "Body_L14_1": 1, "Stack_L14": 1}
 *     }
 * "fission" splits each named filter into K data-parallel copies (named
 * NAME_0 ... NAME_{K-1}, as --fission names them); "ranks" puts each named
 * filter on a rank. Names are the filters' names as --emit=schedule prints
 * the last part of their path; a name that several filters share, or none,
 * is an error, as is a rank outside the run's ranks, a filter fission may
 * not split (sched_fission_eligible), or any other member. Filters the
 * file does not name run on rank 0. Splitters and joiners go with their
 * container's first filter, as the partitioner places them.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/sched_internal.h"
#include "tssa/schedule.h"
#include "tssa/util.h"

/* The one filter of the stream under root named name, or NULL with *count
 * how many there were. */
static StreamNode *find_filter(StreamNode *n, const char *name, int *count)
{
    if (n->kind == STREAM_FILTER) {
        if (strcmp(n->name, name) != 0)
            return NULL;
        (*count)++;
        return n;
    }
    StreamNode *found = NULL;
    for (int i = 0; i < n->nchildren; i++) {
        StreamNode *f = find_filter(n->children[i], name, count);
        found = f ? f : found;
    }
    return found;
}

static StreamNode *named_filter(StreamNode *root, const char *path, const char *member, const char *name,
                                FILE *err)
{
    int count = 0;
    StreamNode *f = find_filter(root, name, &count);
    if (count == 1)
        return f;
    fprintf(err, "%s: error: \"%s\": %s filter '%s'%s\n", path, member,
            count ? "more than one" : "no", name,
            count ? " (names are as --emit=schedule prints them)" : " (see --emit=schedule for the names)");
    return NULL;
}

static int64_t repetitions_of(const Schedule *s, const StreamNode *n)
{
    for (int a = 0; a < s->flat->nactors; a++)
        if (s->flat->actors[a].node == n)
            return s->repetitions[a];
    return 0;
}

static bool whole_number(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble == (double)(int64_t)v->valuedouble && v->valuedouble >= lo &&
           v->valuedouble <= hi;
}

static bool apply_fission(Schedule *s, const cJSON *fission, const char *path, FILE *err)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, fission) {
        StreamNode *f = named_filter(s->root->graph->root, path, "fission", item->string, err);
        if (!f)
            return false;
        if (!whole_number(item, 1, 4096)) {
            fprintf(err, "%s: error: \"fission\": '%s' needs a whole number of copies from 1 to 4096\n", path,
                    item->string);
            return false;
        }
        int64_t reps = repetitions_of(s, f);
        int k = (int)item->valuedouble;
        if (k > 1 && !sched_fission_eligible(f, reps)) {
            fprintf(err, "%s: error: \"fission\": filter '%s' cannot be split (it keeps state, peeks, "
                    "is in a feedback loop or fires once per steady state)\n", path, item->string);
            return false;
        }
        if (k > 1)
            sched_fission_filter(f, reps, k);
    }
    return true;
}

static bool apply_ranks(StreamNode *root, const cJSON *ranks, const char *path, int nranks, FILE *err)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, ranks) {
        StreamNode *f = named_filter(root, path, "ranks", item->string, err);
        if (!f)
            return false;
        if (!whole_number(item, 0, nranks - 1)) {
            fprintf(err, "%s: error: \"ranks\": filter '%s' needs a rank from 0 to %d (this run has %d rank%s)\n",
                    path, item->string, nranks - 1, nranks, nranks == 1 ? "" : "s");
            return false;
        }
        f->filter.rank = (int)item->valuedouble;
    }
    return true;
}

static void all_on_rank_zero(StreamNode *n)
{
    if (n->kind == STREAM_FILTER)
        n->filter.rank = 0;
    for (int i = 0; n->kind != STREAM_FILTER && i < n->nchildren; i++)
        all_on_rank_zero(n->children[i]);
}

Schedule *sched_place_file(Schedule *s, const char *path, const PartitionOptions *o, FILE *err, bool *bad_file)
{
    *bad_file = true;
    size_t len = 0;
    char *text = NULL;
    if (!file_read_all(path, 1 << 24, &text, &len, err))
        text = NULL;
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    bool ok = cJSON_IsObject(doc);
    if (text && !ok)
        fprintf(err, "%s: error: not a JSON object (expected {\"fission\": {...}, \"ranks\": {...}})\n", path);
    const cJSON *member, *members = ok ? doc : NULL;
    cJSON_ArrayForEach(member, members) {
        if ((strcmp(member->string, "fission") != 0 && strcmp(member->string, "ranks") != 0) ||
            !cJSON_IsObject(member)) {
            fprintf(err, "%s: error: \"%s\": expected only \"fission\" and \"ranks\", each an object of "
                    "filter names\n", path, member->string);
            ok = false;
            break;
        }
    }
    StreamGraph *g = s->root->graph;
    int nodes_before = g->nnodes;
    ok = ok && apply_fission(s, cJSON_GetObjectItemCaseSensitive(doc, "fission"), path, err);
    if (ok && g->nnodes != nodes_before) {     /* fission changed the graph: plan it again */
        Schedule *split = sched_build(g->root, err);
        sched_free(s);
        s = split;
        if (!s)
            *bad_file = false;  /* a graph that cannot be scheduled now is the compiler's fault */
        ok = s != NULL;
    }
    if (ok) {
        all_on_rank_zero(g->root);
        ok = apply_ranks(g->root, cJSON_GetObjectItemCaseSensitive(doc, "ranks"), path, o->nranks, err);
    }
    cJSON_Delete(doc);
    if (!ok) {
        sched_free(s);
        return NULL;
    }
    *bad_file = false;
    sched_rank_actors(s, o->nranks, o);
    sched_predict(s, o, -1);
    return s;
}
