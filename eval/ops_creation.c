/* ops_creation.c — bindings of the factory ops: zeros, ones, full, empty,
 * arange, linspace, eye, the *_like and new_* families, aten::tensor built
 * from (nested) Python lists, scalar_tensor and meshgrid.
 *
 * Layout, device and pin_memory arguments are accepted and ignored (every
 * tensor is a strided host tensor). Default dtypes follow PyTorch: float32
 * for zeros/ones/empty/linspace/scalar_tensor, the fill value's kind for
 * full, int64 for an arange of ints, self's dtype for *_like and new_*, and
 * for aten::tensor the widest kind among the data (bool < int < float).
 */
#include <stdlib.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* A tensor of the given shape filled with a Python number. */
static Tensor *filled(TensorDType dt, int ndim, const int64_t *sizes, const RtValue *value)
{
    if (value->kind == RT_FLOAT)
        return tensor_full(dt, ndim, sizes, value->u.f);
    Tensor *t = tensor_zeros(dt, ndim, sizes);
    if (t && value->u.i != 0 && !tensor_fill_int_(t, value->u.i)) {
        tensor_release(t);
        return NULL;
    }
    return t;
}

static TensorDType dtype_of_number(const RtValue *v)
{
    return v->kind == RT_FLOAT ? dtype_default_float() : v->kind == RT_BOOL ? DT_BOOL : DT_I64;
}

/* int[] size at argument i: at most TENSOR_MAX_DIMS entries, none negative. */
static bool size_arg(EvalCall *c, int i, int64_t *sizes, int *n)
{
    if (!eval_arg_ints(c, i, sizes, TENSOR_MAX_DIMS, n))
        return false;
    for (int k = 0; k < *n; k++)
        if (sizes[k] < 0)
            return eval_fail(c, "Trying to create tensor with negative dimension %lld",
                            (long long)sizes[k]);
    return true;
}

/* Scalar fill_value at argument i. */
static bool fill_value_arg(EvalCall *c, int i)
{
    if (!rt_is_number(c->args[i]))
        return eval_fail(c, "fill_value must be a number, got %s", rt_kind_name(eval_kind(c, i)));
    return true;
}

/* Output 0 is a new tensor of the given shape: zeros (fill 0), ones (fill
 * 1) or uninitialized (fill -1). */
static bool out_sized(EvalCall *c, TensorDType d, int n, const int64_t *sizes, int fill)
{
    if (fill < 0)
        return eval_out_tensor(c, 0, tensor_empty(d, n, sizes));
    return eval_out_tensor(c, 0, fill ? tensor_full(d, n, sizes, 1) : tensor_zeros(d, n, sizes));
}

/* zeros/ones/empty(int[] size, ScalarType? dtype, Layout?, Device?, bool? pin
 * [, MemoryFormat?]) */
static bool sized(EvalCall *c, int fill /* 0, 1, or -1 for empty */)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int n, dt;
    if (!eval_nargs(c, 1, 6) || !size_arg(c, 0, sizes, &n) || !eval_arg_dtype_opt(c, 1, &dt))
        return false;
    return out_sized(c, dt < 0 ? dtype_default_float() : (TensorDType)dt, n, sizes, fill);
}
bool eval_op_zeros(EvalCall *c) { return sized(c, 0); }
bool eval_op_ones(EvalCall *c) { return sized(c, 1); }
bool eval_op_empty(EvalCall *c) { return sized(c, -1); }

/* full(int[] size, Scalar fill_value, ScalarType? dtype, Layout?, Device?, bool? pin) */
bool eval_op_full(EvalCall *c)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int n, dt;
    if (!eval_nargs(c, 2, 6) || !size_arg(c, 0, sizes, &n) || !eval_arg_dtype_opt(c, 2, &dt) ||
        !fill_value_arg(c, 1))
        return false;
    TensorDType d = dt < 0 ? dtype_of_number(c->args[1]) : (TensorDType)dt;
    return eval_out_tensor(c, 0, filled(d, n, sizes, c->args[1]));
}

/* zeros_like/ones_like/empty_like(Tensor self, ScalarType? dtype, Layout?,
 * Device?, bool? pin, MemoryFormat?) */
static bool like(EvalCall *c, int fill)
{
    Tensor *self;
    int dt;
    if (!eval_nargs(c, 1, 6) || !eval_arg_tensor(c, 0, &self) || !eval_arg_dtype_opt(c, 1, &dt))
        return false;
    return out_sized(c, dt < 0 ? self->dtype : (TensorDType)dt, self->ndim, self->sizes, fill);
}
bool eval_op_zeros_like(EvalCall *c) { return like(c, 0); }
bool eval_op_ones_like(EvalCall *c) { return like(c, 1); }
bool eval_op_empty_like(EvalCall *c) { return like(c, -1); }

/* full_like(Tensor self, Scalar fill_value, ScalarType? dtype, Layout?,
 * Device?, bool? pin, MemoryFormat?) */
bool eval_op_full_like(EvalCall *c)
{
    Tensor *self;
    int dt;
    if (!eval_nargs(c, 2, 7) || !eval_arg_tensor(c, 0, &self) || !eval_arg_dtype_opt(c, 2, &dt) ||
        !fill_value_arg(c, 1))
        return false;
    TensorDType d = dt < 0 ? self->dtype : (TensorDType)dt;
    return eval_out_tensor(c, 0, filled(d, self->ndim, self->sizes, c->args[1]));
}

/* new_zeros/new_ones/new_empty(Tensor self, int[] size, ScalarType? dtype,
 * Layout?, Device?, bool? pin) */
static bool new_sized(EvalCall *c, int fill)
{
    Tensor *self;
    int64_t sizes[TENSOR_MAX_DIMS];
    int n, dt;
    if (!eval_nargs(c, 2, 6) || !eval_arg_tensor(c, 0, &self) || !size_arg(c, 1, sizes, &n) ||
        !eval_arg_dtype_opt(c, 2, &dt))
        return false;
    return out_sized(c, dt < 0 ? self->dtype : (TensorDType)dt, n, sizes, fill);
}
bool eval_op_new_zeros(EvalCall *c) { return new_sized(c, 0); }
bool eval_op_new_ones(EvalCall *c) { return new_sized(c, 1); }
bool eval_op_new_empty(EvalCall *c) { return new_sized(c, -1); }

/* new_full(Tensor self, int[] size, Scalar fill_value, ScalarType? dtype, ...) */
bool eval_op_new_full(EvalCall *c)
{
    Tensor *self;
    int64_t sizes[TENSOR_MAX_DIMS];
    int n, dt;
    if (!eval_nargs(c, 3, 7) || !eval_arg_tensor(c, 0, &self) || !size_arg(c, 1, sizes, &n) ||
        !eval_arg_dtype_opt(c, 3, &dt) || !fill_value_arg(c, 2))
        return false;
    TensorDType d = dt < 0 ? self->dtype : (TensorDType)dt;
    return eval_out_tensor(c, 0, filled(d, n, sizes, c->args[2]));
}

/* arange(Scalar end, ...) 5 args / arange(Scalar start, Scalar end, ...) 6 /
 * arange(Scalar start, Scalar end, Scalar step, ...) 7; each then takes
 * ScalarType? dtype, Layout?, Device?, bool? pin_memory. */
bool eval_op_arange(EvalCall *c)
{
    int nbounds;
    switch (c->nargs) {
    case 5: nbounds = 1; break;
    case 6: nbounds = 2; break;
    case 7: nbounds = 3; break;
    default:
        if (c->nargs >= 1 && c->nargs <= 3) {
            nbounds = c->nargs; /* arange without the factory arguments */
            break;
        }
        return eval_fail(c, "no aten::arange overload takes %d arguments", c->nargs);
    }
    double bounds[3] = {0, 0, 1};
    bool all_int = true;
    for (int i = 0; i < nbounds; i++) {
        if (!eval_arg_double(c, i, &bounds[nbounds == 1 ? 1 : i]))
            return false;
        all_int = all_int && eval_kind(c, i) != RT_FLOAT;
    }
    int dt = -1;
    if (c->nargs > nbounds && !eval_arg_dtype_opt(c, nbounds, &dt))
        return false;
    TensorDType d = dt >= 0 ? (TensorDType)dt : all_int ? DT_I64 : dtype_default_float();
    if (bounds[2] == 0)
        return eval_fail(c, "step must be nonzero");
    if ((bounds[2] > 0 && bounds[1] < bounds[0]) || (bounds[2] < 0 && bounds[1] > bounds[0]))
        return eval_fail(c, "upper bound and larger bound inconsistent with step sign");
    return eval_out_tensor(c, 0, tensor_arange(bounds[0], bounds[1], bounds[2], d));
}

/* linspace(Scalar start, Scalar end, int steps, ScalarType? dtype, Layout?,
 * Device?, bool? pin) */
bool eval_op_linspace(EvalCall *c)
{
    double start, end;
    int64_t steps;
    int dt;
    if (!eval_nargs(c, 3, 7) || !eval_arg_double(c, 0, &start) || !eval_arg_double(c, 1, &end) ||
        !eval_arg_int(c, 2, &steps) || !eval_arg_dtype_opt(c, 3, &dt))
        return false;
    if (steps < 0)
        return eval_fail(c, "number of steps must be non-negative");
    TensorDType d = dt < 0 ? dtype_default_float() : (TensorDType)dt;
    return eval_out_tensor(c, 0, tensor_linspace(start, end, steps, d));
}

/* logspace(Scalar start, Scalar end, int steps, float base=10.0,
 * ScalarType? dtype, Layout?, Device?, bool? pin) */
bool eval_op_logspace(EvalCall *c)
{
    double start, end, base = 10.0;
    int64_t steps;
    int dt = -1;
    if (!eval_nargs(c, 3, 8) || !eval_arg_double(c, 0, &start) || !eval_arg_double(c, 1, &end) ||
        !eval_arg_int(c, 2, &steps) || (c->nargs > 3 && !eval_arg_double(c, 3, &base)) ||
        (c->nargs > 4 && !eval_arg_dtype_opt(c, 4, &dt)))
        return false;
    TensorDType d = dt < 0 ? dtype_default_float() : (TensorDType)dt;
    return eval_out_tensor(c, 0, tensor_logspace(start, end, steps, base, d));
}

/* eye(int n, ScalarType? dtype, ...) 5 args / eye(int n, int m, ...) 6 */
bool eval_op_eye(EvalCall *c)
{
    int64_t n, m;
    int dt;
    if (!eval_nargs(c, 1, 6) || !eval_arg_int(c, 0, &n))
        return false;
    bool has_m = c->nargs == 6;
    if (has_m) {
        if (!eval_arg_int(c, 1, &m) || !eval_arg_dtype_opt(c, 2, &dt))
            return false;
    } else {
        m = n;
        if (!eval_arg_dtype_opt(c, 1, &dt))
            return false;
    }
    if (n < 0 || m < 0)
        return eval_fail(c, "n and m must be non-negative, got %lld and %lld", (long long)n,
                        (long long)m);
    TensorDType d = dt < 0 ? dtype_default_float() : (TensorDType)dt;
    return eval_out_tensor(c, 0, tensor_eye(n, m, d));
}

/* ---------------------------------------------------------------- aten::tensor */

/* Checks that nested lists are rectangular with the given shape (depth d
 * holds lists of length sizes[d], depth ndim holds numbers) and finds the
 * widest element kind. */
static bool data_check(EvalCall *c, const RtValue *v, int depth, const int64_t *sizes, int ndim,
                       TensorDType *widest)
{
    bool is_seq = v->kind == RT_LIST || v->kind == RT_TUPLE;
    if (depth == ndim) {
        if (is_seq)
            return eval_fail(c, "expected a number at depth %d, got a sequence", depth);
        if (!rt_is_number(v))
            return eval_fail(c, "tensor data holds a %s", rt_kind_name(v->kind));
        TensorDType k = dtype_of_number(v);
        if (k == dtype_default_float() || (k == DT_I64 && *widest == DT_BOOL))
            *widest = k;
        return true;
    }
    if (!is_seq)
        return eval_fail(c, "expected a sequence at depth %d, got a %s", depth,
                        rt_kind_name(v->kind));
    if (v->u.list.n != sizes[depth])
        return eval_fail(c, "expected sequence of length %lld at dim %d (got %d)",
                        (long long)sizes[depth], depth, v->u.list.n);
    for (int i = 0; i < v->u.list.n; i++)
        if (!data_check(c, v->u.list.items[i], depth + 1, sizes, ndim, widest))
            return false;
    return true;
}

static void data_fill(Tensor *t, const RtValue *v, int64_t *next)
{
    if (v->kind == RT_LIST || v->kind == RT_TUPLE) {
        for (int i = 0; i < v->u.list.n; i++)
            data_fill(t, v->u.list.items[i], next);
        return;
    }
    if (v->kind == RT_FLOAT)
        tensor_set_flat(t, (*next)++, v->u.f);
    else
        tensor_set_flat_int(t, (*next)++, v->u.i);
}

/* Output 0 is a tensor from a number or nested lists of numbers at
 * argument 0; dt < 0 infers the dtype. */
static bool out_from_data(EvalCall *c, int dt)
{
    const RtValue *data = c->args[0];
    int64_t sizes[TENSOR_MAX_DIMS];
    int ndim = 0;
    /* The shape comes from the first path down; data_check verifies the rest. */
    const RtValue *v = data;
    while (v->kind == RT_LIST || v->kind == RT_TUPLE) {
        if (ndim == TENSOR_MAX_DIMS)
            return eval_fail(c, "tensor data nests deeper than %d levels", TENSOR_MAX_DIMS);
        sizes[ndim++] = v->u.list.n;
        if (v->u.list.n == 0)
            break;
        v = v->u.list.items[0];
    }
    /* An empty list has no elements to say their kind: float, as PyTorch. */
    TensorDType widest = ndim > 0 && sizes[ndim - 1] == 0 ? dtype_default_float() : DT_BOOL;
    if (!data_check(c, data, 0, sizes, ndim, &widest))
        return false;
    TensorDType d = dt < 0 ? widest : (TensorDType)dt;
    Tensor *t = tensor_zeros(d, ndim, sizes);
    if (!t)
        return eval_fail_kernel(c, "cannot allocate the tensor");
    int64_t next = 0;
    data_fill(t, data, &next);
    return eval_out_tensor(c, 0, t);
}

/* tensor(t data, ScalarType? dtype, Device? device, bool requires_grad) */
bool eval_op_tensor(EvalCall *c)
{
    int dt;
    return eval_nargs(c, 1, 4) && eval_arg_dtype_opt(c, 1, &dt) && out_from_data(c, dt);
}

/* as_tensor(t data, ScalarType? dtype, Device? device): a tensor argument
 * comes back itself when its dtype already fits. */
bool eval_op_as_tensor(EvalCall *c)
{
    int dt;
    if (!eval_nargs(c, 1, 3) || !eval_arg_dtype_opt(c, 1, &dt))
        return false;
    if (eval_is_tensor(c, 0)) {
        Tensor *self = c->args[0]->u.t;
        if (dt < 0 || dt == (int)self->dtype)
            return eval_out_arg(c, 0, 0);
        return eval_out_tensor(c, 0, tensor_to_dtype(self, (TensorDType)dt));
    }
    return out_from_data(c, dt);
}

/* scalar_tensor(Scalar s, ScalarType? dtype, Layout?, Device?, bool? pin) */
bool eval_op_scalar_tensor(EvalCall *c)
{
    int dt;
    if (!eval_nargs(c, 1, 5) || !eval_arg_dtype_opt(c, 1, &dt))
        return false;
    if (!rt_is_number(c->args[0]))
        return eval_fail(c, "expected a number, got %s", rt_kind_name(eval_kind(c, 0)));
    TensorDType d = dt < 0 ? dtype_default_float() : (TensorDType)dt;
    return eval_out_tensor(c, 0, filled(d, 0, NULL, c->args[0]));
}

/* meshgrid(Tensor[] tensors) / meshgrid(Tensor[] tensors, *, str indexing) */
bool eval_op_meshgrid(EvalCall *c)
{
    Tensor **ts;
    int n;
    const char *indexing = "ij";
    if (!eval_nargs(c, 1, 2) || (c->nargs == 2 && !eval_arg_str(c, 1, &indexing)) ||
        !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    bool xy = indexing[0] == 'x';
    if (!xy && !(indexing[0] == 'i' && indexing[1] == 'j')) {
        free(ts);
        return eval_fail(c, "indexing must be 'ij' or 'xy', got '%s'", indexing);
    }
    Tensor **out = xcalloc((size_t)n, sizeof *out);
    bool ok = tensor_meshgrid(ts, n, xy, out);
    free(ts);
    if (!ok) {
        free(out);
        return eval_fail_kernel(c, "meshgrid failed");
    }
    return eval_out_tensor_list(c, out, n);
}
