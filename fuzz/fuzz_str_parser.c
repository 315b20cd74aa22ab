/* fuzz_str_parser.c — libFuzzer target for the .str stream graph reader and
 * the scheduler behind it.
 *
 * Each input is parsed as .str text. When it parses, it is printed and the
 * printed text is parsed and printed again: the two printings must be
 * identical (printing is a fixpoint) and the second parse must succeed.
 * The graph is then scheduled; when that succeeds, the table, the JSON and
 * the dot picture are printed (to /dev/null), and the dot picture is printed
 * even when scheduling fails. Error messages go nowhere (err = NULL); a
 * crash, hang, leak, sanitizer report or broken fixpoint aborts, so
 * libFuzzer records the input.
 *
 * Seed corpus: the .str files under tests/streamit (graphs/ and golden/).
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_str_parser
 *   build-fuzz/fuzz/fuzz_str_parser SEEDS -max_total_time=60
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/schedule.h"
#include "tssa/stream.h"

static char *print_stream(const StreamNode *root, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    if (!f)
        abort();
    str_print(f, root);
    fclose(f);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    StreamGraph *g = str_parse((const char *)data, size, "fuzz.str", NULL);
    if (!g)
        return 0;
    size_t len1, len2;
    char *first = print_stream(g->root, &len1);
    StreamGraph *again = str_parse(first, len1, "printed.str", NULL);
    if (!again) {
        fprintf(stderr, "printed stream graph does not parse:\n%s", first);
        str_parse(first, len1, "printed.str", stderr);
        abort();
    }
    char *second = print_stream(again->root, &len2);
    if (len1 != len2 || memcmp(first, second, len1) != 0) {
        fprintf(stderr, "printing is not a fixpoint:\n--- first\n%s--- second\n%s", first, second);
        abort();
    }
    Schedule *s = sched_build(g->root, NULL);
    if (s) {
        sched_print_table(sink, s);
        sched_print_json(sink, s);
    }
    stream_print_dot(sink, g->root);
    sched_free(s);
    free(first);
    free(second);
    stream_graph_free(again);
    stream_graph_free(g);
    return 0;
}
