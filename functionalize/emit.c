/* emit.c — what --emit=tssa prints after the functionalized graph's text.
 *
 * The functionalized graph is printed as TorchScript graph text (ir_print),
 * which reads back with ir_parse and runs on the ref backend, preceded by
 * whole-line '#' comments (the parser skips them) that say under which
 * assumption about the inputs it was made and what changed (tensor writes,
 * and list writes when there are any). Writes left imperative carry their
 * reason in their own node's comment.
 */
#include "tssa/frontend.h"
#include "tssa/functionalize.h"

void tssa_print(FILE *out, const IrGraph *g, const TssaOptions *opt, const TssaReport *r)
{
    fprintf(out, "# tssa: functionalized (TensorSSA); graph inputs %s\n",
            opt->inputs_disjoint ? "bound to tensors that share no storage: the graph assumes they do not alias"
                                 : "may alias each other");
    fprintf(out, "# tssa: nodes %zu -> %zu, in-place writes %zu -> %zu (%zu kept imperative), ",
            r->nodes_before, r->nodes_after, r->mutations_before, r->mutations_after,
            r->imperative_mutations);
    if (r->list_writes_functional || r->list_writes_kept)
        fprintf(out, "list writes %zu (%zu made new versions, %zu kept imperative), ",
                r->list_writes_functional + r->list_writes_kept, r->list_writes_functional,
                r->list_writes_kept);
    fprintf(out, "immut accesses %zu, assigns %zu\n", r->accesses, r->assigns);
    ir_print(out, g);
}
