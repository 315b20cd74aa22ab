/* lower_tool.c — the lowering's statistics, for tests and experiments:
 *
 *   lower_tool MODEL.ir [--weights FILE] [NAME=VALUE ...]
 *
 * Runs the driver's stages up to the stream graph (read, bind,
 * functionalize, specialize, lower: the same calls, in the same order) and
 * prints lower_stats_print's "key value" lines. Everything a user sees
 * (--emit=stream|schedule|dot, runs) is tested through tssa-stream itself.
 * Exit status as tssa-stream's.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/lower.h"

int main(int argc, char **argv)
{
    const char *model = NULL, *weights_path = NULL;
    char **bind = calloc((size_t)argc, sizeof *bind);
    int nbind = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--weights") == 0 && i + 1 < argc)
            weights_path = argv[++i];
        else if (strcmp(a, "--stats") == 0)
            ;       /* the only thing it prints; accepted for older scripts */
        else if (a[0] == '-') {
            fprintf(stderr, "lower_tool: unknown option %s\n", a);
            return 2;
        } else if (!model)
            model = a;
        else
            bind[nbind++] = argv[i];
    }
    if (!model) {
        fprintf(stderr, "usage: lower_tool MODEL.ir [--weights FILE] [NAME=VALUE ...]\n");
        return 2;
    }
    IrGraph *g = ir_parse_file(model, stderr);
    if (!g) {
        free(bind);
        return 2;
    }
    RtValue **inputs = NULL;
    int ninputs = 0, status = 2;
    Safetensors *weights = NULL;
    if (bindings_resolve(g, nbind, bind, weights_path, &inputs, &ninputs, &weights, stderr)) {
        TssaOptions opt;
        tssa_options_default(&opt);
        opt.weights = weights;
        opt.inputs_disjoint = tssa_inputs_disjoint(inputs, ninputs);
        status = 1;
        if (tssa_functionalize(g, &opt, NULL, stderr)) {
            LowerProgram *p = lower_specialize(g, inputs, ninputs, weights, stderr, &status);
            if (p && lower_build(p, stderr)) {
                lower_stats_print(stdout, lower_stats(p));
                status = 0;
            } else if (p) {
                status = 1;
            }
            lower_program_free(p);
        }
    }
    for (int i = 0; i < ninputs; i++)
        rt_release(inputs[i]);
    free(inputs);
    safetensors_close(weights);
    ir_graph_free(g);
    free(bind);
    return status;
}
