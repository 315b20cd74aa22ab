/* test_trace_log.c — the bounds of the --trace recorder (util/trace_log.c):
 * fed more runs, or more bytes, than its limits, the log keeps a bounded
 * size, counts what it dropped and says so in the trace (the "trace limit"
 * track name) and in trace_log_limit_note. Counts derived by hand below.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/util.h"

/* One run of `slices` firings (each slice event is ~120 bytes). */
static void feed_run(TraceLog *log, int slices)
{
    trace_log_begin_run(log);
    for (int i = 0; i < slices; i++)
        trace_log_slice(log, 0, "filter", "work", i * 1e-6, (i + 1) * 1e-6, NULL);
}

/* The log's events as a string: trace_log_events gives bytes and a length,
 * not a NUL-terminated text. */
static char *events_text(TraceLog *log, size_t *len)
{
    const char *events = trace_log_events(log, len);
    return strndup(events ? events : "", *len);
}

static int64_t count_slices(const char *events)
{
    int64_t n = 0;
    for (const char *p = events; (p = strstr(p, "\"ph\":\"X\"")); p++)
        n++;
    return n;
}

/* The run limit ends first: 5 runs of 10 slices with a limit of 3 runs
 * record 30 slices and drop 20. */
static void test_run_limit(void)
{
    TraceLog *log = trace_log_new(0);
    trace_log_set_limits(log, 3, 1 << 20);
    trace_log_track_name(log, 0, "filters");
    for (int r = 0; r < 5; r++)
        feed_run(log, 10);
    char note[256];
    CHECK(trace_log_limit_note(log, note, sizeof note));
    CHECK_CONTAINS(note, "recorded runs 1-3 of 5; 20 later events not recorded (limits: 3 runs, 1 MiB)");
    size_t len = 0;
    char *events = events_text(log, &len);
    CHECK_MSG(count_slices(events) == 30, "%lld", (long long)count_slices(events));
    CHECK_CONTAINS(events, "\"name\":\"trace limit: recorded runs 1-3 of 5");
    CHECK_CONTAINS(events, "\"name\":\"filters\"");        /* track names stay */
    /* asking again adds no second note */
    size_t again = 0;
    trace_log_events(log, &again);
    CHECK(again == len);
    free(events);
    trace_log_free(log);
}

/* The byte limit ends first: 1000 runs of 100 slices (~12 MB unbounded)
 * under a 64 KiB limit keep about 64 KiB (at most one event over). */
static void test_byte_limit(void)
{
    enum { LIMIT = 64 << 10, RUNS = 1000, SLICES = 100 };
    TraceLog *log = trace_log_new(0);
    trace_log_set_limits(log, 1000000, LIMIT);
    for (int r = 0; r < RUNS; r++)
        feed_run(log, SLICES);
    size_t len = 0;
    char *events = events_text(log, &len);
    char note[256];
    CHECK(trace_log_limit_note(log, note, sizeof note));
    int64_t kept = count_slices(events);
    CHECK_MSG(len < LIMIT + 512, "%zu bytes kept", len);
    CHECK(kept > 0 && kept < RUNS * SLICES);
    /* every event is either kept or counted */
    char expect[64];
    snprintf(expect, sizeof expect, "; %lld later events not recorded", (long long)(RUNS * SLICES - kept));
    CHECK_CONTAINS(note, expect);
    CHECK_CONTAINS(note, "(the last in part) of 1000");
    CHECK_CONTAINS(note, "(limits: 1000000 runs, 65536 bytes)");
    free(events);
    trace_log_free(log);
}

/* The defaults: a long --repeat keeps 100 runs; a log under its limits
 * says nothing. */
static void test_defaults(void)
{
    TraceLog *log = trace_log_new(0);
    for (int r = 0; r < 150; r++)
        feed_run(log, 2);
    char note[256];
    CHECK(trace_log_limit_note(log, note, sizeof note));
    CHECK_CONTAINS(note, "recorded runs 1-100 of 150; 100 later events not recorded (limits: 100 runs, 64 MiB)");
    trace_log_free(log);

    log = trace_log_new(0);
    feed_run(log, 2);
    CHECK(!trace_log_limit_note(log, note, sizeof note));
    size_t len = 0;
    char *events = events_text(log, &len);
    CHECK(!strstr(events, "trace limit"));
    free(events);
    trace_log_free(log);
}

int main(void)
{
    test_run_limit();
    test_byte_limit();
    test_defaults();
    return test_report("util_trace_log");
}
