/* device_speedup.c — the cost model's prediction for --devices N on GPUs:
 * the steady state's time on one device over its time on the placement's
 * N devices (sched_note_devices, printed beside the placement).
 *
 * A work filter firing once on a GPU takes launch_s + max(flops / FP32
 * rate, bytes / memory bandwidth) (the roofline the host's cost model uses,
 * scheduler/partition.c, with the GPU's rates). One device runs every
 * firing one after another. With N devices each device's stream runs its
 * own filters (the schedule after --devices split it; the time on one
 * device comes from the schedule before the split, which may fire fewer,
 * larger kernels), and streams on different GPUs overlap; devices that share
 * a GPU share its time, so a GPU's load is the sum of its devices'. The
 * items a filter on another GPU than device 0 pops and pushes cross a link
 * (latency per firing and bandwidth), and that time adds to its GPU's. The
 * steady state on N devices takes its busiest GPU's time.
 *
 * What it leaves out: work on the host (data movers, host nodes), overlap
 * of launches with kernels on one stream, and kernels of several streams
 * sharing one GPU concurrently (a small kernel leaves room for another).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/schedule.h"
#include "tssa/stream.h"
#include "tssa/util.h"

static double firing_seconds(const StreamFilter *f, const GpuRates *r)
{
    double compute = r->flops_per_s > 0 ? f->flops / r->flops_per_s : 0;
    double memory = r->bytes_per_s > 0 ? f->bytes / r->bytes_per_s : 0;
    return r->launch_s + (compute > memory ? compute : memory);
}

void sched_device_times(const Schedule *s, int ndevices, const GpuRates *r, double *one, double *many)
{
    int ngpus = r->gpus > 0 ? r->gpus : 1;
    double *gpu = xcalloc((size_t)ngpus, sizeof *gpu);
    *one = 0;
    for (int a = 0; a < s->flat->nactors; a++) {
        const StreamActor *actor = &s->flat->actors[a];
        if (actor->kind != ACTOR_FILTER || actor->node->filter.role != FILTER_WORK)
            continue;
        const StreamFilter *f = &actor->node->filter;
        double reps = (double)s->repetitions[a], t = reps * firing_seconds(f, r);
        *one += t;
        int d = f->device >= 0 && f->device < ndevices ? f->device : 0;
        int g = d % ngpus;
        if (g != 0 && r->link_bytes_per_s > 0)
            t += reps * (2 * r->link_latency_s + (f->bytes_in + f->bytes_out) / r->link_bytes_per_s);
        gpu[g] += t;
    }
    *many = 0;
    for (int g = 0; g < ngpus; g++)
        if (gpu[g] > *many)
            *many = gpu[g];
    free(gpu);
}

void sched_note_devices(Schedule *s, int ndevices, const GpuRates *r, double one_s)
{
    if (ndevices < 2)
        return;
    double one, many;
    sched_device_times(s, ndevices, r, &one, &many);
    if (one_s > 0)
        one = one_s;
    double speedup = many > 0 ? one / many : 1;
    char text[768];
    int at = snprintf(text, sizeof text,
                      "devices: %d, predicted %.2fx the steady state of one device (%.3g ms on 1, %.3g ms on %d)",
                      ndevices, speedup, one * 1e3, many * 1e3, ndevices);
    if (r->gpus < ndevices)
        at += snprintf(text + at, sizeof text - (size_t)at,
                       "; the %d devices are logical devices sharing %d GPU%s (they share its time)", ndevices,
                       r->gpus, r->gpus == 1 ? "" : "s");
    else
        at += snprintf(text + at, sizeof text - (size_t)at, " on %d GPUs", r->gpus);
    snprintf(text + at, sizeof text - (size_t)at,
             "; GPU rates: %.3g TFLOP/s, %.3g GB/s, %.3g us per launch, links %.3g GB/s + %.3g us (%s)",
             r->flops_per_s * 1e-12, r->bytes_per_s * 1e-9, r->launch_s * 1e6, r->link_bytes_per_s * 1e-9,
             r->link_latency_s * 1e6, r->source);
    free(s->device_note);
    s->device_note = xstrdup(text);
}
