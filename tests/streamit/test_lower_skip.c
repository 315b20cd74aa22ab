/* test_lower_skip.c — values carried past many layers skip them.
 *
 * The lowering carries a live value through each layer with an Identity;
 * a value not read for SKIP_MIN_LAYERS (8) layers or more instead rides one
 * Identity beside a pipeline of those layers (lower_build.c, "Skips"). Each
 * program here is a chain (one layer per node) reading its inputs again
 * near the end; the stream text must show the skips (or, for short carries,
 * none), and the lowered program run on the cpu backend must give exactly
 * what the interpreter gives for the same program.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/backend.h"
#include "tssa/frontend.h"
#include "tssa/lower.h"
#include "tssa/schedule.h"
#include "tssa/stream.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

/* graph(%x.1, %y.1): t0 = neg(y), then a chain of `chain` unary ops; y is
 * read again after `y_use` of them and x only by the last node (sub: the
 * order of the operands counts), so
 * x lives across the whole chain and y across its first part. */
static char *chain_text(int chain, int y_use)
{
    static const char *const ops[] = {"aten::sin", "aten::cos", "aten::neg", "aten::tanh"};
    size_t cap = 4096 + (size_t)chain * 128, n = 0;
    char *s = malloc(cap);
    if (!s)
        abort();
    n += (size_t)snprintf(s + n, cap - n, "graph(%%x.1 : Tensor,\n      %%y.1 : Tensor):\n"
                                          "  %%c1 : int = prim::Constant[value=1]()\n"
                                          "  %%t0 : Tensor = aten::neg(%%y.1)\n");
    for (int k = 1; k <= chain; k++) {
        if (k == y_use)
            n += (size_t)snprintf(s + n, cap - n, "  %%t%d : Tensor = aten::sub(%%t%d, %%y.1, %%c1)\n", k,
                                  k - 1);
        else
            n += (size_t)snprintf(s + n, cap - n, "  %%t%d : Tensor = %s(%%t%d)\n", k, ops[k % 4], k - 1);
    }
    snprintf(s + n, cap - n, "  %%r : Tensor = aten::sub(%%t%d, %%x.1, %%c1)\n  return (%%r)\n", chain);
    return s;
}

static int count(const char *text, const char *part)
{
    int c = 0;
    for (const char *p = text; (p = strstr(p, part)) != NULL; p += strlen(part))
        c++;
    return c;
}

static RtValue *vector_value(int n, double start)
{
    int64_t size = n;
    Tensor *t = tensor_zeros(DT_F32, 1, &size);
    float *d = (float *)tensor_data(t);
    for (int i = 0; i < n; i++)
        d[i] = (float)(start + 0.25 * i);
    RtValue *v = rt_tensor(t);
    tensor_release(t);
    return v;
}

/* Lowers text, checks the stream text with `check`, runs it on the cpu
 * backend and the interpreter, and compares the outputs element by element. */
static void lower_and_run(const char *text, void (*check)(const char *stream))
{
    IrGraph *g = ir_parse(text, strlen(text), "skip.ir", stderr);
    IrGraph *ref = ir_parse(text, strlen(text), "skip.ir", stderr);
    CHECK(g && ref);
    if (!g || !ref)
        return;
    RtValue *inputs[2] = {vector_value(4, -0.5), vector_value(4, 0.3)};
    int status = 0;
    LowerProgram *p = lower_specialize(g, inputs, 2, NULL, stderr, &status);
    CHECK(p && lower_build(p, stderr));
    Schedule *s = p ? sched_build(lower_stream_graph(p)->root, stderr) : NULL;
    CHECK(s != NULL);
    if (s) {
        FILE *f = test_capture_open();
        str_print(f, lower_stream_graph(p)->root);
        char *stream = test_capture_close(f, NULL);
        check(stream);
        free(stream);

        RtValue **cpu = NULL, **want = NULL;
        int ncpu = 0, nwant = 0;
        ExecPlan plan = {.program = p, .schedule = s};
        CHECK(backend_cpu_run(&plan, inputs, 2, &cpu, &ncpu, stderr) == 0);
        CHECK(backend_ref_run(ref, inputs, 2, NULL, &want, &nwant, stderr) == 0);
        CHECK(ncpu == 1 && nwant == 1);
        if (ncpu == 1 && nwant == 1) {
            const Tensor *a = cpu[0]->u.t, *b = want[0]->u.t;
            CHECK(tensor_numel(a) == 4 && tensor_numel(b) == 4);
            const float *da = (const float *)tensor_data(a), *db = (const float *)tensor_data(b);
            for (int i = 0; i < 4; i++)
                CHECK_MSG(da[i] == db[i], "element %d: cpu %g, interpreter %g", i, da[i], db[i]);
        }
        for (int i = 0; i < ncpu; i++)
            rt_release(cpu[i]);
        for (int i = 0; i < nwant; i++)
            rt_release(want[i]);
        free(cpu);
        free(want);
    }
    sched_free(s);
    lower_program_free(p);
    rt_release(inputs[0]);
    rt_release(inputs[1]);
    ir_graph_free(g);
    ir_graph_free(ref);
}

/* Layers 0..25: x skips layers 0..24 in one split-join (one Identity
 * instead of 25; layer 25 reads it); inside it y, read by layer 0, skips
 * layers 1..11 (read again at layer 12). */
static void check_nested(const char *stream)
{
    CHECK_CONTAINS(stream, "splitjoin Skip0_24 {");
    CHECK_CONTAINS(stream, "pipeline Layers0_24 {");
    CHECK_CONTAINS(stream, "splitjoin Skip1_11 {");
    CHECK_MSG(count(stream, "identity pass_x_1;") == 1, "x passes %d layers one by one",
              count(stream, "identity pass_x_1;"));
    CHECK_MSG(count(stream, "identity pass_y_1;") == 2, "y: %d identities (layer 0 and the skip)",
              count(stream, "identity pass_y_1;"));
}

/* 6 layers: carries too short to skip; one stage per layer, as before. */
static void check_short(const char *stream)
{
    CHECK(strstr(stream, "Skip") == NULL);
    CHECK(count(stream, "identity pass_x_1;") == 6);
}

int main(void)
{
    char *nested = chain_text(24, 12);
    lower_and_run(nested, check_nested);
    free(nested);
    char *short_chain = chain_text(5, 3);
    lower_and_run(short_chain, check_short);
    free(short_chain);
    return test_report("test_lower_skip");
}
