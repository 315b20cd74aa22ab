/* kernel_fixtures.c — loads a kernels_<area>.txt file and compares kernel
 * results with it. See kernel_fixtures.h for the format and the rules. */
#include "tensor/kernel_fixtures.h"
#include "test_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Entry {
    char *key;
    bool is_error;
    char *message;             /* is_error */
    TensorDType dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t numel;
    double *fvals;             /* floating dtypes */
    int64_t *ivals;            /* the others */
} Entry;

static Entry *entries;
static int nentries;
static Tensor **kept;
static int nkept, cap_kept;
static int nchecks, nfailures;
static const char *source_path;

static const char *const dtype_names[DT_COUNT] = {"bool", "uint8", "int8", "int16", "int32", "int64",
                                                  "float32", "float64"};

static void fail(const char *key, const char *fmt, const char *detail)
{
    nfailures++;
    fprintf(stderr, "FAIL %s: ", key);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
}

static int parse_dtype(const char *s)
{
    for (int d = 0; d < DT_COUNT; d++)
        if (strcmp(s, dtype_names[d]) == 0)
            return d;
    return -1;
}

static bool parse_tensor_line(Entry *e, char *rest)
{
    char *save = NULL;
    char *tok = strtok_r(rest, " ", &save);
    int dt = tok ? parse_dtype(tok) : -1;
    tok = strtok_r(NULL, " ", &save);
    if (dt < 0 || !tok)
        return false;
    e->dtype = (TensorDType)dt;
    e->ndim = atoi(tok);
    if (e->ndim < 0 || e->ndim > TENSOR_MAX_DIMS)
        return false;
    e->numel = 1;
    for (int d = 0; d < e->ndim; d++) {
        tok = strtok_r(NULL, " ", &save);
        if (!tok)
            return false;
        e->sizes[d] = strtoll(tok, NULL, 10);
        e->numel *= e->sizes[d];
    }
    bool is_float = e->dtype == DT_F32 || e->dtype == DT_F64;
    size_t n = e->numel > 0 ? (size_t)e->numel : 1;
    if (is_float)
        e->fvals = calloc(n, sizeof *e->fvals);
    else
        e->ivals = calloc(n, sizeof *e->ivals);
    if (!e->fvals && !e->ivals)
        return false;
    for (int64_t i = 0; i < e->numel; i++) {
        tok = strtok_r(NULL, " ", &save);
        if (!tok)
            return false;
        if (e->dtype == DT_F32)
            e->fvals[i] = strtof(tok, NULL);      /* exact for shortest float32 text */
        else if (is_float)
            e->fvals[i] = strtod(tok, NULL);
        else
            e->ivals[i] = strtoll(tok, NULL, 10);
    }
    return strtok_r(NULL, " ", &save) == NULL;
}

bool fx_open(const char *path)
{
    source_path = path;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from tests/)\n", path);
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    bool ok = true;
    while (ok && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        Entry *grown = realloc(entries, (size_t)(nentries + 1) * sizeof *entries);
        if (!grown) {
            ok = false;
            break;
        }
        entries = grown;
        Entry *e = &entries[nentries++];
        memset(e, 0, sizeof *e);
        char *key = line + 2;
        char *sp = strchr(key, ' ');
        if ((line[0] != 'T' && line[0] != 'E') || line[1] != ' ' || !sp) {
            ok = false;
            break;
        }
        *sp = '\0';
        e->key = strdup(key);
        if (line[0] == 'E') {
            e->is_error = true;
            e->message = strdup(sp + 1);
        } else {
            ok = parse_tensor_line(e, sp + 1);
        }
    }
    if (!ok)
        fprintf(stderr, "%s:%d: malformed line\n", path, lineno);
    free(line);
    fclose(f);
    return ok;
}

static const Entry *lookup(const char *key)
{
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i].key, key) == 0)
            return &entries[i];
    return NULL;
}

Tensor *fx_keep(Tensor *t)
{
    if (!t) {
        fail("fx_keep", "a test view failed: %s", tensor_last_error());
        return NULL;
    }
    if (nkept == cap_kept) {
        cap_kept = cap_kept ? 2 * cap_kept : 64;
        Tensor **grown = realloc(kept, (size_t)cap_kept * sizeof *kept);
        if (!grown) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        kept = grown;
    }
    kept[nkept++] = t;
    return t;
}

Tensor *fx_in(const char *key)
{
    const Entry *e = lookup(key);
    if (!e || e->is_error) {
        fprintf(stderr, "%s: no input tensor %s (regenerate the data?)\n", source_path, key);
        exit(1);
    }
    Tensor *t = tensor_empty(e->dtype, e->ndim, e->sizes);
    if (!t) {
        fprintf(stderr, "tensor_empty failed for %s: %s\n", key, tensor_last_error());
        exit(1);
    }
    for (int64_t i = 0; i < e->numel; i++) {
        if (e->fvals)
            tensor_set_flat(t, i, e->fvals[i]);
        else
            tensor_set_flat_int(t, i, e->ivals[i]);
    }
    return fx_keep(t);
}

static void describe_shape(char *buf, size_t cap, TensorDType dt, int ndim, const int64_t *sizes)
{
    size_t used = (size_t)snprintf(buf, cap, "%s[", dtype_names[dt]);
    for (int d = 0; d < ndim && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%" PRId64, d ? ", " : "", sizes[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
}

/* Compares actual with (dt, ndim, sizes) and fvals/ivals; reports under key. */
static void compare(const char *key, const Tensor *actual, TensorDType dt, int ndim, const int64_t *sizes,
                    const double *fvals, const int64_t *ivals)
{
    char want[256], got[256], detail[600];
    describe_shape(want, sizeof want, dt, ndim, sizes);
    describe_shape(got, sizeof got, actual->dtype, actual->ndim, actual->sizes);
    if (strcmp(want, got) != 0) {
        snprintf(detail, sizeof detail, "expected %s, got %s", want, got);
        fail(key, "%s", detail);
        return;
    }
    int64_t n = tensor_numel(actual);
    for (int64_t i = 0; i < n; i++) {
        bool same;
        if (fvals) {
            double a = tensor_get_flat(actual, i);
            same = test_near(a, fvals[i], 1e-4, 1e-5);
            if (!same)
                snprintf(detail, sizeof detail, "element %" PRId64 ": expected %.9g, got %.9g", i, fvals[i], a);
        } else {
            int64_t a = tensor_get_flat_int(actual, i);
            same = a == ivals[i];
            if (!same)
                snprintf(detail, sizeof detail, "element %" PRId64 ": expected %" PRId64 ", got %" PRId64, i,
                         ivals[i], a);
        }
        if (!same) {
            fail(key, "%s", detail);
            return;
        }
    }
}

static void check_entry(const char *key, const Tensor *actual)
{
    nchecks++;
    const Entry *e = lookup(key);
    if (!e || e->is_error) {
        fail(key, "%s", "no expected tensor under this key");
        return;
    }
    if (!actual) {
        fail(key, "kernel failed: %s", tensor_last_error());
        return;
    }
    compare(key, actual, e->dtype, e->ndim, e->sizes, e->fvals, e->ivals);
}

void fx_check(const char *key, Tensor *actual)
{
    check_entry(key, actual);
    tensor_release(actual);
}

void fx_check_pair(const char *key, bool ok, Tensor *values, Tensor *indices)
{
    char vk[256], ik[256];
    snprintf(vk, sizeof vk, "%s.values", key);
    snprintf(ik, sizeof ik, "%s.indices", key);
    if (!ok) {
        nchecks++;
        fail(key, "kernel failed: %s", tensor_last_error());
    } else {
        check_entry(vk, values);
        check_entry(ik, indices);
    }
    tensor_release(values);
    tensor_release(indices);
}

void fx_check_inplace(const char *key, bool ok, Tensor *t)
{
    if (!ok) {
        nchecks++;
        fail(key, "kernel failed: %s", tensor_last_error());
    } else {
        check_entry(key, t);
    }
    tensor_release(t);
}

static void check_error_message(const char *key, bool failed)
{
    nchecks++;
    const Entry *e = lookup(key);
    if (!e || !e->is_error) {
        fail(key, "%s", "no expected error under this key");
        return;
    }
    if (!failed) {
        fail(key, "expected the error \"%s\", but the kernel succeeded", e->message);
        return;
    }
    if (strcmp(tensor_last_error(), e->message) != 0) {
        char detail[2200];
        snprintf(detail, sizeof detail, "expected error \"%s\"\n     got \"%s\"", e->message, tensor_last_error());
        fail(key, "%s", detail);
    }
}

void fx_check_error(const char *key, Tensor *result)
{
    check_error_message(key, result == NULL);
    tensor_release(result);
}

void fx_check_error_bool(const char *key, bool ok)
{
    check_error_message(key, !ok);
}

void fx_check_values(const char *what, Tensor *actual, TensorDType dt, int ndim, const int64_t *sizes,
                     const double *values)
{
    nchecks++;
    if (!actual) {
        fail(what, "kernel failed: %s", tensor_last_error());
        return;
    }
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    int64_t *ivals = calloc(n > 0 ? (size_t)n : 1, sizeof *ivals);
    if (!ivals) {
        fail(what, "%s", "out of memory");
        tensor_release(actual);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        ivals[i] = (int64_t)values[i];
    bool is_float = dt == DT_F32 || dt == DT_F64;
    compare(what, actual, dt, ndim, sizes, is_float ? values : NULL, is_float ? NULL : ivals);
    free(ivals);
    tensor_release(actual);
}

void fx_expect(bool cond, const char *what)
{
    nchecks++;
    if (!cond)
        fail(what, "%s", "condition does not hold");
}

int fx_finish(void)
{
    for (int i = 0; i < nkept; i++)
        tensor_release(kept[i]);
    free(kept);
    for (int i = 0; i < nentries; i++) {
        free(entries[i].key);
        free(entries[i].message);
        free(entries[i].fvals);
        free(entries[i].ivals);
    }
    free(entries);
    printf("%s: %d checks, %d failures\n", source_path, nchecks, nfailures);
    return nfailures == 0 ? 0 : 1;
}
