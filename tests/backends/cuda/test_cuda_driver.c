/* test_cuda_driver — the GPU device (backends/cuda/cuda_driver.c) on a real
 * GPU: a kernel compiled by NVRTC (twice: the second load is a cache hit),
 * launched on uploaded data and read back; cuBLAS products in every
 * transposition, batched with strides and padded rows, in float32 and
 * float64, against a plain triple loop; and failures (an empty grid, a
 * kernel that does not compile) reported in d->error.
 *
 * exit 0: passed; 1: a check failed (each printed); 77: no GPU here
 * (no driver, or the driver sees none): skipped.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cuda/cuda_device.h"
#include "tssa/util.h"

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* The argument struct's layout on both sides (kir_print.c's NAME_args):
 * every field 8 bytes. */
typedef struct AddArgs {
    DevicePtr in[1];
    int64_t si[1];
    double sf[1];
    DevicePtr out[1];
} AddArgs;

/* NVRTC has no system headers: int64_t is declared here. */
static const char ADD_SOURCE[] =
    "typedef long long int64_t;\n"
    "struct add_args { const void *in[1]; int64_t si[1]; double sf[1]; void *out[1]; };\n"
    "extern \"C\" __global__ void add_one(const add_args a)\n"
    "{\n"
    "    const float *x = (const float *)a.in[0];\n"
    "    float *y = (float *)a.out[0];\n"
    "    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < a.si[0])\n"
    "        y[i] = x[i] + (float)a.sf[0];\n"
    "}\n"
    "extern \"C\" __global__ void twice(const add_args a)\n"
    "{\n"
    "    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < a.si[0])\n"
    "        ((float *)a.out[0])[i] = 2.0f * ((const float *)a.in[0])[i];\n"
    "}\n";

enum { N = 1000, THREADS = 256 };

/* Loads ADD_SOURCE and runs add_one (x + 0.5) and twice on N floats. */
static void check_kernels(Device *d)
{
    const char *names[] = {"add_one", "twice"};
    void *fns[2] = {NULL, NULL};
    bool ok = d->ops->load(d, ADD_SOURCE, names, 2, fns);
    EXPECT(ok && fns[0] && fns[1], "load: %s", d->error);
    if (!ok)
        return;
    float *x = xmalloc(N * sizeof *x), *y = xmalloc(N * sizeof *y);
    for (int i = 0; i < N; i++)
        x[i] = (float)i * 0.25f - 100.0f;
    DevicePtr dx = 0, dy = 0;
    ok = d->ops->alloc(d, N * sizeof(float), &dx) && d->ops->alloc(d, N * sizeof(float), &dy);
    EXPECT(ok && dx && dy, "alloc: %s", d->error);
    ok = ok && d->ops->upload(d, dx, x, N * sizeof(float));
    EXPECT(ok, "upload: %s", d->error);
    AddArgs args = {.in = {dx}, .si = {N}, .sf = {0.5}, .out = {dy}};
    int64_t blocks = (N + THREADS - 1) / THREADS;
    if (ok) {
        ok = d->ops->launch(d, fns[0], "add_one", blocks, THREADS, &args, sizeof args);
        EXPECT(ok, "launch add_one: %s", d->error);
    }
    if (ok) {
        memset(y, 0, N * sizeof *y);
        ok = d->ops->download(d, y, dy, N * sizeof(float));
        EXPECT(ok, "download: %s", d->error);
        int bad = 0;
        for (int i = 0; ok && i < N; i++)
            bad += y[i] != x[i] + 0.5f;
        EXPECT(bad == 0, "add_one: %d of %d elements wrong (y[1] = %g)", bad, N, (double)y[1]);
    }
    if (ok) {
        ok = d->ops->launch(d, fns[1], "twice", blocks, THREADS, &args, sizeof args) && d->ops->sync(d) &&
             d->ops->download(d, y, dy, N * sizeof(float));
        EXPECT(ok, "twice: %s", d->error);
        int bad = 0;
        for (int i = 0; ok && i < N; i++)
            bad += y[i] != 2.0f * x[i];
        EXPECT(bad == 0, "twice: %d of %d elements wrong", bad, N);
    }

    /* an empty grid is refused with a message, and the device still works */
    d->error[0] = '\0';
    EXPECT(!d->ops->launch(d, fns[0], "add_one", 0, THREADS, &args, sizeof args), "a launch of 0 blocks passed");
    EXPECT(strstr(d->error, "add_one") != NULL, "the message names the kernel: '%s'", d->error);
    d->error[0] = '\0';
    EXPECT(!d->ops->launch(d, fns[0], "add_one", (int64_t)1 << 40, THREADS, &args, sizeof args),
           "a launch of 2^40 blocks passed");
    EXPECT(d->error[0] != '\0', "no message for 2^40 blocks");
    EXPECT(d->ops->sync(d), "sync after refused launches: %s", d->error);

    d->ops->release(d, dx);
    d->ops->release(d, dy);
    free(x);
    free(y);
}

/* The second load of the same source comes from the cache: a binary beside
 * its source in DIR/cuda. */
static void check_cache(Device *d, const char *dir)
{
    const char *names[] = {"add_one"};
    void *fn = NULL;
    EXPECT(d->ops->load(d, ADD_SOURCE, names, 1, &fn) && fn, "second load: %s", d->error);
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/cuda", dir);
    DIR *dh = opendir(sub);
    int sources = 0, binaries = 0;
    for (struct dirent *e; dh && (e = readdir(dh));) {
        size_t n = strlen(e->d_name);
        sources += n > 3 && strcmp(e->d_name + n - 3, ".cu") == 0;
        binaries += (n > 6 && strcmp(e->d_name + n - 6, ".cubin") == 0) ||
                    (n > 4 && strcmp(e->d_name + n - 4, ".ptx") == 0);
    }
    if (dh)
        closedir(dh);
    EXPECT(sources == 1 && binaries == 1, "the cache %s holds %d sources and %d binaries", sub, sources, binaries);
}

/* A source that does not compile: the message carries NVRTC's log. */
static void check_compile_error(Device *d)
{
    const char *names[] = {"broken"};
    void *fn = NULL;
    d->error[0] = '\0';
    bool ok = d->ops->load(d, "extern \"C\" __global__ void broken() { undeclared_name = 1; }\n", names, 1, &fn);
    EXPECT(!ok, "a broken kernel loaded");
    EXPECT(strstr(d->error, "nvrtcCompileProgram") && strstr(d->error, "undeclared_name"),
           "the message has the call and the log: '%s'", d->error);
    /* a name the module lacks */
    d->error[0] = '\0';
    const char *missing[] = {"no_such_kernel"};
    EXPECT(!d->ops->load(d, ADD_SOURCE, missing, 1, &fn), "a missing kernel was found");
    EXPECT(strstr(d->error, "no_such_kernel") != NULL, "the message names it: '%s'", d->error);
}

/* The reference: row-major C = op(A) op(B) (+ C), a plain loop. */
static void reference_gemm(const DeviceGemm *g, const double *a, const double *b, double *c)
{
    for (int64_t bi = 0; bi < g->batch; bi++)
        for (int64_t i = 0; i < g->m; i++)
            for (int64_t j = 0; j < g->n; j++) {
                double s = 0;
                for (int64_t p = 0; p < g->k; p++) {
                    double av = g->trans_a ? a[bi * g->stride_a + p * g->lda + i] : a[bi * g->stride_a + i * g->lda + p];
                    double bv = g->trans_b ? b[bi * g->stride_b + j * g->ldb + p] : b[bi * g->stride_b + p * g->ldb + j];
                    s += av * bv;
                }
                double *out = &c[bi * g->stride_c + i * g->ldc + j];
                *out = g->accumulate ? *out + s : s;
            }
}

/* A [3, 4] @ [4, 2] product, batch 2, with padded rows (ld one longer
 * than needed), in the given transpositions and dtype. */
static void check_gemm_case(Device *d, TensorDType dt, bool ta, bool tb, bool accumulate, bool shared_b)
{
    DeviceGemm g = {.dtype = dt, .trans_a = ta, .trans_b = tb, .m = 3, .n = 2, .k = 4, .batch = 2,
                    .accumulate = accumulate};
    g.lda = (ta ? g.m : g.k) + 1;
    g.ldb = (tb ? g.k : g.n) + 1;
    g.ldc = g.n + 1;
    g.stride_a = (ta ? g.k : g.m) * g.lda;
    g.stride_b = shared_b ? 0 : (tb ? g.n : g.k) * g.ldb;
    g.stride_c = g.m * g.ldc;
    size_t na = (size_t)(g.stride_a * g.batch), nb = (size_t)((tb ? g.n : g.k) * g.ldb * g.batch),
           nc = (size_t)(g.stride_c * g.batch);
    double *a = xcalloc(na, sizeof *a), *b = xcalloc(nb, sizeof *b), *c = xcalloc(nc, sizeof *c);
    double *want = xcalloc(nc, sizeof *want);
    /* small integers: every product and sum is exact in float32 */
    for (size_t i = 0; i < na; i++)
        a[i] = (double)((int)(i * 7 % 11) - 5);
    for (size_t i = 0; i < nb; i++)
        b[i] = (double)((int)(i * 5 % 9) - 4);
    for (size_t i = 0; i < nc; i++)
        c[i] = want[i] = (double)((int)(i % 3) - 1);
    reference_gemm(&g, a, b, want);

    size_t es = dt == DT_F32 ? sizeof(float) : sizeof(double);
    void *ha = xmalloc(na * es), *hb = xmalloc(nb * es), *hc = xmalloc(nc * es);
    for (size_t i = 0; i < na; i++)
        dt == DT_F32 ? (void)(((float *)ha)[i] = (float)a[i]) : (void)(((double *)ha)[i] = a[i]);
    for (size_t i = 0; i < nb; i++)
        dt == DT_F32 ? (void)(((float *)hb)[i] = (float)b[i]) : (void)(((double *)hb)[i] = b[i]);
    for (size_t i = 0; i < nc; i++)
        dt == DT_F32 ? (void)(((float *)hc)[i] = (float)c[i]) : (void)(((double *)hc)[i] = c[i]);
    bool ok = d->ops->alloc(d, na * es, &g.a) && d->ops->alloc(d, nb * es, &g.b) &&
              d->ops->alloc(d, nc * es, &g.c) && d->ops->upload(d, g.a, ha, na * es) &&
              d->ops->upload(d, g.b, hb, nb * es) && d->ops->upload(d, g.c, hc, nc * es);
    EXPECT(ok, "gemm setup: %s", d->error);
    ok = ok && d->ops->gemm(d, &g);
    EXPECT(ok, "gemm %s trans_a %d trans_b %d: %s", dtype_name(dt), ta, tb, d->error);
    ok = ok && d->ops->download(d, hc, g.c, nc * es);
    if (ok) {
        int bad = 0;
        /* padding between rows must be left alone too: compare everything */
        for (size_t i = 0; i < nc; i++) {
            double got = dt == DT_F32 ? ((float *)hc)[i] : ((double *)hc)[i];
            bad += got != want[i];
        }
        EXPECT(bad == 0, "gemm %s trans_a %d trans_b %d accumulate %d shared_b %d: %d of %zu values wrong",
               dtype_name(dt), ta, tb, accumulate, shared_b, bad, nc);
    }
    d->ops->release(d, g.a);
    d->ops->release(d, g.b);
    d->ops->release(d, g.c);
    free(ha);
    free(hb);
    free(hc);
    free(a);
    free(b);
    free(c);
    free(want);
}

static void check_gemm(Device *d)
{
    for (int dt = 0; dt < 2; dt++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                check_gemm_case(d, dt ? DT_F64 : DT_F32, ta, tb, false, false);
    check_gemm_case(d, DT_F32, false, false, true, false);
    check_gemm_case(d, DT_F64, true, false, true, true);

    DeviceGemm g = {.dtype = DT_I64, .m = 1, .n = 1, .k = 1, .lda = 1, .ldb = 1, .ldc = 1, .batch = 1};
    d->error[0] = '\0';
    EXPECT(!d->ops->gemm(d, &g), "an int64 gemm passed");
    EXPECT(d->error[0] != '\0', "no message for an int64 gemm");
}

/* Removes the files of the test's cache folder and the folder. */
static void remove_tree(const char *dir)
{
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/cuda", dir);
    DIR *dh = opendir(sub);
    for (struct dirent *e; dh && (e = readdir(dh));) {
        if (e->d_name[0] == '.')
            continue;
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
        unlink(path);
    }
    if (dh)
        closedir(dh);
    rmdir(sub);
    rmdir(dir);
}

int main(void)
{
    const char *why = NULL;
    int count = cuda_driver_count(&why);
    if (count <= 0) {
        printf("skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    /* a cache of the test's own, so the first load compiles and the second hits */
    char dir[] = "/tmp/tssa-cuda-test-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("TSSA_CACHE_DIR", dir, 1);

    Device *d = cuda_driver_open(0, stderr);
    if (!d) {
        fprintf(stderr, "FAIL: cuda_driver_open(0) failed with %d devices\n", count);
        remove_tree(dir);
        return 1;
    }
    printf("device: %s\n", d->name);
    EXPECT(d->sm >= 30 && !d->emulated && d->memory > 0, "sm %d emulated %d memory %zu", d->sm, d->emulated,
           d->memory);
    EXPECT(strstr(d->name, "(sm_") != NULL, "name '%s'", d->name);

    check_kernels(d);
    check_cache(d, dir);
    check_compile_error(d);
    check_gemm(d);
    d->ops->close(d);

    Device *none = cuda_driver_open(count, NULL);
    EXPECT(none == NULL, "device %d of %d opened", count, count);

    remove_tree(dir);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
