/* str_printer.c — prints a stream graph in the .str text form.
 *
 * The output is canonical, so that print(parse(text)) is a fixpoint: two
 * spaces per nesting level; filter clauses in the order pop, peek, push,
 * stateful, work, with pop and push left out when 0 and peek when it equals
 * pop (a hierarchical filter then its inner stream in braces); every round-robin with its full weight list; feedback loop clauses in
 * the order join, body, loop, split, enqueue (always written); identity and
 * separator names only when they differ from the default.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "streamit/stream_internal.h"
#include "tssa/stream.h"

static void print_splitter(FILE *out, const StreamNode *n)
{
    if (n->split == SPLIT_DUPLICATE)
        fputs("duplicate", out);
    else
        stream_print_roundrobin(out, n->split_weights, n->nchildren);
}

static void print_child(FILE *out, const StreamNode *n, int level, const char *prefix);

static void print_filter(FILE *out, const StreamNode *n, int level)
{
    const StreamFilter *f = &n->filter;
    switch (f->role) {
    case FILTER_IDENTITY:
        fputs("identity", out);
        if (strcmp(n->name, "Identity") != 0)
            fprintf(out, " %s", n->name);
        fputs(";\n", out);
        return;
    case FILTER_SEPARATOR:
        fputs("separator", out);
        if (strcmp(n->name, "Separator") != 0)
            fprintf(out, " %s", n->name);
        fprintf(out, " pop %" PRId64 ";\n", f->pop);
        return;
    case FILTER_WORK:
        break;
    }
    fprintf(out, "filter %s", n->name);
    if (f->pop)
        fprintf(out, " pop %" PRId64, f->pop);
    if (f->peek != f->pop)
        fprintf(out, " peek %" PRId64, f->peek);
    if (f->push)
        fprintf(out, " push %" PRId64, f->push);
    if (f->stateful)
        fputs(" stateful", out);
    if (f->work_op)
        fprintf(out, " work %s", f->work_op);
    if (!f->inner) {
        fputs(";\n", out);
        return;
    }
    /* A hierarchical filter: its inner stream, one level deeper. */
    fputs(" {\n", out);
    print_child(out, f->inner, level + 1, "");
    stream_print_indent(out, level);
    fputs("}\n", out);
}

static void print_stream(FILE *out, const StreamNode *n, int level);

/* The comment lines of n, each indented to `level`. */
static void print_comment(FILE *out, const StreamNode *n, int level)
{
    for (const char *s = n->comment; s && *s;) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        stream_print_indent(out, level);
        fprintf(out, "// %.*s\n", (int)len, s);
        s = end ? end + 1 : s + len;
    }
}

/* A child of a container at `level`: its comment, then the indent, the
 * prefix ("body ", "loop " or none) and the stream. */
static void print_child(FILE *out, const StreamNode *n, int level, const char *prefix)
{
    print_comment(out, n, level);
    stream_print_indent(out, level);
    fputs(prefix, out);
    print_stream(out, n, level);
}

/* Prints n starting at the current column (the caller wrote its comment,
 * the indent or a "body " prefix); nested lines are indented by level + 1. */
static void print_stream(FILE *out, const StreamNode *n, int level)
{
    switch (n->kind) {
    case STREAM_FILTER:
        print_filter(out, n, level);
        return;
    case STREAM_PIPELINE:
        fprintf(out, "pipeline %s {\n", n->name);
        for (int k = 0; k < n->nchildren; k++)
            print_child(out, n->children[k], level + 1, "");
        break;
    case STREAM_SPLITJOIN:
        fprintf(out, "splitjoin %s {\n", n->name);
        stream_print_indent(out, level + 1);
        fputs("split ", out);
        print_splitter(out, n);
        fputs(";\n", out);
        for (int k = 0; k < n->nchildren; k++)
            print_child(out, n->children[k], level + 1, "");
        stream_print_indent(out, level + 1);
        fputs("join ", out);
        stream_print_roundrobin(out, n->join_weights, n->nchildren);
        fputs(";\n", out);
        break;
    case STREAM_FEEDBACKLOOP:
        fprintf(out, "feedbackloop %s {\n", n->name);
        stream_print_indent(out, level + 1);
        fputs("join ", out);
        stream_print_roundrobin(out, n->join_weights, 2);
        fputs(";\n", out);
        print_child(out, n->children[0], level + 1, "body ");
        print_child(out, n->children[1], level + 1, "loop ");
        stream_print_indent(out, level + 1);
        fputs("split ", out);
        if (n->split == SPLIT_DUPLICATE)
            fputs("duplicate", out);
        else
            stream_print_roundrobin(out, n->split_weights, 2);
        fputs(";\n", out);
        stream_print_indent(out, level + 1);
        fprintf(out, "enqueue %" PRId64 ";\n", n->enqueued);
        break;
    }
    stream_print_indent(out, level);
    fputs("}\n", out);
}

void str_print(FILE *out, const StreamNode *root)
{
    print_child(out, root, 0, "");
}
