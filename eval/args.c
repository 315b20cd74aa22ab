/* args.c — decoding a binding's arguments and storing its results.
 *
 * TorchScript type-checks a graph before printing it, so a kind mismatch
 * here means a hand-written or damaged graph: it is reported as an error that
 * names the argument (its position and graph value), never trusted. Numbers
 * are accepted wherever Python would accept them (a bool where an int is
 * expected, an int where a float is expected), because TorchScript's Scalar
 * and number types let them through.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"

/* ---------------------------------------------------------------- errors */

bool eval_fail(EvalCall *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    free(c->run->message);
    c->run->message = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    c->run->message[0] = '\0';
    if (n > 0) {
        va_start(ap, fmt);
        vsnprintf(c->run->message, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return false;
}

bool eval_fail_kernel(EvalCall *c, const char *fallback)
{
    const char *e = tensor_last_error();
    return eval_fail(c, "%s", e && *e ? e : fallback);
}

/* ---------------------------------------------------------------- kinds */

static bool arg_kind_error(EvalCall *c, int i, const char *expected)
{
    if (i >= c->nargs)
        return eval_fail(c, "expected an argument %d (%s), got %d arguments", i + 1, expected,
                        c->nargs);
    return eval_fail(c, "argument %d (%%%s): expected %s, got %s", i + 1,
                    c->node->inputs[i]->name, expected, rt_kind_name(c->args[i]->kind));
}

bool eval_nargs(EvalCall *c, int lo, int hi)
{
    if (c->nargs >= lo && c->nargs <= hi)
        return true;
    if (lo == hi)
        return eval_fail(c, "expected %d arguments, got %d", lo, c->nargs);
    return eval_fail(c, "expected %d to %d arguments, got %d", lo, hi, c->nargs);
}

RtKind eval_kind(const EvalCall *c, int i)
{
    return i < c->nargs ? c->args[i]->kind : RT_NONE;
}

bool eval_is_tensor(const EvalCall *c, int i) { return eval_kind(c, i) == RT_TENSOR; }
bool eval_is_none(const EvalCall *c, int i) { return eval_kind(c, i) == RT_NONE; }

const IrType *eval_out_type(const EvalCall *c, int i)
{
    return c->node->outputs[i]->type;
}

/* ---------------------------------------------------------------- tensors */

bool eval_arg_tensor(EvalCall *c, int i, Tensor **t)
{
    if (eval_kind(c, i) != RT_TENSOR || i >= c->nargs)
        return arg_kind_error(c, i, "Tensor");
    *t = c->args[i]->u.t;
    return true;
}

bool eval_arg_tensor_opt(EvalCall *c, int i, Tensor **t)
{
    if (i >= c->nargs || c->args[i]->kind == RT_NONE) {
        *t = NULL;
        return true;
    }
    return eval_arg_tensor(c, i, t);
}

bool eval_arg_operand(EvalCall *c, int i, Tensor **t)
{
    if (i >= c->nargs)
        return arg_kind_error(c, i, "Tensor or number");
    const RtValue *v = c->args[i];
    switch (v->kind) {
    case RT_TENSOR: *t = tensor_retain(v->u.t); return true;
    case RT_INT: *t = tensor_wrapped_int(v->u.i); return true;
    case RT_FLOAT: *t = tensor_wrapped_float(v->u.f); return true;
    case RT_BOOL: *t = tensor_wrapped_bool(v->u.i != 0); return true;
    default: return arg_kind_error(c, i, "Tensor or number");
    }
}

bool eval_arg_list(EvalCall *c, int i, RtValue **list)
{
    RtKind k = eval_kind(c, i);
    if (i >= c->nargs || (k != RT_LIST && k != RT_TUPLE))
        return arg_kind_error(c, i, "list");
    *list = c->args[i];
    return true;
}

bool eval_arg_tensor_list(EvalCall *c, int i, bool optional, Tensor ***ts, int *n)
{
    RtValue *list;
    if (!eval_arg_list(c, i, &list))
        return false;
    Tensor **out = xcalloc((size_t)list->u.list.n, sizeof *out);
    for (int k = 0; k < list->u.list.n; k++) {
        const RtValue *item = list->u.list.items[k];
        if (item->kind == RT_TENSOR) {
            out[k] = item->u.t;
        } else if (!(optional && item->kind == RT_NONE)) {
            free(out);
            return eval_fail(c, "argument %d (%%%s): item %d is a %s, expected Tensor%s", i + 1,
                            c->node->inputs[i]->name, k, rt_kind_name(item->kind),
                            optional ? " or None" : "");
        }
    }
    *ts = out;
    *n = list->u.list.n;
    return true;
}

/* ---------------------------------------------------------------- numbers */

bool eval_arg_int(EvalCall *c, int i, int64_t *v)
{
    RtKind k = eval_kind(c, i);
    if (i >= c->nargs || (k != RT_INT && k != RT_BOOL))
        return arg_kind_error(c, i, "int");
    *v = c->args[i]->u.i;
    return true;
}

bool eval_arg_int_opt(EvalCall *c, int i, int64_t *v, bool *present)
{
    *present = i < c->nargs && c->args[i]->kind != RT_NONE;
    return *present ? eval_arg_int(c, i, v) : true;
}

bool eval_arg_double(EvalCall *c, int i, double *v)
{
    if (i >= c->nargs || !rt_is_number(c->args[i]))
        return arg_kind_error(c, i, "number");
    *v = rt_number(c->args[i]);
    return true;
}

bool eval_arg_double_opt(EvalCall *c, int i, double *v, bool *present)
{
    *present = i < c->nargs && c->args[i]->kind != RT_NONE;
    return *present ? eval_arg_double(c, i, v) : true;
}

bool eval_arg_bool(EvalCall *c, int i, bool *v)
{
    RtKind k = eval_kind(c, i);
    if (i >= c->nargs || (k != RT_BOOL && k != RT_INT))
        return arg_kind_error(c, i, "bool");
    *v = c->args[i]->u.i != 0;
    return true;
}

bool eval_arg_bool_opt(EvalCall *c, int i, bool *v, bool *present)
{
    *present = i < c->nargs && c->args[i]->kind != RT_NONE;
    return *present ? eval_arg_bool(c, i, v) : true;
}

bool eval_arg_str(EvalCall *c, int i, const char **s)
{
    if (eval_kind(c, i) != RT_STR || i >= c->nargs)
        return arg_kind_error(c, i, "str");
    *s = c->args[i]->u.s;
    return true;
}

bool eval_arg_str_opt(EvalCall *c, int i, const char **s)
{
    if (i >= c->nargs || c->args[i]->kind == RT_NONE) {
        *s = NULL;
        return true;
    }
    return eval_arg_str(c, i, s);
}

bool eval_arg_ints(EvalCall *c, int i, int64_t *buf, int cap, int *n)
{
    if (i >= c->nargs)
        return arg_kind_error(c, i, "int[]");
    const RtValue *v = c->args[i];
    if (v->kind == RT_INT) {
        buf[0] = v->u.i;
        *n = 1;
        return true;
    }
    if (v->kind != RT_LIST && v->kind != RT_TUPLE)
        return arg_kind_error(c, i, "int[]");
    if (v->u.list.n > cap)
        return eval_fail(c, "argument %d (%%%s): %d entries, at most %d supported", i + 1,
                        c->node->inputs[i]->name, v->u.list.n, cap);
    for (int k = 0; k < v->u.list.n; k++) {
        const RtValue *item = v->u.list.items[k];
        if (item->kind != RT_INT && item->kind != RT_BOOL)
            return eval_fail(c, "argument %d (%%%s): item %d is a %s, expected int", i + 1,
                            c->node->inputs[i]->name, k, rt_kind_name(item->kind));
        buf[k] = item->u.i;
    }
    *n = v->u.list.n;
    return true;
}

bool eval_arg_ints_opt(EvalCall *c, int i, int64_t *buf, int cap, int *n, bool *present)
{
    *present = i < c->nargs && c->args[i]->kind != RT_NONE;
    *n = 0;
    return *present ? eval_arg_ints(c, i, buf, cap, n) : true;
}

bool eval_arg_ints_fixed(EvalCall *c, int i, int64_t *buf, int n)
{
    int64_t tmp[TENSOR_MAX_DIMS];
    int got;
    if (!eval_arg_ints(c, i, tmp, TENSOR_MAX_DIMS, &got))
        return false;
    if (got != n && got != 1)
        return eval_fail(c, "argument %d (%%%s): expected %d values, got %d", i + 1,
                        c->node->inputs[i]->name, n, got);
    for (int k = 0; k < n; k++)
        buf[k] = tmp[got == 1 ? 0 : k];
    return true;
}

bool eval_arg_dtype_opt(EvalCall *c, int i, int *dt)
{
    if (i >= c->nargs || c->args[i]->kind == RT_NONE) {
        *dt = -1;
        return true;
    }
    int64_t code;
    if (!eval_arg_int(c, i, &code))
        return false;
    *dt = dtype_from_scalar_type(code);
    if (*dt < 0)
        return eval_fail(c, "ScalarType %lld (half, complex, ...) is not supported",
                        (long long)code);
    return true;
}

/* ---------------------------------------------------------------- results */

bool eval_args_var(EvalCall *c, int64_t dims[TENSOR_MAX_DIMS], int *ndims, double *correction,
                   bool *keepdim)
{
    *ndims = 0;
    *correction = 1;
    *keepdim = false;
    bool has_dims;
    if (c->nargs == 2) {
        bool unbiased;
        if (!eval_arg_bool(c, 1, &unbiased))
            return false;
        *correction = unbiased ? 1 : 0;
    } else if (c->nargs >= 3) {
        if (!eval_arg_ints_opt(c, 1, dims, TENSOR_MAX_DIMS, ndims, &has_dims))
            return false;
        if (eval_kind(c, 2) == RT_BOOL) {
            bool unbiased;
            if (!eval_arg_bool(c, 2, &unbiased))
                return false;
            *correction = unbiased ? 1 : 0;
        } else {
            bool has_correction;
            if (!eval_arg_double_opt(c, 2, correction, &has_correction))
                return false;
            if (!has_correction)
                *correction = 1;
        }
        if (c->nargs > 3 && !eval_arg_bool(c, 3, keepdim))
            return false;
    }
    return true;
}

/* user runs once for each value v takes: it is not in a loop body that v's
 * definition is outside of, whose next iteration would read v again. */
static bool runs_once_per_value(const IrValue *v, const IrNode *user)
{
    for (const IrBlock *b = user->owner; b; b = b->owner ? b->owner->owner : NULL) {
        if (v->def->owner == b)
            return true;
        if (b->owner && b->owner->op == OP_PRIM_LOOP)
            return false;
    }
    return false;
}

/* n, or the node holding n in its blocks, that sits in block b; NULL when
 * n is not inside b. */
static const IrNode *lifted_into(const IrNode *n, const IrBlock *b)
{
    while (n && n->owner != b)
        n = n->owner->owner;
    return n;
}

/* Every use of v but user's (one operand) has run when user runs, or never
 * runs in the same pass: in the block both are in (once lifted to it), the
 * other use comes first, or both sit in different branches of one If. So
 * no later node reads the value (`l.insert(len(l), v)` reads l twice; an
 * `if` that pops from l in one branch returns l unchanged in the other). */
static bool other_uses_done(const IrValue *v, const IrNode *user)
{
    if (v->nuses > 8)
        return false;       /* not worth the walk */
    int own = 0;
    for (int u = 0; u < v->nuses; u++) {
        const IrNode *n = v->uses[u].user;
        if (n == user) {
            own++;
            continue;
        }
        const IrNode *x = n, *y = NULL;
        for (; x; x = x->owner->owner)
            if ((y = lifted_into(user, x->owner)))
                break;
        if (!x)
            return false;
        bool exclusive = x == y && x->op == OP_PRIM_IF;     /* different branches */
        if (!exclusive && (x == y || x->order >= y->order))
            return false;
    }
    return own == 1;
}

bool eval_arg_owned(const EvalCall *c, int i)
{
    if (i >= c->nargs || !c->args[i] || c->args[i]->refcount != 1)
        return false;
    const IrValue *v = c->node->inputs[i];
    return runs_once_per_value(v, c->node) && other_uses_done(v, c->node);
}

bool eval_arg_take(EvalCall *c, int i)
{
    if (i >= (int)(8 * sizeof c->taken) || !eval_arg_owned(c, i))
        return false;
    c->taken |= 1u << i;
    return true;
}

bool eval_out_value(EvalCall *c, int i, RtValue *v)
{
    if (!v)
        return false;
    if (i >= c->nouts) {
        rt_release(v);
        return eval_fail(c, "the node has %d outputs, the op makes more", c->nouts);
    }
    rt_release(c->outs[i]);
    c->outs[i] = v;
    return true;
}

bool eval_out_tensor(EvalCall *c, int i, Tensor *t)
{
    if (!t)
        return eval_fail_kernel(c, "the tensor kernel failed");
    return eval_out_value(c, i, rt_tensor_take(t));
}

bool eval_out_tensors(EvalCall *c, Tensor *const *ts, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (ok)
            ok = eval_out_tensor(c, i, ts[i]);
        else
            tensor_release(ts[i]);
    }
    return ok;
}

bool eval_out_arg(EvalCall *c, int i, int j)
{
    return eval_out_value(c, i, rt_retain(c->args[j]));
}

bool eval_out_self(EvalCall *c, bool done, const char *fallback)
{
    return (done || eval_fail_kernel(c, fallback)) && eval_out_arg(c, 0, 0);
}

bool eval_out_written_copy(EvalCall *c, Tensor *copy, bool done, const char *fallback)
{
    if (done)
        return eval_out_tensor(c, 0, copy);
    tensor_release(copy);
    return eval_fail_kernel(c, fallback);
}

bool eval_out_tensor_list(EvalCall *c, Tensor **ts, int n)
{
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int i = 0; i < n; i++) {
        RtValue *item = rt_tensor_take(ts[i]);
        rt_list_append(list, item);
        rt_release(item);
    }
    free(ts);
    return eval_out_value(c, 0, list);
}

RtValue *eval_number_for_output(EvalCall *c, int i, double v, bool is_int, int64_t iv)
{
    IrTypeKind kind = i < c->nouts ? eval_out_type(c, i)->kind : TY_NUMBER;
    if (kind == TY_INT && !is_int) {
        /* int(x) of a float: Python truncates; out of range is an error. */
        if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) {
            eval_fail(c, "float %g cannot be converted to int", v);
            return NULL;
        }
        return rt_int((int64_t)v);
    }
    if (kind == TY_FLOAT)
        return rt_float(is_int ? (double)iv : v);
    if (kind == TY_BOOL)
        return rt_bool(is_int ? iv != 0 : v != 0);
    return is_int ? rt_int(iv) : rt_float(v);
}

/* ---------------------------------------------------------------- call shapes */

bool eval_call_tensor_pair(EvalCall *c, EvalTensorPairFn fn)
{
    Tensor *self = NULL, *other = NULL;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &other) &&
           eval_out_tensor(c, 0, fn(self, other));
}

bool eval_args_tensor_ints(EvalCall *c, int hi, Tensor **self, int64_t *list, int *n)
{
    return eval_nargs(c, 2, hi) && eval_arg_tensor(c, 0, self) &&
           eval_arg_ints(c, 1, list, TENSOR_MAX_DIMS, n);
}

/* (Tensor self, int[] list) -> fn(self, ...) or, without fn, view(self, ...). */
static bool call_tensor_ints(EvalCall *c, EvalTensorIntsFn fn, EvalViewIntsFn view)
{
    Tensor *self = NULL;
    int64_t list[TENSOR_MAX_DIMS];
    int n = 0;
    return eval_args_tensor_ints(c, 2, &self, list, &n) &&
           eval_out_tensor(c, 0, fn ? fn(self, n, list) : view(self, n, list));
}

bool eval_call_tensor_ints(EvalCall *c, EvalTensorIntsFn fn)
{
    return call_tensor_ints(c, fn, NULL);
}

bool eval_call_view_ints(EvalCall *c, EvalViewIntsFn fn)
{
    return call_tensor_ints(c, NULL, fn);
}

bool eval_fail_unimplemented(EvalCall *c)
{
    TextBuf kinds = {0};
    for (int i = 0; i < c->nargs; i++)
        textbuf_printf(&kinds, "%s%s", i ? ", " : "", rt_kind_name(c->args[i]->kind));
    if (c->node->op == OP_UNKNOWN)
        /* ir_check_ops let it through only where a run might not reach it */
        eval_fail(c, "unknown op '%s': the op table does not list it, so it cannot be run "
                     "(reached at run time, called as %s(%s))%s%s",
                  c->node->kind, c->node->kind, textbuf_cstr(&kinds),
                  op_unknown_hint(c->node->kind) ? ": " : "",
                  op_unknown_hint(c->node->kind) ? op_unknown_hint(c->node->kind) : "");
    else
        eval_fail(c, "not implemented on the %s backend (called as %s(%s))",
                  c->run->backend ? c->run->backend : "ref", c->node->kind, textbuf_cstr(&kinds));
    textbuf_release(&kinds);
    return false;
}
