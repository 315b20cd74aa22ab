/* test_stream_graphs.c — the hand-written benchmark graphs of tests/streamit/graphs.
 *
 * Each .str file derives its repetition vector (and init firings) by hand
 * in its comments and states them in lines the test reads:
 *     // expect reps PATTERN N      actors whose path matches PATTERN fire N
 *                                   times per steady state
 *     // expect init PATTERN N      ... fire N times in the init phase
 *     // expect items_in N          items the graph takes per steady state
 *     // expect items_out N         ... and gives
 * PATTERN is a shell pattern (fnmatch, '*' also crosses '/'); when several
 * match an actor, the longest pattern wins. Every actor must be covered by a
 * reps line (so the whole vector is stated), actors without an init line
 * must fire 0 times in the init phase, and every pattern must match.
 *
 * For every file the test also checks that printing is a fixpoint
 * (print(parse(print(parse(x)))) == print(parse(x))) and runs the
 * independent token simulator (token_sim.h) on the schedule.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/stream_test_util.h"
#include "scheduler/token_sim.h"
#include "test_util.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

enum { MAX_EXPECT = 256 };

typedef struct Expect {
    char what[16];      /* "reps", "init", "items_in", "items_out" */
    char pattern[256];
    long long value;
    int matches;
} Expect;

static void failf(const char *file, const char *fmt, const char *a, long long b, long long c)
{
    fprintf(stderr, "FAIL %s: ", file);
    fprintf(stderr, fmt, a, b, c);
    fputc('\n', stderr);
    test_failures++;
}

static int read_expectations(const char *text, Expect *e)
{
    int n = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "// expect ", 10) != 0)
            continue;
        Expect x = {0};
        if (sscanf(line + 10, "%15s", x.what) != 1)
            continue;
        if (strcmp(x.what, "items_in") == 0 || strcmp(x.what, "items_out") == 0) {
            if (sscanf(line + 10, "%*s %lld", &x.value) != 1)
                continue;
        } else if (sscanf(line + 10, "%*s %255s %lld", x.pattern, &x.value) != 2) {
            continue;
        }
        if (n < MAX_EXPECT)
            e[n++] = x;
    }
    return n;
}

/* The expectation for (what, path): the longest matching pattern, or NULL. */
static Expect *lookup(Expect *e, int n, const char *what, const char *path)
{
    Expect *best = NULL;
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].what, what) == 0 && fnmatch(e[i].pattern, path, 0) == 0 &&
            (!best || strlen(e[i].pattern) > strlen(best->pattern)))
            best = &e[i];
    if (best)
        best->matches++;
    return best;
}

static void check_file(const char *path)
{
    size_t len;
    char *text = test_read_file(path, &len);
    if (!text) {
        failf(path, "cannot read%s (%lld, %lld)", "", 0, 0);
        return;
    }
    Expect e[MAX_EXPECT];
    int n = read_expectations(text, e);
    StreamGraph *g = str_parse(text, len, path, stderr);
    free(text);
    if (!g) {
        failf(path, "does not parse%s (%lld, %lld)", "", 0, 0);
        return;
    }
    /* Printing is a fixpoint. */
    char *once = stream_text(g->root);
    StreamGraph *again = str_parse(once, strlen(once), "printed", stderr);
    char *twice = again ? stream_text(again->root) : NULL;
    if (!twice || strcmp(once, twice) != 0)
        failf(path, "printing is not a fixpoint%s (%lld, %lld)", "", 0, 0);
    free(once);
    free(twice);
    stream_graph_free(again);

    Schedule *s = sched_build(g->root, stderr);
    if (!s) {
        failf(path, "does not schedule%s (%lld, %lld)", "", 0, 0);
        stream_graph_free(g);
        return;
    }
    if (!token_sim_check(s, stderr))
        failf(path, "the token simulator rejects the schedule%s (%lld, %lld)", "", 0, 0);
    int checked = 0;
    for (int a = 0; a < s->flat->nactors; a++) {
        const StreamActor *actor = &s->flat->actors[a];
        char *apath = NULL;
        size_t alen = 0;
        FILE *m = open_memstream(&apath, &alen);
        stream_actor_print_path(m, actor);
        fclose(m);
        bool external = actor->kind == ACTOR_INPUT || actor->kind == ACTOR_OUTPUT;
        const char *io = actor->kind == ACTOR_INPUT ? "items_in" : "items_out";
        Expect *reps = external ? lookup(e, n, io, "") : lookup(e, n, "reps", apath);
        if (!reps)
            failf(path, "no expected repetitions for %s (%lld, %lld)", apath, 0, 0);
        else if (reps->value != s->repetitions[a])
            failf(path, "%s fires %lld times per steady state, expected %lld", apath, (long long)s->repetitions[a],
                  reps->value);
        else
            checked++;
        Expect *init = lookup(e, n, "init", apath);
        long long want_init = init ? init->value : 0;
        if (want_init != s->init_firings[a])
            failf(path, "%s fires %lld times in the init phase, expected %lld", apath, (long long)s->init_firings[a],
                  want_init);
        free(apath);
    }
    for (int i = 0; i < n; i++)
        if (e[i].matches == 0)
            failf(path, "expectation '%s' matches no actor (%lld, %lld)", e[i].pattern[0] ? e[i].pattern : e[i].what,
                  0, 0);
    printf("%s: %d actors, repetitions and init firings as derived by hand\n", path, checked);
    sched_free(s);
    stream_graph_free(g);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    const char *dir_path = "streamit/graphs";
    DIR *dir = opendir(dir_path);
    if (!dir) {
        fprintf(stderr, "FAIL: cannot open %s (run from tests/)\n", dir_path);
        return 1;
    }
    char *names[256];
    int count = 0;
    struct dirent *d;
    while ((d = readdir(dir)) && count < 256) {
        size_t l = strlen(d->d_name);
        if (l > 4 && strcmp(d->d_name + l - 4, ".str") == 0) {
            names[count] = malloc(strlen(dir_path) + l + 2);
            sprintf(names[count], "%s/%s", dir_path, d->d_name);
            count++;
        }
    }
    closedir(dir);
    qsort(names, (size_t)count, sizeof *names, compare_names);
    if (count < 10) {
        fprintf(stderr, "FAIL: only %d graphs found in %s\n", count, dir_path);
        test_failures++;
    }
    for (int i = 0; i < count; i++) {
        check_file(names[i]);
        free(names[i]);
    }
    if (test_failures)
        return test_report("stream_graphs");
    printf("all %d graphs pass\n", count);
    return 0;
}
