/* init_phase.c — how often each actor fires before the steady state.
 *
 * A filter that peeks needs peek - pop items on its input beyond what it
 * pops, at the start of every steady state. The init firings i[] are the
 * least non-negative solution of, for every channel a -> b that carries
 * items:
 *     initial + i[a] * push  >=  i[b] * pop + (peek_b - pop_b)
 * so i[a] >= ceil((i[b] * pop + peek_b - pop_b - initial) / push): a demand
 * that flows from consumers to producers.
 *
 * Without feedback loops the channels form a DAG and one pass from the
 * sinks up settles every actor. Feedback loops make cycles: the strongly
 * connected components (Tarjan, iterative, over channels that carry items)
 * come out sinks first, so every demand from outside a component is final
 * when the component is solved; inside it, relaxation repeats until nothing
 * changes (the least fixpoint).
 *
 * Divergence test: relaxing is monotone and commutes with adding the
 * repetition vector (adding reps to both ends of a balanced channel leaves
 * the inequality as it was), so once every member has grown by at least its
 * repetitions since the first round, the same growth repeats forever: the
 * loop can never hold enough items for the peeks inside it, a deadlock. A
 * budget of relaxation steps bounds the rest (a graph whose init phase needs
 * more than that is refused as well, with the same message).
 *
 * The output (the graph's external sink) takes whatever reaches it during
 * the init phase, so it starts every steady state empty.
 */
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/rational.h"
#include "scheduler/sched_internal.h"
#include "tssa/diag.h"
#include "tssa/util.h"

enum { RELAX_BUDGET = 20 * 1000 * 1000 };

typedef struct InitSolver {
    const StreamFlat *f;
    const int64_t *reps;
    int64_t *init;
    FILE *err;
    int64_t budget;
} InitSolver;

/* The least init firings of actor a that meet its consumers' current needs.
 * False on overflow. */
static bool demand(InitSolver *s, int a, int64_t *need)
{
    const StreamActor *actor = &s->f->actors[a];
    *need = 0;
    for (int p = 0; p < actor->nout; p++) {
        const StreamChannel *c = &s->f->channels[actor->out[p]];
        if (!sched_carries_items(c))
            continue;
        int64_t items;
        if (!mul64(s->init[c->dst], c->pop, &items) || !add64(items, c->peek - c->pop, &items))
            return false;
        items -= c->initial;
        if (items <= 0)
            continue;
        int64_t firings = items / c->push + (items % c->push != 0);
        if (firings > *need)
            *need = firings;
    }
    s->budget -= actor->nout + 1;
    return true;
}

static bool overflow_error(InitSolver *s, int a)
{
    const StreamNode *n = s->f->actors[a].node;
    stream_node_error(s->err, n, "%s %s: its init firings overflow 64 bits", stream_node_keyword(n), n->name);
    return false;
}

/* The component members[0..n-1] cannot settle: name its outermost feedback
 * loop and a filter that peeks inside it. */
static bool deadlock_error(InitSolver *s, const int *members, int n, const char *why)
{
    const StreamNode *loop = NULL;
    const StreamNode *peeker = NULL;
    int64_t enqueued = 0;
    for (int i = 0; i < n; i++) {
        const StreamActor *actor = &s->f->actors[members[i]];
        if (actor->kind == ACTOR_FILTER && actor->node->filter.peek > actor->node->filter.pop && !peeker)
            peeker = actor->node;
        if (actor->kind == ACTOR_JOINER && actor->node->kind == STREAM_FEEDBACKLOOP &&
            (!loop || stream_node_depth(actor->node) < stream_node_depth(loop))) {
            loop = actor->node;
            enqueued = s->f->channels[actor->in[1]].initial;
        }
    }
    if (!loop)
        diag_die("scheduler: a cycle without a feedback loop");
    if (peeker)
        stream_node_error(s->err, loop,
                          "feedbackloop %s: deadlock: %s: filter %s peeks %lld items beyond what it pops, more than the "
                          "loop can hold with %lld enqueued item%s",
                          loop->name, why, peeker->name, (long long)(peeker->filter.peek - peeker->filter.pop),
                          (long long)enqueued, enqueued == 1 ? "" : "s");
    else
        stream_node_error(s->err, loop, "feedbackloop %s: deadlock: %s (%lld enqueued item%s)", loop->name, why,
                          (long long)enqueued, enqueued == 1 ? "" : "s");
    return false;
}

static bool solve_component(InitSolver *s, const int *members, int n)
{
    if (n == 1) {
        int64_t need;
        if (!demand(s, members[0], &need))
            return overflow_error(s, members[0]);
        s->init[members[0]] = need;
        return true;
    }
    int64_t *first_round = xmalloc((size_t)n * sizeof *first_round);
    bool ok = false;
    for (int round = 1;; round++) {
        bool changed = false;
        for (int i = 0; i < n; i++) {
            int64_t need;
            if (!demand(s, members[i], &need)) {
                ok = deadlock_error(s, members, n, "the init phase grows without bound");
                goto done;
            }
            if (need > s->init[members[i]]) {
                s->init[members[i]] = need;
                changed = true;
            }
        }
        if (!changed)
            break;
        if (round == 1) {
            for (int i = 0; i < n; i++)
                first_round[i] = s->init[members[i]];
            continue;
        }
        bool grew_by_a_period = true;
        for (int i = 0; i < n && grew_by_a_period; i++)
            grew_by_a_period = s->init[members[i]] - first_round[i] >= s->reps[members[i]];
        if (grew_by_a_period) {
            ok = deadlock_error(s, members, n, "the init phase grows without bound");
            goto done;
        }
        if (s->budget < 0) {
            ok = deadlock_error(s, members, n, "the init phase does not settle");
            goto done;
        }
    }
    ok = true;
done:
    free(first_round);
    return ok;
}

static int descending(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a < b) - (a > b);
}

/* Tarjan's algorithm without recursion; components are solved as they are
 * found, which is sinks first. */
bool sched_init_firings(const StreamFlat *f, const int64_t *reps, int64_t *init, FILE *err)
{
    int n = f->nactors;
    InitSolver s = {f, reps, init, err, RELAX_BUDGET + 16 * (int64_t)f->nchannels};
    int *index = xmalloc((size_t)n * sizeof *index);
    int *low = xmalloc((size_t)n * sizeof *low);
    int *next_port = xmalloc((size_t)n * sizeof *next_port);
    int *stack = xmalloc((size_t)n * sizeof *stack);
    int *calls = xmalloc((size_t)n * sizeof *calls);
    bool *on_stack = xmalloc((size_t)n * sizeof *on_stack);
    int *members = xmalloc((size_t)n * sizeof *members);
    for (int a = 0; a < n; a++) {
        index[a] = -1;
        on_stack[a] = false;
        init[a] = 0;
    }
    int counter = 0, sp = 0, ncalls = 0;
    bool ok = true;
    for (int start = n - 1; start >= 0 && ok; start--) {
        if (index[start] >= 0)
            continue;
        calls[ncalls++] = start;
        index[start] = low[start] = counter++;
        next_port[start] = 0;
        stack[sp++] = start;
        on_stack[start] = true;
        while (ncalls > 0 && ok) {
            int a = calls[ncalls - 1];
            const StreamActor *actor = &f->actors[a];
            if (next_port[a] < actor->nout) {
                const StreamChannel *c = &f->channels[actor->out[next_port[a]++]];
                if (!sched_carries_items(c))
                    continue;
                int b = c->dst;
                if (index[b] < 0) {
                    index[b] = low[b] = counter++;
                    next_port[b] = 0;
                    stack[sp++] = b;
                    on_stack[b] = true;
                    calls[ncalls++] = b;
                } else if (on_stack[b] && index[b] < low[a]) {
                    low[a] = index[b];
                }
                continue;
            }
            ncalls--;
            if (ncalls > 0) {
                int parent = calls[ncalls - 1];
                if (low[a] < low[parent])
                    low[parent] = low[a];
            }
            if (low[a] != index[a])
                continue;
            /* a roots a component: members in decreasing actor order, which
             * runs against the dataflow and settles faster. */
            int count = 0;
            int b;
            do {
                b = stack[--sp];
                on_stack[b] = false;
                members[count++] = b;
            } while (b != a);
            qsort(members, (size_t)count, sizeof *members, descending);
            ok = solve_component(&s, members, count);
        }
    }
    /* The output takes what reaches it during the init phase. */
    for (int a = 0; a < n && ok; a++) {
        const StreamActor *actor = &f->actors[a];
        if (actor->kind != ACTOR_OUTPUT)
            continue;
        const StreamChannel *c = &f->channels[actor->in[0]];
        if (sched_carries_items(c) && !mul64(init[c->src], c->push, &init[a]))
            ok = overflow_error(&s, c->src);
    }
    free(index);
    free(low);
    free(next_port);
    free(stack);
    free(calls);
    free(on_stack);
    free(members);
    return ok;
}
