/* fold_decided.c — what the static shapes decide, folded away.
 *
 * Specialization folds the scalar work of the top level; inside a loop's
 * body the scalars that test a carried tensor's rank (a GRUCell's
 * `if input.dim() not in (1, 2): raise`, `is_batched = input.dim() == 2`)
 * stay run-time values, so the body keeps Ifs that every iteration takes
 * the same way and whose joined results have no static shape: nothing
 * around them fuses. Once shape_infer has typed the body, they are known.
 *
 * The rule that decides a scalar is kernels_decide_scalar
 * (kernels/decide_scalar.c), which shape_infer follows too.
 *
 * kernels_fold_decided is the pass. Preconditions: shape_infer ran, the
 * graph is functional. Result, in program order (nested blocks included):
 *   - a decided scalar's uses read a new prim::Constant at the top level (a
 *     compile-time value of the program: inside a body the lowering would
 *     take it for the body's work); the node that computed it goes;
 *   - a prim::If whose condition is decided is replaced by its taken block;
 *   - tssa::inplace_check(r, self) whose r and self have the same static
 *     shape and dtype checks nothing: its uses read r, and the node goes
 *     (a run-time call that also kept fusion from spanning an in-place
 *     write's two halves); so does prim::unchecked_cast of a tensor of
 *     static type (an Optional's refinement);
 *   - immut::assign(base, v) of one static shape and dtype is v: its uses
 *     read v, and the node goes;
 *   - aten::dropout(x, p, train) whose train is decided false is x: ATen's
 *     _dropout_impl returns its input itself then (an eval-mode nn.Dropout,
 *     two in every timm Mlp: left in, each was a reference-kernel copy per
 *     run), and its uses read x;
 *   - prim::TupleUnpack of a prim::TupleConstruct (through such casts): its
 *     outputs are the construct's inputs (a cell's (h, c) passed as a
 *     tuple), and the node goes;
 *   - then nodes left without a use (tssa_dce) go.
 */
#include <stdlib.h>

#include "kernels/kernels_internal.h"
#include "tssa/functionalize.h"
#include "tssa/shapes.h"

typedef struct Fold {
    LowerProgram *p;
    IrGraph *g;
    int64_t *value;             /* by value id: the decided scalar */
    bool *known;
    uint32_t cap;
    int folded;
} Fold;

static void grow(Fold *f)
{
    uint32_t n = f->g->nvalues + 1;
    if (n <= f->cap)
        return;
    f->value = xrealloc(f->value, n * sizeof *f->value);
    f->known = xrealloc(f->known, n * sizeof *f->known);
    for (uint32_t i = f->cap; i < n; i++)
        f->known[i] = false;
    f->cap = n;
}

static bool decided_in_fold(void *ctx, const IrValue *v, int64_t *out)
{
    const Fold *f = ctx;
    if (v->id >= f->cap || !f->known[v->id])
        return false;
    *out = f->value[v->id];
    return true;
}

static void fold_block(Fold *f, IrBlock *b);

/* Returns the node the walk goes on with. */
static IrNode *fold_node(Fold *f, IrNode *n)
{
    grow(f);
    ScalarLookup lk = {.p = f->p, .decided = decided_in_fold, .ctx = f};
    int64_t v;
    if (n->op == OP_PRIM_IF && n->nblocks == 2 && n->ninputs == 1 &&
        kernels_lookup_scalar(&lk, n->inputs[0], &v)) {
        f->folded++;
        return lower_fold_if(f->p, n, v != 0);
    }
    if (n->op == OP_PRIM_TUPLEUNPACK && n->ninputs == 1) {
        const IrNode *src = n->inputs[0]->def;
        while (src->op == OP_PRIM_UNCHECKED_CAST && src->ninputs == 1)
            src = src->inputs[0]->def;
        if (src->op == OP_PRIM_TUPLECONSTRUCT && src->ninputs == n->noutputs) {
            IrNode *next = n->next;
            for (int k = 0; k < n->noutputs; k++)
                ir_replace_all_uses(n->outputs[k], src->inputs[k]);
            ir_node_destroy(n);
            f->folded++;
            return next;
        }
    }
    bool no_op = (n->op == OP_TSSA_INPLACE_CHECK && n->ninputs == 2 &&
                  shape_same(n->inputs[0], n->inputs[1])) ||
                 (n->op == OP_PRIM_UNCHECKED_CAST && n->ninputs == 1 && shape_of(n->inputs[0]));
    if (no_op && n->noutputs == 1) {
        IrNode *next = n->next;
        ir_replace_all_uses(n->outputs[0], n->inputs[0]);
        ir_node_destroy(n);
        f->folded++;
        return next;
    }
    if (n->op == OP_ATEN_DROPOUT && n->ninputs == 3 && n->noutputs == 1 &&
        kernels_lookup_scalar(&lk, n->inputs[2], &v) && v == 0) {
        IrNode *next = n->next;
        ir_replace_all_uses(n->outputs[0], n->inputs[0]);
        ir_node_destroy(n);
        f->folded++;
        return next;
    }
    /* immut::assign(base, v) replaces all of base by v: of one static
     * shape and dtype (`laterals[i - 1] += up`, a whole tensor written in
     * place), the result is v itself, and no copy is made */
    if (n->op == OP_IMMUT_ASSIGN && n->ninputs == 2 && n->noutputs == 1 &&
        shape_same(n->inputs[0], n->inputs[1])) {
        IrNode *next = n->next;
        ir_replace_all_uses(n->outputs[0], n->inputs[1]);
        ir_node_destroy(n);
        f->folded++;
        return next;
    }
    if (kernels_decide_scalar(&lk, n, &v) && !lower_static_value(f->p, n->outputs[0])) {
        const IrType *t = n->outputs[0]->type;
        bool as_bool = t && t->kind == TY_BOOL;
        f->value[n->outputs[0]->id] = v;
        f->known[n->outputs[0]->id] = true;
        if (n->outputs[0]->nuses > 0) {
            IrValue *c = kernels_scalar_constant(f->p, n, v, as_bool);
            grow(f);
            f->value[c->id] = v;
            f->known[c->id] = true;
            ir_replace_all_uses(n->outputs[0], c);
        }
        IrNode *next = n->next;
        ir_node_destroy(n);
        f->folded++;
        return next;
    }
    for (int i = 0; i < n->nblocks; i++)
        fold_block(f, n->blocks[i]);
    return n->next;
}

static void fold_block(Fold *f, IrBlock *b)
{
    for (IrNode *n = ir_block_first(b); !ir_node_is_end(n);)
        n = fold_node(f, n);
}

int kernels_fold_decided(LowerProgram *p)
{
    Fold f = {.p = p, .g = lower_ir_graph(p)};
    fold_block(&f, f.g->top);
    /* what computed only folded scalars is dead now (x.new_empty(...) read
     * for its size and dtype): left in, it would be a filter whose result
     * goes nowhere */
    if (f.folded > 0)
        tssa_dce(f.g);
    free(f.value);
    free(f.known);
    lower_graph_grown(p);
    return f.folded;
}
