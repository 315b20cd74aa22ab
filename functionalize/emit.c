/* emit.c — what the driver's --emit=tssa and --emit=alias print.
 *
 * The functionalized graph is printed as TorchScript graph text (ir_print),
 * which reads back with ir_parse and runs on the ref backend, preceded by
 * whole-line '#' comments (the parser skips them) that say under which
 * assumption about the inputs it was made and what changed. Writes left
 * imperative carry their reason in their own node's comment.
 */
#include <stdlib.h>

#include "tssa/backend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"

static void release_all(RtValue **values, int n)
{
    for (int i = 0; i < n; i++)
        rt_release(values[i]);
    free(values);
}

int tssa_emit(FILE *out, IrGraph *g, bool alias, int nbind, char **bind, const char *weights_path,
              FILE *err)
{
    TssaOptions opt;
    tssa_options_default(&opt);
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *weights = NULL;
    if (nbind > 0) {
        if (!bindings_resolve(g, nbind, bind, weights_path, &inputs, &ninputs, &weights, err))
            return 2;
        opt.inputs_disjoint = tssa_inputs_disjoint(inputs, ninputs);
    } else if (weights_path) {
        weights = safetensors_open(weights_path, err);
        if (!weights)
            return 2;
    }
    opt.weights = weights;

    int status = 0;
    if (alias) {
        tssa_print_alias(out, g, &opt);
    } else {
        TssaReport r;
        if (!tssa_functionalize(g, &opt, &r, err)) {
            status = 1;
        } else {
            fprintf(out, "# tssa: functionalized (TensorSSA); graph inputs %s\n",
                    opt.inputs_disjoint ? "bound to tensors that share no storage: the graph assumes they do not alias"
                                        : "may alias each other");
            fprintf(out, "# tssa: nodes %zu -> %zu, in-place writes %zu -> %zu (%zu kept imperative), "
                         "immut accesses %zu, assigns %zu\n",
                    r.nodes_before, r.nodes_after, r.mutations_before, r.mutations_after,
                    r.imperative_mutations, r.accesses, r.assigns);
            ir_print(out, g);
        }
    }
    release_all(inputs, ninputs);
    safetensors_close(weights);
    return status;
}
