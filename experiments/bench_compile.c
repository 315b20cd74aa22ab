/* bench_compile.c — the whole compile path on big straight-line graphs.
 *
 *   bench_compile [--reps R] [--driver PATH] [--save DIR] [N ...]
 *                                       (default N: 10000 100000 1000000)
 *
 * For each N it writes straight-line TorchScript graph text of about N nodes
 * in memory (no loops or ifs: the shape of a deep unrolled model), then runs
 * the stages the driver's run_pipeline runs for `--emit=schedule`:
 * ir_parse, bindings_resolve, ir_check_ops, tssa_functionalize,
 * lower_specialize, lower_build, sched_build. It prints the cumulative CPU
 * time after each stage, each stage the fastest of R runs (default 3), and
 * the stream graph's size (filters and scheduled actors), and below it
 * TensorSSA's own stages (TssaReport, each the fastest of R).
 *
 * The graph repeats a block of the ops real models are made of:
 *   relu, matmul, linear, sigmoid, mul (the gate reads linear's result
 *   twice: a short fan-out), view, transpose, slice, tanh, and a residual add
 *   that reads the block's input (a value carried past the whole block);
 *   every 8th block an in-place add_ through the view chain (TensorSSA turns
 *   it functional); every 25th block a skip connection reading the output
 *   of the block 20 before (a value alive across about 200 nodes); and the
 *   last node reads the graph input x (a value alive across the whole
 *   graph). The inputs x (4x8), w (8x8) and b (8) are bound to small .npy
 *   tensors written to a temporary directory; nothing runs.
 *
 * With --driver PATH it also writes the 100k-node graph to a file and times
 * `PATH FILE x=... w=... b=... --emit=schedule >/dev/null` end to end (CPU
 * time of the child process, best of R). With --save DIR the inputs and
 * each graph (DIR/model_N.ir) are written to DIR and kept, for profiling
 * the driver by hand.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "gen_graph_text.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

enum { STAGES = 7 };
static const char *const stage_names[STAGES] = {"parse",      "+bind",  "+check", "+tssa",
                                                "+specialize", "+lower", "+sched"};

/* One block of the straight-line graph; `prev` is the block's input. */
static void gen_block(GenText *t, long i, const char *prev)
{
    gen_node(t, 2, "%%a.%ld : Tensor = aten::relu(%%%s)", i, prev);
    gen_node(t, 2, "%%m.%ld : Tensor = aten::matmul(%%a.%ld, %%w.1)", i, i);
    gen_node(t, 2, "%%l.%ld : Tensor = aten::linear(%%m.%ld, %%w.1, %%b.1)", i, i);
    gen_node(t, 2, "%%g.%ld : Tensor = aten::sigmoid(%%l.%ld)", i, i);
    gen_node(t, 2, "%%p.%ld : Tensor = aten::mul(%%g.%ld, %%l.%ld)", i, i, i);
    gen_node(t, 2, "%%v.%ld : Tensor = aten::view(%%p.%ld, %%shape)", i, i);
    gen_node(t, 2, "%%t.%ld : Tensor = aten::transpose(%%v.%ld, %%c0, %%c1)", i, i);
    gen_node(t, 2, "%%s.%ld : Tensor = aten::slice(%%t.%ld, %%c0, %%c0, %%c2, %%c1)", i, i);
    if (i % 8 == 0)
        gen_node(t, 2, "%%u.%ld : Tensor = aten::add_(%%s.%ld, %%half, %%c1)", i, i);
    gen_node(t, 2, "%%e.%ld : Tensor = aten::tanh(%%s.%ld)", i, i);
    gen_node(t, 2, "%%r.%ld : Tensor = aten::add(%%p.%ld, %%%s, %%c1)", i, i, prev);
    if (i % 25 == 24 && i >= 20) {
        gen_node(t, 2, "%%q.%ld : Tensor = aten::add(%%r.%ld, %%h.%ld, %%c1)", i, i, i - 20);
        gen_node(t, 2, "%%h.%ld : Tensor = aten::mul(%%q.%ld, %%half)", i, i);
    } else {
        gen_node(t, 2, "%%h.%ld : Tensor = aten::mul(%%r.%ld, %%half)", i, i);
    }
    /* The slice's tanh is a second result of the block, summed into the
     * next block's input so it is not dead. */
    gen_node(t, 2, "%%o.%ld : Tensor = aten::sum(%%e.%ld, %%dims, %%false, %%none)", i, i);
    gen_node(t, 2, "%%k.%ld : Tensor = aten::add(%%h.%ld, %%o.%ld, %%c1)", i, i, i);
}

static void gen_straight_graph(GenText *t, long target)
{
    gen_printf(t, "graph(%%x.1 : Tensor,\n      %%w.1 : Tensor,\n      %%b.1 : Tensor):\n");
    gen_node(t, 2, "%%c0 : int = prim::Constant[value=0]()");
    gen_node(t, 2, "%%c1 : int = prim::Constant[value=1]()");
    gen_node(t, 2, "%%c2 : int = prim::Constant[value=2]()");
    gen_node(t, 2, "%%c4 : int = prim::Constant[value=4]()");
    gen_node(t, 2, "%%c8 : int = prim::Constant[value=8]()");
    gen_node(t, 2, "%%half : float = prim::Constant[value=0.5]()");
    gen_node(t, 2, "%%false : bool = prim::Constant[value=0]()");
    gen_node(t, 2, "%%none : NoneType = prim::Constant()");
    gen_node(t, 2, "%%shape : int[] = prim::ListConstruct(%%c8, %%c4)");
    gen_node(t, 2, "%%dims : int[] = prim::ListConstruct(%%c0)");
    char prev[32] = "x.1";
    long i = 0;
    for (; t->nodes < target - 1; i++) {
        gen_block(t, i, prev);
        snprintf(prev, sizeof prev, "k.%ld", i);
    }
    gen_node(t, 2, "%%out : Tensor = aten::add(%%%s, %%x.1, %%c1)", prev);
    gen_printf(t, "  return (%%out)\n");
}

static bool write_inputs(const char *dir)
{
    static const struct {
        const char *name;
        int ndim;
        int64_t shape[2];
    } inputs[] = {{"x", 2, {4, 8}}, {"w", 2, {8, 8}}, {"b", 1, {8}}};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.npy", dir, inputs[k].name);
        Tensor *x = tensor_zeros(DT_F32, inputs[k].ndim, inputs[k].shape);
        bool ok = x && npy_write(path, x, stderr);
        tensor_release(x);
        if (!ok)
            return false;
    }
    return true;
}

typedef struct Sizes {
    long filters, actors;
} Sizes;

/* One compile; stage[k] gets stage k's CPU seconds. */
static bool compile_once(const GenText *t, char **bind, double stage[STAGES], Sizes *sizes,
                         TssaReport *report)
{
    double t0 = bench_process_seconds();
    IrGraph *g = ir_parse(t->data, t->len, "bench.ir", stderr);
    double t1 = bench_process_seconds();
    if (!g)
        return false;
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *weights = NULL;
    bool ok = bindings_resolve(g, 3, bind, NULL, &inputs, &ninputs, &weights, stderr);
    double t2 = bench_process_seconds();
    int ranks[3] = {2, 2, 1};
    ok = ok && ir_check_ops(g, ranks, 3, stderr);
    double t3 = bench_process_seconds();
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.inputs_disjoint = ok && tssa_inputs_disjoint(inputs, ninputs);
    ok = ok && tssa_functionalize(g, &opt, report, stderr);
    double t4 = bench_process_seconds();
    int status = 0;
    LowerProgram *p = ok ? lower_specialize(g, inputs, ninputs, NULL, stderr, &status) : NULL;
    double t5 = bench_process_seconds();
    ok = p && lower_build(p, stderr);
    double t6 = bench_process_seconds();
    Schedule *s = ok ? sched_build(lower_stream_graph(p)->root, stderr) : NULL;
    double t7 = bench_process_seconds();
    ok = s != NULL;
    if (ok) {
        if (lower_stats(p)->whole_graph) {
            fprintf(stderr, "the graph was lowered as one filter: %s\n", lower_stats(p)->why);
            ok = false;
        }
        sizes->filters = lower_stats(p)->filters;
        sizes->actors = s->flat->nactors;
    }
    double times[STAGES + 1] = {t0, t1, t2, t3, t4, t5, t6, t7};
    for (int k = 0; k < STAGES; k++)
        stage[k] = times[k + 1] - times[k];
    sched_free(s);
    lower_program_free(p);
    for (int i = 0; i < ninputs; i++)
        rt_release(inputs[i]);
    free(inputs);
    ir_graph_free(g);
    return ok;
}

/* CPU seconds (user + system) of one run of the driver, or -1. */
static double time_driver(const char *driver, const char *model, const char *dir)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' '%s' x='%s/x.npy' w='%s/w.npy' b='%s/b.npy' "
                              "--emit=schedule >/dev/null", driver, model, dir, dir, dir);
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before);
    int rc = system(cmd);
    getrusage(RUSAGE_CHILDREN, &after);
    if (rc != 0) {
        fprintf(stderr, "failed (%d): %s\n", rc, cmd);
        return -1;
    }
    double user = (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
                  1e-6 * (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec);
    double sys = (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
                 1e-6 * (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
    return user + sys;
}

int main(int argc, char **argv)
{
    long sizes[16];
    int nsizes = 0, reps = 3;
    const char *driver = NULL, *save = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc)
            driver = argv[++i];
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save = argv[++i];
        else if (nsizes < 16)
            sizes[nsizes++] = atol(argv[i]);
    }
    if (nsizes == 0) {
        sizes[0] = 10000;
        sizes[1] = 100000;
        sizes[2] = 1000000;
        nsizes = 3;
    }
    if (reps < 1)
        reps = 1;
    char dir[4096] = "/tmp/bench_compile.XXXXXX";
    if (save)
        snprintf(dir, sizeof dir, "%s", save);
    if ((!save && !mkdtemp(dir)) || !write_inputs(dir)) {
        perror("temporary inputs");
        return 1;
    }
    char bx[4200], bw[4200], bb[4200];
    snprintf(bx, sizeof bx, "x=%s/x.npy", dir);
    snprintf(bw, sizeof bw, "w=%s/w.npy", dir);
    snprintf(bb, sizeof bb, "b=%s/b.npy", dir);
    char *bind[3] = {bx, bw, bb};

    printf("cumulative CPU seconds after each stage, best of %d\n", reps);
    printf("%9s %9s %9s", "nodes", "filters", "actors");
    for (int k = 0; k < STAGES; k++)
        printf(" %11s", stage_names[k]);
    printf("\n");
    int status = 0;
    for (int n = 0; n < nsizes; n++) {
        GenText t = {0};
        gen_straight_graph(&t, sizes[n]);
        double best[STAGES], best_tssa[TSSA_STAGE_COUNT];
        Sizes sz = {0, 0};
        for (int k = 0; k < TSSA_STAGE_COUNT; k++)
            best_tssa[k] = 1e30;
        for (int k = 0; k < STAGES; k++)
            best[k] = 1e30;
        for (int r = 0; r < reps; r++) {
            double stage[STAGES];
            TssaReport report;
            if (!compile_once(&t, bind, stage, &sz, &report)) {
                status = 1;
                break;
            }
            for (int k = 0; k < STAGES; k++)
                best[k] = bench_min(best[k], stage[k]);
            for (int k = 0; k < TSSA_STAGE_COUNT; k++)
                best_tssa[k] = bench_min(best_tssa[k], report.seconds[k]);
        }
        printf("%9ld %9ld %9ld", t.nodes, sz.filters, sz.actors);
        double sum = 0;
        for (int k = 0; k < STAGES; k++) {
            sum += best[k];
            printf(" %11.3f", sum);
        }
        printf("\n%9s  tssa stages:", "");
        for (int k = 0; k < TSSA_STAGE_COUNT; k++)
            printf(" %s %.3f", tssa_stage_name((TssaStage)k), best_tssa[k]);
        printf("\n");
        fflush(stdout);
        char model[4200];
        snprintf(model, sizeof model, "%s/model_%ld.ir", dir, sizes[n]);
        if (save || (driver && sizes[n] == 100000)) {
            FILE *f = fopen(model, "w");
            if (!f || fwrite(t.data, 1, t.len, f) != t.len || fclose(f) != 0) {
                perror(model);
                return 1;
            }
        }
        if (driver && sizes[n] == 100000) {
            double best_driver = 1e30;
            for (int r = 0; r < reps; r++)
                best_driver = bench_min(best_driver, time_driver(driver, model, dir));
            printf("%9ld  %s --emit=schedule: %.3f s CPU\n", t.nodes, driver, best_driver);
            if (!save)
                remove(model);
        }
        free(t.data);
    }
    if (save)
        return status;
    char path[4200];
    for (const char *const *name = (const char *const[]){"x", "w", "b", NULL}; *name; name++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, *name);
        remove(path);
    }
    rmdir(dir);
    return status;
}
