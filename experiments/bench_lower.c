/* bench_lower.c — lowering plus scheduling of generated graphs.
 *
 *   bench_lower [N ...]      (default: 10000 100000 1000000)
 *
 * For each N it builds, with the IR API, a functional graph of N work nodes
 * on one tensor input: node k is aten::add(t[k-1], t[k-3]) every third
 * node and aten::relu(t[k-1]) otherwise, so values fan out and are carried
 * past their neighbours (not a plain chain: the layered lowering must carry
 * live values through Identity branches), and returns the last value. It
 * then times lower_specialize + lower_build (specialization + stream construction) and
 * sched_build (repetitions, phases, buffers) separately and prints one line
 * per N:  nodes, filters, actors, lower seconds, schedule seconds, total.
 * Nothing runs: the input tensor is only bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/value.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static IrGraph *make_graph(int n)
{
    IrGraph *g = ir_graph_new();
    IrValue **t = malloc(((size_t)n + 1) * sizeof *t);
    if (!t)
        abort();
    t[0] = ir_block_add_param(g->top, ir_type_tensor(g), "x");
    IrNode *one = ir_node_new(g, "prim::Constant");
    ir_attr_set_int(one, "value", 1);
    IrValue *alpha = ir_node_add_output(one, ir_type_simple(g, TY_INT), NULL);
    ir_append(g->top, one);
    for (int k = 1; k <= n; k++) {
        bool add = k % 3 == 0 && k >= 3;
        IrNode *node = ir_node_new(g, add ? "aten::add" : "aten::relu");
        ir_node_add_input(node, t[k - 1]);
        if (add) {
            ir_node_add_input(node, t[k - 3]);
            ir_node_add_input(node, alpha);
        }
        t[k] = ir_node_add_output(node, ir_type_tensor(g), NULL);
        ir_append(g->top, node);
    }
    ir_block_add_return(g->top, t[n]);
    free(t);
    return g;
}

int main(int argc, char **argv)
{
    int sizes[16], nsizes = 0;
    for (int i = 1; i < argc && nsizes < 16; i++)
        sizes[nsizes++] = atoi(argv[i]);
    if (nsizes == 0) {
        sizes[0] = 10000;
        sizes[1] = 100000;
        sizes[2] = 1000000;
        nsizes = 3;
    }
    printf("%10s %10s %10s %10s %10s %10s\n", "nodes", "filters", "actors", "lower_s", "sched_s",
           "total_s");
    int64_t shape[1] = {4};
    Tensor *x = tensor_zeros(DT_F32, 1, shape);
    RtValue *input = rt_tensor(x);
    for (int i = 0; i < nsizes; i++) {
        IrGraph *g = make_graph(sizes[i]);
        int status;
        double t0 = now();
        LowerProgram *p = lower_specialize(g, &input, 1, NULL, stderr, &status);
        if (!p || !lower_build(p, stderr))
            return 1;
        double t1 = now();
        Schedule *s = sched_build(lower_stream_graph(p)->root, stderr);
        double t2 = now();
        if (!s)
            return 1;
        printf("%10d %10d %10d %10.3f %10.3f %10.3f\n", sizes[i], lower_stats(p)->filters,
               s->flat->nactors, t1 - t0, t2 - t1, t2 - t0);
        fflush(stdout);
        sched_free(s);
        lower_program_free(p);
        ir_graph_free(g);
    }
    rt_release(input);
    tensor_release(x);
    return 0;
}
