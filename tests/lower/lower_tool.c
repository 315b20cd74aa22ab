/* lower_tool.c — the lowering and the cpu backend from the command line,
 * for tests (until the driver wires --backend=cpu and --emit=stream for .ir
 * models, and afterwards for the statistics):
 *   lower_tool [--backend=cpu] [--emit=stream|schedule|dot] [--json] [--stats]
 *              [--weights FILE] [-o DIR] MODEL.ir [NAME=VALUE ...]
 * Without --emit or --stats it runs MODEL on the cpu backend like
 * `tssa-stream --backend=cpu` (outputs to -o DIR, or a summary). --stats
 * prints the lowering's statistics (lower_stats_print's lines). Exit status
 * as tssa-stream's.
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/backend.h"
#include "tssa/io.h"
#include "tssa/lower.h"

int main(int argc, char **argv)
{
    const char *model = NULL, *weights_path = NULL, *outdir = NULL, *emit = NULL;
    bool json = false, stats = false;
    char **bind = calloc((size_t)argc, sizeof *bind);
    int nbind = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--weights") == 0 && i + 1 < argc)
            weights_path = argv[++i];
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            outdir = argv[++i];
        else if (strncmp(a, "--emit=", 7) == 0)
            emit = a + 7;
        else if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "--stats") == 0)
            stats = true;
        else if (strcmp(a, "--backend=cpu") == 0)
            ;
        else if (a[0] == '-') {
            fprintf(stderr, "lower_tool: unknown option %s\n", a);
            return 2;
        } else if (!model)
            model = a;
        else
            bind[nbind++] = argv[i];
    }
    if (!model) {
        fprintf(stderr, "usage: lower_tool [options] MODEL.ir [NAME=VALUE ...]\n");
        return 2;
    }
    IrGraph *g = ir_parse_file(model, stderr);
    if (!g) {
        free(bind);
        return 2;
    }
    int status = 0;
    if (emit) {
        int what = strcmp(emit, "stream") == 0     ? 0
                   : strcmp(emit, "schedule") == 0 ? (json ? 2 : 1)
                   : strcmp(emit, "dot") == 0      ? 3
                                                   : -1;
        if (what < 0) {
            fprintf(stderr, "lower_tool: unknown stage %s\n", emit);
            status = 2;
        } else {
            status = lower_emit(stdout, g, what, nbind, bind, weights_path, stderr);
        }
        ir_graph_free(g);
        free(bind);
        return status;
    }
    RtValue **inputs = NULL, **outputs = NULL;
    int ninputs = 0, noutputs = 0;
    Safetensors *weights = NULL;
    if (!bindings_resolve(g, nbind, bind, weights_path, &inputs, &ninputs, &weights, stderr)) {
        status = 2;
    } else if (stats) {
        LowerProgram *p = lower_compile(g, inputs, ninputs, weights, stderr, &status);
        if (p) {
            const LowerStats *st = lower_stats(p);
            lower_stats_print(stdout, st);
        }
        lower_program_free(p);
    } else {
        status = backend_cpu_run(g, inputs, ninputs, weights, &outputs, &noutputs, stderr);
        if (status == 0) {
            if (outdir) {
                if (!outputs_write(outdir, outputs, noutputs, stderr))
                    status = 1;
            } else {
                outputs_summarize(stdout, outputs, noutputs);
            }
        }
    }
    for (int i = 0; i < noutputs; i++)
        rt_release(outputs[i]);
    free(outputs);
    for (int i = 0; i < ninputs; i++)
        rt_release(inputs[i]);
    free(inputs);
    safetensors_close(weights);
    ir_graph_free(g);
    free(bind);
    return status;
}
