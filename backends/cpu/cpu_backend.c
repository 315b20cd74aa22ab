/* cpu_backend.c — backend_cpu_run: run a scheduled plan on this CPU.
 *
 *   node_exec_clone  the program's compile-time values, in this run's own
 *                    evaluation context (the plan itself is never written)
 *   cpu_execute      the schedule, run in order (cpu_exec.c), each work
 *                    filter fired on that context (fire.c)
 * The stream's output items and the program's compile-time outputs are then
 * put back in the order of the graph's outputs, on rank 0 (a placed plan's
 * output actor is there; the other ranks' runs return no outputs).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "backends/cpu/cpu.h"

/* Every firing makes tensors and drops them again, the same sizes run after
 * run. glibc serves blocks above its mmap threshold (128 KiB at first) with
 * fresh mappings, so each such tensor would cost its page faults again;
 * keeping blocks up to 256 MiB on the heap, and not trimming it, makes a
 * freed buffer the next allocation of its size (warm pages). */
static void keep_buffers(void)
{
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

/* One run of the plan on one input set: the stream's output items (with
 * NULL holes where deferred says), false after reporting to err. */
static bool run_once(const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***items, int *nitems,
                     CpuDeferred *deferred, FILE *err)
{
    const LowerProgram *program = plan->program;
    int nin = 0;
    const int *in_map = lower_input_map(program, &nin);
    RtValue **stream_inputs = xcalloc((size_t)nin + 1, sizeof *stream_inputs);
    for (int k = 0; k < nin; k++) {
        if (in_map[k] >= ninputs) {
            fprintf(err, "error: internal: the plan reads graph input %d of %d\n", in_map[k], ninputs);
            free(stream_inputs);
            return false;
        }
        stream_inputs[k] = inputs[in_map[k]];
    }
    storage_pool_begin_run(plan->storage_pool);
    trace_log_begin_run(plan->trace);
    NodeExec *values = node_exec_clone(lower_static_values(program));
    kernels_install(plan->kernels, values);
    node_exec_set_backend(values, plan->backend_name ? plan->backend_name : "cpu");
    const ExecDevice *dev = plan->device;
    if (dev)
        dev->install(dev->ctx, values);
    bool ok = cpu_execute(plan, values, stream_inputs, nin, items, nitems, deferred, err);
    /* the outputs are read on the host (a hole of a deferred output is NULL),
     * unless nobody reads them: then the run ends when the device is done */
    if (ok && dev && plan->outputs_dropped)
        ok = dev->sync(dev->ctx, err);
    for (int i = 0; ok && dev && !plan->outputs_dropped && i < *nitems; i++)
        ok = !(*items)[i] || dev->to_host(dev->ctx, *items + i, 1, err);
    free(stream_inputs);
    node_exec_free(values);
    if (dev)
        dev->end_run(dev->ctx);
    return ok;
}

/* The graph's outputs from the stream's output items and the program's
 * compile-time outputs, in the graph's order (new references). */
static bool assemble(const LowerProgram *program, RtValue **items, int nitems, RtValue ***outputs,
                     int *noutputs, FILE *err)
{
    IrGraph *lowered = lower_ir_graph(program);
    int nret = ir_block_nreturns(lowered->top);
    const int *out_map = lower_output_map(program);
    RtValue **out = xcalloc((size_t)nret + 1, sizeof *out);
    bool ok = true;
    for (int k = 0; k < nret && ok; k++) {
        if (out_map[k] < 0)
            out[k] = rt_retain(lower_static_value(program, ir_block_return(lowered->top, k)));
        else if (out_map[k] < nitems)
            out[k] = rt_retain(items[out_map[k]]);
        if (!out[k]) {
            fprintf(err, "error: internal: graph output %d has no value\n", k);
            ok = false;
        }
    }
    if (!ok) {
        for (int k = 0; k < nret; k++)
            rt_release(out[k]);
        free(out);
        return false;
    }
    *outputs = out;
    *noutputs = nret;
    return true;
}

static void release_items(RtValue **items, int n)
{
    for (int i = 0; i < n; i++)
        rt_release(items[i]);
    free(items);
}

/* Items received for deferred outputs, per channel, not yet placed: one
 * message may carry several. */
typedef struct Arrived {
    int channel;
    RtValue **items;
    int n, next;
} Arrived;

/* Fills the holes of a run's output items from their channels. */
static bool fill_deferred(const ExecPlan *plan, RtValue **items, int nitems, CpuDeferred *d, Arrived **arrived,
                          int *narrived, FILE *err)
{
    int hole = 0;
    bool ok = true;
    for (int i = 0; i < nitems && ok; i++) {
        if (items[i] || hole >= d->n)
            continue;
        int ch = d->channels[hole++], a = 0;
        while (a < *narrived && (*arrived)[a].channel != ch)
            a++;
        if (a == *narrived) {
            *arrived = xrealloc(*arrived, (size_t)(a + 1) * sizeof **arrived);
            (*arrived)[(*narrived)++] = (Arrived){.channel = ch};
        }
        Arrived *q = &(*arrived)[a];
        if (q->next == q->n) {
            release_items(q->items, 0);
            q->next = 0;
            if (!(q->items = plan->transport->recv(ch, d->from[ch], &q->n, err))) {
                q->n = 0;
                ok = false;
                break;
            }
        }
        items[i] = q->items[q->next++];
    }
    free(d->channels);
    free(d->from);
    *d = (CpuDeferred){0};
    return ok;
}

typedef struct KeepOne {
    RtValue ***outputs;
    int *noutputs;
} KeepOne;

static void keep_one(void *ctx, int set, RtValue **outputs, int noutputs)
{
    (void)set;
    KeepOne *k = ctx;
    *k->outputs = outputs;
    *k->noutputs = noutputs;
}

int backend_cpu_run(const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                    int *noutputs, FILE *err)
{
    *outputs = NULL;
    *noutputs = 0;
    KeepOne k = {outputs, noutputs};
    return backend_cpu_run_sets(plan, 1, &inputs, ninputs, keep_one, &k, err);
}

int backend_cpu_run_sets(const ExecPlan *plan, int nsets, RtValue **const *inputs, int ninputs,
                         CpuDeliver deliver, void *ctx, FILE *err)
{
    static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;
    pthread_once(&buffers_once, keep_buffers);
    /* With several sets on several ranks no run waits for its sends (the
     * transport is flushed after the last) and rank 0 takes the outputs
     * other ranks produce one set late; a single run is as it always was. */
    bool defer = nsets > 1 && plan->transport;
    /* The runs' tensors take their buffers from the plan's pool (and give
     * them back to it, even when dropped after this call). */
    StoragePool *outer_pool = plan->storage_pool ? storage_pool_install(plan->storage_pool) : NULL;
    RtValue **prev = NULL;
    int nprev = 0;
    CpuDeferred prev_deferred = {0}, deferred = {0};
    Arrived *arrived = NULL;
    int narrived = 0;
    bool ok = true;
    for (int i = 0; i <= nsets && ok; i++) {
        RtValue **items = NULL;
        int nitems = 0;
        if (i < nsets)
            ok = run_once(plan, inputs[i], ninputs, &items, &nitems, defer ? &deferred : NULL, err);
        /* Set i-1's outputs, now that set i is under way. */
        if (ok && i > 0 && plan->rank == 0) {
            RtValue **outputs = NULL;
            int noutputs = 0;
            ok = fill_deferred(plan, prev, nprev, &prev_deferred, &arrived, &narrived, err) &&
                 assemble(plan->program, prev, nprev, &outputs, &noutputs, err);
            if (ok)
                deliver(ctx, i - 1, outputs, noutputs);
        }
        release_items(prev, nprev);
        free(prev_deferred.channels);       /* what fill_deferred did not take */
        free(prev_deferred.from);
        prev = items;
        nprev = nitems;
        prev_deferred = deferred;
        deferred = (CpuDeferred){0};
    }
    release_items(prev, nprev);
    free(prev_deferred.channels);
    free(prev_deferred.from);
    for (int a = 0; a < narrived; a++) {
        for (int k = arrived[a].next; k < arrived[a].n; k++)
            rt_release(arrived[a].items[k]);
        free(arrived[a].items);
    }
    free(arrived);
    if (ok && plan->transport && nsets > 1 && !plan->transport->flush(err))
        ok = false;
    if (plan->storage_pool)
        storage_pool_install(outer_pool);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------- the table's entry */

static bool cpu_available(const char **why)
{
    *why = NULL;
    return true;
}

/* The kernels are already compiled and loaded (KERNELS_TARGET_C): nothing
 * to open. */
static void *cpu_prepare(const BackendSetup *setup, FILE *err)
{
    (void)setup;
    (void)err;
    static const char opened = 1;
    return (void *)&opened;
}

static int cpu_run(void *ctx, const ExecPlan *plan, RtValue **inputs, int ninputs, RtValue ***outputs,
                   int *noutputs, FILE *err)
{
    (void)ctx;
    return backend_cpu_run(plan, inputs, ninputs, outputs, noutputs, err);
}

static int cpu_run_sets(void *ctx, const ExecPlan *plan, int nsets, RtValue **const *inputs, int ninputs,
                        CpuDeliver deliver, void *deliver_ctx, FILE *err)
{
    (void)ctx;
    return backend_cpu_run_sets(plan, nsets, inputs, ninputs, deliver, deliver_ctx, err);
}

static void cpu_close(void *ctx)
{
    (void)ctx;
}

/* backends/registry.c lists it: the plan on this CPU, the fused groups as
 * C kernels (compiled by cc, OpenMP over the rank's cores). */
const BackendIface backend_cpu = {
    .name = "cpu",
    .description = "functionalize, lower to a stream graph, schedule\n"
                   "it statically and run the schedule on this CPU",
    .runs_plan = true,
    .kernels_target = KERNELS_TARGET_C,
    .available = cpu_available,
    .prepare = cpu_prepare,
    .run = cpu_run,
    .run_sets = cpu_run_sets,
    .close = cpu_close,
};
