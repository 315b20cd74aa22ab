/* graph_edit.c — small helpers the TensorSSA passes share: reading
 * constants, classifying values and ops, and inserting new nodes.
 *
 * The passes build nodes only through tssa_emit_node, so every new node is
 * placed before a known position, has its inputs' use lists updated by the
 * IR, and carries a type: the type of the value it re-creates when the pass
 * knows it, plain Tensor otherwise.
 */
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/util.h"

bool tssa_is_tensor_value(const IrValue *v)
{
    const IrType *t = v->type;
    if (!t)
        return false;
    if (t->kind == TY_TENSOR)
        return true;
    return t->kind == TY_OPTIONAL && t->nelems == 1 && t->elems[0]->kind == TY_TENSOR;
}

static bool type_may_hold_tensor(const IrType *t)
{
    switch (t->kind) {
    case TY_TENSOR:
    case TY_ANY:
    case TY_CLASS:
    case TY_OTHER:
        return true;
    case TY_LIST:
    case TY_OPTIONAL:
    case TY_TUPLE:
    case TY_DICT:
    case TY_UNION:
    case TY_FUTURE:
        for (int i = 0; i < t->nelems; i++)
            if (type_may_hold_tensor(t->elems[i]))
                return true;
        return false;
    default:
        return false;
    }
}

bool tssa_is_tensor_list(const IrValue *v)
{
    const IrType *t = v->type;
    return t && t->kind == TY_LIST && t->nelems == 1 && t->elems[0]->kind == TY_TENSOR;
}

bool tssa_returns_element(const IrNode *n)
{
    if (op_info(n->op)->cls != OPC_SCALAR)
        return false;
    bool takes = false, gives = false;
    for (int i = 0; i < n->ninputs; i++) {
        const IrType *t = n->inputs[i]->type;
        takes |= t && (t->kind == TY_LIST || t->kind == TY_TUPLE || t->kind == TY_DICT);
    }
    for (int i = 0; i < n->noutputs; i++)
        gives |= tssa_is_tensor_value(n->outputs[i]);
    return takes && gives;
}

bool tssa_is_container_value(const IrValue *v)
{
    const IrType *t = v->type;
    if (!t || tssa_is_tensor_value(v))
        return false;
    switch (t->kind) {
    case TY_LIST:
    case TY_TUPLE:
    case TY_DICT:
    case TY_UNION:
    case TY_FUTURE:
    case TY_ANY:
    case TY_OPTIONAL:
        return type_may_hold_tensor(t);
    default:
        return false;
    }
}

static const IrAttr *constant_value(const IrValue *v)
{
    if (!v->def || v->def->op != OP_PRIM_CONSTANT)
        return NULL;
    return ir_attr_find(v->def, "value");
}

bool tssa_const_int(const IrValue *v, int64_t *out)
{
    const IrAttr *a = constant_value(v);
    if (!a || a->kind != ATTR_INT || !v->type)
        return false;
    if (v->type->kind != TY_INT && v->type->kind != TY_BOOL)
        return false;
    *out = a->u.i;
    return true;
}

bool tssa_const_int_arg(const IrNode *n, int i, int64_t dflt, int64_t *out)
{
    if (i >= n->ninputs) {
        *out = dflt;
        return true;
    }
    return tssa_const_int(n->inputs[i], out);
}

bool tssa_const_bool(const IrValue *v, bool *out)
{
    const IrAttr *a = constant_value(v);
    if (!a || a->kind != ATTR_INT || !v->type || v->type->kind != TY_BOOL)
        return false;
    *out = a->u.i != 0;
    return true;
}

bool tssa_is_none(const IrValue *v)
{
    return v->def && v->def->op == OP_PRIM_CONSTANT && v->def->nattrs == 0 && v->type &&
           v->type->kind == TY_NONE;
}

bool tssa_const_int_list(const IrValue *v, int64_t *buf, int cap, int *n)
{
    const IrNode *d = v->def;
    if (!d)
        return false;
    if (d->op == OP_PRIM_CONSTANT) {
        const IrAttr *a = ir_attr_find(d, "value");
        if (!a || a->kind != ATTR_INTS || a->n > cap)
            return false;
        memcpy(buf, a->u.is, sizeof *buf * (size_t)a->n);
        *n = a->n;
        return true;
    }
    if (d->op != OP_PRIM_LISTCONSTRUCT || d->ninputs > cap)
        return false;
    for (int i = 0; i < d->ninputs; i++)
        if (!tssa_const_int(d->inputs[i], &buf[i]))
            return false;
    *n = d->ninputs;
    return true;
}

IrValue *tssa_emit_int(IrGraph *g, IrNode *pos, int64_t value)
{
    IrNode *n = ir_node_new_op(g, OP_PRIM_CONSTANT);
    ir_attr_set_int(n, "value", value);
    IrValue *v = ir_node_add_output(n, ir_type_simple(g, TY_INT), NULL);
    ir_insert_before(n, pos);
    return v;
}

IrValue *tssa_emit_node(IrGraph *g, IrNode *pos, OpId op, IrValue *const *inputs, int ninputs,
                   IrType *type, const char *name)
{
    IrNode *n = ir_node_new_op(g, op);
    for (int i = 0; i < ninputs; i++)
        ir_node_add_input(n, inputs[i]);
    IrValue *v = ir_node_add_output(n, type ? type : ir_type_tensor(g), name);
    ir_insert_before(n, pos);
    return v;
}

const char *tssa_base_name(const IrValue *v, char *buf, size_t size)
{
    ir_value_base_name(v, buf, size);
    /* Purely numeric names get fresh numbers instead of "7.1", "7.2". */
    bool digits = buf[0] != '\0';
    for (const char *p = buf; *p; p++)
        if (*p < '0' || *p > '9')
            digits = false;
    return digits ? NULL : buf;
}

bool tssa_node_has_effects(const IrNode *n)
{
    switch (n->op) {
    case OP_UNKNOWN:
    case OP_PRIM_RAISEEXCEPTION:
    case OP_PRIM_PRINT:
    case OP_ATEN_WARN:
    case OP_TSSA_UPDATE:
        return true;
    default:
        break;
    }
    if (op_is_inplace(n->op))
        return true;
    /* A node without results is there for what it does: list.sort() is
     * aten::sort(list) returning nothing, and sorts the list in place. */
    if (n->noutputs == 0 && n->op != OP_PRIM_RETURN && n->op != OP_PRIM_PARAM && n->nblocks == 0)
        return true;
    for (int b = 0; b < n->nblocks; b++)
        IR_FOREACH_NODE(m, n->blocks[b])
            if (tssa_node_has_effects(m))
                return true;
    return false;
}

bool tssa_node_is_pure(const IrNode *n)
{
    if (n->nblocks || tssa_node_has_effects(n))
        return false;
    switch (n->op) {
    case OP_PRIM_PARAM:
    case OP_PRIM_RETURN:
    case OP_PRIM_UNINITIALIZED:
    case OP_PRIM_LISTCONSTRUCT:     /* lists are mutable objects */
    case OP_ATEN_LIST:
    case OP_ATEN_EMPTY:             /* fresh, undefined storage each time */
    case OP_ATEN_EMPTY_LIKE:
    case OP_ATEN_NEW_EMPTY:
        return false;
    default:
        /* a draw: two identical random calls give different numbers */
        return op_info(n->op)->cls != OPC_RANDOM;
    }
}

void tssa_note_imperative(IrNode *n, const char *why)
{
    IrGraph *g = n->graph;
    const char *old = n->comment;
    size_t len = strlen(TSSA_IMPERATIVE_NOTE) + strlen(why) + (old ? strlen(old) + 3 : 0) + 2;
    char *s = arena_alloc(g->arena, len);
    if (old)
        snprintf(s, len, "%s | %s %s", old, TSSA_IMPERATIVE_NOTE, why);
    else
        snprintf(s, len, "%s %s", TSSA_IMPERATIVE_NOTE, why);
    n->comment = s;
}

const char *tssa_attribute_path(IrGraph *g, const IrNode *n)
{
    const char *names[64];
    int count = 0;
    const IrNode *at = n;
    while (at && at->op == OP_PRIM_GETATTR && count < 64) {
        const IrAttr *name = ir_attr_find(at, "name");
        names[count++] = name && name->kind == ATTR_STR ? name->u.s : "?";
        at = at->ninputs ? at->inputs[0]->def : NULL;
    }
    size_t len = 1;
    for (int i = 0; i < count; i++)
        len += strlen(names[i]) + 1;
    char *s = arena_alloc(g->arena, len);
    char *p = s;
    for (int i = count - 1; i >= 0; i--) {
        size_t l = strlen(names[i]);
        memcpy(p, names[i], l);
        p += l;
        if (i)
            *p++ = '.';
    }
    *p = '\0';
    return s;
}

bool tssa_attribute_chain_from_input(const IrNode *n)
{
    const IrNode *at = n;
    for (int depth = 0; at && at->op == OP_PRIM_GETATTR && depth < 64; depth++) {
        if (at->ninputs != 1)
            return false;
        const IrValue *in = at->inputs[0];
        if (in->def->op == OP_PRIM_PARAM)
            return in->def->owner->owner == NULL;
        at = in->def;
    }
    return false;
}

/* The value a block result or a loop's initial value becomes, or NULL:
 * used at input index of user (a block's return, or a prim::Loop). */
IrValue *tssa_merge_target(const IrNode *user, int index)
{
    if (user->op == OP_PRIM_RETURN) {
        const IrNode *owner = user->owner->owner;
        if (owner && owner->op == OP_PRIM_IF)
            return index < owner->noutputs ? owner->outputs[index] : NULL;
        if (owner && owner->op == OP_PRIM_LOOP && index >= 1)
            return index - 1 < owner->noutputs ? owner->outputs[index - 1] : NULL;
        return NULL;
    }
    if (user->op == OP_PRIM_LOOP && index >= 2 && user->nblocks == 1 &&
        index - 1 < ir_block_nparams(user->blocks[0]))
        return ir_block_param(user->blocks[0], index - 1);
    return NULL;
}
