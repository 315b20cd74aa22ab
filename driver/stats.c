/* stats.c — --stats: what a run did, printed to standard error as
 * "tssa-stream: stats: KEY VALUE" lines (rankN.KEY under mpirun): fusion and
 * kernels, op counts per run, the memory plan and the buffer pool, and the
 * backend's own lines (BackendIface.stats: on cuda the device's launches,
 * GEMMs, copies and host ops).
 */
#include <stdio.h>

#include "driver/driver.h"

/* --stats: what the run did, as "tssa-stream: stats: KEY VALUE" lines. */
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
    fprintf(e, "tssa-stream: stats: %sbackend %s\n", tag, r->o->backend->name);
    fprintf(e, "tssa-stream: stats: %sfusion %s\n", tag, r->o->no_fuse ? "off" : "on");
    /* the cores this rank runs on and its OpenMP threads (machine_bind) */
    fprintf(e, "tssa-stream: stats: %scores %d-%d\n", tag, r->binding.first_core,
            r->binding.first_core + r->binding.ncores - 1);
    fprintf(e, "tssa-stream: stats: %sthreads %d\n", tag, r->binding.threads);
    if (r->o->backend->stats && r->backend_ctx)   /* the backend's own (cuda: the device's) */
        r->o->backend->stats(r->backend_ctx, e, tag, runs);
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
