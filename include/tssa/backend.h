/* backend.h — the executors: each is handed what the compiler decided and
 * runs it. A backend never parses, functionalizes, lowers or schedules.
 *
 * Every backend is one BackendIface (below), implemented in its own folder
 * (backends/ref, backends/cpu, backends/cuda) and listed once in the table
 * of backends/registry.c (registry.h); the driver finds a backend by name
 * there and calls it only through the interface. The two executors under
 * the entries:
 *
 *   backend_ref_run   the oracle: the original imperative graph, op by op,
 *                     with PyTorch's semantics (aliasing exact)
 *   backend_cpu_run   a scheduled plan (the lowered stream graph and its
 *                     static schedule), its filters fired in schedule order
 *                     with channel buffers sized by the scheduler
 *
 * Both take the bound inputs (one RtValue per graph input, as
 * bindings_resolve gives them; not consumed) and on success fill outputs
 * (one per graph output; the caller releases them) and return 0. On a
 * runtime failure they write "FILE:LINE: error: OP: WHAT", naming the node
 * and its source line, to err and return 1.
 */
#ifndef TSSA_BACKEND_H
#define TSSA_BACKEND_H

#include <stdint.h>
#include <stdio.h>

#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/kernels.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/value.h"

/* Runs g on inputs with PyTorch's imperative semantics. Tensors bound as
 * inputs may be mutated, as PyTorch would mutate them. */
int backend_ref_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err);

/* What the compiler hands an executor: the lowered program (its stream
 * graph, the functional IR its filters run and the compile-time values) and
 * the static schedule of that stream graph. Executors only read it, so one
 * plan can be run many times. */
/* How items cross between ranks: the executor of a placed schedule hands
 * the items one firing pushes on a channel whose consumer is on another
 * rank to send (one message per firing and channel), and takes the items
 * of a channel whose producer is elsewhere from recv (one message, in the
 * order they were sent). The MPI world provides one (world.h). Both return
 * false / NULL after writing what failed to err. */
typedef struct ChannelTransport {
    bool (*send)(int channel, int to_rank, RtValue *const *items, int n, FILE *err);
    RtValue **(*recv)(int channel, int from_rank, int *n, FILE *err);
    /* Waits until every send so far has completed (the end of a run). */
    bool (*flush)(FILE *err);
} ChannelTransport;

/* A device that runs some of the plan's nodes for the executor (the cuda
 * backend, cuda.h): the executor still fires the schedule, and the device's
 * node runner takes the nodes it can run (fused groups, GEMMs) from the
 * evaluator; tensor data may then live in device memory until a host node,
 * or the executor itself, needs it. */
typedef struct ExecDevice {
    void *ctx;
    /* Hooks the device into a run's evaluation context (after its clone). */
    void (*install)(void *ctx, NodeExec *values);
    /* Makes the items' tensor data current in host memory before the
     * executor reads it itself (a loop's stack, a message to a rank, the
     * outputs); false after writing what failed to err. */
    bool (*to_host)(void *ctx, RtValue *const *items, int n, FILE *err);
    /* The device (the placement's StreamFilter.device) that runs the
     * nodes of the firings that follow. */
    void (*select)(void *ctx, int device);
    /* After each run: drops device copies of what the run no longer holds. */
    void (*end_run)(void *ctx);
    /* Copies the items' tensor data to the device now: a timed run's inputs
     * are in device memory before its clock starts, as a GPU program's
     * are; false after writing what failed to err. */
    bool (*prefetch)(void *ctx, RtValue *const *items, int n, FILE *err);
    /* Waits for everything the device was given; false after writing what
     * failed to err. */
    bool (*sync)(void *ctx, FILE *err);
} ExecDevice;

/* Where the plan runs each node of its program (backends/placement.c
 * decides it when the plan is built, from each backend's supports_node):
 * indexed by IrNode.id of the program's graph; a node made after (id >=
 * nnodes) was not placed. At run time the device only executes it: what the
 * plan put on the host is not offered to the device, and a node put on the
 * device that a run-time precondition keeps off it (NodePlacement
 * fallback) runs on the host and is counted. */
typedef enum NodeSite {
    SITE_NONE,          /* not a node the plan runs (a block's param/return) */
    SITE_HOST,          /* the host: its inputs' data comes back from a device */
    SITE_DEVICE,        /* the backend's device */
    SITE_NO_DATA,       /* the host, reading no elements (shapes, containers):
                         * data stays where it is */
    SITE_IN_KERNEL,     /* inside a fused group that runs as one kernel */
} NodeSite;

typedef struct NodePlacement {
    const IrGraph *graph;       /* whose node ids index the arrays */
    uint32_t nnodes;
    unsigned char *site;        /* NodeSite per node id */
    const char **why;           /* per node id: why not on the device (static text), or NULL */
    double *cost;               /* per node id: the backend's estimate (elements written) */
    const char *device;         /* the device's name ("cuda"), or NULL: the host only */
} NodePlacement;

typedef struct ExecPlan {
    const LowerProgram *program;
    const Schedule *schedule;
    KernelProgram *kernels;     /* compiled fusion groups, or NULL: interpret them */
    /* Placement: this process fires the actors the schedule places on
     * `rank` (all of them when the schedule is not placed) and moves items
     * of channels between ranks through transport (NULL with one rank). */
    int rank;
    const ChannelTransport *transport;
    TraceLog *trace;            /* records every firing when not NULL */
    const ExecDevice *device;   /* runs nodes on a device, or NULL: all on this CPU */
    double trace_epoch;         /* CLOCK_MONOTONIC seconds of the trace's time 0 */
    /* A timed run whose outputs are dropped (--repeat): with a device, the
     * outputs are not copied back; the run ends when the device is done. */
    bool outputs_dropped;
    /* Every rank holds this run's inputs (a plain run and --repeat: rank 0
     * shared them; not --inputs, whose sets only rank 0 reads): on several
     * ranks, each then makes the items it needs from the inputs itself and
     * keeps the rows of results it computed until they are gathered for the
     * outputs (Schedule.replicated, Schedule.owned_tail). */
    bool inputs_everywhere;
    /* The backend running the plan (BackendIface.name), for messages that
     * say where an op ran; NULL: "cpu". */
    const char *backend_name;
    /* Tensor buffers reused across the plan's runs (storage_pool_new; the
     * plan's owner frees it after its last run), or NULL: plain malloc.
     * The cpu backend installs it while it runs the plan. */
    StoragePool *storage_pool;
    /* Each node's site (NULL: none decided, a device takes what it can). */
    const NodePlacement *placement;
} ExecPlan;

/* Runs the plan once on the bound inputs of the graph it was compiled from
 * (the same inputs it was specialized to). */
int backend_cpu_run(const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err);
/* Takes one set's outputs (new references; the callee owns them and the
 * array), on rank 0, as soon as they are complete. */
typedef void (*CpuDeliver)(void *ctx, int set, RtValue **outputs, int noutputs);
/* Runs the plan once per input set, back to back (--inputs, --repeat
 * under mpirun): inputs[i] are set i's bound inputs; deliver gets set i's
 * outputs in set order. On several ranks rank 0 takes set i's outputs only
 * after starting set i+1, so stages placed on different ranks work on
 * different sets at once. Returns 0, or 1 after reporting a failure (sets
 * delivered before it stay delivered). */
int backend_cpu_run_sets(const ExecPlan *plan, int nsets, RtValue **const *inputs, int ninputs,
                         CpuDeliver deliver, void *ctx, FILE *err);

/* ---------------------------------------------------------- the interface */

/* What a plan backend's prepare is given. */
typedef struct BackendSetup {
    /* The fused groups' kernels (NULL with --no-fuse): compiled to C code
     * already loaded when the backend's kernels_target is KERNELS_TARGET_C;
     * generated only (kernels_source) when the backend compiles them itself. */
    KernelProgram *kernels;
    int rank;                   /* this process's rank */
    int local_rank;             /* its rank among the ranks on its host (GPU choice) */
    int devices;                /* --devices N for a backend with devices; 0: not given */
    bool no_graphs;             /* --no-graphs: a device backend replays no captured runs */
} BackendSetup;

/* One backend: what the driver may know of it. A backend that runs the
 * imperative graph (ref) fills run_graph; one that runs the compiled plan
 * (cpu, cuda) fills prepare and run, and the plan's stages before it
 * (functionalize, lower, fuse, schedule) run for it. Functions a backend
 * does not need are NULL. */
typedef struct BackendIface {
    const char *name;           /* --backend=NAME */
    /* --help's lines under --backend=NAME, each line's text only (the
     * driver indents them), newline-separated */
    const char *description;
    bool runs_plan;             /* false: run_graph runs the program as written */
    /* Its kernels: KERNELS_TARGET_C, the driver compiles them as C (cc)
     * before prepare; KERNELS_TARGET_CUDA, prepare compiles the source itself. */
    KernelsTarget kernels_target;
    /* The kind of device the plan places filters on (StreamFilter.device,
     * --devices N, "cuda:j" in --emit=schedule), or NULL: the host only. */
    const char *device_kind;
    /* With device_kind: the most devices --devices N may name (its plan's
     * per-device tables); 0 without. */
    int max_devices;
    /* Whether it can run here (a build may have a backend whose hardware
     * is missing); when not, *why says why and what to use instead (a
     * static string). */
    bool (*available)(const char **why);
    /* Whether a run without --backend takes it (the table is in order of
     * preference): NULL means whenever it is available. */
    bool (*preferred)(void);

    /* Static placement (NULL: every node on the host): whether node n of
     * the plan's program runs on the backend's device, answered from what
     * is known before any run: its op, the inferred shapes and dtypes of
     * its values (shape_of, shapes.h), and for a fused group whether kp
     * has its kernel. *site is SITE_DEVICE, SITE_HOST or SITE_NO_DATA;
     * *cost its estimate (elements written); *why, for the host, says why
     * (static text). */
    void (*supports_node)(const IrNode *n, const KernelProgram *kp, NodeSite *site, double *cost,
                          const char **why);

    /* runs_plan false: runs g on inputs (backend_ref_run's contract). */
    int (*run_graph)(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                     RtValue ***outputs, int *noutputs, FILE *err);

    /* runs_plan: opens what the runs need (a device, its kernels) and
     * returns the backend's context for the calls below, or NULL after a
     * message to err. A backend with nothing to open returns a non-NULL
     * static context. */
    void *(*prepare)(const BackendSetup *setup, FILE *err);
    /* One run of the plan, and a stream of runs (backend_cpu_run and
     * backend_cpu_run_sets's contracts). */
    int (*run)(void *ctx, const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
               int *noutputs, FILE *err);
    int (*run_sets)(void *ctx, const ExecPlan *plan, int nsets, RtValue **const *inputs, int ninputs,
                    CpuDeliver deliver, void *deliver_ctx, FILE *err);
    /* Before a timed run: puts its inputs where the run reads them (device
     * memory), outside the clock; NULL: nothing to do. False after a
     * message to err. */
    bool (*stage_inputs)(void *ctx, RtValue *const *inputs, int ninputs, FILE *err);
    /* --stats: its own "tssa-stream: stats: TAG KEY VALUE" lines, per run
     * where a count is (runs: the runs made); NULL: none. */
    void (*stats)(void *ctx, FILE *out, const char *tag, int runs);
    /* Releases the context (NULL-safe), before the kernels it was given. */
    void (*close)(void *ctx);
    /* --devices N (N >= 2): the rates of the GPU this rank takes and how
     * many GPUs the N devices get (GpuRates.gpus), for the prediction
     * beside the placement (sched_note_devices); NULL: none. */
    void (*gpu_rates)(int ndevices, int local_rank, GpuRates *r);
    /* --emit=topology: its devices on this host and which this rank
     * (local_rank) takes, as lines to out; NULL: none. */
    void (*print_topology)(FILE *out, int local_rank);
} BackendIface;

/* The entries, each defined in its backend's folder; registry.c lists the
 * ones a build has. */
extern const BackendIface backend_ref;
extern const BackendIface backend_cpu;
extern const BackendIface backend_cuda;

#endif
