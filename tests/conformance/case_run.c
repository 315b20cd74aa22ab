/* case_run.c — what a corpus case's process does in each mode of the
 * conformance runner: the tssa-stream runs (each in a forked process that
 * calls tssa_stream_main, with its standard output and error in files) and
 * the verdict on them. The checks are those the shell runners made
 * (tests/case_lib.sh's case_verdict, check_expected_error and
 * compare_outputs; the TensorSSA run's "no mutation left"; the stream
 * round trip), message for message where they printed one.
 */
#define _GNU_SOURCE
#include "conformance/case_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/driver.h"
#include "tssa/registry.h"
#include "test_util.h"
#include "tools/npy_check.h"

enum { MAX_ARGS = 64 };

typedef struct ModeInfo {
    const char *name;
    const char *options[4]; /* tssa-stream's options before the model (runs) */
    bool replaced;          /* the functionalized graph runs: --replaced */
    bool cuda;
} ModeInfo;

static const ModeInfo modes[MODE_COUNT] = {
    [MODE_REF] = {"ref", {"--backend=ref"}, false, false},
    [MODE_CPU] = {"cpu", {"--backend=cpu"}, true, false},
    [MODE_TSSA] = {"tssa", {NULL}, true, false},
    [MODE_ROUNDTRIP] = {"roundtrip", {NULL}, false, false},
    [MODE_CUDA] = {"cuda", {"--backend=cuda"}, true, true},
    [MODE_FISSION2] = {"fission2", {"--backend=cpu", "--fission=2"}, true, false},
    [MODE_FISSION3] = {"fission3", {"--backend=cpu", "--fission=3"}, true, false},
    [MODE_DEVICES3] = {"devices3", {"--backend=cuda", "--devices", "3"}, true, true},
    [MODE_OTHERS] = {"others", {NULL}, true, false},
};

const char *mode_name(Mode mode)
{
    return modes[mode].name;
}

bool mode_parse(const char *name, size_t len, Mode *out)
{
    for (int m = 0; m < MODE_COUNT; m++) {
        if (strlen(modes[m].name) == len && strncmp(modes[m].name, name, len) == 0) {
            *out = (Mode)m;
            return true;
        }
    }
    return false;
}

bool mode_needs_cuda(Mode mode)
{
    return modes[mode].cuda;
}

static bool file_exists(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

bool mode_applies(Mode mode, const char *case_dir)
{
    return mode != MODE_ROUNDTRIP || !file_exists(case_dir, "expect_error.txt");
}

/* The case's bindings: args.txt's first line split at blanks (bash's
 * `read -r -a`), appended to args. Returns the new count. */
static int read_bindings(char **args, int n, char *line, size_t line_size)
{
    FILE *f = fopen("args.txt", "r");
    line[0] = '\0';
    if (f) {
        if (!fgets(line, (int)line_size, f))
            line[0] = '\0';
        fclose(f);
    }
    for (char *save = NULL, *word = strtok_r(line, " \t\r\n", &save); word && n < MAX_ARGS - 4;
         word = strtok_r(NULL, " \t\r\n", &save))
        args[n++] = word;
    return n;
}

/* `tssa-stream OPTIONS... MODEL BINDINGS... [-o RESULT]` in args
 * (NULL-terminated; options NULL-terminated, at most 4), the bindings read
 * into line (args point into it). */
static void case_argv(char **args, char *line, size_t line_size, const char *const *options,
                      const char *model, const char *result)
{
    int n = 0;
    args[n++] = "tssa-stream";
    for (int i = 0; i < 4 && options[i]; i++)
        args[n++] = (char *)options[i];
    args[n++] = (char *)model;
    n = read_bindings(args, n, line, line_size);
    if (result) {
        args[n++] = "-o";
        args[n++] = (char *)result;
    }
    args[n] = NULL;
}

/* The process of the last run: a failing run's line names it, since
 * valgrind writes its messages (==PID== ...) to the standard error it
 * started with, the runner's, not to the run's. */
static pid_t last_run_pid;

/* Runs `tssa-stream ARGS...` (args[0] is the program name) in a forked
 * process with standard output to OUT_PATH (/dev/null when NULL) and
 * standard error to ERR_PATH. Returns its status as the shell's $? gives it
 * (128 + the signal for a killed run). The process ends with exit(), so
 * LeakSanitizer and valgrind check it as they checked the program. */
static int run_tssa(char **args, const char *out_path, const char *err_path)
{
    fflush(NULL); /* nothing buffered here may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "tssa-conform: fork: %s\n", strerror(errno));
        return 125;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(125);
        close(out);
        close(err);
        int argc = 0;
        while (args[argc])
            argc++;
        exit(tssa_stream_main(argc, args));
    }
    last_run_pid = pid;
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 125;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* Runs `tssa-stream ARGS...` in this process, standard output to /dev/null
 * and standard error to ERR_PATH for the time of the call, and returns its
 * status. For a mode's last run (its only one in most modes): the case's
 * process then ends with exit() after the verdict, so its leak check
 * (LeakSanitizer's, valgrind's) is the run's, without a fork of its own.
 * A run that crashes takes the case's process with it (conform.c then
 * shows the run's standard error). */
static int run_tssa_here(char **args, const char *err_path)
{
    fflush(NULL);
    int saved_out = dup(1), saved_err = dup(2);
    int out = open("/dev/null", O_WRONLY);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved_out < 0 || saved_err < 0 || out < 0 || err < 0 || dup2(out, 1) < 0 ||
        dup2(err, 2) < 0)
        return 125;
    close(out);
    close(err);
    int argc = 0;
    while (args[argc])
        argc++;
    int status = tssa_stream_main(argc, args);
    fflush(NULL);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    last_run_pid = getpid();
    return status;
}

/* Appends the file's text to the report (the shell's `cat FILE`). */
static void append_file(FILE *report, const char *path)
{
    size_t len = 0;
    char *text = test_read_file(path, &len);
    if (!text)
        return;
    fwrite(text, 1, len, report);
    if (len > 0 && text[len - 1] != '\n')
        fputc('\n', report);
    free(text);
}

static bool file_contains(const char *path, const char *part)
{
    char *text = test_read_file(path, NULL);
    bool found = text && strstr(text, part);
    free(text);
    return found;
}

/* Reads line `index` (0-based) of FILE into buf without its newline; false
 * when the file has no such line. */
static bool read_line(const char *path, int index, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool found = false;
    for (int i = 0; i <= index && fgets(buf, (int)size, f); i++)
        found = i == index;
    fclose(f);
    if (found)
        buf[strcspn(buf, "\n")] = '\0';
    return found;
}

/* Whether DIR holds an entry that is not a dot file (what the shell's
 * DIR/STAR glob matches). */
static bool dir_has_visible_entry(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = e->d_name[0] != '.';
    closedir(d);
    return found;
}

static int outputs_found;

static int count_output(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    size_t len = strlen(base);
    if (strncmp(base, "out", 3) == 0 && len >= 4 && strcmp(base + len - 4, ".npy") == 0)
        outputs_found++;
    return 0;
}

/* check_expected_error: STATUS must be expect_error.txt's line 1, ERR must
 * contain its line 2 (with --replaced, for a message naming an op
 * aten::NAME_, also "aten::NAME(", "aten::NAME:" or "immut::"), and RESULT
 * must hold no file. */
static int check_expected_error(int status, const char *err, const char *result, bool replaced,
                                FILE *report)
{
    char want_status[256] = "", want_text[1024] = "";
    read_line("expect_error.txt", 0, want_status, sizeof want_status);
    read_line("expect_error.txt", 1, want_text, sizeof want_text);
    /* An empty message line would match any output. */
    if (!want_status[0] || !want_text[0]) {
        fprintf(report, "FAIL: expect_error.txt needs a status line and a message line\n");
        return CASE_FAIL;
    }
    char status_text[32];
    snprintf(status_text, sizeof status_text, "%d", status);
    if (strcmp(status_text, want_status) != 0) {
        fprintf(report, "FAIL: exit status %d, expected %s (process %d)\n", status, want_status,
                (int)last_run_pid);
        append_file(report, err);
        return CASE_FAIL;
    }
    char accepted[4][1100];
    int naccepted = 0;
    snprintf(accepted[naccepted++], sizeof accepted[0], "%s", want_text);
    if (replaced && strncmp(want_text, "aten::", 6) == 0 && want_text[6] &&
        strspn(want_text + 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
            strlen(want_text + 6)) {
        char name[1024];
        snprintf(name, sizeof name, "%s", want_text + 6);
        size_t len = strlen(name);
        if (name[len - 1] == '_')
            name[len - 1] = '\0'; /* bash's ${name%_}: one underscore */
        snprintf(accepted[naccepted++], sizeof accepted[0], "aten::%s(", name);
        snprintf(accepted[naccepted++], sizeof accepted[0], "aten::%s:", name);
        snprintf(accepted[naccepted++], sizeof accepted[0], "immut::");
    }
    bool found = false;
    for (int i = 0; i < naccepted && !found; i++)
        found = file_contains(err, accepted[i]);
    if (!found) {
        fprintf(report, "FAIL: message lacks '%s':\n", want_text);
        append_file(report, err);
        return CASE_FAIL;
    }
    if (dir_has_visible_entry(result)) {
        fprintf(report, "FAIL: a failing run left output files\n");
        return CASE_FAIL;
    }
    return CASE_PASS;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* compare_outputs: every expected/outN.npy against RESULT/outN.npy (the
 * corpus's tolerances), and no other out*.npy written. */
static int compare_outputs(const char *result, FILE *report)
{
    char *names[1024];
    int n_expected = 0;
    DIR *d = opendir("expected");
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "out", 3) == 0 && len >= 7 &&
            strcmp(e->d_name + len - 4, ".npy") == 0 && n_expected < 1024)
            names[n_expected++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    if (n_expected == 0) {
        char cwd[4096];
        fprintf(report, "FAIL: no expected/out*.npy in %s\n", getcwd(cwd, sizeof cwd) ? cwd : ".");
        return CASE_FAIL;
    }
    qsort(names, (size_t)n_expected, sizeof *names, compare_names);
    bool failed = false;
    for (int i = 0; i < n_expected; i++) {
        char expected[4096], actual[4096];
        snprintf(expected, sizeof expected, "expected/%s", names[i]);
        snprintf(actual, sizeof actual, "%s/%s", result, names[i]);
        if (access(actual, F_OK) != 0) {
            fprintf(report, "FAIL: missing output %s\n", names[i]);
            failed = true;
        } else if (npy_check_files(expected, actual, NPY_CHECK_RTOL, NPY_CHECK_ATOL, report,
                                   report) != 0) {
            fprintf(report, "FAIL: %s differs\n", names[i]);
            failed = true;
        }
        free(names[i]);
    }
    outputs_found = 0;
    nftw(result, count_output, 16, FTW_PHYS);
    if (outputs_found != n_expected) {
        fprintf(report, "FAIL: %d outputs written, PyTorch returned %d\n", outputs_found,
                n_expected);
        failed = true;
    }
    return failed ? CASE_FAIL : CASE_PASS;
}

/* case_verdict: a case with expect_error.txt must have failed as it says;
 * any other must have exited 0 with outputs that match expected/. */
static int case_verdict(int status, const char *err, const char *result, bool replaced,
                        FILE *report)
{
    if (access("expect_error.txt", F_OK) == 0)
        return check_expected_error(status, err, result, replaced, report);
    if (status != 0) {
        fprintf(report, "FAIL: exit status %d (process %d)\n", status, (int)last_run_pid);
        append_file(report, err);
        return CASE_FAIL;
    }
    return compare_outputs(result, report);
}

/* In-place aten ops are named like aten::add_ (dunder names such as
 * aten::__and__ are not in-place). A list's `+=` (aten::add_ with a list
 * result) mutates a list, not a tensor, and stays as it is, like append.
 * tssa::update marks a write not yet renamed; tssa::inplace_check is a pure
 * check that stays. A line with "tssa: kept imperative:" documents why its
 * write stays. Prints the offending lines (grep -n's form); returns their
 * count. */
static int report_mutations(const char *functional, FILE *report)
{
    regex_t mutation, list_write;
    if (regcomp(&mutation, "= (aten::[A-Za-z0-9_]*[A-Za-z0-9]_|tssa::update)[(]",
                REG_EXTENDED | REG_NOSUB) != 0)
        return 1;
    if (regcomp(&list_write, " : [^=]*\\[\\] = aten::", REG_EXTENDED | REG_NOSUB) != 0) {
        regfree(&mutation);
        return 1;
    }
    FILE *f = fopen(functional, "r");
    int bad = 0, lineno = 0;
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (regexec(&mutation, line, 0, NULL, 0) == 0 &&
            regexec(&list_write, line, 0, NULL, 0) != 0 && !strstr(line, "tssa: kept imperative:")) {
            if (bad++ == 0)
                fprintf(report, "FAIL: mutation left without a documented reason:\n");
            fprintf(report, "%d:%s", lineno, line);
        }
    }
    free(line);
    if (f)
        fclose(f);
    regfree(&mutation);
    regfree(&list_write);
    return bad;
}

/* The run modes: OPTIONS MODEL BINDINGS... -o TMP/result, then the verdict. */
static int run_mode(Mode mode, const char *model, const char *tmp, FILE *report)
{
    char *args[MAX_ARGS], line[8192], result[4096], err[4096];
    snprintf(result, sizeof result, "%s/result", tmp);
    snprintf(err, sizeof err, "%s/stderr", tmp);
    case_argv(args, line, sizeof line, modes[mode].options, model, result);
    int status = run_tssa_here(args, err);
    return case_verdict(status, err, result, modes[mode].replaced, report);
}

/* Whether backend b has a mode of its own above (--backend=NAME as a
 * mode's first option). */
static bool has_own_mode(const BackendIface *b)
{
    char option[128];
    snprintf(option, sizeof option, "--backend=%s", b->name);
    for (int m = 0; m < MODE_COUNT; m++)
        if (modes[m].options[0] && strcmp(modes[m].options[0], option) == 0)
            return true;
    return false;
}

/* The others mode: the case on every backend of the table without a mode
 * of its own, each against PyTorch (a plan backend by the --replaced rule),
 * the last in this process and the rest in forked ones; a skip when there
 * is none (every backend of this build has its mode) or none is available
 * here. */
static int run_others_mode(const char *model, const char *tmp, FILE *report)
{
    const BackendIface *todo[16];
    int ntodo = 0;
    for (int i = 0; tssa_backends[i] && ntodo < 16; i++) {
        const char *why = NULL;
        const BackendIface *b = tssa_backends[i];
        if (has_own_mode(b))
            continue;
        if (b->available && !b->available(&why)) {
            fprintf(report, "SKIP-BACKEND %s: %s\n", b->name, why ? why : "not available here");
            continue;
        }
        todo[ntodo++] = b;
    }
    if (ntodo == 0) {
        fprintf(report, "SKIP: no backend of this build lacks a mode of its own\n");
        return CASE_SKIP;
    }
    int verdict = CASE_PASS;
    for (int k = 0; k < ntodo; k++) {
        char *args[MAX_ARGS], line[8192], option[160], result[4096], err[4096];
        snprintf(option, sizeof option, "--backend=%s", todo[k]->name);
        snprintf(result, sizeof result, "%s/result_%d", tmp, k);
        snprintf(err, sizeof err, "%s/stderr_%d", tmp, k);
        const char *options[] = {option, NULL};
        case_argv(args, line, sizeof line, options, model, result);
        int status = k + 1 < ntodo ? run_tssa(args, NULL, err) : run_tssa_here(args, err);
        if (case_verdict(status, err, result, todo[k]->runs_plan, report) != CASE_PASS) {
            fprintf(report, "(on --backend=%s)\n", todo[k]->name);
            verdict = CASE_FAIL;
        }
    }
    return verdict;
}

/* expect_error.txt's exit status, or -1 for a case that must pass. */
static int expected_status(void)
{
    char line[64];
    if (!read_line("expect_error.txt", 0, line, sizeof line))
        return -1;
    return atoi(line);
}

/* The TensorSSA mode: --emit=tssa MODEL BINDINGS (so the compiler knows the
 * inputs it specializes on), no mutation left in that text, and the text
 * run on ref against PyTorch with the --replaced rule. */
static int run_tssa_mode(const char *model, const char *tmp, FILE *report)
{
    char *args[MAX_ARGS], line[8192], functional[4096], emit_err[4096], result[4096],
        run_err[4096];
    snprintf(functional, sizeof functional, "%s/functional.ir", tmp);
    snprintf(emit_err, sizeof emit_err, "%s/emit.err", tmp);
    snprintf(result, sizeof result, "%s/result", tmp);
    snprintf(run_err, sizeof run_err, "%s/run.err", tmp);
    const char *emit[] = {"--emit=tssa", NULL}, *on_ref[] = {"--backend=ref", NULL};
    case_argv(args, line, sizeof line, emit, model, NULL);
    int status = run_tssa(args, functional, emit_err);
    if (status == 2 && file_contains(emit_err, "not available yet")) {
        fprintf(report, "SKIP: this tssa-stream has no --emit=tssa yet\n");
        return CASE_SKIP;
    }
    /* a case that must be refused before it runs (an unlisted op on the
     * straight-line path): --emit=tssa refuses it as a run would */
    if (status == 2 && expected_status() == 2)
        return case_verdict(status, emit_err, result, false, report);
    if (status != 0) {
        fprintf(report, "FAIL: --emit=tssa exited with %d (process %d)\n", status,
                (int)last_run_pid);
        append_file(report, emit_err);
        return CASE_FAIL;
    }
    if (report_mutations(functional, report) > 0) {
        append_file(report, functional);
        return CASE_FAIL;
    }
    case_argv(args, line, sizeof line, on_ref, functional, result);
    status = run_tssa_here(args, run_err);
    /* functional.ir is specialized on the bindings: an unlisted op that the
     * run reaches (exit 1) may stand on its straight-line path there,
     * refused (exit 2) with the same message */
    if (status == 2 && expected_status() == 1 && file_contains(run_err, "unknown op '"))
        status = 1;
    if (case_verdict(status, run_err, result, true, report) != CASE_PASS) {
        fprintf(report, "(the functionalized graph, run on ref:)\n");
        append_file(report, functional);
        return CASE_FAIL;
    }
    return CASE_PASS;
}

/* A.str's lines that are not `//` comments (the reader skips them), as one
 * string. */
static char *without_comments(const char *path)
{
    char *text = test_read_file(path, NULL);
    if (!text)
        return NULL;
    char *kept = malloc(strlen(text) + 1), *to = kept;
    for (char *from = text; kept && *from;) {
        char *end = strchr(from, '\n');
        size_t len = end ? (size_t)(end - from + 1) : strlen(from);
        const char *p = from + strspn(from, " ");
        if (!(p[0] == '/' && p[1] == '/')) {
            memcpy(to, from, len);
            to += len;
        }
        from += len;
    }
    if (kept)
        *to = '\0';
    free(text);
    return kept;
}

/* Prints the first line where the two texts differ (diff's gist). */
static void report_first_difference(const char *a, const char *b, FILE *report)
{
    int lineno = 1;
    while (*a && *a == *b) {
        lineno += *a == '\n';
        a++, b++;
    }
    while (lineno > 1 && a[-1] != '\n')
        a--, b--;
    fprintf(report, "first difference at line %d of the lowering's text (comments left out):\n",
            lineno);
    fprintf(report, "- %.*s\n+ %.*s\n", (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
}

/* The round trip: the lowered stream (--emit=stream) reads back as a .str
 * file and prints the same text, less the lowering's `//` comments, and
 * schedules. */
static int run_roundtrip_mode(const char *model, const char *tmp, FILE *report)
{
    char *args[MAX_ARGS], line[8192], a[4096], b[4096], err[4096];
    snprintf(a, sizeof a, "%s/a.str", tmp);
    snprintf(b, sizeof b, "%s/b.str", tmp);
    snprintf(err, sizeof err, "%s/stderr", tmp);
    const char *emit[] = {"--emit=stream", NULL};
    case_argv(args, line, sizeof line, emit, model, NULL);
    if (run_tssa(args, a, err) != 0) {
        fprintf(report, "FAIL: lowering\n");
        append_file(report, err);
        return CASE_FAIL;
    }
    char *back[] = {"tssa-stream", "--emit=stream", a, NULL};
    if (run_tssa(back, b, err) != 0) {
        fprintf(report, "FAIL: reading the .str back\n");
        append_file(report, err);
        return CASE_FAIL;
    }
    char *first = without_comments(a), *second = test_read_file(b, NULL);
    bool same = first && second && strcmp(first, second) == 0;
    if (!same) {
        if (first && second)
            report_first_difference(first, second, report);
        fprintf(report, "FAIL: the text does not round-trip\n");
    }
    free(first);
    free(second);
    if (!same)
        return CASE_FAIL;
    char *schedule[] = {"tssa-stream", "--emit=schedule", a, NULL};
    if (run_tssa_here(schedule, err) != 0) {
        fprintf(report, "FAIL: the stream does not schedule\n");
        append_file(report, err);
        return CASE_FAIL;
    }
    return CASE_PASS;
}

int case_run(Mode mode, const char *case_dir, const char *model, const char *tmp,
             FILE *report)
{
    if (chdir(case_dir) != 0) {
        fprintf(report, "FAIL: cannot enter %s: %s\n", case_dir, strerror(errno));
        return CASE_FAIL;
    }
#ifndef TSSA_USE_CUDA
    if (modes[mode].cuda) {
        fprintf(report, "SKIP: this build has no cuda backend\n");
        return CASE_SKIP;
    }
#endif
    if (!model)
        model = "model.ir";
    switch (mode) {
    case MODE_TSSA: return run_tssa_mode(model, tmp, report);
    case MODE_ROUNDTRIP: return run_roundtrip_mode(model, tmp, report);
    case MODE_OTHERS: return run_others_mode(model, tmp, report);
    default: return run_mode(mode, model, tmp, report);
    }
}
