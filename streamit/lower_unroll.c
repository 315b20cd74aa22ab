/* lower_unroll.c — short for loops that read a container they carry,
 * unrolled during specialization.
 *
 * A loop that carries a list or dict of tensors and reads it by index or
 * key (mmdetection's FPN top-down path, `laterals[i - 1] += interpolate(
 * laterals[i], size=laterals[i - 1].shape[2:])`; torchvision's anchor cache,
 * `if key in self._cache: return self._cache[key]`) reads a tensor of a
 * different shape on every iteration. The loop's body then has no static
 * shapes, nothing in it fuses, every op runs on the reference kernels, and
 * a trip count computed from the list's length stays a run-time value.
 * Unrolled, each iteration's reads are reads of a list or dict whose
 * contents the specialization follows (lower_containers.c): the counter is
 * a number, the items are the tensors put there, and shape inference types
 * them all.
 *
 * lower_unroll_wanted says which loops: a top-level prim::Loop
 *   - whose trip count and initial condition are compile-time values, at
 *     most LOWER_UNROLL_MAX iterations, and whose body returns the
 *     condition true (a for loop with no break),
 *   - that carries a list or dict whose items may be tensors and reads it
 *     by index or key (__getitem__, __contains__, len, ListUnpack) in the
 *     body, after the loop, or in the body of a later loop it is carried
 *     into (`states.append(f(x))` in one loop, `states[k]` in the next),
 *   - whose body draws no random numbers (a draw is keyed by the loop's
 *     counter: unrolled it would be another draw), prints nothing, and
 *     writes in place nothing but values it makes itself (TensorSSA left
 *     no write to an outer value; a list the body builds is each copy's).
 * lower_unroll replaces the loop by its body's nodes, once per iteration,
 * in order, before it: iteration i reads the counter as a new constant i
 * and the carried values as iteration i - 1's results; the loop's outputs
 * become the last iteration's results. The walk of specialization goes on
 * at the first node made, so the copies' scalar work is folded as the top
 * level's is.
 */
#include <stdlib.h>

#include "streamit/lower_internal.h"
#include "tssa/eval.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

/* Types that may hold a tensor inside a list or dict. */
static bool may_hold_tensor(const IrType *t)
{
    if (!t)
        return true;
    switch (t->kind) {
    case TY_TENSOR:
        return true;
    case TY_LIST: case TY_OPTIONAL: case TY_TUPLE: case TY_DICT: case TY_UNION:
        for (int i = 0; i < t->nelems; i++)
            if (may_hold_tensor(t->elems[i]))
                return true;
        return false;
    default:
        return !lower_type_scalar(t);
    }
}

static bool is_read_of_container(const IrNode *user)
{
    return user->op == OP_ATEN_GETITEM || user->op == OP_ATEN_CONTAINS || user->op == OP_ATEN_LEN ||
           user->op == OP_PRIM_LISTUNPACK;
}

/* c, a list or dict that may hold tensors, is read by index or key: by
 * one of its uses, a new version of it (aten::add, immut::list_set_item,
 * ...) read so, or in the body of a loop that carries it on (the list
 * a loop appends to, read by the next loop: that one is unrolled too). */
static bool container_read(const IrValue *c, int depth)
{
    if (!c->type || (c->type->kind != TY_LIST && c->type->kind != TY_DICT) || !may_hold_tensor(c->type) ||
        depth > 8)
        return false;
    for (int u = 0; u < c->nuses; u++) {
        const IrNode *user = c->uses[u].user;
        int at = c->uses[u].index;
        if (is_read_of_container(user))
            return true;
        /* a new version made from it (an append, an item set) read later */
        bool versioned = user->op == OP_ATEN_ADD || user->op == OP_ATEN_LIST ||
                         user->op == OP_IMMUT_LIST_SET_ITEM || user->op == OP_IMMUT_DICT_SET_ITEM;
        if (versioned && at <= 1 && user->noutputs == 1 && container_read(user->outputs[0], depth + 1))
            return true;
        if (user->op == OP_PRIM_LOOP && user->nblocks == 1 && at >= 2 &&
            at - 1 < ir_block_nparams(user->blocks[0]) &&
            container_read(ir_block_param(user->blocks[0], at - 1), depth + 1))
            return true;
    }
    return false;
}

static bool inside(const IrNode *x, const IrNode *loop)
{
    for (const IrBlock *b = x->owner; b && b->owner; b = b->owner->owner)
        if (b->owner == loop)
            return true;
    return false;
}

/* Nothing in b that unrolling would change the meaning of: an in-place
 * write only to a value made inside the loop (F.interpolate's own
 * `scale_factors.append(...)`: each copy makes its own list). */
static bool body_unrollable(const IrBlock *b, const IrNode *loop)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_UNKNOWN || op_info(n->op)->cls == OPC_RANDOM || n->op == OP_PRIM_PRINT ||
            n->op == OP_ATEN_WARN || n->op == OP_PRIM_SETATTR)
            return false;
        if (op_is_inplace(n->op)) {
            int mut = op_info(n->op)->mutates;
            if (mut < 0 || mut >= n->ninputs || !inside(n->inputs[mut]->def, loop))
                return false;
        }
        for (int i = 0; i < n->nblocks; i++)
            if (!body_unrollable(n->blocks[i], loop))
                return false;
    }
    return true;
}

static bool static_true(const LowerProgram *p, const IrValue *v)
{
    if (p->is_static[v->id]) {
        const RtValue *r = node_exec_get(p->exec, v);
        return r && r->kind == RT_BOOL && r->u.i;
    }
    const IrNode *d = v->def;
    const IrAttr *a = d && d->op == OP_PRIM_CONSTANT ? ir_attr_find(d, "value") : NULL;
    return a && a->kind == ATTR_INT && a->u.i == 1 && v->type && v->type->kind == TY_BOOL;
}

bool lower_unroll_wanted(const LowerProgram *p, const IrNode *loop, int64_t *trips)
{
    if (loop->op != OP_PRIM_LOOP || loop->nblocks != 1 || loop->ninputs < 2 ||
        !p->is_static[loop->inputs[0]->id] || !static_true(p, loop->inputs[1]))
        return false;
    const RtValue *n = node_exec_get(p->exec, loop->inputs[0]);
    if (!n || n->kind != RT_INT || n->u.i < 0 || n->u.i > LOWER_UNROLL_MAX)
        return false;
    const IrBlock *body = loop->blocks[0];
    if (ir_block_nreturns(body) != loop->ninputs - 1 || ir_block_nparams(body) != loop->ninputs - 1 ||
        !static_true(p, ir_block_return(body, 0)) || !body_unrollable(body, loop))
        return false;
    bool reads_container = false;
    for (int k = 1; k < ir_block_nparams(body) && !reads_container; k++)
        reads_container = container_read(ir_block_param(body, k), 0) ||
                          (k - 1 < loop->noutputs && container_read(loop->outputs[k - 1], 0));
    *trips = n->u.i;
    return reads_container;
}

static IrValue *mapped(IrValue **map, uint32_t nmap, IrValue *v)
{
    return v->id < nmap && map[v->id] ? map[v->id] : v;
}

static void copy_attrs(IrNode *to, const IrNode *from)
{
    for (int i = 0; i < from->nattrs; i++) {
        const IrAttr *a = &from->attrs[i];
        if (a->kind == ATTR_TENSOR) {
            Tensor *t = a->u.t.tensor ? tensor_retain(a->u.t.tensor) : NULL;
            ir_attr_set_tensor(to, a->name, t, a->u.t.text);
            continue;
        }
        IrAttr *c = ir_attr_add(to, a->name, a->kind);
        /* list and text payloads live in the graph's arena and are never
         * changed in place (ir_attr_set_* replace them): shared */
        *c = *a;
    }
}

/* A copy of n, its blocks' nodes copied too, whose inputs read map's values
 * for the values map has; map learns n's outputs and block params. */
static IrNode *clone_node(IrGraph *g, const IrNode *n, IrValue **map, uint32_t nmap)
{
    IrNode *c = ir_node_new(g, n->kind);
    for (int i = 0; i < n->ninputs; i++)
        ir_node_add_input(c, mapped(map, nmap, n->inputs[i]));
    char buf[128];
    for (int i = 0; i < n->noutputs; i++) {
        IrValue *v = n->outputs[i];
        IrValue *o = ir_node_add_output(c, v->type, ir_value_base_name(v, buf, sizeof buf));
        if (v->id < nmap)
            map[v->id] = o;
    }
    copy_attrs(c, n);
    c->comment = n->comment;
    c->scope = n->scope;
    c->line = n->line;
    c->col = n->col;
    for (int b = 0; b < n->nblocks; b++) {
        const IrBlock *from = n->blocks[b];
        IrBlock *to = ir_node_add_block(c);
        for (int i = 0; i < ir_block_nparams(from); i++) {
            IrValue *v = ir_block_param(from, i);
            IrValue *o = ir_block_add_param(to, v->type, ir_value_base_name(v, buf, sizeof buf));
            if (v->id < nmap)
                map[v->id] = o;
        }
        IR_FOREACH_NODE(x, from)
            ir_append(to, clone_node(g, x, map, nmap));
        for (int i = 0; i < ir_block_nreturns(from); i++)
            ir_block_add_return(to, mapped(map, nmap, ir_block_return(from, i)));
    }
    return c;
}

IrNode *lower_unroll(LowerProgram *p, IrNode *loop, int64_t trips)
{
    IrGraph *g = p->g;
    IrBlock *body = loop->blocks[0];
    int ncarried = ir_block_nparams(body) - 1;
    IrValue **carried = xmallocn((size_t)ncarried + 1, sizeof *carried);
    for (int k = 0; k < ncarried; k++)
        carried[k] = loop->inputs[2 + k];
    IrNode *first = NULL;
    uint32_t nmap = g->nvalues + 1;
    IrValue **map = xcalloc(nmap, sizeof *map);
    for (int64_t i = 0; i < trips; i++) {
        for (uint32_t v = 0; v < nmap; v++)
            map[v] = NULL;
        IrNode *counter = ir_node_new_op(g, OP_PRIM_CONSTANT);
        ir_attr_set_int(counter, "value", i);
        IrValue *cv = ir_node_add_output(counter, ir_block_param(body, 0)->type, NULL);
        ir_insert_before(counter, loop);
        lower_add_static(p, cv, rt_int(i));
        first = first ? first : counter;
        map[ir_block_param(body, 0)->id] = cv;
        for (int k = 0; k < ncarried; k++)
            map[ir_block_param(body, 1 + k)->id] = carried[k];
        IR_FOREACH_NODE(n, body)
            ir_insert_before(clone_node(g, n, map, nmap), loop);
        for (int k = 0; k < ncarried; k++)
            carried[k] = mapped(map, nmap, ir_block_return(body, 1 + k));
    }
    for (int k = 0; k < ncarried && k < loop->noutputs; k++)
        ir_replace_all_uses(loop->outputs[k], carried[k]);
    IrNode *next = first ? first : loop->next;
    ir_node_destroy(loop);
    lower_graph_grown(p);
    free(map);
    free(carried);
    return next;
}
