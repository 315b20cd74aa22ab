/* test_cuda_graph — a device's graphs (cuda_device.h: capture_begin,
 * capture_end, graph_launch, graph_destroy), on a GPU, or on the CPU shim
 * with TSSA_CUDA_EMULATE=1 (how ctest runs it; scripts/gpu-check.sh runs
 * it on the GPU):
 *
 *   captured   x = 1 uploaded; then, captured: y = x + 1, z = y + 1 (two
 *              launches) and C = A @ B (a cuBLAS product, 2x2). Capturing
 *              runs nothing: z and C still hold what they held (-1, 0).
 *   replayed   the graph launched: z = 3, C = A @ B.
 *   rebound    x = 10 and A = 2 A uploaded into the same buffers, the graph
 *              launched again: z = 12, C = 2 (A @ B): a replay reads its
 *              buffers' contents then, not at capture.
 *   refused    while capturing, a download fails (the host may not wait for
 *              a capturing stream) with a message naming the call; the
 *              capture is ended after it.
 *
 * exit 0: passed; 1: a check failed; 77: no GPU and no shim asked for.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "test_util.h"
#include "tssa/util.h"

typedef struct Args {
    DevicePtr in[1];
    int64_t si[1];
    double sf[1];
    DevicePtr out[1];
} Args;

/* plus_one: out[0] = in[0] + 1 */
static const char SOURCE[] =
    "struct args { const void *in[1]; long long si[1]; double sf[1]; void *out[1]; };\n"
    "extern \"C\" __global__ void plus_one(const args a)\n"
    "{\n"
    "    if (blockIdx.x != 0 || threadIdx.x != 0)\n        return;\n"
    "    ((float *)a.out[0])[0] = ((const float *)a.in[0])[0] + 1.0f;\n"
    "}\n"
    "#ifdef TSSA_KERNEL_ENTRY\nTSSA_KERNEL_ENTRY(plus_one, args)\n#endif\n";

static bool put(Device *d, DevicePtr p, const float *v, size_t n)
{
    return d->ops->upload(d, p, v, n * sizeof *v) && d->ops->stream_sync(d);
}

static bool plus_one(Device *d, void *fn, DevicePtr in, DevicePtr out)
{
    Args a = {.in = {in}, .out = {out}};
    return d->ops->launch(d, fn, "plus_one", 1, 1, &a, sizeof a);
}

/* z and C now (NaN on a failure) */
static void read_back(Device *d, DevicePtr z, DevicePtr c, float *zv, float cv[4])
{
    *zv = 0.0f / 0.0f;
    bool ok = d->ops->download(d, zv, z, sizeof *zv) && d->ops->download(d, cv, c, 4 * sizeof *cv);
    CHECK_MSG(ok, "read back: %s", d->error);
}

static bool same4(const float *a, const float *b)
{
    return memcmp(a, b, 4 * sizeof *a) == 0;
}

int main(void)
{
    const char *mode = getenv("TSSA_CUDA_EMULATE");
    bool emulate = mode && *mode && strcmp(mode, "0") != 0;
    const char *why = NULL;
    if (!emulate && cuda_driver_count(&why) <= 0) {
        printf("skipped: %s\n", why ? why : "no CUDA device");
        return 77;
    }
    Device *d = emulate ? cuda_emulated_open(0, stderr) : cuda_driver_open(0, stderr);
    if (!d) {
        fprintf(stderr, "FAIL: no device\n");
        return 1;
    }
    printf("device: %s\n", d->name);
    const char *names[] = {"plus_one"};
    void *fn = NULL;
    DevicePtr x = 0, y = 0, z = 0, a = 0, b = 0, c = 0;
    bool ok = d->ops->load(d, SOURCE, names, 1, &fn) && d->ops->alloc(d, 4, &x) && d->ops->alloc(d, 4, &y) &&
              d->ops->alloc(d, 4, &z) && d->ops->alloc(d, 16, &a) && d->ops->alloc(d, 16, &b) &&
              d->ops->alloc(d, 16, &c);
    CHECK_MSG(ok, "setup: %s", d->error);
    if (!ok)
        return 1;
    /* A = [[1,2],[3,4]], B = [[5,6],[7,8]]: A @ B = [[19,22],[43,50]] */
    const float one = 1.0f, minus_one = -1.0f, ten = 10.0f, zeros[4] = {0, 0, 0, 0};
    const float av[4] = {1, 2, 3, 4}, bv[4] = {5, 6, 7, 8}, a2[4] = {2, 4, 6, 8};
    const float ab[4] = {19, 22, 43, 50}, ab2[4] = {38, 44, 86, 100};
    ok = put(d, x, &one, 1) && put(d, y, &minus_one, 1) && put(d, z, &minus_one, 1) && put(d, a, av, 4) &&
         put(d, b, bv, 4) && put(d, c, zeros, 4);
    CHECK_MSG(ok, "inputs: %s", d->error);
    /* cuBLAS's handle is made at its first product, outside the capture */
    DeviceGemm g = {.dtype = DT_F32, .m = 2, .n = 2, .k = 2, .a = a, .b = b, .c = c, .lda = 2, .ldb = 2,
                    .ldc = 2, .batch = 1};
    ok = d->ops->gemm(d, &g) && put(d, c, zeros, 4);
    CHECK_MSG(ok, "warm-up product: %s", d->error);

    DeviceGraph *graph = NULL;
    ok = d->ops->capture_begin(d) && plus_one(d, fn, x, y) && plus_one(d, fn, y, z) && d->ops->gemm(d, &g) &&
         d->ops->capture_end(d, &graph);
    CHECK_MSG(ok && graph, "capture: %s", d->error);
    if (!ok || !graph)
        return test_report("cuda_graph_check");
    float zv, cv[4];
    read_back(d, z, c, &zv, cv);
    CHECK_MSG(zv == -1.0f && same4(cv, zeros), "captured: z = %g, C[0] = %g: the capture ran the work", (double)zv,
              (double)cv[0]);
    printf("captured: z = %g, C = [%g %g %g %g] (nothing ran)\n", (double)zv, (double)cv[0], (double)cv[1],
           (double)cv[2], (double)cv[3]);

    ok = d->ops->graph_launch(d, graph);
    CHECK_MSG(ok, "graph_launch: %s", d->error);
    read_back(d, z, c, &zv, cv);
    CHECK_MSG(zv == 3.0f && same4(cv, ab), "replayed: z = %g (expected 3), C = [%g %g %g %g]", (double)zv,
              (double)cv[0], (double)cv[1], (double)cv[2], (double)cv[3]);
    printf("replayed: z = %g (expected 3), C = [%g %g %g %g] (expected 19 22 43 50)\n", (double)zv,
           (double)cv[0], (double)cv[1], (double)cv[2], (double)cv[3]);

    ok = put(d, x, &ten, 1) && put(d, a, a2, 4) && d->ops->graph_launch(d, graph);
    CHECK_MSG(ok, "rebind: %s", d->error);
    read_back(d, z, c, &zv, cv);
    CHECK_MSG(zv == 12.0f && same4(cv, ab2), "rebound: z = %g (expected 12), C[0] = %g (expected 38)", (double)zv,
              (double)cv[0]);
    printf("rebound: z = %g (expected 12), C = [%g %g %g %g] (expected 38 44 86 100)\n", (double)zv,
           (double)cv[0], (double)cv[1], (double)cv[2], (double)cv[3]);
    d->ops->graph_destroy(d, graph);

    /* the host may not wait for a capturing stream */
    DeviceGraph *partial = NULL;
    ok = d->ops->capture_begin(d) && plus_one(d, fn, x, y);
    CHECK_MSG(ok, "second capture: %s", d->error);
    float read = 0;
    bool refused = !d->ops->download(d, &read, y, sizeof read);
    CHECK_MSG(refused, "a download while capturing was not refused");
    if (emulate)
        CHECK_MSG(strstr(d->error, "cuStreamSynchronize") && strstr(d->error, "CAPTURE"),
                  "the refusal names no call: %s", d->error);
    printf("refused: %s\n", d->error);
    /* on a GPU the refused call invalidates the capture: ending it fails */
    bool ended = d->ops->capture_end(d, &partial);
    printf("capture after the refusal: %s\n", ended ? "ended" : d->error);
    if (partial)
        d->ops->graph_destroy(d, partial);
    ok = d->ops->sync(d);
    CHECK_MSG(ok, "the device after a refused capture: %s", d->error);

    d->ops->release(d, x);
    d->ops->release(d, y);
    d->ops->release(d, z);
    d->ops->release(d, a);
    d->ops->release(d, b);
    d->ops->release(d, c);
    d->ops->close(d);
    return test_report("cuda_graph_check");
}
