/* split_loop_tuples.c — a loop's tuple-carried state carried as its elements.
 *
 * A scripted LSTM layer carries its state as one tuple: `hx, cx = state` at
 * the top of each iteration, `state = (hy, cy)` at the bottom. Shape
 * inference follows tensors, not the tensors inside a tuple, so nothing in
 * such a body gets a static shape and the cell's gates never fuse (they run
 * op by op, every step).
 *
 * Preconditions: the graph is functional (TensorSSA). A carried value is
 * split when its type is a tuple of n elements, the body reads its
 * parameter only through prim::TupleUnpack (n outputs) and returns a
 * prim::TupleConstruct of n values made in the body for it. Result: the
 * loop carries the n elements instead, after its other carried values:
 *   - their initial values are the initial tuple's construct inputs, or the
 *     outputs of a prim::TupleUnpack of it placed before the loop;
 *   - the unpacks' outputs are the new parameters (the unpacks go);
 *   - the body returns the construct's inputs (the construct goes when
 *     nothing else reads it);
 *   - where the loop's tuple result is used, a prim::TupleConstruct of the
 *     n results made after the loop takes its place.
 */
#include "kernels/kernels_internal.h"

enum { MAX_ELEMS = 16 };

static bool splittable(const IrNode *loop, int k)
{
    IrBlock *body = loop->blocks[0];
    const IrValue *param = ir_block_param(body, 1 + k), *ret = ir_block_return(body, 1 + k);
    const IrType *t = param->type;
    if (!t || t->kind != TY_TUPLE || t->nelems < 1 || t->nelems > MAX_ELEMS)
        return false;
    for (int u = 0; u < param->nuses; u++) {
        const IrNode *user = param->uses[u].user;
        if (user->op != OP_PRIM_TUPLEUNPACK || user->noutputs != t->nelems)
            return false;
    }
    const IrNode *tc = ret->def;
    return tc->op == OP_PRIM_TUPLECONSTRUCT && tc->ninputs == t->nelems && tc->owner == body;
}

static void split(IrNode *loop, int k)
{
    IrGraph *g = loop->graph;
    IrBlock *body = loop->blocks[0];
    IrValue *init = loop->inputs[2 + k], *param = ir_block_param(body, 1 + k);
    IrValue *ret = ir_block_return(body, 1 + k), *result = loop->outputs[k];
    IrType *t = param->type;
    int n = t->nelems;
    IrValue *first[MAX_ELEMS], *params[MAX_ELEMS], *results[MAX_ELEMS];
    if (init->def->op == OP_PRIM_TUPLECONSTRUCT && init->def->ninputs == n) {
        for (int i = 0; i < n; i++)
            first[i] = init->def->inputs[i];
    } else {
        IrNode *unpack = ir_node_new_op(g, OP_PRIM_TUPLEUNPACK);
        ir_node_add_input(unpack, init);
        for (int i = 0; i < n; i++)
            first[i] = ir_node_add_output(unpack, t->elems[i], NULL);
        unpack->comment = loop->comment;
        ir_insert_before(unpack, loop);
    }
    IrNode *construct = ret->def;
    for (int i = 0; i < n; i++) {
        ir_node_add_input(loop, first[i]);
        params[i] = ir_block_add_param(body, t->elems[i], NULL);
        ir_block_add_return(body, construct->inputs[i]);
        results[i] = ir_node_add_output(loop, t->elems[i], NULL);
    }
    while (param->nuses > 0) {
        IrNode *unpack = param->uses[0].user;
        for (int i = 0; i < n; i++)
            ir_replace_all_uses(unpack->outputs[i], params[i]);
        ir_node_destroy(unpack);
    }
    if (result->nuses > 0) {
        IrNode *after = ir_node_new_op(g, OP_PRIM_TUPLECONSTRUCT);
        for (int i = 0; i < n; i++)
            ir_node_add_input(after, results[i]);
        IrValue *tuple = ir_node_add_output(after, t, NULL);
        after->comment = loop->comment;
        ir_insert_after(after, loop);
        ir_replace_all_uses(result, tuple);
    }
    ir_node_remove_input(loop, 2 + k);
    ir_block_remove_param(body, 1 + k);
    ir_block_remove_return(body, 1 + k);
    ir_node_remove_output(loop, k);
    if (construct->outputs[0]->nuses == 0)
        ir_node_destroy(construct);
}

static int split_loop(LowerProgram *p, IrNode *n)
{
    (void)p;
    if (n->op != OP_PRIM_LOOP || n->nblocks != 1)
        return 0;
    int made = 0;
    for (int k = 0; k < n->noutputs;) {
        if (splittable(n, k)) {
            split(n, k);
            made++;             /* carried value k is now the next one */
        } else {
            k++;
        }
    }
    return made;
}

int kernels_split_loop_tuples(LowerProgram *p)
{
    return kernels_rewrite_each(p, split_loop);
}
