/* bench_schedule.c — how fast stream graphs are read and scheduled.
 *
 * Generates .str text for graphs of about 10k, 100k and 1M filters and
 * measures str_parse (text to graph), sched_build (balance equations, init
 * phase, simulated steady phase, buffers) and, for reference, str_print
 * (to /dev/null); best of REPEATS runs (thread CPU time: the development
 * machine is shared). Checks along the way that the schedule has one actor
 * per filter, splitter and joiner and that every filter fires, so the
 * benchmark cannot time a broken schedule.
 *
 * The generated graph is a pipeline Source -> groups -> Sink; a group is a
 * pipeline of 100 blocks, each block (chosen in turn) one of
 *   fir       pipeline { FIR pop 1 peek 8 push 1; Down pop 2 push 1;
 *                        Up pop 1 push 2 }                       3 filters
 *   bands     pipeline { splitjoin duplicate of 4 two-filter pipelines,
 *                        joiner roundrobin(1 x 4); Sum pop 4 push 1 }  9 filters
 *   pair      splitjoin roundrobin(2, 2) { pop 2 push 2; pop 1 push 1 }
 *                        joiner roundrobin(2, 2)                 2 filters
 *   echo      feedbackloop { joiner roundrobin(1, 1); body pop 2 push 1;
 *                        loop pop 1 push 1; duplicate; enqueue 1 }  2 filters
 * so rates vary, peeks need an init phase, and feedback loops interleave.
 *
 *   build/experiments/bench_schedule [max_filters]
 *
 * Results on the development machine (2 shared cores, RelWithDebInfo,
 * thread CPU time, best of 3; one run at 1M):
 *
 *     filters    actors    phases      MB |  parse s schedule s  print s |   total s
 *       10000     13750     33093     0.8 |    0.017     0.013    0.006 |     0.029
 *      100000    137500    331218     7.7 |    0.148     0.139    0.060 |     0.286
 *     1000000   1375000   3312468    76.8 |    1.637     1.788    0.509 |     3.425
 *
 * Parse plus schedule grows linearly (x9.9, then x12 with the 1M graph's
 * memory traffic); 100k filters take well under the 1 s target.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"

enum { REPEATS = 3, BLOCKS_PER_GROUP = 100 };

/* Writes the graph; returns the number of filters. */
static long generate(FILE *out, long target_filters)
{
    long filters = 2, block = 0, group = 0;
    fputs("pipeline Bench {\n  filter Source push 1 work source;\n", out);
    while (filters < target_filters) {
        fprintf(out, "  pipeline G%ld {\n", group++);
        for (int b = 0; b < BLOCKS_PER_GROUP && filters < target_filters; b++, block++) {
            switch (block % 4) {
            case 0:
                fprintf(out,
                        "    pipeline Fir%ld {\n"
                        "      filter FIR pop 1 peek 8 push 1 work fir;\n"
                        "      filter Down pop 2 push 1 work downsample;\n"
                        "      filter Up pop 1 push 2 work upsample;\n"
                        "    }\n",
                        block);
                filters += 3;
                break;
            case 1:
                fprintf(out, "    pipeline Bands%ld {\n      splitjoin Split {\n        split duplicate;\n", block);
                for (int k = 0; k < 4; k++)
                    fprintf(out,
                            "        pipeline Band%d {\n"
                            "          filter Scale pop 1 push 1 work mul;\n"
                            "          filter Shift pop 1 push 1 work add;\n"
                            "        }\n",
                            k);
                fputs("        join roundrobin(1, 1, 1, 1);\n      }\n"
                      "      filter Sum pop 4 push 1 work sum;\n    }\n",
                      out);
                filters += 9;
                break;
            case 2:
                fprintf(out,
                        "    splitjoin Pair%ld {\n"
                        "      split roundrobin(2, 2);\n"
                        "      filter Wide pop 2 push 2 work swap;\n"
                        "      filter Narrow pop 1 push 1 work neg;\n"
                        "      join roundrobin(2, 2);\n"
                        "    }\n",
                        block);
                filters += 2;
                break;
            default:
                fprintf(out,
                        "    feedbackloop Echo%ld {\n"
                        "      join roundrobin(1, 1);\n"
                        "      body filter Add pop 2 push 1 work add;\n"
                        "      loop filter Delay pop 1 push 1 stateful work delay;\n"
                        "      split duplicate;\n"
                        "      enqueue 1;\n"
                        "    }\n",
                        block);
                filters += 2;
                break;
            }
        }
        fputs("  }\n", out);
    }
    fputs("  filter Sink pop 1 work sink;\n}\n", out);
    return filters;
}

int main(int argc, char **argv)
{
    long max_filters = argc > 1 ? atol(argv[1]) : 1000000;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink) {
        perror("/dev/null");
        return 1;
    }
    printf("%9s %9s %9s %7s | %8s %9s %8s | %9s %10s\n", "filters", "actors", "phases", "MB", "parse s",
           "schedule s", "print s", "total s", "kfilters/s");
    for (long target = 10000; target <= max_filters; target *= 10) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        long filters = generate(m, target);
        fclose(m);
        double parse = 1e9, schedule = 1e9, print = 1e9;
        int actors = 0, phases = 0;
        int repeats = target >= 1000000 ? 1 : REPEATS;
        for (int r = 0; r < repeats; r++) {
            double t0 = bench_thread_seconds();
            StreamGraph *g = str_parse(text, len, "bench.str", stderr);
            double t1 = bench_thread_seconds();
            if (!g)
                return 1;
            Schedule *s = sched_build(g->root, stderr);
            double t2 = bench_thread_seconds();
            if (!s)
                return 1;
            str_print(sink, g->root);
            double t3 = bench_thread_seconds();
            parse = bench_min(parse, t1 - t0);
            schedule = bench_min(schedule, t2 - t1);
            print = bench_min(print, t3 - t2);
            actors = s->flat->nactors;
            phases = s->ninit + s->nsteady;
            long filter_actors = 0;
            for (int a = 0; a < s->flat->nactors; a++) {
                if (s->flat->actors[a].kind != ACTOR_FILTER)
                    continue;
                filter_actors++;
                if (s->repetitions[a] <= 0) {
                    fprintf(stderr, "bench_schedule: a filter does not fire\n");
                    return 1;
                }
            }
            if (filter_actors != filters) {
                fprintf(stderr, "bench_schedule: %ld filters in the schedule, %ld generated\n", filter_actors, filters);
                return 1;
            }
            sched_free(s);
            stream_graph_free(g);
        }
        double total = parse + schedule;
        printf("%9ld %9d %9d %7.1f | %8.3f %9.3f %8.3f | %9.3f %10.0f\n", filters, actors, phases, (double)len / 1e6,
               parse, schedule, print, total, (double)filters / total / 1e3);
        fflush(stdout);
        free(text);
    }
    fclose(sink);
    return 0;
}
