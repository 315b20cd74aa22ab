/* bench_util.h — timing helpers the benchmarks share.
 *
 * Benchmarks measure CPU time, not wall time: the development machine is
 * shared, and wall time there measures the neighbours as much as the code.
 * Each stage is repeated and the fastest run kept (bench_min), the usual
 * estimate of the undisturbed cost.
 */
#ifndef TSSA_BENCH_UTIL_H
#define TSSA_BENCH_UTIL_H

#include <time.h>

/* Seconds on clock `id` (a CPU-time clock). */
static inline double bench_clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread. */
static inline double bench_thread_seconds(void)
{
    return bench_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* CPU time of the whole process (all threads, like TssaReport's stage times). */
static inline double bench_process_seconds(void)
{
    return bench_clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

static inline double bench_min(double a, double b)
{
    return a < b ? a : b;
}

#endif
