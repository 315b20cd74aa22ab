/* cuda_iface.c — the cuda backend's entry in the table of backends
 * (backends/registry.c): whether a GPU (or the shim) is here, opening one per
 * rank with the program's kernels compiled for it, the runs (the cpu
 * executor's schedule with the device's node runner, cuda.h), and its
 * --stats lines.
 *
 * TSSA_CUDA_EMULATE=1 runs the device on the CPU shim
 * (backends/cuda/cuda_emulated.c), the way the tests run it without a GPU;
 * the shim is used when asked for, never chosen by default.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/cuda.h"

static bool emulated(void)
{
    const char *e = getenv("TSSA_CUDA_EMULATE");
    return e && *e && strcmp(e, "0") != 0;
}

static bool cuda_available(const char **why)
{
    static char text[512];
    const char *driver_why = NULL;
    *why = NULL;
    if (emulated() || cuda_device_count(&driver_why) > 0)
        return true;
    snprintf(text, sizeof text, "no CUDA device: %s (the cpu backend runs the same plan on this CPU; "
             "TSSA_CUDA_EMULATE=1 runs the CUDA kernels through the CPU shim)",
             driver_why ? driver_why : "none found");
    *why = text;
    return false;
}

/* A run without --backend takes a GPU, not the shim. */
static bool cuda_preferred(void)
{
    return cuda_device_count(NULL) > 0;
}

/* Each rank its own device, the ranks taking the GPUs in turn. */
static void *cuda_prepare(const BackendSetup *setup, FILE *err)
{
    int ndev = emulated() ? 1 : cuda_device_count(NULL);
    CudaOptions co = {.device = ndev > 0 ? setup->rank % ndev : 0, .devices = setup->devices,
                      .emulate = emulated()};
    return cuda_backend_open(setup->kernels, &co, err);
}

/* The cpu executor fires the schedule; the device runs the nodes it takes. */
static ExecPlan on_device(void *ctx, const ExecPlan *plan)
{
    ExecPlan p = *plan;
    p.device = cuda_backend_device(ctx);
    return p;
}

static int cuda_run(void *ctx, const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err)
{
    ExecPlan p = on_device(ctx, plan);
    return backend_cpu_run(&p, inputs, ninputs, outputs, noutputs, err);
}

static int cuda_run_sets(void *ctx, const ExecPlan *plan, int nsets, RtValue **const *inputs, int ninputs,
                         CpuDeliver deliver, void *deliver_ctx, FILE *err)
{
    ExecPlan p = on_device(ctx, plan);
    return backend_cpu_run_sets(&p, nsets, inputs, ninputs, deliver, deliver_ctx, err);
}

/* A timed run's inputs are in device memory before its clock starts, as a
 * GPU program's are. */
static bool cuda_stage_inputs(void *ctx, RtValue *const *inputs, int ninputs, FILE *err)
{
    const ExecDevice *dev = cuda_backend_device(ctx);
    return dev->prefetch(dev->ctx, inputs, ninputs, err);
}

/* The ops of the nodes that ran on the host, most frequent first: where a
 * cuda run leaves the device (each such node waits for the device and
 * copies its inputs back). */
static void print_host_ops(FILE *e, const char *tag, const CudaStats *cs, int runs)
{
    enum { SHOWN = 8 };
    int top[SHOWN], ntop = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        if (!cs->host_nodes_by_op[op])
            continue;
        int at = ntop < SHOWN ? ntop++ : SHOWN;
        while (at > 0 && cs->host_nodes_by_op[top[at - 1]] < cs->host_nodes_by_op[op]) {
            if (at < SHOWN)
                top[at] = top[at - 1];
            at--;
        }
        if (at < SHOWN)
            top[at] = op;
    }
    if (!ntop)
        return;
    fprintf(e, "tssa-stream: stats: %shost_ops_per_run", tag);
    for (int i = 0; i < ntop; i++)
        fprintf(e, "%s %s %.6g", i ? "," : "", top[i] ? op_info(top[i])->name : "(unknown op)",
                (double)cs->host_nodes_by_op[top[i]] / runs);
    fputc('\n', e);
}

/* --stats: the device's launches, GEMMs, host nodes and copies. */
static void cuda_stats(void *ctx, FILE *e, const char *tag, int runs)
{
    CudaStats cs = cuda_backend_stats(ctx);
    fprintf(e, "tssa-stream: stats: %sdevice %s\n", tag, cs.device);
    fprintf(e, "tssa-stream: stats: %slaunches_per_run %.6g\n", tag, (double)cs.launches / runs);
    fprintf(e, "tssa-stream: stats: %sgemms_per_run %.6g\n", tag, (double)cs.gemms / runs);
    fprintf(e, "tssa-stream: stats: %shost_nodes_per_run %.6g\n", tag, (double)cs.host_nodes / runs);
    print_host_ops(e, tag, &cs, runs);
    fprintf(e, "tssa-stream: stats: %sbytes_to_device_per_run %.6g\n", tag, (double)cs.bytes_to_device / runs);
    fprintf(e, "tssa-stream: stats: %sbytes_to_host_per_run %.6g\n", tag, (double)cs.bytes_to_host / runs);
    fprintf(e, "tssa-stream: stats: %scopies_to_device_per_run %.6g\n", tag, (double)cs.copies_to_device / runs);
    fprintf(e, "tssa-stream: stats: %scopies_to_host_per_run %.6g\n", tag, (double)cs.copies_to_host / runs);
    fprintf(e, "tssa-stream: stats: %sstrided_inputs_per_run %.6g\n", tag, (double)cs.strided_inputs / runs);
    fprintf(e, "tssa-stream: stats: %speak_device_bytes %lld\n", tag, (long long)cs.peak_device_bytes);
    fprintf(e, "tssa-stream: stats: %sdevice_allocations %lld\n", tag, (long long)cs.device_allocations);
}

static void cuda_close(void *ctx)
{
    cuda_backend_close(ctx);
}

const BackendIface backend_cuda = {
    .name = "cuda",
    .description = "the cpu backend's schedule with the fused kernels\n"
                   "(NVRTC) and GEMMs (cuBLAS) on a GPU; the default\n"
                   "when one is present (cpu otherwise);\n"
                   "TSSA_CUDA_EMULATE=1 runs it on a CPU shim instead",
    .runs_plan = true,
    .kernels_target = KERNELS_TARGET_CUDA,
    .device_kind = "CUDA",
    .available = cuda_available,
    .preferred = cuda_preferred,
    .prepare = cuda_prepare,
    .run = cuda_run,
    .run_sets = cuda_run_sets,
    .stage_inputs = cuda_stage_inputs,
    .stats = cuda_stats,
    .close = cuda_close,
};
