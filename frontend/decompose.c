/* decompose.c — composite ops replaced by their definitions
 * (ir_expand_decompositions).
 *
 * Some ops that programs reach are, in PyTorch, C++ functions made of ops
 * the op table already has: nn.TransformerEncoderLayer and
 * nn.MultiheadAttention call aten::_transformer_encoder_layer_fwd and
 * aten::_native_multi_head_attention on their inference fast path. Their
 * meaning is written once, as a TorchScript function checked against
 * PyTorch's op (frontend/gen_decompositions.py, which writes the graph text
 * into decompositions.inc). This pass inlines that graph in place of each
 * such node, so every backend, the reference interpreter included, runs the
 * same ops, and TensorSSA, shape inference, fusion and the stream graph see
 * every step (the projections as GEMMs, the flags folded at compile time).
 *
 * `l.copy()` and `d.copy()` (aten::copy of a list or dict) become the
 * table's list(l) and a new dict updated from d, the same shallow copies;
 * `sorted(l)` becomes list(l) sorted in place.
 *
 * Precondition: a parsed graph. A node is replaced when its input count is
 * its definition's parameter count (TorchScript writes every argument) and
 * its outputs are the definition's results (one value, or the elements of
 * the tuple it returns). Inlined nodes carry the replaced node's source
 * position, so a check that fails in the definition (a mask of the wrong
 * shape: RuntimeError, exit 1) names the program's line.
 * Result: no node of a decomposed op is left that meets the precondition.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/util.h"

typedef struct Decomposition {
    const char *op;
    const char *text;       /* TorchScript graph text of its definition */
} Decomposition;

static const Decomposition DECOMPOSITIONS[] = {
#define DECOMPOSITION(op, text) {op, text},
#include "frontend/decompositions.inc"
#undef DECOMPOSITION
};
enum { NDECOMPOSITIONS = sizeof DECOMPOSITIONS / sizeof DECOMPOSITIONS[0] };

typedef struct Expander {
    IrGraph *g;
    IrGraph *parsed[NDECOMPOSITIONS];   /* definitions parsed on first use */
    FILE *err;
    bool failed;
} Expander;

/* t rebuilt in g: types live in their graph's arena. The definitions use
 * plain and refined tensors, scalars, lists, optionals and tuples. */
static IrType *copy_type(IrGraph *g, const IrType *t)
{
    switch (t->kind) {
    case TY_TENSOR:
        return ir_type_tensor_refined(g, t->tensor.dtype, t->tensor.rank, t->tensor.sizes, t->tensor.strides);
    case TY_LIST:
        return ir_type_list(g, copy_type(g, t->elems[0]));
    case TY_OPTIONAL:
        return ir_type_optional(g, copy_type(g, t->elems[0]));
    case TY_TUPLE: {
        IrType *elems[16];
        if (t->nelems > 16)
            return NULL;
        for (int i = 0; i < t->nelems; i++)
            if (!(elems[i] = copy_type(g, t->elems[i])))
                return NULL;
        return ir_type_tuple(g, t->nelems, elems);
    }
    case TY_CLASS: case TY_OTHER: case TY_DICT: case TY_UNION: case TY_FUTURE:
        return NULL;
    default:
        return ir_type_simple(g, t->kind);
    }
}

static bool attr_copyable(const IrAttr *a)
{
    return a->kind == ATTR_INT || a->kind == ATTR_FLOAT || a->kind == ATTR_STR || a->kind == ATTR_INTS ||
           a->kind == ATTR_FLOATS;
}

static void copy_attrs(IrNode *to, const IrNode *from)
{
    for (int i = 0; i < from->nattrs; i++) {
        const IrAttr *a = &from->attrs[i];
        switch (a->kind) {
        case ATTR_INT: ir_attr_set_int(to, a->name, a->u.i); break;
        case ATTR_FLOAT: ir_attr_set_float(to, a->name, a->u.f); break;
        case ATTR_STR: ir_attr_set_str(to, a->name, a->u.s); break;
        case ATTR_INTS: ir_attr_set_ints(to, a->name, a->u.is, a->n); break;
        case ATTR_FLOATS: ir_attr_set_floats(to, a->name, a->u.fs, a->n); break;
        default: break;                 /* ruled out by block_copyable */
        }
    }
}

/* Every type and attribute of b's nodes can be rebuilt in another graph
 * (checked once per definition, so that an inlining never stops halfway),
 * and every value is defined before its use (the parser guarantees it). */
static bool block_copyable(IrGraph *scratch, const IrBlock *b)
{
    for (int i = 0; i < ir_block_nparams(b); i++)
        if (!copy_type(scratch, ir_block_param(b, i)->type))
            return false;
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->noutputs; i++)
            if (!copy_type(scratch, n->outputs[i]->type))
                return false;
        for (int i = 0; i < n->nattrs; i++)
            if (!attr_copyable(&n->attrs[i]))
                return false;
        for (int i = 0; i < n->nblocks; i++)
            if (!block_copyable(scratch, n->blocks[i]))
                return false;
    }
    return true;
}

static IrValue *mapped(IrValue **map, IrValue *v)
{
    return map[v->id];
}

/* made takes site's source position (so a failure in it names the
 * program's line) and goes in just before site. */
static void insert_at(IrNode *made, IrNode *site)
{
    made->comment = site->comment;
    made->scope = site->scope;
    made->line = site->line;
    made->col = site->col;
    ir_insert_before(made, site);
}

/* A copy in e->g of the definition's node n (blocks too), at the position
 * of `site`; map takes the definition's values to the program's. */
static IrNode *clone_node(Expander *e, const IrNode *n, const IrNode *site, IrValue **map)
{
    IrNode *c = ir_node_new(e->g, n->kind);
    for (int i = 0; i < n->ninputs; i++)
        ir_node_add_input(c, mapped(map, n->inputs[i]));
    char buf[128];
    for (int i = 0; i < n->noutputs; i++) {
        const IrValue *v = n->outputs[i];
        map[v->id] = ir_node_add_output(c, copy_type(e->g, v->type), ir_value_base_name(v, buf, sizeof buf));
    }
    copy_attrs(c, n);
    c->comment = site->comment;         /* its position; inserted by the caller */
    c->scope = site->scope;
    c->line = site->line;
    c->col = site->col;
    for (int b = 0; b < n->nblocks; b++) {
        const IrBlock *from = n->blocks[b];
        IrBlock *to = ir_node_add_block(c);
        for (int i = 0; i < ir_block_nparams(from); i++) {
            const IrValue *v = ir_block_param(from, i);
            map[v->id] = ir_block_add_param(to, copy_type(e->g, v->type), ir_value_base_name(v, buf, sizeof buf));
        }
        IR_FOREACH_NODE(x, from)
            ir_append(to, clone_node(e, x, site, map));
        for (int i = 0; i < ir_block_nreturns(from); i++)
            ir_block_add_return(to, mapped(map, ir_block_return(from, i)));
    }
    return c;
}

static const IrGraph *definition(Expander *e, int k)
{
    if (!e->parsed[k]) {
        const char *text = DECOMPOSITIONS[k].text;
        IrGraph *def = ir_parse(text, strlen(text), "frontend/decompositions.inc", e->err);
        IrGraph *scratch = ir_graph_new();
        if (def && !block_copyable(scratch, def->top)) {
            if (e->err)
                fprintf(e->err, "tssa-stream: error: the definition of %s uses a type or attribute "
                                "decompose.c cannot copy\n", DECOMPOSITIONS[k].op);
            ir_graph_free(def);
            def = NULL;
        }
        ir_graph_free(scratch);
        e->parsed[k] = def;
        e->failed |= !def;              /* a build that ships a bad table */
    }
    return e->parsed[k];
}

/* The definition's one result, checked against the node's outputs: one
 * value for one output, or a tuple of as many elements as the node has
 * outputs (a multi-output op returns a tuple, which its callers unpack). */
static bool result_fits(const IrGraph *def, int noutputs)
{
    if (ir_block_nreturns(def->top) != 1)
        return false;
    const IrType *t = ir_block_return(def->top, 0)->type;
    return noutputs == 1 || (t->kind == TY_TUPLE && t->nelems == noutputs);
}

/* n replaced by the k-th definition; false (n left as it is) when its
 * arguments or results do not fit. */
static bool expand(Expander *e, IrNode *n, int k)
{
    const IrGraph *def = definition(e, k);
    if (!def || n->nblocks || ir_block_nparams(def->top) != n->ninputs || !result_fits(def, n->noutputs))
        return false;
    IrValue **map = xcalloc((size_t)def->nvalues + 1, sizeof *map);
    for (int i = 0; i < n->ninputs; i++)
        map[ir_block_param(def->top, i)->id] = n->inputs[i];
    IR_FOREACH_NODE(x, def->top)
        ir_insert_before(clone_node(e, x, n, map), n);
    IrValue *result = mapped(map, ir_block_return(def->top, 0));
    if (n->noutputs == 1) {
        ir_replace_all_uses(n->outputs[0], result);
    } else {
        /* the elements keep the node's output types: (Tensor, Tensor) where
         * the definition says (Tensor, Tensor?), as PyTorch's op returns an
         * undefined tensor (None) for attention weights not asked for */
        IrNode *unpack = ir_node_new_op(e->g, OP_PRIM_TUPLEUNPACK);
        ir_node_add_input(unpack, result);
        char buf[128];
        for (int i = 0; i < n->noutputs; i++)
            ir_node_add_output(unpack, n->outputs[i]->type, ir_value_base_name(n->outputs[i], buf, sizeof buf));
        insert_at(unpack, n);
        for (int i = 0; i < n->noutputs; i++)
            ir_replace_all_uses(n->outputs[i], unpack->outputs[i]);
    }
    ir_node_destroy(n);
    free(map);
    return true;
}

static int find_decomposition(const IrNode *n)
{
    if (n->op != OP_UNKNOWN || !n->kind)
        return -1;
    for (int k = 0; k < NDECOMPOSITIONS; k++)
        if (strcmp(n->kind, DECOMPOSITIONS[k].op) == 0)
            return k;
    return -1;
}

/* Whether n is an unknown-to-the-table node of `kind` with one input and
 * one output, both lists or both dicts (`want`), as TorchScript types the
 * container ops rewritten below. */
static bool container_op(const IrNode *n, const char *kind, IrTypeKind want)
{
    return n->op == OP_UNKNOWN && strcmp(n->kind, kind) == 0 && n->ninputs == 1 && n->noutputs == 1 &&
           !n->nblocks && n->inputs[0]->type->kind == want && n->outputs[0]->type->kind == want;
}

/* list(n's input) just before n, typed as n's result. */
static IrNode *list_copy_at(Expander *e, IrNode *n)
{
    IrNode *copy = ir_node_new_op(e->g, OP_ATEN_LIST);
    ir_node_add_input(copy, n->inputs[0]);
    ir_node_add_output(copy, n->outputs[0]->type, NULL);
    insert_at(copy, n);
    return copy;
}

/* n's uses read `by`, and n goes. */
static void replace_node(IrNode *n, IrValue *by)
{
    ir_replace_all_uses(n->outputs[0], by);
    ir_node_destroy(n);
}

/* `l.copy()` and `d.copy()` (aten::copy of a list or a dict: a new
 * container holding the same elements) as the ops the table has for them:
 * list(l), and a new dict updated from d. */
static bool expand_container_copy(Expander *e, IrNode *n)
{
    if (container_op(n, "aten::copy", TY_LIST)) {
        replace_node(n, list_copy_at(e, n)->outputs[0]);
        return true;
    }
    if (!container_op(n, "aten::copy", TY_DICT))
        return false;                   /* the tensor aten::copy, or not typed as a copy */
    IrNode *copy = ir_node_new_op(e->g, OP_PRIM_DICTCONSTRUCT);
    ir_node_add_output(copy, n->outputs[0]->type, NULL);
    insert_at(copy, n);
    IrNode *update = ir_node_new_op(e->g, OP_ATEN_UPDATE);
    ir_node_add_input(update, copy->outputs[0]);
    ir_node_add_input(update, n->inputs[0]);
    insert_at(update, n);
    replace_node(n, copy->outputs[0]);
    return true;
}

/* `sorted(l)` (aten::sorted of a list) as a copy sorted in place, which is
 * what it is: list(l), then the list sort, ascending. */
static bool expand_sorted(Expander *e, IrNode *n)
{
    if (!container_op(n, "aten::sorted", TY_LIST))
        return false;
    IrNode *copy = list_copy_at(e, n);
    IrNode *ascending = ir_node_new_op(e->g, OP_PRIM_CONSTANT);
    ir_attr_set_int(ascending, "value", 0);          /* reverse=False */
    ir_node_add_output(ascending, ir_type_simple(e->g, TY_BOOL), NULL);
    insert_at(ascending, n);
    IrNode *sort = ir_node_new_op(e->g, OP_ATEN_SORT);
    ir_node_add_input(sort, copy->outputs[0]);
    ir_node_add_input(sort, ascending->outputs[0]);
    insert_at(sort, n);
    replace_node(n, copy->outputs[0]);
    return true;
}

static int expand_block(Expander *e, IrBlock *b)
{
    int count = 0;
    for (IrNode *n = ir_block_first(b); n->op != OP_PRIM_RETURN;) {
        IrNode *next = n->next;
        for (int i = 0; i < n->nblocks; i++)
            count += expand_block(e, n->blocks[i]);
        int k = find_decomposition(n);
        if ((k >= 0 && expand(e, n, k)) || expand_container_copy(e, n) || expand_sorted(e, n))
            count++;
        n = next;
    }
    return count;
}

int ir_expand_decompositions(IrGraph *g, FILE *err)
{
    Expander e = {.g = g, .err = err};
    int count = expand_block(&e, g->top);
    for (int k = 0; k < NDECOMPOSITIONS; k++)
        ir_graph_free(e.parsed[k]);
    return e.failed ? -1 : count;
}
