/* test_stream_api.c — the builder API, the flat view, exact rationals, the
 * JSON and placement columns of the schedule, expanding folded phases, and
 * the builder's rewriting functions (copying a filter, replacing a stream).
 *
 * The graph built here (hand derivation):
 *   Radio = Source (push 1) ; Low_Pass (pop 5, peek 64, push 1) ;
 *           Eq = splitjoin roundrobin(1, 2) { B1 pop 1 push 2 ; B2 pop 2 push 1 }
 *                joiner roundrobin(2, 1) ;
 *           Echo = feedbackloop joiner (1, 1), body Add (pop 2, push 1),
 *                  loop identity, duplicate splitter, 3 enqueued ;
 *           _pop = separator pop 1
 *   Eq: the splitter pops 3 and gives B1 1 (1 firing, pushes 2) and B2 2
 *   (1 firing, pushes 1); the joiner takes 2 and 1 (1 firing): 3 in, 3 out.
 *   Low_Pass pushes 1, so it fires 3 times per Eq; Source 15. Echo takes 1
 *   per joiner firing: 3 firings of its joiner, Add, splitter and identity;
 *   the separator 3. Init: Low_Pass needs 64 - 5 = 59 items: Source 59.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "scheduler/rational.h"
#include "scheduler/stream_test_util.h"
#include "test_util.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

static void test_rationals(void)
{
    Rational r;
    CHECK(gcd64(12, -18) == 6 && gcd64(0, 0) == 0 && gcd64(0, 7) == 7);
    CHECK(rat_make(6, -4, &r) && r.num == -3 && r.den == 2);
    CHECK(rat_make(0, 5, &r) && r.num == 0 && r.den == 1);
    CHECK(!rat_make(1, 0, &r));
    /* Cross reduction: (2^40 / 3) * (3 / 2^40) = 1 without forming 2^80. */
    Rational a = rat_int(0), b = rat_int(0);
    CHECK(rat_make((int64_t)1 << 40, 3, &a) && rat_make(3, (int64_t)1 << 40, &b));
    CHECK(rat_mul(a, b, &r) && r.num == 1 && r.den == 1);
    /* A product that does not fit is reported. */
    CHECK(rat_make((int64_t)1 << 40, 1, &a));
    CHECK(!rat_mul(a, a, &r));
    CHECK(rat_scale(rat_int(3), 4, 6, &r) && r.num == 2 && r.den == 1);
    CHECK(!rat_scale(rat_int(INT64_MAX), 2, 1, &r));
    CHECK(rat_div(rat_int(1), rat_int(4), &r) && r.num == 1 && r.den == 4);
    CHECK(!rat_div(rat_int(1), rat_int(0), &r));
    int64_t v;
    CHECK(lcm64(4, 6, &v) && v == 12);
    CHECK(!lcm64(INT64_MAX, INT64_MAX - 1, &v));
    CHECK(!mul64(INT64_MAX, 2, &v) && !add64(INT64_MAX, 1, &v) && add64(1, 2, &v) && v == 3);
    /* 1/2, 1/3, 0, 5/6 -> 3, 2, 0, 5 */
    Rational vec[4];
    rat_make(1, 2, &vec[0]);
    rat_make(1, 3, &vec[1]);
    vec[2] = rat_int(0);
    rat_make(5, 6, &vec[3]);
    int64_t ints[4];
    CHECK(rat_to_least_integers(vec, 4, ints) && ints[0] == 3 && ints[1] == 2 && ints[2] == 0 && ints[3] == 5);
    /* 4, 6 -> 2, 3 (divided by the gcd) */
    vec[0] = rat_int(4);
    vec[1] = rat_int(6);
    CHECK(rat_to_least_integers(vec, 2, ints) && ints[0] == 2 && ints[1] == 3);
    /* denominators whose lcm overflows */
    rat_make(1, INT64_MAX, &vec[0]);
    rat_make(1, INT64_MAX - 1, &vec[1]);
    CHECK(!rat_to_least_integers(vec, 2, ints));
}

static void test_names(void)
{
    char buf[64];
    stream_name_sanitize("my filter", buf, sizeof buf);
    CHECK(strcmp(buf, "my_filter") == 0);
    stream_name_sanitize("pop", buf, sizeof buf);
    CHECK(strcmp(buf, "_pop") == 0);
    stream_name_sanitize("3d", buf, sizeof buf);
    CHECK(strcmp(buf, "_3d") == 0);
    stream_name_sanitize("", buf, sizeof buf);
    CHECK(strcmp(buf, "_") == 0);
    stream_name_sanitize("aten::add", buf, sizeof buf);
    CHECK(strcmp(buf, "aten__add") == 0);
    CHECK(stream_name_is_keyword("feedbackloop") && !stream_name_is_keyword("Feedbackloop"));
}

static StreamGraph *build_radio(StreamNode **low_pass)
{
    StreamGraph *g = stream_graph_new();
    StreamNode *p = stream_pipeline_new(g, "Radio");
    StreamNode *src = stream_filter_new(g, "Source", 0, 0, 1);
    stream_filter_set_work_op(src, "aten::randn");
    stream_pipeline_add(p, src);
    *low_pass = stream_filter_new(g, "Low Pass", 5, 64, 1);
    stream_pipeline_add(p, *low_pass);
    StreamNode *eq = stream_splitjoin_new(g, "Eq", SPLIT_ROUNDROBIN);
    stream_splitjoin_add(eq, stream_filter_new(g, "B1", 1, 1, 2), 1, 2);
    stream_splitjoin_add(eq, stream_filter_new(g, "B2", 2, 2, 1), 2, 1);
    stream_pipeline_add(p, eq);
    StreamNode *fb = stream_feedbackloop_new(g, "Echo", stream_filter_new(g, "Add", 2, 2, 1),
                                             stream_identity_new(g, NULL), 3);
    stream_feedbackloop_set_joiner(fb, 1, 1);
    stream_feedbackloop_set_splitter(fb, SPLIT_DUPLICATE, 0, 0);
    stream_pipeline_add(p, fb);
    stream_pipeline_add(p, stream_separator_new(g, "pop", 1));
    stream_graph_set_root(g, p);
    return g;
}

static const char radio_text[] =
    "pipeline Radio {\n"
    "  filter Source push 1 work aten::randn;\n"
    "  filter Low_Pass pop 5 peek 64 push 1;\n"
    "  splitjoin Eq {\n"
    "    split roundrobin(1, 2);\n"
    "    filter B1 pop 1 push 2;\n"
    "    filter B2 pop 2 push 1;\n"
    "    join roundrobin(2, 1);\n"
    "  }\n"
    "  feedbackloop Echo {\n"
    "    join roundrobin(1, 1);\n"
    "    body filter Add pop 2 push 1;\n"
    "    loop identity;\n"
    "    split duplicate;\n"
    "    enqueue 3;\n"
    "  }\n"
    "  separator _pop pop 1;\n"
    "}\n";

static void test_builder_and_print(void)
{
    StreamNode *lp;
    StreamGraph *g = build_radio(&lp);
    char *text = stream_text(g->root);
    CHECK(strcmp(text, radio_text) == 0);
    if (strcmp(text, radio_text) != 0)
        fprintf(stderr, "printed:\n%s", text);
    /* The printed text reads back to the same print. */
    StreamGraph *again = str_parse(text, strlen(text), "radio.str", stderr);
    CHECK(again != NULL);
    if (again) {
        char *twice = stream_text(again->root);
        CHECK(strcmp(twice, text) == 0);
        free(twice);
    }
    free(text);
    stream_graph_free(again);
    CHECK(stream_node_depth(lp) == 1 && stream_node_depth(g->root) == 0);
    CHECK(lp->filter.rank == -1 && lp->filter.device == -1 && lp->filter.work == NULL && lp->filter.nnodes == 0);
    char *path = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&path, &len);
    stream_node_print_path(m, g->root->children[3]->children[1]);
    fclose(m);
    CHECK(strcmp(path, "Radio/Echo/Identity") == 0);
    free(path);
    StreamNode *op = stream_filter_new(g, "x", 0, 0, 0);
    stream_filter_set_work_op(op, "bad op!");
    CHECK(strcmp(op->filter.work_op, "bad_op_") == 0);
    stream_graph_free(g);
}

static void test_flatten(void)
{
    StreamNode *lp;
    StreamGraph *g = build_radio(&lp);
    StreamFlat *f = stream_flatten(g->root);
    static const StreamActorKind kinds[] = {ACTOR_INPUT,  ACTOR_FILTER,   ACTOR_FILTER, ACTOR_SPLITTER, ACTOR_FILTER,
                                            ACTOR_FILTER, ACTOR_JOINER,   ACTOR_JOINER, ACTOR_FILTER,   ACTOR_SPLITTER,
                                            ACTOR_FILTER, ACTOR_FILTER,   ACTOR_OUTPUT};
    CHECK(f->nactors == 13 && f->nchannels == 14);
    for (int a = 0; a < 13 && a < f->nactors; a++)
        CHECK(f->actors[a].kind == kinds[a]);
    /* src, src_port, dst, dst_port, push, pop, peek, initial */
    static const int64_t want[14][8] = {
        {0, 0, 1, 0, 0, 0, 0, 0},   {1, 0, 2, 0, 1, 5, 64, 0}, {2, 0, 3, 0, 1, 3, 3, 0},  {3, 0, 4, 0, 1, 1, 1, 0},
        {3, 1, 5, 0, 2, 2, 2, 0},   {4, 0, 6, 0, 2, 2, 2, 0},  {5, 0, 6, 1, 1, 1, 1, 0},  {6, 0, 7, 0, 3, 1, 1, 0},
        {7, 0, 8, 0, 2, 2, 2, 0},   {8, 0, 9, 0, 1, 1, 1, 0},  {9, 0, 11, 0, 1, 1, 1, 0}, {9, 1, 10, 0, 1, 1, 1, 0},
        {10, 0, 7, 1, 1, 1, 1, 3},  {11, 0, 12, 0, 0, 0, 0, 0},
    };
    for (int c = 0; c < 14 && c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        int64_t got[8] = {ch->src, ch->src_port, ch->dst, ch->dst_port, ch->push, ch->pop, ch->peek, ch->initial};
        CHECK(memcmp(got, want[c], sizeof got) == 0);
        CHECK(ch->feedback == (c == 12));
        CHECK(f->actors[ch->src].out[ch->src_port] == c && f->actors[ch->dst].in[ch->dst_port] == c);
    }
    stream_flat_free(f);
    stream_graph_free(g);
}

static cJSON *find_actor(cJSON *actors, const char *path)
{
    cJSON *a;
    cJSON_ArrayForEach(a, actors)
    {
        cJSON *p = cJSON_GetObjectItem(a, "path");
        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
            return a;
    }
    return NULL;
}

static double number(cJSON *obj, const char *key)
{
    cJSON *v = cJSON_GetObjectItem(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Within 0.1 % of want (the JSON's doubles are sums of estimates). */
static bool near(double got, double want)
{
    return got > want * 0.999 && got < want * 1.001;
}

static void test_schedule_json_and_placement(void)
{
    StreamNode *lp;
    StreamGraph *g = build_radio(&lp);
    Schedule *s = sched_build(g->root, stderr);
    CHECK(s != NULL);
    /* Before placement the rank and device are null. */
    char *json = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&json, &len);
    if (s)
        sched_print_json(m, s);
    fclose(m);
    CHECK(strstr(json, "\"rank\":\tnull") != NULL && strstr(json, "\"ranks\":\tnull") != NULL);
    free(json);
    /* Low_Pass pinned to rank 1 of 2 (--place); the rest on rank 0. */
    char place[] = "/tmp/tssa_place_XXXXXX";
    int fd = mkstemp(place);
    CHECK(fd >= 0 && write(fd, "{\"ranks\": {\"Low_Pass\": 1}}", 27) == 27);
    close(fd);
    PartitionOptions po = {.nranks = 2, .sets = 1, .flops_per_s = 1e9, .bytes_per_s = 1e9, .math_per_s = 1e9, .firing_s = 1e-6,
                           .link_latency_s = 1e-6, .link_bytes_per_s = 1e9};
    bool bad_file = false;
    if (s)
        s = sched_place_file(s, place, &po, stderr, &bad_file);
    unlink(place);
    CHECK(s != NULL && !bad_file);
    if (!s) {
        stream_graph_free(g);
        return;
    }
    static const int64_t reps[13] = {0, 15, 3, 1, 1, 1, 1, 3, 3, 3, 3, 3, 0};
    for (int a = 0; a < 13; a++)
        CHECK(s->repetitions[a] == reps[a]);
    CHECK(s->init_firings[1] == 59);
    json = NULL;
    m = open_memstream(&json, &len);
    sched_print_json(m, s);
    fclose(m);
    cJSON *root = cJSON_Parse(json);
    CHECK(root != NULL);
    if (root) {
        cJSON *actors = cJSON_GetObjectItem(root, "actors");
        /* input and output carry nothing: not listed */
        CHECK(cJSON_GetArraySize(actors) == 11);
        cJSON *low = find_actor(actors, "Radio/Low_Pass");
        CHECK(low && number(low, "repetitions") == 3 && number(low, "init_firings") == 0);
        CHECK(low && number(low, "rank") == 1 &&
              strcmp(cJSON_GetObjectItem(low, "device")->valuestring, "cpu") == 0);
        cJSON *src = find_actor(actors, "Radio/Source");
        CHECK(src && number(src, "repetitions") == 15 && number(src, "init_firings") == 59);
        CHECK(src && number(src, "rank") == 0);
        /* est_seconds: 1 us per firing (no flops or bytes), 15 firings */
        CHECK(src && number(src, "est_seconds") > 14.9e-6 && number(src, "est_seconds") < 15.1e-6);
        CHECK(number(root, "ranks") == 2);
        CHECK(low && number(low, "firing_seconds") > 0.99e-6 && number(low, "firing_seconds") < 1.01e-6);
        /* The cost model's prediction, by hand: work 1 us per firing: rank 1
         * fires Low_Pass 3 times (3 us), rank 0 the rest (Source 15, B1 1,
         * B2 1, Add 3: 20 us). Items of a hand-written graph have no known
         * size, so a channel between ranks costs 1 us per message, one per
         * producer firing: Source -> Low_Pass 15 (out of rank 0, into rank
         * 1), Low_Pass -> Eq 3 (back). Totals: rank 0 20 + 3 + 15 = 38 us,
         * rank 1 3 + 15 + 3 = 21 us, so B = 38 us. L, one steady state
         * simulated (a --place file: no partitioner plan): Source 0..15 us,
         * its messages arrive at 30, Low_Pass 30..33, back at 36, B1 and B2
         * 36..38, Add 38..41 us. One set: 41 us. */
        cJSON *cost = cJSON_GetObjectItem(root, "cost");
        cJSON *ranks = cost ? cJSON_GetObjectItem(cost, "ranks") : NULL;
        CHECK(cJSON_GetArraySize(ranks) == 2);
        if (cJSON_GetArraySize(ranks) == 2) {
            cJSON *r0 = cJSON_GetArrayItem(ranks, 0), *r1 = cJSON_GetArrayItem(ranks, 1);
            CHECK(near(number(r0, "work_s"), 20e-6) && near(number(r0, "messages_in_s"), 3e-6) &&
                  near(number(r0, "messages_out_s"), 15e-6) && near(number(r0, "total_s"), 38e-6));
            CHECK(near(number(r1, "work_s"), 3e-6) && near(number(r1, "messages_in_s"), 15e-6) &&
                  near(number(r1, "messages_out_s"), 3e-6) && near(number(r1, "total_s"), 21e-6));
            CHECK(near(number(cost, "bottleneck_s"), 38e-6) && near(number(cost, "latency_s"), 41e-6));
            CHECK(number(cost, "sets") == 1 && near(number(cost, "predicted_s"), 41e-6));
            CHECK(near(number(cost, "link_latency_s"), 1e-6) && near(number(cost, "flops_per_s"), 1e9));
        }
        CHECK(src && strcmp(cJSON_GetObjectItem(src, "work")->valuestring, "aten::randn") == 0);
        cJSON *id = find_actor(actors, "Radio/Echo/Identity");
        CHECK(id && strcmp(cJSON_GetObjectItem(id, "kind")->valuestring, "identity") == 0);
        cJSON *split = find_actor(actors, "Radio/Eq/split");
        CHECK(split && cJSON_GetArraySize(cJSON_GetObjectItem(split, "push")) == 2);
        CHECK(number(root, "items_in") == 0 && number(root, "items_out") == 0);
        cJSON *channels = cJSON_GetObjectItem(root, "channels");
        CHECK(cJSON_GetArraySize(channels) == 12);
        int feedback = 0;
        cJSON *c;
        cJSON_ArrayForEach(c, channels)
        {
            if (cJSON_IsTrue(cJSON_GetObjectItem(c, "feedback"))) {
                feedback++;
                CHECK(number(c, "initial") == 3 && number(c, "buffer") == 3 && number(c, "fill_after_init") == 3);
            }
        }
        CHECK(feedback == 1);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "steady")) >= 11);
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(root, "init")) == 1);
    }
    cJSON_Delete(root);
    free(json);
    /* The table shows the placement in the rank, device and estimate
     * columns (3 firings of 1 us), and the channels that cross ranks. */
    char *table = NULL;
    m = open_memstream(&table, &len);
    sched_print_table(m, s);
    fclose(m);
    CHECK(strstr(table, "  2  Radio/Low_Pass       filter       5    64     1     3     0     1     cpu   0.003\n") != NULL);
    CHECK(strstr(table, "Radio/Source         Radio/Low_Pass          1    5    64        0          59      74   0->1\n") != NULL);
    CHECK(strstr(table, "placement: 2 ranks, estimated") != NULL);
    /* The cost model's lines: the rates, each rank's work and messages (by
     * hand in the JSON checks above), L and B. */
    CHECK(strstr(table, "\ncost model: 1e+09 flop/s, 1e+09 B/s, 1e+09 math calls/s, 1 us per firing; link 1 us per message, 1e+09 B/s\n"
                        "  rank 0: work 0.02 ms, messages in 0.003 ms, out 0.015 ms, total 0.038 ms\n"
                        "  rank 1: work 0.003 ms, messages in 0.015 ms, out 0.003 ms, total 0.021 ms\n"
                        "steady state: latency L 0.041 ms, bottleneck B 0.038 ms; 1 set: L + 0 B = 0.041 ms "
                        "(0.041 ms per set)\n") != NULL);
    /* Each work filter's cost after the channels: Source 15 firings of 1 us. */
    CHECK(strstr(table, "\nfilter costs (the cost model's, per firing and per steady state):\n") != NULL);
    CHECK(strstr(table, "       1     0        15       0.001       0.015  Radio/Source\n") != NULL);
    if (!strstr(table, "Radio/Low_Pass       filter       5    64     1     3     0     1     cpu   0.003\n") ||
        !strstr(table, "  rank 1: work 0.003 ms, messages in 0.015 ms, out 0.003 ms, total 0.021 ms\n"))
        fputs(table, stderr);
    free(table);
    sched_free(s);
    stream_graph_free(g);
}

/* Repetitions that overflow 64 bits are an error, not a wrap. */
static void test_overflow(void)
{
    StreamGraph *g = stream_graph_new();
    StreamNode *p = stream_pipeline_new(g, "Big");
    int64_t big = STREAM_MAX_RATE;
    stream_pipeline_add(p, stream_filter_new(g, "A", 0, 0, big));
    stream_pipeline_add(p, stream_filter_new(g, "B", 1, 1, big));
    stream_pipeline_add(p, stream_filter_new(g, "C", 1, 1, 0));
    char *out = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&out, &len);
    Schedule *s = sched_build(p, err);
    fclose(err);
    CHECK(s == NULL);
    CHECK(strcmp(out, "error: pipeline Big: the rates overflow 64-bit arithmetic\n") == 0);
    free(out);
    stream_graph_free(g);
}

static void count_firings(int actor, int64_t firings, void *ctx)
{
    ((int64_t *)ctx)[actor] += firings;
}

/* sched_phases_run expands folded feedback loops: the nested loops of
 * graphs/nested_loops.str fold their turns (the steady phase holds a
 * repeat), and the expanded firings are the repetitions. */
static void test_phases_run(void)
{
    StreamGraph *g = str_parse_file("streamit/graphs/nested_loops.str", stderr);
    Schedule *s = g ? sched_build(g->root, stderr) : NULL;
    CHECK(s != NULL);
    if (s) {
        int repeats = 0;
        for (int i = 0; i < s->nsteady; i++)
            repeats += s->steady[i].actor == SCHED_REPEAT;
        CHECK(repeats > 0);
        int64_t *fired = calloc((size_t)s->flat->nactors, sizeof *fired);
        sched_phases_run(s->steady, s->nsteady, count_firings, fired);
        for (int a = 0; a < s->flat->nactors; a++)
            CHECK(fired[a] == s->repetitions[a]);
        free(fired);
    }
    sched_free(s);
    stream_graph_free(g);
}

/* stream_filter_copy keeps everything but the name; stream_replace puts a
 * stream in a pipeline stage, a split-join branch (weights kept), a feedback
 * loop's slot, or the root, and detaches what it replaced. */
static void test_rewriting(void)
{
    const char *text = "pipeline P {\n"
                       "  filter A pop 2 push 3 stateful work aten::mul;\n"
                       "  splitjoin S { split roundrobin(1, 2); identity I; filter B pop 2 push 4; join roundrobin(1, 4); }\n"
                       "  feedbackloop L { join roundrobin(1, 1); body filter C pop 2 push 2; loop identity J;\n"
                       "                   split roundrobin(1, 1); enqueue 1; }\n"
                       "}\n";
    StreamGraph *g = str_parse(text, strlen(text), "rewrite.str", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    StreamNode *p = g->root, *a = p->children[0], *sj = p->children[1], *loop = p->children[2];
    int marker;
    a->filter.work = &marker;
    a->filter.rank = 3;
    a->filter.device = 1;
    stream_node_set_comment(a, "why A");
    StreamNode *a2 = stream_filter_copy(a, "A2");
    CHECK(a2->comment && strcmp(a2->comment, "why A") == 0);
    CHECK(a2->kind == STREAM_FILTER && a2->filter.role == FILTER_WORK && strcmp(a2->name, "A2") == 0);
    CHECK(a2->filter.pop == 2 && a2->filter.peek == 2 && a2->filter.push == 3 && a2->filter.stateful);
    CHECK(a2->filter.work == &marker && strcmp(a2->filter.work_op, "aten::mul") == 0);
    CHECK(a2->filter.rank == 3 && a2->filter.device == 1 && a2->line == a->line && a2->col == a->col);
    CHECK(a2->parent == NULL && a2->graph == g && g->nodes[a2->id] == a2);
    StreamNode *i2 = stream_filter_copy(sj->children[0], NULL);
    CHECK(i2->filter.role == FILTER_IDENTITY && strcmp(i2->name, "I") == 0);

    stream_replace(a, a2);
    CHECK(p->children[0] == a2 && a2->parent == p && a2->index_in_parent == 0);
    CHECK(a->parent == NULL && a->index_in_parent == -1);
    StreamNode *b = sj->children[1], *b2 = stream_filter_copy(b, "B2");
    stream_replace(b, b2);
    stream_replace(loop->children[1], stream_filter_copy(loop->children[1], "J2"));
    stream_replace(loop->children[0], stream_filter_copy(loop->children[0], "C2"));
    char *got = stream_text(g->root);
    CHECK_CONTAINS(got, "  filter A2 pop 2 push 3 stateful work aten::mul;\n"
                        "  splitjoin S {\n"
                        "    split roundrobin(1, 2);\n"
                        "    identity I;\n"
                        "    filter B2 pop 2 push 4;\n"
                        "    join roundrobin(1, 4);\n");
    CHECK_CONTAINS(got, "body filter C2 pop 2 push 2;");
    CHECK_CONTAINS(got, "loop identity J2;");
    free(got);

    StreamNode *root2 = stream_pipeline_new(g, "Q");
    stream_replace(p, root2);
    CHECK(g->root == root2 && p->parent == NULL);
    stream_pipeline_add(root2, p);      /* the detached stream can be attached again */
    CHECK(p->parent == root2 && root2->children[0] == p);
    stream_graph_free(g);
}

static Schedule *place_data_parallel(double alone_flops_per_s)
{
    StreamGraph *g = stream_graph_new();
    StreamNode *p = stream_pipeline_new(g, "P");
    stream_pipeline_add(p, stream_filter_new(g, "Source", 0, 0, 8));
    StreamNode *work = stream_filter_new(g, "Work", 1, 1, 1);
    work->filter.flops = 1e7;
    stream_pipeline_add(p, work);
    stream_pipeline_add(p, stream_filter_new(g, "Sink", 8, 8, 0));
    stream_graph_set_root(g, p);
    Schedule *s = sched_build(g->root, stderr);
    PartitionOptions po = {.nranks = 2, .sets = 1, .flops_per_s = 1e9, .bytes_per_s = 1e9, .math_per_s = 1e9, .firing_s = 1e-6,
                           .link_latency_s = 1e-6, .link_bytes_per_s = 1e9,
                           .alone_flops_per_s = alone_flops_per_s};
    return s ? sched_partition(s, &po, stderr) : NULL;
}

/* Source -> Work x8 -> Sink, Work 10 Mflop a firing and stateless: at the
 * per-rank rate (1 Gflop/s) 80 ms on one rank against about 40 ms split over
 * two ranks; but when rank 0 alone runs at 4 Gflop/s (the idle rank's cores
 * join it) one rank takes 20 ms, and the partitioner keeps all there. */
static void test_partition_alone_rates(void)
{
    for (int faster = 0; faster < 2; faster++) {
        Schedule *s = place_data_parallel(faster ? 4e9 : 0);
        CHECK(s != NULL);
        if (!s)
            continue;
        bool on_rank1 = false;
        for (int a = 0; a < s->flat->nactors; a++)
            on_rank1 |= s->actor_rank[a] == 1;
        CHECK(on_rank1 == !faster);
        CHECK(s->placement_note && (strstr(s->placement_note, "all on rank 0") != NULL) == faster);
        StreamGraph *g = s->root->graph;
        sched_free(s);
        stream_graph_free(g);
    }
}

int main(void)
{
    test_rationals();
    test_names();
    test_builder_and_print();
    test_flatten();
    test_schedule_json_and_placement();
    test_overflow();
    test_phases_run();
    test_rewriting();
    test_partition_alone_rates();
    return test_report("stream_api");
}
