/* test_cc_jit.c — kernels/cc_jit.c: generated C compiled, cached, loaded.
 *
 * Every case works in its own folder under one mkdtemp() root (never the
 * user's ~/.cache), removed at the end. Expected values are worked out by
 * hand next to each check. Prints the cold compile and warm load times.
 * The trust cases (util/cache_trust.c) plant an object whose constructor
 * creates a marker file and whose twice() triples, with a matching sum;
 * the case of another user's folder chowns, so it needs root (else it is
 * skipped with a line saying so).
 */
#define _GNU_SOURCE
#include "tssa/cc_jit.h"

#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "tssa/util.h"

static char root[4096];

/* A fresh folder root/name for one case (its path in a static buffer). */
static const char *case_dir(const char *name)
{
    static char path[4096 + 64];
    snprintf(path, sizeof path, "%s/%s", root, name);
    return path;
}

static CcJitOptions in_dir(const char *dir)
{
    return (CcJitOptions){.cache_dir = dir};
}

/* Loads src with opts; the messages written go to *msg (malloc'd). */
static CcLibrary *load(const char *src, const CcJitOptions *opts, CcJitStats *st, char **msg)
{
    FILE *err = test_capture_open();
    CcLibrary *lib = cc_jit_load(src, strlen(src), opts, st, err);
    char *text = test_capture_close(err, NULL);
    if (msg)
        *msg = text;
    else {
        if (*text)
            fprintf(stderr, "%s", text);
        free(text);
    }
    return lib;
}

/* Entries of dir whose names end with `suffix`, and those holding ".tmp.". */
static int count_files(const char *dir, const char *suffix, int *temps)
{
    int n = 0;
    *temps = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (strstr(e->d_name, ".tmp."))
            (*temps)++;
        else if (len > sl && strcmp(e->d_name + len - sl, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* path with its last ".so" changed to ".c" (malloc'd). */
static char *source_path(const char *so_path)
{
    char *c = strdup(so_path);
    size_t n = strlen(c);
    if (n > 3 && strcmp(c + n - 3, ".so") == 0)
        strcpy(c + n - 3, ".c");
    return c;
}

static bool copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = test_read_file(from, &len);
    if (!data)
        return false;
    FILE *f = fopen(to, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(data);
    return ok;
}

static const char TWICE_SRC[] =
    "#include <omp.h>\n"
    "int twice(int x) { return 2 * x; }\n"
    "void scale(int n, double *restrict y, const double *restrict x, double a)\n"
    "{\n"
    "#pragma omp parallel for\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i];\n"
    "}\n"
    "int team_size(void)\n"
    "{\n"
    "    int t = 0;\n"
    "#pragma omp parallel\n"
    "#pragma omp single\n"
    "    t = omp_get_num_threads();\n"
    "    return t;\n"
    "}\n";

typedef int (*IntFn)(int);
typedef void (*ScaleFn)(int, double *, const double *, double);
typedef int (*VoidIntFn)(void);

/* The functions of TWICE_SRC give hand-computed values. */
static void check_twice(CcLibrary *lib)
{
    IntFn twice = (IntFn)cc_jit_symbol(lib, "twice");
    ScaleFn scale = (ScaleFn)cc_jit_symbol(lib, "scale");
    VoidIntFn team = (VoidIntFn)cc_jit_symbol(lib, "team_size");
    CHECK(twice && scale && team);
    if (!twice || !scale || !team)
        return;
    CHECK(twice(21) == 42);
    CHECK(twice(-7) == -14);
    enum { N = 1000 };
    double x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = -1;
    }
    scale(N, y, x, 2.5);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += y[i] != 2.5 * i;   /* exact: i and 2.5 * i are representable */
    CHECK_MSG(wrong == 0, "%d of %d elements wrong", wrong, N);
    CHECK(team() >= 1);
    CHECK(cc_jit_symbol(lib, "no_such_function") == NULL);
}

/* First load compiles, second is a hit, other flags miss. */
static void test_compile_and_cache(void)
{
    const char *dir = case_dir("cache");
    CcJitOptions o = in_dir(dir);
    CcJitStats cold, warm, other;
    CcLibrary *lib = load(TWICE_SRC, &o, &cold, NULL);
    CHECK(lib);
    CHECK(!cold.cache_hit);
    CHECK(cold.compile_s > 0);
    check_twice(lib);
    CHECK(exists(cold.so_path));
    char *c_path = source_path(cold.so_path);
    size_t len = 0;
    char *stored = test_read_file(c_path, &len);
    CHECK(stored && len == strlen(TWICE_SRC) && memcmp(stored, TWICE_SRC, len) == 0);
    free(stored);
    free(c_path);
    cc_jit_close(lib);

    lib = load(TWICE_SRC, &o, &warm, NULL);
    CHECK(lib);
    CHECK(warm.cache_hit);
    CHECK(warm.compile_s == 0);
    CHECK(strcmp(warm.so_path, cold.so_path) == 0);
    check_twice(lib);
    printf("cold compile %.3f s + load %.4f s; warm load %.4f s\n", cold.compile_s, cold.load_s, warm.load_s);

    o.extra_flags = "-DTSSA_TEST_FLAG=1";
    CcLibrary *lib2 = load(TWICE_SRC, &o, &other, NULL);
    CHECK(lib2);
    CHECK(!other.cache_hit);
    CHECK(strcmp(other.so_path, cold.so_path) != 0);
    check_twice(lib2);
    cc_jit_close(lib2);
    cc_jit_close(lib);
    int temps, sos = count_files(dir, ".so", &temps);
    CHECK(sos == 2);
    CHECK(temps == 0);
}

/* A stored .so and .c of another source under this source's key (a hash
 * collision, or an edit) are not trusted: the source is compiled again. */
static void test_collision_guard(void)
{
    const char *thrice = "int twice(int x) { return 3 * x; }\n";
    const char *plain = "int twice(int x) { return 2 * x; }\n";
    char other_dir[4096 + 64], dir[4096 + 64];
    snprintf(other_dir, sizeof other_dir, "%s", case_dir("collision_other"));
    snprintf(dir, sizeof dir, "%s", case_dir("collision"));
    CcJitOptions o = in_dir(other_dir);
    CcJitStats a, b, c;
    CcLibrary *lib = load(thrice, &o, &a, NULL);
    CHECK(lib);
    cc_jit_close(lib);
    o.cache_dir = dir;
    lib = load(plain, &o, &b, NULL);
    CHECK(lib);
    cc_jit_close(lib);

    /* plain's key now holds thrice's files */
    char *a_c = source_path(a.so_path), *b_c = source_path(b.so_path);
    CHECK(copy_file(a.so_path, b.so_path));
    CHECK(copy_file(a_c, b_c));
    lib = load(plain, &o, &c, NULL);
    CHECK(lib);
    CHECK(!c.cache_hit);
    IntFn twice = lib ? (IntFn)cc_jit_symbol(lib, "twice") : NULL;
    CHECK(twice && twice(5) == 10);     /* 15 would be thrice's object */
    cc_jit_close(lib);
    size_t len = 0;
    char *stored = test_read_file(b_c, &len);
    CHECK(stored && len == strlen(plain) && memcmp(stored, plain, len) == 0);
    free(stored);

    /* and an edited .c alone */
    FILE *f = fopen(b_c, "ab");
    CHECK(f && fputs("/* edited */\n", f) >= 0);
    if (f)
        fclose(f);
    lib = load(plain, &o, &c, NULL);
    CHECK(lib && !c.cache_hit);
    cc_jit_close(lib);
    lib = load(plain, &o, &c, NULL);
    CHECK(lib && c.cache_hit);
    cc_jit_close(lib);
    free(a_c);
    free(b_c);
}

static void test_syntax_error(void)
{
    const char *bad = "int broken(void)\n{\n    return 1 +;\n}\n";
    const char *dir = case_dir("syntax");
    CcJitOptions o = in_dir(dir);
    CcJitStats st;
    char *msg;
    CcLibrary *lib = load(bad, &o, &st, &msg);
    CHECK(!lib);
    CHECK_CONTAINS(msg, "tssa-stream: error: the kernel compiler");
    CHECK_CONTAINS(msg, "expected expression");     /* gcc's and clang's words */
    CHECK_CONTAINS(msg, ".c:3:");                   /* the line of the error */
    CHECK_CONTAINS(msg, "the generated source is at ");
    const char *at = msg ? strstr(msg, "the generated source is at ") : NULL;
    if (at) {
        char path[4096 + 64];
        snprintf(path, sizeof path, "%s", at + strlen("the generated source is at "));
        path[strcspn(path, "\n")] = '\0';
        CHECK_MSG(strncmp(path, dir, strlen(dir)) == 0, "%s is not in the cache", path);
        size_t len = 0;
        char *kept = test_read_file(path, &len);
        CHECK(kept && len == strlen(bad) && memcmp(kept, bad, len) == 0);
        free(kept);
    }
    free(msg);
    int temps;
    CHECK(count_files(dir, ".so", &temps) == 0);
    CHECK(temps == 0);

    /* without a cache the source is kept in its temporary folder */
    CcJitOptions none = {.no_cache = true};
    lib = load(bad, &none, &st, &msg);
    CHECK(!lib);
    at = msg ? strstr(msg, "the generated source is at ") : NULL;
    CHECK(at);
    if (at) {
        char path[4096 + 64];
        snprintf(path, sizeof path, "%s", at + strlen("the generated source is at "));
        path[strcspn(path, "\n")] = '\0';
        CHECK(exists(path));
        unlink(path);
        char *slash = strrchr(path, '/');
        if (slash) {
            *slash = '\0';
            CHECK(rmdir(path) == 0);    /* nothing else was left there */
        }
    }
    free(msg);
}

static void test_missing_compiler(void)
{
    CcJitOptions o = in_dir(case_dir("missing"));
    o.compiler = "/nonexistent/cc";
    char *msg;
    CHECK(!load(TWICE_SRC, &o, NULL, &msg));
    CHECK_CONTAINS(msg, "tssa-stream: error: the kernel compiler '/nonexistent/cc' was not found;");
    CHECK_CONTAINS(msg, "install gcc (apt-get install gcc) or set CC");
    free(msg);

    /* $CC when no compiler is given */
    char *saved = getenv("CC") ? strdup(getenv("CC")) : NULL;
    setenv("CC", "no-such-compiler-tssa", 1);
    o.compiler = NULL;
    CHECK(!load(TWICE_SRC, &o, NULL, &msg));
    CHECK_CONTAINS(msg, "'no-such-compiler-tssa' was not found");
    free(msg);
    if (saved)
        setenv("CC", saved, 1);
    else
        unsetenv("CC");
    free(saved);
}

/* Four processes compile one new source into one fresh folder at once. */
static void test_concurrent(void)
{
    const char *dir = case_dir("concurrent");
    char src[256];
    snprintf(src, sizeof src, "int twice(int x) { return 2 * x; }\n/* run %ld */\n", (long)getpid());
    int go[2];
    CHECK(pipe(go) == 0);
    fflush(NULL);
    enum { KIDS = 4 };
    pid_t kids[KIDS];
    for (int k = 0; k < KIDS; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            close(go[1]);
            char c;
            while (read(go[0], &c, 1) > 0) {}   /* until the parent closes it */
            CcJitOptions o = in_dir(dir);
            CcLibrary *lib = cc_jit_load(src, strlen(src), &o, NULL, stderr);
            IntFn twice = lib ? (IntFn)cc_jit_symbol(lib, "twice") : NULL;
            int ok = twice && twice(4) == 8;
            cc_jit_close(lib);
            exit(ok ? 0 : 1);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int k = 0; k < KIDS; k++) {
        int status = -1;
        CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k]);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %d", k, status);
    }
    int temps;
    CHECK(count_files(dir, ".so", &temps) == 1);
    CHECK(count_files(dir, ".c", &temps) == 1);
    CHECK(temps == 0);
}

/* Flags reach the compiler: -Wall -Werror refuses an unused variable. */
static void test_extra_flags(void)
{
    const char *src = "int f(void)\n{\n    int unused_variable = 3;\n    return 0;\n}\n";
    CcJitOptions o = in_dir(case_dir("flags"));
    char *msg;
    CcLibrary *lib = load(src, &o, NULL, &msg);
    CHECK(lib);
    CHECK(msg && !*msg);
    free(msg);
    cc_jit_close(lib);
    o.extra_flags = "  -Wall\t-Werror ";
    lib = load(src, &o, NULL, &msg);
    CHECK(!lib);
    CHECK_CONTAINS(msg, "unused_variable");
    CHECK_CONTAINS(msg, "-Werror");
    free(msg);
}

/* An unusable cache folder, no cache at all, odd inputs. */
static void test_fallbacks(void)
{
    CcJitOptions o = in_dir("/proc/no-such-folder/tssa");
    CcJitStats st;
    char *msg;
    CcLibrary *lib = load(TWICE_SRC, &o, &st, &msg);
    CHECK(lib);
    CHECK_CONTAINS(msg, "tssa-stream: warning: the kernel cache '/proc/no-such-folder/tssa' is not usable");
    const char *nl = msg ? strchr(msg, '\n') : NULL;
    CHECK(nl && !strchr(nl + 1, '\n'));                      /* one line */
    check_twice(lib);
    CHECK(!exists(st.so_path));
    cc_jit_close(lib);
    free(msg);

    /* a file where the folder should be */
    char file[4096 + 64];
    snprintf(file, sizeof file, "%s", case_dir("a_file"));
    CHECK(copy_file("/proc/self/cmdline", file));
    o.cache_dir = file;
    lib = load(TWICE_SRC, &o, &st, &msg);
    CHECK(lib);
    CHECK_CONTAINS(msg, "is not usable");
    cc_jit_close(lib);
    free(msg);

    CcJitOptions none = {.no_cache = true};
    lib = load(TWICE_SRC, &none, &st, &msg);
    CHECK(lib);
    CHECK(msg && !*msg);
    CHECK(!st.cache_hit);
    CHECK(!exists(st.so_path));
    char *slash = strrchr(st.so_path, '/');
    if (slash) {
        *slash = '\0';
        CHECK(!exists(st.so_path));     /* its folder went too */
    }
    check_twice(lib);
    cc_jit_close(lib);
    free(msg);

    /* no source, an empty one, one with a NUL byte */
    o = in_dir(case_dir("odd"));
    FILE *err = test_capture_open();
    CHECK(!cc_jit_load(NULL, 5, &o, NULL, err));
    msg = test_capture_close(err, NULL);
    CHECK_CONTAINS(msg, "no kernel source");
    free(msg);
    lib = cc_jit_load(NULL, 0, &o, NULL, stderr);
    CHECK(lib);
    CHECK(cc_jit_symbol(lib, "twice") == NULL);
    cc_jit_close(lib);
    static const char with_nul[] = "int x;\n\0garbage";
    err = test_capture_open();
    CHECK(!cc_jit_load(with_nul, sizeof with_nul - 1, &o, NULL, err));
    msg = test_capture_close(err, NULL);
    CHECK_CONTAINS(msg, "the generated source is at");
    free(msg);
    cc_jit_close(NULL);
    CHECK(cc_jit_symbol(NULL, "twice") == NULL);
}

/* ---------------------------------------------------------------- trust and repair */
/* OpenMP-free sources: the trust cases run in forked children (one process
 * each, for the once-per-process warning), after the parent's OpenMP pool
 * may exist. */
static const char PLAIN_SRC[] = "int twice(int x) { return 2 * x; }\n";
static char marker[4200];

/* The number of times part occurs in text. */
static int occurrences(const char *text, const char *part)
{
    int n = 0;
    for (const char *at = text; at && (at = strstr(at, part)); at += strlen(part))
        n++;
    return n;
}

/* Builds the planted object -- twice() tripling, and a constructor that
 * creates `marker` -- checks that loading it does create the marker (so the
 * checks below can fail), and returns its path (static). */
static const char *build_planted(void)
{
    static char so[4200 + 64];
    char src[8400];
    snprintf(marker, sizeof marker, "%s/marker", root);
    snprintf(src, sizeof src,
             "#include <stdio.h>\n"
             "int twice(int x) { return 3 * x; }\n"
             "__attribute__((constructor)) static void planted(void)\n"
             "{\n    FILE *f = fopen(\"%s\", \"w\");\n    if (f)\n        fclose(f);\n}\n", marker);
    CcJitOptions o = in_dir(case_dir("planted_build"));
    CcJitStats st;
    CcLibrary *lib = load(src, &o, &st, NULL);
    CHECK(lib && exists(marker));
    cc_jit_close(lib);
    unlink(marker);
    snprintf(so, sizeof so, "%s", st.so_path);
    return so;
}

/* Puts a copy of `from` at `to` with a sum that matches it, so that only
 * the trust rules can refuse it. */
static void plant(const char *from, const char *to)
{
    size_t len = 0;
    char *bytes = test_read_file(from, &len);
    CHECK(bytes && copy_file(from, to) && cache_sum_write(to, bytes, len));
    free(bytes);
}

/* Loads PLAIN_SRC from o's cache: right, the planted constructor not run;
 * returns the messages (malloc'd). */
static char *load_plain_checked(const CcJitOptions *o, CcJitStats *st)
{
    char *msg;
    CcLibrary *lib = load(PLAIN_SRC, o, st, &msg);
    IntFn twice = lib ? (IntFn)cc_jit_symbol(lib, "twice") : NULL;
    CHECK(twice && twice(5) == 10);     /* 15: the planted object */
    CHECK_MSG(!exists(marker), "the planted object's constructor ran");
    cc_jit_close(lib);
    return msg;
}

/* An entry of ours that others may write (0666), and one that is a
 * symbolic link out of the cache: not loaded, one warning naming it, and
 * replaced, so that the next load is a quiet hit. */
static void untrusted_entry(bool linked)
{
    const char *planted = build_planted();
    char dir[4200];     /* case_dir's buffer is reused */
    snprintf(dir, sizeof dir, "%s", case_dir(linked ? "symlink_entry" : "writable_entry"));
    CcJitOptions o = in_dir(dir);
    CcJitStats st;
    free(load_plain_checked(&o, &st));
    if (!linked) {
        plant(planted, st.so_path);
        CHECK(chmod(st.so_path, 0666) == 0);
    } else {
        char outside[4200 + 80], outside_sum[4200 + 88], sum[CC_JIT_PATH_MAX + 8];
        snprintf(outside, sizeof outside, "%s/outside.so", root);
        snprintf(outside_sum, sizeof outside_sum, "%s.sum", outside);
        snprintf(sum, sizeof sum, "%s.sum", st.so_path);
        plant(planted, outside);
        CHECK(unlink(st.so_path) == 0 && symlink(outside, st.so_path) == 0);
        CHECK(copy_file(outside_sum, sum));
    }
    char *msg = load_plain_checked(&o, &st);
    CHECK(!st.cache_hit);
    CHECK_CONTAINS(msg, "tssa-stream: warning: not using the cache: ");
    CHECK_CONTAINS(msg, st.so_path);
    CHECK_CONTAINS(msg, linked ? "is a symbolic link" : "mode 0666");
    free(msg);
    struct stat lst;
    CHECK(lstat(st.so_path, &lst) == 0 && S_ISREG(lst.st_mode) && (lst.st_mode & 022) == 0);
    msg = load_plain_checked(&o, &st);
    CHECK(st.cache_hit);
    CHECK(msg && !*msg);
    free(msg);
    /* the warning is once per process: a second untrusted entry prints none */
    if (!linked) {
        CHECK(chmod(st.so_path, 0666) == 0);
        msg = load_plain_checked(&o, &st);
        CHECK(msg && !*msg);
        free(msg);
    }
}

static void child_writable_entry(void)
{
    untrusted_entry(false);
}

static void child_linked_entry(void)
{
    untrusted_entry(true);
}

/* A cache folder of another user, mode 1777, holding the planted object
 * under the key: never loaded; two loads warn once, naming the folder, its
 * owner and mode; the kernels are compiled in a temporary folder that is
 * removed. Needs root (chown). */
static void child_foreign_folder(void)
{
    const char *planted = build_planted();
    CcJitOptions trusted = in_dir(case_dir("foreign_key"));
    CcJitStats st;
    free(load_plain_checked(&trusted, &st));
    char foreign[4200], entry[4400], tmp[4200];
    snprintf(foreign, sizeof foreign, "%s", case_dir("foreign"));
    snprintf(tmp, sizeof tmp, "%s", case_dir("foreign_tmp"));
    CHECK(mkdir(foreign, 0755) == 0 && mkdir(tmp, 0700) == 0);
    setenv("TMPDIR", tmp, 1);
    const char *key = strrchr(st.so_path, '/') + 1;
    snprintf(entry, sizeof entry, "%s/%s", foreign, key);
    plant(planted, entry);
    char *c_from = source_path(st.so_path), *c_to = source_path(entry);
    CHECK(copy_file(c_from, c_to));
    char sum[4400 + 8];
    snprintf(sum, sizeof sum, "%s.sum", entry);
    CHECK(chown(entry, 65534, 65534) == 0 && chown(c_to, 65534, 65534) == 0 && chown(sum, 65534, 65534) == 0);
    CHECK(chown(foreign, 65534, 65534) == 0 && chmod(foreign, 01777) == 0);
    free(c_from);
    free(c_to);

    CcJitOptions o = in_dir(foreign);
    char *first = load_plain_checked(&o, &st);
    char *second = load_plain_checked(&o, &st);
    CHECK_MSG(occurrences(first, "warning: not using the cache") == 1 && occurrences(second, "warning") == 0,
              "one warning expected:\n%s---\n%s", first, second);
    CHECK_CONTAINS(first, foreign);
    CHECK_CONTAINS(first, "uid 65534");
    CHECK_CONTAINS(first, "mode 1777");
    CHECK_CONTAINS(first, "compiling the kernels in a temporary directory");
    free(first);
    free(second);
    CHECK(!st.cache_hit && !exists(st.so_path));
    CHECK(rmdir(tmp) == 0);     /* the temporary folders went */
}

/* Runs fn in a child process of its own. */
static void in_child(void (*fn)(void), const char *name)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        test_failures = 0;
        fn();
        fflush(NULL);
        _exit(test_failures ? 1 : 0);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d", name, status);
}

static void test_untrusted(void)
{
    in_child(child_writable_entry, "an entry others may write");
    in_child(child_linked_entry, "an entry linked out of the cache");
    if (geteuid() == 0)
        in_child(child_foreign_folder, "another user's folder");
    else
        printf("skipped: a cache folder of another user (needs root to chown)\n");
}

/* A cached object cut short, another source's object with its own sum, an
 * object without its sum: each is compiled again (right values), and the
 * next load hits. */
static void expect_rebuilt(const CcJitOptions *o, const char *what)
{
    CcJitStats st;
    CcLibrary *lib = load(TWICE_SRC, o, &st, NULL);
    CHECK_MSG(lib && !st.cache_hit, "%s", what);
    check_twice(lib);
    cc_jit_close(lib);
    lib = load(TWICE_SRC, o, &st, NULL);
    CHECK_MSG(lib && st.cache_hit, "%s: not a hit after the repair", what);
    cc_jit_close(lib);
}

static void test_repair(void)
{
    static const char *const symbols[] = {"twice", "scale", "team_size"};
    char dir[4200];     /* case_dir's buffer is reused */
    snprintf(dir, sizeof dir, "%s", case_dir("repair"));
    CcJitOptions o = in_dir(dir);
    o.symbols = symbols;
    o.nsymbols = 3;
    CcJitStats st, other;
    CcLibrary *lib = load(TWICE_SRC, &o, &st, NULL);
    CHECK(lib);
    cc_jit_close(lib);
    char sum[CC_JIT_PATH_MAX + 8];
    snprintf(sum, sizeof sum, "%s.sum", st.so_path);
    CHECK(exists(sum));

    CHECK(truncate(st.so_path, 4096) == 0);
    expect_rebuilt(&o, "cut short");

    CcJitOptions elsewhere = in_dir(case_dir("repair_other"));
    lib = load(PLAIN_SRC, &elsewhere, &other, NULL);
    CHECK(lib);
    cc_jit_close(lib);
    char other_sum[CC_JIT_PATH_MAX + 8];
    snprintf(other_sum, sizeof other_sum, "%s.sum", other.so_path);
    CHECK(copy_file(other.so_path, st.so_path) && copy_file(other_sum, sum));
    expect_rebuilt(&o, "another source's object");   /* it lacks scale() */

    CHECK(unlink(sum) == 0);
    expect_rebuilt(&o, "no sum");
    CHECK(exists(sum));
}

/* $CC split into words: "cc -O0" compiles (another key than "cc"), a
 * quoted path with a space works, a missing program is "not found". */
static void test_cc_words(void)
{
    char *saved = getenv("CC") ? strdup(getenv("CC")) : NULL;
    char dir[4200];     /* case_dir's buffer is reused */
    snprintf(dir, sizeof dir, "%s", case_dir("cc_words"));
    CcJitOptions o = in_dir(dir);
    CcJitStats a, b;
    setenv("CC", "cc", 1);
    CcLibrary *lib = load(PLAIN_SRC, &o, &a, NULL);
    CHECK(lib);
    cc_jit_close(lib);
    setenv("CC", " cc\t-O0 ", 1);
    lib = load(PLAIN_SRC, &o, &b, NULL);
    IntFn twice = lib ? (IntFn)cc_jit_symbol(lib, "twice") : NULL;
    CHECK(twice && twice(4) == 8);
    CHECK(!b.cache_hit && strcmp(a.so_path, b.so_path) != 0);
    cc_jit_close(lib);

    char spaced[4200 + 64], link[4200 + 80], cc[8600];
    snprintf(spaced, sizeof spaced, "%s", case_dir("my cc"));
    snprintf(link, sizeof link, "%s/cc", spaced);
    CHECK(mkdir(spaced, 0700) == 0 && symlink("/usr/bin/cc", link) == 0);
    snprintf(cc, sizeof cc, "'%s' -O1", link);
    setenv("CC", cc, 1);
    lib = load(PLAIN_SRC, &o, &b, NULL);
    CHECK(lib && !b.cache_hit);
    cc_jit_close(lib);

    char *msg;
    setenv("CC", "no-such-compiler-tssa -O0", 1);
    CHECK(!load(PLAIN_SRC, &o, NULL, &msg));
    CHECK_CONTAINS(msg, "the kernel compiler 'no-such-compiler-tssa -O0' was not found");
    free(msg);
    if (saved)
        setenv("CC", saved, 1);
    else
        unsetenv("CC");
    free(saved);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/tssa-cc-jit-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_concurrent();          /* first: fork before any OpenMP pool runs */
    test_untrusted();           /* forks too */
    test_compile_and_cache();
    test_collision_guard();
    test_syntax_error();
    test_missing_compiler();
    test_extra_flags();
    test_fallbacks();
    test_repair();
    test_cc_words();
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_report("cc_jit");
}
