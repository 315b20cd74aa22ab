/* outputs.c — a run's results as files (DIR/out0.npy, out1.npy, ...) or as
 * a printed summary.
 *
 * The graph's outputs are flattened in order, tuples and lists recursively
 * (an empty list contributes nothing), which is how the corpus generator
 * flattens PyTorch's results. Every leaf is checked before the first file is
 * written, so an unwritable output (a string, None, a module) leaves no
 * partial result behind. Python numbers become 0-d arrays: int -> int64,
 * float -> float64, bool -> bool. Each file appears atomically (npy_write
 * writes a temporary file and renames it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

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

/* mkdir -p */
static bool make_dirs(const char *dir, FILE *err)
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
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            diag_error(err, path, "cannot create the output directory: %s", strerror(errno));
            ok = false;
        } else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            diag_error(err, path, "exists and is not a directory");
            ok = false;
        }
        path[i] = saved;
    }
    free(path);
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
    if (ok)
        ok = make_dirs(dir, err);
    for (int i = 0; i < l.n && ok; i++) {
        TextBuf path = {0};
        textbuf_printf(&path, "%s/out%d.npy", dir, i);
        Tensor *t = leaf_tensor(l.items[i]);
        if (!t) {
            const char *e = tensor_last_error();
            diag_error(err, textbuf_cstr(&path), "cannot make the output tensor: %s",
                       e && *e ? e : "out of memory");
            ok = false;
        } else {
            ok = npy_write(textbuf_cstr(&path), t, err);
        }
        tensor_release(t);
        textbuf_release(&path);
    }
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
