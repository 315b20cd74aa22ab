/* stream_check.c — structural checks of a built stream graph.
 *
 * The builder can only check one node at a time; whether a container ended
 * up with children, and how deep the tree is, is known only once it is
 * built. The reader reports the same conditions while parsing, so this
 * check matters for graphs built in code (tests, the lowering).
 */
#include <stdio.h>

#include "tssa/stream.h"

static bool check(const StreamNode *n, int depth, FILE *err)
{
    /* Like the reader: depth counts the enclosing streams, at most
     * STREAM_MAX_DEPTH - 1, so every checked graph prints as readable text. */
    if (depth >= STREAM_MAX_DEPTH) {
        stream_node_error(err, n, "%s %s: streams nested deeper than %d levels", stream_node_keyword(n), n->name,
                          STREAM_MAX_DEPTH);
        return false;
    }
    switch (n->kind) {
    case STREAM_FILTER:
        /* A hierarchical filter's inner stream nests one level deeper. */
        return !n->filter.inner || check(n->filter.inner, depth + 1, err);
    case STREAM_PIPELINE:
        if (n->nchildren == 0) {
            stream_node_error(err, n, "pipeline %s has no stages", n->name);
            return false;
        }
        break;
    case STREAM_SPLITJOIN:
        if (n->nchildren == 0) {
            stream_node_error(err, n, "splitjoin %s has no branches", n->name);
            return false;
        }
        break;
    case STREAM_FEEDBACKLOOP: break;
    }
    for (int k = 0; k < n->nchildren; k++)
        if (!check(n->children[k], depth + 1, err))
            return false;
    return true;
}

bool stream_check(const StreamNode *root, FILE *err)
{
    return check(root, 0, err);
}
