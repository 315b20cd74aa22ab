/* cuda_device.h — what the cuda backend needs of a device (private to
 * backends/cuda/). Two devices implement it:
 *
 *   cuda_driver.c    an NVIDIA GPU: the driver API (libcuda.so.1), NVRTC and
 *                    cuBLAS, each opened with dlopen on first use, so the
 *                    program starts (and runs on the cpu backend) where
 *                    there is no GPU, no driver or no toolkit
 *   cuda_emulated.c  the CPU shim: the same generated CUDA text compiled as
 *                    C++ by the system compiler, blockIdx / threadIdx turned
 *                    into loops over the grid, device memory a separate host
 *                    allocation, GEMM by the tensor library: the whole cuda
 *                    backend (residency, copies, launches) runs and is
 *                    tested on a machine without a GPU
 *
 * A kernel takes one argument, a struct passed by value (kir_print.c's
 * "NAME_args": in[], si[], sf[], out[], every field 8 bytes); launch is
 * handed its bytes. Every call returns false after writing what failed
 * (the CUDA call, its error name and text) into d->error.
 *
 * Streams: a device opens with one stream, d->stream; stream_open makes
 * more (the backend gives each logical device its own). The queued calls
 * (upload, zero, launch, gemm, copy_peer, stage_out, stage_in) go on
 * d->stream as it is when they are made, run in order there, and in no
 * particular order with other streams' work unless `order` says so: an
 * event recorded on the producer's stream, waited for on the waiter's (the
 * host does not wait). download, stream_sync and sync make the host wait;
 * release waits for the device as cuMemFree does.
 *
 * Graphs: between capture_begin and capture_end, the queued calls made on
 * d->stream (launch, gemm, zero, copy_peer) are recorded, not run: the
 * recording is a DeviceGraph that graph_launch queues, as one call, on
 * d->stream as often as wanted (cuStreamBeginCapture, cuGraphInstantiate,
 * cuGraphLaunch). Its calls read and write the buffers they named when
 * recorded, with their contents at replay. While a capture is open the
 * host must not wait for d (download, stream_sync, sync, release) nor
 * upload pageable memory into the capture: the caller ends the capture
 * first (both devices refuse with an error naming the call).
 */
#ifndef TSSA_CUDA_DEVICE_H
#define TSSA_CUDA_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/tensor.h"

typedef uint64_t DevicePtr;     /* CUdeviceptr; 0 is none */

/* C = op(A) @ op(B) (+ C when accumulate), row-major, batch times: matrix i
 * of X starts stride_x elements after matrix i-1 (0: the same matrix for
 * every i). op(A) is [m, k], op(B) [k, n], C [m, n]; lda, ldb, ldc are
 * the row lengths in memory (of A and B as stored, before op). */
typedef struct DeviceGemm {
    TensorDType dtype;          /* DT_F32 or DT_F64 */
    bool trans_a, trans_b;
    int64_t m, n, k;
    DevicePtr a, b, c;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c;
    int64_t batch;
    bool accumulate;
} DeviceGemm;

typedef struct Device Device;
typedef struct DeviceStream DeviceStream;   /* CUstream, or the shim's queue */
typedef struct DeviceGraph DeviceGraph;     /* CUgraphExec (and its CUgraph), or the shim's recording */

typedef struct DeviceOps {
    bool (*alloc)(Device *d, size_t bytes, DevicePtr *p);
    void (*release)(Device *d, DevicePtr p);
    /* Queued on d->stream; src (pageable) may be reused once it returns. */
    bool (*upload)(Device *d, DevicePtr dst, const void *src, size_t bytes);
    /* Waits for d->stream, then copies: dst holds the data on return. */
    bool (*download)(Device *d, void *dst, DevicePtr src, size_t bytes);
    /* Sets bytes at p to 0 (queued on d->stream). */
    bool (*zero)(Device *d, DevicePtr p, size_t bytes);
    /* Compiles source (the generated CUDA text; cached on disk by a hash
     * of it and the target) and finds names[0..n) in it: functions[i]. */
    bool (*load)(Device *d, const char *source, const char *const *names, int n,
                 void **functions);
    /* Launches function (named `name`, for messages) on blocks x threads
     * with the argument struct args[0..args_size). */
    bool (*launch)(Device *d, void *function, const char *name, int64_t blocks, int threads,
                   const void *args, size_t args_size);
    bool (*gemm)(Device *d, const DeviceGemm *g);
    /* Waits for everything queued so far on every stream of d. */
    bool (*sync)(Device *d);
    void (*close)(Device *d);

    /* A new stream of d (closed with the device, or by stream_close). */
    bool (*stream_open)(Device *d, DeviceStream **s);
    void (*stream_close)(Device *d, DeviceStream *s);
    /* Waits for everything queued so far on d->stream. */
    bool (*stream_sync)(Device *d);
    /* waiter (a stream of d) runs what is queued on it from now on only
     * after everything queued so far on producer (a stream of pd: d itself
     * or another device of the same kind): cuEventRecord on producer,
     * cuStreamWaitEvent on waiter. */
    bool (*order)(Device *d, DeviceStream *waiter, Device *pd, DeviceStream *producer);
    /* Whether d may copy from peer's memory directly (then enabled);
     * false (no error) where the pair does not allow it. */
    bool (*peer_enable)(Device *d, Device *peer);
    /* bytes from src on peer to dst on d, queued on d->stream (peer_enable
     * said yes). */
    bool (*copy_peer)(Device *d, DevicePtr dst, Device *peer, DevicePtr src, size_t bytes);
    /* Page-locked host memory, usable by every device (cuMemHostAlloc). */
    bool (*pinned_alloc)(Device *d, size_t bytes, void **p);
    void (*pinned_free)(Device *d, void *p);
    /* Copies through pinned memory queued on d->stream: the bytes are read
     * or written when the stream gets there, not when the call returns. */
    bool (*stage_out)(Device *d, void *pinned, DevicePtr src, size_t bytes);
    bool (*stage_in)(Device *d, DevicePtr dst, const void *pinned, size_t bytes);

    /* Graphs (above): capture_begin starts recording d->stream's calls;
     * capture_end stops and makes them a graph (*g; NULL when nothing was
     * recorded); graph_launch queues g on d->stream; graph_destroy frees it
     * (after the work queued with it: the caller synchronizes first). */
    bool (*capture_begin)(Device *d);
    bool (*capture_end)(Device *d, DeviceGraph **g);
    bool (*graph_launch)(Device *d, DeviceGraph *g);
    void (*graph_destroy)(Device *d, DeviceGraph *g);
} DeviceOps;

struct Device {
    const DeviceOps *ops;
    char name[160];             /* "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)", "emulated ..." */
    int sm;                     /* compute capability * 10: 90 on Hopper; 0 emulated */
    size_t memory;              /* bytes of device memory */
    bool emulated;
    char pci_bus_id[32];        /* "0000:41:00.0" (the driver's), "" when unknown */
    DeviceStream *stream;       /* where queued calls go (set by the caller) */
    char error[1024];           /* the last failure */
    void *impl;                 /* the implementation's own state */
};

/* The number of CUDA devices (0 when there is no driver or no GPU; then
 * *why, when not NULL, says which: a static string). */
int cuda_driver_count(const char **why);
/* GPU ordinal's peak FP32 rate (one operation per lane and cycle) and
 * memory bandwidth from its attributes; name says which GPU and how. */
bool cuda_driver_rates(int ordinal, double *flops_per_s, double *bytes_per_s, char *name, size_t cap);
/* GPU ordinal's PCI bus id ("0000:41:00.0") into buf; false when unknown. */
bool cuda_driver_bus_id(int ordinal, char *buf, size_t cap);
/* Opens device `ordinal` (its primary context, a stream, cuBLAS), or NULL
 * after writing "tssa-stream: error: no CUDA device: WHY" (or what
 * failed) to err. */
Device *cuda_driver_open(int ordinal, FILE *err);
/* The CPU shim; NULL after a message to err (no C++ compiler). Emulated
 * devices of one process share nothing but their peer copies; `ordinal`
 * names them ("emulated GPU 1") and gives each a made-up PCI bus id. */
Device *cuda_emulated_open(int ordinal, FILE *err);
/* The emulated machine's GPUs: TSSA_CUDA_EMULATE_PCI="BUSID,BUSID,..."
 * names them (for the choice of GPU, cuda_gpu_choice.c); 1 without it.
 * Bus id `ordinal` into buf (a made-up one without the list). */
int cuda_emulated_count(void);
void cuda_emulated_bus_id(int ordinal, char *buf, size_t cap);

#endif
