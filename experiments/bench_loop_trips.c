/* bench_loop_trips.c — compile time of loops against their trip count.
 *
 *   bench_loop_trips [TESTS_DIR] [TRIPS ...]   (default: tests, 10 1000 1000000)
 *
 * For each long-loop program of the model corpus (tests/models/long_rnn:
 * a feedback loop; long_batch_map: a data-parallel loop; scalar_steps: a
 * feedback loop of scalar steps; nested_heads: a data-parallel loop around
 * a head loop) and each trip count N, it binds the case's inputs with the
 * trip-count argument set to N and the first input `x` replaced by a zero
 * tensor with N rows (so the program could run N iterations), then times
 * functionalization, specialization + lowering and scheduling (thread CPU
 * microseconds, best of 3) and prints them with the stream graph's actor count and the
 * firings one steady state holds. Nothing runs. Lowering and scheduling
 * must not grow with N: the stream graph is the same size at every N
 * (lower.tripcount.* tests it) and the schedule folds the turns of a
 * feedback loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

typedef struct Program {
    const char *name;
    const char *trip_arg;       /* the int input that bounds the loop */
} Program;

static const Program programs[] = {
    {"long_rnn", "steps"},
    {"long_batch_map", "n"},
    {"scalar_steps", "n"},
    {"nested_heads", "n"},
};

/* The case's args.txt, split into words, with TRIP=N in place of its value
 * and paths made relative to the working directory. */
static int read_args(const char *dir, const char *trip_arg, long long trips, char **words, int max)
{
    char path[1100], line[4096];
    snprintf(path, sizeof path, "%s/args.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        fprintf(stderr, "bench_loop_trips: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    int n = 0;
    for (char *w = strtok(line, " \n"); w && n < max; w = strtok(NULL, " \n")) {
        char buf[2048];
        size_t len = strlen(trip_arg);
        if (strncmp(w, trip_arg, len) == 0 && w[len] == '=')
            snprintf(buf, sizeof buf, "%s=%lld", trip_arg, trips);
        else if (strchr(w, '/'))
            snprintf(buf, sizeof buf, "%.*s%s/%s", (int)(strchr(w, '=') - w + 1), w, dir,
                     strchr(w, '=') + 1);
        else
            snprintf(buf, sizeof buf, "%s", w);
        words[n++] = strdup(buf);
    }
    return n;
}

/* x with its first dim set to `rows`, zeros. */
static RtValue *stretched(const RtValue *x, long long rows)
{
    const Tensor *t = x->u.t;
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    sizes[0] = rows;
    return rt_tensor_take(tensor_zeros(t->dtype, t->ndim, sizes));
}

static void bench(const char *tests, const Program *prog, long long trips)
{
    char dir[1024], model[1200];
    snprintf(dir, sizeof dir, "%s/models/%s", tests, prog->name);
    snprintf(model, sizeof model, "%s/model.ir", dir);
    char *words[64];
    int nwords = read_args(dir, prog->trip_arg, trips, words, 64);
    double best[3] = {1e30, 1e30, 1e30};
    int actors = 0;
    long long firings = 0;
    for (int rep = 0; rep < 3; rep++) {
        IrGraph *g = ir_parse_file(model, stderr);
        RtValue **inputs = NULL;
        int ninputs = 0;
        Safetensors *weights = NULL;
        if (!g || !bindings_resolve(g, nwords, words, NULL, &inputs, &ninputs, &weights, stderr))
            exit(1);
        RtValue *x = stretched(inputs[0], trips);
        rt_release(inputs[0]);
        inputs[0] = x;
        TssaOptions opt;
        tssa_options_default(&opt);
        opt.inputs_disjoint = true;
        TssaReport report;
        double t0 = bench_thread_seconds();
        if (!tssa_functionalize(g, &opt, &report, stderr))
            exit(1);
        double t1 = bench_thread_seconds();
        int status = 0;
        LowerProgram *p = lower_specialize(g, inputs, ninputs, weights, stderr, &status);
        if (!p || !lower_build(p, stderr))
            exit(1);
        double t2 = bench_thread_seconds();
        Schedule *s = sched_build(lower_stream_graph(p)->root, stderr);
        double t3 = bench_thread_seconds();
        if (!s)
            exit(1);
        best[0] = bench_min(best[0], t1 - t0);
        best[1] = bench_min(best[1], t2 - t1);
        best[2] = bench_min(best[2], t3 - t2);
        actors = s->flat->nactors;
        firings = 0;
        for (int a = 0; a < s->flat->nactors; a++)
            firings += s->repetitions[a];
        sched_free(s);
        lower_program_free(p);
        for (int i = 0; i < ninputs; i++)
            rt_release(inputs[i]);
        free(inputs);
        safetensors_close(weights);
        ir_graph_free(g);
    }
    printf("%-16s %10lld %7d %14lld %9.0f %9.0f %9.0f %11.0f\n", prog->name, trips, actors,
           firings, 1e6 * best[0], 1e6 * best[1], 1e6 * best[2], 1e6 * (best[1] + best[2]));
    fflush(stdout);
    for (int i = 0; i < nwords; i++)
        free(words[i]);
}

int main(int argc, char **argv)
{
    const char *tests = argc > 1 ? argv[1] : "tests";
    long long trips[16] = {10, 1000, 1000000};
    int ntrips = 3;
    if (argc > 2) {
        ntrips = 0;
        for (int i = 2; i < argc && ntrips < 16; i++)
            trips[ntrips++] = atoll(argv[i]);
    }
    printf("%-16s %10s %7s %14s %9s %9s %9s %11s\n", "program", "trips", "actors",
           "firings/run", "tssa_us", "lower_us", "sched_us", "lower+sched");
    for (size_t k = 0; k < sizeof programs / sizeof *programs; k++)
        for (int i = 0; i < ntrips; i++)
            bench(tests, &programs[k], trips[i]);
    return 0;
}
