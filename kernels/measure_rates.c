/* measure_rates.c — the cost model's memory bandwidth and math rate,
 * measured with code compiled exactly as the generated kernels are
 * (cc_jit: -O3 -march=native -fopenmp, the kernels' prelude with its
 * libmvec declarations), so that the rates predict the kernels rather than
 * this project's own build (plain -O2: a third less bandwidth on one core
 * of the 2-core test host, and no vector tanh or exp at all).
 *
 *   bandwidth  a STREAM triad a = b + s*c over three arrays of 8 Mi floats
 *              (96 MiB, more than a last-level cache holds), 12 bytes per
 *              element, the best of 10 runs 25 ms apart (a shared machine
 *              has quiet moments; ten runs back to back, 40 ms in all, fell
 *              inside one busy spell: the test host's one-core triad read
 *              15.6 GB/s so, and 23 GB/s ten minutes later)
 *   math       tanh(x) + exp(-x) over 16 Ki floats per thread (64 KiB:
 *              in the core's own cache, so the calls alone are timed), 64
 *              passes (each thread its own elements every pass, with no
 *              barrier between passes), 2 calls per element, the best of
 *              10 runs 25 ms apart
 * Each is run by `threads` OpenMP threads, the way the kernels share a
 * loop. The result is cached by device_rates.c with the other rates.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels_internal.h"
#include "tssa/cc_jit.h"
#include "tssa/kernels.h"
#include "tssa/util.h"

enum {
    TRIAD_FLOATS = 8 << 20,
    MATH_FLOATS_PER_THREAD = 16 << 10,
    MATH_PASSES = 64,
    MATH_CALLS_PER_ELEMENT = 2,
    RUNS = 10,
    RUN_SPACING_NS = 25 * 1000 * 1000,
};

static const char PROBE_SOURCE[] =
    "void tssa_probe_fill(float *a, float *b, float *c, int64_t n, int threads)\n"
    "{\n"
    "    #pragma omp parallel for schedule(static) num_threads(threads)\n"
    "    for (int64_t i = 0; i < n; i++) {\n"
    "        a[i] = 0.0f;\n"
    "        b[i] = 1.0f;\n"
    "        c[i] = 2.0f;\n"
    "    }\n"
    "}\n"
    "void tssa_probe_triad(float *restrict a, const float *restrict b, const float *restrict c,\n"
    "                      float s, int64_t n, int threads)\n"
    "{\n"
    "    #pragma omp parallel for schedule(static) num_threads(threads)\n"
    "    for (int64_t i = 0; i < n; i++)\n"
    "        a[i] = b[i] + s * c[i];\n"
    "}\n"
    "void tssa_probe_math(float *restrict out, const float *restrict in, int64_t n, int passes,\n"
    "                     int threads)\n"
    "{\n"
    "    #pragma omp parallel num_threads(threads)\n"
    "    for (int p = 0; p < passes; p++) {\n"
    "        #pragma omp for schedule(static) nowait\n"
    "        for (int64_t i = 0; i < n; i++)\n"
    "            out[i] = TANH(in[i]) + EXP(-in[i]);\n"
    "    }\n"
    "}\n";

typedef void FillFn(float *, float *, float *, int64_t, int);
typedef void TriadFn(float *, const float *, const float *, float, int64_t, int);
typedef void MathFn(float *, const float *, int64_t, int, int);

static volatile float probe_sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool kernels_measure_rates(void *ctx, int threads, double *bytes_per_s, double *math_per_s)
{
    (void)ctx;
    TextBuf src;
    textbuf_init(&src, NULL);
    kir_print_prelude(&src, KIR_TARGET_C);
    textbuf_puts(&src, PROBE_SOURCE);
    static const char *const symbols[] = {"tssa_probe_fill", "tssa_probe_triad", "tssa_probe_math"};
    CcJitOptions opts = {.symbols = symbols, .nsymbols = 3};
    /* A compiler that is missing or fails leaves the caller's own loops:
     * no message (the kernels' first compile reports it, once). */
    CcLibrary *lib = cc_jit_load(src.data, src.len, &opts, NULL, NULL);
    textbuf_release(&src);
    if (!lib)
        return false;
    FillFn *fill = (FillFn *)cc_jit_symbol(lib, "tssa_probe_fill");
    TriadFn *triad = (TriadFn *)cc_jit_symbol(lib, "tssa_probe_triad");
    MathFn *math = (MathFn *)cc_jit_symbol(lib, "tssa_probe_math");
    if (threads < 1)
        threads = 1;

    float *a = xmallocn(TRIAD_FLOATS, sizeof *a), *b = xmallocn(TRIAD_FLOATS, sizeof *b);
    float *c = xmallocn(TRIAD_FLOATS, sizeof *c);
    fill(a, b, c, TRIAD_FLOATS, threads);       /* pages placed by the threads that use them */
    double best = INFINITY;
    for (int run = 0; run < RUNS; run++) {
        if (run > 0)
            nanosleep(&(struct timespec){.tv_nsec = RUN_SPACING_NS}, NULL);
        double start = now_s();
        triad(a, b, c, (float)(run + 1), TRIAD_FLOATS, threads);
        best = fmin(best, now_s() - start);
        probe_sink += a[TRIAD_FLOATS / 2];
    }
    *bytes_per_s = 3.0 * sizeof(float) * TRIAD_FLOATS / best;
    free(a);
    free(b);
    free(c);

    int64_t n = (int64_t)MATH_FLOATS_PER_THREAD * threads;
    float *in = xmallocn((size_t)n, sizeof *in), *out = xmallocn((size_t)n, sizeof *out);
    for (int64_t i = 0; i < n; i++)
        in[i] = (float)(i % 977) * (4.0f / 977.0f) - 2.0f;     /* tanh's and exp's working range */
    best = INFINITY;
    for (int run = 0; run < RUNS; run++) {
        if (run > 0)
            nanosleep(&(struct timespec){.tv_nsec = RUN_SPACING_NS}, NULL);
        double start = now_s();
        math(out, in, n, MATH_PASSES, threads);
        best = fmin(best, now_s() - start);
        probe_sink += out[n / 2];
    }
    *math_per_s = (double)MATH_CALLS_PER_ELEMENT * MATH_PASSES * (double)n / best;
    free(in);
    free(out);
    cc_jit_close(lib);
    return true;
}
