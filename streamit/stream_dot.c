/* stream_dot.c — prints a stream graph as Graphviz (dot).
 *
 * Nodes are the actors of the flat view (a<index>): filters as boxes,
 * splitters as triangles, joiners as inverted triangles, the external input
 * and output as plain text (only when they carry items). Every pipeline,
 * split-join and feedback loop is a cluster labelled with its kind and
 * name, nested as in the tree. Edges are the channels, labelled with the
 * producer's push and the consumer's pop (and peek, and enqueued items);
 * feedback channels are dashed, channels that carry no items dotted.
 *
 * A hierarchical filter is a cluster of the filter and its inner stream
 * (printed the same way, its ids prefixed with h<filter id>_, so a loop
 * body's actors and channels sit inside the loop's filter).
 *
 * Later issues add one cluster per rank and device from the placement.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamit/stream_internal.h"
#include "tssa/stream.h"
#include "tssa/util.h"

typedef struct DotMap {
    const StreamFlat *f;
    const char *prefix;     /* before every node and cluster id: "" at the top,
                             * "h<filter id>_" (nested: appended) inside a
                             * hierarchical filter's inner stream */
    int *filter_actor;      /* by node id: the filter's actor */
    int *split_actor;       /* by node id: the container's splitter */
    int *join_actor;        /* by node id: the container's joiner */
} DotMap;

/* The node's comment as dot comment lines. */
static void print_dot_comment(FILE *out, const StreamNode *n, int level)
{
    for (const char *s = n->comment; s && *s;) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        stream_print_indent(out, level);
        fprintf(out, "// %.*s\n", (int)len, s);
        s = end ? end + 1 : s + len;
    }
}

/* Text inside a dot "..." label: quotes and backslashes escaped, newlines
 * as label line breaks. */
static void print_label_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
}

static void print_filter_node(FILE *out, const char *prefix, int a, const StreamNode *n, int level)
{
    const StreamFilter *f = &n->filter;
    print_dot_comment(out, n, level);
    stream_print_indent(out, level);
    fprintf(out, "%sa%d [label=\"%s\\n", prefix, a, n->name);
    switch (f->role) {
    case FILTER_IDENTITY: fputs("identity", out); break;
    case FILTER_SEPARATOR: fprintf(out, "separator pop %" PRId64, f->pop); break;
    case FILTER_WORK:
        fprintf(out, "pop %" PRId64, f->pop);
        if (f->peek != f->pop)
            fprintf(out, " peek %" PRId64, f->peek);
        fprintf(out, " push %" PRId64, f->push);
        if (f->work_op)
            fprintf(out, "\\nwork %s", f->work_op);
        if (f->stateful)
            fputs("\\nstateful", out);
        break;
    }
    /* A short comment (a loop body's repetitions) belongs in the picture. */
    if (n->comment && strlen(n->comment) <= 60) {
        fputs("\\n", out);
        print_label_text(out, n->comment);
    }
    fputs("\"];\n", out);
}

static void print_splitter_node(FILE *out, const char *prefix, int a, const StreamNode *n, int level)
{
    stream_print_indent(out, level);
    fprintf(out, "%sa%d [shape=triangle, label=\"split ", prefix, a);
    if (n->split == SPLIT_DUPLICATE)
        fputs("duplicate", out);
    else
        stream_print_roundrobin(out, n->split_weights, n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren);
    fputs("\"];\n", out);
}

static void print_joiner_node(FILE *out, const char *prefix, int a, const StreamNode *n, int level)
{
    stream_print_indent(out, level);
    fprintf(out, "%sa%d [shape=invtriangle, label=\"join ", prefix, a);
    stream_print_roundrobin(out, n->join_weights, n->kind == STREAM_FEEDBACKLOOP ? 2 : n->nchildren);
    fputs("\"];\n", out);
}

static void print_graph(FILE *out, const StreamNode *root, const char *prefix, int level);

static void print_cluster(FILE *out, const DotMap *m, const StreamNode *n, int level)
{
    if (n->kind == STREAM_FILTER && n->filter.inner) {
        /* A hierarchical filter: a cluster of the filter and its inner
         * stream, whose ids carry the filter's prefix. */
        stream_print_indent(out, level);
        fprintf(out, "subgraph cluster_%sf%d {\n", m->prefix, n->id);
        stream_print_indent(out, level + 1);
        fprintf(out, "label=\"hierarchical filter %s: its inner stream, one steady state per "
                     "iteration\";\n", n->name);
        print_filter_node(out, m->prefix, m->filter_actor[n->id], n, level + 1);
        char inner[256];
        snprintf(inner, sizeof inner, "%sh%d_", m->prefix, n->id);
        print_graph(out, n->filter.inner, inner, level + 1);
        stream_print_indent(out, level);
        fputs("}\n", out);
        return;
    }
    if (n->kind == STREAM_FILTER) {
        print_filter_node(out, m->prefix, m->filter_actor[n->id], n, level);
        return;
    }
    print_dot_comment(out, n, level);
    stream_print_indent(out, level);
    fprintf(out, "subgraph cluster_%s%d {\n", m->prefix, n->id);
    stream_print_indent(out, level + 1);
    fprintf(out, "label=\"%s %s\";\n", stream_kind_name(n->kind), n->name);
    switch (n->kind) {
    case STREAM_FILTER: break;
    case STREAM_PIPELINE:
        for (int k = 0; k < n->nchildren; k++)
            print_cluster(out, m, n->children[k], level + 1);
        break;
    case STREAM_SPLITJOIN:
        print_splitter_node(out, m->prefix, m->split_actor[n->id], n, level + 1);
        for (int k = 0; k < n->nchildren; k++)
            print_cluster(out, m, n->children[k], level + 1);
        print_joiner_node(out, m->prefix, m->join_actor[n->id], n, level + 1);
        break;
    case STREAM_FEEDBACKLOOP:
        print_joiner_node(out, m->prefix, m->join_actor[n->id], n, level + 1);
        print_cluster(out, m, n->children[0], level + 1);
        print_splitter_node(out, m->prefix, m->split_actor[n->id], n, level + 1);
        print_cluster(out, m, n->children[1], level + 1);
        break;
    }
    stream_print_indent(out, level);
    fputs("}\n", out);
}

static bool carries_items(const StreamChannel *c)
{
    return c->push > 0 && c->pop > 0;
}

/* root's actors, clusters and channels, every id prefixed by prefix, each
 * line indented to level (the top: level 1). */
static void print_graph(FILE *out, const StreamNode *root, const char *prefix, int level)
{
    StreamFlat *f = stream_flatten(root);
    int nnodes = root->graph->nnodes;
    DotMap m = {.f = f, .prefix = prefix};
    m.filter_actor = xmalloc((size_t)nnodes * 3 * sizeof(int));
    m.split_actor = m.filter_actor + nnodes;
    m.join_actor = m.split_actor + nnodes;
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        int id = actor->node->id;
        if (actor->kind == ACTOR_FILTER)
            m.filter_actor[id] = a;
        else if (actor->kind == ACTOR_SPLITTER)
            m.split_actor[id] = a;
        else if (actor->kind == ACTOR_JOINER)
            m.join_actor[id] = a;
    }
    for (int a = 0; a < f->nactors; a++) {
        const StreamActor *actor = &f->actors[a];
        const char *label = NULL;
        if (actor->kind == ACTOR_INPUT && carries_items(&f->channels[actor->out[0]]))
            label = "input";
        if (actor->kind == ACTOR_OUTPUT && carries_items(&f->channels[actor->in[0]]))
            label = "output";
        if (label) {
            stream_print_indent(out, level);
            fprintf(out, "%sa%d [shape=plaintext, label=\"%s\"];\n", prefix, a, label);
        }
    }
    print_cluster(out, &m, root, level);
    for (int c = 0; c < f->nchannels; c++) {
        const StreamChannel *ch = &f->channels[c];
        bool external = f->actors[ch->src].kind == ACTOR_INPUT || f->actors[ch->dst].kind == ACTOR_OUTPUT;
        if (external && !carries_items(ch))
            continue;
        stream_print_indent(out, level);
        fprintf(out, "%sa%d -> %sa%d [label=\"push %" PRId64 ", pop %" PRId64, prefix, ch->src, prefix,
                ch->dst, ch->push, ch->pop);
        if (ch->peek > ch->pop)
            fprintf(out, ", peek %" PRId64, ch->peek);
        if (ch->initial > 0)
            fprintf(out, ", enqueued %" PRId64, ch->initial);
        fputc('"', out);
        if (ch->feedback)
            fputs(", style=dashed", out);
        else if (!carries_items(ch))
            fputs(", style=dotted", out);
        fputs("];\n", out);
    }
    free(m.filter_actor);
    stream_flat_free(f);
}

void stream_print_dot(FILE *out, const StreamNode *root)
{
    fprintf(out, "digraph \"%s\" {\n", root->name);
    if (!stream_check(root, NULL)) {
        fputs("  label=\"invalid stream graph (an empty container or too deep)\";\n}\n", out);
        return;
    }
    fputs("  node [shape=box];\n", out);
    print_graph(out, root, "", 1);
    fputs("}\n", out);
}
