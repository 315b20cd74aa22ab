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
 *   GEMM     OpenBLAS (cblas) on the emulated buffers, plain loops without it;
 *   streams  each stream is a queue that runs lazily: a queued call (upload,
 *            launch, GEMM, memset, peer or staged copy) runs only when the
 *            host waits for its stream (download, stream_sync, sync,
 *            release) or when a stream that must wait for it (`order`)
 *            runs; a whole-device sync runs the streams newest first. So
 *            work on two streams that nobody ordered runs in whatever order
 *            the host's waits happen to pull it, usually the wrong one: a
 *            value read on one stream before the stream that makes it has
 *            been waited for is read stale here, and the tests see wrong
 *            numbers where a GPU would race. An upload snapshots its
 *            source when queued (pageable memory, as cuMemcpyHtoDAsync);
 *            staged copies read and write their pinned buffer when run;
 *   graphs   a capture makes the stream's queued calls go into a recording
 *            (EmuGraph) instead of its queue: nothing runs; graph_launch
 *            queues one call that runs the recording's calls again, in
 *            order, on the buffers they name (their contents then), so a
 *            replay that forgot to rebind an input, or a buffer freed or
 *            reused while a graph names it, gives wrong results here as on
 *            a GPU. While a stream captures, the host's waits on the device
 *            (download, stream_sync, sync) and uploads fail, as the driver
 *            refuses them (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED): the
 *            backend must end the capture first.
 * Kernels printed with TSSA_KERNEL_ENTRY synchronize nothing (one thread
 * per output element or row, no shared memory): their launcher runs the
 * threads one after another, which is exact. Those printed with
 * TSSA_KERNEL_ENTRY_COOP (block reductions: shared memory, __syncthreads)
 * run each block's threads as fibers with a real barrier (SHIM_HEADER).
 *
 * TSSA_CUDA_EMULATE=fail-launch makes every launch fail as a GPU's would
 * (the tests check the message that names the call, filter and line);
 * TSSA_CUDA_EMULATE=drop-waits makes `order` do nothing (the tests check
 * that a missing wait between streams gives wrong results here);
 * TSSA_CUDA_EMULATE_PEER=0 makes emulated GPUs refuse peer copies (the
 * backend then stages through pinned memory).
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
    "#undef _FORTIFY_SOURCE /* its longjmp check refuses a jump to another fiber's stack */\n"
    "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n#include <stdio.h>\n"
    "#include <stdlib.h>\n#include <setjmp.h>\n#include <ucontext.h>\n"
    "struct tssa_dim3 { unsigned x, y, z; };\n"
    "static tssa_dim3 blockIdx, threadIdx, blockDim;\n"
    "#define __global__\n#define __device__\n#define __forceinline__ inline\n"
    "#define __restrict__ __restrict\n"
    /* the block's threads run one at a time, so a function's static
     * variable is shared by them as __shared__ memory is; blocks run one
     * after another and each writes before it reads */
    "#define __shared__ static\n"
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
    "}\n"
    "#define TSSA_KERNEL_ENTRY_COOP(kernel, args) \\\n"
    "static void kernel##_body(const void *argp) { kernel(*(const args *)argp); } \\\n"
    "extern \"C\" void kernel##_shim(const void *argv, int64_t blocks, int threads) { \\\n"
    "    args a; \\\n"
    "    memcpy(&a, argv, sizeof a); \\\n"
    "    tssa_coop_launch(kernel##_body, &a, blocks, threads); \\\n"
    "}\n"
    "/* Cooperative kernels (TSSA_KERNEL_ENTRY_COOP: they call __syncthreads):\n"
    " * a block's threads run as fibers on the calling thread, each on its own\n"
    " * stack; __syncthreads parks the fiber, and the launcher resumes the\n"
    " * parked ones once every thread of the block has parked there. Switches\n"
    " * are _setjmp/_longjmp (no signal mask system call, as swapcontext\n"
    " * makes: 30 times faster); each fiber starts once per launch through\n"
    " * makecontext/setcontext and runs the blocks in turn. Under ASan the\n"
    " * switches are announced (weak: called only where its runtime is). */\n"
    "extern \"C\" {\n"
    "void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size) __attribute__((weak));\n"
    "void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old) __attribute__((weak));\n"
    "}\n"
    "#if defined(__SANITIZE_ADDRESS__)\n#define TSSA_FIBER_STACK (256 * 1024)\n#else\n#define TSSA_FIBER_STACK (64 * 1024)\n#endif\n"
    "enum { TSSA_FIBER_RUN, TSSA_FIBER_BARRIER, TSSA_FIBER_IDLE };\n"
    "struct tssa_fiber { jmp_buf at; int state; void *fake_stack; };\n"
    "static struct {\n"
    "    tssa_fiber *fibers;\n    char *stacks;\n    int current;\n    bool on, quit;\n"
    "    jmp_buf main_at;\n    void *main_fake;\n    const void *main_bottom;\n    size_t main_size;\n"
    "    void (*body)(const void *);\n    const void *argp;\n"
    "    unsigned char exchange[1024][8];   /* the warp shuffles' values, by thread */\n"
    "} tssa_coop;\n"
    "static inline void tssa_switch_start(void **save, const void *bottom, size_t size) {\n"
    "    if (__sanitizer_start_switch_fiber) __sanitizer_start_switch_fiber(save, bottom, size);\n}\n"
    "static inline void tssa_switch_finish(void *save, const void **bottom, size_t *size) {\n"
    "    if (__sanitizer_finish_switch_fiber) __sanitizer_finish_switch_fiber(save, bottom, size);\n}\n"
    /* from a fiber to the launcher, the fiber marked `state` */
    "static inline void tssa_park(int state) {\n"
    "    tssa_fiber *f = &tssa_coop.fibers[tssa_coop.current];\n"
    "    f->state = state;\n"
    "    if (!_setjmp(f->at)) {\n"
    "        tssa_switch_start(&f->fake_stack, tssa_coop.main_bottom, tssa_coop.main_size);\n"
    "        _longjmp(tssa_coop.main_at, 1);\n"
    "    }\n"
    "    tssa_switch_finish(f->fake_stack, &tssa_coop.main_bottom, &tssa_coop.main_size);\n}\n"
    "static inline void tssa_fiber_main(void) {\n"
    "    tssa_switch_finish(NULL, &tssa_coop.main_bottom, &tssa_coop.main_size);\n"
    "    for (;;) {\n"
    "        tssa_park(TSSA_FIBER_IDLE);   /* until the next block, or the launch's end */\n"
    "        if (tssa_coop.quit)\n            break;\n"
    "        tssa_coop.body(tssa_coop.argp);\n"
    "    }\n"
    "    tssa_switch_start(NULL, tssa_coop.main_bottom, tssa_coop.main_size);\n"
    "    _longjmp(tssa_coop.main_at, 1);\n}\n"
    /* from the launcher to fiber t, until it parks */
    "static inline void tssa_resume(int t, bool first) {\n"
    "    tssa_coop.current = t;\n    threadIdx.x = (unsigned)t;\n"
    "    tssa_coop.fibers[t].state = TSSA_FIBER_RUN;\n"
    "    char *stack = tssa_coop.stacks + (size_t)t * TSSA_FIBER_STACK;\n"
    "    if (!_setjmp(tssa_coop.main_at)) {\n"
    "        tssa_switch_start(&tssa_coop.main_fake, stack, TSSA_FIBER_STACK);\n"
    "        if (first) {\n"
    "            ucontext_t start;\n            getcontext(&start);\n"
    "            start.uc_stack.ss_sp = stack;\n            start.uc_stack.ss_size = TSSA_FIBER_STACK;\n"
    "            start.uc_link = NULL;\n            makecontext(&start, tssa_fiber_main, 0);\n"
    "            setcontext(&start);\n"
    "        }\n"
    "        _longjmp(tssa_coop.fibers[t].at, 1);\n"
    "    }\n"
    "    tssa_switch_finish(tssa_coop.main_fake, NULL, NULL);\n}\n"
    "static inline void tssa_coop_launch(void (*body)(const void *), const void *argp, int64_t blocks, int threads) {\n"
    "    tssa_coop.fibers = (tssa_fiber *)calloc((size_t)threads, sizeof *tssa_coop.fibers);\n"
    "    tssa_coop.stacks = (char *)malloc((size_t)threads * TSSA_FIBER_STACK);\n"
    "    if (!tssa_coop.fibers || !tssa_coop.stacks) {\n"
    "        fprintf(stderr, \"tssa-stream CPU shim: no memory for %d fibers\\n\", threads);\n        abort();\n    }\n"
    "    tssa_coop.body = body;\n    tssa_coop.argp = argp;\n    tssa_coop.quit = false;\n    tssa_coop.on = true;\n"
    "    blockDim.x = (unsigned)threads;\n"
    "    for (int t = 0; t < threads; t++)\n        tssa_resume(t, true);\n"
    "    for (int64_t b = 0; b < blocks; b++) {\n"
    "        blockIdx.x = (unsigned)b;\n"
    "        for (int t = 0; t < threads; t++)\n            tssa_coop.fibers[t].state = TSSA_FIBER_RUN;\n"
    /* rounds: each runs every thread to its next barrier or to its end */
    "        for (;;) {\n"
    "            int waiting = 0;\n"
    "            for (int t = 0; t < threads; t++)\n"
    "                if (tssa_coop.fibers[t].state == TSSA_FIBER_RUN)\n                    tssa_resume(t, false);\n"
    "            for (int t = 0; t < threads; t++)\n"
    "                waiting += tssa_coop.fibers[t].state == TSSA_FIBER_BARRIER;\n"
    "            if (waiting == 0)\n                break;\n"
    "            if (waiting != threads) {\n"
    "                fprintf(stderr, \"tssa-stream CPU shim: %d of the %d threads of block %lld ended without \"\n"
    "                                \"reaching a __syncthreads the others wait at\\n\", threads - waiting, threads, (long long)b);\n"
    "                abort();\n"
    "            }\n"
    "            for (int t = 0; t < threads; t++)\n                tssa_coop.fibers[t].state = TSSA_FIBER_RUN;\n"
    "        }\n"
    "    }\n"
    "    tssa_coop.quit = true;\n"
    "    for (int t = 0; t < threads; t++)\n        tssa_resume(t, false);\n"
    "    tssa_coop.on = false;\n"
    "    free(tssa_coop.stacks);\n    free(tssa_coop.fibers);\n}\n"
    "static inline void __syncthreads(void) {\n"
    "    if (!tssa_coop.on) {\n"
    "        fprintf(stderr, \"tssa-stream CPU shim: __syncthreads in a kernel launched without \"\n"
    "                        \"TSSA_KERNEL_ENTRY_COOP\\n\");\n        abort();\n    }\n"
    "    tssa_park(TSSA_FIBER_BARRIER);\n}\n"
    /* A shuffle is an exchange through the block's slots between two
     * barriers: exact only when every thread of the block calls it the same
     * number of times (the printer's kernels make their shuffles uniform,
     * as they must __syncthreads); all lanes take part (mask ignored). */
    "template <typename T> static inline T tssa_exchange(T v, unsigned src) {\n"
    "    static_assert(sizeof(T) <= 8, \"a shuffle moves at most 8 bytes\");\n"
    "    memcpy(tssa_coop.exchange[threadIdx.x], &v, sizeof v);\n"
    "    __syncthreads();\n"
    "    T r = v;\n    if (src < blockDim.x)\n        memcpy(&r, tssa_coop.exchange[src], sizeof r);\n"
    "    __syncthreads();\n    return r;\n}\n"
    "template <typename T> static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {\n"
    "    (void)mask;\n    unsigned lane = threadIdx.x % (unsigned)width;\n"
    "    unsigned to = lane ^ (unsigned)lane_mask;\n"
    "    return tssa_exchange(v, to < (unsigned)width ? threadIdx.x - lane + to : threadIdx.x);\n}\n"
    "template <typename T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {\n"
    "    (void)mask;\n    unsigned lane = threadIdx.x % (unsigned)width;\n"
    "    return tssa_exchange(v, lane + delta < (unsigned)width ? threadIdx.x + delta : threadIdx.x);\n}\n\n";

typedef void (*ShimLauncher)(const void *args, int64_t blocks, int threads);

/* ---------------------------------------------------------------- streams */
typedef enum EmuOpKind { EMU_LAUNCH, EMU_GEMM, EMU_COPY, EMU_ZERO, EMU_WAIT, EMU_GRAPH } EmuOpKind;

typedef struct EmuOp {
    EmuOpKind kind;
    ShimLauncher launch;        /* EMU_LAUNCH: on args (owned), blocks x threads */
    void *args;
    int64_t blocks;
    int threads;
    DeviceGemm gemm;            /* EMU_GEMM */
    void *dst;                  /* EMU_COPY: dst <- src (src owned when a snapshot); EMU_ZERO: dst */
    const void *src;
    void *owned;
    size_t bytes;
    struct EmuStream *producer; /* EMU_WAIT: until producer has run `upto` calls */
    int64_t upto;
    const struct EmuGraph *graph; /* EMU_GRAPH: its calls, run again */
} EmuOp;

/* A recording (DeviceGraph): the calls a capture took, owning their
 * argument copies; replays run them without consuming them. */
typedef struct EmuGraph {
    EmuOp *ops;
    int n, cap;
} EmuGraph;

/* A queue: calls first .. first+n-1 (by their number since the stream was
 * made) are queued, those below `done` have run. */
typedef struct EmuStream {
    EmuOp *ops;
    int n, cap;
    int64_t first, done;
    EmuGraph *capture;          /* while capturing: where queued calls go */
} EmuStream;

typedef struct Emulated {
    CcLibrary **libs;
    int nlibs;
    bool fail_launches;         /* TSSA_CUDA_EMULATE=fail-launch */
    bool drop_waits;            /* TSSA_CUDA_EMULATE=drop-waits */
    bool no_peer;               /* TSSA_CUDA_EMULATE_PEER=0 */
    EmuStream **streams;        /* [0] is the device's own */
    int nstreams;
} Emulated;

/* Every emulated device of the process: release waits for all of them (a
 * peer copy queued on one may read another's buffer). */
static Device **all_devices;
static int nall_devices;

static bool emu_gemm_now(const DeviceGemm *g);

static int64_t queued_end(const EmuStream *s)
{
    return s->first + s->n;
}

static void stream_run(EmuStream *s, int64_t upto);

/* Runs op (its argument copies stay: a graph's calls run again). */
static void exec_op(const EmuOp *op)
{
    switch (op->kind) {
    case EMU_LAUNCH:
        op->launch(op->args, op->blocks, op->threads);
        break;
    case EMU_GEMM:
        emu_gemm_now(&op->gemm);
        break;
    case EMU_COPY:
        if (op->bytes)
            memcpy(op->dst, op->src, op->bytes);
        break;
    case EMU_ZERO:
        if (op->bytes)
            memset(op->dst, 0, op->bytes);
        break;
    case EMU_WAIT:
        if (op->producer->done < op->upto)
            stream_run(op->producer, op->upto);
        break;
    case EMU_GRAPH:
        for (int i = 0; i < op->graph->n; i++)
            exec_op(&op->graph->ops[i]);
        break;
    }
}

static void run_op(EmuOp *op)
{
    exec_op(op);
    free(op->args);
    free(op->owned);
}

/* Runs s's queue up to call `upto` (a wait first runs what it waits for:
 * a wait names calls queued before it, so this recursion ends). */
static void stream_run(EmuStream *s, int64_t upto)
{
    if (upto > queued_end(s))
        upto = queued_end(s);
    while (s->done < upto) {
        run_op(&s->ops[s->done - s->first]);
        s->done++;
    }
    if (s->done == queued_end(s)) {
        s->first = s->done;
        s->n = 0;
    }
}

static EmuOp *enqueue(Device *d, EmuOpKind kind)
{
    EmuStream *s = (EmuStream *)d->stream;
    if (s->capture) {
        EmuGraph *g = s->capture;
        if (g->n == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 64;
            g->ops = xreallocn(g->ops, (size_t)g->cap, sizeof *g->ops);
        }
        EmuOp *op = &g->ops[g->n++];
        memset(op, 0, sizeof *op);
        op->kind = kind;
        return op;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ops = xreallocn(s->ops, (size_t)s->cap, sizeof *s->ops);
    }
    EmuOp *op = &s->ops[s->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    return op;
}

/* Every stream of d, the newest first: a device-wide wait pulls work in an
 * order no stream asked for. */
static void device_run(Device *d)
{
    Emulated *e = d->impl;
    for (int i = e->nstreams - 1; i >= 0; i--)
        stream_run(e->streams[i], queued_end(e->streams[i]));
}

static void all_run(void)
{
    for (int i = 0; i < nall_devices; i++)
        device_run(all_devices[i]);
}

/* Whether a stream of d is capturing; then writes the driver's refusal of
 * `call` into d->error. */
static bool refused_in_capture(Device *d, const char *call)
{
    Emulated *e = d->impl;
    for (int i = 0; i < e->nstreams; i++)
        if (e->streams[i]->capture) {
            snprintf(d->error, sizeof d->error,
                     "%s: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: operation not permitted when stream is "
                     "capturing (emulated)", call);
            return true;
        }
    return false;
}

static bool emu_stream_open(Device *d, DeviceStream **out)
{
    Emulated *e = d->impl;
    EmuStream *s = xcalloc(1, sizeof *s);
    e->streams = xreallocn(e->streams, (size_t)e->nstreams + 1, sizeof *e->streams);
    e->streams[e->nstreams++] = s;
    *out = (DeviceStream *)s;
    return true;
}

static void stream_free(EmuStream *s)
{
    stream_run(s, queued_end(s));
    free(s->ops);
    free(s);
}

static void emu_stream_close(Device *d, DeviceStream *stream)
{
    Emulated *e = d->impl;
    all_run();      /* other streams may wait for this one */
    for (int i = 1; i < e->nstreams; i++)
        if ((DeviceStream *)e->streams[i] == stream) {
            stream_free(e->streams[i]);
            e->streams[i] = e->streams[--e->nstreams];
            break;
        }
    if (d->stream == stream)
        d->stream = (DeviceStream *)e->streams[0];
}

static bool emu_stream_sync(Device *d)
{
    if (refused_in_capture(d, "cuStreamSynchronize"))
        return false;
    EmuStream *s = (EmuStream *)d->stream;
    stream_run(s, queued_end(s));
    return true;
}

static bool emu_order(Device *d, DeviceStream *waiter, Device *pd, DeviceStream *producer)
{
    (void)pd;
    if (((Emulated *)d->impl)->drop_waits || waiter == producer)
        return true;
    DeviceStream *was = d->stream;
    d->stream = waiter;
    EmuOp *op = enqueue(d, EMU_WAIT);
    d->stream = was;
    op->producer = (EmuStream *)producer;
    op->upto = queued_end(op->producer);
    return true;
}

static bool emu_peer_enable(Device *d, Device *peer)
{
    return peer->emulated && !((Emulated *)d->impl)->no_peer && !((Emulated *)peer->impl)->no_peer;
}

static void queue_copy(Device *d, void *dst, const void *src, size_t bytes)
{
    EmuOp *op = enqueue(d, EMU_COPY);
    op->dst = dst;
    op->src = src;
    op->bytes = bytes;
}

static bool emu_copy_peer(Device *d, DevicePtr dst, Device *peer, DevicePtr src, size_t bytes)
{
    (void)peer;
    queue_copy(d, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return true;
}

static bool emu_pinned_alloc(Device *d, size_t bytes, void **p)
{
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        snprintf(d->error, sizeof d->error, "malloc(%zu): out of memory (emulated pinned memory)", bytes);
    return *p != NULL;
}

static void emu_pinned_free(Device *d, void *p)
{
    (void)d;
    all_run();      /* as cuMemFreeHost, which waits for the copies */
    free(p);
}

static bool emu_stage_out(Device *d, void *pinned, DevicePtr src, size_t bytes)
{
    queue_copy(d, pinned, (const void *)(uintptr_t)src, bytes);
    return true;
}

static bool emu_stage_in(Device *d, DevicePtr dst, const void *pinned, size_t bytes)
{
    queue_copy(d, (void *)(uintptr_t)dst, pinned, bytes);
    return true;
}

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
    all_run();      /* as cuMemFree, which waits for the device */
    free((void *)(uintptr_t)p);
}

/* The source is copied now (pageable memory: the caller may reuse it). */
static bool emu_upload(Device *d, DevicePtr dst, const void *src, size_t bytes)
{
    if (refused_in_capture(d, "cuMemcpyHtoDAsync (pageable memory)"))
        return false;
    void *snapshot = xmalloc(bytes ? bytes : 1);
    if (bytes)
        memcpy(snapshot, src, bytes);
    queue_copy(d, (void *)(uintptr_t)dst, snapshot, bytes);
    ((EmuStream *)d->stream)->ops[((EmuStream *)d->stream)->n - 1].owned = snapshot;
    return true;
}

static bool emu_download(Device *d, void *dst, DevicePtr src, size_t bytes)
{
    if (!emu_stream_sync(d))
        return false;
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
    EmuOp *op = enqueue(d, EMU_LAUNCH);
    memcpy(&op->launch, &function, sizeof op->launch);     /* a symbol of the loaded shim */
    op->args = xmalloc(args_size ? args_size : 1);
    if (args_size)
        memcpy(op->args, args, args_size);                  /* the driver copies them too */
    op->blocks = blocks;
    op->threads = threads;
    return true;
}

static bool emu_gemm(Device *d, const DeviceGemm *g)
{
    if (g->dtype != DT_F32 && g->dtype != DT_F64) {
        snprintf(d->error, sizeof d->error, "gemm: %s is not a GEMM type", dtype_name(g->dtype));
        return false;
    }
    enqueue(d, EMU_GEMM)->gemm = *g;
    return true;
}

/* Row-major C = op(A) op(B) (+ C), per batch matrix. */
static bool emu_gemm_now(const DeviceGemm *g)
{
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
    EmuOp *op = enqueue(d, EMU_ZERO);
    op->dst = (void *)(uintptr_t)p;
    op->bytes = bytes;
    return true;
}

static bool emu_sync(Device *d)
{
    if (refused_in_capture(d, "cuCtxSynchronize"))
        return false;
    device_run(d);
    return true;
}

/* ---------------------------------------------------------------- graphs */
static bool emu_capture_begin(Device *d)
{
    EmuStream *s = (EmuStream *)d->stream;
    if (s->capture) {
        snprintf(d->error, sizeof d->error, "cuStreamBeginCapture: CUDA_ERROR_ILLEGAL_STATE: the stream is "
                 "capturing already (emulated)");
        return false;
    }
    s->capture = xcalloc(1, sizeof *s->capture);
    return true;
}

static void graph_free(EmuGraph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++) {
        free(g->ops[i].args);
        free(g->ops[i].owned);
    }
    free(g->ops);
    free(g);
}

static bool emu_capture_end(Device *d, DeviceGraph **out)
{
    EmuStream *s = (EmuStream *)d->stream;
    *out = NULL;
    if (!s->capture) {
        snprintf(d->error, sizeof d->error, "cuStreamEndCapture: CUDA_ERROR_ILLEGAL_STATE: the stream is not "
                 "capturing (emulated)");
        return false;
    }
    EmuGraph *g = s->capture;
    s->capture = NULL;
    if (!g->n) {
        graph_free(g);
        return true;
    }
    *out = (DeviceGraph *)g;
    return true;
}

static bool emu_graph_launch(Device *d, DeviceGraph *g)
{
    if (!g)
        return true;
    enqueue(d, EMU_GRAPH)->graph = (const EmuGraph *)g;
    return true;
}

static void emu_graph_destroy(Device *d, DeviceGraph *g)
{
    all_run();      /* a queued replay still reads it */
    (void)d;
    graph_free((EmuGraph *)g);
}

static void emu_close(Device *d)
{
    if (!d)
        return;
    Emulated *e = d->impl;
    all_run();
    for (int i = 0; i < e->nstreams; i++) {
        graph_free(e->streams[i]->capture);     /* an unfinished capture */
        stream_free(e->streams[i]);
    }
    free(e->streams);
    for (int i = 0; i < nall_devices; i++)
        if (all_devices[i] == d) {
            all_devices[i] = all_devices[--nall_devices];
            break;
        }
    if (!nall_devices) {
        free(all_devices);
        all_devices = NULL;
    }
    for (int i = 0; i < e->nlibs; i++)
        cc_jit_close(e->libs[i]);
    free(e->libs);
    free(e);
    free(d);
}

static const DeviceOps EMULATED_OPS = {
    .alloc = emu_alloc, .release = emu_release, .upload = emu_upload, .download = emu_download,
    .zero = emu_zero, .load = emu_load, .launch = emu_launch, .gemm = emu_gemm, .sync = emu_sync, .close = emu_close,
    .stream_open = emu_stream_open, .stream_close = emu_stream_close, .stream_sync = emu_stream_sync,
    .order = emu_order, .peer_enable = emu_peer_enable, .copy_peer = emu_copy_peer,
    .pinned_alloc = emu_pinned_alloc, .pinned_free = emu_pinned_free, .stage_out = emu_stage_out,
    .stage_in = emu_stage_in, .capture_begin = emu_capture_begin, .capture_end = emu_capture_end,
    .graph_launch = emu_graph_launch, .graph_destroy = emu_graph_destroy,
};

int cuda_emulated_count(void)
{
    const char *list = getenv("TSSA_CUDA_EMULATE_PCI");
    if (!list || !*list)
        return 1;
    int n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    return n;
}

void cuda_emulated_bus_id(int ordinal, char *buf, size_t cap)
{
    const char *list = getenv("TSSA_CUDA_EMULATE_PCI");
    if (!list || !*list) {
        snprintf(buf, cap, "emulated:%02x", ordinal & 0xff);
        return;
    }
    const char *at = list;
    for (int i = 0; i < ordinal % cuda_emulated_count(); i++)
        at = strchr(at, ',') + 1;
    size_t len = strcspn(at, ",");
    snprintf(buf, cap, "%.*s", (int)len, at);
}

Device *cuda_emulated_open(int ordinal, FILE *err)
{
    (void)err;
    Device *d = xcalloc(1, sizeof *d);
    d->ops = &EMULATED_OPS;
    d->emulated = true;
    d->memory = physical_memory_bytes();
    snprintf(d->name, sizeof d->name, "emulated on the CPU (TSSA_CUDA_EMULATE: CUDA kernels as C++)");
    cuda_emulated_bus_id(ordinal, d->pci_bus_id, sizeof d->pci_bus_id);
    Emulated *e = xcalloc(1, sizeof *e);
    const char *mode = getenv("TSSA_CUDA_EMULATE");
    e->fail_launches = mode && strcmp(mode, "fail-launch") == 0;
    e->drop_waits = mode && strcmp(mode, "drop-waits") == 0;
    const char *peer = getenv("TSSA_CUDA_EMULATE_PEER");
    e->no_peer = peer && strcmp(peer, "0") == 0;
    d->impl = e;
    DeviceStream *own;
    emu_stream_open(d, &own);
    d->stream = own;
    all_devices = xreallocn(all_devices, (size_t)nall_devices + 1, sizeof *all_devices);
    all_devices[nall_devices++] = d;
    return d;
}
