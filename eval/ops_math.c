/* ops_math.c — bindings of the elementwise math family (tensor/math_extra.c):
 * predicates, closeness tests, the small activations, the binary ops with
 * their own dtype rules, ldexp, float_power, frexp, glu, prelu, addcmul and
 * addcdiv, and the ops that are the identity on real tensors (conj,
 * positive, real...).
 *
 * Several names are also TorchScript builtins on numbers (math.isnan,
 * math.copysign, math.gcd, math.frexp, math.ldexp, int << int, angle of a
 * number): their bindings compute those in double or int64 as TorchScript's
 * own operators do. In-place twins without a binding here run as their
 * functional op plus a checked copy into self (eval/dispatch.c), which
 * gives PyTorch's casting errors; the ones whose errors differ from that
 * (square_, float_power_) or that return self untouched (conj_physical_)
 * have their own.
 */
#include <math.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

static bool is_int_value(const RtValue *v)
{
    return v->kind == RT_INT || v->kind == RT_BOOL;
}

/* Releases t and passes ok on. */
static bool drop(bool ok, Tensor *t)
{
    tensor_release(t);
    return ok;
}

/* ---------------------------------------------------------------- predicates */

/* isnan / isinf / isfinite(Tensor self), or of a float (math.isnan). */
static bool predicate_op(EvalCall *c, MathPredicate pred)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (!eval_is_tensor(c, 0) && rt_is_number(c->args[0]) &&
        (pred == MP_ISNAN || pred == MP_ISINF || pred == MP_ISFINITE)) {
        double x = rt_number(c->args[0]);
        bool r = pred == MP_ISNAN ? isnan(x) : pred == MP_ISINF ? isinf(x) : isfinite(x);
        return eval_out_value(c, 0, rt_bool(r));
    }
    Tensor *t;
    return eval_arg_tensor(c, 0, &t) && eval_out_tensor(c, 0, tensor_predicate(pred, t));
}

bool eval_op_isnan(EvalCall *c) { return predicate_op(c, MP_ISNAN); }
bool eval_op_isinf(EvalCall *c) { return predicate_op(c, MP_ISINF); }
bool eval_op_isfinite(EvalCall *c) { return predicate_op(c, MP_ISFINITE); }
bool eval_op_isposinf(EvalCall *c) { return predicate_op(c, MP_ISPOSINF); }
bool eval_op_isneginf(EvalCall *c) { return predicate_op(c, MP_ISNEGINF); }
bool eval_op_isreal(EvalCall *c) { return predicate_op(c, MP_ISREAL); }
bool eval_op_signbit(EvalCall *c) { return predicate_op(c, MP_SIGNBIT); }

/* ---------------------------------------------------------------- closeness */

/* (Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) */
static bool closeness_args(EvalCall *c, Tensor **a, Tensor **b, double *rtol, double *atol,
                           bool *equal_nan)
{
    *rtol = 1e-05;
    *atol = 1e-08;
    *equal_nan = false;
    return eval_nargs(c, 2, 5) && eval_arg_tensor(c, 0, a) && eval_arg_tensor(c, 1, b) &&
           (c->nargs < 3 || eval_arg_double(c, 2, rtol)) &&
           (c->nargs < 4 || eval_arg_double(c, 3, atol)) &&
           (c->nargs < 5 || eval_arg_bool(c, 4, equal_nan));
}

bool eval_op_isclose(EvalCall *c)
{
    Tensor *a, *b;
    double rtol, atol;
    bool equal_nan;
    return closeness_args(c, &a, &b, &rtol, &atol, &equal_nan) &&
           eval_out_tensor(c, 0, tensor_isclose(a, b, rtol, atol, equal_nan));
}

bool eval_op_allclose(EvalCall *c)
{
    Tensor *a, *b;
    double rtol, atol;
    bool equal_nan, r;
    if (!closeness_args(c, &a, &b, &rtol, &atol, &equal_nan))
        return false;
    if (!tensor_allclose(a, b, rtol, atol, equal_nan, &r))
        return eval_fail_kernel(c, "allclose failed");
    return eval_out_value(c, 0, rt_bool(r));
}

bool eval_op_equal(EvalCall *c)
{
    Tensor *a, *b;
    bool r;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &a) || !eval_arg_tensor(c, 1, &b))
        return false;
    if (!tensor_equal(a, b, &r))
        return eval_fail_kernel(c, "equal failed");
    return eval_out_value(c, 0, rt_bool(r));
}

/* nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) */
bool eval_op_nan_to_num(EvalCall *c)
{
    Tensor *t;
    double v[3];
    bool present[3] = {false, false, false};
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &t))
        return false;
    for (int k = 0; k < 3; k++)
        if (c->nargs > k + 1 && !eval_arg_double_opt(c, k + 1, &v[k], &present[k]))
            return false;
    return eval_out_tensor(c, 0, tensor_nan_to_num(t, present[0] ? &v[0] : NULL,
                                                   present[1] ? &v[1] : NULL,
                                                   present[2] ? &v[2] : NULL));
}

/* ---------------------------------------------------------------- sign, square */

bool eval_op_sgn(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_tensor(c, 0, tensor_unary(UN_SIGN, t, 0, 0));
}

/* square is pow(self, 2): bool squares to int64, as in PyTorch. */
bool eval_op_square(EvalCall *c)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &t))
        return false;
    Tensor *two = tensor_wrapped_int(2);
    return drop(eval_out_tensor(c, 0, two ? tensor_binary(BIN_POW, t, two) : NULL), two);
}

/* square_ is pow_(self, 2): "Found dtype Bool but expected Long" for bools. */
bool eval_op_square_(EvalCall *c)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &t))
        return false;
    Tensor *two = tensor_wrapped_int(2);
    bool done = two && tensor_binary_(BIN_POW, t, two);
    return drop(eval_out_self(c, done, "square_ failed"), two);
}

/* ---------------------------------------------------------------- identities on real tensors */

/* conj, conj_physical, resolve_conj, resolve_neg, real: self itself for
 * the real dtypes tssa-stream has (PyTorch returns the same tensor). */
bool eval_op_real_identity(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_arg(c, 0, 0);
}

bool eval_op_positive(EvalCall *c)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &t))
        return false;
    if (t->dtype == DT_BOOL)
        return eval_fail(c, "The `+` operator, on a bool tensor is not supported.");
    return eval_out_arg(c, 0, 0);
}

/* ---------------------------------------------------------------- unary with parameters */

static bool math_unary_op(EvalCall *c, MathUnaryOp op, double p0, double p1, double p2)
{
    Tensor *t;
    double p[3] = {p0, p1, p2};
    return eval_arg_tensor(c, 0, &t) && eval_out_tensor(c, 0, tensor_math_unary(op, t, p));
}

bool eval_op_frac(EvalCall *c) { return eval_nargs(c, 1, 1) && math_unary_op(c, MU_FRAC, 0, 0, 0); }
bool eval_op_mish(EvalCall *c) { return eval_nargs(c, 1, 1) && math_unary_op(c, MU_MISH, 0, 0, 0); }

/* logit(Tensor self, float? eps=None): no clamping without eps. */
bool eval_op_logit(EvalCall *c)
{
    double eps = -1;
    bool present = false;
    if (!eval_nargs(c, 1, 2) || (c->nargs == 2 && !eval_arg_double_opt(c, 1, &eps, &present)))
        return false;
    return math_unary_op(c, MU_LOGIT, present ? eps : -1, 0, 0);
}

/* angle(Tensor self), or of a number: pi for negatives, else 0 (TorchScript's
 * number form gives 0 for NaN too). */
bool eval_op_angle(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (!eval_is_tensor(c, 0) && rt_is_number(c->args[0])) {
        double r = rt_number(c->args[0]) < 0 ? M_PI : 0.0;
        RtValue *v = eval_number_for_output(c, 0, r, false, 0);
        return v && eval_out_value(c, 0, v);
    }
    return math_unary_op(c, MU_ANGLE, 0, 0, 0);
}

/* softshrink / hardshrink(Tensor self, Scalar lambd=0.5) */
static bool shrink_op(EvalCall *c, MathUnaryOp op)
{
    double lambd = 0.5;
    return eval_nargs(c, 1, 2) && (c->nargs < 2 || eval_arg_double(c, 1, &lambd)) &&
           math_unary_op(c, op, lambd, 0, 0);
}
bool eval_op_softshrink(EvalCall *c) { return shrink_op(c, MU_SOFTSHRINK); }
bool eval_op_hardshrink(EvalCall *c) { return shrink_op(c, MU_HARDSHRINK); }

/* threshold(Tensor self, Scalar threshold, Scalar value) */
bool eval_op_threshold(EvalCall *c)
{
    double threshold, value;
    return eval_nargs(c, 3, 3) && eval_arg_double(c, 1, &threshold) &&
           eval_arg_double(c, 2, &value) && math_unary_op(c, MU_THRESHOLD, threshold, value, 0);
}

/* celu(Tensor self, Scalar alpha=1.) = elu(self, alpha, 1, 1 / alpha) */
bool eval_op_celu(EvalCall *c)
{
    double alpha = 1;
    if (!eval_nargs(c, 1, 2) || (c->nargs == 2 && !eval_arg_double(c, 1, &alpha)))
        return false;
    if (alpha == 0)
        return eval_fail(c, "ZeroDivisionError: alpha cannot be 0 for CELU");
    return math_unary_op(c, MU_ELU, alpha, 1, 1 / alpha);
}

/* selu(Tensor self) = scale * elu(self, alpha), with SELU's constants. */
bool eval_op_selu(EvalCall *c)
{
    return eval_nargs(c, 1, 1) &&
           math_unary_op(c, MU_ELU, 1.6732632423543772848170429916717,
                         1.0507009873554804934193349852946, 1);
}

/* ---------------------------------------------------------------- binary */

/* (Tensor self, Tensor|Scalar other): a number operand is a wrapped 0-d
 * tensor, so promotion follows PyTorch's rules for Python numbers. */
static bool math_binary_op(EvalCall *c, MathBinaryOp op)
{
    Tensor *a = NULL, *b = NULL;
    bool ok = eval_nargs(c, 2, 2) && eval_arg_operand(c, 0, &a) && eval_arg_operand(c, 1, &b) &&
              eval_out_tensor(c, 0, tensor_math_binary(op, a, b));
    tensor_release(a);
    return drop(ok, b);
}

static bool any_tensor(const EvalCall *c)
{
    for (int i = 0; i < c->nargs; i++)
        if (eval_is_tensor(c, i))
            return true;
    return false;
}

/* Both arguments numbers: TorchScript's builtin form. */
static bool numbers_only(const EvalCall *c)
{
    return c->nargs == 2 && !any_tensor(c) && rt_is_number(c->args[0]) &&
           rt_is_number(c->args[1]);
}

bool eval_op_copysign(EvalCall *c)
{
    if (numbers_only(c))
        return eval_out_value(c, 0, rt_float(copysign(rt_number(c->args[0]), rt_number(c->args[1]))));
    return math_binary_op(c, MB_COPYSIGN);
}

bool eval_op_heaviside(EvalCall *c) { return math_binary_op(c, MB_HEAVISIDE); }
bool eval_op_hypot(EvalCall *c) { return math_binary_op(c, MB_HYPOT); }
bool eval_op_logaddexp(EvalCall *c) { return math_binary_op(c, MB_LOGADDEXP); }
bool eval_op_logaddexp2(EvalCall *c) { return math_binary_op(c, MB_LOGADDEXP2); }
bool eval_op_nextafter(EvalCall *c) { return math_binary_op(c, MB_NEXTAFTER); }
bool eval_op_fmax(EvalCall *c) { return math_binary_op(c, MB_FMAX); }
bool eval_op_fmin(EvalCall *c) { return math_binary_op(c, MB_FMIN); }
bool eval_op_lcm(EvalCall *c) { return math_binary_op(c, MB_LCM); }

/* gcd(Tensor, Tensor), or math.gcd(int, int): TorchScript's loop, then the
 * absolute value. */
bool eval_op_gcd(EvalCall *c)
{
    if (numbers_only(c)) {
        if (!is_int_value(c->args[0]) || !is_int_value(c->args[1]))
            return eval_fail(c, "gcd of non-integers is not supported");
        int64_t a = c->args[0]->u.i, b = c->args[1]->u.i;
        while (b != 0) {
            int64_t r = b == -1 ? 0 : a % b;
            a = b;
            b = r;
        }
        return eval_out_value(c, 0, rt_int(a < 0 ? (int64_t)(0 - (uint64_t)a) : a));
    }
    return math_binary_op(c, MB_GCD);
}

/* bitwise_left/right_shift and __lshift__/__rshift__; on two ints,
 * TorchScript's int shift (the count taken modulo 64, as the C++ shift
 * does on x86-64). */
static bool shift_op(EvalCall *c, MathBinaryOp op)
{
    if (numbers_only(c)) {
        if (!is_int_value(c->args[0]) || !is_int_value(c->args[1]))
            return eval_fail(c, "shifts of non-integers are not supported");
        int64_t a = c->args[0]->u.i;
        int s = (int)(c->args[1]->u.i & 63);
        int64_t r = op == MB_LSHIFT ? (int64_t)((uint64_t)a << s) : a < 0 ? ~(~a >> s) : a >> s;
        return eval_out_value(c, 0, rt_int(r));
    }
    return math_binary_op(c, op);
}
bool eval_op_bitwise_left_shift(EvalCall *c) { return shift_op(c, MB_LSHIFT); }
bool eval_op_bitwise_right_shift(EvalCall *c) { return shift_op(c, MB_RSHIFT); }

/* ldexp(Tensor self, Tensor other), or math.ldexp(float x, int i). */
bool eval_op_ldexp(EvalCall *c)
{
    if (numbers_only(c)) {
        if (!is_int_value(c->args[1]))
            return eval_fail(c, "ldexp with a non-integer exponent is not supported");
        /* std::ldexp takes an int: the exponent's low 32 bits. */
        int e = (int32_t)(uint32_t)c->args[1]->u.i;
        return eval_out_value(c, 0, rt_float(ldexp(rt_number(c->args[0]), e)));
    }
    return eval_call_tensor_pair(c, tensor_ldexp);
}

/* float_power(Tensor|Scalar self, Tensor|Scalar exponent): pow in float64. */
bool eval_op_float_power(EvalCall *c)
{
    Tensor *a = NULL, *b = NULL;
    bool ok = eval_nargs(c, 2, 2) && eval_arg_operand(c, 0, &a) && eval_arg_operand(c, 1, &b);
    if (ok && a->wrapped_number && b->wrapped_number)
        ok = eval_fail(c, "float_power of two numbers is not supported");
    else if (ok)
        ok = eval_out_tensor(c, 0, tensor_float_power(a, b));
    tensor_release(a);
    return drop(ok, b);
}

/* float_power_(Tensor self, Tensor|Scalar exponent): self must already be
 * float64, the result's dtype. */
bool eval_op_float_power_(EvalCall *c)
{
    Tensor *self, *e = NULL;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self) || !eval_arg_operand(c, 1, &e))
        return false;
    if (self->dtype != DT_F64) {
        tensor_release(e);
        return eval_fail(c, "the base given to float_power_ has dtype %s but the operation's "
                            "result requires dtype Double", dtype_ts_name(self->dtype));
    }
    Tensor *e64 = e->wrapped_number ? tensor_wrapped_float(tensor_item(e)) : tensor_to_dtype(e, DT_F64);
    tensor_release(e);
    bool done = e64 && tensor_binary_(BIN_POW, self, e64);
    return drop(eval_out_self(c, done, "float_power_ failed"), e64);
}

/* frexp(Tensor self) -> (mantissa, exponent), or math.frexp(float). */
bool eval_op_frexp(EvalCall *c)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (!eval_is_tensor(c, 0) && rt_is_number(c->args[0])) {
        int e = 0;
        double m = frexp(rt_number(c->args[0]), &e);
        return eval_out_value(c, 0, rt_float(m)) && eval_out_value(c, 1, rt_int(e));
    }
    Tensor *t, *mantissa, *exponent;
    if (!eval_arg_tensor(c, 0, &t))
        return false;
    if (!tensor_frexp(t, &mantissa, &exponent))
        return eval_fail_kernel(c, "frexp failed");
    return eval_out_tensors(c, (Tensor *[]){mantissa, exponent}, 2);
}

/* ---------------------------------------------------------------- nn */

/* glu(Tensor self, int dim=-1) */
bool eval_op_glu(EvalCall *c)
{
    Tensor *t;
    int64_t dim = -1;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &t) &&
           (c->nargs < 2 || eval_arg_int(c, 1, &dim)) && eval_out_tensor(c, 0, tensor_glu(t, dim));
}

bool eval_op_prelu(EvalCall *c)
{
    return eval_call_tensor_pair(c, tensor_prelu);
}

/* addcmul / addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) */
static bool add_product_op(EvalCall *c, bool divide)
{
    Tensor *self, *t1, *t2, *value = NULL;
    if (!eval_nargs(c, 3, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &t1) ||
        !eval_arg_tensor(c, 2, &t2))
        return false;
    if (c->nargs == 4) {
        if (eval_is_tensor(c, 3))
            return eval_fail(c, "a tensor value is not implemented");
        if (!eval_arg_operand(c, 3, &value))
            return false;
    } else {
        value = tensor_wrapped_int(1);
    }
    Tensor *out = !value ? NULL : divide ? tensor_addcdiv(self, t1, t2, value)
                                         : tensor_addcmul(self, t1, t2, value);
    return drop(eval_out_tensor(c, 0, out), value);
}
bool eval_op_addcmul(EvalCall *c) { return add_product_op(c, false); }
bool eval_op_addcdiv(EvalCall *c) { return add_product_op(c, true); }
