/* test_fission.c — fission (scheduler/fission.c): filters split into
 * data-parallel copies behind round-robin split-joins.
 *
 * Hand-derived cases: small .str graphs whose repetitions are worked out in
 * the comments, the split graph's text written by hand for k dividing N, k
 * not dividing N and k > N, filters that must stay whole (peeking,
 * stateful, separators, inside a feedback loop, firing once), sources and
 * sinks, identities, and filters nested in split-joins; after fission the
 * schedule is rebuilt and checked by the token simulator (token_sim.h).
 *
 * The property: on random graphs (random_graph.h), split with k = 2, 3 and
 * 5, the items are the same. An item simulator here runs a schedule on
 * 64-bit items: the input is 1, 2, 3, ...; a filter firing pushes a hash of
 * its op (work_op, which copies keep), the items it peeks and the output's
 * index (stateful filters add their firing count); feedback loops start
 * with items hashed from the loop's name. Both graphs run their init phase
 * and STEADY steady states; by Kahn's determinism the outputs of both are
 * prefixes of one stream, so their common prefix (at least STEADY steady
 * states of output) must agree, and so must the windows every stateful
 * filter (never split: the sinks of closed graphs are made stateful, so
 * that what reaches them is seen) fires on. The filters split are counted
 * with this file's own reading of the eligibility rules.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/random_graph.h"
#include "scheduler/stream_test_util.h"
#include "scheduler/token_sim.h"
#include "test_util.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

/* ---------------------------------------------------------------- helpers */

static StreamGraph *parse(const char *text)
{
    StreamGraph *g = str_parse(text, strlen(text), "fission.str", stderr);
    CHECK(g != NULL);
    return g;
}

/* Schedules g, splits with k, reschedules (checked by the token simulator);
 * returns the new schedule (NULL on failure) and the split count. */
static Schedule *fiss(StreamGraph *g, int k, int *split)
{
    Schedule *s = sched_build(g->root, stderr);
    CHECK(s != NULL);
    *split = s ? sched_fission_all(s, k) : -1;
    sched_free(s);
    s = sched_build(g->root, stderr);
    CHECK(s != NULL);
    if (s)
        CHECK(token_sim_check(s, stderr));
    return s;
}

static int actor_by_path(const Schedule *s, const char *path)
{
    for (int a = 0; a < s->flat->nactors; a++) {
        FILE *f = test_capture_open();
        stream_actor_print_path(f, &s->flat->actors[a]);
        char *got = test_capture_close(f, NULL);
        bool same = strcmp(got, path) == 0;
        free(got);
        if (same)
            return a;
    }
    return -1;
}

static int64_t reps_of(const Schedule *s, const char *path)
{
    int a = actor_by_path(s, path);
    CHECK_MSG(a >= 0, "no actor %s", path);
    return a >= 0 ? s->repetitions[a] : -1;
}

/* ---------------------------------------------------------------- by hand */

/* C pops 4 and fires once; B pushes 1 per firing: 4; A pushes 2: 2.
 * The graph takes 2 items and gives 1 per steady state. */
static const char abc_text[] = "pipeline P {\n"
                               "  filter A pop 1 push 2 work a;\n"
                               "  filter B pop 1 push 1 work b;\n"
                               "  filter C pop 4 push 1 work c;\n"
                               "}\n";

static void test_k_divides_n(void)
{
    StreamGraph *g = parse(abc_text);
    int split = 0;
    Schedule *s = fiss(g, 2, &split);
    CHECK(split == 2);
    char *got = stream_text(g->root);
    /* A: N = 2, copies fire 1 and 1; B: N = 4, copies fire 2 and 2. */
    const char *want = "pipeline P {\n"
                       "  splitjoin A_fission {\n"
                       "    split roundrobin(1, 1);\n"
                       "    filter A_0 pop 1 push 2 work a;\n"
                       "    filter A_1 pop 1 push 2 work a;\n"
                       "    join roundrobin(2, 2);\n"
                       "  }\n"
                       "  splitjoin B_fission {\n"
                       "    split roundrobin(2, 2);\n"
                       "    filter B_0 pop 1 push 1 work b;\n"
                       "    filter B_1 pop 1 push 1 work b;\n"
                       "    join roundrobin(2, 2);\n"
                       "  }\n"
                       "  filter C pop 4 push 1 work c;\n"
                       "}\n";
    CHECK_MSG(strcmp(got, want) == 0, "got:\n%s", got);
    if (s) {
        CHECK(reps_of(s, "P/A_fission/A_0") == 1 && reps_of(s, "P/A_fission/A_1") == 1);
        CHECK(reps_of(s, "P/B_fission/B_0") == 2 && reps_of(s, "P/B_fission/B_1") == 2);
        CHECK(reps_of(s, "P/A_fission/split") == 1 && reps_of(s, "P/B_fission/join") == 1);
        CHECK(reps_of(s, "P/C") == 1 && reps_of(s, "input") == 2 && reps_of(s, "output") == 1);
    }
    free(got);
    sched_free(s);
    stream_graph_free(g);
}

static void test_k_not_dividing_n(void)
{
    /* k = 3: A (N = 2 < k) gets 2 copies firing once each; B (N = 4) gets
     * 3 copies firing 2, 1, 1 times (4 / 3 = 1, and the first 4 % 3 = 1
     * copy one more). */
    StreamGraph *g = parse(abc_text);
    int split = 0;
    Schedule *s = fiss(g, 3, &split);
    CHECK(split == 2);
    char *got = stream_text(g->root);
    CHECK_CONTAINS(got, "  splitjoin A_fission {\n"
                        "    split roundrobin(1, 1);\n"
                        "    filter A_0 pop 1 push 2 work a;\n"
                        "    filter A_1 pop 1 push 2 work a;\n"
                        "    join roundrobin(2, 2);\n");
    CHECK_CONTAINS(got, "  splitjoin B_fission {\n"
                        "    split roundrobin(2, 1, 1);\n"
                        "    filter B_0 pop 1 push 1 work b;\n"
                        "    filter B_1 pop 1 push 1 work b;\n"
                        "    filter B_2 pop 1 push 1 work b;\n"
                        "    join roundrobin(2, 1, 1);\n");
    if (s)
        CHECK(reps_of(s, "P/B_fission/B_0") == 2 && reps_of(s, "P/B_fission/B_1") == 1 &&
              reps_of(s, "P/B_fission/B_2") == 1 && reps_of(s, "P/C") == 1);
    free(got);
    sched_free(s);
    stream_graph_free(g);

    /* k = 100 > N everywhere: one copy per firing. */
    g = parse(abc_text);
    s = fiss(g, 100, &split);
    CHECK(split == 2);
    got = stream_text(g->root);
    CHECK_CONTAINS(got, "    split roundrobin(1, 1, 1, 1);\n"
                        "    filter B_0 pop 1 push 1 work b;\n"
                        "    filter B_1 pop 1 push 1 work b;\n"
                        "    filter B_2 pop 1 push 1 work b;\n"
                        "    filter B_3 pop 1 push 1 work b;\n"
                        "    join roundrobin(1, 1, 1, 1);\n");
    free(got);
    sched_free(s);
    stream_graph_free(g);

    /* k = 1 changes nothing. */
    g = parse(abc_text);
    s = fiss(g, 1, &split);
    CHECK(split == 0);
    got = stream_text(g->root);
    CHECK(strcmp(got, abc_text) == 0);
    free(got);
    sched_free(s);
    stream_graph_free(g);
}

/* Repetitions, by hand, with Out = 1: Out pops 2. The loop's splitter
 * roundrobin(1, 1) sends 1 item out per firing: 2 firings, popping 4 from
 * Body (push 2): Body 2, popping 4 from the joiner roundrobin(1, 1), which
 * pushes 2 per firing: 2 firings, taking 2 from the split-join D and 2 from
 * the loop path; Back gets 2 items from the splitter: 2 firings. D's joiner
 * roundrobin(0, 1) pushes 1 per firing: 2 firings; E (push 1) 2, popping 4:
 * the duplicate splitter 4, the separator 4 (pop 1). State, Peek: 4 each;
 * the graph takes 4 items. Split with k = 2: only E (2 copies firing once,
 * in a branch of D whose weights stay); Peek peeks, State is stateful, the
 * separator only drops items, Body and Back are inside the feedback loop,
 * Out fires once. */
static const char whole_text[] = "pipeline Q {\n"
                                 "  filter Peek pop 1 peek 3 push 1;\n"
                                 "  filter State pop 1 push 1 stateful;\n"
                                 "  splitjoin D {\n"
                                 "    split duplicate;\n"
                                 "    separator pop 1;\n"
                                 "    filter E pop 2 push 1;\n"
                                 "    join roundrobin(0, 1);\n"
                                 "  }\n"
                                 "  feedbackloop L {\n"
                                 "    join roundrobin(1, 1);\n"
                                 "    body filter Body pop 2 push 2;\n"
                                 "    loop filter Back pop 1 push 1;\n"
                                 "    split roundrobin(1, 1);\n"
                                 "    enqueue 2;\n"
                                 "  }\n"
                                 "  filter Out pop 2 push 1;\n"
                                 "}\n";

static void test_not_split(void)
{
    StreamGraph *g = parse(whole_text);
    Schedule *before = sched_build(g->root, stderr);
    CHECK(before != NULL);
    if (before) {
        CHECK(reps_of(before, "Q/Peek") == 4 && reps_of(before, "Q/State") == 4);
        CHECK(reps_of(before, "Q/D/Separator") == 4 && reps_of(before, "Q/D/E") == 2);
        CHECK(reps_of(before, "Q/L/Body") == 2 && reps_of(before, "Q/L/Back") == 2 && reps_of(before, "Q/Out") == 1);
    }
    sched_free(before);
    int split = 0;
    Schedule *s = fiss(g, 2, &split);
    CHECK(split == 1);
    char *got = stream_text(g->root);
    const char *want = "pipeline Q {\n"
                       "  filter Peek pop 1 peek 3 push 1;\n"
                       "  filter State pop 1 push 1 stateful;\n"
                       "  splitjoin D {\n"
                       "    split duplicate;\n"
                       "    separator pop 1;\n"
                       "    splitjoin E_fission {\n"
                       "      split roundrobin(2, 2);\n"
                       "      filter E_0 pop 2 push 1;\n"
                       "      filter E_1 pop 2 push 1;\n"
                       "      join roundrobin(1, 1);\n"
                       "    }\n"
                       "    join roundrobin(0, 1);\n"
                       "  }\n"
                       "  feedbackloop L {\n"
                       "    join roundrobin(1, 1);\n"
                       "    body filter Body pop 2 push 2;\n"
                       "    loop filter Back pop 1 push 1;\n"
                       "    split roundrobin(1, 1);\n"
                       "    enqueue 2;\n"
                       "  }\n"
                       "  filter Out pop 2 push 1;\n"
                       "}\n";
    CHECK_MSG(strcmp(got, want) == 0, "got:\n%s", got);
    /* D's duplicate splitter now feeds a round-robin one that takes 4 items
     * per firing: it fires 4 times per firing of E_fission's splitter. */
    if (s)
        CHECK(reps_of(s, "Q/D/split") == 4 && reps_of(s, "Q/D/E_fission/split") == 1 &&
              reps_of(s, "Q/D/E_fission/E_1") == 1 && reps_of(s, "Q/D/join") == 2);
    free(got);
    sched_free(s);
    stream_graph_free(g);
}

/* Outer's splitter fires once: Left gets 2 items, R 1. In Left, L1 fires
 * 2 times, Inner's duplicate splitter 2, X and Y 2 each (X pushes 4, Y 2),
 * Inner's joiner roundrobin(2, 1) 2, pushing 6; R pushes 3; Outer's joiner
 * roundrobin(6, 3) fires once. Every filter but R fires twice; with k = 3
 * each gets 2 copies firing once (k > N), nested three containers deep. */
static void test_nested(void)
{
    const char *text = "splitjoin Outer {\n"
                       "  split roundrobin(2, 1);\n"
                       "  pipeline Left {\n"
                       "    filter L1 pop 1 push 1;\n"
                       "    splitjoin Inner {\n"
                       "      split duplicate;\n"
                       "      filter X pop 1 push 2;\n"
                       "      filter Y pop 1 push 1;\n"
                       "      join roundrobin(2, 1);\n"
                       "    }\n"
                       "  }\n"
                       "  filter R pop 1 push 3;\n"
                       "  join roundrobin(6, 3);\n"
                       "}\n";
    StreamGraph *g = parse(text);
    int split = 0;
    Schedule *s = fiss(g, 3, &split);
    CHECK(split == 3);
    char *got = stream_text(g->root);
    const char *want = "splitjoin Outer {\n"
                       "  split roundrobin(2, 1);\n"
                       "  pipeline Left {\n"
                       "    splitjoin L1_fission {\n"
                       "      split roundrobin(1, 1);\n"
                       "      filter L1_0 pop 1 push 1;\n"
                       "      filter L1_1 pop 1 push 1;\n"
                       "      join roundrobin(1, 1);\n"
                       "    }\n"
                       "    splitjoin Inner {\n"
                       "      split duplicate;\n"
                       "      splitjoin X_fission {\n"
                       "        split roundrobin(1, 1);\n"
                       "        filter X_0 pop 1 push 2;\n"
                       "        filter X_1 pop 1 push 2;\n"
                       "        join roundrobin(2, 2);\n"
                       "      }\n"
                       "      splitjoin Y_fission {\n"
                       "        split roundrobin(1, 1);\n"
                       "        filter Y_0 pop 1 push 1;\n"
                       "        filter Y_1 pop 1 push 1;\n"
                       "        join roundrobin(1, 1);\n"
                       "      }\n"
                       "      join roundrobin(2, 1);\n"
                       "    }\n"
                       "  }\n"
                       "  filter R pop 1 push 3;\n"
                       "  join roundrobin(6, 3);\n"
                       "}\n";
    CHECK_MSG(strcmp(got, want) == 0, "got:\n%s", got);
    /* Inner's duplicate splitter fires 2 times, X_fission's splitter 1. */
    if (s)
        CHECK(reps_of(s, "Outer/Left/Inner/split") == 2 && reps_of(s, "Outer/Left/Inner/X_fission/split") == 1 &&
              reps_of(s, "Outer/Left/Inner/X_fission/X_0") == 1 && reps_of(s, "Outer/R") == 1 &&
              reps_of(s, "input") == 3 && reps_of(s, "output") == 9);
    free(got);
    sched_free(s);
    stream_graph_free(g);
}

/* Src pushes 1 and Sink pops 2: Src fires 2, Sink 1; Id fires 2 (pop 1,
 * push 1). Src splits behind a splitter that hands out nothing, Id into
 * identities. */
static void test_sources_and_identities(void)
{
    const char *text = "pipeline S {\n"
                       "  filter Src push 1 work src;\n"
                       "  identity Id;\n"
                       "  filter Sink pop 2;\n"
                       "}\n";
    StreamGraph *g = parse(text);
    int split = 0;
    Schedule *s = fiss(g, 2, &split);
    CHECK(split == 2);
    char *got = stream_text(g->root);
    CHECK_CONTAINS(got, "  splitjoin Src_fission {\n"
                        "    split roundrobin(0, 0);\n"
                        "    filter Src_0 push 1 work src;\n"
                        "    filter Src_1 push 1 work src;\n"
                        "    join roundrobin(1, 1);\n"
                        "  }\n"
                        "  splitjoin Id_fission {\n"
                        "    split roundrobin(1, 1);\n"
                        "    identity Id_0;\n"
                        "    identity Id_1;\n"
                        "    join roundrobin(1, 1);\n"
                        "  }\n"
                        "  filter Sink pop 2;\n");
    if (s)
        CHECK(reps_of(s, "S/Src_fission/Src_0") == 1 && reps_of(s, "S/Src_fission/join") == 1 &&
              reps_of(s, "S/Sink") == 1);
    free(got);
    sched_free(s);
    stream_graph_free(g);
}

/* One filter at a time: the copies share the work and the placement; the
 * filter's comment goes to the split-join. */
static void test_fission_filter(void)
{
    StreamGraph *g = parse(abc_text);
    StreamNode *b = g->root->children[1];
    int work;
    IrNode *nodes[1] = {NULL};
    b->filter.work = &work;
    b->filter.nodes = nodes;
    b->filter.nnodes = 1;
    b->filter.rank = 2;
    b->filter.device = 0;
    stream_node_set_comment(b, "B's story");
    CHECK(sched_fission_filter(b, 4, 1) == 0);      /* k = 1: nothing */
    CHECK(sched_fission_filter(b, 1, 3) == 0);      /* fires once */
    CHECK(sched_fission_filter(g->root, 4, 3) == 0);    /* not a filter */
    CHECK(g->root->children[1] == b);
    CHECK(sched_fission_filter(b, 5, 3) == 3);
    StreamNode *sj = g->root->children[1];
    CHECK(sj->kind == STREAM_SPLITJOIN && sj->split == SPLIT_ROUNDROBIN && strcmp(sj->name, "B_fission") == 0);
    CHECK(sj->parent == g->root && sj->index_in_parent == 1 && b->parent == NULL);
    CHECK(sj->nchildren == 3);
    /* once, on the split-join, with how the 5 firings are shared out: 2, 2, 1 */
    CHECK(sj->comment && strcmp(sj->comment, "B's story\nfission: 3 data-parallel copies firing 2 "
                                             "or one fewer times each") == 0);
    /* 5 firings on 3 copies: 2, 2, 1. */
    static const int64_t weights[3] = {2, 2, 1};
    for (int j = 0; j < sj->nchildren && j < 3; j++) {
        const StreamNode *c = sj->children[j];
        CHECK(sj->split_weights[j] == weights[j] && sj->join_weights[j] == weights[j]);
        CHECK(c->filter.work == &work && c->filter.nodes == nodes && c->filter.nnodes == 1);
        CHECK(c->filter.rank == 2 && c->filter.device == 0 && !c->filter.stateful && c->comment == NULL);
        CHECK(strcmp(c->filter.work_op, "b") == 0);
    }
    stream_graph_free(g);

    /* The splitter's and joiner's weights must stay within STREAM_MAX_RATE. */
    g = stream_graph_new();
    StreamNode *big = stream_filter_new(g, "Big", STREAM_MAX_RATE / 2, STREAM_MAX_RATE / 2, 1);
    StreamNode *wide = stream_filter_new(g, "Wide", 1, 1, STREAM_MAX_RATE / 2);
    CHECK(sched_fission_eligible(big, 2) && !sched_fission_eligible(big, 3));
    CHECK(sched_fission_eligible(wide, 2) && !sched_fission_eligible(wide, 3));
    StreamNode *idle = stream_filter_new(g, "Idle", 0, 0, 0);
    CHECK(!sched_fission_eligible(idle, 4));
    stream_graph_free(g);
}

/* ---------------------------------------------------------------- items */

enum { STEADY = 3, MAX_FIRINGS = 200000 };

static uint64_t mix(uint64_t x)
{
    /* splitmix64's finalizer */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

typedef struct Fifo {
    uint64_t *items;
    int64_t head, count, cap;
} Fifo;

typedef struct Seq {
    uint64_t *v;
    int64_t n, cap;
} Seq;

static void seq_add(Seq *s, uint64_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
    }
    s->v[s->n++] = v;
}

/* What a run shows: the graph's output items and, per stateful filter (by
 * its op), the windows it fired on. */
typedef struct Run {
    Seq out;
    int nstateful;
    const char **stateful_op;
    Seq *stateful_windows;
} Run;

typedef struct ItemSim {
    const StreamFlat *f;
    Fifo *fifos;
    uint64_t next_input;
    int64_t *fired;
    int *stateful_index;    /* per actor: index in run->stateful_*, or -1 */
    Run *run;
} ItemSim;

static void fifo_push(Fifo *q, uint64_t v)
{
    if (q->count == q->cap) {
        int64_t cap = q->cap ? 2 * q->cap : 16;
        uint64_t *items = malloc((size_t)cap * sizeof *items);
        for (int64_t i = 0; i < q->count; i++)
            items[i] = q->items[(q->head + i) % q->cap];
        free(q->items);
        q->items = items;
        q->head = 0;
        q->cap = cap;
    }
    q->items[(q->head + q->count++) % q->cap] = v;
}

static uint64_t fifo_at(const Fifo *q, int64_t i)
{
    if (i >= q->count) {
        fprintf(stderr, "item simulator: read past the items on a channel\n");
        exit(1);
    }
    return q->items[(q->head + i) % q->cap];
}

static uint64_t fifo_pop(Fifo *q)
{
    uint64_t v = fifo_at(q, 0);
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return v;
}

static void fire_filter(ItemSim *x, int a)
{
    const StreamActor *actor = &x->f->actors[a];
    const StreamFilter *filter = &actor->node->filter;
    Fifo *in = actor->nin ? &x->fifos[actor->in[0]] : NULL;
    Fifo *out = actor->nout ? &x->fifos[actor->out[0]] : NULL;
    if (filter->role == FILTER_IDENTITY) {
        fifo_push(out, fifo_pop(in));
        return;
    }
    uint64_t window = hash_text(filter->work_op ? filter->work_op : actor->node->name);
    for (int64_t i = 0; i < filter->peek; i++)
        window = mix(window ^ fifo_at(in, i));
    if (filter->stateful) {
        window = mix(window + (uint64_t)x->fired[a]);
        seq_add(&x->run->stateful_windows[x->stateful_index[a]], window);
    }
    x->fired[a]++;
    for (int64_t i = 0; i < filter->pop; i++)
        fifo_pop(in);
    for (int64_t i = 0; filter->role == FILTER_WORK && i < filter->push; i++)
        fifo_push(out, mix(window + (uint64_t)i));
}

static void fire_items(int a, int64_t firings, void *ctx)
{
    ItemSim *x = ctx;
    const StreamActor *actor = &x->f->actors[a];
    const StreamChannel *ch = x->f->channels;
    for (int64_t t = 0; t < firings; t++) {
        switch (actor->kind) {
        case ACTOR_INPUT:
            if (ch[actor->out[0]].push)
                fifo_push(&x->fifos[actor->out[0]], x->next_input++);
            break;
        case ACTOR_OUTPUT:
            if (ch[actor->in[0]].pop)
                seq_add(&x->run->out, fifo_pop(&x->fifos[actor->in[0]]));
            break;
        case ACTOR_SPLITTER:
            if (actor->node->split == SPLIT_DUPLICATE) {
                uint64_t v = fifo_pop(&x->fifos[actor->in[0]]);
                for (int k = 0; k < actor->nout; k++)
                    fifo_push(&x->fifos[actor->out[k]], v);
                break;
            }
            for (int k = 0; k < actor->nout; k++)
                for (int64_t i = 0; i < ch[actor->out[k]].push; i++)
                    fifo_push(&x->fifos[actor->out[k]], fifo_pop(&x->fifos[actor->in[0]]));
            break;
        case ACTOR_JOINER:
            for (int k = 0; k < actor->nin; k++)
                for (int64_t i = 0; i < ch[actor->in[k]].pop; i++)
                    fifo_push(&x->fifos[actor->out[0]], fifo_pop(&x->fifos[actor->in[k]]));
            break;
        case ACTOR_FILTER:
            fire_filter(x, a);
            break;
        }
    }
}

static int64_t firings_per_steady_state(const Schedule *s)
{
    int64_t n = 0;
    for (int a = 0; a < s->flat->nactors; a++)
        n += s->repetitions[a];
    return n;
}

/* Runs the init phase and STEADY steady states of s on items. */
static Run run_items(const Schedule *s)
{
    const StreamFlat *f = s->flat;
    Run run;
    memset(&run, 0, sizeof run);
    ItemSim x = {.f = f, .next_input = 1, .run = &run};
    x.fifos = calloc((size_t)f->nchannels + 1, sizeof *x.fifos);
    x.fired = calloc((size_t)f->nactors + 1, sizeof *x.fired);
    x.stateful_index = calloc((size_t)f->nactors + 1, sizeof *x.stateful_index);
    run.stateful_op = calloc((size_t)f->nactors + 1, sizeof *run.stateful_op);
    run.stateful_windows = calloc((size_t)f->nactors + 1, sizeof *run.stateful_windows);
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        x.stateful_index[a] = -1;
        if (actor->kind == ACTOR_FILTER && actor->node->filter.stateful) {
            x.stateful_index[a] = run.nstateful;
            run.stateful_op[run.nstateful++] = actor->node->filter.work_op;
        }
    }
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        uint64_t loop = hash_text(f->actors[ch->dst].node->name);
        for (int64_t i = 0; i < ch->initial; i++)
            fifo_push(&x.fifos[c], mix(loop + (uint64_t)i));
    }
    sched_phases_run(s->init, s->ninit, fire_items, &x);
    for (int t = 0; t < STEADY; t++)
        sched_phases_run(s->steady, s->nsteady, fire_items, &x);
    for (int c = 0; c < f->nchannels; c++)
        free(x.fifos[c].items);
    free(x.fifos);
    free(x.fired);
    free(x.stateful_index);
    return run;
}

static void run_free(Run *r)
{
    free(r->out.v);
    for (int i = 0; i < r->nstateful; i++)
        free(r->stateful_windows[i].v);
    free(r->stateful_windows);
    free(r->stateful_op);
}

/* Both sequences are prefixes of one stream; the shorter must hold at least
 * `least` items. */
static bool same_prefix(const Seq *a, const Seq *b, int64_t least, const char *what, int graph)
{
    int64_t n = a->n < b->n ? a->n : b->n;
    if (n < least) {
        fprintf(stderr, "FAIL graph %d: %s: %lld items, at least %lld expected\n", graph, what, (long long)n,
                (long long)least);
        return false;
    }
    for (int64_t i = 0; i < n; i++)
        if (a->v[i] != b->v[i]) {
            fprintf(stderr, "FAIL graph %d: %s: item %lld differs after fission\n", graph, what, (long long)i);
            return false;
        }
    return true;
}

static bool inside_loop(const StreamNode *n)
{
    for (const StreamNode *p = n->parent; p; p = p->parent)
        if (p->kind == STREAM_FEEDBACKLOOP)
            return true;
    return false;
}

/* This test's reading of the rules (schedule.h), for counting. */
static bool should_split(const StreamNode *n, int64_t reps)
{
    const StreamFilter *f = &n->filter;
    return f->role != FILTER_SEPARATOR && !f->stateful && f->peek == f->pop && (f->pop || f->push) && reps >= 2 &&
           !inside_loop(n);
}

static void test_random_items(void)
{
    enum { GRAPHS = 300 };
    static const int ks[] = {2, 3, 5};
    uint64_t state = 0xf1551011ULL;
    int tried = 0, split_total = 0, uneven = 0, skipped = 0;
    for (int i = 0; i < GRAPHS; i++) {
        RandomGraph r = random_graph_next(&state);
        /* Every filter's op is its own (unique) name, which the copies keep;
         * sinks are stateful so that what reaches them is compared, and
         * half the sources, so that closed graphs carry varying items. */
        for (int id = 0; id < r.g->nnodes; id++) {
            StreamNode *n = r.g->nodes[id];
            if (n->kind != STREAM_FILTER)
                continue;
            stream_filter_set_work_op(n, n->name);
            if (strcmp(n->name, "Sink") == 0 || (strcmp(n->name, "Source") == 0 && random_graph_pick(&state, 2)))
                stream_filter_set_stateful(n, true);
        }
        char *text = stream_text(r.root);
        Schedule *s = sched_build(r.root, stderr);
        if (!s || firings_per_steady_state(s) > MAX_FIRINGS) {
            CHECK_MSG(s != NULL, "graph %d does not schedule", i);
            skipped++;
            sched_free(s);
            free(text);
            stream_graph_free(r.g);
            continue;
        }
        int expect_split = 0, expect_filters[3] = {0, 0, 0};
        bool any_uneven = false;
        for (int a = 0; a < s->flat->nactors; a++) {
            const StreamActor *actor = &s->flat->actors[a];
            if (actor->kind != ACTOR_FILTER)
                continue;
            int64_t n = s->repetitions[a];
            bool yes = should_split(actor->node, n);
            expect_split += yes;
            for (int j = 0; j < 3; j++) {
                expect_filters[j] += yes ? (int)(n < ks[j] ? n : ks[j]) : 1;
                any_uneven |= yes && n % ks[j] != 0;
            }
        }
        Run before = run_items(s);
        int64_t items_out = 0, items_in = 0;
        for (int a = 0; a < s->flat->nactors; a++) {
            if (s->flat->actors[a].kind == ACTOR_OUTPUT)
                items_out = s->repetitions[a];
            if (s->flat->actors[a].kind == ACTOR_INPUT)
                items_in = s->repetitions[a];
        }
        for (int j = 0; j < 3; j++) {
            StreamGraph *g = str_parse(text, strlen(text), "random", stderr);
            Schedule *first = g ? sched_build(g->root, stderr) : NULL;
            int split = first ? sched_fission_all(first, ks[j]) : -1;
            sched_free(first);
            Schedule *after = g ? sched_build(g->root, stderr) : NULL;
            bool ok = after && token_sim_check(after, stderr);
            if (ok && split != expect_split) {
                fprintf(stderr, "FAIL graph %d, k %d: %d filters split, %d expected\n", i, ks[j], split, expect_split);
                ok = false;
            }
            int filters = 0;
            for (int a = 0; ok && a < after->flat->nactors; a++)
                filters += after->flat->actors[a].kind == ACTOR_FILTER;
            if (ok && filters != expect_filters[j]) {
                fprintf(stderr, "FAIL graph %d, k %d: %d filters after fission, %d expected\n", i, ks[j], filters,
                        expect_filters[j]);
                ok = false;
            }
            for (int a = 0; ok && a < after->flat->nactors; a++) {
                const StreamActor *actor = &after->flat->actors[a];
                if ((actor->kind == ACTOR_OUTPUT && after->repetitions[a] != items_out) ||
                    (actor->kind == ACTOR_INPUT && after->repetitions[a] != items_in)) {
                    fprintf(stderr, "FAIL graph %d, k %d: items in or out per steady state changed\n", i, ks[j]);
                    ok = false;
                }
            }
            if (ok) {
                Run run = run_items(after);
                ok = same_prefix(&before.out, &run.out, STEADY * items_out, "output", i) &&
                     run.nstateful == before.nstateful;
                for (int k = 0; ok && k < run.nstateful; k++) {
                    int m = 0;
                    while (m < before.nstateful && strcmp(before.stateful_op[m], run.stateful_op[k]) != 0)
                        m++;
                    ok = m < before.nstateful && same_prefix(&before.stateful_windows[m], &run.stateful_windows[k],
                                                             STEADY, run.stateful_op[k], i);
                }
                run_free(&run);
            }
            if (!ok) {
                fprintf(stderr, "FAIL graph %d with k %d:\n%s", i, ks[j], text);
                test_failures++;
            }
            split_total += split > 0 ? split : 0;
            tried++;
            sched_free(after);
            stream_graph_free(g);
        }
        uneven += any_uneven;
        run_free(&before);
        sched_free(s);
        free(text);
        stream_graph_free(r.g);
    }
    printf("fission on %d random graphs (%d skipped as too large), 3 values of k: %d runs, %d filters split, "
           "%d graphs with a filter whose N is no multiple of some k\n",
           GRAPHS, skipped, tried, split_total, uneven);
    /* The property must have been exercised. */
    CHECK(tried >= 3 * (GRAPHS - GRAPHS / 10) && split_total >= GRAPHS && uneven >= GRAPHS / 10);
}

int main(void)
{
    test_k_divides_n();
    test_k_not_dividing_n();
    test_not_split();
    test_nested();
    test_sources_and_identities();
    test_fission_filter();
    test_random_items();
    return test_report("fission");
}
