/* cuda_driver.c — the cuda backend's device on an NVIDIA GPU (cuda_device.h):
 * memory, copies and launches through the CUDA driver API, kernels compiled
 * at run time by NVRTC (cached on disk), products by cuBLAS.
 *
 * Why dlopen, never linking: the same binary must start, and run the cpu
 * backend, on machines with no NVIDIA driver and no CUDA toolkit. libcuda.so.1
 * is opened on the first call into this file; NVRTC and cuBLAS (hundreds of
 * MB each, which valgrind would otherwise read in every test) only when a
 * kernel is first loaded, or a product first run. Each function pointer gets
 * the type the toolkit header declares, so the compiler checks every call;
 * its symbol is the header's name after macro expansion (cuMemAlloc is
 * cuMemAlloc_v2, cublasCreate cublasCreate_v2): what a linked program would
 * bind to.
 *
 * Every call runs on the device's primary context (the one cudart and cuBLAS
 * use, so they share memory with us) and on d->stream, a non-blocking
 * stream of our own (cuda_device.h): launches, products (a cuBLAS handle
 * per stream, whose workspace no other stream shares), uploads and memsets
 * queue there; a download waits for that stream only. `order` records the
 * producer stream's event and makes the waiter wait for it on the device,
 * across contexts too; peer copies (cuMemcpyPeerAsync, after
 * cuCtxEnablePeerAccess) and staged ones (through cuMemHostAlloc memory)
 * queue on d->stream like the rest. cuMemFree waits for the whole context.
 *
 * Graphs: capture_begin is cuStreamBeginCapture on d->stream in relaxed
 * mode (a buffer the pool has not got yet may still be cuMemAlloc'ed while
 * capturing); capture_end is cuStreamEndCapture then cuGraphInstantiate;
 * graph_launch is cuGraphLaunch on d->stream. cuBLAS calls on a capturing
 * stream are captured too: each handle gets a workspace of its own
 * (cublasSetWorkspace, CUBLAS_WORKSPACE_BYTES), so a captured product
 * allocates nothing and reads and writes only memory that outlives the
 * graph.
 *
 * A failing call leaves "CALL(DETAIL): ERROR_NAME: error text" in d->error
 * and makes the operation return false.
 */
/* The legacy default stream, whatever the build defines: the per-thread
 * variant would not order our launches with cuBLAS's. */
#undef CUDA_API_PER_THREAD_DEFAULT_STREAM

#include <cublas_v2.h>
#include <cuda.h>
#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "tssa/util.h"

/* Set by CMakeLists.txt to the toolkit's libraries (full paths); the plain
 * sonames below are tried after them, through the loader's search path. */
#ifndef TSSA_NVRTC_LIBRARY
#define TSSA_NVRTC_LIBRARY "libnvrtc.so"
#endif
#ifndef TSSA_CUBLAS_LIBRARY
#define TSSA_CUBLAS_LIBRARY "libcublas.so"
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

_Static_assert(sizeof(CUdeviceptr) == sizeof(DevicePtr), "DevicePtr holds a CUdeviceptr");

enum {
    LOG_LINES = 20,                         /* of NVRTC's log in a compile error */
};
/* The largest cached binary read back (a CUBIN of generated kernels is KBs). */
#define BINARY_LIMIT ((size_t)1 << 30)
/* In the cache key: bump when what is stored, or how, changes. */
static const char CACHE_VERSION[] = "tssa-cuda-1";

/* ---------------------------------------------------------------- the libraries */
/* The functions used of each library. p_NAME has the header's type of NAME;
 * its symbol is STR(NAME), the macro-expanded name. */
#define CUDA_FUNCTIONS(X)                                                                            \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)           \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                         \
    X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData)         \
    X(cuModuleGetFunction) X(cuModuleUnload) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree)           \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemsetD8Async) X(cuGetErrorName) X(cuGetErrorString)     \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent) X(cuEventCreate)  \
    X(cuEventDestroy) X(cuEventRecord) X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess)              \
    X(cuMemcpyPeerAsync) X(cuMemcpyDtoDAsync) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuDeviceGetPCIBusId)                 \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch)            \
    X(cuGraphExecDestroy) X(cuGraphDestroy)

#define NVRTC_FUNCTIONS(X)                                                                           \
    X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram)    \
    X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize)     \
    X(nvrtcGetCUBIN) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcDestroyProgram)                       \
    X(nvrtcGetErrorString)

#define CUBLAS_FUNCTIONS(X)                                                                          \
    X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSetMathMode)                        \
    X(cublasSgemmStridedBatched) X(cublasDgemmStridedBatched) X(cublasGetStatusName)                \
    X(cublasGetStatusString) X(cublasSetWorkspace)

#define DECLARE(f) static __typeof__(f) *p_##f;
CUDA_FUNCTIONS(DECLARE)
NVRTC_FUNCTIONS(DECLARE)
CUBLAS_FUNCTIONS(DECLARE)
#undef DECLARE

/* Resolves f from handle h; remembers the first symbol missing. */
#define RESOLVE(f)                                                                                   \
    do {                                                                                             \
        p_##f = (__typeof__(p_##f))dlsym(h, STR(f));                                                 \
        if (!p_##f && !missing)                                                                      \
            missing = STR(f);                                                                        \
    } while (0);

/* What each load found, written once (pthread_once) and read-only after. */
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static bool cuda_ready;
static int cuda_devices;
static const char *cuda_why;                /* when !cuda_ready or no device */
static char cuda_why_buf[160];

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static bool nvrtc_ready;
static char nvrtc_why[512];

static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;
static bool cublas_ready;
static char cublas_why[512];

/* dlopen of the first of names[0..n) that opens (RTLD_LOCAL: their symbols
 * must not satisfy anything else in the process). On failure *why lists the
 * tries. */
static void *open_first(const char *what, const char *const *names, size_t n, char *why, size_t cap)
{
    int at = snprintf(why, cap, "%s not found (tried", what);
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
        if (at >= 0 && (size_t)at < cap)
            at += snprintf(why + at, cap - (size_t)at, "%s %s", i ? "," : "", names[i]);
    }
    if (at >= 0 && (size_t)at < cap)
        snprintf(why + at, cap - (size_t)at, ")");
    return NULL;
}

static const char *cu_name(CUresult r)
{
    const char *s = NULL;
    if (!p_cuGetErrorName || p_cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
        return "CUDA_ERROR_UNKNOWN";
    return s;
}

static const char *cu_text(CUresult r)
{
    const char *s = NULL;
    if (!p_cuGetErrorString || p_cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
        return "unknown error";
    return s;
}

static void load_cuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        cuda_why = "no NVIDIA driver (libcuda.so.1 not found)";
        return;
    }
    const char *missing = NULL;
    CUDA_FUNCTIONS(RESOLVE)
    if (missing) {
        snprintf(cuda_why_buf, sizeof cuda_why_buf, "the NVIDIA driver is too old (libcuda.so.1 lacks %s)",
                 missing);
        cuda_why = cuda_why_buf;
        return;     /* left open: cu_name may still read p_cuGetErrorName */
    }
    CUresult r = p_cuInit(0);
    if (r != CUDA_SUCCESS) {
        snprintf(cuda_why_buf, sizeof cuda_why_buf, "cuInit: %s", cu_name(r));
        cuda_why = cuda_why_buf;
        return;     /* libcuda stays open: the error names above are its strings */
    }
    int count = 0;
    r = p_cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) {
        snprintf(cuda_why_buf, sizeof cuda_why_buf, "cuDeviceGetCount: %s", cu_name(r));
        cuda_why = cuda_why_buf;
        return;
    }
    cuda_ready = true;
    cuda_devices = count;
    if (count <= 0)
        cuda_why = "the driver sees no GPU";
}

static void load_nvrtc(void)
{
    static const char *const names[] = {TSSA_NVRTC_LIBRARY, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
    void *h = open_first("NVRTC", names, sizeof names / sizeof *names, nvrtc_why, sizeof nvrtc_why);
    if (!h)
        return;
    const char *missing = NULL;
    NVRTC_FUNCTIONS(RESOLVE)
    if (missing) {
        snprintf(nvrtc_why, sizeof nvrtc_why, "NVRTC is too old (it lacks %s)", missing);
        dlclose(h);
        return;
    }
    nvrtc_ready = true;
}

static void load_cublas(void)
{
    static const char *const names[] = {TSSA_CUBLAS_LIBRARY, "libcublas.so", "libcublas.so.13",
                                        "libcublas.so.12"};
    void *h = open_first("cuBLAS", names, sizeof names / sizeof *names, cublas_why, sizeof cublas_why);
    if (!h)
        return;
    const char *missing = NULL;
    CUBLAS_FUNCTIONS(RESOLVE)
    if (missing) {
        snprintf(cublas_why, sizeof cublas_why, "cuBLAS is too old (it lacks %s)", missing);
        dlclose(h);
        return;
    }
    cublas_ready = true;
}

/* ---------------------------------------------------------------- the device */
/* One of our streams: the CUstream, the event `order` records on it, and
 * its cuBLAS handle (made at its first product). */
typedef struct CudaStream {
    CUstream stream;
    CUevent done;
    cublasHandle_t blas;
    CUdeviceptr blas_workspace; /* the handle's (cublasSetWorkspace), or 0 */
} CudaStream;

/* A captured graph: what cuStreamEndCapture made and its instance. */
struct DeviceGraph {
    CUgraph graph;
    CUgraphExec exec;
};

/* cuBLAS's recommended workspace on Hopper (4 MiB serves older GPUs). */
#define CUBLAS_WORKSPACE_BYTES ((size_t)32 << 20)

typedef struct CudaImpl {
    CUdevice dev;
    CUcontext ctx;              /* the primary context, retained */
    CudaStream **streams;       /* [0] the device's own; closed at close */
    int nstreams;
    CUmodule *modules;          /* loaded, unloaded at close */
    int nmodules, cap_modules;
} CudaImpl;

static CudaImpl *impl_of(Device *d)
{
    return d->impl;
}

static CudaStream *stream_of(Device *d)
{
    return (CudaStream *)d->stream;
}

/* Writes "CALL(DETAIL): NAME: TEXT" unless r is success; returns whether it was. */
static bool cu_ok(Device *d, CUresult r, const char *call, const char *detail)
{
    if (r == CUDA_SUCCESS)
        return true;
    snprintf(d->error, sizeof d->error, "%s%s%s%s: %s: %s", call, detail ? "(" : "", detail ? detail : "",
             detail ? ")" : "", cu_name(r), cu_text(r));
    return false;
}

static bool blas_ok(Device *d, cublasStatus_t s, const char *call)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return true;
    const char *name = p_cublasGetStatusName(s), *text = p_cublasGetStatusString(s);
    snprintf(d->error, sizeof d->error, "%s: %s: %s", call, name ? name : "CUBLAS_STATUS_UNKNOWN",
             text ? text : "unknown error");
    return false;
}

static bool fail(Device *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Device *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
    return false;
}

/* Makes the device's context current on the calling thread. The context is
 * per thread, and the backend may call from threads other than the one that
 * opened the device; setting it is a thread-local store in the driver. */
static bool bind(Device *d)
{
    return cu_ok(d, p_cuCtxSetCurrent(impl_of(d)->ctx), "cuCtxSetCurrent", NULL);
}

static bool cuda_alloc(Device *d, size_t bytes, DevicePtr *p)
{
    *p = 0;
    if (!bind(d))
        return false;
    CUdeviceptr ptr = 0;
    /* cuMemAlloc refuses 0 bytes; an empty tensor still gets a distinct pointer */
    size_t n = bytes ? bytes : 1;
    CUresult r = p_cuMemAlloc(&ptr, n);
    if (r != CUDA_SUCCESS) {
        char detail[48];
        snprintf(detail, sizeof detail, "%zu bytes", n);
        return cu_ok(d, r, "cuMemAlloc", detail);
    }
    *p = (DevicePtr)ptr;
    return true;
}

static void cuda_release(Device *d, DevicePtr p)
{
    /* nothing to return: a failure is only recorded (the memory is gone
     * with the context at close either way); the context is synchronized
     * first: work queued on our non-blocking streams may still use p */
    if (p && bind(d) && cu_ok(d, p_cuCtxSynchronize(), "cuCtxSynchronize", NULL))
        cu_ok(d, p_cuMemFree((CUdeviceptr)p), "cuMemFree", NULL);
}

/* From pageable memory the driver stages src before returning. */
static bool cuda_upload(Device *d, DevicePtr dst, const void *src, size_t bytes)
{
    if (bytes == 0)
        return true;
    return bind(d) && cu_ok(d, p_cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, stream_of(d)->stream),
                            "cuMemcpyHtoDAsync", NULL);
}

static bool cuda_stream_sync(Device *d)
{
    return bind(d) && cu_ok(d, p_cuStreamSynchronize(stream_of(d)->stream), "cuStreamSynchronize", NULL);
}

static bool cuda_download(Device *d, void *dst, DevicePtr src, size_t bytes)
{
    if (bytes == 0)
        return true;
    return bind(d) &&
           cu_ok(d, p_cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, stream_of(d)->stream), "cuMemcpyDtoHAsync",
                 NULL) &&
           cuda_stream_sync(d);
}

static bool cuda_zero(Device *d, DevicePtr p, size_t bytes)
{
    if (bytes == 0)
        return true;
    return bind(d) && cu_ok(d, p_cuMemsetD8Async((CUdeviceptr)p, 0, bytes, stream_of(d)->stream),
                            "cuMemsetD8Async", NULL);
}

static bool cuda_sync(Device *d)
{
    return bind(d) && cu_ok(d, p_cuCtxSynchronize(), "cuCtxSynchronize", NULL);
}

/* ---------------------------------------------------------------- streams */
static bool cuda_stream_open(Device *d, DeviceStream **out)
{
    if (!bind(d))
        return false;
    CudaStream *s = xcalloc(1, sizeof *s);
    /* non-blocking: no implicit ordering with the legacy default stream
     * (cuBLAS's internal work or another library's) */
    if (!cu_ok(d, p_cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate", NULL)) {
        free(s);
        return false;
    }
    if (!cu_ok(d, p_cuEventCreate(&s->done, CU_EVENT_DISABLE_TIMING), "cuEventCreate", NULL)) {
        p_cuStreamDestroy(s->stream);
        free(s);
        return false;
    }
    CudaImpl *impl = impl_of(d);
    impl->streams = xreallocn(impl->streams, (size_t)impl->nstreams + 1, sizeof *impl->streams);
    impl->streams[impl->nstreams++] = s;
    *out = (DeviceStream *)s;
    return true;
}

static void stream_free(CudaStream *s)
{
    if (s->blas)
        p_cublasDestroy(s->blas);
    if (s->blas_workspace)
        p_cuMemFree(s->blas_workspace);
    p_cuEventDestroy(s->done);
    p_cuStreamDestroy(s->stream);
    free(s);
}

static void cuda_stream_close(Device *d, DeviceStream *stream)
{
    CudaImpl *impl = impl_of(d);
    if (!bind(d))
        return;
    for (int i = 1; i < impl->nstreams; i++)
        if ((DeviceStream *)impl->streams[i] == stream) {
            p_cuStreamSynchronize(impl->streams[i]->stream);
            stream_free(impl->streams[i]);
            impl->streams[i] = impl->streams[--impl->nstreams];
            break;
        }
    if (d->stream == stream)
        d->stream = (DeviceStream *)impl->streams[0];
}

/* The event is re-recorded for every wait: cuStreamWaitEvent waits for the
 * record made before it, so one event per stream serves every waiter. */
static bool cuda_order(Device *d, DeviceStream *waiter, Device *pd, DeviceStream *producer)
{
    if (waiter == producer)
        return true;
    CudaStream *w = (CudaStream *)waiter, *p = (CudaStream *)producer;
    if (!bind(pd) || !cu_ok(d, p_cuEventRecord(p->done, p->stream), "cuEventRecord", NULL))
        return false;
    return bind(d) && cu_ok(d, p_cuStreamWaitEvent(w->stream, p->done, 0), "cuStreamWaitEvent", NULL);
}

static bool cuda_peer_enable(Device *d, Device *peer)
{
    if (peer->emulated)
        return false;
    int can = 0;
    if (p_cuDeviceCanAccessPeer(&can, impl_of(d)->dev, impl_of(peer)->dev) != CUDA_SUCCESS || !can)
        return false;
    if (!bind(d))
        return false;
    CUresult r = p_cuCtxEnablePeerAccess(impl_of(peer)->ctx, 0);
    return r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}

static bool cuda_copy_peer(Device *d, DevicePtr dst, Device *peer, DevicePtr src, size_t bytes)
{
    if (bytes == 0)
        return true;
    /* Devices sharing one GPU share its primary context: a plain copy, which
     * a stream capture can record (a peer copy it refuses, even between one
     * context and itself: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED on an H200) */
    if (impl_of(peer)->ctx == impl_of(d)->ctx)
        return bind(d) && cu_ok(d, p_cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes,
                                                       stream_of(d)->stream),
                                "cuMemcpyDtoDAsync", NULL);
    return bind(d) && cu_ok(d, p_cuMemcpyPeerAsync((CUdeviceptr)dst, impl_of(d)->ctx, (CUdeviceptr)src,
                                                   impl_of(peer)->ctx, bytes, stream_of(d)->stream),
                            "cuMemcpyPeerAsync", NULL);
}

static bool cuda_pinned_alloc(Device *d, size_t bytes, void **p)
{
    *p = NULL;
    return bind(d) && cu_ok(d, p_cuMemHostAlloc(p, bytes ? bytes : 1, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc",
                            NULL);
}

static void cuda_pinned_free(Device *d, void *p)
{
    if (p && bind(d))
        cu_ok(d, p_cuMemFreeHost(p), "cuMemFreeHost", NULL);
}

static bool cuda_stage_out(Device *d, void *pinned, DevicePtr src, size_t bytes)
{
    if (bytes == 0)
        return true;
    return bind(d) && cu_ok(d, p_cuMemcpyDtoHAsync(pinned, (CUdeviceptr)src, bytes, stream_of(d)->stream),
                            "cuMemcpyDtoHAsync", "staged");
}

static bool cuda_stage_in(Device *d, DevicePtr dst, const void *pinned, size_t bytes)
{
    if (bytes == 0)
        return true;
    return bind(d) && cu_ok(d, p_cuMemcpyHtoDAsync((CUdeviceptr)dst, pinned, bytes, stream_of(d)->stream),
                            "cuMemcpyHtoDAsync", "staged");
}

/* ---------------------------------------------------------------- compiling */
static bool nvrtc_available(Device *d)
{
    pthread_once(&nvrtc_once, load_nvrtc);
    return nvrtc_ready || fail(d, "%s", nvrtc_why);
}

/* The target for the device: a CUBIN for sm_XX when NVRTC knows the
 * architecture; else PTX for the newest architecture it knows below it,
 * which the driver compiles for the device when loading (a GPU newer than
 * the toolkit). False when the device is older than everything NVRTC
 * supports. */
static bool choose_target(Device *d, char *arch, size_t cap, bool *cubin)
{
    int n = 0;
    nvrtcResult r = p_nvrtcGetNumSupportedArchs(&n);
    if (r != NVRTC_SUCCESS || n <= 0)
        return fail(d, "nvrtcGetNumSupportedArchs: %s", p_nvrtcGetErrorString(r));
    int *archs = xmallocn((size_t)n, sizeof *archs);
    r = p_nvrtcGetSupportedArchs(archs);
    if (r != NVRTC_SUCCESS) {
        free(archs);
        return fail(d, "nvrtcGetSupportedArchs: %s", p_nvrtcGetErrorString(r));
    }
    int below = 0, oldest = INT_MAX;
    bool exact = false;
    for (int i = 0; i < n; i++) {
        exact |= archs[i] == d->sm;
        if (archs[i] < d->sm && archs[i] > below)
            below = archs[i];
        if (archs[i] < oldest)
            oldest = archs[i];
    }
    free(archs);
    *cubin = exact;
    if (exact)
        snprintf(arch, cap, "--gpu-architecture=sm_%d", d->sm);
    else if (below)
        snprintf(arch, cap, "--gpu-architecture=compute_%d", below);
    else {
        int major = 0, minor = 0;
        p_nvrtcVersion(&major, &minor);
        return fail(d, "NVRTC %d.%d cannot compile for sm_%d (the oldest it supports is sm_%d)", major, minor,
                    d->sm, oldest);
    }
    return true;
}

/* The first LOG_LINES lines of prog's log, each on a line of its own after
 * "\n  ", into t. */
static void append_log(nvrtcProgram prog, TextBuf *t)
{
    size_t n = 0;
    if (p_nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1)
        return;
    char *log = xmalloc(n);
    if (p_nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
        log[n - 1] = '\0';
        int lines = 0;
        for (const char *s = log; *s && lines < LOG_LINES; lines++) {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            if (len) {
                textbuf_puts(t, "\n  ");
                textbuf_putn(t, s, len);
            } else
                lines--;
            s += len + (nl != NULL);
        }
    }
    free(log);
}

/* Compiles source with opts into a CUBIN (or PTX, NUL included) in
 * *image[0..*len). where names the source in messages (its cache path, or
 * the program name). */
static bool compile(Device *d, const char *source, const char *program, const char *const *opts, int nopts,
                    bool cubin, const char *where, char **image, size_t *len)
{
    nvrtcProgram prog = NULL;
    nvrtcResult r = p_nvrtcCreateProgram(&prog, source, program, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return fail(d, "nvrtcCreateProgram(%s): %s", where, p_nvrtcGetErrorString(r));
    bool ok = false;
    r = p_nvrtcCompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        TextBuf t = {0};
        textbuf_printf(&t, "nvrtcCompileProgram(%s): %s:", where, p_nvrtcGetErrorString(r));
        append_log(prog, &t);
        fail(d, "%s", textbuf_cstr(&t));
        textbuf_release(&t);
        goto done;
    }
    size_t n = 0;
    r = cubin ? p_nvrtcGetCUBINSize(prog, &n) : p_nvrtcGetPTXSize(prog, &n);
    if (r != NVRTC_SUCCESS) {
        fail(d, "%s(%s): %s", cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize", where, p_nvrtcGetErrorString(r));
        goto done;
    }
    *image = xmalloc(n + 1);
    r = cubin ? p_nvrtcGetCUBIN(prog, *image) : p_nvrtcGetPTX(prog, *image);
    if (r != NVRTC_SUCCESS) {
        fail(d, "%s(%s): %s", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", where, p_nvrtcGetErrorString(r));
        free(*image);
        *image = NULL;
        goto done;
    }
    (*image)[n] = '\0';
    *len = n;
    ok = true;
done:
    p_nvrtcDestroyProgram(&prog);
    return ok;
}

/* tssa_cache_dir()/cuda, created and trusted (util/cache_trust.c), as its
 * resolved path; NULL when there is none, it cannot be made, or someone
 * else could write it (then kernels are compiled every time, after a
 * warning in the last case). */
static char *cache_dir(void)
{
    char *base = tssa_cache_dir();
    if (!base)
        return NULL;
    char why[CACHE_WHY_MAX];
    char *real = NULL, *dir = NULL;
    CacheTrust t = cache_dir_prepare(base, &real, why);
    if (t == CACHE_OK) {
        char *sub = xprintf("%s/cuda", real);
        t = cache_dir_prepare(sub, &dir, why);
        free(sub);
    }
    if (t == CACHE_UNTRUSTED)
        cache_warn_untrusted(stderr, why, "compiling the CUDA kernels without it");
    free(real);
    free(base);
    return dir;
}

static void keep_module(CudaImpl *impl, CUmodule m)
{
    if (impl->nmodules == impl->cap_modules) {
        impl->cap_modules = impl->cap_modules ? 2 * impl->cap_modules : 8;
        impl->modules = xreallocn(impl->modules, (size_t)impl->cap_modules, sizeof *impl->modules);
    }
    impl->modules[impl->nmodules++] = m;
}

/* A load: the key hashes the cache version, the source, NVRTC's version and
 * the options (which carry the architecture and CUBIN-or-PTX). A hit is
 * DIR/KEY.cubin (or .ptx) beside DIR/KEY.cu equal to the source, with
 * DIR/KEY.cubin.sum matching the binary; a miss compiles and writes all
 * three (each atomically: processes loading the same source at once each
 * end with a whole file; the sum last). */
static bool cuda_load(Device *d, const char *source, const char *const *names, int n, void **functions)
{
    if (!source || n < 0 || (n > 0 && (!names || !functions)))
        return fail(d, "load: no source or no kernel names");
    if (!bind(d) || !nvrtc_available(d))
        return false;
    char arch[64];
    bool cubin = false;
    if (!choose_target(d, arch, sizeof arch, &cubin))
        return false;
    /* No --use_fast_math, and no fused multiply-add (--fmad=false): results
     * must match the cpu backend's, whose C kernels do not contract a*b+c. */
    const char *const opts[] = {arch, "-std=c++17", "--fmad=false"};
    const int nopts = (int)(sizeof opts / sizeof *opts);

    int major = 0, minor = 0;
    p_nvrtcVersion(&major, &minor);
    char version[32];
    snprintf(version, sizeof version, "%d.%d", major, minor);
    size_t len = strlen(source);
    CacheKey key = cache_key_start();
    cache_key_add(&key, CACHE_VERSION, strlen(CACHE_VERSION));
    cache_key_add(&key, source, len);
    cache_key_add(&key, version, strlen(version));
    for (int i = 0; i < nopts; i++)
        cache_key_add(&key, opts[i], strlen(opts[i]));
    char hex[33];
    cache_key_hex(key, hex);

    char *dir = cache_dir();
    char *src_path = dir ? xprintf("%s/%s.cu", dir, hex) : NULL;
    char *bin_path = dir ? xprintf("%s/%s.%s", dir, hex, cubin ? "cubin" : "ptx") : NULL;
    char *program = xprintf("%s.cu", hex);
    char *image = NULL;
    size_t image_len = 0;
    CUmodule mod = NULL;
    bool ok = false;

    /* a hit: trusted entries (cache_trust.c), the binary matching its sum */
    static const char again[] = "compiling the CUDA kernels again";
    bool source_there = dir && cache_entry_holds(src_path, source, len, stderr, again);
    if (source_there &&
        cache_entry_read(bin_path, BINARY_LIMIT, &image, &image_len, stderr, again) == CACHE_OK &&
        cache_sum_matches(bin_path, image, image_len)) {
        if (p_cuModuleLoadData(&mod, image) != CUDA_SUCCESS)
            mod = NULL;     /* a damaged entry: compiled again below */
    }
    free(image);
    image = NULL;
    if (!mod) {
        /* the source is written first, so that a failing compile's message
         * can point at it */
        bool cached = dir && (source_there || file_write_atomic(src_path, source, len));
        if (!compile(d, source, program, opts, nopts, cubin, cached ? src_path : program, &image, &image_len))
            goto done;
        /* best effort: without either file the next load compiles again */
        if (cached && file_write_atomic(bin_path, image, image_len))
            cache_sum_write(bin_path, image, image_len);
        if (!cu_ok(d, p_cuModuleLoadData(&mod, image), "cuModuleLoadData", cached ? bin_path : program))
            goto done;
    }
    for (int i = 0; i < n; i++) {
        CUfunction f = NULL;
        if (!cu_ok(d, p_cuModuleGetFunction(&f, mod, names[i]), "cuModuleGetFunction", names[i])) {
            p_cuModuleUnload(mod);
            goto done;
        }
        functions[i] = (void *)f;
    }
    keep_module(impl_of(d), mod);
    ok = true;
done:
    free(image);
    free(program);
    free(bin_path);
    free(src_path);
    free(dir);
    return ok;
}

static bool cuda_launch(Device *d, void *function, const char *name, int64_t blocks, int threads, const void *args,
                        size_t args_size)
{
    if (!name)
        name = "kernel";
    if (blocks <= 0 || blocks > INT32_MAX)
        return fail(d, "cuLaunchKernel(%s): %lld blocks (the grid takes 1 to 2147483647)", name, (long long)blocks);
    if (threads <= 0)
        return fail(d, "cuLaunchKernel(%s): %d threads per block", name, threads);
    if (!function || (!args && args_size))
        return fail(d, "cuLaunchKernel(%s): no function or no arguments", name);
    if (!bind(d))
        return false;
    /* the kernel's one parameter, the argument struct, by value: the driver
     * copies its bytes (the size the kernel declares) from args */
    void *params[1] = {(void *)args};
    CUresult r = p_cuLaunchKernel((CUfunction)function, (unsigned)blocks, 1, 1, (unsigned)threads, 1, 1, 0,
                                  stream_of(d)->stream, args_size ? params : NULL, NULL);
    return cu_ok(d, r, "cuLaunchKernel", name);
}

/* ---------------------------------------------------------------- products */
/* h's own workspace (after cublasSetStream, which resets it): a product
 * captured into a graph then allocates nothing. */
static bool blas_workspace(Device *d, CudaStream *s, cublasHandle_t h)
{
    if (!s->blas_workspace &&
        !cu_ok(d, p_cuMemAlloc(&s->blas_workspace, CUBLAS_WORKSPACE_BYTES), "cuMemAlloc", "cuBLAS workspace"))
        return false;
    return blas_ok(d, p_cublasSetWorkspace(h, (void *)(uintptr_t)s->blas_workspace, CUBLAS_WORKSPACE_BYTES),
                   "cublasSetWorkspace");
}

/* The handle of d->stream (one per stream: a handle's workspace serves one
 * stream at a time). */
static bool blas_handle(Device *d)
{
    CudaStream *s = stream_of(d);
    if (s->blas)
        return true;
    pthread_once(&cublas_once, load_cublas);
    if (!cublas_ready)
        return fail(d, "%s", cublas_why);
    cublasHandle_t h = NULL;
    if (!blas_ok(d, p_cublasCreate(&h), "cublasCreate"))
        return false;
    /* the stream's, as its launches and copies; no TF32 or other reduced
     * precision: products must match the cpu backend's */
    if (!blas_ok(d, p_cublasSetStream(h, s->stream), "cublasSetStream") || !blas_workspace(d, s, h) ||
        !blas_ok(d, p_cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode")) {
        p_cublasDestroy(h);
        return false;
    }
    s->blas = h;
    return true;
}

/* Whether v fits cuBLAS's 32-bit int arguments; else an error naming it. */
static bool fits_int(Device *d, const char *what, int64_t v)
{
    return (v >= 0 && v <= INT_MAX) ||
           fail(d, "cuBLAS gemm: %s = %lld does not fit its 32-bit interface", what, (long long)v);
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the
 * memory of a row-major matrix with rows of length ld is the column-major
 * transpose with leading dimension ld. So cuBLAS is handed B first, with
 * B's transposition flag, then A; (m, n) swap. */
static bool cuda_gemm(Device *d, const DeviceGemm *g)
{
    if (g->dtype != DT_F32 && g->dtype != DT_F64)
        return fail(d, "cuBLAS gemm: unsupported dtype %s", dtype_name(g->dtype));
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0 || g->stride_a < 0 || g->stride_b < 0 || g->stride_c < 0)
        return fail(d, "cuBLAS gemm: negative size or stride");
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return true;    /* C is empty */
    if (!fits_int(d, "m", g->m) || !fits_int(d, "n", g->n) || !fits_int(d, "k", g->k) ||
        !fits_int(d, "lda", g->lda) || !fits_int(d, "ldb", g->ldb) || !fits_int(d, "ldc", g->ldc) ||
        !fits_int(d, "batch", g->batch))
        return false;
    /* the row lengths of A, B, C as stored */
    int64_t row_a = g->trans_a ? g->m : g->k, row_b = g->trans_b ? g->k : g->n;
    int64_t lda = g->lda, ldb = g->ldb;
    if (g->k == 0) {
        /* A and B are not read (C = beta C); cuBLAS still checks their ld */
        lda = lda > row_a ? lda : row_a;
        ldb = ldb > row_b ? ldb : row_b;
        lda = lda ? lda : 1;
        ldb = ldb ? ldb : 1;
    }
    if (lda < row_a || ldb < row_b || g->ldc < g->n)
        return fail(d, "cuBLAS gemm: a row length is shorter than its matrix (lda %lld, ldb %lld, ldc %lld; "
                       "m %lld, n %lld, k %lld)", (long long)g->lda, (long long)g->ldb, (long long)g->ldc,
                    (long long)g->m, (long long)g->n, (long long)g->k);
    if (!bind(d) || !blas_handle(d))
        return false;
    cublasHandle_t h = stream_of(d)->blas;
    cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k, batch = (int)g->batch;
    if (g->dtype == DT_F32) {
        const float one = 1.0f, beta = g->accumulate ? 1.0f : 0.0f;
        return blas_ok(d,
                       p_cublasSgemmStridedBatched(h, tb, ta, n, m, k, &one, (const float *)(uintptr_t)g->b,
                                                   (int)ldb, g->stride_b, (const float *)(uintptr_t)g->a,
                                                   (int)lda, g->stride_a, &beta, (float *)(uintptr_t)g->c,
                                                   (int)g->ldc, g->stride_c, batch),
                       "cublasSgemmStridedBatched");
    }
    const double one = 1.0, beta = g->accumulate ? 1.0 : 0.0;
    return blas_ok(d,
                   p_cublasDgemmStridedBatched(h, tb, ta, n, m, k, &one, (const double *)(uintptr_t)g->b,
                                               (int)ldb, g->stride_b, (const double *)(uintptr_t)g->a, (int)lda,
                                               g->stride_a, &beta, (double *)(uintptr_t)g->c, (int)g->ldc,
                                               g->stride_c, batch),
                   "cublasDgemmStridedBatched");
}

/* ---------------------------------------------------------------- graphs */
static bool cuda_capture_begin(Device *d)
{
    return bind(d) && cu_ok(d, p_cuStreamBeginCapture(stream_of(d)->stream, CU_STREAM_CAPTURE_MODE_RELAXED),
                            "cuStreamBeginCapture", NULL);
}

static bool cuda_capture_end(Device *d, DeviceGraph **out)
{
    *out = NULL;
    CUgraph graph = NULL;
    if (!bind(d) || !cu_ok(d, p_cuStreamEndCapture(stream_of(d)->stream, &graph), "cuStreamEndCapture", NULL))
        return false;
    if (!graph)
        return true;
    CUgraphExec exec = NULL;
    if (!cu_ok(d, p_cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate", NULL)) {
        p_cuGraphDestroy(graph);
        return false;
    }
    DeviceGraph *g = xcalloc(1, sizeof *g);
    g->graph = graph;
    g->exec = exec;
    *out = g;
    return true;
}

static bool cuda_graph_launch(Device *d, DeviceGraph *g)
{
    if (!g)
        return true;
    return bind(d) && cu_ok(d, p_cuGraphLaunch(g->exec, stream_of(d)->stream), "cuGraphLaunch", NULL);
}

/* The caller waited for the replays queued: nothing still runs g. */
static void cuda_graph_destroy(Device *d, DeviceGraph *g)
{
    if (!g)
        return;
    if (bind(d)) {
        cu_ok(d, p_cuGraphExecDestroy(g->exec), "cuGraphExecDestroy", NULL);
        cu_ok(d, p_cuGraphDestroy(g->graph), "cuGraphDestroy", NULL);
    }
    free(g);
}

/* ---------------------------------------------------------------- open and close */
static void cuda_close(Device *d)
{
    if (!d)
        return;
    CudaImpl *impl = impl_of(d);
    /* teardown goes on past failures: each step frees what it can */
    p_cuCtxSetCurrent(impl->ctx);
    p_cuCtxSynchronize();
    for (int i = 0; i < impl->nstreams; i++)
        stream_free(impl->streams[i]);
    free(impl->streams);
    for (int i = 0; i < impl->nmodules; i++)
        p_cuModuleUnload(impl->modules[i]);
    p_cuCtxSetCurrent(NULL);
    p_cuDevicePrimaryCtxRelease(impl->dev);
    free(impl->modules);
    free(impl);
    free(d);
}

static const DeviceOps cuda_ops = {
    .alloc = cuda_alloc,
    .release = cuda_release,
    .upload = cuda_upload,
    .download = cuda_download,
    .zero = cuda_zero,
    .load = cuda_load,
    .launch = cuda_launch,
    .gemm = cuda_gemm,
    .sync = cuda_sync,
    .close = cuda_close,
    .stream_open = cuda_stream_open,
    .stream_close = cuda_stream_close,
    .stream_sync = cuda_stream_sync,
    .order = cuda_order,
    .peer_enable = cuda_peer_enable,
    .copy_peer = cuda_copy_peer,
    .pinned_alloc = cuda_pinned_alloc,
    .pinned_free = cuda_pinned_free,
    .stage_out = cuda_stage_out,
    .stage_in = cuda_stage_in,
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .graph_launch = cuda_graph_launch,
    .graph_destroy = cuda_graph_destroy,
};

/* FP32 lanes per multiprocessor by compute capability (the CUDA
 * programming guide's arithmetic-throughput table). */
static int fp32_lanes(int sm)
{
    if (sm == 60 || (sm >= 70 && sm <= 80))
        return 64;
    return 128;
}

bool cuda_driver_rates(int ordinal, double *flops_per_s, double *bytes_per_s, char *name, size_t cap)
{
    CUdevice dev = 0;
    int sms = 0, clock_khz = 0, mem_khz = 0, bus_bits = 0, major = 0, minor = 0;
    char model[100] = "";
    if (cuda_driver_count(NULL) <= ordinal || p_cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&mem_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS ||
        p_cuDeviceGetName(model, (int)sizeof model, dev) != CUDA_SUCCESS)
        return false;
    model[sizeof model - 1] = '\0';
    /* one operation per lane and cycle: the kernels are built without
     * fused multiply-add (--fmad=false) */
    *flops_per_s = (double)sms * fp32_lanes(major * 10 + minor) * clock_khz * 1e3;
    /* double data rate over the bus */
    *bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
    snprintf(name, cap, "%s: %d SMs at %d MHz, memory %d MHz x %d bits", model, sms, clock_khz / 1000,
             mem_khz / 1000, bus_bits);
    return true;
}

bool cuda_driver_bus_id(int ordinal, char *buf, size_t cap)
{
    CUdevice dev = 0;
    buf[0] = '\0';
    return cuda_driver_count(NULL) > ordinal && p_cuDeviceGet(&dev, ordinal) == CUDA_SUCCESS &&
           p_cuDeviceGetPCIBusId(buf, (int)cap, dev) == CUDA_SUCCESS;
}

int cuda_driver_count(const char **why)
{
    pthread_once(&cuda_once, load_cuda);
    if (why)
        *why = cuda_ready && cuda_devices > 0 ? NULL : cuda_why;
    return cuda_ready ? cuda_devices : 0;
}

/* "tssa-stream: error: cuda: CALL: NAME: TEXT" unless r is success. */
static bool open_ok(FILE *err, CUresult r, const char *call)
{
    if (r == CUDA_SUCCESS)
        return true;
    if (err)
        fprintf(err, "tssa-stream: error: cuda: %s: %s: %s\n", call, cu_name(r), cu_text(r));
    return false;
}

Device *cuda_driver_open(int ordinal, FILE *err)
{
    const char *why = NULL;
    int count = cuda_driver_count(&why);
    if (count <= 0) {
        if (err)
            fprintf(err, "tssa-stream: error: no CUDA device: %s\n", why);
        return NULL;
    }
    if (ordinal < 0 || ordinal >= count) {
        if (err)
            fprintf(err, "tssa-stream: error: no CUDA device: there is no device %d (the driver sees %d)\n",
                    ordinal, count);
        return NULL;
    }
    CUdevice dev = 0;
    char name[100] = "";
    int major = 0, minor = 0;
    size_t memory = 0;
    if (!open_ok(err, p_cuDeviceGet(&dev, ordinal), "cuDeviceGet") ||
        !open_ok(err, p_cuDeviceGetName(name, (int)sizeof name, dev), "cuDeviceGetName") ||
        !open_ok(err, p_cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
                 "cuDeviceGetAttribute") ||
        !open_ok(err, p_cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
                 "cuDeviceGetAttribute") ||
        !open_ok(err, p_cuDeviceTotalMem(&memory, dev), "cuDeviceTotalMem"))
        return NULL;
    /* the primary context, not one of our own: cuBLAS (through cudart) runs
     * on it, so its products see our allocations and our stream order */
    CUcontext ctx = NULL;
    if (!open_ok(err, p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"))
        return NULL;
    if (!open_ok(err, p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent")) {
        p_cuDevicePrimaryCtxRelease(dev);
        return NULL;
    }
    name[sizeof name - 1] = '\0';
    Device *d = xcalloc(1, sizeof *d);
    CudaImpl *impl = xcalloc(1, sizeof *impl);
    impl->dev = dev;
    impl->ctx = ctx;
    d->ops = &cuda_ops;
    d->sm = major * 10 + minor;
    d->memory = memory;
    d->emulated = false;
    d->impl = impl;
    snprintf(d->name, sizeof d->name, "%s (sm_%d, %zu GiB)", name, d->sm, memory >> 30);
    if (p_cuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, dev) != CUDA_SUCCESS)
        d->pci_bus_id[0] = '\0';
    DeviceStream *own = NULL;
    if (!cuda_stream_open(d, &own)) {
        if (err)
            fprintf(err, "tssa-stream: error: cuda: %s\n", d->error);
        cuda_close(d);
        return NULL;
    }
    d->stream = own;
    return d;
}
