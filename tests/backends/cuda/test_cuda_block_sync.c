/* test_cuda_block_sync — what block-cooperative kernels (the printer's block
 * reductions: shared memory, __syncthreads, TSSA_KERNEL_ENTRY_COOP) need
 * from a device, on the CPU shim with TSSA_CUDA_EMULATE=1 (how ctest runs
 * it), or on a GPU:
 *
 *   barrier    reverse: each thread of a 64-thread block stores its value
 *              in shared memory, __syncthreads, then reads its mirror
 *              thread's; 3 blocks. Right only if every thread's store
 *              happened before any thread's read.
 *   no barrier (shim only) the same kernel with __syncthreads defined away:
 *              the shim runs the block's threads one after another up to
 *              a barrier, so thread 0 reads its mirror's slot before that
 *              thread stored it and the result must be wrong: a barrier
 *              that did nothing would fail the check above.
 *   shuffles   __shfl_xor_sync(v, 5) and __shfl_down_sync(v, 3) of v = the
 *              thread's global index, in 2 blocks of 64 (two warps each):
 *              the xor partner is lane ^ 5 in the same warp; the down
 *              partner lane + 3 while under 32, else the thread's own v.
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

enum { THREADS = 64, BLOCKS = 3, N = THREADS * BLOCKS };

typedef struct Args {
    DevicePtr in[1];
    int64_t si[1];
    double sf[1];
    DevicePtr out[2];
} Args;

#define KERNEL_REVERSE(name) \
    "extern \"C\" __global__ void " name "(const args a)\n" \
    "{\n" \
    "    __shared__ float buf[64];\n" \
    "    const float *in = (const float *)a.in[0];\n" \
    "    float *out = (float *)a.out[0];\n" \
    "    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n" \
    "    buf[threadIdx.x] = in[i];\n" \
    "    __syncthreads();\n" \
    "    out[i] = buf[blockDim.x - 1 - threadIdx.x];\n" \
    "}\n" \
    "TSSA_KERNEL_ENTRY_COOP(" name ", args)\n"

static const char SOURCE[] =
    "#ifndef TSSA_KERNEL_ENTRY_COOP\n#define TSSA_KERNEL_ENTRY_COOP(kernel, args)\n#endif\n"
    "struct args { const void *in[1]; long long si[1]; double sf[1]; void *out[2]; };\n"
    KERNEL_REVERSE("reverse")
    "extern \"C\" __global__ void shuffles(const args a)\n"
    "{\n"
    "    const float *in = (const float *)a.in[0];\n"
    "    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    ((float *)a.out[0])[i] = __shfl_xor_sync(0xffffffffu, in[i], 5);\n"
    "    ((float *)a.out[1])[i] = __shfl_down_sync(0xffffffffu, in[i], 3);\n"
    "}\n"
    "TSSA_KERNEL_ENTRY_COOP(shuffles, args)\n"
    /* last: what follows has no barrier (the shim only loads it) */
    "#ifndef __CUDACC_RTC__\n#define __syncthreads() ((void)0)\n"
    KERNEL_REVERSE("reverse_nobarrier")
    "#endif\n";

static bool run(Device *d, void *fn, const char *name, int blocks, DevicePtr in, DevicePtr out0, DevicePtr out1,
                float *got0, float *got1)
{
    Args a = {.in = {in}, .out = {out0, out1}};
    bool ok = d->ops->zero(d, out0, N * sizeof(float)) && d->ops->zero(d, out1, N * sizeof(float)) &&
              d->ops->launch(d, fn, name, blocks, THREADS, &a, sizeof a) &&
              d->ops->download(d, got0, out0, N * sizeof(float)) &&
              (!got1 || d->ops->download(d, got1, out1, N * sizeof(float))) && d->ops->sync(d);
    CHECK_MSG(ok, "%s: %s", name, d->error);
    return ok;
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
    const char *names[] = {"reverse", "shuffles", "reverse_nobarrier"};
    int nkernels = emulate ? 3 : 2;
    void *fn[3] = {0};
    DevicePtr in = 0, out0 = 0, out1 = 0;
    bool ok = d->ops->load(d, SOURCE, names, nkernels, fn) && d->ops->alloc(d, N * sizeof(float), &in) &&
              d->ops->alloc(d, N * sizeof(float), &out0) && d->ops->alloc(d, N * sizeof(float), &out1);
    CHECK_MSG(ok, "setup: %s", d->error);
    if (!ok)
        return 1;
    float x[N], got0[N], got1[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    ok = d->ops->upload(d, in, x, sizeof x) && d->ops->sync(d);
    CHECK_MSG(ok, "upload: %s", d->error);

    if (run(d, fn[0], "reverse", BLOCKS, in, out0, out1, got0, NULL)) {
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += got0[i] != (float)(i / THREADS * THREADS + THREADS - 1 - i % THREADS);
        CHECK_MSG(wrong == 0, "reverse with a barrier: %d of %d values wrong", wrong, N);
        printf("barrier: reverse right in %d of %d values\n", N - wrong, N);
    }
    if (emulate && run(d, fn[2], "reverse_nobarrier", BLOCKS, in, out0, out1, got0, NULL)) {
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += got0[i] != (float)(i / THREADS * THREADS + THREADS - 1 - i % THREADS);
        CHECK_MSG(wrong > 0, "reverse without a barrier came out right: the check above could not "
                             "catch a barrier that does nothing");
        printf("no barrier: reverse wrong in %d of %d values (as it must be)\n", wrong, N);
    }
    if (run(d, fn[1], "shuffles", 2, in, out0, out1, got0, got1)) {
        int wrong_xor = 0, wrong_down = 0;
        for (int i = 0; i < 2 * THREADS; i++) {
            int lane = i % 32, warp = i - lane;
            wrong_xor += got0[i] != (float)(warp + (lane ^ 5));
            wrong_down += got1[i] != (float)(lane + 3 < 32 ? i + 3 : i);
        }
        CHECK_MSG(wrong_xor == 0 && wrong_down == 0, "shuffles: %d xor and %d down values wrong", wrong_xor,
                  wrong_down);
        printf("shuffles: xor 5 and down 3 right in %d values\n", 2 * THREADS);
    }
    d->ops->release(d, in);
    d->ops->release(d, out0);
    d->ops->release(d, out1);
    d->ops->close(d);
    return test_report("cuda_block_sync_check");
}
