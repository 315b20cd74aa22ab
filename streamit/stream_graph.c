/* stream_graph.c — the stream graph's storage and its builder API.
 *
 * Nodes and strings live in the graph's arena (a million filters cost a
 * few hundred allocations, not a million), and
 * every node is also listed in g->nodes by id so that the growable arrays
 * it owns (children, weights) can be released. Containers' arrays grow by
 * doubling with realloc.
 *
 * The builder checks its preconditions (valid rates, a child with one
 * parent): breaking one is a bug in the calling code, reported and aborted
 * on, because outside input reaches the graph only through the reader,
 * which reports the same conditions as located errors first.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamit/stream_internal.h"
#include "tssa/diag.h"
#include "tssa/stream.h"
#include "tssa/util.h"

/* ---------------------------------------------------------------- graph */

StreamGraph *stream_graph_new(void)
{
    StreamGraph *g = xmalloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->arena = arena_new();
    return g;
}

void stream_graph_free(StreamGraph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->nnodes; i++) {
        StreamNode *n = g->nodes[i];
        if (n->kind != STREAM_FILTER) {
            free(n->children);
            free(n->split_weights);
            free(n->join_weights);
        }
    }
    free(g->nodes);
    for (int i = 0; i < g->ninner_graphs; i++)
        stream_graph_free(g->inner_graphs[i]);
    free(g->inner_graphs);
    arena_free(g->arena);
    free(g);
}

StreamGraph *stream_graph_new_inner(StreamGraph *outer)
{
    StreamGraph *g = stream_graph_new();
    g->file = outer->file;
    g->source = outer->source;
    g->source_len = outer->source_len;
    outer->inner_graphs = xrealloc(outer->inner_graphs,
                                   ((size_t)outer->ninner_graphs + 1) * sizeof *outer->inner_graphs);
    outer->inner_graphs[outer->ninner_graphs++] = g;
    return g;
}

void stream_graph_set_root(StreamGraph *g, StreamNode *root)
{
    g->root = root;
}

/* ---------------------------------------------------------------- names */

static const char *const keywords[] = {
    "filter", "pipeline", "splitjoin", "feedbackloop", "identity", "separator",
    "pop", "peek", "push", "stateful", "work", "split", "join", "duplicate",
    "roundrobin", "body", "loop", "enqueue",
};

bool stream_name_is_keyword(const char *name)
{
    /* Every keyword is lower-case letters only: most names (they hold a '_'
     * or a capital) are ruled out by one scan instead of 18 comparisons. */
    for (const char *p = name; *p; p++)
        if (*p < 'a' || *p > 'z')
            return false;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (strcmp(name, keywords[i]) == 0)
            return true;
    return false;
}

static bool is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void stream_name_sanitize(const char *name, char *buf, size_t size)
{
    if (size == 0)
        return;
    size_t n = 0;
    bool prefix = name[0] == '\0' || (name[0] >= '0' && name[0] <= '9') || stream_name_is_keyword(name);
    if (prefix && n + 1 < size)
        buf[n++] = '_';
    for (const char *p = name; *p && n + 1 < size; p++)
        buf[n++] = is_ident_char(*p) ? *p : '_';
    buf[n] = '\0';
}

/* ---------------------------------------------------------------- nodes */

static void builder_bug(const char *what, const char *name)
{
    diag_die("stream builder: %s (%s)", what, name ? name : "unnamed");
}

static StreamNode *node_new(StreamGraph *g, StreamKind kind, const char *name, const char *default_name)
{
    StreamNode *n = arena_alloc(g->arena, sizeof *n);
    n->kind = kind;
    n->id = g->nnodes;
    n->graph = g;
    n->index_in_parent = -1;
    const char *given = name ? name : default_name;
    size_t cap = strlen(given) + 2;
    if (cap > STREAM_MAX_NAME + 1)
        cap = STREAM_MAX_NAME + 1;      /* the reader's limit */
    char *buf = arena_alloc(g->arena, cap);
    stream_name_sanitize(given, buf, cap);
    n->name = buf;
    if (g->nnodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 64;
        g->nodes = xrealloc(g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes);
    }
    g->nodes[g->nnodes++] = n;
    return n;
}

static bool rate_ok(int64_t r)
{
    return r >= 0 && r <= STREAM_MAX_RATE;
}

static StreamNode *filter_new(StreamGraph *g, FilterRole role, const char *name, const char *default_name,
                              int64_t pop, int64_t peek, int64_t push)
{
    if (!rate_ok(pop) || !rate_ok(peek) || !rate_ok(push))
        builder_bug("filter rate out of range", name);
    if (peek < pop)
        builder_bug("filter peeks fewer items than it pops", name);
    if (pop == 0 && peek > 0)
        builder_bug("filter peeks without popping", name);
    StreamNode *n = node_new(g, STREAM_FILTER, name, default_name);
    n->filter.role = role;
    n->filter.pop = pop;
    n->filter.peek = peek;
    n->filter.push = push;
    n->filter.rank = -1;
    n->filter.device = -1;
    return n;
}

StreamNode *stream_filter_new(StreamGraph *g, const char *name, int64_t pop, int64_t peek, int64_t push)
{
    return filter_new(g, FILTER_WORK, name, "Filter", pop, peek, push);
}

StreamNode *stream_identity_new(StreamGraph *g, const char *name)
{
    return filter_new(g, FILTER_IDENTITY, name, "Identity", 1, 1, 1);
}

StreamNode *stream_separator_new(StreamGraph *g, const char *name, int64_t pop)
{
    if (pop < 1)
        builder_bug("a separator pops at least one item", name);
    return filter_new(g, FILTER_SEPARATOR, name, "Separator", pop, pop, 0);
}

void stream_filter_set_inner(StreamNode *filter, StreamNode *inner)
{
    if (filter->kind != STREAM_FILTER || filter->filter.role != FILTER_WORK)
        builder_bug("an inner stream on a stream that is not a work filter", filter->name);
    if (inner->parent || inner->graph == filter->graph)
        builder_bug("an inner stream must be the root of an inner graph", filter->name);
    filter->filter.inner = inner;
    inner->graph->root = inner;
}

void stream_filter_set_work_op(StreamNode *filter, const char *op)
{
    if (filter->kind != STREAM_FILTER)
        builder_bug("work op on a stream that is not a filter", filter->name);
    if (!op) {
        filter->filter.work_op = NULL;
        return;
    }
    /* The reader's op names: a letter or '_', then [A-Za-z0-9_:.]. */
    size_t n = strlen(op);
    if (n > STREAM_MAX_NAME - 1)
        n = STREAM_MAX_NAME - 1;        /* the reader's limit, with a '_' prefix */
    bool prefix = n == 0 || !(is_ident_char(op[0]) && !(op[0] >= '0' && op[0] <= '9'));
    char *copy = arena_alloc(filter->graph->arena, n + 2);
    size_t k = 0;
    if (prefix)
        copy[k++] = '_';
    for (size_t i = 0; i < n; i++)
        copy[k++] = is_ident_char(op[i]) || op[i] == ':' || op[i] == '.' ? op[i] : '_';
    copy[k] = '\0';
    filter->filter.work_op = copy;
}

void stream_filter_set_stateful(StreamNode *filter, bool stateful)
{
    if (filter->kind != STREAM_FILTER)
        builder_bug("stateful on a stream that is not a filter", filter->name);
    filter->filter.stateful = stateful;
}

void stream_node_set_comment(StreamNode *n, const char *text)
{
    n->comment = text ? arena_strdup(n->graph->arena, text) : NULL;
}

static void add_child(StreamNode *parent, StreamNode *child)
{
    if (child->parent || child == parent)
        builder_bug("stream added to a second parent", child->name);
    if (child->graph != parent->graph)
        builder_bug("stream added to a container of another graph", child->name);
    if (parent->nchildren == parent->cap_children) {
        parent->cap_children = parent->cap_children ? 2 * parent->cap_children : 4;
        size_t cap = (size_t)parent->cap_children;
        parent->children = xrealloc(parent->children, cap * sizeof *parent->children);
        if (parent->kind == STREAM_SPLITJOIN) {
            parent->split_weights = xrealloc(parent->split_weights, cap * sizeof(int64_t));
            parent->join_weights = xrealloc(parent->join_weights, cap * sizeof(int64_t));
        }
    }
    child->parent = parent;
    child->index_in_parent = parent->nchildren;
    parent->children[parent->nchildren++] = child;
}

StreamNode *stream_pipeline_new(StreamGraph *g, const char *name)
{
    return node_new(g, STREAM_PIPELINE, name, "Pipeline");
}

void stream_pipeline_add(StreamNode *pipeline, StreamNode *stage)
{
    if (pipeline->kind != STREAM_PIPELINE)
        builder_bug("stage added to a stream that is not a pipeline", pipeline->name);
    add_child(pipeline, stage);
}

StreamNode *stream_splitjoin_new(StreamGraph *g, const char *name, SplitKind split)
{
    StreamNode *n = node_new(g, STREAM_SPLITJOIN, name, "SplitJoin");
    n->split = split;
    return n;
}

void stream_splitjoin_add(StreamNode *splitjoin, StreamNode *branch, int64_t split_weight,
                          int64_t join_weight)
{
    if (splitjoin->kind != STREAM_SPLITJOIN)
        builder_bug("branch added to a stream that is not a split-join", splitjoin->name);
    if (splitjoin->split == SPLIT_DUPLICATE)
        split_weight = 1;
    if (!rate_ok(split_weight) || !rate_ok(join_weight))
        builder_bug("split-join weight out of range", splitjoin->name);
    add_child(splitjoin, branch);
    splitjoin->split_weights[branch->index_in_parent] = split_weight;
    splitjoin->join_weights[branch->index_in_parent] = join_weight;
}

StreamNode *stream_feedbackloop_new(StreamGraph *g, const char *name, StreamNode *body,
                                    StreamNode *loop, int64_t enqueued)
{
    if (!rate_ok(enqueued))
        builder_bug("enqueued item count out of range", name);
    StreamNode *n = node_new(g, STREAM_FEEDBACKLOOP, name, "FeedbackLoop");
    n->split = SPLIT_DUPLICATE;
    n->enqueued = enqueued;
    n->split_weights = xmalloc(2 * sizeof(int64_t));
    n->join_weights = xmalloc(2 * sizeof(int64_t));
    n->split_weights[0] = n->split_weights[1] = 1;
    n->join_weights[0] = n->join_weights[1] = 1;
    add_child(n, body);
    add_child(n, loop);
    return n;
}

void stream_feedbackloop_set_joiner(StreamNode *loop, int64_t in_weight, int64_t loop_weight)
{
    if (loop->kind != STREAM_FEEDBACKLOOP)
        builder_bug("joiner set on a stream that is not a feedback loop", loop->name);
    if (!rate_ok(in_weight) || !rate_ok(loop_weight))
        builder_bug("feedback joiner weight out of range", loop->name);
    loop->join_weights[0] = in_weight;
    loop->join_weights[1] = loop_weight;
}

void stream_feedbackloop_set_splitter(StreamNode *loop, SplitKind split, int64_t out_weight,
                                      int64_t loop_weight)
{
    if (loop->kind != STREAM_FEEDBACKLOOP)
        builder_bug("splitter set on a stream that is not a feedback loop", loop->name);
    if (split == SPLIT_DUPLICATE)
        out_weight = loop_weight = 1;
    if (!rate_ok(out_weight) || !rate_ok(loop_weight))
        builder_bug("feedback splitter weight out of range", loop->name);
    loop->split = split;
    loop->split_weights[0] = out_weight;
    loop->split_weights[1] = loop_weight;
}

/* ---------------------------------------------------------------- rewriting */

StreamNode *stream_filter_copy(const StreamNode *filter, const char *name)
{
    if (filter->kind != STREAM_FILTER)
        builder_bug("copy of a stream that is not a filter", filter->name);
    const StreamFilter *f = &filter->filter;
    StreamNode *n = filter_new(filter->graph, f->role, name, filter->name, f->pop, f->peek, f->push);
    /* The work and its strings belong to the graph (or to the lowering), not
     * to the filter: the copy shares them. */
    n->filter.stateful = f->stateful;
    n->filter.work_op = f->work_op;
    n->filter.work = f->work;
    n->filter.nodes = f->nodes;
    n->filter.nnodes = f->nnodes;
    n->filter.rank = f->rank;
    n->filter.device = f->device;
    n->filter.flops = f->flops;
    n->filter.math = f->math;
    n->filter.bytes = f->bytes;
    n->filter.bytes_in = f->bytes_in;
    n->filter.bytes_in_shared = f->bytes_in_shared;
    n->filter.bytes_out = f->bytes_out;
    n->filter.inner = f->inner;
    n->line = filter->line;
    n->col = filter->col;
    n->comment = filter->comment;
    return n;
}

void stream_replace(StreamNode *old, StreamNode *replacement)
{
    if (replacement->parent || replacement == old)
        builder_bug("replacement stream already has a parent", replacement->name);
    if (replacement->graph != old->graph)
        builder_bug("replacement stream of another graph", replacement->name);
    StreamNode *parent = old->parent;
    if (parent) {
        parent->children[old->index_in_parent] = replacement;
        replacement->parent = parent;
        replacement->index_in_parent = old->index_in_parent;
    } else if (old->graph->root == old) {
        old->graph->root = replacement;
    } else {
        builder_bug("replaced stream is neither in a container nor the root", old->name);
    }
    old->parent = NULL;
    old->index_in_parent = -1;
}

/* ---------------------------------------------------------------- queries */

const char *stream_kind_name(StreamKind k)
{
    switch (k) {
    case STREAM_FILTER: return "filter";
    case STREAM_PIPELINE: return "pipeline";
    case STREAM_SPLITJOIN: return "splitjoin";
    case STREAM_FEEDBACKLOOP: return "feedbackloop";
    }
    return "?";
}

const char *stream_node_keyword(const StreamNode *n)
{
    if (n->kind == STREAM_FILTER) {
        switch (n->filter.role) {
        case FILTER_WORK: return "filter";
        case FILTER_IDENTITY: return "identity";
        case FILTER_SEPARATOR: return "separator";
        }
    }
    return stream_kind_name(n->kind);
}

void stream_node_print_path(FILE *out, const StreamNode *n)
{
    if (n->parent) {
        stream_node_print_path(out, n->parent);
        fputc('/', out);
    }
    fputs(n->name, out);
}

int stream_node_depth(const StreamNode *n)
{
    int depth = 0;
    for (const StreamNode *p = n->parent; p; p = p->parent)
        depth++;
    return depth;
}

void stream_node_error(FILE *err, const StreamNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const StreamGraph *g = n->graph;
    if (n->line > 0 && g->file)
        stream_report_at(err, g->file, g->source, g->source_len, n->line, n->col, fmt, ap);
    else
        stream_report_at(err, NULL, NULL, 0, 0, 0, fmt, ap);
    va_end(ap);
}
