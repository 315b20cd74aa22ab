/* conform.c — tssa-conform, the conformance runner: every corpus case in
 * every requested mode, in one program instead of a shell script and a
 * tssa-stream process per case and mode.
 *
 *   tssa-conform [--mode=ref,cpu,tssa,roundtrip,cuda,fission2,fission3,devices3,others ...]
 *                [--filter=REGEX] [--shard=I/N] [--jobs=N] [--timeout=SECONDS]
 *                [--model=FILE] CASE_DIR_OR_GROUP_DIR...
 *
 * A directory with an args.txt is a case; any other is a group, whose
 * subdirectories with an args.txt are its cases. A case's name is
 * GROUP.NAME (its parent folder's name and its own: ops.abs__float), which
 * --filter (an extended regular expression, searched) selects on; --shard=I/N
 * keeps every Nth (mode, case) pair from the Ith (1-based), after the filter.
 *
 * Each case runs in a process forked from this one (no exec) that calls
 * tssa_stream_main for the tssa-stream runs of its mode (case_run.c: the
 * last in that process, any earlier one in a process forked from it) and
 * judges the result; its exit status is the verdict. This process only
 * lists cases, forks, waits (killing a case's process group after
 * --timeout seconds, a FAIL) and prints: it never runs a kernel, so it
 * never starts OpenMP's or OpenBLAS's threads, which a fork would not
 * carry. Since every run's process ends with exit(), LeakSanitizer and
 * valgrind (which follows fork) check each run as they checked each
 * tssa-stream program: a leak or memory error fails that case (a sanitizer's
 * abort or valgrind's --error-exitcode status is not a verdict).
 *
 * Prints a line per case (PASS/FAIL/SKIP MODE GROUP.NAME (seconds)), a
 * failure's reasons and captured standard error under it, and a summary.
 * Exit status: 0 when every case passed (skips aside), 1 when one failed, 77
 * when none passed or failed: every case skipped (the cuda modes in a build
 * without the cuda backend) or none selected; 2 for a bad command line.
 *
 * The environment is the shell runners' (tests/case_lib.sh): kernels
 * compile with TSSA_KERNEL_CFLAGS="-Wall -Wextra -Werror" and cache in the
 * build tree (TSSA_CACHE_DIR), unless the environment says otherwise; the
 * cuda modes run on a GPU where nvidia-smi lists one, else on the backend's
 * CPU shim (TSSA_CUDA_EMULATE=1), unless TSSA_CUDA_EMULATE is set.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance/case_run.h"
#include "test_util.h"
#include "tssa/util.h"

enum { MAX_JOBS = 64 };

typedef struct Task {
    Mode mode;
    const char *case_dir; /* absolute */
    char id[512];         /* GROUP.NAME */
} Task;

typedef struct Running {
    pid_t pid; /* 0: a free slot */
    int task;
    double started;
    char tmp[4096];
} Running;

typedef struct Totals {
    int passed, failed, skipped;
    char **failures;
    int nfailures;
} Totals;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *to)
{
    fputs("usage: tssa-conform [--mode=MODE,...] [--filter=REGEX] [--shard=I/N] [--jobs=N]\n"
          "                    [--timeout=SECONDS] [--model=FILE] CASE_DIR_OR_GROUP_DIR...\n"
          "modes: ref cpu tssa roundtrip cuda fission2 fission3 devices3 others (default: ref)\n",
          to);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_case_dir(const char *dir)
{
    char *path = xprintf("%s/args.txt", dir);
    bool found = access(path, F_OK) == 0;
    free(path);
    return found;
}

/* Appends DIR (a case) or DIR's cases (a group), sorted by name, to cases. */
static bool collect_cases(const char *dir, char ***cases, int *ncases)
{
    char *abs = realpath(dir, NULL);
    if (!abs) {
        fprintf(stderr, "tssa-conform: %s: %s\n", dir, strerror(errno));
        return false;
    }
    char **found = NULL;
    int nfound = 0;
    if (is_case_dir(abs)) {
        found = malloc(sizeof *found);
        found[nfound++] = abs;
    } else {
        DIR *d = opendir(abs);
        if (!d) {
            fprintf(stderr, "tssa-conform: %s: %s\n", dir, strerror(errno));
            free(abs);
            return false;
        }
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char *path = xprintf("%s/%s", abs, e->d_name);
            if (is_case_dir(path)) {
                found = realloc(found, (size_t)(nfound + 1) * sizeof *found);
                found[nfound++] = path;
            } else {
                free(path);
            }
        }
        closedir(d);
        free(abs);
        qsort(found, (size_t)nfound, sizeof *found, compare_strings);
    }
    *cases = realloc(*cases, (size_t)(*ncases + nfound) * sizeof **cases);
    memcpy(*cases + *ncases, found, (size_t)nfound * sizeof *found);
    *ncases += nfound;
    free(found);
    return true;
}

/* GROUP.NAME of a case directory .../GROUP/NAME. */
static void case_id(const char *dir, char *out, size_t size)
{
    const char *name = strrchr(dir, '/');
    const char *group = name;
    while (group > dir && group[-1] != '/')
        group--;
    snprintf(out, size, "%.*s.%s", (int)(name - group), group, name + 1);
}

static bool parse_modes(const char *list, bool *wanted)
{
    while (*list) {
        size_t len = strcspn(list, ",");
        Mode mode;
        if (!mode_parse(list, len, &mode)) {
            fprintf(stderr, "tssa-conform: unknown mode '%.*s'\n", (int)len, list);
            return false;
        }
        wanted[mode] = true;
        list += len + (list[len] == ',');
    }
    return true;
}

static bool parse_count(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    remove(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether the cuda modes should run on a GPU (nvidia-smi lists one): "0",
 * else "1", for TSSA_CUDA_EMULATE, as tests/case_lib.sh's
 * cuda_on_gpu_or_shim decides. */
static const char *cuda_emulate_choice(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execlp("nvidia-smi", "nvidia-smi", "-L", (char *)NULL);
        _exit(127);
    }
    int status = 1;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return "1";
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "0" : "1";
}

/* The case's process: its own process group (a timeout kills the group:
 * it and its tssa-stream runs and their compilers), standard input from
 * /dev/null, its own messages (a sanitizer's report on it) in TMP/case.err,
 * the verdict's reasons in TMP/report; the exit status is the verdict. */
static void case_process(const Task *task, const char *model, const char *tmp,
                         const char *cuda_emulate, const sigset_t *old_mask)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    signal(SIGCHLD, SIG_DFL);
    char path[4200];
    snprintf(path, sizeof path, "%s/case.err", tmp);
    int in = open("/dev/null", O_RDONLY);
    int err = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(err, 1) < 0 || dup2(err, 2) < 0)
        _exit(125);
    close(in);
    close(err);
    if (mode_needs_cuda(task->mode) && cuda_emulate)
        setenv("TSSA_CUDA_EMULATE", cuda_emulate, 1);
    snprintf(path, sizeof path, "%s/report", tmp);
    FILE *report = fopen(path, "w");
    if (!report)
        _exit(125);
    int verdict = case_run(task->mode, task->case_dir, model, tmp, report);
    fclose(report);
    exit(verdict);
}

/* Prints FILE's lines indented under a case's line. */
static void print_indented(const char *path, const char *heading)
{
    size_t len = 0;
    char *text = test_read_file(path, &len);
    if (text && len > 0) {
        if (heading)
            printf("  %s\n", heading);
        for (char *line = text; *line;) {
            size_t n = strcspn(line, "\n");
            printf("  %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
    free(text);
}

/* Prints the verdict of a finished case (STATUS from waitpid, or -1 when it
 * was killed for running past the timeout) and counts it. */
static void finish(const Task *task, const Running *run, int status, double timeout,
                   Totals *totals)
{
    char report[4200], case_err[4200], line[1200];
    snprintf(report, sizeof report, "%s/report", run->tmp);
    snprintf(case_err, sizeof case_err, "%s/case.err", run->tmp);
    double seconds = now_seconds() - run->started;
    const char *name = mode_name(task->mode);
    int verdict = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (verdict == CASE_PASS) {
        printf("PASS %s %s (%.2f s)\n", name, task->id, seconds);
        totals->passed++;
    } else if (verdict == CASE_SKIP) {
        char reason[512] = "";
        FILE *f = fopen(report, "r");
        if (f) {
            if (fgets(reason, sizeof reason, f))
                reason[strcspn(reason, "\n")] = '\0';
            fclose(f);
        }
        printf("SKIP %s %s: %s\n", name, task->id, reason);
        totals->skipped++;
    } else {
        printf("FAIL %s %s (%.2f s)\n", name, task->id, seconds);
        if (status < 0)
            printf("  FAIL: no verdict after %.0f s (--timeout): killed\n", timeout);
        else if (WIFSIGNALED(status))
            printf("  FAIL: the case's process %d was killed by signal %d\n", (int)run->pid,
                   WTERMSIG(status));
        else if (verdict != CASE_FAIL)
            printf("  FAIL: the case's process %d exited with status %d (a sanitizer's error: "
                   "its report below; valgrind's: its lines marked ==%d==)\n",
                   (int)run->pid, verdict, (int)run->pid);
        print_indented(report, NULL);
        print_indented(case_err, "(the case process's own messages:)");
        if (verdict != CASE_FAIL) {
            /* A run in the case's process that crashed or was stopped by a
             * sanitizer: its report is in the run's standard error. */
            char run_err[4200];
            snprintf(run_err, sizeof run_err, "%s/stderr", run->tmp);
            print_indented(run_err, "(the run's standard error:)");
        }
        snprintf(line, sizeof line, "%s %s", name, task->id);
        totals->failures = realloc(totals->failures,
                                   (size_t)(totals->nfailures + 1) * sizeof *totals->failures);
        totals->failures[totals->nfailures++] = strdup(line);
        totals->failed++;
    }
    fflush(stdout);
    remove_tree(run->tmp);
}

/* Kills the running cases' process groups and removes their folders. */
static void stop_cases(Running *running, int jobs)
{
    for (int slot = 0; slot < jobs; slot++) {
        if (running[slot].pid) {
            kill(-running[slot].pid, SIGKILL);
            waitpid(running[slot].pid, NULL, 0);
            remove_tree(running[slot].tmp);
            running[slot].pid = 0;
        }
    }
}

static void on_child(int sig)
{
    (void)sig; /* only wakes sigtimedwait */
}

int main(int argc, char **argv)
{
    bool wanted[MODE_COUNT] = {false}, any_mode = false;
    const char *filter_text = NULL, *model = NULL;
    long shard = 1, nshards = 1, jobs = 1, timeout = 900;
    char **dirs = NULL;
    int ndirs = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--mode=", 7) == 0) {
            if (!parse_modes(arg + 7, wanted)) {
                usage(stderr);
                return 2;
            }
            any_mode = true;
        } else if (strncmp(arg, "--filter=", 9) == 0) {
            filter_text = arg + 9;
        } else if (strncmp(arg, "--model=", 8) == 0) {
            model = realpath(arg + 8, NULL);
            if (!model) {
                fprintf(stderr, "tssa-conform: %s: %s\n", arg + 8, strerror(errno));
                return 2;
            }
        } else if (strncmp(arg, "--shard=", 8) == 0) {
            char text[64];
            snprintf(text, sizeof text, "%s", arg + 8);
            char *slash = strchr(text, '/');
            if (!slash || (*slash = '\0', !parse_count(text, 1, 100000, &shard)) ||
                !parse_count(slash + 1, 1, 100000, &nshards) || shard > nshards) {
                fprintf(stderr, "tssa-conform: --shard needs I/N with 1 <= I <= N\n");
                return 2;
            }
        } else if (strncmp(arg, "--jobs=", 7) == 0) {
            if (!parse_count(arg + 7, 1, MAX_JOBS, &jobs)) {
                fprintf(stderr, "tssa-conform: --jobs needs a count from 1 to %d\n", MAX_JOBS);
                return 2;
            }
        } else if (strncmp(arg, "--timeout=", 10) == 0) {
            if (!parse_count(arg + 10, 1, 1000000, &timeout)) {
                fprintf(stderr, "tssa-conform: --timeout needs a number of seconds\n");
                return 2;
            }
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (arg[0] == '-') {
            fprintf(stderr, "tssa-conform: unknown option %s\n", arg);
            usage(stderr);
            return 2;
        } else {
            dirs = realloc(dirs, (size_t)(ndirs + 1) * sizeof *dirs);
            dirs[ndirs++] = argv[i];
        }
    }
    if (ndirs == 0) {
        usage(stderr);
        return 2;
    }
    if (!any_mode)
        wanted[MODE_REF] = true;
    regex_t filter;
    if (filter_text && regcomp(&filter, filter_text, REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "tssa-conform: --filter: not a regular expression: %s\n", filter_text);
        return 2;
    }

    char **cases = NULL;
    int ncases = 0;
    for (int i = 0; i < ndirs; i++) {
        if (!collect_cases(dirs[i], &cases, &ncases))
            return 2;
    }
    /* The (mode, case) pairs, mode by mode; the shard takes every Nth. */
    Task *tasks = calloc((size_t)ncases * MODE_COUNT + 1, sizeof *tasks);
    int ntasks = 0, selected = 0;
    bool need_cuda = false;
    for (int m = 0; m < MODE_COUNT; m++) {
        for (int c = 0; wanted[m] && c < ncases; c++) {
            Task *t = &tasks[ntasks];
            t->mode = (Mode)m;
            t->case_dir = cases[c];
            case_id(cases[c], t->id, sizeof t->id);
            if (filter_text && regexec(&filter, t->id, 0, NULL, 0) != 0)
                continue;
            if (!mode_applies(t->mode, t->case_dir))
                continue;
            if (selected++ % nshards != shard - 1)
                continue;
            need_cuda |= mode_needs_cuda(t->mode);
            ntasks++;
        }
    }

    if (ntasks == 0)
        fprintf(stderr, "tssa-conform: no case selected (shard %ld/%ld)\n", shard, nshards);

    /* tests/case_lib.sh's environment (kernel_cache_in_build). */
    setenv("TSSA_KERNEL_CFLAGS", "-Wall -Wextra -Werror", 0);
#ifdef TSSA_CONFORM_CACHE_DIR
    setenv("TSSA_CACHE_DIR", TSSA_CONFORM_CACHE_DIR, 0);
#endif
    const char *cuda_emulate = NULL;
    if (need_cuda && !getenv("TSSA_CUDA_EMULATE"))
        cuda_emulate = cuda_emulate_choice();
    /* A sanitizer's abort in a run must not leave a core file in the case. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *tmp_root = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    /* SIGCHLD stays blocked here so that sigtimedwait sees each one; so do
     * the signals that end the runner (an interrupt, a closed pipe), so that
     * it ends its cases and removes their folders first. */
    static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    sigset_t child_set, old_mask;
    sigemptyset(&child_set);
    sigaddset(&child_set, SIGCHLD);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
        sigaddset(&child_set, stop_signals[i]);
    signal(SIGCHLD, on_child);
    sigprocmask(SIG_BLOCK, &child_set, &old_mask);

    Running running[MAX_JOBS] = {{0}};
    Totals totals = {0};
    double began = now_seconds();
    int next = 0, nrunning = 0;
    while (next < ntasks || nrunning > 0) {
        for (int slot = 0; slot < jobs && next < ntasks; slot++) {
            if (running[slot].pid)
                continue;
            Running *r = &running[slot];
            snprintf(r->tmp, sizeof r->tmp, "%s/tssa-conform.XXXXXX", tmp_root);
            if (!mkdtemp(r->tmp)) {
                fprintf(stderr, "tssa-conform: mkdtemp in %s: %s\n", tmp_root, strerror(errno));
                return 1;
            }
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, "tssa-conform: fork: %s\n", strerror(errno));
                return 1;
            }
            if (pid == 0)
                case_process(&tasks[next], model, r->tmp, cuda_emulate, &old_mask);
            setpgid(pid, pid);
            r->pid = pid;
            r->task = next++;
            r->started = now_seconds();
            nrunning++;
        }
        /* Sleep until a case ends or the earliest deadline passes. */
        double wake = 1e300;
        for (int slot = 0; slot < jobs; slot++) {
            if (running[slot].pid && running[slot].started + (double)timeout < wake)
                wake = running[slot].started + (double)timeout;
        }
        double wait = wake - now_seconds();
        if (wait > 0) {
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            int sig = sigtimedwait(&child_set, NULL, &ts);
            if (sig > 0 && sig != SIGCHLD) {
                stop_cases(running, (int)jobs);
                fprintf(stderr, "tssa-conform: stopped by signal %d\n", sig);
                return 128 + sig;
            }
        }
        for (int slot = 0; slot < jobs; slot++) {
            Running *r = &running[slot];
            if (!r->pid)
                continue;
            int status;
            pid_t done = waitpid(r->pid, &status, WNOHANG);
            if (done == 0 && now_seconds() >= r->started + (double)timeout) {
                kill(-r->pid, SIGKILL);
                waitpid(r->pid, &status, 0);
                status = -1;
                done = r->pid;
            }
            if (done == r->pid) {
                finish(&tasks[r->task], r, status, (double)timeout, &totals);
                r->pid = 0;
                nrunning--;
            }
        }
    }

    printf("tssa-conform: %d passed, %d failed, %d skipped, in %.1f s\n", totals.passed,
           totals.failed, totals.skipped, now_seconds() - began);
    for (int i = 0; i < totals.nfailures; i++) {
        printf("  failed: %s\n", totals.failures[i]);
        free(totals.failures[i]);
    }
    free(totals.failures);
    for (int i = 0; i < ncases; i++)
        free(cases[i]);
    free(cases);
    free(tasks);
    free(dirs);
    free((char *)model);
    if (filter_text)
        regfree(&filter);
    if (totals.failed > 0)
        return 1;
    return totals.passed == 0 ? 77 : 0;
}
