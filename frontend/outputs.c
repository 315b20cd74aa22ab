/* outputs.c — a run's results as files (DIR/out0.npy, out1.npy, ...) or as
 * a printed summary.
 *
 * The graph's outputs are flattened in order, tuples and lists recursively
 * (an empty list contributes nothing), which is how the corpus generator
 * flattens PyTorch's results. Every leaf is checked before the first file is
 * written, and the files are written all or nothing (outputs_write), so a
 * failed run leaves no partial result behind. Python numbers become 0-d
 * arrays: int -> int64, float -> float64, bool -> bool.
 *
 * The commit, as far as POSIX allows a set of files to be replaced at once:
 * every file is written into a staging directory inside DIR
 * (.tssa-stream-HOST-PID-XXXXXX); when all are there, each is renamed over
 * its outN.npy (one rename(2) each, so no reader ever sees a half-written
 * file); then every outN.npy of an earlier run with more outputs (N >= this
 * run's count; only names of that exact form, out0.npy, out12.npy, never
 * other files) is removed, and so are staging directories that earlier runs
 * left behind when they were killed while writing. A reader looking during
 * the commit may see some files of the new set beside some of the old one,
 * and stale outN.npy past the new count until the last step; once the run
 * has exited, DIR holds exactly its outputs.
 *
 * A staging directory is stale when the run that made it is dead: one of
 * this host whose PID no process has (kill(pid, 0) says ESRCH). A live
 * run's directory is never removed (a PID reused by another process keeps
 * a dead run's directory until that process ends too). Directories of
 * another host (a shared file system), and those named by tssa-stream
 * before the host and PID were part of the name, are removed once they
 * have not changed for STALE_STAGE_AGE_S (a day).
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "tssa/diag.h"
#include "tssa/frontend.h"
#include "tssa/io.h"
#include "tssa/util.h"
#include "tssa/value.h"

typedef struct Leaves {
    const RtValue **items;
    int n, cap;
} Leaves;

static void leaves_collect(Leaves *l, const RtValue *v)
{
    if (v->kind == RT_LIST || v->kind == RT_TUPLE) {
        for (int i = 0; i < v->u.list.n; i++)
            leaves_collect(l, v->u.list.items[i]);
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->items = xrealloc(l->items, (size_t)l->cap * sizeof *l->items);
    }
    l->items[l->n++] = v;
}

static Leaves leaves_of(RtValue **outputs, int noutputs)
{
    Leaves l = {0};
    for (int i = 0; i < noutputs; i++)
        leaves_collect(&l, outputs[i]);
    return l;
}

static bool writable(const RtValue *v)
{
    return v->kind == RT_TENSOR || rt_is_number(v);
}

/* mkdir -p that remembers what it made (made[], deepest last), so a failed
 * run can take it away again. */
static bool make_dirs(const char *dir, char ***made, int *nmade, FILE *err)
{
    char *path = xstrdup(dir);
    size_t len = strlen(path);
    bool ok = true;
    for (size_t i = 1; i <= len && ok; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        struct stat st;
        if (mkdir(path, 0777) == 0) {
            *made = xreallocn(*made, (size_t)*nmade + 1, sizeof **made);
            (*made)[(*nmade)++] = xstrdup(path);
        } else if (errno != EEXIST) {
            diag_error(err, path, "cannot create the output directory: %s", strerror(errno));
            ok = false;
        }
        if (ok && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
            diag_error(err, path, "exists and is not a directory");
            ok = false;
        }
        path[i] = saved;
    }
    free(path);
    return ok;
}

static void remove_made_dirs(char **made, int nmade, bool remove)
{
    for (int i = nmade - 1; i >= 0; i--) {
        if (remove)
            rmdir(made[i]);
        free(made[i]);
    }
    free(made);
}

static char *stage_template(const char *dir);

/* Whether a staging directory can be made in dir: made and removed again
 * (access(2) says yes to root, and on /proc or a read-only mount). */
static bool stage_probe(const char *dir, FILE *err)
{
    char *probe = stage_template(dir);
    bool ok = mkdtemp(probe) != NULL;
    if (ok)
        rmdir(probe);
    else
        diag_error(err, dir, "cannot write into the output directory: %s", strerror(errno));
    free(probe);
    return ok;
}

bool outputs_check_dir(const char *dir, FILE *err)
{
    if (!dir || !*dir) {
        diag_error(err, "-o", "the output directory is empty");
        return false;
    }
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            diag_error(err, dir, "the output path exists and is not a directory");
            return false;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            diag_error(err, dir, "cannot write into the output directory: %s", strerror(errno));
            return false;
        }
        return stage_probe(dir, err);
    }
    /* It will be made: the nearest existing ancestor must be a writable
     * directory. dirname ends at "." or "/", which exist. */
    char *path = xstrdup(dir);
    bool ok = false;
    for (;;) {
        char *copy = xstrdup(path);
        const char *parent = dirname(copy);
        if (stat(parent, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                diag_error(err, dir, "cannot create the output directory: %s is not a directory", parent);
            else if (access(parent, W_OK | X_OK) != 0)
                diag_error(err, dir, "cannot create the output directory in %s: %s", parent,
                           strerror(errno));
            else
                ok = true;
            free(copy);
            break;
        }
        if (errno != ENOENT || strcmp(parent, path) == 0) {
            diag_error(err, dir, "cannot create the output directory: %s", strerror(errno));
            free(copy);
            break;
        }
        free(path);
        path = xstrdup(parent);
        free(copy);
    }
    free(path);
    if (!ok)
        return false;
    /* The directories are made, tried and taken away again, so that a
     * file system that refuses them (/proc, a read-only mount) is found
     * now. */
    char **made = NULL;
    int nmade = 0;
    ok = make_dirs(dir, &made, &nmade, err) && stage_probe(dir, err);
    remove_made_dirs(made, nmade, true);
    return ok;
}

/* The leaf as a tensor: a new reference. */
static Tensor *leaf_tensor(const RtValue *v)
{
    switch (v->kind) {
    case RT_TENSOR: return tensor_retain(v->u.t);
    case RT_INT: return tensor_scalar_int(DT_I64, v->u.i);
    case RT_BOOL: return tensor_scalar_int(DT_BOOL, v->u.i);
    case RT_FLOAT: return tensor_scalar(DT_F64, v->u.f);
    default: return NULL;
    }
}

static char *join(const char *dir, const char *name, int index)
{
    TextBuf path = {0};
    textbuf_printf(&path, "%s/%s%d.npy", dir, name, index);
    textbuf_cstr(&path);
    return path.data;
}

/* ---------------------------------------------------------------- staging and stale files */

#define STAGE_PREFIX ".tssa-stream-"
enum { STALE_STAGE_AGE_S = 24 * 60 * 60 };

static void this_host(char host[65])
{
    if (gethostname(host, 64) != 0 || !host[0])
        strcpy(host, "localhost");
    host[64] = '\0';
    for (char *c = host; *c; c++)      /* one field of a file name */
        if (*c == '/' || *c == '-')
            *c = '_';
}

/* DIR/.tssa-stream-HOST-PID-XXXXXX, for mkdtemp. */
static char *stage_template(const char *dir)
{
    char host[65];
    this_host(host);
    return xprintf("%s/" STAGE_PREFIX "%s-%ld-XXXXXX", dir, host, (long)getpid());
}

/* n of a file named out<n>.npy exactly as join() writes it (no sign, no
 * leading zero), else -1. */
static long output_index(const char *name)
{
    if (strncmp(name, "out", 3) != 0)
        return -1;
    const char *digits = name + 3, *end = digits;
    while (*end >= '0' && *end <= '9')
        end++;
    if (end == digits || end - digits > 9 || (digits[0] == '0' && end - digits > 1) ||
        strcmp(end, ".npy") != 0)
        return -1;
    return strtol(digits, NULL, 10);
}

/* Whether the staging directory `name` in dir belongs to a run that is
 * gone (the rule in the header). */
static bool stage_is_stale(const char *dir, const char *name)
{
    char host[65];
    this_host(host);
    const char *rest = name + strlen(STAGE_PREFIX);
    size_t host_len = strlen(host);
    if (strncmp(rest, host, host_len) == 0 && rest[host_len] == '-') {
        char *end;
        long pid = strtol(rest + host_len + 1, &end, 10);
        if (end != rest + host_len + 1 && *end == '-' && strlen(end + 1) == 6 && pid > 0)
            return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    }
    char *path = xprintf("%s/%s", dir, name);
    struct stat st;
    bool old = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
               difftime(time(NULL), st.st_mtime) > STALE_STAGE_AGE_S;
    free(path);
    return old;
}

/* Removes a dead run's staging directory: the out<n>.npy files it holds,
 * then the directory (left alone if anything else is in it). */
static void remove_stage(const char *dir, const char *name)
{
    char *stage = xprintf("%s/%s", dir, name);
    struct stat st;
    DIR *d = lstat(stage, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(stage) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (output_index(e->d_name) >= 0) {
                char *path = xprintf("%s/%s", stage, e->d_name);
                unlink(path);
                free(path);
            }
        closedir(d);
        rmdir(stage);
    }
    free(stage);
}

/* After a commit of n outputs: removes DIR's out<k>.npy files for k >= n
 * (an earlier run's with more outputs) and dead runs' staging directories. */
static void remove_stale(const char *dir, int n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long k = output_index(e->d_name);
        if (k >= n) {
            char *path = xprintf("%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
                unlink(path);
            free(path);
        } else if (strncmp(e->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)) == 0 &&
                   stage_is_stale(dir, e->d_name)) {
            remove_stage(dir, e->d_name);
        }
    }
    closedir(d);
}

/* ---------------------------------------------------------------- writing */

/* Every output is written into a staging directory inside DIR first; only
 * when all of them are there are they renamed into place, so a run that
 * fails while writing (a full disk, an output that cannot be made) leaves
 * DIR as it was, directories it had to create included. A run that
 * succeeds then removes what earlier runs left (remove_stale). */
bool outputs_write(const char *dir, RtValue **outputs, int noutputs, FILE *err)
{
    Leaves l = leaves_of(outputs, noutputs);
    bool ok = true;
    for (int i = 0; i < l.n && ok; i++)
        if (!writable(l.items[i])) {
            diag_error(err, dir, "output %d is a %s; only tensors, ints, floats and bools can be "
                                 "written as .npy", i, rt_kind_name(l.items[i]->kind));
            ok = false;
        }
    char **made = NULL;
    int nmade = 0;
    ok = ok && make_dirs(dir, &made, &nmade, err);
    char *stage = NULL;
    if (ok) {
        stage = stage_template(dir);
        if (!mkdtemp(stage)) {
            diag_error(err, dir, "cannot write into the output directory: %s", strerror(errno));
            free(stage);
            stage = NULL;
            ok = false;
        }
    }
    int written = 0;
    for (int i = 0; i < l.n && ok; i++, written++) {
        char *path = join(stage, "out", i);
        Tensor *t = leaf_tensor(l.items[i]);
        if (!t) {
            const char *e = tensor_last_error();
            diag_error(err, path, "cannot make the output tensor: %s", e && *e ? e : "out of memory");
            ok = false;
        } else {
            ok = npy_write(path, t, err);
        }
        tensor_release(t);
        free(path);
    }
    for (int i = 0; i < l.n && ok; i++) {
        char *target = join(dir, "out", i);
        struct stat st;
        if (lstat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
            diag_error(err, target, "cannot write: is a directory");
            ok = false;
        }
        free(target);
    }
    for (int i = 0; i < l.n && ok; i++) {
        char *from = join(stage, "out", i), *to = join(dir, "out", i);
        if (rename(from, to) != 0) {
            diag_error(err, to, "cannot move the output into place: %s", strerror(errno));
            ok = false;
        }
        free(from);
        free(to);
    }
    if (stage) {
        for (int i = 0; i < written; i++) {
            char *path = join(stage, "out", i);
            unlink(path);   /* those not moved into place */
            free(path);
        }
        rmdir(stage);
        free(stage);
    }
    if (ok)
        remove_stale(dir, l.n);
    remove_made_dirs(made, nmade, !ok);
    free(l.items);
    return ok;
}

void outputs_summarize(FILE *out, RtValue **outputs, int noutputs)
{
    Leaves l = leaves_of(outputs, noutputs);
    for (int i = 0; i < l.n; i++) {
        fprintf(out, "out%d: ", i);
        rt_print(out, l.items[i]);
        fputc('\n', out);
    }
    free(l.items);
}
