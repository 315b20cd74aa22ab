/* tssa_report_tool — the TensorSSA stage alone, for debugging and
 * experiments:
 *
 *   tssa_report_tool [--disjoint] [--dump] [--no-fewer-copies] MODEL
 *
 * Runs tssa_functionalize with the given options and prints the report
 * (per-program counts and times) on stderr, then the graph; --dump prints
 * the graph after every stage. What users see (--emit=tssa, --emit=alias)
 * is tested through tssa-stream itself.
 */
#include <stdio.h>
#include <string.h>

#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/ir.h"

int main(int argc, char **argv)
{
    const char *model = NULL;
    bool disjoint = false, dump = false, fewer = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--report"))
            ;       /* the only thing it prints; accepted for older scripts */
        else if (!strcmp(argv[i], "--disjoint"))
            disjoint = true;
        else if (!strcmp(argv[i], "--dump"))
            dump = true;
        else if (!strcmp(argv[i], "--no-fewer-copies"))
            fewer = false;
        else if (argv[i][0] == '-' || model) {
            fprintf(stderr, "tssa_report_tool: unexpected argument %s\n", argv[i]);
            return 2;
        } else
            model = argv[i];
    }
    if (!model) {
        fputs("usage: tssa_report_tool [--disjoint] [--dump] [--no-fewer-copies] MODEL\n", stderr);
        return 2;
    }
    IrGraph *g = ir_parse_file(model, stderr);
    if (!g)
        return 2;
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.inputs_disjoint = disjoint;
    opt.fewer_copies = fewer;
    opt.dump = dump ? stderr : NULL;
    TssaReport r;
    int status = tssa_functionalize(g, &opt, &r, stderr) ? 0 : 1;
    tssa_report_print(stderr, &r);
    ir_print(stdout, g);
    ir_graph_free(g);
    return status;
}
