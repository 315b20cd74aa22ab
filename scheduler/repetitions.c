/* repetitions.c — balance equations over the stream hierarchy.
 *
 * Solved bottom-up, one container at a time, in exact rationals. A child is
 * seen only through its local steady state: it consumes items_in and
 * produces items_out per local steady state. Each container fixes its first
 * actor at one firing, propagates along its channels (firings of the
 * consumer = firings of the producer * push / pop), and scales the result to
 * the least integer vector (rational.h):
 *   pipeline      stage k+1 = stage k * out_k / in_{k+1}
 *   splitjoin     splitter s = 1; branch k = s * w_k / in_k; the joiner j
 *                 from the first branch connected to both (j = m_k * out_k /
 *                 v_k); every other branch must agree; a branch fed by no
 *                 splitter weight is sized from the joiner instead
 *   feedbackloop  joiner j = 1; body = j * (v_in + v_loop) / in_body;
 *                 splitter = body * out_body / pop_split; loop path =
 *                 splitter * push_loop / in_loop; the loop path must return
 *                 exactly j * v_loop items
 * Because each child's local vector is the least one and has gcd 1, the
 * product of the local multipliers along a filter's path is the least
 * positive repetition vector of the whole graph.
 *
 * A channel whose two ends both move 0 items constrains nothing. Only a
 * splitjoin branch may have such a channel on one side (a separator under
 * joiner weight 0; a source branch under splitter weight 0); anywhere else
 * the stream would fall apart into pieces whose relative rates nothing
 * fixes, which is an error, as is one end moving items that the other never
 * moves.
 */
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/rational.h"
#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/util.h"

typedef struct Solver {
    SchedRates *r;
    FILE *err;
} Solver;

/* "filter Band2", "pipeline Left" */
static const char *describe(const StreamNode *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s", stream_node_keyword(n), n->name);
    return buf;
}

static bool overflow(Solver *s, const StreamNode *n)
{
    char d[300];
    stream_node_error(s->err, n, "%s: the rates overflow 64-bit arithmetic", describe(n, d, sizeof d));
    return false;
}

static bool solve(Solver *s, const StreamNode *n);

static bool solve_pipeline(Solver *s, const StreamNode *n)
{
    SchedRates *r = s->r;
    int count = n->nchildren;
    Rational *m = xcalloc((size_t)count, sizeof *m);
    int64_t *ints = xcalloc((size_t)count, sizeof *ints);
    bool ok = false;
    char d[300], e[300];
    m[0] = rat_int(1);
    for (int k = 1; k < count; k++) {
        const StreamNode *prev = n->children[k - 1], *next = n->children[k];
        int64_t out = r->items_out[prev->id], in = r->items_in[next->id];
        if (out == 0 && in == 0) {
            stream_node_error(s->err, next, "pipeline %s: %s and %s are not connected: %s produces no items and %s consumes none",
                              n->name, describe(prev, d, sizeof d), describe(next, e, sizeof e), prev->name, next->name);
            goto done;
        }
        if (out == 0 || in == 0) {
            stream_node_error(s->err, next, "pipeline %s: channel %s -> %s: %s %s but %s %s", n->name, prev->name, next->name,
                              out ? prev->name : next->name, out ? "produces items" : "consumes items",
                              out ? next->name : prev->name, out ? "consumes none" : "produces none");
            goto done;
        }
        if (!rat_scale(m[k - 1], out, in, &m[k])) {
            overflow(s, n);
            goto done;
        }
    }
    if (!rat_to_least_integers(m, count, ints)) {
        overflow(s, n);
        goto done;
    }
    for (int k = 0; k < count; k++)
        r->local[n->children[k]->id] = ints[k];
    const StreamNode *first = n->children[0], *last = n->children[count - 1];
    if (!mul64(ints[0], r->items_in[first->id], &r->items_in[n->id]) ||
        !mul64(ints[count - 1], r->items_out[last->id], &r->items_out[n->id])) {
        overflow(s, n);
        goto done;
    }
    ok = true;
done:
    free(m);
    free(ints);
    return ok;
}

/* Items per firing the splitter of a splitjoin sends to branch k. */
static int64_t split_weight(const StreamNode *n, int k)
{
    return n->split == SPLIT_DUPLICATE ? 1 : n->split_weights[k];
}

static bool sum_weights(const int64_t *w, int count, int64_t *sum)
{
    *sum = 0;
    for (int k = 0; k < count; k++)
        if (!add64(*sum, w[k], sum))
            return false;
    return true;
}

static bool solve_splitjoin(Solver *s, const StreamNode *n)
{
    SchedRates *r = s->r;
    int count = n->nchildren;
    /* v[0] splitter, v[1] joiner, v[2 + k] branch k */
    Rational *v = xcalloc((size_t)count + 2, sizeof *v);
    int64_t *ints = xcalloc((size_t)count + 2, sizeof *ints);
    bool *split_side = xcalloc((size_t)count, sizeof *split_side);
    bool *join_side = xcalloc((size_t)count, sizeof *join_side);
    bool ok = false;
    char d[300];
    bool any_split = false, any_split_only = false, any_join_only = false;
    int first_both = -1;
    for (int k = 0; k < count; k++) {
        const StreamNode *b = n->children[k];
        int64_t w = split_weight(n, k), in = r->items_in[b->id];
        int64_t vj = n->join_weights[k], out = r->items_out[b->id];
        if ((w > 0) != (in > 0) || (out > 0) != (vj > 0) || (w == 0 && vj == 0))
            describe(b, d, sizeof d);   /* only for the message: a branch costs no snprintf */
        if (w > 0 && in == 0) {
            stream_node_error(s->err, b, "splitjoin %s: the splitter sends items to branch %d (%s), which consumes none",
                              n->name, k + 1, d);
            goto done;
        }
        if (w == 0 && in > 0) {
            stream_node_error(s->err, b, "splitjoin %s: branch %d (%s) consumes items but the splitter sends it none (weight 0)",
                              n->name, k + 1, d);
            goto done;
        }
        if (out > 0 && vj == 0) {
            stream_node_error(s->err, b, "splitjoin %s: branch %d (%s) produces items but the joiner takes none from it (weight 0)",
                              n->name, k + 1, d);
            goto done;
        }
        if (out == 0 && vj > 0) {
            stream_node_error(s->err, b, "splitjoin %s: the joiner takes items from branch %d (%s), which produces none",
                              n->name, k + 1, d);
            goto done;
        }
        split_side[k] = w > 0;
        join_side[k] = vj > 0;
        if (!split_side[k] && !join_side[k]) {
            stream_node_error(s->err, b, "splitjoin %s: branch %d (%s) is connected to neither the splitter nor the joiner",
                              n->name, k + 1, d);
            goto done;
        }
        any_split |= split_side[k];
        any_split_only |= split_side[k] && !join_side[k];
        any_join_only |= join_side[k] && !split_side[k];
        if (split_side[k] && join_side[k] && first_both < 0)
            first_both = k;
    }
    v[0] = rat_int(any_split ? 1 : 0);
    for (int k = 0; k < count; k++)
        if (split_side[k] && !rat_scale(v[0], split_weight(n, k), r->items_in[n->children[k]->id], &v[2 + k])) {
            overflow(s, n);
            goto done;
        }
    if (first_both >= 0) {
        int64_t out = r->items_out[n->children[first_both]->id];
        if (!rat_scale(v[2 + first_both], out, n->join_weights[first_both], &v[1])) {
            overflow(s, n);
            goto done;
        }
    } else if (any_split_only && any_join_only) {
        stream_node_error(s->err, n, "splitjoin %s: no branch carries items from the splitter to the joiner", n->name);
        goto done;
    } else {
        v[1] = rat_int(any_split ? 0 : 1);
    }
    for (int k = 0; k < count; k++) {
        if (!join_side[k])
            continue;
        const StreamNode *b = n->children[k];
        int64_t out = r->items_out[b->id], vj = n->join_weights[k];
        if (!split_side[k]) {
            if (!rat_scale(v[1], vj, out, &v[2 + k])) {
                overflow(s, n);
                goto done;
            }
            continue;
        }
        Rational produced, taken, ratio;
        if (!rat_scale(v[2 + k], out, 1, &produced) || !rat_scale(v[1], vj, 1, &taken) ||
            !rat_div(produced, taken, &ratio)) {
            overflow(s, n);
            goto done;
        }
        if (ratio.num != ratio.den) {
            stream_node_error(s->err, b,
                              "splitjoin %s: branch %d (%s) produces %lld items for every %lld the joiner takes from it "
                              "(branch %d sets the joiner's rate)",
                              n->name, k + 1, describe(b, d, sizeof d), (long long)ratio.num, (long long)ratio.den,
                              first_both + 1);
            goto done;
        }
    }
    if (!rat_to_least_integers(v, count + 2, ints)) {
        overflow(s, n);
        goto done;
    }
    r->split_firings[n->id] = ints[0];
    r->join_firings[n->id] = ints[1];
    for (int k = 0; k < count; k++)
        r->local[n->children[k]->id] = ints[2 + k];
    int64_t split_pop = 1, join_push;
    if ((n->split != SPLIT_DUPLICATE && !sum_weights(n->split_weights, count, &split_pop)) ||
        !sum_weights(n->join_weights, count, &join_push) || !mul64(ints[0], split_pop, &r->items_in[n->id]) ||
        !mul64(ints[1], join_push, &r->items_out[n->id])) {
        overflow(s, n);
        goto done;
    }
    ok = true;
done:
    free(v);
    free(ints);
    free(split_side);
    free(join_side);
    return ok;
}

static bool solve_feedbackloop(Solver *s, const StreamNode *n)
{
    SchedRates *r = s->r;
    const StreamNode *body = n->children[0], *loop = n->children[1];
    bool dup = n->split == SPLIT_DUPLICATE;
    int64_t v_in = n->join_weights[0], v_loop = n->join_weights[1];
    int64_t split_pop = 1, push_out = dup ? 1 : n->split_weights[0], push_loop = dup ? 1 : n->split_weights[1];
    int64_t join_push;
    if (!add64(v_in, v_loop, &join_push) || (!dup && !add64(n->split_weights[0], n->split_weights[1], &split_pop)))
        return overflow(s, n);
    int64_t body_in = r->items_in[body->id], body_out = r->items_out[body->id];
    int64_t loop_in = r->items_in[loop->id], loop_out = r->items_out[loop->id];
    const char *problem = NULL;
    if (v_loop == 0)
        problem = "the joiner takes nothing from the loop path (loop weight 0)";
    else if (push_loop == 0)
        problem = "the splitter sends nothing around the loop (loop weight 0)";
    else if (body_in == 0)
        problem = "the body consumes no items";
    else if (body_out == 0)
        problem = "the body produces no items";
    else if (split_pop == 0)
        problem = "the splitter takes no items (weights 0, 0)";
    else if (loop_in == 0)
        problem = "the loop path consumes no items";
    else if (loop_out == 0)
        problem = "the loop path produces no items";
    if (problem) {
        stream_node_error(s->err, n, "feedbackloop %s: %s", n->name, problem);
        return false;
    }
    /* v[0] joiner, v[1] body, v[2] splitter, v[3] loop path */
    Rational v[4], returned, ratio;
    v[0] = rat_int(1);
    if (!rat_scale(v[0], join_push, body_in, &v[1]) || !rat_scale(v[1], body_out, split_pop, &v[2]) ||
        !rat_scale(v[2], push_loop, loop_in, &v[3]) || !rat_scale(v[3], loop_out, 1, &returned) ||
        !rat_scale(returned, 1, v_loop, &ratio))
        return overflow(s, n);
    if (ratio.num != ratio.den) {
        stream_node_error(s->err, n,
                          "feedbackloop %s: the loop path returns %lld items for every %lld the joiner takes from it",
                          n->name, (long long)ratio.num, (long long)ratio.den);
        return false;
    }
    int64_t ints[4];
    if (!rat_to_least_integers(v, 4, ints))
        return overflow(s, n);
    r->join_firings[n->id] = ints[0];
    r->local[body->id] = ints[1];
    r->split_firings[n->id] = ints[2];
    r->local[loop->id] = ints[3];
    if (!mul64(ints[0], v_in, &r->items_in[n->id]) || !mul64(ints[2], push_out, &r->items_out[n->id]))
        return overflow(s, n);
    return true;
}

static bool solve(Solver *s, const StreamNode *n)
{
    if (n->kind == STREAM_FILTER) {
        s->r->items_in[n->id] = n->filter.pop;
        s->r->items_out[n->id] = n->filter.push;
        return true;
    }
    for (int k = 0; k < n->nchildren; k++)
        if (!solve(s, n->children[k]))
            return false;
    switch (n->kind) {
    case STREAM_PIPELINE: return solve_pipeline(s, n);
    case STREAM_SPLITJOIN: return solve_splitjoin(s, n);
    case STREAM_FEEDBACKLOOP: return solve_feedbackloop(s, n);
    case STREAM_FILTER: break;
    }
    return true;
}

/* global[child] = global[parent] * local[child], top-down. */
static bool globalize(Solver *s, const StreamNode *n)
{
    for (int k = 0; k < n->nchildren && n->kind != STREAM_FILTER; k++) {
        const StreamNode *c = n->children[k];
        if (!mul64(s->r->global[n->id], s->r->local[c->id], &s->r->global[c->id])) {
            char d[300];
            stream_node_error(s->err, c, "%s: its firings per steady state overflow 64 bits", describe(c, d, sizeof d));
            return false;
        }
        if (!globalize(s, c))
            return false;
    }
    return true;
}

bool sched_solve_rates(const StreamNode *root, SchedRates *r, FILE *err)
{
    size_t nnodes = (size_t)root->graph->nnodes;
    r->items_in = xcalloc(nnodes, sizeof(int64_t));
    r->items_out = xcalloc(nnodes, sizeof(int64_t));
    r->local = xcalloc(nnodes, sizeof(int64_t));
    r->split_firings = xcalloc(nnodes, sizeof(int64_t));
    r->join_firings = xcalloc(nnodes, sizeof(int64_t));
    r->global = xcalloc(nnodes, sizeof(int64_t));
    Solver s = {r, err};
    if (!solve(&s, root))
        return false;
    r->local[root->id] = 1;
    r->global[root->id] = 1;
    return globalize(&s, root);
}

void sched_rates_free(SchedRates *r)
{
    free(r->items_in);
    free(r->items_out);
    free(r->local);
    free(r->split_firings);
    free(r->join_firings);
    free(r->global);
}

static void print_end(FILE *out, const StreamFlat *f, int a)
{
    stream_actor_print_path(out, &f->actors[a]);
}

bool sched_repetitions(const StreamFlat *f, const SchedRates *r, int64_t *reps, FILE *err)
{
    const StreamNode *root = f->root;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        int id = actor->node->id;
        bool fits = true;
        switch (actor->kind) {
        case ACTOR_INPUT: reps[a] = r->items_in[root->id]; break;
        case ACTOR_OUTPUT: reps[a] = r->items_out[root->id]; break;
        case ACTOR_FILTER: reps[a] = r->global[id]; break;
        case ACTOR_SPLITTER: fits = mul64(r->global[id], r->split_firings[id], &reps[a]); break;
        case ACTOR_JOINER: fits = mul64(r->global[id], r->join_firings[id], &reps[a]); break;
        }
        if (!fits) {
            stream_node_error(err, actor->node, "%s %s: its %s's firings per steady state overflow 64 bits",
                              stream_node_keyword(actor->node), actor->node->name,
                              actor->kind == ACTOR_SPLITTER ? "splitter" : "joiner");
            return false;
        }
    }
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        int64_t produced, consumed;
        if (!mul64(reps[ch->src], ch->push, &produced) || !mul64(reps[ch->dst], ch->pop, &consumed)) {
            const StreamNode *at = f->actors[ch->src].node;
            stream_node_error(err, at, "%s %s: the items per steady state on its output channel overflow 64 bits",
                              stream_node_keyword(at), at->name);
            return false;
        }
        if (produced != consumed) {
            fputs("channel ", stderr);
            print_end(stderr, f, ch->src);
            fputs(" -> ", stderr);
            print_end(stderr, f, ch->dst);
            fputc('\n', stderr);
            diag_die("scheduler: unbalanced channel %d (%lld produced, %lld consumed per steady state)", c,
                     (long long)produced, (long long)consumed);
        }
    }
    return true;
}
