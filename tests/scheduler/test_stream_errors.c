/* test_stream_errors.c — bad stream graphs get one clear, located error.
 *
 * Each case is a .str text (named t.str in messages) and the exact first
 * line of the message it must produce: from the reader (syntax, rates,
 * weight counts, nesting) or from the scheduler (inconsistent rates,
 * unconnected streams, overflow, deadlocked feedback loops). The message must be followed by the source line and a
 * caret line, and the reader or scheduler must return NULL, never crash.
 * The expected texts were written from the rules in FORMAT.md and
 * schedule.h, with columns counted by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/schedule.h"
#include "tssa/stream.h"

typedef struct Case {
    const char *text;
    const char *message;    /* first line of the error */
    const char *caret;      /* the caret line, or NULL to check only that one exists */
} Case;

static const Case cases[] = {
    /* ---- reader */
    {"pipeline P { filter A pop 1 push 1 }", "t.str:1:36: error: expected ';' after the filter, found '}'",
     "                                   ^"},
    {"pipeline P { filter A pop 1 push 1; filter B pop 2 peek 1 push 1; }",
     "t.str:1:52: error: filter B: peek 1 is smaller than pop 2", NULL},
    {"filter A peek 2;", "t.str:1:10: error: filter A: a filter that pops nothing cannot peek", NULL},
    {"filter A pop 1 pop 2;", "t.str:1:16: error: filter A: 'pop' given twice", NULL},
    {"filter A pop 1 stateful stateful;", "t.str:1:25: error: filter A: 'stateful' given twice", NULL},
    {"filter A pop 1 push 2 drop 3;",
     "t.str:1:23: error: filter A: expected pop, peek, push, stateful, work, ';' or '{', found 'drop'", NULL},
    /* a hierarchical filter: one inner stream in braces */
    {"filter W pop 1 push 1 { filter B pop 1 push 1; filter C; }",
     "t.str:1:48: error: expected '}' after the filter's inner stream, found 'filter'", NULL},
    {"filter W pop 1 push 1 { }",
     "t.str:1:25: error: expected a stream (filter, identity, separator, pipeline, splitjoin or feedbackloop), found '}'",
     NULL},
    {"splitjoin S { split roundrobin(1, 2, 3); filter A pop 1 push 1; filter B pop 1 push 1; join roundrobin; }",
     "t.str:1:21: error: splitjoin S: the splitter has 3 weights for 2 branches", NULL},
    {"splitjoin S { split duplicate; filter A pop 1 push 1; join roundrobin(1, 1); }",
     "t.str:1:60: error: splitjoin S: the joiner has 2 weights for 1 branches", NULL},
    {"splitjoin S { split duplicate; join roundrobin; }",
     "t.str:1:32: error: splitjoin S: expected a branch (a stream) after the splitter, found 'join'", NULL},
    {"splitjoin S { split roundrobin(1,); filter A pop 1; join roundrobin; }",
     "t.str:1:34: error: expected a weight (a number), found ')'", NULL},
    {"splitjoin S { split sideways; }", "t.str:1:21: error: expected 'duplicate' or 'roundrobin' for the splitter, found 'sideways'",
     "                    ^"},
    {"feedbackloop L { join roundrobin(1, 1, 1); body identity; loop identity; split duplicate; }",
     "t.str:1:23: error: feedbackloop L: the joiner has 3 weights for 2 ports (outside, loop path)", NULL},
    {"feedbackloop L { join roundrobin; loop identity; split duplicate; }",
     "t.str:1:67: error: feedbackloop L has no 'body' clause", NULL},
    {"feedbackloop L { join roundrobin; body identity; body identity; }",
     "t.str:1:50: error: feedbackloop L: 'body' given twice", NULL},
    {"feedbackloop L { join roundrobin; body identity; loop identity; split duplicate; enqueue; }",
     "t.str:1:89: error: expected the number of enqueued items (a number), found ';'", NULL},
    {"pipeline P { }", "t.str:1:14: error: pipeline P has no stages", NULL},
    {"pipeline pop { }", "t.str:1:10: error: expected the name of the pipeline, found keyword 'pop'", NULL},
    {"pipeline P { filter A work 3; }", "t.str:1:28: error: expected an op name after 'work' (like aten::add)", NULL},
    {"pipeline P { filter A pop 1 @ }", "t.str:1:29: error: unexpected character '@'", NULL},
    {"pipeline P {\n  filter A pop 1x;\n}", "t.str:2:17: error: a number runs into a name here", "                ^"},
    {"filter A pop 99999999999999999999;", "t.str:1:14: error: number 99999999999999999999 is too large (the limit is 2^40)",
     NULL},
    {"filter A pop 1099511627777;", "t.str:1:14: error: number 1099511627777 is too large (the limit is 2^40)", NULL},
    {"pipeline P {\n  /* never closed\n", "t.str:2:3: error: unterminated comment", "  ^"},
    {"", "t.str:1:1: error: expected a stream (filter, identity, separator, pipeline, splitjoin or feedbackloop), "
         "found the end of the input", "^"},
    {"filter A pop 1; filter B pop 1;", "t.str:1:17: error: expected the end of the input after the top stream, found 'filter'",
     NULL},
    {"identity 3;", "t.str:1:10: error: expected ';' after identity, found '3'", NULL},
    {"separator pop 0;", "t.str:1:15: error: a separator pops at least 1 item", NULL},
    {"separator Drop;", "t.str:1:15: error: expected 'pop', found ';'", NULL},
    {"\x01\x02", "t.str:1:1: error: unexpected byte 0x01", NULL},
    {"\tfilter \xc3\xa9 pop 1;", "t.str:1:9: error: unexpected byte 0xc3", "\t       ^"},
    /* ---- scheduler: rates */
    {"splitjoin Equalizer { split duplicate; filter Band1 pop 1 push 1; filter Band2 pop 1 push 3; join roundrobin(1, 2); }",
     "t.str:1:67: error: splitjoin Equalizer: branch 2 (filter Band2) produces 3 items for every 2 the joiner takes "
     "from it (branch 1 sets the joiner's rate)", NULL},
    {"feedbackloop Loop { join roundrobin(1, 1); body filter B pop 1 push 1; loop filter L pop 1 push 2; "
     "split duplicate; enqueue 1; }",
     "t.str:1:1: error: feedbackloop Loop: the loop path returns 4 items for every 1 the joiner takes from it", NULL},
    {"pipeline P { filter A pop 1; filter B push 1; }",
     "t.str:1:30: error: pipeline P: filter A and filter B are not connected: A produces no items and B consumes none",
     NULL},
    {"pipeline P { filter A push 1; filter B; }",
     "t.str:1:31: error: pipeline P: channel A -> B: A produces items but B consumes none", NULL},
    {"pipeline P { filter A; filter B pop 1; }",
     "t.str:1:24: error: pipeline P: channel A -> B: B consumes items but A produces none", NULL},
    {"splitjoin S { split duplicate; filter A pop 1 push 1; filter Src push 1; join roundrobin(1, 1); }",
     "t.str:1:55: error: splitjoin S: the splitter sends items to branch 2 (filter Src), which consumes none", NULL},
    {"splitjoin S { split roundrobin(1, 0); filter A pop 1 push 1; filter B pop 1 push 1; join roundrobin(1, 1); }",
     "t.str:1:62: error: splitjoin S: branch 2 (filter B) consumes items but the splitter sends it none (weight 0)", NULL},
    {"splitjoin S { split duplicate; filter A pop 1 push 1; filter B pop 1 push 1; join roundrobin(1, 0); }",
     "t.str:1:55: error: splitjoin S: branch 2 (filter B) produces items but the joiner takes none from it (weight 0)",
     NULL},
    {"splitjoin S { split duplicate; filter A pop 1 push 1; separator pop 1; join roundrobin(1, 1); }",
     "t.str:1:55: error: splitjoin S: the joiner takes items from branch 2 (separator Separator), which produces none",
     NULL},
    {"splitjoin S { split roundrobin(0, 1); filter Z; filter A pop 1 push 1; join roundrobin(0, 1); }",
     "t.str:1:39: error: splitjoin S: branch 1 (filter Z) is connected to neither the splitter nor the joiner", NULL},
    {"splitjoin S { split roundrobin(1, 0); filter Sink pop 1; filter Src push 1; join roundrobin(0, 1); }",
     "t.str:1:1: error: splitjoin S: no branch carries items from the splitter to the joiner", NULL},
    {"feedbackloop L { join roundrobin(1, 0); body identity; loop identity; split duplicate; }",
     "t.str:1:1: error: feedbackloop L: the joiner takes nothing from the loop path (loop weight 0)", NULL},
    {"feedbackloop L { join roundrobin(1, 1); body filter B pop 1; loop identity; split duplicate; }",
     "t.str:1:1: error: feedbackloop L: the body produces no items", NULL},
    {"pipeline P { filter A push 1099511627776; filter B pop 1 push 1099511627776; "
     "filter C pop 1 push 1099511627776; filter D pop 1; }",
     "t.str:1:1: error: pipeline P: the rates overflow 64-bit arithmetic", NULL},
    /* ---- scheduler: deadlocks */
    {"feedbackloop Echo { join roundrobin(1, 1); body filter Add pop 2 push 1; loop filter Delay pop 1 push 1; "
     "split duplicate; enqueue 0; }",
     "t.str:1:1: error: feedbackloop Echo: deadlock in the steady phase: the joiner waits for items from the loop path "
     "(it takes 1 per firing; 0 enqueued items); enqueue more items", "^"},
    {"pipeline P { filter S push 1; feedbackloop Echo { join roundrobin(1, 1); body filter Add pop 2 push 1; "
     "loop filter Average pop 1 peek 3 push 1; split duplicate; enqueue 1; } filter T pop 1; }",
     "t.str:1:31: error: feedbackloop Echo: deadlock: the init phase grows without bound: filter Average peeks 2 items "
     "beyond what it pops, more than the loop can hold with 1 enqueued item", NULL},
    {"pipeline P { filter S push 1; feedbackloop Echo { join roundrobin(1, 1); body filter Add pop 2 push 1; "
     "loop filter Average pop 1 peek 3 push 1; split duplicate; enqueue 2; } filter T pop 1; }",
     "t.str:1:31: error: feedbackloop Echo: deadlock in the steady phase: the joiner waits for items from the loop path "
     "(it takes 1 per firing; 2 enqueued items); enqueue more items", NULL},
};

static int check_case(int index, const Case *c)
{
    char *out = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&out, &len);
    StreamGraph *g = str_parse(c->text, strlen(c->text), "t.str", err);
    Schedule *s = NULL;
    if (g)
        s = sched_build(g->root, err);
    fclose(err);
    int failed = 0;
    if (g && s) {
        fprintf(stderr, "FAIL case %d: no error for\n  %s\n", index, c->text);
        failed = 1;
    } else {
        char *first_end = strchr(out, '\n');
        size_t first_len = first_end ? (size_t)(first_end - out) : strlen(out);
        char *second = first_end ? first_end + 1 : NULL;
        char *second_end = second ? strchr(second, '\n') : NULL;
        char *third = second_end ? second_end + 1 : NULL;
        char *third_end = third ? strchr(third, '\n') : NULL;
        if (first_len != strlen(c->message) || strncmp(out, c->message, first_len) != 0) {
            fprintf(stderr, "FAIL case %d:\n  got:      %.*s\n  expected: %s\n", index, (int)first_len, out, c->message);
            failed = 1;
        } else if (!third_end || third_end[1] != '\0' || !strchr(third, '^')) {
            fprintf(stderr, "FAIL case %d: no source line and caret after the message:\n%s", index, out);
            failed = 1;
        } else if (c->caret && ((size_t)(third_end - third) != strlen(c->caret) ||
                                strncmp(third, c->caret, strlen(c->caret)) != 0)) {
            fprintf(stderr, "FAIL case %d: caret line\n  got:      '%.*s'\n  expected: '%s'\n", index,
                    (int)(third_end - third), third, c->caret);
            failed = 1;
        }
    }
    free(out);
    sched_free(s);
    stream_graph_free(g);
    return failed;
}

/* Nesting deeper than STREAM_MAX_DEPTH is refused, not a stack overflow. */
static int check_deep_nesting(void)
{
    int levels = 100000;
    char *text = malloc((size_t)levels * 14 + 64);
    char *p = text;
    for (int i = 0; i < levels; i++)
        p += sprintf(p, "pipeline p {\n");
    strcpy(p, "filter x;");
    char *out = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&out, &len);
    StreamGraph *g = str_parse(text, strlen(text), "t.str", err);
    fclose(err);
    const char *want = "t.str:257:1: error: streams nested deeper than 256 levels";
    int failed = g != NULL || strncmp(out, want, strlen(want)) != 0;
    if (failed)
        fprintf(stderr, "FAIL deep nesting: %s", out);
    stream_graph_free(g);
    free(out);
    free(text);
    return failed;
}

/* Graphs built in code have no text: "error: WHAT", and sched_build checks
 * what the builder could not (an empty container). */
static int check_built_graphs(void)
{
    int failed = 0;
    StreamGraph *g = stream_graph_new();
    StreamNode *p = stream_pipeline_new(g, "Outer");
    StreamNode *empty = stream_splitjoin_new(g, "Nothing", SPLIT_DUPLICATE);
    stream_pipeline_add(p, stream_filter_new(g, "A", 0, 0, 1));
    stream_pipeline_add(p, empty);
    char *out = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&out, &len);
    Schedule *s = sched_build(p, err);
    fclose(err);
    if (s || strcmp(out, "error: splitjoin Nothing has no branches\n") != 0) {
        fprintf(stderr, "FAIL built graph: %s", out);
        failed = 1;
    }
    free(out);
    sched_free(s);
    stream_graph_free(g);
    return failed;
}

int main(void)
{
    int failures = 0;
    int n = (int)(sizeof cases / sizeof *cases);
    for (int i = 0; i < n; i++)
        failures += check_case(i, &cases[i]);
    failures += check_deep_nesting();
    failures += check_built_graphs();
    if (str_parse_file("streamit/no/such/file.str", NULL) != NULL)
        failures++;
    printf("%d error cases, %d failures\n", n + 3, failures);
    return failures ? 1 : 0;
}
