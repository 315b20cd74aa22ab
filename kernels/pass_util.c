/* pass_util.c — what the kernels layer's graph rewrites share: a walk that
 * offers every node to a rewrite, and the compile-time ints they make. */
#include "kernels/kernels_internal.h"

static int rewrite_block(LowerProgram *p, IrBlock *b, KernelsRewrite rewrite)
{
    int n = 0;
    for (IrNode *node = ir_block_first(b), *next; !ir_node_is_end(node); node = next) {
        next = node->next;      /* the rewrite may replace node */
        for (int i = 0; i < node->nblocks; i++)
            n += rewrite_block(p, node->blocks[i], rewrite);
        n += rewrite(p, node);
    }
    return n;
}

int kernels_rewrite_each(LowerProgram *p, KernelsRewrite rewrite)
{
    int n = rewrite_block(p, lower_ir_graph(p)->top, rewrite);
    lower_graph_grown(p);
    return n;
}

bool kernels_outside_loop(const IrValue *v, const IrNode *loop)
{
    for (const IrNode *d = v->def; d; d = d->owner ? d->owner->owner : NULL)
        if (d == loop)
            return false;
    return true;
}

IrNode *kernels_top_anchor(IrNode *n)
{
    while (n->owner->owner)
        n = n->owner->owner;
    return n;
}

IrValue *kernels_scalar_constant(LowerProgram *p, IrNode *at, int64_t v, bool as_bool)
{
    IrNode *before = kernels_top_anchor(at);
    IrGraph *g = before->graph;
    /* the same number made just before (a cell's slices, an unpack's
     * pieces): reused, not one more node */
    int looked = 0;
    for (IrNode *c = before->prev; c && c != before->owner->param && looked < 64; c = c->prev, looked++) {
        if (c->op != OP_PRIM_CONSTANT || c->noutputs != 1 || !c->outputs[0]->type ||
            c->outputs[0]->type->kind != (as_bool ? TY_BOOL : TY_INT))
            continue;
        const RtValue *r = lower_static_value(p, c->outputs[0]);
        if (r && r->kind == (as_bool ? RT_BOOL : RT_INT) && r->u.i == (as_bool ? v != 0 : v))
            return c->outputs[0];
    }
    IrNode *c = ir_node_new_op(g, OP_PRIM_CONSTANT);
    ir_attr_set_int(c, "value", v);
    IrValue *out = ir_node_add_output(c, ir_type_simple(g, as_bool ? TY_BOOL : TY_INT), NULL);
    ir_insert_before(c, before);
    lower_add_static(p, out, as_bool ? rt_bool(v != 0) : rt_int(v));
    return out;
}

/* The latest node of block b, after `after`, that defines a value n or a
 * node nested in n reads (or a nested block returns); NULL if none. */
static IrNode *latest_def_after(const IrBlock *b, const IrNode *n, const IrNode *after, IrNode *latest)
{
    for (int i = 0; i < n->ninputs; i++) {
        IrNode *d = n->inputs[i]->def;
        if (d->owner == b && d != b->param && ir_node_is_before(after, d) &&
            (!latest || ir_node_is_before(latest, d)))
            latest = d;
    }
    for (int k = 0; k < n->nblocks; k++) {
        const IrBlock *inner = n->blocks[k];
        for (IrNode *m = ir_block_first(inner);; m = m->next) {
            latest = latest_def_after(b, m, after, latest);
            if (ir_node_is_end(m))
                break;
        }
    }
    return latest;
}

void kernels_restore_def_order(IrBlock *b)
{
    for (IrNode *n = ir_block_first(b), *next; !ir_node_is_end(n); n = next) {
        next = n->next;
        IrNode *d = latest_def_after(b, n, n, NULL);
        if (d)
            ir_move_after(n, d);    /* visited again there, after what it needs */
    }
    IR_FOREACH_NODE(n, b)
        for (int k = 0; k < n->nblocks; k++)
            kernels_restore_def_order(n->blocks[k]);
}

IrValue *kernels_int_list_constant(LowerProgram *p, IrNode *at, const int64_t *v, int n)
{
    IrNode *before = kernels_top_anchor(at);
    IrGraph *g = lower_ir_graph(p);
    IrNode *list = ir_node_new_op(g, OP_PRIM_LISTCONSTRUCT);
    RtValue *items[KIR_MAX_RANK];
    for (int i = 0; i < n; i++) {
        ir_node_add_input(list, kernels_scalar_constant(p, before, v[i], false));
        items[i] = rt_int(v[i]);
    }
    IrValue *out = ir_node_add_output(list, ir_type_list(g, ir_type_simple(g, TY_INT)), NULL);
    ir_insert_before(list, before);
    RtValue *value = rt_list(RT_LIST, n, items);
    for (int i = 0; i < n; i++)
        rt_release(items[i]);
    lower_add_static(p, out, value);
    return out;
}
