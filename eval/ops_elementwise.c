/* ops_elementwise.c — bindings of the elementwise ops (aten::add, mul, exp,
 * relu, eq, where, clamp, ...) and their in-place twins.
 *
 * Every binary op takes Tensor or Scalar operands; a Python number becomes a
 * wrapped-number 0-d tensor (eval_arg_operand), so result dtypes follow
 * PyTorch's promotion (int tensor * 2.5 -> float32). When no operand is a
 * tensor the same op name means TorchScript's scalar arithmetic
 * (aten::add(int, int), aten::eq(str, str), math.exp(float)) and goes to
 * eval_scalar_op.
 *
 * In-place twins (aten::mul_) call the tensor library's in-place kernels,
 * which check that the result dtype can be cast to self's (PyTorch's rule),
 * and return self: the very RtValue that came in, so aliasing is exact.
 */
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

static bool any_tensor(const EvalCall *c, int n)
{
    for (int i = 0; i < n && i < c->nargs; i++)
        if (eval_is_tensor(c, i))
            return true;
    return false;
}

/* Operands i and i + 1 (Tensor or number each) as new references; both
 * NULL where decoding stopped, so drop_operands can always follow. */
static bool operands(EvalCall *c, int i, Tensor **a, Tensor **b)
{
    *a = *b = NULL;
    return eval_arg_operand(c, i, a) && eval_arg_operand(c, i + 1, b);
}

/* Releases the operands and passes ok on. */
static bool drop_operands(bool ok, Tensor *a, Tensor *b)
{
    tensor_release(a);
    tensor_release(b);
    return ok;
}

/* ---------------------------------------------------------------- unary */

static bool unary_op(EvalCall *c, UnaryOp op, bool inplace, double p0, double p1)
{
    if (!inplace && !eval_is_tensor(c, 0))
        return eval_scalar_op(c);
    Tensor *t;
    if (!eval_arg_tensor(c, 0, &t))
        return false;
    if (inplace)
        return eval_out_self(c, tensor_unary_(op, t, p0, p1), "in-place kernel failed");
    return eval_out_tensor(c, 0, tensor_unary(op, t, p0, p1));
}

#define UNARY_PAIR(name, UN)                                                         \
    bool eval_op_##name(EvalCall *c) { return eval_nargs(c, 1, 1) && unary_op(c, UN, false, 0, 0); } \
    bool eval_op_##name##_(EvalCall *c) { return eval_nargs(c, 1, 1) && unary_op(c, UN, true, 0, 0); }

UNARY_PAIR(neg, UN_NEG)
UNARY_PAIR(abs, UN_ABS)
UNARY_PAIR(exp, UN_EXP)
UNARY_PAIR(log2, UN_LOG2)
UNARY_PAIR(log1p, UN_LOG1P)
UNARY_PAIR(expm1, UN_EXPM1)
UNARY_PAIR(sqrt, UN_SQRT)
UNARY_PAIR(rsqrt, UN_RSQRT)
UNARY_PAIR(sin, UN_SIN)
UNARY_PAIR(cos, UN_COS)
UNARY_PAIR(tan, UN_TAN)
UNARY_PAIR(tanh, UN_TANH)
UNARY_PAIR(erf, UN_ERF)
UNARY_PAIR(sigmoid, UN_SIGMOID)
UNARY_PAIR(relu, UN_RELU)
UNARY_PAIR(relu6, UN_RELU6)
UNARY_PAIR(silu, UN_SILU)
UNARY_PAIR(hardsigmoid, UN_HARDSIGMOID)
UNARY_PAIR(hardswish, UN_HARDSWISH)
UNARY_PAIR(floor, UN_FLOOR)
UNARY_PAIR(ceil, UN_CEIL)
UNARY_PAIR(trunc, UN_TRUNC)
UNARY_PAIR(sign, UN_SIGN)
UNARY_PAIR(reciprocal, UN_RECIPROCAL)
UNARY_PAIR(logical_not, UN_LOGICAL_NOT)
UNARY_PAIR(bitwise_not, UN_BITWISE_NOT)
UNARY_PAIR(acos, UN_ACOS)
UNARY_PAIR(asin, UN_ASIN)
UNARY_PAIR(atan, UN_ATAN)
UNARY_PAIR(sinh, UN_SINH)
UNARY_PAIR(cosh, UN_COSH)
UNARY_PAIR(asinh, UN_ASINH)
UNARY_PAIR(acosh, UN_ACOSH)
UNARY_PAIR(atanh, UN_ATANH)
UNARY_PAIR(erfc, UN_ERFC)
UNARY_PAIR(exp2, UN_EXP2)
UNARY_PAIR(log10, UN_LOG10)
UNARY_PAIR(lgamma, UN_LGAMMA)
UNARY_PAIR(deg2rad, UN_DEG2RAD)
UNARY_PAIR(rad2deg, UN_RAD2DEG)
UNARY_PAIR(sinc, UN_SINC)

bool eval_op_invert(EvalCall *c)
{
    return eval_nargs(c, 1, 1) && unary_op(c, UN_BITWISE_NOT, false, 0, 0);
}

/* aten::log(Tensor) or math.log(x[, base]) on floats. */
static bool log_op(EvalCall *c, bool inplace)
{
    if (!inplace && !eval_is_tensor(c, 0))
        return eval_nargs(c, 1, 2) && eval_scalar_op(c);
    return eval_nargs(c, 1, 1) && unary_op(c, UN_LOG, inplace, 0, 0);
}
bool eval_op_log(EvalCall *c) { return log_op(c, false); }
bool eval_op_log_(EvalCall *c) { return log_op(c, true); }

/* round(Tensor self) / round(Tensor self, *, int decimals). */
static bool round_op(EvalCall *c, bool inplace)
{
    int64_t decimals = 0;
    if (!eval_nargs(c, 1, 2))
        return false;
    if (c->nargs == 2 && !eval_arg_int(c, 1, &decimals))
        return false;
    if (decimals == 0)
        return unary_op(c, UN_ROUND, inplace, 0, 0);
    return unary_op(c, UN_ROUND_DECIMALS, inplace, (double)decimals, 0);
}
bool eval_op_round(EvalCall *c) { return round_op(c, false); }
bool eval_op_round_(EvalCall *c) { return round_op(c, true); }

/* leaky_relu(Tensor self, Scalar negative_slope=0.01) */
static bool leaky_relu_op(EvalCall *c, bool inplace)
{
    double slope = 0.01;
    if (!eval_nargs(c, 1, 2) || (c->nargs == 2 && !eval_arg_double(c, 1, &slope)))
        return false;
    return unary_op(c, UN_LEAKY_RELU, inplace, slope, 0);
}
bool eval_op_leaky_relu(EvalCall *c) { return leaky_relu_op(c, false); }
bool eval_op_leaky_relu_(EvalCall *c) { return leaky_relu_op(c, true); }

/* elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) */
static bool elu_op(EvalCall *c, bool inplace)
{
    double alpha = 1, scale = 1, input_scale = 1;
    if (!eval_nargs(c, 1, 4) || (c->nargs > 1 && !eval_arg_double(c, 1, &alpha)) ||
        (c->nargs > 2 && !eval_arg_double(c, 2, &scale)) ||
        (c->nargs > 3 && !eval_arg_double(c, 3, &input_scale)))
        return false;
    if (scale != 1 || input_scale != 1)
        return eval_fail(c, "elu with scale or input_scale other than 1 is not supported");
    return unary_op(c, UN_ELU, inplace, alpha, 0);
}
bool eval_op_elu(EvalCall *c) { return elu_op(c, false); }
bool eval_op_elu_(EvalCall *c) { return elu_op(c, true); }

/* softplus(Tensor self, Scalar beta=1, Scalar threshold=20) */
bool eval_op_softplus(EvalCall *c)
{
    double beta = 1, threshold = 20;
    if (!eval_nargs(c, 1, 3) || (c->nargs > 1 && !eval_arg_double(c, 1, &beta)) ||
        (c->nargs > 2 && !eval_arg_double(c, 2, &threshold)))
        return false;
    return unary_op(c, UN_SOFTPLUS, false, beta, threshold);
}

/* hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) */
static bool hardtanh_op(EvalCall *c, bool inplace)
{
    double lo = -1, hi = 1;
    if (!eval_nargs(c, 1, 3) || (c->nargs > 1 && !eval_arg_double(c, 1, &lo)) ||
        (c->nargs > 2 && !eval_arg_double(c, 2, &hi)))
        return false;
    return unary_op(c, UN_HARDTANH, inplace, lo, hi);
}
bool eval_op_hardtanh(EvalCall *c) { return hardtanh_op(c, false); }
bool eval_op_hardtanh_(EvalCall *c) { return hardtanh_op(c, true); }

/* gelu(Tensor self) / gelu(Tensor self, *, str approximate="none") */
static bool gelu_op(EvalCall *c, bool inplace)
{
    const char *approximate = "none";
    if (!eval_nargs(c, 1, 2) || (c->nargs == 2 && !eval_arg_str(c, 1, &approximate)))
        return false;
    if (strcmp(approximate, "none") == 0)
        return unary_op(c, UN_GELU, inplace, 0, 0);
    if (strcmp(approximate, "tanh") == 0)
        return unary_op(c, UN_GELU_TANH, inplace, 0, 0);
    return eval_fail(c, "approximate argument must be either none or tanh, got '%s'", approximate);
}
bool eval_op_gelu(EvalCall *c) { return gelu_op(c, false); }
bool eval_op_gelu_(EvalCall *c) { return gelu_op(c, true); }

/* ---------------------------------------------------------------- binary */

static bool binary_op(EvalCall *c, BinaryOp op, bool inplace)
{
    if (!inplace && !any_tensor(c, 2))
        return eval_scalar_op(c);
    Tensor *a = NULL, *b = NULL;
    bool ok;
    if (inplace) {
        ok = eval_arg_tensor(c, 0, &a) && eval_arg_operand(c, 1, &b) &&
             eval_out_self(c, tensor_binary_(op, a, b), "in-place kernel failed");
        tensor_release(b);
        return ok;
    }
    ok = operands(c, 0, &a, &b) && eval_out_tensor(c, 0, tensor_binary(op, a, b));
    return drop_operands(ok, a, b);
}

#define BINARY_ONLY(name, BIN) \
    bool eval_op_##name(EvalCall *c) { return eval_nargs(c, 2, 2) && binary_op(c, BIN, false); }
#define BINARY_PAIR(name, BIN) \
    BINARY_ONLY(name, BIN)     \
    bool eval_op_##name##_(EvalCall *c) { return eval_nargs(c, 2, 2) && binary_op(c, BIN, true); }

BINARY_ONLY(mul, BIN_MUL)
/* mul_(Tensor self, other), or l *= n on a list */
bool eval_op_mul_(EvalCall *c)
{
    if (c->nargs == 2 && eval_kind(c, 0) == RT_LIST)
        return eval_list_repeat_in_place(c);
    return eval_nargs(c, 2, 2) && binary_op(c, BIN_MUL, true);
}
BINARY_PAIR(floor_divide, BIN_DIV_FLOOR)
BINARY_PAIR(remainder, BIN_REMAINDER)
BINARY_PAIR(fmod, BIN_FMOD)
BINARY_PAIR(pow, BIN_POW)
BINARY_ONLY(maximum, BIN_MAXIMUM)
BINARY_ONLY(minimum, BIN_MINIMUM)
BINARY_ONLY(atan2, BIN_ATAN2)
BINARY_PAIR(eq, BIN_EQ)
BINARY_PAIR(ne, BIN_NE)
BINARY_PAIR(lt, BIN_LT)
BINARY_PAIR(le, BIN_LE)
BINARY_PAIR(gt, BIN_GT)
BINARY_PAIR(ge, BIN_GE)
BINARY_PAIR(logical_and, BIN_LOGICAL_AND)
BINARY_PAIR(logical_or, BIN_LOGICAL_OR)
BINARY_PAIR(logical_xor, BIN_LOGICAL_XOR)
BINARY_PAIR(bitwise_and, BIN_BITWISE_AND)
BINARY_PAIR(bitwise_or, BIN_BITWISE_OR)
BINARY_PAIR(bitwise_xor, BIN_BITWISE_XOR)
BINARY_ONLY(and, BIN_BITWISE_AND)
BINARY_ONLY(or, BIN_BITWISE_OR)
BINARY_ONLY(xor, BIN_BITWISE_XOR)

/* __iand__ / __ior__ (a &= b on tensors) write into a and return it. */
bool eval_op_iand(EvalCall *c)
{
    if (!eval_nargs(c, 2, 2))
        return false;
    return any_tensor(c, 1) ? binary_op(c, BIN_BITWISE_AND, true) : eval_scalar_op(c);
}

bool eval_op_ior(EvalCall *c)
{
    if (!eval_nargs(c, 2, 2))
        return false;
    return any_tensor(c, 1) ? binary_op(c, BIN_BITWISE_OR, true) : eval_scalar_op(c);
}

/* add/sub(Tensor self, Tensor|Scalar other, Scalar alpha=1); scalar and
 * sequence overloads take two arguments. */
static bool add_sub(EvalCall *c, bool sub, bool inplace)
{
    if (!eval_nargs(c, 2, 3))
        return false;
    if (!inplace && !any_tensor(c, 2))
        return eval_scalar_op(c);
    double alpha = 1;
    if (c->nargs == 3 && !eval_arg_double(c, 2, &alpha))
        return false;
    Tensor *a = NULL, *b = NULL;
    bool ok;
    if (inplace) {
        ok = eval_arg_tensor(c, 0, &a) && eval_arg_operand(c, 1, &b) &&
             eval_out_self(c, sub ? tensor_sub_(a, b, alpha) : tensor_add_(a, b, alpha),
                           "in-place kernel failed");
        tensor_release(b);
        return ok;
    }
    ok = operands(c, 0, &a, &b) &&
         eval_out_tensor(c, 0, sub ? tensor_sub(a, b, alpha) : tensor_add(a, b, alpha));
    return drop_operands(ok, a, b);
}
bool eval_op_add(EvalCall *c) { return add_sub(c, false, false); }
/* add_ is also a list's `+=` (aten::add_(t[] self, t[] b) -> t[]): it
 * extends the list in place and returns it. */
bool eval_op_add_(EvalCall *c)
{
    if (c->nargs == 2 && eval_kind(c, 0) == RT_LIST)
        return eval_op_extend(c) && eval_out_arg(c, 0, 0);
    return add_sub(c, false, true);
}
bool eval_op_sub(EvalCall *c) { return add_sub(c, true, false); }
bool eval_op_sub_(EvalCall *c) { return add_sub(c, true, true); }

/* rsub(Tensor self, Tensor|Scalar other, Scalar alpha=1) = other - alpha * self */
bool eval_op_rsub(EvalCall *c)
{
    double alpha = 1;
    if (!eval_nargs(c, 2, 3) || (c->nargs == 3 && !eval_arg_double(c, 2, &alpha)))
        return false;
    Tensor *a, *b;
    bool ok = operands(c, 0, &a, &b) && eval_out_tensor(c, 0, tensor_sub(b, a, alpha));
    return drop_operands(ok, a, b);
}

/* div(Tensor self, Tensor|Scalar other) / div(..., *, str? rounding_mode) */
static bool div_op(EvalCall *c, bool inplace)
{
    if (!eval_nargs(c, 2, 3))
        return false;
    if (!inplace && !any_tensor(c, 2))
        return eval_nargs(c, 2, 2) && eval_scalar_op(c);
    const char *mode = NULL;
    if (c->nargs == 3 && !eval_arg_str_opt(c, 2, &mode))
        return false;
    BinaryOp op = BIN_DIV;
    if (mode && strcmp(mode, "trunc") == 0)
        op = BIN_DIV_TRUNC;
    else if (mode && strcmp(mode, "floor") == 0)
        op = BIN_DIV_FLOOR;
    else if (mode)
        return eval_fail(c, "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           "but found '%s'", mode);
    return binary_op(c, op, inplace);
}
bool eval_op_div(EvalCall *c) { return div_op(c, false); }
bool eval_op_div_(EvalCall *c) { return div_op(c, true); }

/* ---------------------------------------------------------------- ternary */

/* where(Tensor condition, Tensor|Scalar self, Tensor|Scalar other), or
 * where(Tensor condition) -> Tensor[] (nonzero as a tuple of index vectors). */
bool eval_op_where(EvalCall *c)
{
    Tensor *cond;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &cond))
        return false;
    if (c->nargs == 1) {
        Tensor *nz = tensor_nonzero(cond);
        if (!nz)
            return eval_fail_kernel(c, "nonzero failed");
        int n = 0;
        Tensor **cols = tensor_unbind(nz, 1, &n);
        tensor_release(nz);
        if (!cols)
            return eval_fail_kernel(c, "unbind failed");
        return eval_out_tensor_list(c, cols, n);
    }
    if (!eval_nargs(c, 3, 3))
        return false;
    Tensor *a, *b;
    bool ok = operands(c, 1, &a, &b) && eval_out_tensor(c, 0, tensor_where(cond, a, b));
    return drop_operands(ok, a, b);
}

/* Optional Scalar or Tensor bound of clamp: NULL when None. */
static bool clamp_bound(EvalCall *c, int i, Tensor **t)
{
    *t = NULL;
    if (i < 0 || i >= c->nargs || eval_is_none(c, i))
        return true;
    return eval_arg_operand(c, i, t);
}

/* clamp(Tensor self, Scalar|Tensor? min=None, Scalar|Tensor? max=None) */
static bool clamp_op(EvalCall *c, int min_arg, int max_arg, bool inplace)
{
    Tensor *self, *lo = NULL, *hi = NULL;
    bool ok = eval_arg_tensor(c, 0, &self) && clamp_bound(c, min_arg, &lo) &&
              clamp_bound(c, max_arg, &hi);
    if (ok && !lo && !hi)
        ok = eval_fail(c, "At least one of 'min' or 'max' must not be None");
    if (ok && inplace)
        ok = eval_out_self(c, tensor_clamp_(self, lo, hi), "clamp_ failed");
    else if (ok)
        ok = eval_out_tensor(c, 0, tensor_clamp(self, lo, hi));
    tensor_release(lo);
    tensor_release(hi);
    return ok;
}
bool eval_op_clamp(EvalCall *c) { return eval_nargs(c, 1, 3) && clamp_op(c, 1, 2, false); }
bool eval_op_clamp_(EvalCall *c) { return eval_nargs(c, 1, 3) && clamp_op(c, 1, 2, true); }
bool eval_op_clamp_min(EvalCall *c) { return eval_nargs(c, 2, 2) && clamp_op(c, 1, -1, false); }
bool eval_op_clamp_min_(EvalCall *c) { return eval_nargs(c, 2, 2) && clamp_op(c, 1, -1, true); }
bool eval_op_clamp_max(EvalCall *c) { return eval_nargs(c, 2, 2) && clamp_op(c, -1, 1, false); }
bool eval_op_clamp_max_(EvalCall *c) { return eval_nargs(c, 2, 2) && clamp_op(c, -1, 1, true); }

/* lerp(Tensor self, Tensor end, Scalar|Tensor weight) */
bool eval_op_lerp(EvalCall *c)
{
    Tensor *self, *end, *weight = NULL;
    bool ok = eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &end) &&
              eval_arg_operand(c, 2, &weight) &&
              eval_out_tensor(c, 0, tensor_lerp(self, end, weight));
    tensor_release(weight);
    return ok;
}
