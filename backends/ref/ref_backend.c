/* ref_backend.c — backend_ref_run: the oracle every other backend is checked
 * against.
 *
 * It runs the program as written, imperative and unfunctionalized, through
 * the evaluator (eval/): the graph's inputs are put in their slots, the top
 * block runs node by node, and the block's results are the outputs. Views and
 * in-place ops share storage exactly as in PyTorch, so mutation through any
 * alias is seen by every other.
 */
#include <stdlib.h>

#include "tssa/backend.h"
#include "tssa/eval.h"

int backend_ref_run(IrGraph *g, RtValue **inputs, int ninputs, const Safetensors *weights,
                    RtValue ***outputs, int *noutputs, FILE *err)
{
    *outputs = NULL;
    *noutputs = 0;
    IrBlock *top = g->top;
    if (ninputs != ir_block_nparams(top)) {
        if (err)
            fprintf(err, "%s: error: the graph has %d inputs, %d were given\n",
                    g->file ? g->file : "<graph>", ir_block_nparams(top), ninputs);
        return 1;
    }
    NodeExec *x = node_exec_new(g, weights, err);
    for (int i = 0; i < ninputs; i++)
        node_exec_set(x, ir_block_param(top, i), rt_retain(inputs[i]));
    bool ok = node_exec_block(x, top);
    if (ok) {
        int n = ir_block_nreturns(top);
        RtValue **out = xcalloc((size_t)n, sizeof *out);
        for (int i = 0; i < n; i++)
            out[i] = rt_retain(node_exec_get(x, ir_block_return(top, i)));
        *outputs = out;
        *noutputs = n;
    }
    node_exec_free(x);
    return ok ? 0 : 1;
}

static bool ref_available(const char **why)
{
    *why = NULL;
    return true;
}

/* The table's entry (backends/registry.c): the imperative graph as written,
 * none of the plan's stages. */
const BackendIface backend_ref = {
    .name = "ref",
    .description = "the imperative interpreter, PyTorch's semantics\n"
                   "op by op (the oracle every backend is checked against)",
    .runs_plan = false,
    .available = ref_available,
    .run_graph = backend_ref_run,
};
