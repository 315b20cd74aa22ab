/* util.h — the utilities every layer uses: arena allocation, checked
 * allocation, a string-keyed hash map, a growable text buffer, UTF-8
 * recognition and whole-file reading (util/). Diagnostics are in diag.h.
 * Nothing here knows about graphs, tensors or streams.
 */
#ifndef TSSA_UTIL_H
#define TSSA_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- checked allocation */
/* malloc and friends that never return NULL: running out of memory stops the
 * program through diag_die with the size asked for. A zero size is served as
 * one byte, and xcalloc/xmallocn refuse a count whose product overflows. */

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
/* count * size bytes, uninitialized (or p resized to them); an overflowing
 * product is out of memory. */
void *xmallocn(size_t count, size_t size);
void *xreallocn(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
/* A malloc'd string formatted like printf. */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------- checked arithmetic */
/* Sizes, counts and literals that come from outside (a shape in a .npy
 * header, an integer in graph text, a trip count) are combined through
 * these: each returns true and stores the result when it fits, false on
 * overflow (and *r is then unspecified). */

static inline bool ckd_add_i64(int64_t *r, int64_t a, int64_t b) { return !__builtin_add_overflow(a, b, r); }
static inline bool ckd_sub_i64(int64_t *r, int64_t a, int64_t b) { return !__builtin_sub_overflow(a, b, r); }
static inline bool ckd_mul_i64(int64_t *r, int64_t a, int64_t b) { return !__builtin_mul_overflow(a, b, r); }
static inline bool ckd_add_size(size_t *r, size_t a, size_t b) { return !__builtin_add_overflow(a, b, r); }
static inline bool ckd_mul_size(size_t *r, size_t a, size_t b) { return !__builtin_mul_overflow(a, b, r); }
/* a + b, or the bound `cap` when the sum would pass it (counts for reports:
 * a saturated count is still a true lower bound). a, b >= 0. */
static inline int64_t sat_add_i64(int64_t a, int64_t b, int64_t cap)
{
    int64_t r;
    return ckd_add_i64(&r, a, b) && r < cap ? r : cap;
}
/* The greatest common divisor of |a| and |b| (gcd64(0, 0) == 0; a or b
 * INT64_MIN is outside its domain). */
static inline int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
/* The product of sizes[0..n), the element count of a shape. */
static inline bool ckd_product_i64(int64_t *r, const int64_t *sizes, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (!ckd_mul_i64(&p, p, sizes[i]))
            return false;
    *r = p;
    return true;
}

/* ---------------------------------------------------------------- arena */
/* Bump allocation for structures that die together (a graph, a stream
 * graph): nothing is freed one by one; arena_free releases everything. */

typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size);          /* zeroed, 16-aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);

/* ---------------------------------------------------------------- string map */
/* A hash map from byte strings to pointers.
 *
 * Open addressing with linear probing and backward-shift deletion, so there
 * are no tombstones and a lookup never walks more than the cluster it hashes
 * into. Keys are not copied: the caller keeps each key alive (graph keys live
 * in the graph's arena). Lookups take (pointer, length) so the parser can
 * look a name up straight from the input text.
 */
/* 24 bytes: large maps (a million names) are bound by cache misses, so
 * slots stay small; the low 32 bits of the hash pick the slot, all 32 are
 * compared before the key is. */
typedef struct StrMapSlot {
    const char *key;        /* NULL: empty slot */
    void *value;
    uint32_t hash;
    uint32_t len;
} StrMapSlot;

typedef struct StrMap {
    StrMapSlot *slots;
    size_t cap;             /* power of two, or 0 */
    size_t count;
} StrMap;

uint64_t strmap_hash(const char *key, size_t len);
/* Keys are at most STRMAP_MAX_KEY bytes (longer ones are a caller bug). */
#define STRMAP_MAX_KEY 0xffffffffu
void strmap_init(StrMap *m);
void strmap_release(StrMap *m);
/* The value stored under key, or NULL. */
void *strmap_get(const StrMap *m, const char *key, size_t len);
/* The key pointer stored under an equal key, or NULL (used for interning). */
const char *strmap_get_key(const StrMap *m, const char *key, size_t len);
/* Inserts or replaces. value must not be NULL. */
void strmap_put(StrMap *m, const char *key, size_t len, void *value);
/* Inserts key -> value unless key is present; returns the value already
 * there, or NULL when it inserted (one probe instead of a get and a put). */
void *strmap_put_if_absent(StrMap *m, const char *key, size_t len, void *value);
/* Removes key if present; returns whether it was. */
int strmap_remove(StrMap *m, const char *key, size_t len);

/* ---------------------------------------------------------------- text buffer */
/* A growable byte buffer, for printers and messages. A zeroed TextBuf is
 * empty and ready (no flush target).
 *
 * The printer formats a whole graph into one buffer and writes it with a
 * single fwrite per chunk, which is several times faster than a call into
 * stdio per token on million-node graphs. When `out` is set the buffer is
 * flushed to it whenever it passes TEXTBUF_FLUSH bytes.
 */
typedef struct TextBuf {
    char *data;
    size_t len, cap;
    FILE *out;              /* flush target, or NULL to keep everything */
} TextBuf;

enum { TEXTBUF_FLUSH = 1 << 16 };

void textbuf_init(TextBuf *sb, FILE *out);
void textbuf_release(TextBuf *sb);        /* flushes to out (if any) and frees */
void textbuf_flush(TextBuf *sb);
void textbuf_reserve(TextBuf *sb, size_t extra);
void textbuf_putn(TextBuf *sb, const char *s, size_t n);
void textbuf_puts(TextBuf *sb, const char *s);
void textbuf_printf(TextBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void textbuf_vprintf(TextBuf *sb, const char *fmt, va_list ap);
void textbuf_int(TextBuf *sb, int64_t v);
void textbuf_spaces(TextBuf *sb, int n);
static inline void textbuf_putc(TextBuf *sb, char c)
{
    if (sb->len + 1 > sb->cap)
        textbuf_reserve(sb, 1);
    sb->data[sb->len++] = c;
}
/* NUL-terminates the contents (not counted in len) and returns them. */
const char *textbuf_cstr(TextBuf *sb);

/* ---------------------------------------------------------------- UTF-8 */
/* Recognising well-formed UTF-8, shared by the graph-text lexer
 * (which rejects malformed input) and the diagnostics printer (which shows
 * malformed bytes as '?' so the caret under an echoed line stays aligned).
 */
/* Length of the well-formed UTF-8 sequence at s (at most n bytes, n >= 1),
 * or 0 when the bytes there are not one: overlong encodings, surrogates and
 * code points above U+10FFFF count as invalid. */
size_t utf8_sequence_length(const unsigned char *s, size_t n);

/* ---------------------------------------------------------------- files */

/* The bound on graph text and .str files: a model over it is refused before
 * it is read in full (TorchScript's own printer writes about 100 bytes a
 * node, so this is some ten million nodes). */
#define TEXT_INPUT_LIMIT ((size_t)1 << 30)

/* Reads the whole file at path, at most `limit` bytes, into a malloc'd
 * buffer (NUL-terminated; the terminator is not counted in *len).
 * Directories, devices and sockets are refused before reading; a regular
 * file over the limit is refused from its size, a pipe once it has
 * delivered more than the limit. On failure writes "PATH: error: WHAT" to
 * err (may be NULL) and returns false. */
bool file_read_all(const char *path, size_t limit, char **text, size_t *len, FILE *err);

/* The machine's physical memory in bytes (SIZE_MAX when unknown): the bound
 * on one allocation whose size comes from outside input or a running
 * program, above which asking the system is pointless. */
size_t physical_memory_bytes(void);

/* $TSSA_CACHE_DIR, else $XDG_CACHE_HOME/tssa-stream, else ~/.cache/tssa-stream (malloc'd; NULL: no home). */
char *tssa_cache_dir(void);

/* The optional libraries this build has, each after a space (" openmp
 * hwloc openblas"; "" with none): what --version lists. */
const char *tssa_build_libraries(void);

/* ---------------------------------------------------------------- cache files */
/* What the on-disk caches share (util/cache_file.c). A CacheKey is a 128-bit
 * FNV-1a hash over fields, each added with its length first (so no two field
 * lists hash alike by moving bytes across a boundary); its 32 hex digits name
 * an entry. A collision is caught by storing the source beside the entry and
 * comparing it (cache_entry_holds). */
typedef unsigned __int128 CacheKey;
CacheKey cache_key_start(void);
void cache_key_add(CacheKey *k, const void *data, size_t n);
void cache_key_hex(CacheKey k, char hex[33]);
/* Whether the open file fd holds exactly data[0..len) (read from offset 0). */
bool fd_holds_bytes(int fd, const char *data, size_t len);
/* The whole of the open regular file fd (from offset 0) in a malloc'd
 * buffer with a NUL after it; false (nothing allocated) when it cannot be
 * read or holds more than limit bytes. */
bool fd_read_all(int fd, size_t limit, char **data, size_t *len);
/* Creates "<base>.tmp.<pid>.<random>" exclusively (mode 0600) and returns
 * its path (malloc'd) with the open descriptor in *fd, or NULL with errno. */
char *file_create_temp(const char *base, int *fd);
/* Writes data to path through a temporary file and rename(); false with
 * errno set (and no file left behind) when a step fails. */
bool file_write_atomic(const char *path, const void *data, size_t len);
/* mkdir -p; new folders get mode 0700 (caches are private). False with errno. */
bool mkdir_p(const char *dir);

/* ---------------------------------------------------------------- cache trust */
/* Whether what is on disk in a cache may be used (util/cache_trust.c, where
 * the rules are explained): a cache folder must belong to the effective user
 * and be writable by nobody else (its parents: by nobody else, or sticky),
 * an entry must be a regular file (no symbolic link) with the same owner and
 * mode rules, and an entry holding code must match its checksum sidecar. */
typedef enum {
    CACHE_OK,           /* trusted (an entry: *fd is open on it) */
    CACHE_ABSENT,       /* no such entry */
    CACHE_UNUSABLE,     /* cannot be made or opened (why[] says so); nobody else's doing */
    CACHE_UNTRUSTED,    /* someone else could have written it (why[]: path, owner, mode) */
} CacheTrust;
enum { CACHE_WHY_MAX = 4096 + 160 };
/* Makes dir (mkdir -p, new folders 0700) and checks it and the folders
 * above it. CACHE_OK with *real its resolved path (malloc'd; use it, not
 * dir, from then on: no symbolic link in it can be moved); else *real is
 * NULL and why[] says what is wrong. */
CacheTrust cache_dir_prepare(const char *dir, char **real, char why[CACHE_WHY_MAX]);
/* Opens the entry at path without following a symbolic link and checks the
 * open file (fstat): CACHE_OK with *fd open (close it), else *fd is -1. */
CacheTrust cache_entry_open(const char *path, int *fd, char why[CACHE_WHY_MAX]);
/* Reads a trusted entry whole (fd_read_all): CACHE_OK with *data malloc'd.
 * An untrusted one is reported (cache_warn_untrusted, "instead" saying
 * what is done about it) and not read. */
CacheTrust cache_entry_read(const char *path, size_t limit, char **data, size_t *len, FILE *err,
                            const char *instead);
/* Whether the trusted entry at path holds exactly data[0..len) (an
 * untrusted one is reported as above and holds nothing). */
bool cache_entry_holds(const char *path, const void *data, size_t len, FILE *err, const char *instead);
/* The first call with a non-NULL err in a process writes "tssa-stream:
 * warning: not using the cache: WHY; INSTEAD" and the rule; later calls
 * write nothing (one untrusted cache would otherwise warn per entry). */
void cache_warn_untrusted(FILE *err, const char *why, const char *instead);
/* ENTRY.sum: the size and checksum of data[0..len), the entry's bytes,
 * written (atomically) after the entry itself; and whether a trusted
 * ENTRY.sum exists and matches data[0..len). */
bool cache_sum_write(const char *entry_path, const void *data, size_t len);
bool cache_sum_matches(const char *entry_path, const void *data, size_t len);

/* ---------------------------------------------------------------- trace log */
/* Chrome trace events (util/trace_log.c), for --trace: one log per rank
 * (pid = rank), tracks by tid, times in seconds. */
typedef struct TraceLog TraceLog;
/* A log records the first TRACE_MAX_RUNS runs and at most TRACE_MAX_BYTES of
 * events, whichever ends first; later events are counted, not recorded, and
 * the trace gets a track named "trace limit: ..." (TRACE_LIMIT_TRACK). */
enum { TRACE_MAX_RUNS = 100, TRACE_MAX_BYTES = 64 << 20, TRACE_LIMIT_TRACK = 999999 };
TraceLog *trace_log_new(int pid);
void trace_log_free(TraceLog *log);                 /* NULL is fine */
/* Other limits than the defaults (tests). */
void trace_log_set_limits(TraceLog *log, int64_t max_runs, size_t max_bytes);
/* A run of the plan starts (the executor calls it; NULL is fine). */
void trace_log_begin_run(TraceLog *log);
/* When a limit left events out: true, and what was recorded and what was
 * not, in one line, in buf. */
bool trace_log_limit_note(const TraceLog *log, char *buf, size_t n);
/* A finished piece of work on track tid; args_json is an object or NULL.
 * Every recorder is a no-op on a NULL log. */
void trace_log_slice(TraceLog *log, int tid, const char *name, const char *category, double start_s,
                     double end_s, const char *args_json);
/* One end of a message arrow: start (send) or finish (receive), same id. */
void trace_log_flow(TraceLog *log, bool start, uint64_t id, int tid, double at_s);
/* Names track tid, or the whole process (the rank) when tid < 0. */
void trace_log_track_name(TraceLog *log, int tid, const char *name);
/* The events so far, comma-separated (to be gathered on rank 0), with the
 * limit's track name when events were left out. */
const char *trace_log_events(TraceLog *log, size_t *len);
/* Checks, before any work, that a trace can be written at path (its
 * temporary file made and removed again); false after saying why on err. */
bool trace_log_check_path(const char *path, FILE *err);
/* Writes a trace file from gathered events, atomically. */
bool trace_log_write(const char *path, const char *events, size_t len, FILE *err);

/* OpenMP threads' shares of parallel loops, for per-thread tracks: with
 * recording on, thread t calls trace_thread_span(t, 1) as it starts its
 * share and (t, 0) when done (generated kernels through their
 * tssa_thread_span hook, the product panels directly); trace_threads_take
 * moves up to max finished spans (CLOCK_MONOTONIC seconds) out, leaving the
 * rest for the next call. Thread-safe. */
typedef struct TraceThreadSpan {
    int thread;
    double start_s, end_s;
} TraceThreadSpan;
void trace_threads_record(bool on);
void trace_thread_span(int thread, int begin);
int trace_threads_take(TraceThreadSpan *out, int max);

#endif
