/* phases.c — walking a phase list with its repeats expanded.
 *
 * A SCHED_REPEAT entry at index i runs entries [i - span, i) `firings` more
 * times; those entries ran once already on the way to i. Nested repeats lie
 * wholly inside the span of the repeat around them (the simulator closes an
 * inner loop's turns before the outer turn ends), so a recursive walk over
 * index ranges expands them in order. The depth of the recursion is the
 * nesting of feedback loops.
 */
#include "tssa/schedule.h"

static void run_range(const SchedPhase *phases, int lo, int hi, SchedFire fire, void *ctx)
{
    for (int i = lo; i < hi; i++) {
        if (phases[i].actor != SCHED_REPEAT) {
            fire(phases[i].actor, phases[i].firings, ctx);
            continue;
        }
        for (int64_t r = 0; r < phases[i].firings; r++)
            run_range(phases, i - phases[i].span, i, fire, ctx);
    }
}

void sched_phases_run(const SchedPhase *phases, int n, SchedFire fire, void *ctx)
{
    run_range(phases, 0, n, fire, ctx);
}
