/* dispatch.c — the table from OpId to binding, and the generic in-place
 * rule.
 *
 * The table is indexed by OpId (designated initializers), so finding a
 * node's binding is one array read. It is expanded from the op table's
 * eval column (include/tssa/ops.h), which is the complete answer to "which
 * ops does the ref backend run": a NOEVAL row has no entry. prim::If,
 * prim::Loop and prim::Constant are such rows: the interpreter runs them
 * itself. TensorSSA's immut:: ops (access and assign classes) have their
 * own table in ops_immut.c, built on the view bindings.
 *
 * An in-place op without a binding of its own (aten::lerp_) runs as its
 * functional variant followed by a copy into self, with PyTorch's checks:
 * the result must have self's shape (an in-place op cannot broadcast self)
 * and its dtype must be castable to self's (no float into an int tensor, no
 * number into a bool tensor). The result is self itself. An in-place op
 * whose functional variant is a view (squeeze_, t_, as_strided_: the
 * metadata kind, op_inplace_is_metadata) runs that view and gives self its
 * sizes, strides and offset: self's data stays, and aliases of self taken
 * before keep their own shape.
 */
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "eval/ops_immut.h"

/* Generated from the op table's eval column (ops.h): one entry per row
 * that names a binding; a NOEVAL row's entry stays NULL. */
#define EVAL_BIND(id, name, cls, mut, alias, eval) EVAL_IF_BOUND(eval, [OP_##id] = eval_op_##eval,)
static const EvalOpFn bindings[OP_COUNT] = {
    TSSA_OPS(EVAL_BIND)
};
#undef EVAL_BIND

EvalOpFn eval_binding(OpId op)
{
    return op > OP_UNKNOWN && op < OP_COUNT ? bindings[op] : NULL;
}

/* PyTorch's canCast: no floating value into an integral or bool tensor, no
 * non-bool value into a bool tensor. */
static bool can_cast(TensorDType from, TensorDType to)
{
    if (dtype_is_float(from) && !dtype_is_float(to))
        return false;
    if (from != DT_BOOL && to == DT_BOOL)
        return false;
    return true;
}

static void format_shape(TextBuf *sb, const Tensor *t)
{
    textbuf_puts(sb, "[");
    for (int d = 0; d < t->ndim; d++)
        textbuf_printf(sb, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    textbuf_puts(sb, "]");
}

/* PyTorch's checks of an in-place op's result r against self: it must have
 * self's shape (an in-place op cannot broadcast self) and a dtype castable
 * to self's. */
static bool check_inplace_result(EvalCall *c, const Tensor *r, const Tensor *self)
{
    if (!tensor_same_shape(r, self)) {
        TextBuf want = {0}, got = {0};
        format_shape(&want, self);
        format_shape(&got, r);
        eval_fail(c, "output with shape %s doesn't match the broadcast shape %s", textbuf_cstr(&want),
                  textbuf_cstr(&got));
        textbuf_release(&want);
        textbuf_release(&got);
        return false;
    }
    if (!can_cast(r->dtype, self->dtype))
        return eval_fail(c, "result type %s can't be cast to the desired output type %s",
                         dtype_ts_name(r->dtype), dtype_ts_name(self->dtype));
    return true;
}

/* tssa::inplace_check(Tensor result, Tensor self) -> result: what TensorSSA
 * leaves of an elementwise in-place op's checks once the op has become its
 * out-of-place twin and a copy (functionalize/inplace_to_functional.c). */
bool eval_op_inplace_check(EvalCall *c)
{
    Tensor *r, *self;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &r) && eval_arg_tensor(c, 1, &self) &&
           check_inplace_result(c, r, self) && eval_out_arg(c, 0, 0);
}

/* The tensor fn(self, ...) gives for an in-place node's call c (*self set,
 * *result a new reference), or false after reporting why; `what` names fn
 * in the message. */
static bool run_out_of_place(EvalCall *c, EvalOpFn fn, const char *what, Tensor **self, RtValue **result)
{
    *result = NULL;
    if (!eval_arg_tensor(c, 0, self))
        return false;
    if (c->nouts != 1)
        return eval_fail(c, "an in-place op has one result, the node has %d", c->nouts);
    EvalCall inner = *c;
    inner.outs = result;
    inner.nouts = 1;
    bool ran = fn(&inner);
    if (ran && *result && (*result)->kind == RT_TENSOR)
        return true;
    rt_release(*result);
    *result = NULL;
    return ran && eval_fail(c, "the %s did not produce a tensor", what);
}

/* self.op_(...) as self.copy_(op(self, ...)), returning self. */
static bool inplace_via_functional(EvalCall *c, EvalOpFn functional)
{
    Tensor *self;
    RtValue *result;
    if (!run_out_of_place(c, functional, "functional variant", &self, &result))
        return false;
    Tensor *r = result->u.t;
    bool ok = check_inplace_result(c, r, self);
    if (ok && r != self && !tensor_copy_(self, r))
        ok = eval_fail_kernel(c, "copy into self failed");
    rt_release(result);
    return ok && eval_out_arg(c, 0, 0);
}

/* self.op_(...) for a metadata in-place op: self takes the layout of the
 * view op(self, ...), which shares self's storage. */
static bool inplace_metadata(EvalCall *c, EvalOpFn view)
{
    Tensor *self;
    RtValue *result;
    if (!run_out_of_place(c, view, "view", &self, &result))
        return false;
    const Tensor *v = result->u.t;
    bool ok = v->storage == self->storage || eval_fail(c, "the view does not share self's storage");
    if (ok && v != self) {
        self->ndim = v->ndim;
        memcpy(self->sizes, v->sizes, sizeof self->sizes);
        memcpy(self->strides, v->strides, sizeof self->strides);
        self->offset = v->offset;
    }
    rt_release(result);
    return ok && eval_out_arg(c, 0, 0);
}

bool eval_dispatch(EvalCall *c)
{
    OpId op = c->node->op;
    EvalOpFn fn = eval_binding(op);
    if (!fn && op > OP_UNKNOWN && op < OP_COUNT &&
        (op_info(op)->cls == OPC_ACCESS || op_info(op)->cls == OPC_ASSIGN))
        fn = eval_immut_binding(op);
    if (fn)
        return fn(c);
    if (op > OP_UNKNOWN && op < OP_COUNT && op_is_inplace(op) && op_info(op)->mutates == 0) {
        EvalOpFn functional = eval_binding(op_functional_variant(op));
        if (functional && op_inplace_is_metadata(op))
            return inplace_metadata(c, functional);
        if (functional)
            return inplace_via_functional(c, functional);
    }
    return eval_fail_unimplemented(c);
}
