/* tssa_emit_tool — the TensorSSA stage alone, for tests and experiments:
 *
 *   tssa_emit_tool --emit=tssa|alias MODEL [--weights FILE] [NAME=VALUE ...]
 *   tssa_emit_tool --report [--disjoint] [--dump] [--no-fewer-copies] MODEL
 *
 * The first form prints what `tssa-stream --emit=tssa` prints (through the
 * same function, tssa_emit). The second runs tssa_functionalize with the
 * given options and prints the report (per-program counts and times) on
 * stderr, then the graph; --dump prints the graph after every stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/functionalize.h"
#include "tssa/ir.h"

int main(int argc, char **argv)
{
    const char *model = NULL, *weights = NULL;
    bool alias = false, report = false, disjoint = false, dump = false, fewer = true;
    char **bind = calloc((size_t)argc + 1, sizeof *bind);
    int nbind = 0;
    if (!bind)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--emit=tssa"))
            alias = false;
        else if (!strcmp(argv[i], "--emit=alias"))
            alias = true;
        else if (!strcmp(argv[i], "--report"))
            report = true;
        else if (!strcmp(argv[i], "--disjoint"))
            disjoint = true;
        else if (!strcmp(argv[i], "--dump"))
            dump = true;
        else if (!strcmp(argv[i], "--no-fewer-copies"))
            fewer = false;
        else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
            weights = argv[++i];
        else if (!strncmp(argv[i], "--weights=", 10))
            weights = argv[i] + 10;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "tssa_emit_tool: unknown option %s\n", argv[i]);
            free(bind);
            return 2;
        } else if (!model && !strchr(argv[i], '='))
            model = argv[i];
        else
            bind[nbind++] = argv[i];
    }
    if (!model) {
        fputs("usage: tssa_emit_tool --emit=tssa|alias MODEL [--weights FILE] [--report] [NAME=VALUE ...]\n",
              stderr);
        free(bind);
        return 2;
    }
    IrGraph *g = ir_parse_file(model, stderr);
    if (!g) {
        free(bind);
        return 2;
    }
    int status;
    if (report) {
        TssaOptions opt;
        tssa_options_default(&opt);
        opt.inputs_disjoint = disjoint;
        opt.fewer_copies = fewer;
        opt.dump = dump ? stderr : NULL;
        TssaReport r;
        status = tssa_functionalize(g, &opt, &r, stderr) ? 0 : 1;
        tssa_report_print(stderr, &r);
        ir_print(stdout, g);
    } else {
        status = tssa_emit(stdout, g, alias, nbind, bind, weights, stderr);
    }
    ir_graph_free(g);
    free(bind);
    return status;
}
