/* cpu_exec.c — the sequential executor of a scheduled stream graph.
 *
 * Each channel of the flat view is a FIFO ring buffer of RtValue* whose
 * capacity is the schedule's buffer size for it (planned, not grown: an
 * overflow or underflow is an internal error, it means plan and executor
 * disagree). The init phase and then one steady phase run in schedule order
 * (sched_phases_run expands the folded repeats); each run of firings of an
 * actor moves items:
 *   input     pushes the next stream input item
 *   output    pops an item into the results
 *   splitter  duplicate: one item to every output; round-robin: w[k] items
 *             to output k in turn
 *   joiner    round-robin: w[k] items from input k in turn
 *   filter    identity passes one item; a separator drops `pop` items; a
 *             work filter pops `pop` items and fires its LowerWork
 *             (cpu_fire, fire.c) which pushes `push` items.
 * Feedback channels start with their enqueued items (None placeholders).
 * Items are reference-counted values; a duplicate splitter shares one value
 * between its outputs, which is safe because lowered work never mutates
 * what it pops (the functional graph has no mutation, and graphs with
 * mutation left are lowered as one filter). A lowered loop's feedback
 * splitter sends the loop's Stack a step's state only from the last step
 * (the Stack takes the final state from it, fire.c), None from the others:
 * the Stack's channel would otherwise hold every step's state until the
 * loop ends (600 steps of a [3, 600] signal: 13 MB instead of 22 kB), so
 * no step's state could go back to the pool for the next step to reuse.
 *
 * Placed schedules (several ranks): every rank walks the same phases and
 * fires only the actors placed on it. A channel whose producer is here and
 * consumer elsewhere collects the items of one firing and hands them to
 * the transport as one message; a channel whose producer is elsewhere
 * takes a message from the transport when its consumer finds it empty. A
 * channel's FIFO lives on its consumer's rank (with its enqueued items).
 * No deadlock: sends never wait, and a receive waits only for a firing
 * that comes earlier in the one sequential order every rank follows, so by
 * induction on that order every firing completes.
 *
 * Replicated actors (Schedule.replicated: the input and what only
 * moves and views its items) fire on every rank that fires a consumer of
 * theirs, since every rank holds the inputs: their items reach a consumer
 * on the consumer's own rank, and those for consumers elsewhere are dropped
 * (that rank made its own), so inputs never travel in messages.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/cpu.h"

typedef struct Fifo {
    RtValue **items;        /* a slice of Exec.fifo_items, or its own array once grown */
    int64_t cap, head, count;
    bool grown;
} Fifo;

typedef struct Exec {
    const ExecPlan *plan;
    NodeExec *values;       /* compile-time values; firings run here */
    const StreamFlat *flat;
    Fifo *fifos;
    /* Per channel: the rank of the end that is not here, or -1 when both
     * ends are here (or neither: the channel is not this rank's). */
    int *send_to, *recv_from;
    bool *here;             /* per actor: fired on this rank */
    bool *drop;             /* per channel: a replicated producer's items
                             * for a consumer elsewhere (which made its own) */
    const unsigned char *tail;  /* per actor: the owned tail (TAIL_*), or NULL (one rank) */
    int *absent_from;       /* per channel into the owned tail: the rank whose
                             * items it stands for with placeholders, or -1 */
    CpuRegions regions;     /* the owned tail's Stacks' rows, this run */
    /* --trace: messages per channel so far in this run, and the run's
     * number (every rank runs the same runs in the same order, so both
     * ends of a message compute the same arrow id). */
    uint64_t *messages;
    uint64_t run;
    RtValue **inputs;
    int ninputs, next_input;
    RtValue **outputs;
    int noutputs, cap_outputs;
    RtValue **popped, **pushed;     /* scratch, sized for the largest firing */
    FILE *err;
    bool failed;
    const StreamActor *failed_actor;
    int *holes;             /* deferred outputs: their channels, or NULL */
    int nholes;
    /* Phased actors (a long loop's Unstack, Stack, Iterations joiner):
     * phases fired so far, and what a phased filter keeps between them. */
    int64_t *phase_done;
    int64_t *nphases;       /* phases per firing, by actor (1: not phased) */
    CpuPhaseState **phase_state;
    int64_t *split_items;   /* per actor: items a feedback splitter passed this
                             * run (made at the first such splitter's item) */
    RtValue *state_none;    /* the None a Stack gets for such an item (one per run) */
} Exec;

/* Whether the item a lowered loop's feedback splitter (actor a) passes now
 * is the state of a step before the last: the Stack reads the state of the
 * last step only (fire_stack), so such an item goes out as None. The body
 * pushes its state first, then the step's outputs (lower_loop.c). */
static bool earlier_step_state(Exec *x, const StreamActor *a)
{
    const StreamNode *n = a->node;
    if (n->kind != STREAM_FEEDBACKLOOP || n->nchildren < 1 || n->children[0]->kind != STREAM_FILTER)
        return false;
    const LowerWork *w = n->children[0]->filter.work;
    if (!w || w->kind != LOWER_WORK_LOOP_BODY || !w->plan || !w->plan->feedback || w->plan->trips < 1)
        return false;
    if (!x->split_items)
        x->split_items = xcalloc((size_t)x->flat->nactors + 1, sizeof *x->split_items);
    int64_t per = lower_work_push(w), at = x->split_items[a - x->flat->actors]++;
    if (per < 1)
        return false;
    int64_t step = at / per % w->plan->trips;
    return at % per < w->plan->nstate && step != w->plan->trips - 1;
}

/* The phase the actor's next firing runs (0 when it is not phased). The
 * rates of an unphased end are the channel's own, looked up without the
 * phase arithmetic: these run for every firing. */
static int64_t next_phase(const Exec *x, int a)
{
    return x->nphases[a] > 1 ? x->phase_done[a] % x->nphases[a] : 0;
}

static int64_t pop_at(const Exec *x, int c)
{
    const StreamChannel *ch = &x->flat->channels[c];
    return x->nphases[ch->dst] > 1 ? stream_channel_pop_at(x->flat, c, next_phase(x, ch->dst)) : ch->pop;
}

static int64_t push_at(const Exec *x, int c)
{
    const StreamChannel *ch = &x->flat->channels[c];
    return x->nphases[ch->src] > 1 ? stream_channel_push_at(x->flat, c, next_phase(x, ch->src)) : ch->push;
}

static bool fifo_push(Exec *x, int ch, RtValue *v)
{
    if (x->drop[ch]) {
        rt_release(v);
        return true;
    }
    Fifo *f = &x->fifos[ch];
    if (x->send_to[ch] >= 0 && f->count == f->cap) {    /* a firing's message grows */
        int64_t cap = 2 * f->cap;
        if (f->grown) {
            f->items = xrealloc(f->items, (size_t)cap * sizeof *f->items);
        } else {
            RtValue **items = xmallocn((size_t)cap, sizeof *items);
            memcpy(items, f->items, (size_t)f->cap * sizeof *items);
            f->items = items;
            f->grown = true;
        }
        f->cap = cap;
    }
    if (f->count == f->cap) {
        fprintf(x->err, "error: internal: channel %d overflows its planned size %lld\n", ch,
                (long long)f->cap);
        rt_release(v);
        return false;
    }
    f->items[(f->head + f->count) % f->cap] = v;
    f->count++;
    return true;
}

/* Takes the next message of a channel whose producer is on another rank. */
static double now_s(void);

/* --trace: one end of the arrow of channel ch's next message. */
static void trace_message(Exec *x, int ch, bool send)
{
    if (!x->plan->trace)
        return;
    uint64_t id = (x->run << 40) | ((uint64_t)ch << 20) | (x->messages[ch]++ & 0xfffff);
    trace_log_flow(x->plan->trace, send, id, 0, now_s() - x->plan->trace_epoch);
}

static bool receive(Exec *x, int ch)
{
    int n = 0;
    RtValue **items = x->plan->transport->recv(ch, x->recv_from[ch], &n, x->err);
    trace_message(x, ch, false);
    if (!items)
        return false;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (ok)
            ok = fifo_push(x, ch, items[i]);
        else
            rt_release(items[i]);
    }
    free(items);
    return ok;
}

/* Sends what one firing pushed on a channel whose consumer is elsewhere.
 * The staging FIFO is never wrapped: it is emptied after every firing. */
static bool send_pushed(Exec *x, int ch)
{
    Fifo *f = &x->fifos[ch];
    if (f->count == 0)
        return true;
    trace_message(x, ch, true);
    const ExecDevice *dev = x->plan->device;
    bool ok = (!dev || dev->to_host(dev->ctx, f->items + f->head, (int)f->count, x->err)) &&
              x->plan->transport->send(ch, x->send_to[ch], f->items + f->head, (int)f->count, x->err);
    for (int64_t i = 0; i < f->count; i++) {
        rt_release(f->items[f->head + i]);
        f->items[f->head + i] = NULL;
    }
    f->head = f->count = 0;
    return ok;
}

static RtValue *fifo_pop(Exec *x, int ch)
{
    Fifo *f = &x->fifos[ch];
    if (f->count == 0 && x->absent_from[ch] >= 0)
        return cpu_absent_item(x->absent_from[ch]);
    if (f->count == 0 && x->recv_from[ch] >= 0 && !receive(x, ch))
        return NULL;
    if (f->count == 0) {
        fprintf(x->err, "error: internal: channel %d underflows\n", ch);
        return NULL;
    }
    RtValue *v = f->items[f->head];
    f->items[f->head] = NULL;
    f->head = (f->head + 1) % f->cap;
    f->count--;
    return v;
}

static bool move_items(Exec *x, int from, int to, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        RtValue *v = fifo_pop(x, from);
        if (!v || !fifo_push(x, to, v))
            return false;
    }
    return true;
}

/* Whether this rank's owned-tail Stacks keep their iterations' rows as
 * they came instead of copying them into one result: every rank but 0 (its
 * rows go to rank 0 after the run), and rank 0 too when nobody reads the
 * run's outputs (--repeat's timed runs): the result then stays a tensor cut
 * by rows over the ranks, as a GPU program's outputs stay on the device. */
static bool keeps_rows_apart(const Exec *x)
{
    return x->plan->rank != 0 || x->plan->outputs_dropped;
}

static bool fire_filter(Exec *x, const StreamActor *a)
{
    const StreamFilter *f = &a->node->filter;
    int in = a->nin ? a->in[0] : -1, out = a->nout ? a->out[0] : -1;
    if (f->role == FILTER_IDENTITY)
        return move_items(x, in, out, 1);
    if (f->role == FILTER_SEPARATOR) {
        for (int64_t i = 0; i < f->pop; i++) {
            RtValue *v = fifo_pop(x, in);
            if (!v)
                return false;
            rt_release(v);
        }
        return true;
    }
    const LowerWork *w = f->work;
    if (!w) {
        stream_node_error(x->err, a->node, "filter '%s' has no lowered work to run%s%s",
                          a->node->name, f->work_op ? " (work op " : "",
                          f->work_op ? f->work_op : "");
        return false;
    }
    int self = (int)(a - x->flat->actors);
    int64_t npop = in >= 0 ? pop_at(x, in) : f->pop, npush = out >= 0 ? push_at(x, out) : f->push;
    for (int64_t i = 0; i < npop; i++)
        if (!(x->popped[i] = fifo_pop(x, in))) {
            for (int64_t j = 0; j < i; j++)
                rt_release(x->popped[j]);
            return false;
        }
    /* the filter's device runs what it can of this firing */
    const ExecDevice *dev = x->plan->device;
    if (dev)
        dev->select(dev->ctx, f->device > 0 ? f->device : 0);
    /* A loop's stack (fire.c) copies its kept initial values and writes
     * every iteration's items into the copies through the evaluator, whose
     * device hooks (node runner, cloner) do both where the data is */
    const StreamPhasing *ph = x->nphases[self] > 1 ? stream_actor_phasing(a) : NULL;
    bool ok;
    if (ph) {
        int64_t j = next_phase(x, self);
        bool tail = x->tail && x->tail[self];
        CpuLoopPhase phase = {j * ph->chunk, stream_phasing_iterations(ph, j), j == x->nphases[self] - 1,
                              &x->phase_state[self], tail ? &x->regions : NULL, tail && keeps_rows_apart(x)};
        ok = cpu_fire_phase(x->values, w, &phase, npush, x->popped, x->pushed, x->err);
    } else if (x->tail && x->tail[self] && w->kind == LOWER_WORK_LOOP_STACK) {
        CpuPhaseState *state = NULL;
        CpuLoopPhase whole = {0, w->plan->trips, true, &state, &x->regions, keeps_rows_apart(x)};
        ok = cpu_fire_phase(x->values, w, &whole, npush, x->popped, x->pushed, x->err);
    } else {
        ok = cpu_fire(x->values, w, x->popped, x->pushed, x->err);
    }
    for (int64_t i = 0; i < npop; i++)
        rt_release(x->popped[i]);
    /* On a failed push the items not yet pushed are still ours to release. */
    int64_t i = 0;
    for (; ok && i < npush; i++)
        ok = fifo_push(x, out, x->pushed[i]);
    for (; !ok && i < npush; i++)
        rt_release(x->pushed[i]);
    return ok;
}

static bool fire_once(Exec *x, const StreamActor *a)
{
    const StreamChannel *ch = x->flat->channels;
    const StreamNode *n = a->node;
    switch (a->kind) {
    case ACTOR_INPUT:
        if (ch[a->out[0]].push == 0)
            return true;
        if (x->next_input >= x->ninputs) {
            fprintf(x->err, "error: internal: the stream takes more inputs than the program has\n");
            return false;
        }
        return fifo_push(x, a->out[0], rt_retain(x->inputs[x->next_input++]));
    case ACTOR_OUTPUT:
        if (ch[a->in[0]].pop == 0)
            return true;
        if (x->noutputs == x->cap_outputs) {
            x->cap_outputs = x->cap_outputs ? 2 * x->cap_outputs : 8;
            x->outputs = xrealloc(x->outputs, (size_t)x->cap_outputs * sizeof *x->outputs);
        }
        if (x->holes && x->recv_from[a->in[0]] >= 0 && x->fifos[a->in[0]].count == 0) {
            /* Deferred: the caller takes this item from the channel once it
             * has started the next run (cpu_execute's comment). */
            x->holes[x->nholes++] = a->in[0];
            x->outputs[x->noutputs++] = NULL;
            return true;
        }
        return (x->outputs[x->noutputs++] = fifo_pop(x, a->in[0])) != NULL;
    case ACTOR_SPLITTER:
        if (n->split == SPLIT_DUPLICATE) {
            RtValue *v = fifo_pop(x, a->in[0]);
            if (!v)
                return false;
            bool ok = true, none_out = earlier_step_state(x, a);
            if (none_out && !x->state_none)
                x->state_none = rt_none();
            for (int k = 0; ok && k < a->nout; k++)
                ok = fifo_push(x, a->out[k], rt_retain(none_out && k == 0 ? x->state_none : v));
            rt_release(v);
            return ok;
        }
        for (int k = 0; k < a->nout; k++)
            if (!move_items(x, a->in[0], a->out[k], ch[a->out[k]].push))
                return false;
        return true;
    case ACTOR_JOINER:
        for (int k = 0; k < a->nin; k++)
            if (!move_items(x, a->in[k], a->out[0], pop_at(x, a->in[k])))
                return false;
        return true;
    case ACTOR_FILTER:
        return fire_filter(x, a);
    }
    return false;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int actor_rank(const Exec *x, int actor)
{
    const int *ranks = x->plan->schedule->actor_rank;
    return ranks ? ranks[actor] : 0;
}

/* --trace: a run of firings of a work filter is a slice named after the
 * filter, with its source line; splitters, joiners and the output are
 * slices too when they move items between ranks (the message arrows start
 * and end in them); identities and the rest are not drawn. */
static void trace_firings(Exec *x, const StreamActor *a, int64_t firings, double t0)
{
    bool work = a->kind == ACTOR_FILTER && a->node->filter.role == FILTER_WORK;
    bool crosses = false;
    for (int p = 0; p < a->nout; p++)
        crosses |= x->send_to[a->out[p]] >= 0;
    for (int p = 0; p < a->nin; p++)
        crosses |= x->recv_from[a->in[p]] >= 0;
    if (!work && !crosses)
        return;
    const StreamFilter *f = work ? &a->node->filter : NULL;
    const IrNode *first = f && f->nnodes > 0 ? f->nodes[0] : NULL;
    char name[STREAM_MAX_NAME + 96], args[64];
    if (first && first->comment)
        snprintf(name, sizeof name, "%s (%.80s)", a->node->name, first->comment + strspn(first->comment, " "));
    else if (first && first->line > 0)
        snprintf(name, sizeof name, "%s (graph line %d)", a->node->name, first->line);
    else
        snprintf(name, sizeof name, "%s%s%s", a->node->name, work ? "" : " ", work ? "" : stream_actor_kind_name(a->kind));
    snprintf(args, sizeof args, "{\"firings\":%lld}", (long long)firings);
    trace_log_slice(x->plan->trace, 0, name, work ? "filter" : "move", t0 - x->plan->trace_epoch,
                    now_s() - x->plan->trace_epoch, args);
    /* each OpenMP thread's shares of the firings' parallel loops, on the
     * thread's own track (1 + its number), under the filter's name; spans
     * that began before these firings (an actor not drawn) are dropped */
    TraceThreadSpan spans[64];
    for (int n; (n = trace_threads_take(spans, 64)) > 0;)
        for (int i = 0; i < n; i++)
            if (spans[i].start_s >= t0)
                trace_log_slice(x->plan->trace, 1 + spans[i].thread, name, "thread",
                                spans[i].start_s - x->plan->trace_epoch,
                                spans[i].end_s - x->plan->trace_epoch, NULL);
}

static void fire(int actor, int64_t firings, void *ctx)
{
    Exec *x = ctx;
    if (x->failed || !x->here[actor])
        return;
    const StreamActor *a = &x->flat->actors[actor];
    double t0 = x->plan->trace ? now_s() : 0;
    for (int64_t i = 0; i < firings && !x->failed; i++) {
        if (!fire_once(x, a))
            x->failed = true;
        x->phase_done[actor]++;
        for (int p = 0; p < a->nout && !x->failed; p++)
            if (x->send_to[a->out[p]] >= 0 && !send_pushed(x, a->out[p]))
                x->failed = true;
    }
    if (x->failed && !x->failed_actor) {
        x->failed_actor = a;
        return;
    }
    if (x->plan->trace)
        trace_firings(x, a, firings, t0);
}

/* The rows of the results each rank computed, to rank 0, which holds the
 * outputs (after a run whose outputs are read): every rank walks the same
 * list of rows in the same order (the Stacks' firings), so the sends and
 * receives pair up on one tag, a message per slice. */
static bool gather_rows(Exec *x)
{
    const ChannelTransport *t = x->plan->transport;
    int me = x->plan->rank, tag = x->flat->nchannels;
    bool ok = t != NULL;
    for (int i = 0; ok && i < x->regions.n; i++) {
        const CpuRegion *r = &x->regions.items[i];
        if (me != 0) {          /* this rank's rows (an iteration's item) */
            ok = r->owner >= 0 || t->send(tag, 0, &r->tensor, 1, x->err);
            continue;
        }
        if (r->owner < 0 || r->hi <= r->lo)
            continue;
        Tensor *rows = r->row ? tensor_select(r->tensor->u.t, 0, r->lo) : tensor_slice(r->tensor->u.t, 0, r->lo, r->hi, 1);
        int n = 0;
        RtValue **got = rows ? t->recv(tag, r->owner, &n, x->err) : NULL;
        ok = got && n == 1 && got[0]->kind == RT_TENSOR && tensor_copy_(rows, got[0]->u.t);
        if (!ok)
            fprintf(x->err, "error: internal: rows %lld..%lld of an output from rank %d do not fit\n",
                    (long long)r->lo, (long long)r->hi, r->owner);
        for (int k = 0; got && k < n; k++)
            rt_release(got[k]);
        free(got);
        tensor_release(rows);
    }
    return ok && t->flush(x->err);
}

/* Whether a is a data-parallel loop's body (or a copy of it): what it
 * pushes are its iterations' rows of the loop's results. */
static bool makes_rows(const StreamActor *a)
{
    if (a->kind != ACTOR_FILTER || a->node->filter.role != FILTER_WORK)
        return false;
    const LowerWork *w = a->node->filter.work;
    return w && w->kind == LOWER_WORK_REGION && w->plan && !w->plan->feedback;
}

/* Which actors fire here, and which ends of each channel are elsewhere,
 * for this rank. A replicated actor fires here when an actor that fires
 * here pops what it pushes (found backwards from the consumers: the flat
 * view lists producers before consumers, but a few passes settle any
 * order). */
static void place_channels(Exec *x)
{
    const StreamFlat *f = x->flat;
    int n = f->nchannels, me = x->plan->rank;
    bool spread = x->plan->schedule->nranks > 1 && x->plan->inputs_everywhere;
    const bool *replicated = spread ? x->plan->schedule->replicated : NULL;
    /* The owned tail writes received rows straight into host memory: with
     * a device (whose copy of a result may be the current one) results go
     * to rank 0 as messages instead, after the device's to_host. */
    x->tail = spread && !x->plan->device ? x->plan->schedule->owned_tail : NULL;
    x->here = xcalloc((size_t)f->nactors + 1, sizeof *x->here);
    x->drop = xcalloc((size_t)n + 1, sizeof *x->drop);
    x->absent_from = xmallocn((size_t)n + 1, sizeof *x->absent_from);
    for (int c = 0; c <= n; c++)
        x->absent_from[c] = -1;
    for (int a = 0; a < f->nactors; a++)
        x->here[a] = (actor_rank(x, a) == me && !(replicated && replicated[a])) || (x->tail && x->tail[a]);
    for (bool grew = replicated != NULL; grew;) {
        grew = false;
        for (int c = 0; c < n; c++) {
            const StreamChannel *ch = &f->channels[c];
            if (replicated[ch->src] && !x->here[ch->src] && x->here[ch->dst]) {
                x->here[ch->src] = true;
                grew = true;
            }
        }
    }
    /* the input actor (it hands the stream its inputs) always fires */
    for (int a = 0; a < f->nactors; a++)
        if (f->actors[a].kind == ACTOR_INPUT && (me == 0 || (replicated && replicated[a])))
            x->here[a] = true;
    x->send_to = xcalloc((size_t)n + 1, sizeof *x->send_to);
    x->recv_from = xcalloc((size_t)n + 1, sizeof *x->recv_from);
    for (int c = 0; c < n; c++) {
        const StreamChannel *ch = &f->channels[c];
        int src = actor_rank(x, ch->src), dst = actor_rank(x, ch->dst);
        if (replicated && replicated[ch->src]) {
            x->drop[c] = x->here[ch->src] && !x->here[ch->dst];
            x->send_to[c] = x->recv_from[c] = -1;
            continue;
        }
        if (x->tail && x->tail[ch->dst] == TAIL_BEFORE_STACK && !x->tail[ch->src]) {
            /* An iteration's rows stay on the rank that computed them
             * (placeholders elsewhere; gather_rows moves them once). What
             * else enters (a loop's initial value) goes to rank 0, the only
             * rank whose Stacks keep their results. */
            bool mine = x->here[ch->src], rows = makes_rows(&f->actors[ch->src]);
            x->send_to[c] = mine && !rows && me != 0 ? 0 : -1;
            x->recv_from[c] = !mine && !rows && me == 0 ? src : -1;
            x->absent_from[c] = mine ? (!rows && me != 0 ? me : -1) : (x->recv_from[c] >= 0 ? -1 : src);
            continue;
        }
        if (x->tail && x->tail[ch->dst] == TAIL_AFTER_STACK && !x->tail[ch->src]) {
            /* a result for the output: rank 0's copy of the tail takes the
             * item, the others' placeholders (their outputs are not read) */
            bool mine = x->here[ch->src];
            x->send_to[c] = mine && me != 0 ? 0 : -1;
            x->recv_from[c] = me == 0 && !mine ? src : -1;
            x->absent_from[c] = me != 0 ? (mine ? me : src) : -1;
            continue;
        }
        x->send_to[c] = x->here[ch->src] && !x->here[ch->dst] ? dst : -1;
        x->recv_from[c] = x->here[ch->dst] && !x->here[ch->src] ? src : -1;
    }
}

bool cpu_execute(const ExecPlan *plan, NodeExec *values, RtValue **stream_inputs, int ninputs,
                 RtValue ***items, int *nitems, CpuDeferred *deferred, FILE *err)
{
    const Schedule *s = plan->schedule;
    const StreamFlat *flat = s->flat;
    Exec x = {.plan = plan, .values = values, .flat = flat, .inputs = stream_inputs,
              .ninputs = ninputs, .err = err};
    if (deferred) {
        *deferred = (CpuDeferred){0};
        int64_t most = 1;
        for (int a = 0; a < flat->nactors; a++)
            if (flat->actors[a].kind == ACTOR_OUTPUT)
                most += s->repetitions[a] + s->init_firings[a];
        x.holes = xcalloc((size_t)most, sizeof *x.holes);
    }
    x.fifos = xcalloc((size_t)flat->nchannels + 1, sizeof *x.fifos);
    place_channels(&x);
    static uint64_t runs;           /* this process's runs so far */
    x.run = runs++;
    x.messages = xcalloc((size_t)flat->nchannels + 1, sizeof *x.messages);
    int64_t most = 1;
    /* every channel's items in one block: a tiny program's run is a few
     * microseconds, and one allocation per channel per run was a large
     * part of it */
    size_t all_items = 1;
    for (int c = 0; c < flat->nchannels; c++)
        all_items += (size_t)(s->buffer_size[c] > 0 ? s->buffer_size[c] : 1);
    RtValue **fifo_items = xcalloc(all_items, sizeof *fifo_items);
    int64_t at = 0;
    for (int c = 0; c < flat->nchannels; c++) {
        x.fifos[c].cap = s->buffer_size[c] > 0 ? s->buffer_size[c] : 1;
        x.fifos[c].items = fifo_items + at;
        at += x.fifos[c].cap;
        /* A feedback loop's enqueued items: placeholders, on the consumer's
         * rank. A lowered loop hands step 0 its run-time initial state
         * beside its items (streamit/lower_loop.c), so no firing reads
         * these. */
        if (x.send_to[c] >= 0)
            continue;
        for (int64_t i = 0; i < flat->channels[c].initial && i < x.fifos[c].cap; i++)
            x.fifos[c].items[x.fifos[c].count++] = rt_none();
    }
    x.phase_done = xcalloc((size_t)flat->nactors + 1, sizeof *x.phase_done);
    x.phase_state = xcalloc((size_t)flat->nactors + 1, sizeof *x.phase_state);
    x.nphases = xcalloc((size_t)flat->nactors + 1, sizeof *x.nphases);
    for (int i = 0; i < flat->nactors; i++)
        x.nphases[i] = stream_actor_phases(&flat->actors[i]);
    for (int i = 0; i < flat->nactors; i++)
        if (flat->actors[i].kind == ACTOR_FILTER) {
            const StreamActor *a = &flat->actors[i];
            const StreamFilter *f = &a->node->filter;
            int64_t pop = f->pop, push = f->push;
            if (stream_actor_phasing(a)) {
                /* The largest phase: the first (with the once-only items)
                 * or a full one, or the last (with the results). */
                int64_t last = stream_actor_phases(a) - 1, phases[3] = {0, last > 1 ? 1 : 0, last};
                pop = push = 0;
                for (int k = 0; k < 3; k++) {
                    int64_t po = a->nin ? stream_channel_pop_at(flat, a->in[0], phases[k]) : 0;
                    int64_t pu = a->nout ? stream_channel_push_at(flat, a->out[0], phases[k]) : 0;
                    pop = po > pop ? po : pop;
                    push = pu > push ? pu : push;
                }
            }
            most = pop > most ? pop : most;
            most = push > most ? push : most;
        }
    x.popped = xcalloc((size_t)most, sizeof *x.popped);
    x.pushed = xcalloc((size_t)most, sizeof *x.pushed);

    sched_phases_run(s->init, s->ninit, fire, &x);
    if (!x.failed)
        sched_phases_run(s->steady, s->nsteady, fire, &x);
    if (!x.failed && plan->transport && !deferred && !plan->transport->flush(err))
        x.failed = true;
    if (!x.failed && x.tail && !plan->outputs_dropped && !gather_rows(&x))
        x.failed = true;
    if (x.failed_actor && s->nranks > 1)   /* which rank stops the job, and in which filter */
        fprintf(err, "tssa-stream: error: rank %d of %d stops the job: filter '%s' failed (above)\n", plan->rank,
                s->nranks, x.failed_actor->node->name);
    if (!x.failed && plan->rank == 0 && x.next_input != ninputs) {
        fprintf(err, "error: internal: the stream took %d of the program's %d inputs\n",
                x.next_input, ninputs);
        x.failed = true;
    }

    for (int c = 0; c < flat->nchannels; c++) {
        Fifo *f = &x.fifos[c];
        for (int64_t i = 0; i < f->count; i++)
            rt_release(f->items[(f->head + i) % f->cap]);
        if (f->grown)
            free(f->items);
    }
    free(fifo_items);
    free(x.fifos);
    free(x.send_to);
    free(x.here);
    free(x.drop);
    free(x.absent_from);
    cpu_regions_clear(&x.regions);
    if (!deferred || x.failed)      /* a deferred run hands recv_from over */
        free(x.recv_from);
    free(x.messages);
    for (int a = 0; a < flat->nactors; a++)
        cpu_phase_state_free(x.phase_state[a]);
    free(x.phase_state);
    free(x.phase_done);
    free(x.nphases);
    free(x.split_items);
    rt_release(x.state_none);
    free(x.popped);
    free(x.pushed);
    if (x.failed) {
        for (int i = 0; i < x.noutputs; i++)
            rt_release(x.outputs[i]);
        free(x.outputs);
        free(x.holes);
        *items = NULL;
        *nitems = 0;
        return false;
    }
    if (deferred) {
        deferred->channels = x.holes;
        deferred->n = x.nholes;
        deferred->from = x.recv_from;
        x.recv_from = NULL;
    }
    *items = x.outputs;
    *nitems = x.noutputs;
    return true;
}
