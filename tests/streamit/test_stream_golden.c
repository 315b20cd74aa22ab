/* test_stream_golden.c — printed forms of a few graphs against golden files.
 *
 * The goldens in tests/streamit/golden were written by hand from the formats
 * documented in str_printer.c, stream_dot.c and schedule_table.c (column
 * widths counted, schedules derived as in the graphs' comments), then
 * compared with the output; a behaviour change shows as a readable diff:
 *     fir.schedule     --emit=schedule of graphs/fir.str (peek, external
 *                      input and output, init phase)
 *     fir.dot          --emit=dot of graphs/fir.str
 *     echo.schedule    --emit=schedule of graphs/echo.str (feedback loop,
 *                      enqueued items, hidden input and output)
 *     separator.dot    --emit=dot of graphs/separator.str (a channel that
 *                      carries no items)
 *     messy.stream     --emit=stream of golden/messy.str (canonical
 *                      printing of untidy input)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

typedef enum Emit { EMIT_STREAM, EMIT_SCHEDULE, EMIT_DOT } Emit;

static const struct {
    const char *input;
    Emit emit;
    const char *golden;
} cases[] = {
    {"streamit/graphs/fir.str", EMIT_SCHEDULE, "streamit/golden/fir.schedule"},
    {"streamit/graphs/fir.str", EMIT_DOT, "streamit/golden/fir.dot"},
    {"streamit/graphs/echo.str", EMIT_SCHEDULE, "streamit/golden/echo.schedule"},
    {"streamit/graphs/separator.str", EMIT_DOT, "streamit/golden/separator.dot"},
    {"streamit/golden/messy.str", EMIT_STREAM, "streamit/golden/messy.stream"},
};

/* Reports the first line where got and want differ. */
static void report_difference(const char *golden, const char *got, const char *want)
{
    int line = 1;
    while (*got && *got == *want) {
        if (*got == '\n')
            line++;
        got++;
        want++;
    }
    while (line > 1 && got[-1] != '\n')
        got--, want--;
    fprintf(stderr, "FAIL %s: line %d differs\n  got:      %.*s\n  expected: %.*s\n", golden, line,
            (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
}

int main(void)
{
    int failures = 0;
    int n = (int)(sizeof cases / sizeof *cases);
    for (int i = 0; i < n; i++) {
        StreamGraph *g = str_parse_file(cases[i].input, stderr);
        char *want = test_read_file(cases[i].golden, NULL);
        if (!g || !want) {
            fprintf(stderr, "FAIL: cannot read %s or %s (run from tests/)\n", cases[i].input, cases[i].golden);
            failures++;
            stream_graph_free(g);
            free(want);
            continue;
        }
        char *got = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&got, &len);
        switch (cases[i].emit) {
        case EMIT_STREAM: str_print(out, g->root); break;
        case EMIT_DOT: stream_print_dot(out, g->root); break;
        case EMIT_SCHEDULE: {
            Schedule *s = sched_build(g->root, stderr);
            if (s)
                sched_print_table(out, s);
            sched_free(s);
            break;
        }
        }
        fclose(out);
        if (strcmp(got, want) != 0) {
            report_difference(cases[i].golden, got, want);
            failures++;
        }
        free(got);
        free(want);
        stream_graph_free(g);
    }
    printf("%d goldens, %d failures\n", n, failures);
    return failures ? 1 : 0;
}
