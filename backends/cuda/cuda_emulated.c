/* cuda_emulated.c — the CPU shim: a Device (cuda_device.h) that runs the
 * generated CUDA text on this CPU, so the cuda backend's whole path —
 * residency, copies, argument packing, launches, GEMM calls — runs and is
 * tested where there is no GPU (CI). Selected by TSSA_CUDA_EMULATE=1.
 *
 *   memory   every allocation is a separate host buffer, never the host
 *            tensor's own: a copy the backend forgets (a stale device or
 *            host side) gives wrong results here, as it would on a GPU;
 *   kernels  the CUDA text, after a header that turns CUDA's launch model
 *            into loops (below), is compiled as C++ by the system compiler
 *            through the kernels' cc_jit (cached like the C kernels); each
 *            TSSA_KERNEL_ENTRY(kernel, args) the printer writes after a
 *            __global__ becomes an extern "C" launcher kernel_shim(args,
 *            blocks, threads) that runs every (block, thread) pair in
 *            order, on the calling thread (no OpenMP: a shim is for
 *            checking, and thread-local indices in a loaded library trip
 *            LeakSanitizer's thread scan);
 *   GEMM     OpenBLAS (cblas) on the emulated buffers, plain loops without it.
 * Generated kernels synchronize nothing (one thread per output element, no
 * shared memory), so running the threads one after another is exact.
 *
 * TSSA_CUDA_EMULATE=fail-launch makes every launch fail as a GPU's would
 * (the tests check the message that names the call, filter and line).
 */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "tssa/cc_jit.h"
#include "tssa/util.h"

#ifdef TSSA_USE_BLAS
#include <cblas.h>
#endif

static const char SHIM_HEADER[] =
    "/* tssa-stream's CPU shim for CUDA kernels: blockIdx / threadIdx are\n"
    " * variables a launcher sets in loops over the grid */\n"
    "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
    "struct tssa_dim3 { unsigned x, y, z; };\n"
    "static tssa_dim3 blockIdx, threadIdx, blockDim;\n"
    "#define __global__\n#define __device__\n#define __forceinline__ inline\n"
    "#define __restrict__ __restrict\n"
    "#define TSSA_KERNEL_ENTRY(kernel, args) \\\n"
    "extern \"C\" void kernel##_shim(const void *argv, int64_t blocks, int threads) { \\\n"
    "    args a; \\\n"
    "    memcpy(&a, argv, sizeof a); \\\n"

    "    for (int64_t b = 0; b < blocks; b++) { \\\n"
    "        blockIdx.x = (unsigned)b; \\\n"
    "        blockDim.x = (unsigned)threads; \\\n"
    "        for (int t = 0; t < threads; t++) { \\\n"
    "            threadIdx.x = (unsigned)t; \\\n"
    "            kernel(a); \\\n"
    "        } \\\n"
    "    } \\\n"
    "}\n\n";

typedef void (*ShimLauncher)(const void *args, int64_t blocks, int threads);

typedef struct Emulated {
    CcLibrary **libs;
    int nlibs;
    bool fail_launches;         /* TSSA_CUDA_EMULATE=fail-launch */
} Emulated;

static bool emu_alloc(Device *d, size_t bytes, DevicePtr *p)
{
    void *m = malloc(bytes ? bytes : 1);
    if (!m) {
        snprintf(d->error, sizeof d->error, "malloc(%zu): out of memory (emulated device)", bytes);
        return false;
    }
    *p = (DevicePtr)(uintptr_t)m;
    return true;
}

static void emu_release(Device *d, DevicePtr p)
{
    (void)d;
    free((void *)(uintptr_t)p);
}

static bool emu_upload(Device *d, DevicePtr dst, const void *src, size_t bytes)
{
    (void)d;
    if (bytes)
        memcpy((void *)(uintptr_t)dst, src, bytes);
    return true;
}

static bool emu_download(Device *d, void *dst, DevicePtr src, size_t bytes)
{
    (void)d;
    if (bytes)
        memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return true;
}

static bool emu_load(Device *d, const char *source, const char *const *names, int n, void **functions)
{
    Emulated *e = d->impl;
    size_t len = strlen(source);
    char *text = xmalloc(sizeof SHIM_HEADER + len);
    memcpy(text, SHIM_HEADER, sizeof SHIM_HEADER - 1);
    memcpy(text + sizeof SHIM_HEADER - 1, source, len + 1);
    char **shim_names = xmallocn(n > 0 ? (size_t)n : 1, sizeof *shim_names);
    for (int i = 0; i < n; i++)
        shim_names[i] = xprintf("%s_shim", names[i]);
    /* TSSA_KERNEL_CFLAGS applies here too (the tests add -Wall -Werror) */
    CcJitOptions o = {.cplusplus = true, .extra_flags = getenv("TSSA_KERNEL_CFLAGS"),
                      .symbols = (const char *const *)shim_names, .nsymbols = n};
    char *log = NULL;
    size_t loglen = 0;
    FILE *msg = open_memstream(&log, &loglen);
    CcLibrary *lib = cc_jit_load(text, strlen(text), &o, NULL, msg);
    fclose(msg);
    free(text);
    if (lib && log && *log)
        fputs(log, stderr);     /* a warning (the cache not trusted): the run goes on */
    if (!lib) {
        /* the compiler's message, on one line for d->error */
        for (char *c = log; c && *c; c++)
            if (*c == '\n')
                *c = ' ';
        snprintf(d->error, sizeof d->error, "compiling the kernels as C++ (CPU shim): %s",
                 log ? log : "failed");
        free(log);
        for (int i = 0; i < n; i++)
            free(shim_names[i]);
        free(shim_names);
        return false;
    }
    free(log);
    e->libs = xrealloc(e->libs, (size_t)(e->nlibs + 1) * sizeof *e->libs);
    e->libs[e->nlibs++] = lib;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        functions[i] = cc_jit_symbol(lib, shim_names[i]);
        if (!functions[i]) {
            snprintf(d->error, sizeof d->error, "the CPU shim's kernels lack %s", names[i]);
            ok = false;
        }
    }
    for (int i = 0; i < n; i++)
        free(shim_names[i]);
    free(shim_names);
    return ok;
}

static bool emu_launch(Device *d, void *function, const char *name, int64_t blocks, int threads,
                       const void *args, size_t args_size)
{
    (void)args_size;
    if (blocks <= 0 || blocks > 2147483647 || threads <= 0 || threads > 1024) {
        snprintf(d->error, sizeof d->error, "launch(%s): a grid of %lld blocks of %d threads is out of range",
                 name, (long long)blocks, threads);
        return false;
    }
    if (((Emulated *)d->impl)->fail_launches) {
        snprintf(d->error, sizeof d->error,
                 "cuLaunchKernel(%s): CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure "
                 "(injected: TSSA_CUDA_EMULATE=fail-launch)", name);
        return false;
    }
    ShimLauncher launch;
    memcpy(&launch, &function, sizeof launch);     /* a symbol of the loaded shim */
    launch(args, blocks, threads);
    return true;
}

/* Row-major C = op(A) op(B) (+ C), per batch matrix. */
static bool emu_gemm(Device *d, const DeviceGemm *g)
{
    if (g->dtype != DT_F32 && g->dtype != DT_F64) {
        snprintf(d->error, sizeof d->error, "gemm: %s is not a GEMM type", dtype_name(g->dtype));
        return false;
    }
    size_t es = dtype_size(g->dtype);
    for (int64_t i = 0; i < g->batch; i++) {
        const char *a = (const char *)(uintptr_t)g->a + (size_t)(i * g->stride_a) * es;
        const char *b = (const char *)(uintptr_t)g->b + (size_t)(i * g->stride_b) * es;
        char *c = (char *)(uintptr_t)g->c + (size_t)(i * g->stride_c) * es;
#ifdef TSSA_USE_BLAS
        enum CBLAS_TRANSPOSE ta = g->trans_a ? CblasTrans : CblasNoTrans;
        enum CBLAS_TRANSPOSE tb = g->trans_b ? CblasTrans : CblasNoTrans;
        double beta = g->accumulate ? 1.0 : 0.0;
        if (g->dtype == DT_F32)
            cblas_sgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k, 1.0f, (const float *)a,
                        (int)g->lda, (const float *)b, (int)g->ldb, (float)beta, (float *)c, (int)g->ldc);
        else
            cblas_dgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k, 1.0, (const double *)a,
                        (int)g->lda, (const double *)b, (int)g->ldb, beta, (double *)c, (int)g->ldc);
#else
        for (int64_t r = 0; r < g->m; r++)
            for (int64_t col = 0; col < g->n; col++) {
                double acc = 0;
                for (int64_t q = 0; q < g->k; q++) {
                    int64_t ai = g->trans_a ? q * g->lda + r : r * g->lda + q;
                    int64_t bi = g->trans_b ? col * g->ldb + q : q * g->ldb + col;
                    acc += g->dtype == DT_F32 ? (double)((const float *)a)[ai] * ((const float *)b)[bi]
                                              : ((const double *)a)[ai] * ((const double *)b)[bi];
                }
                int64_t ci = r * g->ldc + col;
                if (g->dtype == DT_F32)
                    ((float *)c)[ci] = (float)(acc + (g->accumulate ? ((float *)c)[ci] : 0));
                else
                    ((double *)c)[ci] = acc + (g->accumulate ? ((double *)c)[ci] : 0);
            }
#endif
    }
    return true;
}

static bool emu_zero(Device *d, DevicePtr p, size_t bytes)
{
    (void)d;
    if (bytes)
        memset((void *)(uintptr_t)p, 0, bytes);
    return true;
}

static bool emu_sync(Device *d)
{
    (void)d;
    return true;
}

static void emu_close(Device *d)
{
    if (!d)
        return;
    Emulated *e = d->impl;
    for (int i = 0; i < e->nlibs; i++)
        cc_jit_close(e->libs[i]);
    free(e->libs);
    free(e);
    free(d);
}

static const DeviceOps EMULATED_OPS = {
    .alloc = emu_alloc, .release = emu_release, .upload = emu_upload, .download = emu_download,
    .zero = emu_zero, .load = emu_load, .launch = emu_launch, .gemm = emu_gemm, .sync = emu_sync, .close = emu_close,
};

Device *cuda_emulated_open(FILE *err)
{
    (void)err;
    Device *d = xcalloc(1, sizeof *d);
    d->ops = &EMULATED_OPS;
    d->emulated = true;
    d->memory = physical_memory_bytes();
    snprintf(d->name, sizeof d->name, "emulated on the CPU (TSSA_CUDA_EMULATE: CUDA kernels as C++)");
    Emulated *e = xcalloc(1, sizeof *e);
    const char *mode = getenv("TSSA_CUDA_EMULATE");
    e->fail_launches = mode && strcmp(mode, "fail-launch") == 0;
    d->impl = e;
    return d;
}
