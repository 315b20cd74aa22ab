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
 *     hierarchical.stream  --emit=stream of golden/hierarchical.str: a
 *                      hierarchical filter's inner stream in braces, one
 *                      nested in another, printed canonically
 *     hierarchical.schedule  its schedule: Loop one actor of the outer
 *                      schedule, then each inner stream's own schedule
 *                      (Body_L3 takes 2 items; Step and Inner pop 2 and
 *                      fire once, Cond's duplicate splitter, Test and the
 *                      Identity once per item, twice; 4 items out; Step2,
 *                      Inner's stream, once)
 *     hierarchical.dot  its picture: each hierarchical filter a cluster of
 *                      the filter and its inner stream, whose actor ids
 *                      carry the prefix h<filter id>_ (h2_h2_ one deeper)
 *     fission2.stream, fission2.schedule, fission3.stream, fission3.schedule
 *                      --fission=2 and 3 of golden/fission.str: its comment
 *                      derives the repetitions and which filters split; the
 *                      schedules were checked by hand (each copy fires its
 *                      share of the filter's firings; the init phase must
 *                      run the whole of Up_fission to give Bands' splitter
 *                      the 2 items that leave High its one extra item, so 4
 *                      items wait between them after it)
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
    int fission;        /* split eligible filters into this many copies first (0: no) */
} cases[] = {
    {"streamit/graphs/fir.str", EMIT_SCHEDULE, "streamit/golden/fir.schedule", 0},
    {"streamit/graphs/fir.str", EMIT_DOT, "streamit/golden/fir.dot", 0},
    {"streamit/graphs/echo.str", EMIT_SCHEDULE, "streamit/golden/echo.schedule", 0},
    {"streamit/graphs/separator.str", EMIT_DOT, "streamit/golden/separator.dot", 0},
    {"streamit/golden/messy.str", EMIT_STREAM, "streamit/golden/messy.stream", 0},
    {"streamit/golden/hierarchical.str", EMIT_STREAM, "streamit/golden/hierarchical.stream", 0},
    {"streamit/golden/hierarchical.str", EMIT_SCHEDULE, "streamit/golden/hierarchical.schedule", 0},
    {"streamit/golden/hierarchical.str", EMIT_DOT, "streamit/golden/hierarchical.dot", 0},
    {"streamit/golden/fission.str", EMIT_STREAM, "streamit/golden/fission2.stream", 2},
    {"streamit/golden/fission.str", EMIT_SCHEDULE, "streamit/golden/fission2.schedule", 2},
    {"streamit/golden/fission.str", EMIT_STREAM, "streamit/golden/fission3.stream", 3},
    {"streamit/golden/fission.str", EMIT_SCHEDULE, "streamit/golden/fission3.schedule", 3},
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
        if (cases[i].fission > 1) {
            Schedule *first = sched_build(g->root, stderr);
            if (first)
                sched_fission_all(first, cases[i].fission);
            sched_free(first);
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
