/* trace_log.c — a recorder of Chrome trace events (the JSON format that
 * Perfetto and chrome://tracing open), for `--trace FILE.json`.
 *
 * Each rank records its own events: complete slices ("ph":"X": a firing,
 * with its filter and source line), flow starts and ends ("s"/"f": one
 * message between ranks, drawn as an arrow from the sending firing to the
 * receiving one) and track names ("M"). Times are seconds on a clock the
 * ranks share (world_seconds), written in microseconds. The driver gathers
 * every rank's events on rank 0, which writes the file once, through a
 * temporary name and rename(), so a failed run leaves no half trace.
 * Every event ends with ",\n", so the ranks' texts concatenate; the writer
 * drops the last comma.
 * Bounds: a trace of --repeat 1000000 would need tens of GB, and a loop
 * that fires millions of times a file no viewer opens. A rank records the
 * first TRACE_MAX_RUNS runs (the executor calls trace_log_begin_run) and at
 * most TRACE_MAX_BYTES of events, whichever ends first; after that events
 * are only counted. What was left out is said in the trace itself (the
 * name of an extra track, "trace limit: ...") and, through
 * trace_log_limit_note, by the driver on stderr. Track names are always
 * kept (a few, written before the runs).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tssa/diag.h"
#include "tssa/util.h"

struct TraceLog {
    TextBuf events;         /* comma-separated event objects */
    int pid;
    int64_t max_runs;
    size_t max_bytes;
    int64_t runs;           /* trace_log_begin_run calls */
    int64_t runs_recorded;  /* runs begun before recording stopped */
    bool stopped;           /* a limit was reached: events are only counted */
    bool stopped_in_run;    /* by the byte limit, part way through a run */
    int64_t dropped;        /* events counted, not recorded */
    bool noted;             /* the limit's track name is written */
};

TraceLog *trace_log_new(int pid)
{
    TraceLog *log = xcalloc(1, sizeof *log);
    log->pid = pid;
    log->max_runs = TRACE_MAX_RUNS;
    log->max_bytes = TRACE_MAX_BYTES;
    return log;
}

void trace_log_set_limits(TraceLog *log, int64_t max_runs, size_t max_bytes)
{
    log->max_runs = max_runs;
    log->max_bytes = max_bytes;
}

void trace_log_begin_run(TraceLog *log)
{
    if (!log)
        return;
    log->runs++;
    if (!log->stopped && log->runs > log->max_runs)
        log->stopped = true;
    if (!log->stopped)
        log->runs_recorded = log->runs;
}

void trace_log_free(TraceLog *log)
{
    if (!log)
        return;
    textbuf_release(&log->events);
    free(log);
}

static bool room(TraceLog *log)
{
    if (!log->stopped && log->events.len >= log->max_bytes) {
        log->stopped = true;
        log->stopped_in_run = log->runs > 0;
    }
    if (log->stopped) {
        log->dropped++;
        return false;
    }
    return true;
}

bool trace_log_limit_note(const TraceLog *log, char *buf, size_t n)
{
    if (!log->stopped)
        return false;
    char recorded[96];
    if (log->runs == 0)
        snprintf(recorded, sizeof recorded, "recorded %zu bytes of events", log->events.len);
    else if (log->stopped_in_run)
        snprintf(recorded, sizeof recorded, "recorded run%s 1-%lld (the last in part)",
                 log->runs_recorded > 1 ? "s" : "", (long long)log->runs_recorded);
    else
        snprintf(recorded, sizeof recorded, "recorded run%s 1-%lld", log->runs_recorded > 1 ? "s" : "",
                 (long long)log->runs_recorded);
    char bytes[32];
    if (log->max_bytes >= (1u << 20))
        snprintf(bytes, sizeof bytes, "%zu MiB", log->max_bytes >> 20);
    else
        snprintf(bytes, sizeof bytes, "%zu bytes", log->max_bytes);
    snprintf(buf, n, "trace limit: %s of %lld; %lld later events not recorded (limits: %lld runs, %s)",
             recorded, (long long)log->runs, (long long)log->dropped, (long long)log->max_runs, bytes);
    return true;
}

static void put_string(TextBuf *b, const char *s)
{
    textbuf_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            textbuf_printf(b, "\\%c", c);
        else if (c < 0x20)
            textbuf_printf(b, "\\u%04x", c);
        else
            textbuf_putn(b, s, 1);
    }
    textbuf_puts(b, "\"");
}

void trace_log_slice(TraceLog *log, int tid, const char *name, const char *category, double start_s,
                     double end_s, const char *args_json)
{
    if (!log || !room(log))
        return;
    TextBuf *b = &log->events;
    textbuf_puts(b, "{\"ph\":\"X\",\"name\":");
    put_string(b, name);
    textbuf_puts(b, ",\"cat\":");
    put_string(b, category);
    textbuf_printf(b, ",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f", log->pid, tid, start_s * 1e6,
                   (end_s - start_s) * 1e6);
    if (args_json)
        textbuf_printf(b, ",\"args\":%s", args_json);
    textbuf_puts(b, "},\n");
}

void trace_log_flow(TraceLog *log, bool start, uint64_t id, int tid, double at_s)
{
    if (!log || !room(log))
        return;
    textbuf_printf(&log->events,
                   "{\"ph\":\"%s\",\"name\":\"message\",\"cat\":\"mpi\",\"id\":%llu,\"pid\":%d,"
                   "\"tid\":%d,\"ts\":%.3f%s}",
                   start ? "s" : "f", (unsigned long long)id, log->pid, tid, at_s * 1e6,
                   start ? "" : ",\"bp\":\"e\"");
    textbuf_puts(&log->events, ",\n");
}

void trace_log_track_name(TraceLog *log, int tid, const char *name)
{
    if (!log)
        return;
    TextBuf *b = &log->events;
    if (tid < 0)
        textbuf_printf(b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":",
                       log->pid);
    else
        textbuf_printf(b, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
                       log->pid, tid);
    put_string(b, name);
    textbuf_puts(b, "}},\n");
}

const char *trace_log_events(TraceLog *log, size_t *len)
{
    char note[256];
    if (!log->noted && trace_log_limit_note(log, note, sizeof note)) {
        trace_log_track_name(log, TRACE_LIMIT_TRACK, note);
        log->noted = true;
    }
    *len = log->events.len;
    return log->events.data ? log->events.data : "";
}

/* The temporary name the trace is written under before rename(). */
static char *trace_tmp_path(const char *path)
{
    return xprintf("%s.tmp.%ld", path, (long)getpid());
}

bool trace_log_check_path(const char *path, FILE *err)
{
    struct stat st;
    if (!*path) {
        diag_error(err, "--trace", "the trace file name is empty");
        return false;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_error(err, path, "cannot write the trace: is a directory");
        return false;
    }
    /* The file is written as trace_tmp_path and renamed over path: make
     * that file and take it away again. */
    char *tmp = trace_tmp_path(path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    bool ok = fd >= 0;
    if (ok) {
        close(fd);
        unlink(tmp);
    } else {
        diag_error(err, path, "cannot write the trace: %s", strerror(errno));
    }
    free(tmp);
    return ok;
}

bool trace_log_write(const char *path, const char *events, size_t len, FILE *err)
{
    char *tmp = trace_tmp_path(path);
    FILE *f = fopen(tmp, "w");
    bool ok = f != NULL;
    if (ok) {
        fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f);
        while (len > 0 && (events[len - 1] == '\n' || events[len - 1] == ','))
            len--;
        fwrite(events, 1, len, f);
        fputs("\n]}\n", f);
        ok = fclose(f) == 0;
    }
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        diag_error(err, path, "cannot write the trace: %s", strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok;
}

/* ---------------------------------------------------------------- threads */

/* Each OpenMP thread's share of a parallel loop (a generated kernel's, a
 * product's panels): the thread calls trace_thread_span(t, 1) when it
 * starts its share and (t, 0) when it is done; the executor takes the
 * spans after each firing and draws them on the thread's track. Off (one
 * load and a branch per call) unless --trace asked for them. */
enum { MAX_TRACED_THREADS = 256, MAX_THREAD_SPANS = 1 << 16 };

static struct {
    atomic_int on;
    pthread_mutex_t lock;
    double started[MAX_TRACED_THREADS];
    TraceThreadSpan spans[MAX_THREAD_SPANS];
    int n;
} threads = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void trace_threads_record(bool on)
{
    pthread_mutex_lock(&threads.lock);
    atomic_store_explicit(&threads.on, on, memory_order_relaxed);
    threads.n = 0;
    pthread_mutex_unlock(&threads.lock);
}

void trace_thread_span(int thread, int begin)
{
    if (!atomic_load_explicit(&threads.on, memory_order_relaxed) || thread < 0 || thread >= MAX_TRACED_THREADS)
        return;
    double now = clock_seconds();
    if (begin) {                    /* only thread `thread` writes its slot */
        threads.started[thread] = now;
        return;
    }
    pthread_mutex_lock(&threads.lock);
    if (threads.n < MAX_THREAD_SPANS)
        threads.spans[threads.n++] = (TraceThreadSpan){thread, threads.started[thread], now};
    pthread_mutex_unlock(&threads.lock);
}

int trace_threads_take(TraceThreadSpan *out, int max)
{
    pthread_mutex_lock(&threads.lock);        /* the newest first; the rest stay */
    int n = threads.n < max ? threads.n : max;
    threads.n -= n;
    memcpy(out, threads.spans + threads.n, (size_t)n * sizeof *out);
    pthread_mutex_unlock(&threads.lock);
    return n;
}
