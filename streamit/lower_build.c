/* lower_build.c — the specialized functional graph as a stream graph.
 *
 * Units. Every top-level node that is not a compile-time value (see
 * lower_specialize.c) is a unit of work: one filter running that node (its
 * nested blocks included), or, for a prim::Loop with a static trip count, a
 * split-join over its iterations when they are independent or a pipeline
 * of unrolled steps when it carries real state (lower_loop.c). Any other
 * loop (a while loop, a break, a trip count decided at run time) is a
 * hierarchical filter: its body is taken apart the same way, into a
 * stream of its own that the filter fires once per iteration (see
 * build_nested_loop below).
 * A unit pops the run-time values it reads (inputs, and values used inside
 * its blocks, first use first) and pushes its outputs. Compile-time values
 * are not items: filters read them as constants of the program.
 *
 * Layers. A unit's level is one more than the highest level of the units
 * that make what it pops (0 when it pops only graph inputs or nothing). The
 * stream is a pipeline with one stage per level. The items between stages
 * are the live values: stage l pops the list L_l (each value once) and
 * pushes L_{l+1} = the values of L_l still needed after level l, then the
 * live outputs of the units of level l. A stage is a split-join whose
 * branches are
 *   - an Identity for every value carried past level l (live values ride
 *     through the layers instead of being computed again: shapes that are
 *     not series-parallel never run a node twice), and
 *   - one stream per unit of level l, wrapped with a round-robin split-join
 *     of Identities and Separators when some of its outputs are dead
 *     (unused tuple outputs; the thesis's separator filters).
 * The splitter is a duplicate splitter when the stage pops one value that
 * every branch takes, a round-robin splitter with the branches' pop counts
 * when L_l already lists what each branch pops in branch order, and
 * otherwise a Route filter (no IR work: it copies, reorders and drops items)
 * first puts the items in branch order. The joiner is round-robin over the
 * branches' push counts. A stage with one branch is that branch. So a chain
 * is a pipeline of filters, a value with several consumers a duplicate
 * split-join, a list taken apart by several consumers (ListUnpack, chunk)
 * a round-robin split-join, and several graph inputs enter as one
 * round-robin split. A value carried unread past 8 layers or more skips
 * them instead of riding an Identity in each (see "Skips" below). After the
 * last stage a Route puts the live values in
 * the order of the graph's outputs (a joiner at the end, duplicates
 * allowed) when they are not in it already.
 *
 * Every filter fires once per steady state, so one steady state is one run
 * of the program.
 *
 * Whole graph. Programs the construction cannot take apart safely run as
 * one filter holding every node: any write left imperative by TensorSSA, a
 * list mutation, an op unknown to the op table, or a top-level node without
 * outputs other than a check (an If that may raise, a raise: a filter that
 * pushes nothing) or a print. Correct
 * first, parallel where proven.
 *
 * Prints. A prim::Print or aten::warn is an ordered host action: the unit
 * that runs it (the print itself at the top level, or the loop or If whose
 * blocks hold it) stays one filter, and printing units are chained by an
 * ordering token, a None item: printing unit k pops the token unit k-1
 * pushed after its outputs, so its level is higher and every schedule runs
 * the prints in program order, whatever else is taken apart around them.
 * The last printing unit pushes no token, unless the token is all that ties
 * it to the stream (a print of constants only): then it rides to the end,
 * where the outputs' Route drops it. A loop holding a print is not planned
 * as a static stream (lower_loop.c) but is a hierarchical filter whose
 * body's filters fire in body order once per iteration, so its messages
 * come in iteration order. The scheduler keeps a program whose filters
 * print on rank 0, where output is shown (sched_partition).
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "streamit/lower_internal.h"
#include "tssa/eval.h"
#include "tssa/util.h"
#include "tssa/value.h"

typedef struct Unit {
    IrNode *node;
    /* A ListUnpack's unit may start with the op that split its tensor
     * (chunk, split, unbind: a list of views whose only use it is): one
     * filter that pops the tensor and pushes its pieces. */
    IrNode *prefix;
    LoopPlan *loop;
    const char *loop_why;   /* a loop not planned as a static stream: why */
    bool nested;            /* a hierarchical filter: the loop's body is a stream */
    /* Print ordering (see "Prints" above): the token this unit pops after
     * its other items (the previous printing unit's) and the one it
     * pushes after its outputs, or NULL. */
    IrValue *token_in, *token_out;
    IrValue **pops;
    int npops;
    int level;
} Unit;

typedef struct Build {
    LowerProgram *p;
    StreamGraph *sg;
    IrBlock *blk;           /* the block taken apart: the top level or a loop body */
    IrValue **ins;          /* the values the block's stream pops, in order */
    int nins;
    int *out_map;           /* per return of blk: its index among the pushed items, or -1 */
    IrValue **tokens;       /* print-ordering tokens, one per printing node of blk */
    int ntokens;
    Unit *units;
    int nunits;
    int *def_level;         /* by value id: producing unit's level, -1 stream input */
    int *last_level;        /* by value id: highest user level, INT_MAX for outputs */
    LowerReads reads;       /* what a unit pops */
    int *pos;               /* by value id: index in the current live list */
} Build;

void *lower_alloc(LowerProgram *p, size_t size)
{
    return arena_alloc(p->g->arena, size ? size : 1);
}

/* ---------------------------------------------------------------- whole graph */

/* Why the block cannot be taken apart, and the node that says so (*at). */
static const char *side_effect_in(const IrBlock *b, const IrNode **at)
{
    IR_FOREACH_NODE(n, b) {
        *at = n;
        if (n->op == OP_UNKNOWN)
            return "an op unknown to the op table";
        if (op_is_inplace(n->op))
            return "a write left in place (imperative mutation)";
        /* aten::sort shares its name between the tensor op (pure) and
         * list.sort() (in place); the op table lists the tensor op. */
        if (n->op == OP_ATEN_SORT && n->ninputs >= 1 && n->inputs[0]->type &&
            n->inputs[0]->type->kind == TY_LIST)
            return "a list sorted in place (list.sort())";
        /* A print or warning, at the top level or inside a unit's blocks,
         * is an ordered host action (see "Prints" above). */
        if (n->owner == n->graph->top && n->noutputs == 0 && n->op != OP_PRIM_IF &&
            n->op != OP_PRIM_RAISEEXCEPTION && n->op != OP_PRIM_PRINT && n->op != OP_ATEN_WARN)
            return "a top-level node without outputs (it only has effects)";
        for (int i = 0; i < n->nblocks; i++) {
            const char *why = side_effect_in(n->blocks[i], at);
            if (why)
                return why;
        }
    }
    *at = NULL;
    return NULL;
}

/* "PREFIX: WHY (KIND at file.py:3:8, graph text line L)" as a stream
 * comment: a reason a user can act on, and where. */
static void set_why_comment(StreamNode *f, const char *prefix, const char *why, const IrNode *at)
{
    char where[384] = "";
    if (at) {
        const char *src = lower_source_text(at);
        snprintf(where, sizeof where, " (%s%s%s, graph text line %d)", at->kind,
                 *src ? " at " : "", src, at->line);
    }
    char text[768];
    snprintf(text, sizeof text, "%s: %s%s", prefix, why, where);
    stream_node_set_comment(f, text);
}

static LowerWork *new_work(LowerProgram *p, LowerWorkKind kind)
{
    LowerWork *w = lower_alloc(p, sizeof *w);
    w->kind = kind;
    return w;
}

static StreamNode *work_filter(Build *b, const char *name, LowerWork *w)
{
    StreamNode *f = stream_filter_new(b->sg, name, lower_work_pop(w), lower_work_pop(w),
                                      lower_work_push(w));
    f->filter.work = w;
    f->filter.nodes = w->nodes;
    f->filter.nnodes = w->nnodes;
    return f;
}

/* Top-level nodes that do work (a loop or an If counts once). */
static int64_t count_executed(const IrBlock *blk)
{
    int64_t n = 0;
    IR_FOREACH_NODE(x, blk)
        n += x->op != OP_PRIM_CONSTANT;
    return n;
}

/* The whole block as one filter: pops the block's inputs, runs every node,
 * pushes every result. The top level: the program is one filter; a loop
 * body: the body's stream is one filter, fired once per iteration. */
static StreamNode *whole_block(Build *b, const char *why, const IrNode *at)
{
    LowerProgram *p = b->p;
    IrBlock *blk = b->blk;
    bool top = blk == p->g->top;
    LowerWork *w = new_work(p, LOWER_WORK_REGION);
    int n = 0;
    IR_FOREACH_NODE(x, blk)
        n++;
    w->nodes = lower_alloc(p, (size_t)n * sizeof *w->nodes);
    IR_FOREACH_NODE(x, blk)
        w->nodes[w->nnodes++] = x;
    w->pops = b->ins;
    w->npops = b->nins;
    int nret = ir_block_nreturns(blk);
    w->pushes = lower_alloc(p, (size_t)nret * sizeof *w->pushes);
    for (int k = 0; k < nret; k++) {
        b->out_map[k] = k;
        w->pushes[w->npushes++] = ir_block_return(blk, k);
    }
    w->executed = count_executed(blk);
    if (top) {
        p->stats.whole_graph = true;
        p->stats.why = why;
    }
    StreamNode *f = work_filter(b, top ? "Program" : "Body", w);
    set_why_comment(f, top ? "the whole program is one filter" : "the loop body is one filter",
                    why, at);
    return f;
}

/* ---------------------------------------------------------------- units */

/* When n is a top-level prim::ListUnpack of a list that a run-time op
 * splitting one tensor into views (aten::chunk, split, unbind: ALIAS_VIEWS
 * in the op table) made for it alone, that op; else NULL. */
static IrNode *split_into(const LowerProgram *p, const IrNode *n)
{
    if (n->op != OP_PRIM_LISTUNPACK || n->ninputs != 1)
        return NULL;
    IrValue *list = n->inputs[0];
    IrNode *d = list->def;
    if (d->owner != n->owner || op_info(d->op)->alias != ALIAS_VIEWS || d->noutputs != 1 ||
        list->nuses != 1 || p->is_static[list->id] || d->nblocks > 0)
        return NULL;
    return d;
}

/* The run-time values n reads, first use first. */
static void unit_pops(Build *b, Unit *u)
{
    IrNode *n = u->node;
    LowerReads *r = &b->reads;
    lower_reads_begin(r);
    lower_reads_inside(r, n);
    if (u->prefix) {
        lower_reads_inside(r, u->prefix);
        lower_reads_node(r, u->prefix);
    }
    if (u->loop) {
        /* Carried initial values first (the Stack takes them), then the
         * outer values the body reads. */
        for (int i = 2; i < n->ninputs; i++)
            lower_reads_use(r, n->inputs[i]);
    }
    lower_reads_node(r, n);
    if (u->token_in)
        lower_reads_use(r, u->token_in);
    u->pops = lower_reads_take(r, &u->npops);
}

static const char *short_kind(const IrNode *n)
{
    const char *s = strstr(n->kind, "::");
    return s ? s + 2 : n->kind;
}

/* Stream names tie the stream graph to the IR: a filter is named after its op
 * and the value it computes ("linear_x_3" for %x.3 = aten::linear(...)), an
 * identity or separator after the value it passes or drops ("pass_x_3"), so
 * every row of --emit=schedule names what it runs and no two siblings share
 * a name. Value names become identifier characters ('.' -> '_'). */
static const char *value_stream_name(char *buf, size_t size, const char *prefix, const IrValue *v)
{
    /* Copied by hand, not with snprintf: a graph has a name per filter and
     * identity, and formatting was a tenth of the lowering's time. A name too
     * long for buf is cut and stays terminated. */
    size_t n = 0;
    for (const char *s = prefix; *s && n + 1 < size; s++)
        buf[n++] = isalnum((unsigned char)*s) ? *s : '_';
    if (n + 1 < size)
        buf[n++] = '_';
    for (const char *s = v->name; *s && n + 1 < size; s++)
        buf[n++] = isalnum((unsigned char)*s) ? *s : '_';
    buf[n] = '\0';
    return buf;
}

static void build_nested_loop(LowerProgram *p, StreamNode *f, LowerWork *w, IrNode *loop);

static StreamNode *unit_filter(Build *b, Unit *u)
{
    LowerWork *w = new_work(b->p, LOWER_WORK_REGION);
    w->nodes = lower_alloc(b->p, 2 * sizeof *w->nodes);
    if (u->prefix)
        w->nodes[w->nnodes++] = u->prefix;
    w->nodes[w->nnodes++] = u->node;
    w->pops = u->pops;
    w->npops = u->npops;
    w->pushes = u->node->outputs;
    w->npushes = u->node->noutputs;
    if (u->token_out) {
        w->pushes = lower_alloc(b->p, ((size_t)u->node->noutputs + 1) * sizeof *w->pushes);
        for (int i = 0; i < u->node->noutputs; i++)
            w->pushes[i] = u->node->outputs[i];
        w->pushes[w->npushes++] = u->token_out;
        w->order_token = u->token_out;
    }
    w->executed = 1;
    char name[STREAM_MAX_NAME];
    if (u->node->noutputs > 0)
        value_stream_name(name, sizeof name, short_kind(u->node), u->node->outputs[0]);
    else
        snprintf(name, sizeof name, "%s_n%u", short_kind(u->node), (unsigned)u->node->id);
    if (u->prefix)
        value_stream_name(name, sizeof name, short_kind(u->prefix), u->node->outputs[0]);
    StreamNode *f = work_filter(b, name, w);
    if (u->prefix) {
        char comment[160];
        snprintf(comment, sizeof comment, "%s and its unpacking: pushes the %d pieces (views)",
                 u->prefix->kind, u->node->noutputs);
        stream_node_set_comment(f, comment);
    }
    if (u->nested) {
        build_nested_loop(b->p, f, w, u->node);
        char comment[1024];
        const char *src = lower_source_text(u->node);
        snprintf(comment, sizeof comment,
                 "%s%sloop decided at run time (%s): a hierarchical filter whose body is the "
                 "stream inside, fired once per iteration until the loop ends (%d filter%s per "
                 "iteration)", src, *src ? ": " : "", u->loop_why, w->nsteps,
                 w->nsteps == 1 ? "" : "s");
        stream_node_set_comment(f, comment);
    } else if (u->loop_why) {
        set_why_comment(f, "the loop is one filter", u->loop_why, u->node);
    }
    return f;
}

/* The stream of unit u: its filter (or loop split-join), with dead outputs
 * dropped by Separators. Appends its live outputs to `live`. */
static StreamNode *unit_stream(Build *b, Unit *u, IrValue **live, int *nlive)
{
    LowerProgram *p = b->p;
    StreamNode *s = u->loop ? lower_loop_stream(p, b->sg, u->loop, u->pops, u->npops)
                            : unit_filter(b, u);
    IrNode *n = u->node;
    /* What the unit pushes: its outputs, then its print-ordering token. */
    int npushed = n->noutputs;
    IrValue **pushed = n->outputs;
    if (u->token_out) {
        pushed = lower_alloc(p, ((size_t)npushed + 1) * sizeof *pushed);
        for (int i = 0; i < n->noutputs; i++)
            pushed[i] = n->outputs[i];
        pushed[npushed++] = u->token_out;
    }
    int ndead = 0;
    for (int i = 0; i < npushed; i++) {
        if (b->last_level[pushed[i]->id] > u->level)
            live[(*nlive)++] = pushed[i];
        else
            ndead++;
    }
    if (ndead == 0)
        return s;
    StreamNode *pipe = stream_pipeline_new(b->sg, short_kind(n));
    stream_pipeline_add(pipe, s);
    if (ndead == npushed) {
        stream_pipeline_add(pipe, stream_separator_new(b->sg, NULL, npushed));
        return pipe;
    }
    StreamNode *sj = stream_splitjoin_new(b->sg, "Outputs", SPLIT_ROUNDROBIN);
    for (int i = 0; i < npushed; i++) {
        bool alive = b->last_level[pushed[i]->id] > u->level;
        char name[STREAM_MAX_NAME];
        value_stream_name(name, sizeof name, alive ? "pass" : "drop", pushed[i]);
        stream_splitjoin_add(sj, alive ? stream_identity_new(b->sg, name)
                                       : stream_separator_new(b->sg, name, 1),
                             1, alive ? 1 : 0);
    }
    stream_pipeline_add(pipe, sj);
    return pipe;
}

/* A Route from `from` (each value once) to `to`. */
static StreamNode *route_filter(Build *b, const char *name, IrValue **from, int nfrom,
                                IrValue **to, int nto)
{
    LowerWork *w = new_work(b->p, LOWER_WORK_ROUTE);
    for (int i = 0; i < nfrom; i++)
        b->pos[from[i]->id] = i;
    w->route = lower_alloc(b->p, (size_t)nto * sizeof *w->route);
    w->nroute = nto;
    w->route_pop = nfrom;
    for (int k = 0; k < nto; k++)
        w->route[k] = b->pos[to[k]->id];
    return work_filter(b, name, w);
}

static bool same_list(IrValue **a, int na, IrValue **c, int nc)
{
    return na == nc && (na == 0 || memcmp(a, c, (size_t)na * sizeof *a) == 0);
}

/* ---------------------------------------------------------------- stages */

static void add_stage(StreamNode *root, StreamNode *stage)
{
    stream_pipeline_add(root, stage);
}

/* Skips. A value carried past many layers would cost an Identity (and two
 * channels) in every one of them: on a deep graph whose early values are
 * read much later (weights used by every block, a skip connection) that is
 * layers x live values actors, most of the stream graph. Live lists keep
 * their oldest values first (carried values come before a layer's new
 * outputs), so the values carried longest are a prefix of the list. When a
 * prefix of m values is not read by layers s..e and is still live after e,
 * those layers become one split-join instead: the m values ride one Identity
 * each beside a pipeline of the layers' stages, which carry only the rest.
 * The split takes the prefix first and the join puts it back first, so the
 * list after the skip is the one the layers would have passed on, and every
 * stage before and after it is built as before. The pipeline inside skips
 * again where its own prefix allows. A skip is made only when it spans at
 * least SKIP_MIN_LAYERS layers and saves actors (m * (layers - 1) identities
 * against a splitter and a joiner), so small graphs keep one stage per
 * layer. */
enum {
    SKIP_MIN_LAYERS = 8,
    SKIP_SCAN = 64,         /* prefix values considered at one layer */
    SKIP_MAX_NESTING = 16,  /* each skip nests the stream two levels deeper */
};

typedef struct Layers {
    Build *b;
    int maxlevel;
    int *first, *order;     /* units by level: order[first[l] .. first[l+1]) */
    IrValue **bufs[2];      /* live lists: the current one and the next */
    IrValue **need;
    int *use_start, *use_level, *use_next; /* by value id: levels of the units popping it */
} Layers;

/* The first level >= l at which a unit pops v; INT_MAX when none does. The
 * levels asked for never decrease (layers are built in order), so each
 * value's cursor only moves forward. */
static int next_use(Layers *ls, const IrValue *v, int l)
{
    int *k = &ls->use_next[v->id], end = ls->use_start[v->id + 1];
    while (*k < end && ls->use_level[*k] < l)
        (*k)++;
    return *k < end ? ls->use_level[*k] : INT_MAX;
}

/* The stage of layer l: pops live (nlive values), writes the values live
 * after it to next, returns their count. */
static int add_layer(Layers *ls, StreamNode *pipe, int l, IrValue **live, int nlive, IrValue **next)
{
    Build *b = ls->b;
    IrValue **need = ls->need;
    int nnext = 0, nneed = 0, nbranches = 0;
    int max_branches = nlive + ls->first[l + 1] - ls->first[l];
    StreamNode **branches = xmalloc((size_t)(max_branches + 1) * sizeof *branches);
    int64_t *pops = xmalloc((size_t)(max_branches + 1) * sizeof *pops);
    int64_t *pushes = xmalloc((size_t)(max_branches + 1) * sizeof *pushes);
    for (int i = 0; i < nlive; i++)
        if (b->last_level[live[i]->id] > l) {
            char pass[STREAM_MAX_NAME];
            value_stream_name(pass, sizeof pass, "pass", live[i]);
            branches[nbranches] = stream_identity_new(b->sg, pass);
            pops[nbranches] = pushes[nbranches] = 1;
            nbranches++;
            need[nneed++] = live[i];
            next[nnext++] = live[i];
        }
    if (nneed == 0 && nlive > 0 && ls->first[l] < ls->first[l + 1]) {
        /* Every unit of this layer reads only compile-time values (a
         * program whose outputs follow from its inputs' shapes) and nothing
         * live passes through: the first unit pops the first live value,
         * which it does not read, so that the stage still takes items from
         * the one before (a splitjoin or pipeline of sources only has no
         * rates to balance). */
        Unit *u = &b->units[ls->order[ls->first[l]]];
        bool pops_none = true;
        for (int k = ls->first[l]; k < ls->first[l + 1]; k++)
            pops_none &= b->units[ls->order[k]].npops == 0;
        if (pops_none) {
            u->pops = lower_alloc(b->p, sizeof *u->pops);
            u->pops[0] = live[0];
            u->npops = 1;
        }
    }
    for (int k = ls->first[l]; k < ls->first[l + 1]; k++) {
        Unit *u = &b->units[ls->order[k]];
        int before = nnext;
        branches[nbranches] = unit_stream(b, u, next, &nnext);
        pops[nbranches] = u->npops;
        pushes[nbranches] = nnext - before;
        nbranches++;
        for (int i = 0; i < u->npops; i++)
            need[nneed++] = u->pops[i];
    }
    bool in_order = same_list(live, nlive, need, nneed);
    bool duplicate = !in_order && nlive == 1 && nbranches > 1;
    for (int i = 0; duplicate && i < nbranches; i++)
        duplicate = pops[i] == 1;
    for (int i = 0; duplicate && i < nneed; i++)
        duplicate = need[i] == live[0];
    char name[32];
    if (!in_order && !duplicate) {
        /* Named after the layer it feeds: one Route per layer at most. */
        snprintf(name, sizeof name, "Route%d", l);
        add_stage(pipe, route_filter(b, name, live, nlive, need, nneed));
    }
    if (nbranches == 1) {
        add_stage(pipe, branches[0]);
    } else {
        snprintf(name, sizeof name, "Layer%d", l);
        StreamNode *sj = stream_splitjoin_new(b->sg, name, duplicate ? SPLIT_DUPLICATE : SPLIT_ROUNDROBIN);
        for (int i = 0; i < nbranches; i++)
            stream_splitjoin_add(sj, branches[i], pops[i], pushes[i]);
        add_stage(pipe, sj);
    }
    free(branches);
    free(pops);
    free(pushes);
    return nnext;
}

/* The prefix of live to carry past layers l.. (its length, 0 for none) and
 * the last layer it skips. */
static int choose_skip(Layers *ls, int l, int last, IrValue **live, int nlive, int *skip_last)
{
    int best = 0, best_saving = 0, end = last;
    if (end > ls->maxlevel - 1)
        end = ls->maxlevel - 1;     /* the last layer makes the outputs: never skipped */
    for (int m = 1; m < nlive && m <= SKIP_SCAN; m++) {
        int use = next_use(ls, live[m - 1], l);
        if (use != INT_MAX && use - 1 < end)
            end = use - 1;
        int layers = end - l + 1;
        if (layers < SKIP_MIN_LAYERS)
            break;
        int saving = m * (layers - 1) - 2;
        if (saving > best_saving) {
            best = m;
            best_saving = saving;
            *skip_last = end;
        }
    }
    return best;
}

/* Appends the stages of layers l0..last to pipe. The live list is
 * ls->bufs[*cur] + off (*nlive values); on return the list after `last` is
 * there, with its count in *nlive. Only entries from off on are written. */
static void add_layers(Layers *ls, StreamNode *pipe, int l0, int last, int off, int *cur, int *nlive,
                       int nesting)
{
    Build *b = ls->b;
    for (int l = l0; l <= last;) {
        IrValue **live = ls->bufs[*cur] + off;
        int skip_last = l, m = nesting < SKIP_MAX_NESTING ? choose_skip(ls, l, last, live, *nlive, &skip_last) : 0;
        if (m == 0) {
            *nlive = add_layer(ls, pipe, l, live, *nlive, ls->bufs[1 - *cur] + off);
            *cur = 1 - *cur;
            l++;
            continue;
        }
        /* Both lists keep the prefix: the layers inside write from off + m. */
        memcpy(ls->bufs[1 - *cur] + off, live, (size_t)m * sizeof *live);
        char name[48];
        snprintf(name, sizeof name, "Skip%d_%d", l, skip_last);
        StreamNode *sj = stream_splitjoin_new(b->sg, name, SPLIT_ROUNDROBIN);
        for (int i = 0; i < m; i++) {
            char pass[STREAM_MAX_NAME];
            value_stream_name(pass, sizeof pass, "pass", live[i]);
            stream_splitjoin_add(sj, stream_identity_new(b->sg, pass), 1, 1);
        }
        snprintf(name, sizeof name, "Layers%d_%d", l, skip_last);
        StreamNode *inner = stream_pipeline_new(b->sg, name);
        int inner_in = *nlive - m, inner_out = inner_in;
        add_layers(ls, inner, l, skip_last, off + m, cur, &inner_out, nesting + 1);
        stream_splitjoin_add(sj, inner, inner_in, inner_out);
        add_stage(pipe, sj);
        *nlive = m + inner_out;
        l = skip_last + 1;
    }
}

static bool build_layers(Build *b, StreamNode *root)
{
    LowerProgram *p = b->p;
    IrGraph *g = p->g;
    int nunits = b->nunits, maxlevel = -1;
    for (int i = 0; i < nunits; i++)
        if (b->units[i].level > maxlevel)
            maxlevel = b->units[i].level;

    /* Units bucketed by level, program order within a level. */
    int *first = xcalloc((size_t)maxlevel + 2, sizeof *first);
    int *order = xmalloc(((size_t)nunits + 1) * sizeof *order);
    for (int i = 0; i < nunits; i++)
        first[b->units[i].level + 1]++;
    for (int l = 0; l <= maxlevel; l++)
        first[l + 1] += first[l];
    int *fill = xcalloc((size_t)maxlevel + 2, sizeof *fill);
    for (int i = 0; i < nunits; i++) {
        int l = b->units[i].level;
        order[first[l] + fill[l]++] = i;
    }
    free(fill);

    /* The levels each value is popped at, in increasing order (units in
     * level order): what choose_skip asks of next_use. */
    size_t nv = (size_t)g->nvalues + 1;
    int *use_start = xcalloc(nv + 1, sizeof *use_start);
    int *use_next = xmalloc(nv * sizeof *use_next);
    int npops = 0;
    for (int i = 0; i < nunits; i++) {
        for (int k = 0; k < b->units[i].npops; k++)
            use_start[b->units[i].pops[k]->id + 1]++;
        npops += b->units[i].npops;
    }
    for (size_t v = 0; v < nv; v++)
        use_start[v + 1] += use_start[v];
    memcpy(use_next, use_start, nv * sizeof *use_next);
    int *use_level = xmalloc(((size_t)npops + 1) * sizeof *use_level);
    for (int k = 0; k < nunits; k++) {
        const Unit *u = &b->units[order[k]];
        for (int i = 0; i < u->npops; i++)
            use_level[use_next[u->pops[i]->id]++] = u->level;
    }
    memcpy(use_next, use_start, nv * sizeof *use_next);

    /* Live lists: at most every value once. */
    size_t cap = nv;
    Layers ls = {.b = b, .maxlevel = maxlevel, .first = first, .order = order,
                 .use_start = use_start, .use_level = use_level, .use_next = use_next};
    ls.bufs[0] = xmalloc(cap * sizeof *ls.bufs[0]);
    ls.bufs[1] = xmalloc(cap * sizeof *ls.bufs[1]);
    ls.need = xmalloc(cap * sizeof *ls.need);
    int cur = 0, nlive = 0;
    for (int k = 0; k < b->nins; k++)
        ls.bufs[0][nlive++] = b->ins[k];
    add_layers(&ls, root, 0, maxlevel, 0, &cur, &nlive, 0);
    IrValue **live = ls.bufs[cur], **need = ls.need;

    /* The outputs in order. */
    int nret = ir_block_nreturns(b->blk), nout = 0;
    for (int k = 0; k < nret; k++) {
        IrValue *v = ir_block_return(b->blk, k);
        b->out_map[k] = p->is_static[v->id] ? -1 : nout;
        if (!p->is_static[v->id])
            need[nout++] = v;
    }
    if (!same_list(live, nlive, need, nout) || root->nchildren == 0)
        add_stage(root, route_filter(b, "Outputs", live, nlive, need, nout));
    free(ls.bufs[0]);
    free(ls.bufs[1]);
    free(ls.need);
    free(use_start);
    free(use_next);
    free(use_level);
    free(first);
    free(order);
    return true;
}

/* ---------------------------------------------------------------- node runs */

#define RUNS_CAP (INT64_MAX / 4)

static int64_t saturating_mul(int64_t a, int64_t b)
{
    return a != 0 && b > RUNS_CAP / a ? RUNS_CAP : a * b;
}

static int64_t saturating_add(int64_t a, int64_t b)
{
    return a > RUNS_CAP - b ? RUNS_CAP : a + b;
}

/* True when the loop's body always continues (a for loop: its trip count
 * alone decides how often it runs). */
static bool loop_always_continues(LowerProgram *p, const IrNode *loop)
{
    const IrValue *c = ir_block_return(loop->blocks[0], 0);
    const RtValue *v = p->is_static[c->id] ? node_exec_get(p->exec, c) : NULL;
    if (v)
        return (v->kind == RT_BOOL || v->kind == RT_INT) && v->u.i != 0;
    const IrAttr *a = c->def->op == OP_PRIM_CONSTANT ? ir_attr_find(c->def, "value") : NULL;
    return a && a->kind == ATTR_INT && a->u.i == 1;
}

/* Adds `times` runs of n, and of the nodes of its blocks (a for loop's
 * body times its trip count when that is a compile-time value, else, while
 * loops included, once per run of the loop: the same convention on both
 * sides of the comparison; both branches of an If: an upper bound, the
 * same on both sides). */
static void add_node_runs(LowerProgram *p, int64_t *runs, const IrNode *n, int64_t times)
{
    if (n->op != OP_PRIM_CONSTANT)
        runs[n->id] = saturating_add(runs[n->id], times);
    int64_t inner = times;
    if (n->op == OP_PRIM_LOOP && n->ninputs > 0 && n->nblocks == 1 &&
        ir_block_nreturns(n->blocks[0]) > 0 && p->is_static[n->inputs[0]->id] &&
        loop_always_continues(p, n)) {
        const RtValue *trips = node_exec_get(p->exec, n->inputs[0]);
        if (trips && trips->kind == RT_INT)
            inner = saturating_mul(times, trips->u.i > 0 ? trips->u.i : 0);
    }
    for (int b = 0; b < n->nblocks; b++)
        IR_FOREACH_NODE(x, n->blocks[b])
            add_node_runs(p, runs, x, inner);
}

static void add_node_list_runs(LowerProgram *p, int64_t *runs, IrNode **nodes, int n, int64_t times)
{
    for (int i = 0; i < n; i++)
        add_node_runs(p, runs, nodes[i], times);
}

/* Every work filter fires `firings` times per run (one steady state is one
 * run; a loop's body fires once per iteration). */
static void add_stream_runs(LowerProgram *p, int64_t *runs, const StreamNode *s)
{
    if (s->kind != STREAM_FILTER) {
        for (int i = 0; i < s->nchildren; i++)
            add_stream_runs(p, runs, s->children[i]);
        return;
    }
    const LowerWork *w = s->filter.work;
    if (!w)
        return;
    int64_t firings = w->firings > 0 ? w->firings : 1;
    const LoopPlan *plan = w->plan;
    switch (w->kind) {
    case LOWER_WORK_REGION:
    case LOWER_WORK_LOOP_BODY:
        add_node_list_runs(p, runs, w->nodes, w->nnodes, firings);
        break;
    case LOWER_WORK_UNSTACK:
        add_node_list_runs(p, runs, plan->hoisted, plan->nhoisted, 1);
        add_node_list_runs(p, runs, w->nodes, w->nnodes, plan->trips);
        break;
    case LOWER_WORK_LOOP_STACK:
        add_node_list_runs(p, runs, w->nodes, w->nnodes, plan->trips);
        for (int k = 0; k < plan->loop->ninputs - 2; k++)
            if (plan->writes[k])
                add_node_runs(p, runs, plan->writes[k], plan->trips);
        break;
    case LOWER_WORK_ROUTE:
        break;
    }
}

/* Nodes with tensor work that the lowering runs more often than the
 * interpreter (scalar index arithmetic that a loop's Unstack and Stack
 * both need is allowed to run twice). */
static int count_tensor_nodes_run_more(const IrBlock *blk, const int64_t *lowered,
                                       const int64_t *original)
{
    int n = 0;
    IR_FOREACH_NODE(x, blk) {
        n += lowered[x->id] > original[x->id] && !lower_node_scalar(x);
        for (int b = 0; b < x->nblocks; b++)
            n += count_tensor_nodes_run_more(x->blocks[b], lowered, original);
    }
    return n;
}

void lower_count_node_runs(LowerProgram *p)
{
    IrGraph *g = p->g;
    int64_t *lowered = xcalloc((size_t)g->nnodes + 1, sizeof *lowered);
    int64_t *original = xcalloc((size_t)g->nnodes + 1, sizeof *original);
    IR_FOREACH_NODE(n, g->top) {
        add_node_runs(p, original, n, 1);
        /* Compile-time values ran once, when the program was specialized. */
        bool is_static = n->noutputs > 0;
        for (int i = 0; i < n->noutputs; i++)
            is_static = is_static && p->is_static[n->outputs[i]->id];
        if (is_static && n->op != OP_PRIM_CONSTANT)
            lowered[n->id]++;
    }
    add_stream_runs(p, lowered, p->sg->root);
    LowerStats *st = &p->stats;
    st->node_runs = st->node_runs_original = 0;
    st->nodes_run_more = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        st->node_runs = saturating_add(st->node_runs, lowered[i]);
        st->node_runs_original = saturating_add(st->node_runs_original, original[i]);
        st->nodes_run_more += lowered[i] > original[i];
    }
    st->tensor_nodes_run_more = count_tensor_nodes_run_more(g->top, lowered, original);
    free(lowered);
    free(original);
}

/* ---------------------------------------------------------------- blocks */

/* prim::Loop(trips, cond, carried...) with one body block of params
 * (counter, carried...) and results (cond, carried...). */
static bool loop_well_formed(const IrNode *n)
{
    return n->nblocks == 1 && n->ninputs >= 2 && n->noutputs == n->ninputs - 2 &&
           ir_block_nparams(n->blocks[0]) == n->ninputs - 1 &&
           ir_block_nreturns(n->blocks[0]) == n->ninputs - 1;
}

/* The units of b->blk (its nodes that are not compile-time values), with
 * their pops and levels. Top-level loops with a static trip count get a
 * plan (lower_loop.c); every other loop becomes a hierarchical filter. */
static void collect_units(Build *b)
{
    LowerProgram *p = b->p;
    IrGraph *g = p->g;
    bool top = b->blk == g->top;
    int cap = 0;
    IR_FOREACH_NODE(n, b->blk) {
        bool is_static = n->noutputs > 0;
        for (int i = 0; i < n->noutputs; i++)
            is_static = is_static && p->is_static[n->outputs[i]->id];
        if (!is_static)
            cap++;
    }
    b->units = xcalloc((size_t)cap + 1, sizeof *b->units);
    int printer = 0;
    Unit *last_printer = NULL;
    bool *absorbed = xcalloc((size_t)g->nnodes + 1, sizeof *absorbed);
    IR_FOREACH_NODE(n, b->blk) {
        IrNode *d = split_into(p, n);
        if (d)
            absorbed[d->id] = true;
    }
    IR_FOREACH_NODE(n, b->blk) {
        bool is_static = n->noutputs > 0;
        for (int i = 0; i < n->noutputs; i++)
            is_static = is_static && p->is_static[n->outputs[i]->id];
        if (is_static || absorbed[n->id])
            continue;
        Unit *u = &b->units[b->nunits++];
        u->node = n;
        u->prefix = split_into(p, n);
        if (n->op == OP_PRIM_LOOP) {
            /* A loop inside a body runs per iteration of the outer one: a
             * hierarchical filter too (its steady state is one firing of
             * every filter, which a multi-rate loop stream is not). */
            u->loop = top ? lower_loop_plan(p, n, &u->loop_why) : NULL;
            if (!top)
                u->loop_why = "a loop inside a loop body decided at run time";
            u->nested = !u->loop && loop_well_formed(n);
            if (!u->loop && !u->nested)
                p->stats.loops_serial++;
        }
        if (ir_node_prints(n) && printer < b->ntokens) {
            u->token_in = printer > 0 ? b->tokens[printer - 1] : NULL;
            u->token_out = b->tokens[printer];
            last_printer = u;
            printer++;
        }
        unit_pops(b, u);
        int level = 0;
        for (int i = 0; i < u->npops; i++) {
            int dl = b->def_level[u->pops[i]->id] + 1;
            if (dl > level)
                level = dl;
        }
        u->level = level;
        for (int i = 0; i < n->noutputs; i++)
            b->def_level[n->outputs[i]->id] = level;
        if (u->token_out)
            b->def_level[u->token_out->id] = level;
        for (int i = 0; i < u->npops; i++)
            if (b->last_level[u->pops[i]->id] < level)
                b->last_level[u->pops[i]->id] = level;
    }
    free(absorbed);
    for (int k = 0; k < ir_block_nreturns(b->blk); k++)
        b->last_level[ir_block_return(b->blk, k)->id] = INT_MAX;
    /* The last printing unit passes no token on, unless the token is all
     * that ties it to the stream (print("done") of constants alone): then
     * it rides to the end, where the outputs' Route drops it. */
    if (last_printer) {
        bool tied = last_printer->npops > 0;
        for (int i = 0; !tied && i < last_printer->node->noutputs; i++)
            tied = b->last_level[last_printer->node->outputs[i]->id] > last_printer->level;
        if (tied)
            last_printer->token_out = NULL;
        else
            b->last_level[last_printer->token_out->id] = INT_MAX;
    }
}

/* Whether u's work has no effect but its results: one node (or a fused
 * group of such nodes), no control flow, that writes nothing, raises,
 * prints or warns (what TensorSSA's dead-code elimination would remove
 * once nothing reads its results). */
static bool pure_node(const IrNode *n)
{
    const OpInfo *info = op_info(n->op);
    if (n->op == OP_TSSA_FUSION_GROUP && n->nblocks == 1) {     /* a fused group of pure nodes */
        for (const IrNode *m = n->blocks[0]->param->next; m && m != n->blocks[0]->ret; m = m->next)
            if (!pure_node(m))
                return false;
        return true;
    }
    switch (n->op) {
    case OP_UNKNOWN: case OP_PRIM_RAISEEXCEPTION: case OP_PRIM_PRINT: case OP_ATEN_WARN:
    case OP_PRIM_SETATTR:
        return false;
    default:
        return n->nblocks == 0 && info->mutates < 0 && info->cls != OPC_CONTROL && info->cls != OPC_TSSA;
    }
}

static bool dead_work(const Unit *u)
{
    return !u->prefix && !u->loop && pure_node(u->node);
}

/* Why b->blk's units cannot be taken apart (a unit that neither pops nor
 * pushes), or NULL; drops the units whose work nothing reads. */
static const char *units_why(Build *b, const IrNode **why_at)
{
    /* A unit that neither pops nor pushes a live item would hang loose
     * in the stream. Work whose results nothing reads at run time (a view
     * read only by prim::device and prim::dtype, which the bindings
     * decide) is dropped; a check whose condition is known (it raises for
     * sure) keeps program order instead. */
    int kept = 0;
    for (int k = 0; k < b->nunits; k++) {
        const Unit *u = &b->units[k];
        bool read = u->token_out != NULL;
        for (int i = 0; !read && i < u->node->noutputs; i++)
            read = b->last_level[u->node->outputs[i]->id] > u->level;
        /* Pure work nothing reads is dropped even where it pops items (a
         * list of the inputs only compile-time loops read, for their
         * shapes): the items it popped are dropped where it stood. */
        if (!read && dead_work(u)) {
            continue;
        } else if (!read && u->npops == 0) {
            *why_at = u->node;
            return "a node that takes and gives no run-time value (a check known to raise)";
        }
        b->units[kept++] = *u;
    }
    b->nunits = kept;
    return NULL;
}

/* One print-ordering token per node of blk that prints (the values exist
 * before the build's tables are sized): outputs of a detached node, which no
 * block holds and nothing runs; a firing that pushes one pushes None. */
static void make_tokens(Build *b)
{
    IrGraph *g = b->p->g;
    int n = 0;
    IR_FOREACH_NODE(x, b->blk)
        n += ir_node_prints(x) != NULL;
    if (n == 0)
        return;
    IrNode *holder = ir_node_new_op(g, OP_PRIM_CONSTANT);
    b->tokens = lower_alloc(b->p, (size_t)n * sizeof *b->tokens);
    for (int i = 0; i < n; i++)
        b->tokens[b->ntokens++] = ir_node_add_output(holder, ir_type_simple(g, TY_NONE), "print_order");
    lower_graph_grown(b->p);
}

static void build_init(Build *b, LowerProgram *p, StreamGraph *sg, IrBlock *blk)
{
    IrGraph *g = p->g;
    *b = (Build){.p = p, .sg = sg, .blk = blk};
    make_tokens(b);
    size_t nv = (size_t)g->nvalues + 1;
    b->def_level = xmalloc(nv * sizeof *b->def_level);
    b->last_level = xcalloc(nv, sizeof *b->last_level);
    lower_reads_init(&b->reads, p);
    b->pos = xcalloc(nv, sizeof *b->pos);
    for (size_t i = 0; i < nv; i++) {
        b->def_level[i] = -1;
        b->last_level[i] = -1;
    }
}

static void build_free(Build *b)
{
    free(b->def_level);
    free(b->last_level);
    lower_reads_free(&b->reads);
    free(b->pos);
    free(b->units);
}

/* The work filters of s, in the order of one steady state when every
 * filter fires once (a pipeline's stages in order, a split-join's branches
 * one after the other: a topological order of its actors). */
static void collect_steps(LowerProgram *p, const StreamNode *s, LowerWork ***steps, int *n, int *cap)
{
    if (s->kind != STREAM_FILTER) {
        for (int i = 0; i < s->nchildren; i++)
            collect_steps(p, s->children[i], steps, n, cap);
        return;
    }
    LowerWork *w = s->filter.work;
    if (!w || w->kind != LOWER_WORK_REGION)
        return;     /* identities, separators and routes move items only */
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *steps = xrealloc(*steps, (size_t)*cap * sizeof **steps);
    }
    (*steps)[(*n)++] = w;
    p->stats.nested_filters++;
}

static int by_body_order(const void *a, const void *b)
{
    int64_t x = (*(LowerWork *const *)a)->nodes[0]->order, y = (*(LowerWork *const *)b)->nodes[0]->order;
    return (x > y) - (x < y);
}

/* Hierarchical scheduling. A loop whose trip count or condition is decided
 * at run time (a while loop, a break, a trip count from tensor data) is
 * still a stream: its body is taken apart as the top level is (units,
 * layers, split-joins; fused groups are units of their own), into a
 * stream of its own (f's inner stream) whose every filter fires once per
 * steady state, so one steady state is one iteration. The loop's filter
 * f, a leaf to the outer schedule, fires that steady state (w->steps)
 * until the trip count is reached or the condition fails. The body's
 * stream pops the values the body reads (its counter and carried values
 * when read, and the outer values it uses) and pushes the body's results
 * (the condition, then the carried values). */
static void build_nested_loop(LowerProgram *p, StreamNode *f, LowerWork *w, IrNode *loop)
{
    IrBlock *body = loop->blocks[0];
    Build ib;
    build_init(&ib, p, stream_graph_new_inner(f->graph), body);
    /* The inputs: what the body's nodes and results read from outside. */
    LowerReads *r = &ib.reads;
    lower_reads_begin(r);
    IR_FOREACH_NODE(n, body)
        lower_reads_inside(r, n);
    IR_FOREACH_NODE(n, body)
        lower_reads_node(r, n);
    for (int k = 0; k < ir_block_nreturns(body); k++)
        lower_reads_use(r, ir_block_return(body, k));
    ib.ins = lower_reads_take(r, &ib.nins);
    ib.out_map = lower_alloc(p, ((size_t)ir_block_nreturns(body) + 1) * sizeof *ib.out_map);
    const IrNode *why_at = NULL;
    const char *why = side_effect_in(body, &why_at);
    if (!why) {
        collect_units(&ib);
        why = units_why(&ib, &why_at);
    }
    StreamNode *root;
    if (why) {
        root = whole_block(&ib, why, why_at);
    } else {
        char name[STREAM_MAX_NAME];
        int line = lower_source_line(loop);
        if (line > 0)
            snprintf(name, sizeof name, "Body_L%d", line);
        else
            snprintf(name, sizeof name, "Body_n%u", (unsigned)loop->id);
        root = stream_pipeline_new(ib.sg, name);
        build_layers(&ib, root);
    }
    build_free(&ib);
    stream_filter_set_inner(f, root);
    int cap = 0;
    collect_steps(p, root, &w->steps, &w->nsteps, &cap);
    /* Any topological order of the steady state would do; the body's own
     * order (a unit's first node) runs the nodes as the interpreter does,
     * so tensors are made and freed in the same order (a layer-by-layer
     * order measured 12% slower on greedy_decode_break, from the
     * allocator). */
    qsort(w->steps, (size_t)w->nsteps, sizeof *w->steps, by_body_order);
    /* The steps live with the program (the graph's arena), as the rest of
     * the work does. */
    LowerWork **steps = lower_alloc(p, ((size_t)w->nsteps + 1) * sizeof *steps);
    for (int i = 0; i < w->nsteps; i++)
        steps[i] = w->steps[i];
    free(w->steps);
    w->steps = steps;
    p->stats.loops_nested++;
}

/* ---------------------------------------------------------------- entry */

bool lower_build_stream(LowerProgram *p, FILE *err)
{
    IrGraph *g = p->g;
    Build b;
    p->sg = stream_graph_new();
    build_init(&b, p, p->sg, g->top);
    b.out_map = p->out_map;

    StreamNode *root = NULL;
    const IrNode *why_at = NULL;
    const char *why = side_effect_in(g->top, &why_at);
    /* The stream's input: the run-time graph inputs (only those some unit
     * or output reads, when the program is taken apart). */
    p->nin = 0;
    if (!why) {
        collect_units(&b);
        why = units_why(&b, &why_at);
    }
    b.ins = lower_alloc(p, ((size_t)ir_block_nparams(g->top) + 1) * sizeof *b.ins);
    for (int i = 0; i < ir_block_nparams(g->top); i++) {
        IrValue *param = ir_block_param(g->top, i);
        if (!p->is_static[param->id] && (why || b.last_level[param->id] >= 0)) {
            p->in_map[p->nin++] = i;
            b.ins[b.nins++] = param;
        }
    }
    /* A program whose units all read compile-time values only (its outputs
     * follow from its inputs' shapes: a default-box generator) still takes
     * one run-time input, which the first layer drops (add_layer): a stream
     * whose every stage is a source has no rates to balance. */
    for (int i = 0; !why && b.nins == 0 && b.nunits > 0 && i < ir_block_nparams(g->top); i++) {
        IrValue *param = ir_block_param(g->top, i);
        if (!p->is_static[param->id]) {
            p->in_map[p->nin++] = i;
            b.ins[b.nins++] = param;
        }
    }
    if (why) {
        p->stats.units = p->stats.loops_parallel = p->stats.loops_serial = 0;
        p->stats.loops_feedback = p->stats.loops_nested = p->stats.nested_filters = 0;
        p->stats.loop_iterations = 0;
        root = whole_block(&b, why, why_at);
    } else {
        p->stats.units = b.nunits;
        root = stream_pipeline_new(b.sg, "Program");
        build_layers(&b, root);
    }
    stream_graph_set_root(b.sg, root);
    build_free(&b);
    if (!stream_check(root, err))
        return false;
    lower_count_node_runs(p);
    return true;
}
