/* cuda.h — the cuda backend (--backend=cuda): the fused groups' generated
 * CUDA kernels (compiled at run time by NVRTC) and GEMMs (cuBLAS) run on a
 * GPU while the cpu executor fires the schedule; tensor data stays in
 * device memory from one device node to the next and comes back to the
 * host only where a host node, the executor or the outputs need it.
 *
 *     CudaBackend *cb = cuda_backend_open(kernels, &options, stderr);
 *     plan.device = cuda_backend_device(cb);      // then backend_cpu_run...
 *     CudaStats st = cuda_backend_stats(cb);
 *     cuda_backend_close(cb);
 *
 * The driver (libcuda.so.1), NVRTC and cuBLAS are opened with dlopen when a
 * device is first used, so the program starts everywhere; without a GPU
 * the backend says "no CUDA device" and why. TSSA_CUDA_EMULATE=1 runs the
 * same path on the CPU shim (backends/cuda/cuda_emulated.c).
 */
#ifndef TSSA_CUDA_H
#define TSSA_CUDA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tssa/backend.h"
#include "tssa/kernels.h"
#include "tssa/ops.h"

typedef struct CudaBackend CudaBackend;

enum { CUDA_MAX_DEVICES = 8 };

typedef struct CudaOptions {
    int device;                 /* ordinal of the first GPU */
    /* the placement's devices (StreamFilter.device: --devices N; 0 is 1):
     * device d runs on GPU device + d, or, with fewer GPUs, shares one */
    int devices;
    bool emulate;               /* the CPU shim instead of a GPU */
    int emulated_gpus;          /* with emulate: how many GPUs (0: one per device) */
    const char *gpu_choice;     /* why the first GPU (cuda_gpu_for_rank), for --stats; or NULL */
    bool no_graphs;             /* --no-graphs: timed runs never captured nor replayed */
} CudaOptions;

typedef struct CudaStats {
    char device[256];           /* the device's name (and how many share it) */
    int64_t launches;           /* kernel launches (one per kernel output) */
    int64_t gemms;              /* cuBLAS calls */
    int64_t host_nodes;         /* nodes the evaluator ran on the host */
    /* nodes the plan placed on the device that a run-time precondition
     * kept on the host (an operand's layout or dtype the device path does
     * not take, a group run in place); counted in host_nodes too */
    int64_t host_fallbacks;
    int64_t bytes_to_device, bytes_to_host;
    int64_t copies_to_device, copies_to_host;
    int64_t copies_to_host_pinned;          /* of those, through a pinned buffer */
    int64_t strided_inputs;     /* kernel inputs made contiguous first (on the host), GEMM operands (on the device) */
    int64_t peak_device_bytes;  /* most device memory in use at once */
    int64_t device_allocations; /* device allocations made (a freed buffer is reused) */
    int64_t host_nodes_by_op[OP_COUNT]; /* host_nodes by the node's op: what left the device */
    /* between devices: a value one device made that another reads */
    int64_t copies_peer, bytes_peer;        /* GPU to GPU (cuMemcpyPeerAsync) */
    int64_t memcpys_on_device;              /* contiguous copies within a GPU: the
                                             * copy engine, not a kernel launch */
    int64_t copies_staged, bytes_staged;    /* GPU to pinned host memory to GPU */
    int64_t copies_none_needed;             /* devices on one GPU: the value is there */
    int64_t stream_waits;                   /* events waited for between streams */
    int devices, gpus;                      /* logical devices (one stream each), GPUs */
    int peer_pairs, gpu_pairs;              /* ordered GPU pairs allowing peer copies, of all */
    char bus_ids[CUDA_MAX_DEVICES][32];     /* each GPU's PCI bus id ("" unknown) */
    char gpu_choice[256];                   /* which GPU the rank took and why */
    /* graphs (cuda_backend.c): timed runs, those replayed from the graph
     * captured in the first, the launches and products that graph holds,
     * and its state ("replayed", "off: WHY", "disabled (--no-graphs)") */
    int64_t graph_timed_runs, graph_replays, graph_launches, graph_gemms;
    int64_t graph_uploads;                  /* host data the graph copies in (pinned) */
    int64_t graph_checked_runs;             /* TSSA_CUDA_GRAPH_CHECK=1: timed runs whose outputs
                                             * were compared with the first run's */
    char graph_state[512];
} CudaStats;

/* The GPU for this rank (local rank local_rank on its host): the one
 * closest to its cores (backends/cuda/cuda_gpu_choice.c); why gets one line
 * ("GPU 1 of 2 (0000:41:00.0, NUMA node 1): on the rank's NUMA node 1 ..."). */
int cuda_gpu_for_rank(bool emulate, int local_rank, char *why, size_t cap);
/* --emit=topology's lines: the GPUs, their bus ids and NUMA nodes, and
 * which this rank takes. */
void cuda_print_gpus(FILE *out, bool emulate, int local_rank);
/* How many GPUs the driver sees: 0 (with *why, a static string, when not
 * NULL) where there is no driver or no GPU. */
int cuda_device_count(const char **why);
/* Opens the device and loads kp's kernels (kp may have none), or NULL after
 * a message to err: no CUDA device, a failed compile. */
CudaBackend *cuda_backend_open(KernelProgram *kp, const CudaOptions *o, FILE *err);
/* What the executor's plan takes as its device (valid until close). */
const ExecDevice *cuda_backend_device(CudaBackend *cb);
CudaStats cuda_backend_stats(const CudaBackend *cb);
/* The plan's placement of its nodes (NULL: none; the device then takes
 * every node it has a path for): the runs that follow execute it. */
void cuda_backend_set_placement(CudaBackend *cb, const NodePlacement *placement);
void cuda_backend_close(CudaBackend *cb);

/* Graphs for --repeat's timed runs (outputs dropped; cuda_backend.c's
 * header says when a run is captured and replayed):
 *   cuda_backend_graph_stage   before a timed run: its inputs into the
 *                              graph's buffers when a graph is ready (then
 *                              true, *done set); else *done false
 *   cuda_backend_graph_replay  the run, replayed when a graph is ready for
 *                              these inputs: true with *status the run's
 *                              exit status; false when the plan must run
 *   cuda_backend_graph_capture the run that follows (the executor's) is
 *                              captured, when it may be
 *   cuda_backend_graph_after   after every run the executor made (timed or
 *                              the first): a capture the run left open is
 *                              ended; in check mode (TSSA_CUDA_GRAPH_CHECK=1)
 *                              the first run's outputs are kept and a timed
 *                              run's compared with them (false, after a
 *                              message to err, when they differ) */
bool cuda_backend_graph_stage(CudaBackend *cb, RtValue *const *inputs, int ninputs, bool *done, FILE *err);
bool cuda_backend_graph_replay(CudaBackend *cb, RtValue **inputs, int ninputs, int *status, FILE *err);
void cuda_backend_graph_capture(CudaBackend *cb, RtValue **inputs, int ninputs);
bool cuda_backend_graph_after(CudaBackend *cb, bool timed, RtValue **outputs, int noutputs, FILE *err);

#endif
