/* test_cuda_streams — a device's streams and the events between them
 * (cuda_device.h: stream_open, order, stream_sync), on a GPU, or on the CPU
 * shim with TSSA_CUDA_EMULATE=1 (how ctest runs it; scripts/gpu-check.sh
 * runs it on the GPU):
 *
 *   ordered    stream A: y = x + 1 after a spin (a kernel busy for a
 *              while, on the shim a no-op); stream B waits for A (order),
 *              then z = y + 1, downloaded on B: z = 3 (x = 1, y first 0).
 *   unordered  the same without the wait: on the shim B runs before A's
 *              queued work, so z = 1 (y still 0): a missing wait is caught
 *              here, not only on a GPU. On a GPU the race is only reported
 *              (A spins about 50 ms, so B usually wins it too).
 *   overlap    (GPU only) two one-block spins on two streams take about
 *              as long as one, against about twice as long on one stream:
 *              the streams run concurrently. Printed, and checked to be
 *              under 1.5x one spin.
 *
 * exit 0: passed; 1: a check failed; 77: no GPU and no shim asked for.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cuda/cuda_device.h"
#include "test_util.h"
#include "tssa/util.h"


typedef struct Args {
    DevicePtr in[1];
    int64_t si[1];
    double sf[1];
    DevicePtr out[1];
} Args;

/* plus_one: out[0] = in[0] + 1 after spinning si[0] clock cycles (a GPU's
 * clock64; the shim has no clock and does not spin). */
static const char SOURCE[] =
    "struct args { const void *in[1]; long long si[1]; double sf[1]; void *out[1]; };\n"
    "extern \"C\" __global__ void plus_one(const args a)\n"
    "{\n"
    "    if (blockIdx.x != 0 || threadIdx.x != 0)\n        return;\n"
    "#ifdef __CUDACC_RTC__\n"
    "    const long long start = clock64();\n"
    "    while (clock64() - start < a.si[0]) {}\n"
    "#endif\n"
    "    ((float *)a.out[0])[0] = ((const float *)a.in[0])[0] + 1.0f;\n"
    "}\n"
    "#ifdef TSSA_KERNEL_ENTRY\nTSSA_KERNEL_ENTRY(plus_one, args)\n#endif\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool put(Device *d, DevicePtr p, float v)
{
    return d->ops->upload(d, p, &v, sizeof v) && d->ops->stream_sync(d);
}

static bool launch(Device *d, DeviceStream *s, void *fn, DevicePtr in, DevicePtr out, int64_t spin)
{
    d->stream = s;
    Args a = {.in = {in}, .si = {spin}, .out = {out}};
    return d->ops->launch(d, fn, "plus_one", 1, 1, &a, sizeof a);
}

/* z after y = x + 1 on A (spinning) and z = y + 1 on B, B waiting for A
 * when `ordered`; NaN on a failure. */
static float chain(Device *d, DeviceStream *a, DeviceStream *b, void *fn, DevicePtr x, DevicePtr y, DevicePtr z,
                   bool ordered, int64_t spin)
{
    float out = 0.0f / 0.0f;
    d->stream = a;
    bool ok = put(d, x, 1.0f) && put(d, y, 0.0f) && put(d, z, -1.0f);
    ok = ok && launch(d, a, fn, x, y, spin);
    if (ordered)
        ok = ok && d->ops->order(d, b, d, a);
    ok = ok && launch(d, b, fn, y, z, 0);
    d->stream = b;
    ok = ok && d->ops->download(d, &out, z, sizeof out) && d->ops->sync(d);
    CHECK_MSG(ok, "%s chain: %s", ordered ? "ordered" : "unordered", d->error);
    return out;
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
    DeviceStream *a = d->stream, *b = NULL;
    DevicePtr x = 0, y = 0, z = 0;
    bool ok = d->ops->load(d, SOURCE, names, 1, &fn) && d->ops->stream_open(d, &b) &&
              d->ops->alloc(d, 4, &x) && d->ops->alloc(d, 4, &y) && d->ops->alloc(d, 4, &z);
    CHECK_MSG(ok, "setup: %s", d->error);
    if (!ok)
        return 1;
    /* about 50 ms at a GPU's 1.5 to 2 GHz */
    const int64_t spin = 80 * 1000 * 1000;

    float ordered = chain(d, a, b, fn, x, y, z, true, spin);
    CHECK_MSG(ordered == 3.0f, "ordered: z = %g, expected 3", (double)ordered);
    printf("ordered: z = %g (expected 3)\n", (double)ordered);

    float unordered = chain(d, a, b, fn, x, y, z, false, spin);
    if (emulate)
        CHECK_MSG(unordered == 1.0f, "unordered on the shim: z = %g, expected 1 (y read before A ran)",
               (double)unordered);
    printf("unordered: z = %g (%s)\n", (double)unordered,
           unordered == 1.0f ? "B read y before A wrote it: the race a missing wait causes"
                             : "B happened to run after A");

    if (!emulate) {
        /* warm up, then one spin; two on one stream; one on each stream */
        ok = launch(d, a, fn, x, y, spin) && d->ops->sync(d);
        double t0 = now();
        ok = ok && launch(d, a, fn, x, y, spin) && d->ops->sync(d);
        double one = now() - t0;
        t0 = now();
        ok = ok && launch(d, a, fn, x, y, spin) && launch(d, a, fn, x, z, spin) && d->ops->sync(d);
        double serial = now() - t0;
        t0 = now();
        ok = ok && launch(d, a, fn, x, y, spin) && launch(d, b, fn, x, z, spin) && d->ops->sync(d);
        double overlapped = now() - t0;
        CHECK_MSG(ok, "overlap: %s", d->error);
        printf("overlap: one spin %.1f ms, two on one stream %.1f ms, two on two streams %.1f ms "
               "(%.2fx one spin)\n", one * 1e3, serial * 1e3, overlapped * 1e3, overlapped / one);
        CHECK_MSG(overlapped < 1.5 * one, "two streams did not overlap: %.1f ms against %.1f ms for one spin",
               overlapped * 1e3, one * 1e3);
    }
    d->ops->release(d, x);
    d->ops->release(d, y);
    d->ops->release(d, z);
    d->ops->stream_close(d, b);
    d->ops->close(d);
    return test_report("cuda_streams_check");
}
