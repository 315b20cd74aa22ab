/* stats.c — --stats: what a run did, printed to standard error as
 * "tssa-stream: stats: KEY VALUE" lines (rankN.KEY under mpirun): fusion and
 * kernels, op counts per run, the memory plan and the buffer pool, and on
 * --backend=cuda the device's launches, GEMMs, copies and host ops.
 */
#include <stdio.h>

#include "driver/driver.h"

/* --stats: what the run did, as "tssa-stream: stats: KEY VALUE" lines. */
#ifdef TSSA_USE_CUDA
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
#endif

bool print_stats(Run *r)
{
    if (!r->o->stats)
        return true;
    /* Under mpirun every rank reports what it ran: keys rank0.KEY, rank1.KEY... */
    char tag[32] = "";
    if (world_size() > 1)
        snprintf(tag, sizeof tag, "rank%d.", world_rank());
    int runs = 1 + r->o->repeat;
    EvalTally ops = eval_tally();
    const KernelsStats *ks = r->kernels ? kernels_stats(r->kernels) : NULL;
    FILE *e = stderr;
    fprintf(e, "tssa-stream: stats: %sbackend %s\n", tag, r->o->backend == BACKEND_CUDA ? "cuda" : "cpu");
    fprintf(e, "tssa-stream: stats: %sfusion %s\n", tag, r->o->no_fuse ? "off" : "on");
#ifdef TSSA_USE_CUDA
    if (r->cuda) {
        CudaStats cs = cuda_backend_stats(r->cuda);
        fprintf(e, "tssa-stream: stats: %sdevice %s\n", tag, cs.device);
        fprintf(e, "tssa-stream: stats: %slaunches_per_run %.6g\n", tag, (double)cs.launches / runs);
        fprintf(e, "tssa-stream: stats: %sgemms_per_run %.6g\n", tag, (double)cs.gemms / runs);
        fprintf(e, "tssa-stream: stats: %shost_nodes_per_run %.6g\n", tag, (double)cs.host_nodes / runs);
        print_host_ops(e, tag, &cs, runs);
        fprintf(e, "tssa-stream: stats: %sbytes_to_device_per_run %.6g\n", tag,
                (double)cs.bytes_to_device / runs);
        fprintf(e, "tssa-stream: stats: %sbytes_to_host_per_run %.6g\n", tag, (double)cs.bytes_to_host / runs);
        fprintf(e, "tssa-stream: stats: %scopies_to_device_per_run %.6g\n", tag,
                (double)cs.copies_to_device / runs);
        fprintf(e, "tssa-stream: stats: %scopies_to_host_per_run %.6g\n", tag, (double)cs.copies_to_host / runs);
        fprintf(e, "tssa-stream: stats: %sstrided_inputs_per_run %.6g\n", tag,
                (double)cs.strided_inputs / runs);
        fprintf(e, "tssa-stream: stats: %speak_device_bytes %lld\n", tag, (long long)cs.peak_device_bytes);
        fprintf(e, "tssa-stream: stats: %sdevice_allocations %lld\n", tag, (long long)cs.device_allocations);
    }
#endif
    if (ks) {
        fprintf(e, "tssa-stream: stats: %sfused_groups %d\n", tag, ks->groups);
        fprintf(e, "tssa-stream: stats: %snodes_fused %d\n", tag, ks->nodes_fused);
        fprintf(e, "tssa-stream: stats: %skernels %d\n", tag, ks->kernels);
        fprintf(e, "tssa-stream: stats: %sgroups_interpreted %d%s%s\n", tag, ks->interpreted,
                ks->interpreted_why ? " first because: " : "",
                ks->interpreted_why ? ks->interpreted_why : "");
        fprintf(e, "tssa-stream: stats: %skernels_per_run %.6g\n", tag, (double)ks->launches / runs);
        fprintf(e, "tssa-stream: stats: %sgroups_interpreted_per_run %.6g\n", tag,
                (double)ks->fallbacks / runs);
        fprintf(e, "tssa-stream: stats: %sinputs_copied_per_run %.6g\n", tag, (double)ks->copies / runs);
        fprintf(e, "tssa-stream: stats: %scompile_s %.4f\n", tag, ks->compile_s);
        fprintf(e, "tssa-stream: stats: %scache %s\n", tag,
                ks->kernels == 0 ? "unused" : ks->compiled ? "miss" : "hit");
    }
    fprintf(e, "tssa-stream: stats: %slibrary_calls_per_run %.6g\n", tag, (double)ops.library / runs);
    fprintf(e, "tssa-stream: stats: %sfallbacks_per_run %.6g\n", tag, (double)ops.reference / runs);
    fprintf(e, "tssa-stream: stats: %sviews_per_run %.6g\n", tag, (double)ops.views / runs);
    fprintf(e, "tssa-stream: stats: %sfilters %d\n", tag, lower_stats(r->program)->work_filters);
    KernelsMemory mem = kernels_plan_memory(r->program);
    fprintf(e, "tssa-stream: stats: %sbytes_planned %lld\n", tag, (long long)mem.bytes_planned);
    fprintf(e, "tssa-stream: stats: %sbytes_without_reuse %lld\n", tag, (long long)mem.bytes_naive);
    fprintf(e, "tssa-stream: stats: %stensors_planned %d\n", tag, mem.values_planned);
    fprintf(e, "tssa-stream: stats: %stensors_of_unknown_shape %d\n", tag, mem.values_unknown);
    /* tensor buffers malloc'd by the first run and by the last (0 once the
     * pool serves every tensor from the buffers earlier runs gave back) */
    fprintf(e, "tssa-stream: stats: %sallocations_first_run %lld\n", tag,
            (long long)r->pool.first_run_allocations);
    fprintf(e, "tssa-stream: stats: %sallocations_last_run %lld\n", tag, (long long)r->pool.last_run_allocations);
    fprintf(e, "tssa-stream: stats: %spool_bytes_held %lld\n", tag, (long long)r->pool.peak_bytes_held);
    fprintf(e, "tssa-stream: stats: %spool_bytes_cap %lld\n", tag, (long long)r->pool.cap_bytes);
    return true;
}
