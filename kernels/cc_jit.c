/* cc_jit.c — generated C compiled with the system compiler, cached on disk
 * and loaded with dlopen (the API and the cache are described in cc_jit.h).
 *
 * How a load goes:
 *   1. The compiler command ($CC split into words as sh would, or
 *      opts->compiler as one word) has its program resolved to a path (PATH
 *      search, no shell) and its identity (`CC -dumpfullversion
 *      -dumpmachine`) found, once per process and command.
 *   2. The key hashes the source, the command, that identity, the host CPU
 *      and the flags.
 *   3. The cache folder must pass util/cache_trust.c's checks (ours alone);
 *      otherwise a warning and a private temporary folder instead.
 *   4. A hit is DIR/<key>.so beside a DIR/<key>.c equal to the source, both
 *      trusted entries, with DIR/<key>.so.sum matching the .so's bytes and
 *      every symbol the caller needs defined. Anything else is a miss.
 *   5. A miss writes the .c (temporary name, then rename), compiles it into
 *      <key>.so.tmp.<pid>.<random>, loads that, renames it into place and
 *      writes the .sum after it. Each process writes only files of its own
 *      until the rename, so concurrent ranks compiling the same source each
 *      end with a complete file, and the last rename wins with equal bytes;
 *      a stale entry (cut short, another program's object, planted) is
 *      replaced the same way.
 * An object is loaded through /proc/self/fd/N of the descriptor whose file
 * was checked and hashed, so the bytes checked are the bytes mapped. The
 * descriptor stays open while the object is loaded: glibc matches dlopen
 * names against loaded objects, and a reused number would hand back an
 * older object. (Debuggers and sanitizer reports show that name, not the
 * cache path; stats->so_path has the cache path.)
 * The compiler runs under posix_spawn (vfork-like: safe in MPI processes
 * whose pinned memory does not survive fork) with its output in a pipe.
 */
#define _GNU_SOURCE
#include "tssa/cc_jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tssa/util.h"

extern char **environ;

struct CcLibrary {
    void *handle;
    int name_fd;                /* the descriptor of the /proc/self/fd name it was loaded under */
};

/* Set by CMakeLists.txt when the project is built with TSSA_SANITIZE: a
 * kernel loaded into an instrumented process must be instrumented too. */
#ifndef TSSA_KERNEL_SANITIZE_FLAGS
#define TSSA_KERNEL_SANITIZE_FLAGS ""
#endif

/* -fno-math-errno: kernels never read errno, and without it GCC may call
 * the vector variants of expf, logf... that glibc's libmvec provides (the
 * kernels' prelude declares them `omp declare simd`), so loops with math
 * vectorize. */
static const char BASE_FLAGS[] = "-O3 -march=native -fopenmp -fno-math-errno -shared -fPIC";
/* C11; C++17 for C++ (the CUDA text through the cuda backend's CPU shim) */

enum {
    DIAG_LINES = 40,            /* compiler diagnostics shown on failure */
    CAPTURE_LIMIT = 1 << 20,    /* compiler output kept (the rest is read and dropped) */
    IDENTITY_MAX = 1024,
    IDENTITY_SLOTS = 8,
};
/* The largest kernel object read back from the cache to check its sum. */
#define OBJECT_LIMIT ((size_t)1 << 30)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_error(FILE *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tssa-stream: error: ", err);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    va_end(ap);
}

/* The message for posix_spawn's error rc when running the compiler. */
static void put_cannot_run(FILE *err, const char *cc, int rc)
{
    if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR)
        put_error(err, "the kernel compiler '%s' was not found; install gcc (apt-get install gcc) or set CC", cc);
    else
        put_error(err, "cannot run the kernel compiler '%s': %s", cc, strerror(rc));
}

/* ---------------------------------------------------------------- the key */
/* ---------------------------------------------------------------- processes */
/* Runs argv[0] (a path) with stdin from /dev/null and its stdout and stderr
 * into *out (the first CAPTURE_LIMIT bytes). Returns the posix_spawn error
 * (ENOENT when the program is missing), 0 when it ran; *status is waitpid's. */
static int run_captured(char *const argv[], TextBuf *out, int *status)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return rc;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (out->len < CAPTURE_LIMIT)
            textbuf_putn(out, buf, (size_t)n < CAPTURE_LIMIT - out->len ? (size_t)n : CAPTURE_LIMIT - out->len);
    }
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0) {
        if (errno != EINTR) {
            *status = -1;
            break;
        }
    }
    return 0;
}

/* The path of program `name`: itself when it has a '/', else the first
 * executable regular file called so in PATH. */
static bool resolve_program(const char *name, char *path, size_t cap)
{
    struct stat st;
    if (!*name)
        return false;
    if (strchr(name, '/')) {
        if (strlen(name) >= cap)
            return false;
        strcpy(path, name);
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
    }
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = dirs;; ) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int w = n ? snprintf(path, cap, "%.*s/%s", (int)n, p, name) : snprintf(path, cap, "./%s", name);
        if (w > 0 && (size_t)w < cap && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

/* ---------------------------------------------------------------- the compiler */
/* The compiler command: "gcc", "gcc -O0", "ccache gcc", a path. */
typedef struct Compiler {
    const char *text;           /* as the user gave it: messages and the key */
    char **argv;                /* the resolved program, then the leading arguments; NULL-terminated */
    int argc;
    char *words;                /* the bytes argv points into */
    char path[CC_JIT_PATH_MAX]; /* argv[0] */
} Compiler;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Splits text into words as sh does for a simple $CC (make passes $(CC) to
 * sh the same way): blanks separate words; '...' quotes literally; "..."
 * quotes with \ escaping " \ $ ` only; a \ elsewhere escapes the next
 * character. Nothing is expanded; an unclosed quote runs to the end. */
static void split_words(Compiler *cc, const char *text)
{
    size_t n = strlen(text);
    /* the words and their NULs never outnumber the text's bytes and its NUL */
    char *o = cc->words = xmalloc(n + 1);
    cc->argv = xmallocn(n / 2 + 2, sizeof *cc->argv);
    cc->argc = 0;
    for (const char *p = text;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        cc->argv[cc->argc++] = o;
        while (*p && !is_blank(*p)) {
            if (*p == '\'') {
                for (p++; *p && *p != '\''; )
                    *o++ = *p++;
                p += *p != '\0';
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; ) {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    *o++ = *p++;
                }
                p += *p != '\0';
            } else {
                if (*p == '\\' && p[1])
                    p++;
                *o++ = *p++;
            }
        }
        *o++ = '\0';
    }
    cc->argv[cc->argc] = NULL;
}

static void compiler_release(Compiler *cc)
{
    free(cc->argv);
    free(cc->words);
}

/* What identifies a compiler: its version and target, asked once per
 * process (a table of the last few commands used), then its resolved path
 * with the file's size and time so an upgrade in place changes the key. */
static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char command[CC_JIT_PATH_MAX + IDENTITY_MAX];
    char text[IDENTITY_MAX];
} identity_table[IDENTITY_SLOTS];
static int identity_count;

/* Runs the command with extra arguments appended. */
static int run_compiler_with(const Compiler *cc, const char *a, const char *b, TextBuf *out, int *status)
{
    char **argv = xmallocn((size_t)cc->argc + 3, sizeof *argv);
    memcpy(argv, cc->argv, (size_t)cc->argc * sizeof *argv);
    argv[cc->argc] = (char *)a;
    argv[cc->argc + 1] = (char *)b;
    argv[cc->argc + 2] = NULL;
    int rc = run_captured(argv, out, status);
    free(argv);
    return rc;
}

/* Appends the identity of the compiler command to *id; returns the
 * posix_spawn error when it cannot be run, else 0. */
static int compiler_identity(const Compiler *cc, TextBuf *id)
{
    char command[sizeof identity_table[0].command];
    snprintf(command, sizeof command, "%s\n%s", cc->path, cc->text);
    pthread_mutex_lock(&identity_lock);
    int slot = -1;
    for (int i = 0; i < identity_count; i++)
        if (strcmp(identity_table[i].command, command) == 0)
            slot = i;
    if (slot < 0) {
        TextBuf out = {0};
        int status = 0;
        int rc = run_compiler_with(cc, "-dumpfullversion", "-dumpmachine", &out, &status);
        if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            /* clang before 16 and others: no -dumpfullversion */
            out.len = 0;
            rc = run_compiler_with(cc, "--version", NULL, &out, &status);
        }
        if (rc != 0) {
            textbuf_release(&out);
            pthread_mutex_unlock(&identity_lock);
            return rc;
        }
        slot = identity_count < IDENTITY_SLOTS ? identity_count++ : IDENTITY_SLOTS - 1;
        snprintf(identity_table[slot].command, sizeof identity_table[slot].command, "%s", command);
        snprintf(identity_table[slot].text, sizeof identity_table[slot].text, "%.*s",
                 (int)(out.len < IDENTITY_MAX ? out.len : IDENTITY_MAX - 1), out.data ? out.data : "");
        textbuf_release(&out);
    }
    textbuf_puts(id, identity_table[slot].text);
    pthread_mutex_unlock(&identity_lock);

    char real[PATH_MAX];
    struct stat st;
    if (realpath(cc->path, real) && stat(real, &st) == 0)
        textbuf_printf(id, "\n%s %lld %lld", real, (long long)st.st_size, (long long)st.st_mtime);
    return 0;
}

/* Splits (or, from opts->compiler, takes whole) the command, resolves its
 * program and finds its identity: 0, or the error for put_cannot_run. */
static int compiler_prepare(Compiler *cc, const char *text, bool split, TextBuf *identity)
{
    cc->text = text;
    if (split)
        split_words(cc, text);
    else {
        cc->words = xstrdup(text);
        cc->argv = xmallocn(2, sizeof *cc->argv);
        cc->argv[0] = cc->words;
        cc->argv[1] = NULL;
        cc->argc = 1;
    }
    if (cc->argc == 0 || !resolve_program(cc->argv[0], cc->path, sizeof cc->path))
        return ENOENT;
    cc->argv[0] = cc->path;
    return compiler_identity(cc, identity);
}

/* The host CPU as -march=native sees it, hashed once: the model and flag
 * lines of /proc/cpuinfo (empty where there is none), so a cache shared by
 * machines of different kinds (a home on NFS) never hands one another's
 * instructions. */
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static CacheKey cpu_hash;

static void hash_cpu(void)
{
    cpu_hash = cache_key_start();
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[8192];
    int wanted = 3;
    while (wanted > 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "flags", 5) == 0 ||
            strncmp(line, "Features", 8) == 0 || strncmp(line, "CPU part", 8) == 0) {
            cache_key_add(&cpu_hash, line, strlen(line));
            wanted--;
        }
    }
    fclose(f);
}

/* ---------------------------------------------------------------- compiling */
/* Everything a compile of one source needs. */
typedef struct Job {
    const char *source;
    size_t len;
    const Compiler *cc;
    char *flags;                /* the whole flag string (in the key) */
    char hex[33];               /* the key */
    bool cplusplus;
    const char *const *symbols; /* what a cached object must define */
    int nsymbols;
} Job;

/* The compiler's command line: the command's words, the flags split at
 * blanks, -o out, the source, -lm. NULL-terminated, in one malloc'd block
 * with `words` (a copy of the flags) that must also be freed. */
static char **compile_argv(const Job *job, const char *out, const char *src, char **words)
{
    *words = xstrdup(job->flags);
    size_t n = 0;
    for (char *s = *words; *s; s++)
        n += (s == *words || s[-1] == ' ' || s[-1] == '\t') && *s != ' ' && *s != '\t';
    char **argv = xmallocn(n + (size_t)job->cc->argc + 7, sizeof *argv);
    size_t i = 0;
    for (int w = 0; w < job->cc->argc; w++)
        argv[i++] = job->cc->argv[w];
    char *state = NULL;
    for (char *s = strtok_r(*words, " \t", &state); s; s = strtok_r(NULL, " \t", &state))
        argv[i++] = s;
    argv[i++] = "-o";
    argv[i++] = (char *)out;
    argv[i++] = (char *)src;
    argv[i++] = "-lm";
#if defined(__x86_64__) && defined(__GLIBC__)
    argv[i++] = "-lmvec";       /* the vector math the prelude declares */
#endif
    argv[i] = NULL;
    return argv;
}

/* The compiler's failure: its first DIAG_LINES lines and where the source is. */
static void put_compile_failure(FILE *err, const Job *job, int status, const TextBuf *out, const char *c_path)
{
    if (!err)
        return;
    if (WIFEXITED(status))
        put_error(err, "the kernel compiler '%s' failed (exit status %d) on the generated source:", job->cc->text,
                  WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        put_error(err, "the kernel compiler '%s' was killed by signal %d on the generated source:", job->cc->text,
                  WTERMSIG(status));
    else
        put_error(err, "the kernel compiler '%s' did not finish on the generated source:", job->cc->text);
    size_t at = 0, lines = 0, more = 0;
    while (at < out->len) {
        const char *nl = memchr(out->data + at, '\n', out->len - at);
        size_t end = nl ? (size_t)(nl - out->data) : out->len;
        if (lines < DIAG_LINES) {
            fprintf(err, "  %.*s\n", (int)(end - at), out->data + at);
            lines++;
        } else
            more++;
        at = end + 1;
    }
    if (more)
        fprintf(err, "  ... (%zu more lines)\n", more);
    if (out->len >= CAPTURE_LIMIT)
        fputs("  ... (output cut)\n", err);
    fprintf(err, "tssa-stream: note: the flags were: %s\n", job->flags);
    fprintf(err, "tssa-stream: error: the generated source is at %s\n", c_path);
}

/* Keeps loaded the libraries the kernel object needs (DT_NEEDED: libgomp,
 * libomp, ...): an OpenMP runtime's idle pool threads still run its code
 * after the kernel is closed, and unloading it under them crashes. */
static void pin_dependencies(void *handle)
{
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_ld)
        return;
    const char *strtab = NULL;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)  /* relocated in place by glibc, except where the section is read-only */
            strtab = (const char *)(d->d_un.d_ptr < map->l_addr ? d->d_un.d_ptr + map->l_addr : d->d_un.d_ptr);
    if (!strtab)
        return;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag != DT_NEEDED)
            continue;
        void *pin = dlopen(strtab + d->d_un.d_val, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
        if (pin)
            dlclose(pin);
    }
}

/* ---------------------------------------------------------------- loading */
/* Loads the object open on fd through its /proc/self/fd name (the bytes
 * the caller checked; see the top of this file). Where /proc is not
 * mounted, through path: the cache folder is ours alone (cache_trust.c),
 * so nobody else can swap the file in between. */
static void *load_object(int fd, const char *path)
{
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    return dlopen(access(name, R_OK) == 0 ? name : path, RTLD_NOW | RTLD_LOCAL);
}

/* Closes the descriptor a library was loaded under, unless its name is
 * still loaded (dlclose does not always unload: C++ unique symbols, an
 * object loaded twice): then the number stays taken, so that no later
 * load gets that name and, from glibc, the old object. */
static void release_name(int fd)
{
    if (fd < 0)
        return;
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    void *still = dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (still)
        dlclose(still);
    else
        close(fd);
}

/* Whether the loaded object defines every symbol the job needs. */
static bool has_symbols(void *handle, const Job *job)
{
    for (int i = 0; i < job->nsymbols; i++) {
        dlerror();
        if (!dlsym(handle, job->symbols[i]))
            return false;
    }
    return true;
}

/* A cache hit: so_path is a trusted entry whose bytes match its sum and
 * which defines the job's symbols. NULL (nothing loaded, fd closed) when
 * any of that fails: the caller compiles it again. */
static void *load_cached(const Job *job, const char *so_path, CcJitStats *stats, FILE *err, int *name_fd)
{
    char why[CACHE_WHY_MAX];
    int fd;
    CacheTrust t = cache_entry_open(so_path, &fd, why);
    if (t == CACHE_UNTRUSTED)
        cache_warn_untrusted(err, why, "compiling the kernels again");
    if (t != CACHE_OK)
        return NULL;
    char *bytes = NULL;
    size_t n = 0;
    bool intact = fd_read_all(fd, OBJECT_LIMIT, &bytes, &n) && cache_sum_matches(so_path, bytes, n);
    free(bytes);
    void *handle = NULL;
    if (intact) {
        double t0 = now_s();
        handle = load_object(fd, so_path);
        stats->load_s = now_s() - t0;
    }
    if (handle && !has_symbols(handle, job)) {
        dlclose(handle);    /* another program's object under this key */
        handle = NULL;
    }
    if (!handle) {
        release_name(fd);
        return NULL;
    }
    *name_fd = fd;
    return handle;
}

typedef enum { DONE, DIR_UNUSABLE } Outcome;

/* Whether a compile that failed in the folder dir failed for want of room
 * there (a full file system or quota: the linker's "No space left on
 * device"), judged by the compiler's words, in C's and this locale's
 * language, and by the space left. */
static bool out_of_room(const char *dir, const TextBuf *out)
{
    const char *said[] = {"No space left on device", "Disk quota exceeded", strerror(ENOSPC), strerror(EDQUOT)};
    for (size_t i = 0; i < sizeof said / sizeof said[0] && out->data; i++)
        if (memmem(out->data, out->len, said[i], strlen(said[i])))
            return true;
    struct statvfs fs;
    return statvfs(dir, &fs) == 0 && ((unsigned long long)fs.f_bavail * fs.f_frsize < (1u << 20) ||
                                      (fs.f_files > 0 && fs.f_favail == 0));
}

/* Loads dir/<key>.so, compiling it first unless a cached copy is good
 * (cached: dir is the cache; else a temporary folder removed afterwards,
 * except for the source when the compiler fails). DIR_UNUSABLE, with why,
 * when the cache could not serve: nothing could be written into it, the
 * compile ran out of room there, or the object compiled there does not load
 * (a file system mounted noexec); the caller then tries a temporary folder
 * and has printed nothing. DONE otherwise, with *lib NULL after a message. */
static Outcome compile_and_load(const Job *job, const char *dir, bool cached, CcJitStats *stats, FILE *err,
                                CcLibrary **lib, char why[CACHE_WHY_MAX])
{
    *lib = NULL;
    char *c_path = xprintf("%s/%s.%s", dir, job->hex, job->cplusplus ? "cpp" : "c");
    char *so_path = xprintf("%s/%s.so", dir, job->hex);
    char *so_tmp = NULL, *words = NULL, **argv = NULL, *bytes = NULL;
    TextBuf out = {0};
    void *handle = NULL;
    int name_fd = -1;
    bool keep_source = cached;
    Outcome outcome = DONE;

    bool source_there = cached && cache_entry_holds(c_path, job->source, job->len, err, "compiling the kernels again");
    if (source_there) {
        handle = load_cached(job, so_path, stats, err, &name_fd);
        if (handle) {
            stats->cache_hit = true;
            goto done;
        }
    }
    if (!source_there && !file_write_atomic(c_path, job->source, job->len)) {
        snprintf(why, CACHE_WHY_MAX, "%s", strerror(errno));
        outcome = DIR_UNUSABLE;
        goto done;
    }
    int fd;
    so_tmp = file_create_temp(so_path, &fd);
    if (!so_tmp) {
        snprintf(why, CACHE_WHY_MAX, "%s", strerror(errno));
        outcome = DIR_UNUSABLE;
        goto done;
    }
    close(fd);

    argv = compile_argv(job, so_tmp, c_path, &words);
    int status = 0;
    double t0 = now_s();
    int rc = run_captured(argv, &out, &status);
    stats->compile_s = now_s() - t0;
    if (rc != 0) {
        put_cannot_run(err, job->cc->text, rc);
        goto done;
    }
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        if (cached && out_of_room(dir, &out)) {
            snprintf(why, CACHE_WHY_MAX, "no room left there to compile the kernels");
            outcome = DIR_UNUSABLE;
            goto done;
        }
        put_compile_failure(err, job, status, &out, c_path);
        keep_source = true;
        goto done;
    }

    /* Loaded through the descriptor of the file just written (a file of
     * this process's own, in a folder nobody else writes), then published:
     * the object under its lasting name, its sum after it. */
    name_fd = open(so_tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (name_fd < 0) {
        put_error(err, "cannot open the compiled kernels %s: %s", so_tmp, strerror(errno));
        goto done;
    }
    t0 = now_s();
    handle = load_object(name_fd, so_tmp);
    stats->load_s = now_s() - t0;
    if (!handle) {
        const char *dl_why = dlerror();
        if (cached)     /* a file system mounted noexec, say: a temporary folder may do */
            snprintf(why, CACHE_WHY_MAX, "the kernels compiled there do not load: %s",
                     dl_why ? dl_why : "unknown error");
        else
            put_error(err, "cannot load the compiled kernels %s: %s", so_path, dl_why ? dl_why : "unknown error");
        outcome = cached ? DIR_UNUSABLE : DONE;
        close(name_fd);
        name_fd = -1;
        goto done;
    }
    size_t n = 0;
    if (cached && fd_read_all(name_fd, OBJECT_LIMIT, &bytes, &n) && rename(so_tmp, so_path) == 0) {
        free(so_tmp);
        so_tmp = NULL;
        cache_sum_write(so_path, bytes, n);     /* best effort: without it the next run compiles again */
    }

done:
    if (so_tmp)
        unlink(so_tmp);
    if (!cached) {
        if (!keep_source) {
            unlink(c_path);
            rmdir(dir);
        }
    }
    if (handle) {
        pin_dependencies(handle);
        snprintf(stats->so_path, sizeof stats->so_path, "%s", so_path);
        *lib = xmalloc(sizeof **lib);
        (*lib)->handle = handle;
        (*lib)->name_fd = name_fd;
    }
    textbuf_release(&out);
    free(bytes);
    free(argv);
    free(words);
    free(so_tmp);
    free(so_path);
    free(c_path);
    return outcome;
}

static char *make_temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    char *dir = xprintf("%s/tssa-stream-XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(dir))
        return dir;
    free(dir);
    return NULL;
}

/* Whether text has anything but blanks. */
static bool has_word(const char *text)
{
    for (; text && *text; text++)
        if (!is_blank(*text))
            return true;
    return false;
}

CcLibrary *cc_jit_load(const char *source, size_t len, const CcJitOptions *opts, CcJitStats *stats, FILE *err)
{
    static const CcJitOptions defaults = {0};
    CcJitStats scratch;
    if (!opts)
        opts = &defaults;
    if (!stats)
        stats = &scratch;
    memset(stats, 0, sizeof *stats);
    if (!source && len) {
        put_error(err, "no kernel source to compile");
        return NULL;
    }
    if (!source)
        source = "";

    const char *cc_text = opts->compiler;
    bool split = false;
    if (!cc_text) {
        cc_text = getenv(opts->cplusplus ? "CXX" : "CC");
        split = has_word(cc_text);
        if (!split)
            cc_text = opts->cplusplus ? "c++" : "cc";
    }
    Compiler cc = {0};
    TextBuf identity = {0};
    int rc = compiler_prepare(&cc, cc_text, split, &identity);
    if (rc != 0) {
        textbuf_release(&identity);
        compiler_release(&cc);
        put_cannot_run(err, cc_text, rc);
        return NULL;
    }

    Job job = {.source = source, .len = len, .cc = &cc, .cplusplus = opts->cplusplus,
               .symbols = opts->symbols, .nsymbols = opts->symbols ? opts->nsymbols : 0};
    const char *san = TSSA_KERNEL_SANITIZE_FLAGS;
    const char *extra = opts->extra_flags ? opts->extra_flags : "";
    job.flags = xprintf("%s -std=%s%s%s%s%s", BASE_FLAGS, opts->cplusplus ? "c++17" : "c11", *san ? " " : "",
                        san, *extra ? " " : "", extra);

    pthread_once(&cpu_once, hash_cpu);
    CacheKey h = cache_key_start();
    static const char version[] = "tssa-stream cc_jit 2";   /* 2: objects have sums */
    cache_key_add(&h, version, sizeof version - 1);
    cache_key_add(&h, source, len);
    cache_key_add(&h, cc.text, strlen(cc.text));
    cache_key_add(&h, identity.data ? identity.data : "", identity.len);
    cache_key_add(&h, &cpu_hash, sizeof cpu_hash);
    cache_key_add(&h, job.flags, strlen(job.flags));
    textbuf_release(&identity);
    cache_key_hex(h, job.hex);

    CcLibrary *lib = NULL;
    bool use_temp = opts->no_cache;
    if (!use_temp) {
        char *named = opts->cache_dir ? xstrdup(opts->cache_dir) : tssa_cache_dir();
        char *dir = NULL, why[CACHE_WHY_MAX];
        CacheTrust t = named ? cache_dir_prepare(named, &dir, why) : CACHE_UNUSABLE;
        if (!named)
            snprintf(why, sizeof why, "no home directory");
        if (t == CACHE_OK && compile_and_load(&job, dir, true, stats, err, &lib, why) == DIR_UNUSABLE)
            t = CACHE_UNUSABLE;
        if (t == CACHE_UNTRUSTED)
            cache_warn_untrusted(err, why, "compiling the kernels in a temporary directory");
        else if (t != CACHE_OK && err)
            fprintf(err, "tssa-stream: warning: the kernel cache '%s' is not usable (%s); compiling in a temporary directory\n",
                    named ? named : "~/.cache/tssa-stream", why);
        use_temp = t != CACHE_OK;
        free(dir);
        free(named);
    }
    if (use_temp) {
        char *dir = make_temp_dir(), why[CACHE_WHY_MAX];
        if (!dir) {
            const char *t = getenv("TMPDIR");
            put_error(err, "cannot make a temporary directory for the kernels in %s: %s (set TMPDIR to a folder "
                      "you can write)", t && *t ? t : "/tmp", strerror(errno));
        } else if (compile_and_load(&job, dir, false, stats, err, &lib, why) == DIR_UNUSABLE) {
            put_error(err, "cannot write into the temporary directory %s: %s", dir, why);
            rmdir(dir);
        }
        free(dir);
    }
    free(job.flags);
    compiler_release(&cc);
    return lib;
}

void *cc_jit_symbol(const CcLibrary *lib, const char *name)
{
    if (!lib || !name)
        return NULL;
    dlerror();
    return dlsym(lib->handle, name);
}

void cc_jit_close(CcLibrary *lib)
{
    if (!lib)
        return;
    dlclose(lib->handle);
    release_name(lib->name_fd);
    free(lib);
}
