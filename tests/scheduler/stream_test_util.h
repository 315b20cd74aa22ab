/* stream_test_util.h — what the stream-graph tests share beyond
 * tests/test_util.h: a graph printed in the .str syntax as a string, for
 * comparing with expected text and for parse-print round trips.
 */
#ifndef TSSA_TESTS_STREAM_TEST_UTIL_H
#define TSSA_TESTS_STREAM_TEST_UTIL_H

#include "test_util.h"
#include "tssa/stream.h"

/* str_print's output for the graph under root (malloc'd). */
static inline char *stream_text(const StreamNode *root)
{
    FILE *f = test_capture_open();
    str_print(f, root);
    return test_capture_close(f, NULL);
}

#endif
