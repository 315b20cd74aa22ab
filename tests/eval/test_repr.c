/* test_repr.c — str() of tensors on the ref backend against what
 * TorchScript prints (ATen's C++ printer), for cases that reach each of its
 * formats. The expected strings come from torch 1.13 (gen_repr_cases.py ->
 * repr_cases.h).
 */
#include "backends/ref/ref_test_util.h"

#include "eval/repr_cases.h"
#include "tssa/value.h"

int main(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %s : str = aten::str(%x.1)\n"
        "  return (%s)\n");
    if (!g)
        return 1;
    for (size_t k = 0; k < sizeof repr_cases / sizeof repr_cases[0]; k++) {
        const struct ReprCase *rc = &repr_cases[k];
        Tensor *t = tensor_zeros(rc->dtype, rc->ndim, rc->sizes);
        for (int i = 0; i < rc->n; i++)
            tensor_set_flat(t, i, rc->values[i]);
        RtValue *in = rt_tensor(t);
        RunResult r = run_graph(g, &in, 1, NULL);
        CHECK(r.status == 0);
        if (r.status == 0 && strcmp(r.outputs[0]->u.s, rc->expected) != 0) {
            fprintf(stderr, "FAIL case %zu:\n--- expected\n%s\n--- got\n%s\n", k, rc->expected,
                    r.outputs[0]->u.s);
            test_failures++;
        }
        run_result_free(&r);
        rt_release(in);
        tensor_release(t);
    }
    ir_graph_free(g);
    return test_report("ref_repr");
}
