/* bench_parse.c — how fast TorchScript graph text is read and written.
 *
 * For graphs of about 10k, 100k and 1M nodes (gen_graph_text.h: loops,
 * ifs, views, in-place ops, refined types, source comments), measures
 * ir_parse, ir_verify, ir_print (to /dev/null) and ir_graph_free, best of
 * REPEATS runs each (thread CPU time), and reports times and throughput.
 * ir_parse includes its own final ir_verify; the verify column is a second,
 * separate call. Checks along the way
 * that the printed text equals the input (the generator writes exactly what
 * the printer prints), so the benchmark cannot time a broken round trip.
 *
 *   build/experiments/bench_parse [max_nodes]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "gen_graph_text.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"

enum { REPEATS = 3 };

int main(int argc, char **argv)
{
    long max_nodes = argc > 1 ? atol(argv[1]) : 1000000;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink) {
        perror("/dev/null");
        return 1;
    }
    printf("%9s %9s %8s | %9s %9s %9s %9s | %12s %9s\n", "nodes", "lines", "MB", "parse s",
           "verify s", "print s", "free s", "parse+print", "Mnodes/s");
    for (long target = 10000; target <= max_nodes; target *= 10) {
        GenText t = {0};
        gen_graph_text(&t, target);
        long lines = 0;
        for (size_t i = 0; i < t.len; i++)
            lines += t.data[i] == '\n';
        double parse = 1e9, verify = 1e9, print = 1e9, release = 1e9;
        for (int r = 0; r < REPEATS; r++) {
            double t0 = bench_thread_seconds();
            IrGraph *g = ir_parse(t.data, t.len, "bench.ir", stderr);
            double t1 = bench_thread_seconds();
            if (!g)
                return 1;
            if ((long)ir_graph_count_nodes(g) != t.nodes) {
                fprintf(stderr, "parsed %zu nodes, generated %ld\n", ir_graph_count_nodes(g),
                        t.nodes);
                return 1;
            }
            double t2 = bench_thread_seconds();
            bool ok = ir_verify(g, stderr);
            double t3 = bench_thread_seconds();
            ir_print(sink, g);
            fflush(sink);
            double t4 = bench_thread_seconds();
            if (r == 0) {   /* the round trip must be exact */
                char *out = NULL;
                size_t len;
                FILE *mem = open_memstream(&out, &len);
                ir_print(mem, g);
                fclose(mem);
                if (len != t.len || memcmp(out, t.data, len) != 0) {
                    fprintf(stderr, "printed text differs from the generated text\n");
                    return 1;
                }
                free(out);
            }
            double t5 = bench_thread_seconds();
            ir_graph_free(g);
            double t6 = bench_thread_seconds();
            if (!ok)
                return 1;
            parse = bench_min(parse, t1 - t0);
            verify = bench_min(verify, t3 - t2);
            print = bench_min(print, t4 - t3);
            release = bench_min(release, t6 - t5);
        }
        printf("%9ld %9ld %8.1f | %9.4f %9.4f %9.4f %9.4f | %12.4f %9.2f\n", t.nodes, lines,
               (double)t.len / 1e6, parse, verify, print, release, parse + print,
               (double)t.nodes / (parse + print) / 1e6);
        free(t.data);
    }
    fclose(sink);
    return 0;
}
