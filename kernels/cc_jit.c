/* cc_jit.c — generated C compiled with the system compiler, cached on disk
 * and loaded with dlopen (the API and the cache are described in cc_jit.h).
 *
 * How a load goes:
 *   1. The compiler is resolved to a path (PATH search, no shell) and its
 *      identity (`CC -dumpfullversion -dumpmachine`) found, once per process
 *      and compiler.
 *   2. The key hashes the source, that identity, the host CPU and the flags.
 *   3. A hit is DIR/<key>.so beside a DIR/<key>.c equal to the source.
 *   4. A miss writes the .c (temporary name, then rename), compiles it into
 *      <key>.so.tmp.<pid>.<random> and renames that into place before
 *      loading it. Each process writes only files of its own until the
 *      rename, so concurrent ranks compiling the same source each end with
 *      a complete file, and the last rename wins with equal bytes.
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
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tssa/util.h"

extern char **environ;

struct CcLibrary {
    void *handle;
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

/* What identifies a compiler: its version and target, asked once per
 * process (a table of the last few compilers used), then its resolved path
 * with the file's size and time so an upgrade in place changes the key. */
static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char path[CC_JIT_PATH_MAX];
    char text[IDENTITY_MAX];
} identity_table[IDENTITY_SLOTS];
static int identity_count;

/* Appends the identity of the compiler at cc_path to *id; returns the
 * posix_spawn error when it cannot be run, else 0. */
static int compiler_identity(const char *cc_path, TextBuf *id)
{
    pthread_mutex_lock(&identity_lock);
    int slot = -1;
    for (int i = 0; i < identity_count; i++)
        if (strcmp(identity_table[i].path, cc_path) == 0)
            slot = i;
    if (slot < 0) {
        TextBuf out = {0};
        int status = 0;
        char *version[] = {(char *)cc_path, "-dumpfullversion", "-dumpmachine", NULL};
        int rc = run_captured(version, &out, &status);
        if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            /* clang before 16 and others: no -dumpfullversion */
            char *longer[] = {(char *)cc_path, "--version", NULL};
            out.len = 0;
            rc = run_captured(longer, &out, &status);
        }
        if (rc != 0) {
            textbuf_release(&out);
            pthread_mutex_unlock(&identity_lock);
            return rc;
        }
        slot = identity_count < IDENTITY_SLOTS ? identity_count++ : IDENTITY_SLOTS - 1;
        snprintf(identity_table[slot].path, sizeof identity_table[slot].path, "%s", cc_path);
        snprintf(identity_table[slot].text, sizeof identity_table[slot].text, "%.*s",
                 (int)(out.len < IDENTITY_MAX ? out.len : IDENTITY_MAX - 1), out.data ? out.data : "");
        textbuf_release(&out);
    }
    textbuf_puts(id, identity_table[slot].text);
    pthread_mutex_unlock(&identity_lock);

    char real[PATH_MAX];
    struct stat st;
    if (realpath(cc_path, real) && stat(real, &st) == 0)
        textbuf_printf(id, "\n%s %lld %lld", real, (long long)st.st_size, (long long)st.st_mtime);
    return 0;
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

static char *make_temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    char *dir = xprintf("%s/tssa-stream-XXXXXX", t && *t ? t : "/tmp");
    if (mkdtemp(dir))
        return dir;
    free(dir);
    return NULL;
}

/* ---------------------------------------------------------------- compiling */
/* Everything a compile of one source needs. */
typedef struct Job {
    const char *source;
    size_t len;
    const char *cc;             /* as the user named it, for messages */
    const char *cc_path;
    char *flags;                /* the whole flag string (in the key) */
    char hex[33];               /* the key */
    bool cplusplus;
} Job;

/* The compiler's command line: cc_path, the flags split at blanks, -o out,
 * the source, -lm. NULL-terminated, in one malloc'd block with `words`
 * (a copy of the flags) that must also be freed. */
static char **compile_argv(const Job *job, const char *out, const char *src, char **words)
{
    *words = xstrdup(job->flags);
    size_t n = 0;
    for (char *s = *words; *s; s++)
        n += (s == *words || s[-1] == ' ' || s[-1] == '\t') && *s != ' ' && *s != '\t';
    char **argv = xmallocn(n + 7, sizeof *argv);
    size_t i = 0;
    argv[i++] = (char *)job->cc_path;
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
        put_error(err, "the kernel compiler '%s' failed (exit status %d) on the generated source:", job->cc,
                  WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        put_error(err, "the kernel compiler '%s' was killed by signal %d on the generated source:", job->cc,
                  WTERMSIG(status));
    else
        put_error(err, "the kernel compiler '%s' did not finish on the generated source:", job->cc);
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

typedef enum { DONE, DIR_UNUSABLE } Outcome;

/* Loads dir/<key>.so, compiling it first unless a cached copy is good
 * (cached: dir is the cache; else a temporary folder removed afterwards,
 * except for the source when the compiler fails). DIR_UNUSABLE when nothing
 * could be written into dir (the caller then tries a temporary folder and
 * has printed nothing); DONE otherwise, with *lib NULL after a message. */
static Outcome compile_and_load(const Job *job, const char *dir, bool cached, CcJitStats *stats, FILE *err,
                                CcLibrary **lib)
{
    *lib = NULL;
    char *c_path = xprintf("%s/%s.%s", dir, job->hex, job->cplusplus ? "cpp" : "c");
    char *so_path = xprintf("%s/%s.so", dir, job->hex);
    char *so_tmp = NULL, *words = NULL, **argv = NULL;
    TextBuf out = {0};
    void *handle = NULL;
    bool keep_source = cached;
    Outcome outcome = DONE;
    struct stat st;

    bool source_there = file_holds_bytes(c_path, job->source, job->len);
    if (cached && source_there && stat(so_path, &st) == 0 && S_ISREG(st.st_mode)) {
        double t0 = now_s();
        handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
        stats->load_s = now_s() - t0;
        if (handle) {
            stats->cache_hit = true;
            goto done;
        }
        /* a damaged file: compiled again below */
    }
    if (!source_there && !file_write_atomic(c_path, job->source, job->len)) {
        outcome = DIR_UNUSABLE;
        goto done;
    }
    int fd;
    so_tmp = file_create_temp(so_path, &fd);
    if (!so_tmp) {
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
        put_cannot_run(err, job->cc, rc);
        goto done;
    }
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        put_compile_failure(err, job, status, &out, c_path);
        keep_source = true;
        goto done;
    }

    /* Published before loading, so that the loaded object carries its
     * lasting name (debuggers, sanitizer reports) -- unless this process
     * already holds an older library of that name, which dlopen would hand
     * back instead: then the new file is loaded under its temporary name. */
    void *older = dlopen(so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (older)
        dlclose(older);
    t0 = now_s();
    if (older)
        handle = dlopen(so_tmp, RTLD_NOW | RTLD_LOCAL);
    if (rename(so_tmp, so_path) == 0) {
        free(so_tmp);
        so_tmp = NULL;
        if (!older)
            handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    } else if (!older)
        handle = dlopen(so_tmp, RTLD_NOW | RTLD_LOCAL);
    stats->load_s = now_s() - t0;
    if (!handle) {
        const char *why = dlerror();
        put_error(err, "cannot load the compiled kernels %s: %s", so_path, why ? why : "unknown error");
        if (!so_tmp)
            unlink(so_path);        /* a file that does not load is no cache entry */
    }

done:;
    int saved_errno = errno;    /* why dir is unusable */
    if (so_tmp)
        unlink(so_tmp);
    if (!cached) {
        unlink(so_path);
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
    }
    textbuf_release(&out);
    free(argv);
    free(words);
    free(so_tmp);
    free(so_path);
    free(c_path);
    errno = saved_errno;
    return outcome;
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

    const char *cc = opts->compiler;
    if (!cc) {
        cc = getenv(opts->cplusplus ? "CXX" : "CC");
        if (!cc || !*cc)
            cc = opts->cplusplus ? "c++" : "cc";
    }
    char cc_path[CC_JIT_PATH_MAX];
    TextBuf identity = {0};
    int rc = resolve_program(cc, cc_path, sizeof cc_path) ? compiler_identity(cc_path, &identity) : ENOENT;
    if (rc != 0) {
        textbuf_release(&identity);
        put_cannot_run(err, cc, rc);
        return NULL;
    }

    Job job = {.source = source, .len = len, .cc = cc, .cc_path = cc_path, .cplusplus = opts->cplusplus};
    const char *san = TSSA_KERNEL_SANITIZE_FLAGS;
    const char *extra = opts->extra_flags ? opts->extra_flags : "";
    job.flags = xprintf("%s -std=%s%s%s%s%s", BASE_FLAGS, opts->cplusplus ? "c++17" : "c11", *san ? " " : "",
                        san, *extra ? " " : "", extra);

    pthread_once(&cpu_once, hash_cpu);
    CacheKey h = cache_key_start();
    static const char version[] = "tssa-stream cc_jit 1";
    cache_key_add(&h, version, sizeof version - 1);
    cache_key_add(&h, source, len);
    cache_key_add(&h, identity.data ? identity.data : "", identity.len);
    cache_key_add(&h, &cpu_hash, sizeof cpu_hash);
    cache_key_add(&h, job.flags, strlen(job.flags));
    textbuf_release(&identity);
    cache_key_hex(h, job.hex);

    CcLibrary *lib = NULL;
    bool use_temp = opts->no_cache;
    if (!use_temp) {
        char *dir = opts->cache_dir ? xstrdup(opts->cache_dir) : tssa_cache_dir();
        const char *why = dir ? NULL : "no home directory";
        if (dir && !mkdir_p(dir))
            why = strerror(errno);
        if (!why && compile_and_load(&job, dir, true, stats, err, &lib) == DIR_UNUSABLE)
            why = strerror(errno);
        if (why) {
            if (err)
                fprintf(err, "tssa-stream: warning: the kernel cache '%s' is not usable (%s); compiling in a temporary directory\n",
                        dir ? dir : "~/.cache/tssa-stream", why);
            use_temp = true;
        }
        free(dir);
    }
    if (use_temp) {
        char *dir = make_temp_dir();
        if (!dir)
            put_error(err, "cannot make a temporary directory for the kernels: %s", strerror(errno));
        else if (compile_and_load(&job, dir, false, stats, err, &lib) == DIR_UNUSABLE) {
            put_error(err, "cannot write into the temporary directory %s: %s", dir, strerror(errno));
            rmdir(dir);
        }
        free(dir);
    }
    free(job.flags);
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
    free(lib);
}
