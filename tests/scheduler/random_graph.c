/* random_graph.c — the generator of random_graph.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/random_graph.h"
#include "tssa/stream.h"

enum { MAX_DEPTH = 4, LIMIT = 1000000 };

typedef struct Frac {
    int64_t n, d;
} Frac;

typedef struct Gen {
    StreamGraph *g;
    uint64_t state;
    int names;
    bool too_big;       /* a number passed LIMIT: this subtree is replaced */
} Gen;

static uint64_t next_random(Gen *G)
{
    /* xorshift64* */
    G->state ^= G->state >> 12;
    G->state ^= G->state << 25;
    G->state ^= G->state >> 27;
    return G->state * 2685821657736338717ULL;
}

static int pick(Gen *G, int n)
{
    return (int)(next_random(G) % (uint64_t)n);
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

static Frac frac(Gen *G, int64_t n, int64_t d)
{
    int64_t g = gcd(n, d);
    if (g == 0)
        g = 1;
    Frac f = {n / g, d / g};
    if (f.n > LIMIT || f.d > LIMIT)
        G->too_big = true;
    return f;
}

static Frac mul(Gen *G, Frac a, int64_t n, int64_t d)
{
    return frac(G, (a.n % LIMIT) * n, (a.d % LIMIT) * d);
}

/* Scales v[0..n-1] to the least integers with the same ratios. */
static void least_integers(Gen *G, const Frac *v, int n, int64_t *out)
{
    int64_t l = 1;
    for (int i = 0; i < n; i++)
        if (v[i].n) {
            l = l / gcd(l, v[i].d) * v[i].d;
            if (l > LIMIT) {
                G->too_big = true;
                l = 1;
            }
        }
    int64_t g = 0;
    for (int i = 0; i < n; i++) {
        out[i] = v[i].n ? v[i].n * (l / v[i].d) : 0;
        if (out[i] > LIMIT)
            G->too_big = true;
        g = gcd(g, out[i]);
    }
    for (int i = 0; i < n && g > 1; i++)
        out[i] /= g;
}

static const char *name(Gen *G, char *buf, const char *prefix)
{
    snprintf(buf, 32, "%s%d", prefix, G->names++);
    return buf;
}

static StreamNode *gen_stream(Gen *G, int depth, bool in_loop, int64_t *in, int64_t *out);

static StreamNode *gen_filter(Gen *G, bool in_loop, int64_t *in, int64_t *out)
{
    char buf[32];
    if (pick(G, 10) == 0) {
        *in = *out = 1;
        return stream_identity_new(G->g, name(G, buf, "Id"));
    }
    int64_t pop = 1 + pick(G, 4), push = 1 + pick(G, 4);
    int64_t peek = pop + (!in_loop && pick(G, 4) == 0 ? 1 + pick(G, 5) : 0);
    StreamNode *f = stream_filter_new(G->g, name(G, buf, "F"), pop, peek, push);
    if (pick(G, 5) == 0)
        stream_filter_set_stateful(f, true);
    *in = pop;
    *out = push;
    return f;
}

static StreamNode *gen_pipeline(Gen *G, int depth, bool in_loop, int64_t *in, int64_t *out)
{
    char buf[32];
    StreamNode *p = stream_pipeline_new(G->g, name(G, buf, "P"));
    int n = 1 + pick(G, 4);
    int64_t ins[4], outs[4], ints[4];
    Frac m[4];
    for (int k = 0; k < n; k++) {
        stream_pipeline_add(p, gen_stream(G, depth + 1, in_loop, &ins[k], &outs[k]));
        m[k] = k == 0 ? frac(G, 1, 1) : mul(G, m[k - 1], outs[k - 1], ins[k]);
    }
    least_integers(G, m, n, ints);
    *in = ints[0] * ins[0];
    *out = ints[n - 1] * outs[n - 1];
    return p;
}

static StreamNode *gen_splitjoin(Gen *G, int depth, bool in_loop, int64_t *in, int64_t *out)
{
    char buf[32];
    bool dup = pick(G, 2) == 0;
    StreamNode *sj = stream_splitjoin_new(G->g, name(G, buf, "SJ"), dup ? SPLIT_DUPLICATE : SPLIT_ROUNDROBIN);
    int n = 2 + pick(G, 3);
    int dead = pick(G, 6) == 0 ? pick(G, n) : -1;      /* a separator branch */
    StreamNode *branch[4];
    int64_t w[4], bin[4], bout[4], v[4];
    Frac m[4], produced[4];
    for (int k = 0; k < n; k++) {
        w[k] = dup ? 1 : 1 + pick(G, 3);
        if (k == dead) {
            bin[k] = 1 + pick(G, 3);
            bout[k] = 0;
            branch[k] = stream_separator_new(G->g, name(G, buf, "Sep"), bin[k]);
        } else {
            branch[k] = gen_stream(G, depth + 1, in_loop, &bin[k], &bout[k]);
        }
        m[k] = frac(G, w[k], bin[k]);
        produced[k] = mul(G, m[k], bout[k], 1);
    }
    /* Joiner weights proportional to what the live branches produce. */
    int64_t l = 1, g = 0;
    for (int k = 0; k < n; k++)
        if (k != dead) {
            l = l / gcd(l, produced[k].d) * produced[k].d;
            if (l > LIMIT)
                G->too_big = true, l = 1;
        }
    for (int k = 0; k < n; k++) {
        v[k] = k == dead ? 0 : produced[k].n * (l / produced[k].d);
        g = gcd(g, v[k]);
    }
    if (g == 0) {
        G->too_big = true;
        return sj;
    }
    int64_t sum_w = 0, sum_v = 0;
    for (int k = 0; k < n; k++) {
        v[k] /= g;
        if (v[k] > LIMIT || v[k] < 0)
            G->too_big = true;
        sum_w += w[k];
        sum_v += v[k];
    }
    if (G->too_big)
        return sj;      /* replaced by the caller */
    for (int k = 0; k < n; k++)
        stream_splitjoin_add(sj, branch[k], w[k], v[k]);
    /* Local steady state: splitter 1, joiner g / l, branch k m[k]. */
    Frac local[6];
    int64_t ints[6];
    local[0] = frac(G, 1, 1);
    local[1] = frac(G, g, l);
    for (int k = 0; k < n; k++)
        local[2 + k] = m[k];
    least_integers(G, local, n + 2, ints);
    *in = ints[0] * (dup ? 1 : sum_w);
    *out = ints[1] * sum_v;
    return sj;
}

static StreamNode *gen_feedbackloop(Gen *G, int depth, int64_t *in, int64_t *out)
{
    char buf[32];
    int64_t body_in, body_out, loop_in, loop_out;
    StreamNode *body = gen_stream(G, depth + 1, true, &body_in, &body_out);
    StreamNode *loop = gen_stream(G, depth + 1, true, &loop_in, &loop_out);
    bool dup = pick(G, 2) == 0;
    int64_t w_out = 1 + pick(G, 4), w_loop = 1 + pick(G, 2);
    /* gain = r_body * r_loop * share must stay below 1 */
    Frac r = frac(G, body_out * loop_out, body_in * loop_in);
    if (dup && r.n >= r.d)
        dup = false;
    if (!dup && r.n * w_loop >= r.d * (w_out + w_loop))
        w_out = (r.n * w_loop) / r.d - w_loop + 1;     /* smallest w_out with gain < 1 */
    Frac gain = dup ? r : mul(G, r, w_loop, w_out + w_loop);
    int64_t v_loop = gain.n, v_in = gain.d - gain.n;
    if (v_in <= 0 || w_out > 64)
        G->too_big = true;
    int64_t split_pop = dup ? 1 : w_out + w_loop, push_loop = dup ? 1 : w_loop, push_out = dup ? 1 : w_out;
    /* Local steady state with the joiner at 1. */
    Frac v[4];
    int64_t ints[4];
    v[0] = frac(G, 1, 1);
    v[1] = mul(G, v[0], v_in + v_loop, body_in);
    v[2] = mul(G, v[1], body_out, split_pop);
    v[3] = mul(G, v[2], push_loop, loop_in);
    Frac returned = mul(G, v[3], loop_out, 1);
    if (!G->too_big && (returned.n != v_loop || returned.d != 1)) {
        fprintf(stderr, "generator bug: the loop returns %lld/%lld, the joiner takes %lld\n",
                (long long)returned.n, (long long)returned.d, (long long)v_loop);
        exit(1);
    }
    least_integers(G, v, 4, ints);
    if (G->too_big)
        return body;    /* replaced by the caller */
    int64_t enqueued = v_loop * ints[0] * (1 + pick(G, 4)) + pick(G, 3);
    StreamNode *fl = stream_feedbackloop_new(G->g, name(G, buf, "FB"), body, loop, enqueued);
    stream_feedbackloop_set_joiner(fl, v_in, v_loop);
    stream_feedbackloop_set_splitter(fl, dup ? SPLIT_DUPLICATE : SPLIT_ROUNDROBIN, w_out, w_loop);
    *in = ints[0] * v_in;
    *out = ints[2] * push_out;
    return fl;
}

/* A subtree and its items in and out per local steady state. When its
 * numbers grow past LIMIT it is replaced by a filter (the oversized nodes
 * stay unattached in the graph's storage). */
static StreamNode *gen_stream(Gen *G, int depth, bool in_loop, int64_t *in, int64_t *out)
{
    int kind = depth >= MAX_DEPTH ? 0 : pick(G, depth == 0 ? 3 : 5);
    bool was_too_big = G->too_big;
    G->too_big = false;
    StreamNode *n;
    switch (kind) {
    case 1: n = gen_pipeline(G, depth, in_loop, in, out); break;
    case 2: n = gen_splitjoin(G, depth, in_loop, in, out); break;
    case 3: n = gen_feedbackloop(G, depth, in, out); break;
    default: n = gen_filter(G, in_loop, in, out); break;
    }
    if (G->too_big || *in > LIMIT || *out > LIMIT) {
        G->too_big = false;
        n = gen_filter(G, in_loop, in, out);
    }
    G->too_big = was_too_big;
    return n;
}

RandomGraph random_graph_next(uint64_t *state)
{
    Gen G = {.g = stream_graph_new(), .state = *state};
    RandomGraph r = {.g = G.g};
    StreamNode *root = gen_stream(&G, 0, false, &r.items_in, &r.items_out);
    if (pick(&G, 2) == 0) {
        /* Close the graph with a source and a sink. */
        StreamNode *p = stream_pipeline_new(G.g, "Closed");
        stream_pipeline_add(p, stream_filter_new(G.g, "Source", 0, 0, 1 + pick(&G, 3)));
        stream_pipeline_add(p, root);
        int64_t sink_pop = 1 + pick(&G, 3);
        stream_pipeline_add(p, stream_filter_new(G.g, "Sink", sink_pop, sink_pop, 0));
        root = p;
        r.items_in = r.items_out = 0;
    }
    stream_graph_set_root(G.g, root);
    r.root = root;
    *state = G.state;
    return r;
}

int random_graph_pick(uint64_t *state, int n)
{
    Gen G = {.state = *state};
    int k = pick(&G, n);
    *state = G.state;
    return k;
}
