/* lower_loop.c — a prim::Loop with a static trip count becomes a multi-rate
 * stream: one body filter that fires once per iteration (repetitions N in
 * the schedule), between an Unstack that hands out each iteration's items
 * and a Stack that puts the results together; inside a feedback loop when
 * the loop carries real state. The stream's size does not depend on N, and
 * nothing here runs per iteration at compile time.
 *
 * Every loop planned here has a compile-time trip count N >= 1, a true
 * entry condition and a body that returns the constant true (a for loop).
 * Its carried values are classified:
 *   - invariant: the body returns its parameter unchanged;
 *   - written:   the body returns immut::select_rev(c, v, dim, index) or
 *                immut::slice_rev(c, v, dim, start, end, step) of its
 *                parameter c (out[i] = v), or immut::list_set_item(c,
 *                index, v) of a list (xs[i] = v), c has no other use (no
 *                iteration reads the carried value) and the result no use
 *                but the return, and the index arguments depend only on
 *                the counter and compile-time values (through scalar
 *                nodes of the body);
 *   - appended:  a list the body only extends: it returns aten::add(c, l)
 *                (TensorSSA's form of `ys.append(y)`, `ys += [y]`), c and
 *                the result have no other use;
 *   - state:     anything else (an iteration reads what an earlier one made:
 *                an RNN's h, an LSTM's h and c, a decoder's token).
 *
 * The body's nodes are split by what they depend on:
 *   hoisted   nothing that changes between iterations: run once per run, in
 *             the Unstack (aten::t(w), a constant's broadcast);
 *   slicers   aten::select / slice / narrow of a loop-invariant tensor, or
 *             aten::__getitem__ of an invariant list, at indices computed
 *             from the counter alone (x[i], q[:, :, h*D:(h+1)*D], xs[i]):
 *             the Unstack runs them per iteration, so an iteration's item is
 *             a slice of the tensor (a view: nothing is copied);
 *   index     scalar nodes only the slicers' and the writes' indices need
 *             (they run beside them, in the Unstack and the Stack);
 *   pre       (state loops only) work that needs the counter or slices but
 *             not the state: a data-parallel filter before the feedback loop
 *             (x[t] @ W_ih for every step), so only what depends on the
 *             state stays on the recurrence;
 *   body      the rest: what one iteration computes.
 *
 * Data-parallel loop (no state). Iteration t is a function of the
 * loop-invariant values and t alone: one filter with repetitions N.
 *   pipeline Loop_L<line> {
 *     splitjoin Iterations_L<line> {       (only when Stack needs initial values)
 *       split duplicate;
 *       filter Carried pop |U| push K;     the initial values Stack needs
 *       pipeline Steps_L<line> {
 *         filter Unstack_L<line> pop |U| push N*|P|;
 *         filter Body_L<line> pop |P| push |O|;        repetitions N
 *       }
 *       join roundrobin(K, N*|O|);
 *     }
 *     filter Stack_L<line> pop K+N*|O| push (carried values);
 *   }
 * U are the loop unit's items (initial carried values, then the outer values
 * the loop reads), P one iteration's items (the counter when read, slices,
 * invariant values: a loop-invariant tensor such as a weight reaches every
 * firing as a reference to the same tensor, never a copy), O the
 * iteration's outputs (write sources, appended lists).
 *
 * Loop with state. The body fires once per step inside a feedback loop:
 *   feedbackloop Recurrence_L<line> {
 *     join roundrobin(|P'| + S, S);
 *     body filter Body_L<line> pop |P'|+2S push S+|O|;
 *     loop filter Carry_L<line> pop S+|O| push S;
 *     split duplicate;
 *     enqueue S;
 *   }
 * with S the state values, and before it the Unstack (and the Pre filter
 * when there is state-independent tensor work: pops P, pushes P'). The
 * initial state is a run-time value (h0 comes from the program), so it
 * cannot be a constant of the enqueue: the enqueued items are empty
 * placeholders, and the Unstack hands the initial state to step 0 in S
 * slots after its items (None in later steps); step 0 takes its state from
 * them, every later step from the loop path. The Stack takes the final
 * state from the last step's outputs.
 *
 * Choice: no unrolling. A feedback loop is as small for 2 steps as for
 * 2,000,000, its body is one filter a later partitioner can place, and the
 * per-step work that does not need the state already runs data-parallel
 * in Pre; an unrolled chain would only add actors.
 *
 * The Stack applies the writes in iteration order, in place, into one copy
 * of the initial tensor made once (overlapping or negative indices behave
 * as in the loop: the later write wins, indices wrap), and joins appended
 * lists in order. A carried value that starts as a compile-time value is no
 * item: the Unstack and the Stack read it from the program's constants.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/diag.h"
#include "tssa/eval.h"
#include "tssa/util.h"
#include "tssa/value.h"

static bool static_int(LowerProgram *p, const IrValue *v, int64_t *out)
{
    if (!p->is_static[v->id])
        return false;
    const RtValue *r = node_exec_get(p->exec, v);
    if (!r || (r->kind != RT_INT && r->kind != RT_BOOL))
        return false;
    *out = r->u.i;
    return true;
}

static bool is_true_constant(LowerProgram *p, const IrValue *v)
{
    int64_t b;
    if (static_int(p, v, &b))
        return b != 0;
    if (v->def->op == OP_PRIM_CONSTANT && v->def->noutputs == 1) {
        const IrAttr *a = ir_attr_find(v->def, "value");
        return a && a->kind == ATTR_INT && a->u.i == 1 && v->type && v->type->kind == TY_BOOL;
    }
    return false;
}

const char *lower_source_text(const IrNode *n)
{
    const char *c = n->comment ? n->comment : "";
    while (*c == ' ')
        c++;
    return c;
}

int lower_source_line(const IrNode *n)
{
    const char *c = lower_source_text(n);
    /* "... file.py:LINE:COL": the two last runs of digits. */
    const char *end = c + strlen(c);
    while (end > c && isspace((unsigned char)end[-1]))
        end--;
    const char *col = end;
    while (col > c && isdigit((unsigned char)col[-1]))
        col--;
    if (col == end || col == c || col[-1] != ':')
        return 0;
    const char *line_end = col - 1, *line = line_end;
    while (line > c && isdigit((unsigned char)line[-1]))
        line--;
    if (line == line_end || line_end - line > 9)
        return 0;
    return atoi(line);
}

/* ---------------------------------------------------------------- classes */

/* Marks (index_mark) every body node v depends on and lists the newly
 * marked nodes in taken[]; false when one is not scalar work on the counter
 * and compile-time values. */
static bool index_slice(LowerProgram *p, IrBlock *body, IrValue *v, bool *mark, IrNode **taken,
                        int *ntaken)
{
    if (p->is_static[v->id] || v == ir_block_param(body, 0))
        return true;
    IrNode *d = v->def;
    if (d->owner != body || d->op == OP_PRIM_PARAM)
        return false;    /* a carried parameter, or an outer run-time value */
    if (mark[d->id])
        return true;
    if (!lower_node_scalar(d) || d->op == OP_PRIM_GETATTR)
        return false;
    for (int i = 0; i < d->ninputs; i++)
        if (!index_slice(p, body, d->inputs[i], mark, taken, ntaken))
            return false;
    mark[d->id] = true;
    taken[(*ntaken)++] = d;
    return true;
}

/* Marks the index nodes of n's arguments from `first` on, `skip` aside
 * (-1: none); on failure unmarks what it marked and returns false. */
static bool index_args(LowerProgram *p, IrBlock *body, IrNode *n, int first, int skip, bool *mark,
                       IrNode **taken)
{
    int ntaken = 0;
    bool ok = true;
    for (int i = first; ok && i < n->ninputs; i++)
        if (i != skip)
            ok = index_slice(p, body, n->inputs[i], mark, taken, &ntaken);
    if (!ok)
        for (int i = 0; i < ntaken; i++)
            mark[taken[i]->id] = false;
    return ok;
}

int lower_write_source(const IrNode *w)
{
    return w->op == OP_IMMUT_LIST_SET_ITEM ? 2 : 1;
}

/* The index arguments of write w: those after the first but its source. */
static bool write_index_args(LowerProgram *p, IrBlock *body, IrNode *w, bool *mark, IrNode **taken)
{
    return index_args(p, body, w, 1, lower_write_source(w), mark, taken);
}

static bool is_list(const IrValue *v)
{
    return v->type && v->type->kind == TY_LIST;
}

static LoopCarried classify(IrBlock *body, IrValue *c, IrValue *r)
{
    if (r == c)
        return LOOP_CARRIED_INVARIANT;
    IrNode *w = r->def;
    if (w->owner != body || c->nuses != 1 || r->nuses != 1 || w->ninputs < 2 || w->inputs[0] != c)
        return LOOP_CARRIED_STATE;
    if ((w->op == OP_IMMUT_SELECT_REV || w->op == OP_IMMUT_SLICE_REV) && w->ninputs >= 3)
        return LOOP_CARRIED_WRITTEN;
    if (w->op == OP_IMMUT_LIST_SET_ITEM && w->ninputs == 3)
        return LOOP_CARRIED_WRITTEN;    /* xs[i] = v */
    if (w->op == OP_ATEN_ADD && w->ninputs == 2 && is_list(c) && is_list(w->inputs[1]))
        return LOOP_CARRIED_APPENDED;
    return LOOP_CARRIED_STATE;
}

/* Whether the writes of every iteration of a loop of `trips` iterations
 * together cover all of the written tensor (initial value c's type): out[i]
 * = v at the counter, or out[i*m:i*m+m] = v (strip_mine.c's slices), along
 * dim 0 of exactly trips (times m) rows. Its initial elements are then
 * never read. */
static bool writes_every_row(LowerProgram *p, const IrNode *w, const IrValue *counter, const IrValue *c,
                             int64_t trips)
{
    const IrType *t = c->type;
    int64_t dim, step, m;
    if (!t || t->kind != TY_TENSOR || t->tensor.rank < 1 || !static_int(p, w->inputs[2], &dim) || dim != 0)
        return false;
    int64_t rows = t->tensor.sizes[0];
    if (w->op == OP_IMMUT_SELECT_REV)
        return w->ninputs == 4 && w->inputs[3] == counter && rows == trips;
    if (w->op != OP_IMMUT_SLICE_REV || w->ninputs != 6 || !static_int(p, w->inputs[5], &step) || step != 1)
        return false;
    const IrNode *lo = w->inputs[3]->def, *hi = w->inputs[4]->def;
    if (lo->op != OP_ATEN_MUL || lo->ninputs != 2 || hi->op != OP_ATEN_ADD || hi->ninputs != 2)
        return false;
    bool lo_ok = (lo->inputs[0] == counter && static_int(p, lo->inputs[1], &m)) ||
                 (lo->inputs[1] == counter && static_int(p, lo->inputs[0], &m));
    int64_t m2;
    bool hi_ok = (hi->inputs[0] == w->inputs[3] && static_int(p, hi->inputs[1], &m2)) ||
                 (hi->inputs[1] == w->inputs[3] && static_int(p, hi->inputs[0], &m2));
    return lo_ok && hi_ok && m == m2 && m >= 1 && rows == trips * m;
}

/* The values nodes[] and the values `extra` need from outside the nodes,
 * first use first, each once; `first` are listed before everything. */
static IrValue **reads_of(LowerReads *r, IrNode **nodes, int nnodes, IrValue **first, int nfirst,
                          IrValue **extra, int nextra, int *n)
{
    lower_reads_begin(r);
    for (int i = 0; i < nnodes; i++)
        lower_reads_inside(r, nodes[i]);
    for (int i = 0; i < nfirst; i++)
        lower_reads_use(r, first[i]);
    for (int i = 0; i < nnodes; i++)
        lower_reads_node(r, nodes[i]);
    for (int i = 0; i < nextra; i++)
        lower_reads_use(r, extra[i]);
    return lower_reads_take(r, n);
}

/* ---------------------------------------------------------------- plan */

/* The body's nodes that run in the Pre and Body filters (the plan holds
 * the hoisted nodes, the slicers and the writes' index nodes). */
typedef struct Split {
    IrNode **pre, **body;
    int npre, nbody;
    int nsliced;        /* slicers proper (plan->nslicers counts their index nodes too) */
} Split;

static bool is_slicer_op(const IrNode *n)
{
    return n->op == OP_ATEN_SELECT || n->op == OP_ATEN_SLICE || n->op == OP_ATEN_NARROW ||
           n->op == OP_ATEN_GETITEM;
}

/* Fills dep_iter / dep_state (by value id) over the body's top level, from
 * the counter and the state parameters, through nested blocks. */
static bool node_depends(const IrNode *x, const bool *dep)
{
    for (int i = 0; i < x->ninputs; i++)
        if (dep[x->inputs[i]->id])
            return true;
    for (int b = 0; b < x->nblocks; b++) {
        IR_FOREACH_NODE(y, x->blocks[b])
            if (node_depends(y, dep))
                return true;
        for (int i = 0; i < ir_block_nreturns(x->blocks[b]); i++)
            if (dep[ir_block_return(x->blocks[b], i)->id])
                return true;
    }
    return false;
}

bool lower_node_draws_random(const IrNode *n)
{
    if (n->op > OP_UNKNOWN && n->op < OP_COUNT && op_info(n->op)->cls == OPC_RANDOM)
        return true;
    for (int b = 0; b < n->nblocks; b++)
        IR_FOREACH_NODE(y, n->blocks[b])
            if (lower_node_draws_random(y))
                return true;
    return false;
}

static bool body_draws_random(IrNode *const *nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (lower_node_draws_random(nodes[i]))
            return true;
    return false;
}

static bool is_write_node(const LoopPlan *plan, const IrNode *n)
{
    int ncarried = plan->loop->ninputs - 2;
    for (int k = 0; k < ncarried; k++)
        if (plan->writes[k] == n)
            return true;
    return false;
}

/* True when every use of n's outputs is an index argument of a slicer or a
 * write, or a use by an index-only node: the body need not compute n. */
static bool only_indexes(const LoopPlan *plan, const IrNode *n, const bool *slicer,
                         const bool *index_only)
{
    for (int i = 0; i < n->noutputs; i++)
        for (int u = 0; u < n->outputs[i]->nuses; u++) {
            const IrUse *use = &n->outputs[i]->uses[u];
            const IrNode *user = use->user;
            bool by_index;
            if (is_write_node(plan, user))
                by_index = use->index >= 1 && use->index != lower_write_source(user);
            else if (slicer[user->id])
                by_index = use->index >= 1;
            else
                by_index = index_only[user->id];
            if (!by_index)
                return false;
        }
    return true;
}

static bool outputs_static(const LowerProgram *p, const IrNode *n)
{
    if (n->noutputs == 0 || n->nblocks > 0)
        return false;
    for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i]->id >= p->nstatic || !p->is_static[n->outputs[i]->id])
            return false;
    return true;
}

static void split_body(LowerProgram *p, LoopPlan *plan, Split *s)
{
    IrBlock *body = plan->loop->blocks[0];
    IrGraph *g = p->g;
    int nbody = 0;
    IR_FOREACH_NODE(n, body)
        nbody++;
    size_t nv = (size_t)g->nvalues + 1, nn = (size_t)g->nnodes + 1;
    bool *dep_iter = xcalloc(nv, sizeof *dep_iter);
    bool *dep_state = xcalloc(nv, sizeof *dep_state);
    bool *slicer = xcalloc(nn, sizeof *slicer);
    bool *write_mark = xcalloc(nn, sizeof *write_mark);    /* the writes' index nodes */
    bool *slicer_mark = xcalloc(nn, sizeof *slicer_mark);  /* the slicers' index nodes */
    bool *index_mark = xcalloc(nn, sizeof *index_mark);    /* either */
    bool *index_only = xcalloc(nn, sizeof *index_only);
    bool *node_iter = xcalloc(nn, sizeof *node_iter);
    bool *node_state = xcalloc(nn, sizeof *node_state);
    IrNode **taken = xmalloc(((size_t)nbody + 1) * sizeof *taken);

    dep_iter[plan->counter->id] = true;
    for (int k = 0; k < plan->nstate; k++) {
        IrValue *param = ir_block_param(body, 1 + plan->state[k]);
        dep_iter[param->id] = dep_state[param->id] = true;
    }
    int ncarried = plan->loop->ninputs - 2;
    for (int k = 0; k < ncarried; k++)
        if (plan->carried[k] == LOOP_CARRIED_WRITTEN)
            write_index_args(p, body, plan->writes[k], write_mark, taken);
    IR_FOREACH_NODE(n, body) {
        if (is_write_node(plan, n))
            continue;
        /* a draw reads the iteration (its stream, eval/ops_random.c): it
         * runs in the body, every iteration, with the counter bound */
        bool draws = lower_node_draws_random(n);
        node_iter[n->id] = draws || node_depends(n, dep_iter);
        node_state[n->id] = draws || node_depends(n, dep_state);
        for (int i = 0; i < n->noutputs; i++) {
            dep_iter[n->outputs[i]->id] = node_iter[n->id];
            dep_state[n->outputs[i]->id] = node_state[n->id];
        }
        /* A slice of something loop-invariant at an index of the counter. */
        if (node_iter[n->id] && !node_state[n->id] && is_slicer_op(n) && n->ninputs >= 2 &&
            n->noutputs == 1 && !dep_iter[n->inputs[0]->id] &&
            index_args(p, body, n, 1, -1, slicer_mark, taken))
            slicer[n->id] = true;
    }
    for (size_t i = 0; i < nn; i++)
        index_mark[i] = write_mark[i] || slicer_mark[i];
    for (IrNode *n = body->ret->prev; n != body->param; n = n->prev)
        index_only[n->id] = index_mark[n->id] && !slicer[n->id] &&
                            only_indexes(plan, n, slicer, index_only);

    plan->hoisted = lower_alloc(p, (size_t)nbody * sizeof *plan->hoisted);
    plan->slicers = lower_alloc(p, (size_t)nbody * sizeof *plan->slicers);
    s->pre = lower_alloc(p, (size_t)nbody * sizeof *s->pre);
    s->body = lower_alloc(p, (size_t)nbody * sizeof *s->body);
    plan->write_index = lower_alloc(p, (size_t)nbody * sizeof *plan->write_index);
    bool any_pre_tensor = false;
    IR_FOREACH_NODE(n, body) {
        if (is_write_node(plan, n))
            continue;
        /* Compile-time values made in the body after specialization (an
         * nn.LSTM expanded inside a loop unpacks its weights there: the
         * ListUnpack's outputs are the weights) are no work: every filter
         * reads them from the program's values, as at the top level. Run
         * as hoisted nodes, the Unstack would clear them after the run. */
        if (outputs_static(p, n))
            continue;
        if (write_mark[n->id])
            plan->write_index[plan->nwrite_index++] = n;
        if (slicer[n->id] || slicer_mark[n->id])
            plan->slicers[plan->nslicers++] = n;
        s->nsliced += slicer[n->id];
        if (slicer[n->id] || index_only[n->id])
            continue;
        if (!node_iter[n->id]) {
            plan->hoisted[plan->nhoisted++] = n;
        } else if (plan->feedback && !node_state[n->id]) {
            s->pre[s->npre++] = n;
            any_pre_tensor = any_pre_tensor || !lower_node_scalar(n);
        } else {
            s->body[s->nbody++] = n;
        }
    }
    /* Scalar bookkeeping alone does not earn a filter of its own: it then
     * runs in the body, in body order. */
    if (!any_pre_tensor && s->npre > 0) {
        IrNode **merged = lower_alloc(p, (size_t)nbody * sizeof *merged);
        int nb = 0, i = 0, j = 0;
        while (i < s->npre || j < s->nbody) {
            if (j >= s->nbody || (i < s->npre && s->pre[i]->order < s->body[j]->order))
                merged[nb++] = s->pre[i++];
            else
                merged[nb++] = s->body[j++];
        }
        s->body = merged;
        s->nbody = nb;
        s->npre = 0;
    }
    free(dep_iter);
    free(dep_state);
    free(slicer);
    free(write_mark);
    free(slicer_mark);
    free(index_mark);
    free(index_only);
    free(node_iter);
    free(node_state);
    free(taken);
}

/* Values the nodes of b (and the blocks inside them) read or return: an
 * upper bound on the items any one iteration of a loop with body b moves
 * through one channel end (its items P and P', state slots, outputs). */
static int64_t block_value_uses(const IrBlock *b)
{
    int64_t n = ir_block_nreturns(b);
    IR_FOREACH_NODE(x, b) {
        n += x->ninputs;
        for (int i = 0; i < x->nblocks; i++)
            n += block_value_uses(x->blocks[i]);
    }
    return n;
}

/* The most iterations a loop with this body lowers to static rates: every
 * rate the loop's stream sets (lower_work_pop/push, the Iterations joiner's
 * weights) is at most trips * (items per iteration) + (initial values),
 * which then stays within STREAM_MAX_RATE (2^40), and the scheduler's
 * products of rates and repetitions stay within int64 (it checks each one). */
static int64_t max_static_trips(const IrBlock *body, int ncarried)
{
    int64_t per_iteration = 1 + 2 * (int64_t)ncarried + block_value_uses(body);
    return (STREAM_MAX_RATE - ncarried) / per_iteration;
}

LoopPlan *lower_loop_plan(LowerProgram *p, IrNode *loop, const char **why)
{
    int64_t trips, entry;
    if (loop->nblocks != 1 || loop->ninputs < 2 || loop->noutputs != loop->ninputs - 2 ||
        ir_block_nparams(loop->blocks[0]) != loop->ninputs - 1 ||
        ir_block_nreturns(loop->blocks[0]) != loop->ninputs - 1) {
        *why = "malformed loop";
        return NULL;
    }
    IrBlock *body = loop->blocks[0];
    int ncarried = loop->ninputs - 2;
    /* Split or unrolled iterations could print out of order across runs. */
    if (ir_node_prints(loop)) {
        *why = "a print or warning inside (its messages come in iteration order when the body "
               "runs one iteration at a time)";
        return NULL;
    }
    if (!is_true_constant(p, ir_block_return(body, 0))) {
        *why = "a while loop (or a loop with break): whether it goes on is decided at run time";
        return NULL;
    }
    if (!static_int(p, loop->inputs[1], &entry)) {
        *why = "whether the loop starts at all is decided at run time";
        return NULL;
    }
    if (!static_int(p, loop->inputs[0], &trips)) {
        *why = "the trip count is computed at run time (from tensor data, the length of a "
               "list made at run time, or the size of a computed tensor: shapes of "
               "intermediate tensors are not inferred yet)";
        return NULL;
    }
    if (!entry) {
        *why = "the loop runs no iteration for these inputs";
        return NULL;
    }
    if (trips < 1) {
        *why = "the loop runs no iteration for these inputs";
        return NULL;
    }
    if (ncarried == 0) {
        *why = "the loop carries no value out";
        return NULL;
    }
    if (trips > max_static_trips(body, ncarried)) {
        /* The Unstack's, the Stack's and the Iterations joiner's rates are
         * the trip count times the items of one iteration: past the
         * largest rate a stream carries they overflow the scheduler's
         * arithmetic (and a trip count of 2^63 - 1 is TorchScript's
         * `while True`). Such a loop ends when its body says so, if ever:
         * it runs as a while loop does, a hierarchical filter whose body's
         * stream fires once per iteration (lower_build.c). */
        char text[256];
        snprintf(text, sizeof text,
                 "%lld iterations are too many for static rates (a stream carries at most "
                 "2^40 items per firing; this loop's items per iteration allow %lld "
                 "iterations): a hierarchical filter runs its body for as many iterations as it takes",
                 (long long)trips, (long long)max_static_trips(body, ncarried));
        char *copy = lower_alloc(p, strlen(text) + 1);
        memcpy(copy, text, strlen(text) + 1);
        *why = copy;
        return NULL;
    }
    LoopPlan *plan = lower_alloc(p, sizeof *plan);
    plan->loop = loop;
    plan->trips = trips;
    plan->line = lower_source_line(loop);
    /* Loops inlined from one source line (a function called twice) are
     * told apart by their order. */
    plan->line_seq = 1;
    for (int i = 0; i < p->nloop_lines; i++)
        plan->line_seq += p->loop_lines[i] == plan->line;
    if (plan->line > 0) {
        p->loop_lines = xrealloc(p->loop_lines, ((size_t)p->nloop_lines + 1) * sizeof *p->loop_lines);
        p->loop_lines[p->nloop_lines++] = plan->line;
    }
    plan->counter = ir_block_param(body, 0);
    plan->carried = lower_alloc(p, (size_t)ncarried * sizeof *plan->carried);
    plan->writes = lower_alloc(p, (size_t)ncarried * sizeof *plan->writes);
    plan->overwrites = lower_alloc(p, (size_t)ncarried * sizeof *plan->overwrites);
    plan->state = lower_alloc(p, (size_t)ncarried * sizeof *plan->state);
    int nbody = 0;
    IR_FOREACH_NODE(n, body)
        nbody++;
    bool *mark = xcalloc((size_t)p->g->nnodes + 1, sizeof *mark);
    IrNode **taken = xmalloc(((size_t)nbody + 1) * sizeof *taken);
    for (int k = 0; k < ncarried; k++) {
        IrValue *c = ir_block_param(body, 1 + k), *r = ir_block_return(body, 1 + k);
        LoopCarried cls = classify(body, c, r);
        /* A write whose index needs state or run-time values: the carried
         * tensor is state. */
        if (cls == LOOP_CARRIED_WRITTEN && !write_index_args(p, body, r->def, mark, taken))
            cls = LOOP_CARRIED_STATE;
        plan->carried[k] = cls;
        if (cls == LOOP_CARRIED_WRITTEN || cls == LOOP_CARRIED_APPENDED)
            plan->writes[k] = r->def;
        plan->overwrites[k] = cls == LOOP_CARRIED_WRITTEN && r->def->op != OP_IMMUT_LIST_SET_ITEM &&
                              writes_every_row(p, r->def, plan->counter, c, plan->trips);
        if (cls == LOOP_CARRIED_STATE)
            plan->state[plan->nstate++] = k;
    }
    free(mark);
    free(taken);
    plan->feedback = plan->nstate > 0;
    return plan;
}

/* ---------------------------------------------------------------- streams */

/* Where the carried initial values sit among the unit's pops, and which
 * popped items the Stack reads (K). */
static void plan_items(LowerProgram *p, LoopPlan *plan, IrValue **pops, int npops)
{
    IrNode *loop = plan->loop;
    int ncarried = loop->ninputs - 2;
    plan->unit_pops = pops;
    plan->nunit_pops = npops;
    plan->init_pos = lower_alloc(p, (size_t)ncarried * sizeof *plan->init_pos);
    plan->kept = lower_alloc(p, (size_t)ncarried * sizeof *plan->kept);
    for (int k = 0; k < ncarried; k++) {
        plan->init_pos[k] = -1;
        for (int j = 0; j < npops && plan->init_pos[k] < 0; j++)
            if (pops[j] == loop->inputs[2 + k])
                plan->init_pos[k] = j;
        if (plan->init_pos[k] < 0 && !p->is_static[loop->inputs[2 + k]->id])
            diag_die("loop plan: carried value %d is neither popped nor static", k);
        bool dup = false;
        for (int i = 0; i < plan->nkept; i++)
            dup = dup || plan->kept[i] == plan->init_pos[k];
        if (plan->init_pos[k] >= 0 && plan->carried[k] != LOOP_CARRIED_STATE && !dup)
            plan->kept[plan->nkept++] = plan->init_pos[k];
    }
}

static LowerWork *loop_work(LowerProgram *p, LoopPlan *plan, LowerWorkKind kind)
{
    LowerWork *w = lower_alloc(p, sizeof *w);
    w->kind = kind;
    w->plan = plan;
    w->firings = 1;
    return w;
}

/* "<base>_L<line>" (a second loop on the same line: "<base>_L<line>_2"),
 * or "<base>_n<node id>" for a loop without a source line. */
static void loop_name(char *buf, size_t size, const char *base, const LoopPlan *plan)
{
    if (plan->line > 0 && plan->line_seq > 1)
        snprintf(buf, size, "%s_L%d_%d", base, plan->line, plan->line_seq);
    else if (plan->line > 0)
        snprintf(buf, size, "%s_L%d", base, plan->line);
    else
        snprintf(buf, size, "%s_n%u", base, (unsigned)plan->loop->id);
}

static StreamNode *loop_filter(StreamGraph *sg, const char *base, const LoopPlan *plan,
                               LowerWork *w)
{
    char name[STREAM_MAX_NAME];
    loop_name(name, sizeof name, base, plan);
    StreamNode *f = stream_filter_new(sg, name, lower_work_pop(w), lower_work_pop(w),
                                      lower_work_push(w));
    f->filter.work = w;
    f->filter.nodes = w->nodes;
    f->filter.nnodes = w->nnodes;
    return f;
}

/* The per-iteration outputs O: write sources and appended lists, in
 * carried order. */
static void plan_outs(LowerProgram *p, LoopPlan *plan)
{
    int ncarried = plan->loop->ninputs - 2;
    plan->outs = lower_alloc(p, (size_t)ncarried * sizeof *plan->outs);
    for (int k = 0; k < ncarried; k++)
        if (plan->writes[k])
            plan->outs[plan->nouts++] = plan->writes[k]->inputs[lower_write_source(plan->writes[k])];
}

StreamNode *lower_loop_stream(LowerProgram *p, StreamGraph *sg, LoopPlan *plan, IrValue **pops,
                              int npops)
{
    IrBlock *body = plan->loop->blocks[0];
    int64_t trips = plan->trips;
    plan_items(p, plan, pops, npops);
    plan_outs(p, plan);
    Split s = {0};
    split_body(p, plan, &s);

    LowerReads r;
    lower_reads_init(&r, p);
    bool *skip = xcalloc((size_t)p->g->nvalues + 1, sizeof *skip);
    for (int k = 0; k < plan->nstate; k++)
        skip[ir_block_param(body, 1 + plan->state[k])->id] = true;
    r.skip = skip;

    /* What the body pushes: the new state, then O. */
    int npush = plan->nstate + plan->nouts;
    IrValue **pushes = lower_alloc(p, (size_t)npush * sizeof *pushes);
    for (int k = 0; k < plan->nstate; k++)
        pushes[k] = ir_block_return(body, 1 + plan->state[k]);
    for (int j = 0; j < plan->nouts; j++)
        pushes[plan->nstate + j] = plan->outs[j];

    /* The body's items (the counter first when state needs it to tell step
     * 0), then Pre's, which become the Unstack's. */
    IrValue *counter = plan->counter;
    LowerWork *bw = loop_work(p, plan, plan->feedback ? LOWER_WORK_LOOP_BODY : LOWER_WORK_REGION);
    bw->nodes = s.body;
    bw->nnodes = s.nbody;
    bool counter_first = plan->feedback || body_draws_random(s.body, s.nbody);
    bw->pops = reads_of(&r, s.body, s.nbody, &counter, counter_first ? 1 : 0, pushes, npush,
                        &bw->npops);
    /* A body that reads nothing per iteration (`[anchors for _ in
     * range(n)]`: every iteration appends the same invariant value) would
     * pop nothing from an Unstack that pushes nothing, and a channel with
     * no items on either side gives the schedule no rate to balance: the
     * counter becomes its one item, so each firing takes one. */
    if (bw->npops == 0 && !counter_first) {
        bw->pops = reads_of(&r, s.body, s.nbody, &counter, 1, pushes, npush, &bw->npops);
    }
    bw->pushes = pushes;
    bw->npushes = npush;
    bw->firings = trips;
    LowerWork *pw = NULL;
    IrValue **step_items = bw->pops;
    int nstep = bw->npops;
    if (s.npre > 0) {
        pw = loop_work(p, plan, LOWER_WORK_REGION);
        pw->nodes = s.pre;
        pw->nnodes = s.npre;
        pw->pops = reads_of(&r, s.pre, s.npre, NULL, 0, bw->pops, bw->npops, &pw->npops);
        pw->pushes = bw->pops;
        pw->npushes = bw->npops;
        pw->npass = plan->nstate;
        pw->firings = trips;
        step_items = pw->pops;
        nstep = pw->npops;
    }
    plan->step_items = step_items;
    plan->nstep_items = nstep;
    lower_reads_free(&r);
    free(skip);

    LowerWork *uw = loop_work(p, plan, LOWER_WORK_UNSTACK);
    uw->nodes = plan->slicers;
    uw->nnodes = plan->nslicers;
    uw->npops = npops;
    LowerWork *sw = loop_work(p, plan, LOWER_WORK_LOOP_STACK);
    sw->nodes = plan->write_index;
    sw->nnodes = plan->nwrite_index;
    sw->executed = 1;   /* the loop unit counts once, here */

    char name[STREAM_MAX_NAME];
    loop_name(name, sizeof name, "Loop", plan);
    StreamNode *pipe = stream_pipeline_new(sg, name);
    char comment[512];
    const char *src = lower_source_text(plan->loop);
    snprintf(comment, sizeof comment,
             "%s%sfor loop, %lld iterations: %s (%d hoisted node%s run once, %d slice%s per iteration)",
             src, *src ? ": " : "", (long long)trips,
             plan->feedback ? "carried state, a feedback loop whose body fires once per step"
                            : "data-parallel, one body filter fired once per iteration",
             plan->nhoisted, plan->nhoisted == 1 ? "" : "s", s.nsliced, s.nsliced == 1 ? "" : "s");
    stream_node_set_comment(pipe, comment);

    StreamNode *steps = pipe;
    if (plan->nkept > 0) {
        loop_name(name, sizeof name, "Iterations", plan);
        StreamNode *sj = stream_splitjoin_new(sg, name, SPLIT_DUPLICATE);
        LowerWork *carried = lower_alloc(p, sizeof *carried);
        carried->kind = LOWER_WORK_ROUTE;
        carried->route_pop = npops;
        carried->nroute = plan->nkept;
        carried->route = plan->kept;
        stream_splitjoin_add(sj, loop_filter(sg, "Carried", plan, carried), 1, plan->nkept);
        loop_name(name, sizeof name, "Steps", plan);
        steps = stream_pipeline_new(sg, name);
        stream_splitjoin_add(sj, steps, 1, trips * npush);
        stream_pipeline_add(pipe, sj);
    }
    StreamNode *unstack = loop_filter(sg, "Unstack", plan, uw);
    stream_pipeline_add(steps, unstack);
    if (pw) {
        StreamNode *pre = loop_filter(sg, "Pre", plan, pw);
        snprintf(comment, sizeof comment,
                 "repetitions %lld: the steps' work that does not need the state, "
                 "data-parallel over all steps", (long long)trips);
        stream_node_set_comment(pre, comment);
        stream_pipeline_add(steps, pre);
    }
    StreamNode *bodyf = loop_filter(sg, "Body", plan, bw);
    snprintf(comment, sizeof comment, "repetitions %lld: once per %s", (long long)trips,
             plan->feedback ? "step" : "iteration");
    stream_node_set_comment(bodyf, comment);
    if (plan->feedback) {
        LowerWork *carry = lower_alloc(p, sizeof *carry);
        carry->kind = LOWER_WORK_ROUTE;
        carry->route_pop = npush;
        carry->nroute = plan->nstate;
        carry->route = lower_alloc(p, (size_t)plan->nstate * sizeof *carry->route);
        for (int k = 0; k < plan->nstate; k++)
            carry->route[k] = k;
        loop_name(name, sizeof name, "Recurrence", plan);
        StreamNode *fb = stream_feedbackloop_new(sg, name, bodyf,
                                                 loop_filter(sg, "Carry", plan, carry),
                                                 plan->nstate);
        stream_feedbackloop_set_joiner(fb, bw->npops + plan->nstate, plan->nstate);
        stream_pipeline_add(steps, fb);
    } else {
        stream_pipeline_add(steps, bodyf);
    }
    StreamNode *stackf = loop_filter(sg, "Stack", plan, sw);
    stream_pipeline_add(pipe, stackf);
    /* A long loop's steady state runs in phases of `chunk` iterations:
     * Unstack phase j, the body's firings of the phase, Stack phase j
     * (and the Iterations joiner's phase j), then phase j + 1, so the
     * channels hold one phase's items whatever the trip count. 1024
     * iterations: the per-phase cost (a few schedule entries, one message
     * per channel between ranks) is under a thousandth of the phase's
     * firings, and one phase's items stay around half a megabyte.
     * Data-parallel loops too (kept per iteration by --keep-loops or a
     * body that does not fuse): while nothing splits their body. Fission,
     * --devices, --place and the rank partitioner split a filter with
     * split-join weights of all its firings per steady state, which a
     * phase does not hold, so splitting a filter of a phased loop makes the
     * loop unphased again (sched_fission_split, scheduler/fission.c): a
     * split loop holds all its iterations' items, as before phases. */
    int64_t chunk = p->loop_chunk > 0 ? p->loop_chunk : LOWER_LOOP_CHUNK;
    if (trips > chunk) {
        StreamPhasing *ph = lower_alloc(p, 4 * sizeof *ph);
        for (int i = 0; i < 4; i++)
            ph[i] = (StreamPhasing){.trips = trips, .chunk = chunk};
        ph[0].out_per = plan->nstep_items + (plan->feedback ? plan->nstate : 0);  /* Unstack */
        ph[1].in_per[0] = npush;                                                /* Stack */
        ph[1].emit_last = true;
        ph[2].in_per[1] = npush;                                    /* Iterations joiner */
        ph[2].out_per = npush;
        pipe->phasing = &ph[3];                                     /* the region */
        unstack->phasing = &ph[0];
        stackf->phasing = &ph[1];
        if (steps != pipe)
            steps->parent->phasing = &ph[2];
        char phased[1024];
        snprintf(phased, sizeof phased,
                 "%s\nphased: %lld phases of %lld iterations (the last %lld): Unstack, Body and "
                 "Stack advance one phase at a time", pipe->comment ? pipe->comment : "",
                 (long long)((trips + chunk - 1) / chunk), (long long)chunk,
                 (long long)(trips - (trips - 1) / chunk * chunk));
        stream_node_set_comment(pipe, phased);
    }
    if (plan->feedback)
        p->stats.loops_feedback++;
    else
        p->stats.loops_parallel++;
    p->stats.loop_iterations += trips;
    return pipe;
}
