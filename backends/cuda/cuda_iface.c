/* cuda_iface.c — the cuda backend's entry in the table of backends
 * (backends/registry.c): whether a GPU (or the shim) is here, opening one per
 * rank with the program's kernels compiled for it, the runs (the cpu
 * executor's schedule with the device's node runner, cuda.h), and its
 * --stats lines.
 *
 * supports_node is the static half of the device's node runner
 * (cuda_backend.c run_node): what the plan puts on the device is what the
 * runner has a device path for, decided from the op and the inferred dtypes
 * before any run; at run time the runner only executes that decision.
 *
 * TSSA_CUDA_EMULATE=1 runs the device on the CPU shim
 * (backends/cuda/cuda_emulated.c), the way the tests run it without a GPU;
 * the shim is used when asked for, never chosen by default.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/cuda.h"
#include "backends/cuda/cuda_device.h"
#include "tssa/shapes.h"

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

/* TSSA_CUDA_EMULATE_GPUS=G: the shim's devices share G emulated GPUs
 * (0 or unset: one GPU per device). */
static int emulated_gpus(void)
{
    const char *e = getenv("TSSA_CUDA_EMULATE_GPUS");
    int g = e ? atoi(e) : 0;
    return g > 0 ? g : 0;
}

/* Each rank the GPU closest to its cores (its devices from there on). */
static void *cuda_prepare(const BackendSetup *setup, FILE *err)
{
    char why[256];
    int first = cuda_gpu_for_rank(emulated(), setup->local_rank, why, sizeof why);
    CudaOptions co = {.device = first, .devices = setup->devices, .emulate = emulated(),
                      .emulated_gpus = emulated_gpus(), .gpu_choice = why, .no_graphs = setup->no_graphs};
    return cuda_backend_open(setup->kernels, &co, err);
}

/* The cpu executor fires the schedule; the device runs the nodes it takes. */
static ExecPlan on_device(void *ctx, const ExecPlan *plan)
{
    ExecPlan p = *plan;
    p.device = cuda_backend_device(ctx);
    cuda_backend_set_placement(ctx, plan->placement);
    return p;
}

/* The elements value v's inferred type says it has (1 for a number), 0
 * when its sizes are not known statically. */
static double static_elements(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    if (!t)
        return v->type && v->type->kind != TY_TENSOR ? 1 : 0;
    double n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->sizes[d] > 0 ? (double)t->sizes[d] : 0;
    return t->rank >= 0 ? n : 0;
}

/* The static dtype of v (a TensorDType), or -1 where inference left it open. */
static int static_dtype(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    return t ? t->dtype : -1;
}

static bool float_or_unknown(int dtype)
{
    return dtype < 0 || dtype == DT_F32 || dtype == DT_F64;
}

/* Whether a value of type t is or holds a tensor (a list, tuple or
 * optional of them; an unknown type may). */
static bool holds_tensor(const IrType *t)
{
    if (!t || t->kind == TY_TENSOR || t->kind == TY_ANY || t->kind == TY_OTHER || t->kind == TY_CLASS)
        return true;
    for (int i = 0; i < t->nelems; i++)
        if (holds_tensor(t->elems[i]))
            return true;
    return false;
}

/* Whether n computes numbers (ints, floats, bools) from numbers only. */
static bool numbers_only(const IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (holds_tensor(n->inputs[i]->type))
            return false;
    for (int o = 0; o < n->noutputs; o++)
        if (holds_tensor(n->outputs[o]->type))
            return false;
    return true;
}

static void cuda_supports_node(const IrNode *n, const KernelProgram *kp, NodeSite *site, double *cost,
                               const char **why)
{
    *site = SITE_DEVICE;
    *why = NULL;
    *cost = 0;
    for (int o = 0; o < n->noutputs; o++)
        *cost += static_elements(n->outputs[o]);
    OpAlias alias = op_info(n->op)->alias;
    switch (n->op) {
    case OP_TSSA_FUSION_GROUP:
        if (!kernels_kernel_of(kp, n)) {
            *site = SITE_HOST;
            *why = "a fused group without a kernel (interpreted node by node)";
        }
        return;
    case OP_ATEN_MM:
    case OP_ATEN_BMM:
    case OP_ATEN_MATMUL:
    case OP_ATEN_LINEAR:
    case OP_ATEN_ADDMM:            /* GEMM (cuBLAS): float32 and float64 */
        if (n->noutputs != 1 || !float_or_unknown(static_dtype(n->outputs[0]))) {
            *site = SITE_HOST;
            *why = "a product of integers or another dtype (the GEMM takes float32/float64)";
        }
        return;
    case OP_ATEN_EMBEDDING:         /* a gather of a float table's rows */
        if (n->noutputs != 1 || !float_or_unknown(static_dtype(n->outputs[0]))) {
            *site = SITE_HOST;
            *why = "an embedding of a table that is not float32/float64";
        }
        return;
    case OP_IMMUT_SELECT_REV:
    case OP_IMMUT_SLICE_REV:        /* a region written by a device copy */
    case OP_ATEN_ZEROS:
    case OP_ATEN_ZEROS_LIKE:
    case OP_ATEN_EMPTY:
    case OP_ATEN_EMPTY_LIKE:        /* made in device memory */
    case OP_ATEN_STACK:
    case OP_ATEN_CAT:               /* device copies into one buffer */
        return;
    default:
        break;
    }
    if (alias == ALIAS_VIEW || alias == ALIAS_VIEWS) {
        *cost = 0;                  /* shares its input's storage: no data moves */
        return;
    }
    bool list_concat = n->op == OP_ATEN_ADD && n->ninputs == 2 && n->inputs[0]->type &&
                       n->inputs[0]->type->kind == TY_LIST;
    if (op_reads_no_elements(n->op) || list_concat) {
        *site = SITE_NO_DATA;
        *why = "reads no elements (shapes, dtypes, containers)";
        return;
    }
    *site = SITE_HOST;
    if (n->nblocks)
        *why = "control flow: the host steps it, its blocks' nodes are placed each";
    else if (numbers_only(n))
        *why = "numbers, not tensors: the host computes them";
    else
        *why = "no device implementation of this op (its inputs come back to the host)";
}

/* A timed run of --repeat (outputs dropped) is replayed from the graph the
 * first one captured, where the backend has one for these inputs. */
static int cuda_run(void *ctx, const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err)
{
    ExecPlan p = on_device(ctx, plan);
    int status = 0;
    if (plan->outputs_dropped) {
        if (cuda_backend_graph_replay(ctx, inputs, ninputs, &status, err)) {
            *outputs = NULL;
            *noutputs = 0;
            return status;
        }
        cuda_backend_graph_capture(ctx, inputs, ninputs);
    }
    status = backend_cpu_run(&p, inputs, ninputs, outputs, noutputs, err);
    if (!cuda_backend_graph_after(ctx, plan->outputs_dropped, status == 0 ? *outputs : NULL,
                                  status == 0 ? *noutputs : 0, err))
        status = 1;
    return status;
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
    bool rebound = false;
    if (!cuda_backend_graph_stage(ctx, inputs, ninputs, &rebound, err))
        return false;
    const ExecDevice *dev = cuda_backend_device(ctx);
    return rebound || dev->prefetch(dev->ctx, inputs, ninputs, err);
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

/* One `--stats` line of a count averaged over the runs. */
static void per_run(FILE *e, const char *tag, const char *name, int64_t count, double runs)
{
    fprintf(e, "tssa-stream: stats: %s%s_per_run %.6g\n", tag, name, (double)count / runs);
}

static void cuda_stats(void *ctx, FILE *e, const char *tag, int runs)
{
    CudaStats cs = cuda_backend_stats(ctx);
    fprintf(e, "tssa-stream: stats: %sdevice %s\n", tag, cs.device);
    if (cs.gpu_choice[0])
        fprintf(e, "tssa-stream: stats: %sgpu_choice %s\n", tag, cs.gpu_choice);
    per_run(e, tag, "launches", cs.launches, runs);     /* on the device, replays' too */
    per_run(e, tag, "gemms", cs.gemms, runs);
    per_run(e, tag, "host_nodes", cs.host_nodes, runs);
    print_host_ops(e, tag, &cs, runs);
    per_run(e, tag, "host_fallbacks", cs.host_fallbacks, runs);
    per_run(e, tag, "bytes_to_device", cs.bytes_to_device, runs);
    per_run(e, tag, "bytes_to_host", cs.bytes_to_host, runs);
    per_run(e, tag, "copies_to_device", cs.copies_to_device, runs);
    per_run(e, tag, "copies_to_host", cs.copies_to_host, runs);
    per_run(e, tag, "copies_to_host_pinned", cs.copies_to_host_pinned, runs);
    per_run(e, tag, "strided_inputs", cs.strided_inputs, runs);
    per_run(e, tag, "memcpys_on_device", cs.memcpys_on_device, runs);
    if (cs.devices > 1) {
        fprintf(e, "tssa-stream: stats: %sstreams %d (one per device) on %d GPU%s, peer copies between %d of %d "
                "GPU pairs\n", tag, cs.devices, cs.gpus, cs.gpus == 1 ? "" : "s", cs.peer_pairs, cs.gpu_pairs);
        per_run(e, tag, "copies_peer", cs.copies_peer, runs);
        per_run(e, tag, "copies_staged", cs.copies_staged, runs);
        per_run(e, tag, "copies_none_needed", cs.copies_none_needed, runs);
        per_run(e, tag, "bytes_peer", cs.bytes_peer, runs);
        per_run(e, tag, "bytes_staged", cs.bytes_staged, runs);
        per_run(e, tag, "stream_waits", cs.stream_waits, runs);
    }
    if (cs.graph_state[0]) {
        /* graphs: per run of all (the warm-up and the capture launch from
         * the host; each replay is one cuGraphLaunch) */
        fprintf(e, "tssa-stream: stats: %sgraphs %s\n", tag, cs.graph_state);
        per_run(e, tag, "graph_replays", cs.graph_replays, runs);
        fprintf(e, "tssa-stream: stats: %sgraph_replayed_runs %lld of %lld timed\n", tag,
                (long long)cs.graph_replays, (long long)cs.graph_timed_runs);
        if (cs.graph_replays)
            fprintf(e, "tssa-stream: stats: %sgraph_launches_per_replay %lld (products %lld), from the host 1 "
                       "(cuGraphLaunch)\n", tag, (long long)cs.graph_launches, (long long)cs.graph_gemms);
        /* the calls the host made: kernels and products the executor
         * launched, and one per replay */
        int64_t replayed = cs.graph_replays * (cs.graph_launches + cs.graph_gemms);
        per_run(e, tag, "host_launches", cs.launches + cs.gemms - replayed + cs.graph_replays, runs);
        if (cs.graph_checked_runs)
            fprintf(e, "tssa-stream: stats: %sgraph_checked_runs %lld of %lld timed (outputs equal the first "
                       "run's)\n", tag, (long long)cs.graph_checked_runs, (long long)cs.graph_timed_runs);
    }
    fprintf(e, "tssa-stream: stats: %speak_device_bytes %lld\n", tag, (long long)cs.peak_device_bytes);
    fprintf(e, "tssa-stream: stats: %sdevice_allocations %lld\n", tag, (long long)cs.device_allocations);
}

static void cuda_close(void *ctx)
{
    cuda_backend_close(ctx);
}

/* Assumed, not measured: a firing's launch (the executor's dispatch and
 * cuLaunchKernel) and a link between GPUs (PCIe 4.0 x16 peer copies). */
#define LAUNCH_S 5e-6
#define LINK_BYTES_PER_S 25e9
#define LINK_LATENCY_S 10e-6

/* The GPU's rates from its attributes (cuda_driver_rates); on the shim the
 * figures of an H100 SXM (132 SMs x 128 lanes at 1.98 GHz, 3.35 TB/s):
 * a projection, the shim itself runs every device on one CPU thread. */
static void cuda_gpu_rates(int ndevices, int local_rank, GpuRates *r)
{
    char why[256];
    int first = cuda_gpu_for_rank(emulated(), local_rank, why, sizeof why);
    int count = emulated() ? (emulated_gpus() ? emulated_gpus() : ndevices) : cuda_device_count(NULL);
    /* no GPU here (a plan made for a GPU machine, --emit=schedule): the N
     * devices are taken to be N GPUs */
    r->gpus = count <= 0 || count >= ndevices ? ndevices : count;
    r->launch_s = LAUNCH_S;
    r->link_bytes_per_s = LINK_BYTES_PER_S;
    r->link_latency_s = LINK_LATENCY_S;
    char name[128];
    if (!emulated() && cuda_driver_rates(first, &r->flops_per_s, &r->bytes_per_s, name, sizeof name)) {
        snprintf(r->source, sizeof r->source, "%s; launch and links assumed", name);
        return;
    }
    r->flops_per_s = 132.0 * 128 * 1.98e9;
    r->bytes_per_s = 3.35e12;
    snprintf(r->source, sizeof r->source, "%s: an H100 SXM's figures; launch and links assumed",
             emulated() ? "no GPU, the CPU shim" : "the driver gave no rates");
}

static void cuda_print_topology(FILE *out, int local_rank)
{
    cuda_print_gpus(out, emulated(), local_rank);
}

/* The description's limit is CUDA_MAX_DEVICES's. */
_Static_assert(CUDA_MAX_DEVICES == 8, "backend_cuda's description says --devices 1 to 8");

const BackendIface backend_cuda = {
    .name = "cuda",
    .description = "the cpu backend's schedule with the fused kernels\n"
                   "(NVRTC) and GEMMs (cuBLAS) on a GPU; the default\n"
                   "when one is present (cpu otherwise);\n"
                   "TSSA_CUDA_EMULATE=1 runs it on a CPU shim instead;\n"
                   "--devices N from 1 to 8 (CUDA_MAX_DEVICES)",
    .runs_plan = true,
    .kernels_target = KERNELS_TARGET_CUDA,
    .device_kind = "CUDA",
    .max_devices = CUDA_MAX_DEVICES,
    .available = cuda_available,
    .preferred = cuda_preferred,
    .supports_node = cuda_supports_node,
    .prepare = cuda_prepare,
    .run = cuda_run,
    .run_sets = cuda_run_sets,
    .stage_inputs = cuda_stage_inputs,
    .stats = cuda_stats,
    .close = cuda_close,
    .print_topology = cuda_print_topology,
    .gpu_rates = cuda_gpu_rates,
};
