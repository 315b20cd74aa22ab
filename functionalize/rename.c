/* rename.c — every use dominated by tssa::update(new, old) reads new.
 *
 * Precondition: block_propagation ran, so within any block the markers that
 * matter for a use are in that block or in an enclosing one, before the
 * use. One walk in program order keeps, per key, its current version in
 * the key's aux pointer. A marker sets it; leaving a block undoes what the
 * block set (an undo log), since code after the block is not dominated by
 * markers inside it (propagation left a marker after the block for every
 * change that must survive it). Each input of each node is replaced by its
 * current version; a marker's key operand is left alone (it names the key,
 * it is not a read).
 *
 * Linear in nodes plus inputs.
 */
#include <stdlib.h>

#include "functionalize/functionalize_private.h"
#include "tssa/diag.h"
#include "tssa/ir.h"
#include "tssa/ops.h"

typedef struct Undo {
    IrValue *key;
    void *previous;
} Undo;

typedef struct Renamer {
    Undo *log;
    size_t n, cap;
} Renamer;

static IrValue *current(IrValue *v)
{
    return v->aux ? (IrValue *)v->aux : v;
}

static void set_current(Renamer *r, IrValue *key, IrValue *version)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->log = realloc(r->log, sizeof *r->log * r->cap);
        if (!r->log)
            diag_die("out of memory in rename");
    }
    r->log[r->n].key = key;
    r->log[r->n].previous = key->aux;
    r->n++;
    key->aux = version;
}

static void rename_inputs(IrNode *n, int count)
{
    for (int i = 0; i < count; i++) {
        IrValue *v = n->inputs[i];
        IrValue *c = current(v);
        if (c != v)
            ir_node_set_input(n, i, c);
    }
}

static void rename_block(Renamer *r, IrBlock *b)
{
    size_t mark = r->n;
    for (IrNode *n = ir_block_first(b); n != b->ret; n = n->next) {
        if (n->op == OP_TSSA_UPDATE) {
            rename_inputs(n, 1);
            set_current(r, n->inputs[1], n->inputs[0]);
            continue;
        }
        rename_inputs(n, n->ninputs);
        for (int i = 0; i < n->nblocks; i++)
            rename_block(r, n->blocks[i]);
    }
    rename_inputs(b->ret, b->ret->ninputs);
    while (r->n > mark) {
        r->n--;
        r->log[r->n].key->aux = r->log[r->n].previous;
    }
}

/* Every value's aux starts out empty (other passes use it too). */
static void clear_aux(IrNode *n, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < n->noutputs; i++)
        n->outputs[i]->aux = NULL;
    for (int b = 0; b < n->nblocks; b++)
        for (int i = 0; i < ir_block_nparams(n->blocks[b]); i++)
            ir_block_param(n->blocks[b], i)->aux = NULL;
}

void tssa_rename(IrGraph *g)
{
    for (int i = 0; i < ir_block_nparams(g->top); i++)
        ir_block_param(g->top, i)->aux = NULL;
    ir_walk(g->top, clear_aux, NULL);
    Renamer r = {0};
    rename_block(&r, g->top);
    free(r.log);
}
