/* math_extra.c — elementwise math beyond tensor_unary/tensor_binary:
 * predicates (isnan, signbit...), closeness tests (isclose, equal), the
 * small activations (logit, mish, shrinks, threshold, elu with scales), the
 * binary ops with their own dtype rules (copysign, hypot, logaddexp,
 * nextafter, fmax, gcd, heaviside, shifts), ldexp, float_power, frexp, glu,
 * prelu, addcmul and addcdiv.
 *
 * Each op follows its ATen CPU kernel: the result dtype (float ops compute
 * int and bool inputs in float32; integer-only and float-only ops raise
 * ATen's "\"gcd_cpu\" not implemented for 'Float'"), the formula in the
 * compute type itself (float32 math in float, through <tgmath.h>), and for
 * integers the C++ arithmetic of the element type, wrapped explicitly
 * where C++ would overflow. Results are laid out as TensorIterator lays
 * them out (tensor_empty_like_operands).
 */
#include <float.h>
#include <tgmath.h>

#include "tensor/tensor_impl.h"

#define PI_DOUBLE 3.14159265358979323846
#define LN_2_DOUBLE 0.693147180559945309417

/* ---------------------------------------------------------------- predicates */

Tensor *tensor_predicate(MathPredicate pred, const Tensor *a)
{
    bool is_float = dtype_is_float(a->dtype);
    Tensor *out;
    /* ATen answers integer inputs with zeros_like/ones_like (preserving
     * a's layout) or a fill of a fresh contiguous result, and runs
     * TensorIterator for floats. */
    if (!is_float && (pred == MP_ISINF || pred == MP_ISFINITE || pred == MP_ISREAL))
        out = tensor_empty_preserving(a, DT_BOOL);
    else if (!is_float && (pred == MP_ISPOSINF || pred == MP_ISNEGINF))
        out = tensor_empty(DT_BOOL, a->ndim, a->sizes);
    else
        out = tensor_empty_like_operands(DT_BOOL, a->ndim, a->sizes, &a, 1);
    if (!out)
        return NULL;
    const Tensor *ops[2] = {out, a};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2)) {
        tensor_release(out);
        return NULL;
    }
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        bool r;
        if (is_float) {
            /* float32 -> double keeps NaN, infinities and the sign bit. */
            double x = tensor_read_f64(a, it.offsets[1]);
            switch (pred) {
            case MP_ISNAN: r = isnan(x); break;
            case MP_ISINF: r = isinf(x); break;
            case MP_ISFINITE: r = isfinite(x); break;
            case MP_ISPOSINF: r = x == INFINITY; break;
            case MP_ISNEGINF: r = x == -INFINITY; break;
            case MP_ISREAL: r = true; break;
            default: r = signbit(x) != 0; break;
            }
        } else {
            switch (pred) {
            case MP_ISFINITE: case MP_ISREAL: r = true; break;
            case MP_SIGNBIT: r = a->dtype != DT_BOOL && tensor_read_i64(a, it.offsets[1]) < 0; break;
            default: r = false; break;
            }
        }
        tensor_write_i64(out, it.offsets[0], r);
    }
    return out;
}

/* ---------------------------------------------------------------- unary */

#define DEFINE_MATH_UNARY_FLOAT(T, NAME)                                                     \
    static inline __attribute__((always_inline)) T NAME(MathUnaryOp op, T x, const T *p)     \
    {                                                                                        \
        const T zero = 0, one = 1;                                                           \
        switch (op) {                                                                        \
        case MU_FRAC: return x - trunc(x);                                                   \
        case MU_LOGIT:                                                                       \
            if (p[0] >= zero) {                                                              \
                T hi = one - p[0];                                                           \
                x = x < p[0] ? p[0] : (x > hi ? hi : x);                                     \
            }                                                                                \
            return x == one ? (T)INFINITY : log(x / (one - x));                              \
        case MU_ANGLE: return isnan(x) ? x : (x < zero ? (T)PI_DOUBLE : zero);               \
        case MU_MISH: return x * tanh(log1p(exp(x)));                                        \
        case MU_SOFTSHRINK: return x > p[0] ? x - p[0] : (x < -p[0] ? x + p[0] : x * zero);  \
        case MU_HARDSHRINK: return (x >= -p[0] && x <= p[0]) ? zero : x;                     \
        case MU_THRESHOLD: return x <= p[0] ? p[1] : x;                                      \
        /* ATen's vectorized elu: expm1 on the negative side. */                            \
        case MU_ELU: return x > zero ? x * p[1] : expm1(x * p[2]) * (p[0] * p[1]);           \
        }                                                                                    \
        return x;                                                                            \
    }

DEFINE_MATH_UNARY_FLOAT(float, math_unary_f32)
DEFINE_MATH_UNARY_FLOAT(double, math_unary_f64)

/* Rows of a float op where out and the input both hold T, for a constant
 * op: the op's switch folds away inside the loop. */
#define DEFINE_MATH_UNARY_ROWS(T, NAME, FN)                                                  \
    static inline __attribute__((always_inline)) void NAME(MathUnaryOp op, TensorIter *it,  \
            T *out, const T *in, const T *p)                                                 \
    {                                                                                        \
        int64_t row = tensor_iter_row_size(it);                                              \
        int64_t so = tensor_iter_row_stride(it, 0), si = tensor_iter_row_stride(it, 1);      \
        for (int64_t i = 0; i < it->numel; i += row, tensor_iter_next_row(it)) {             \
            T *o = out + it->offsets[0];                                                     \
            const T *x = in + it->offsets[1];                                                \
            for (int64_t j = 0; j < row; j++)                                                \
                o[j * so] = FN(op, x[j * si], p);                                            \
        }                                                                                    \
    }

DEFINE_MATH_UNARY_ROWS(float, math_unary_rows_f32, math_unary_f32)
DEFINE_MATH_UNARY_ROWS(double, math_unary_rows_f64, math_unary_f64)

#define MATH_UNARY_OPS(X) \
    X(MU_FRAC) X(MU_LOGIT) X(MU_ANGLE) X(MU_MISH) X(MU_SOFTSHRINK) X(MU_HARDSHRINK) \
    X(MU_THRESHOLD) X(MU_ELU)

/* The typed loop when a already has the result's float dtype; false when
 * it does not (the caller converts element by element). */
static bool math_unary_rows(MathUnaryOp op, TensorIter *it, Tensor *out, const Tensor *a,
                            const float *pf, const double *pd)
{
    if (a->dtype != out->dtype)
        return false;
    if (out->dtype == DT_F32) {
        float *o = out->storage->data;
        const float *x = a->storage->data;
#define CASE_F32(OP) case OP: math_unary_rows_f32(OP, it, o, x, pf); return true;
        switch (op) {
        MATH_UNARY_OPS(CASE_F32)
        }
#undef CASE_F32
        return false;
    }
    double *o = out->storage->data;
    const double *x = a->storage->data;
#define CASE_F64(OP) case OP: math_unary_rows_f64(OP, it, o, x, pd); return true;
    switch (op) {
    MATH_UNARY_OPS(CASE_F64)
    }
#undef CASE_F64
    return false;
}

static int unary_param_count(MathUnaryOp op)
{
    switch (op) {
    case MU_LOGIT: case MU_SOFTSHRINK: case MU_HARDSHRINK: return 1;
    case MU_THRESHOLD: return 2;
    case MU_ELU: return 3;
    default: return 0;
    }
}

/* The result dtype of op on dt, or false with PyTorch's error. */
static bool math_unary_dtype(MathUnaryOp op, TensorDType dt, const double *p, TensorDType *out)
{
    bool is_float = dtype_is_float(dt);
    *out = dt;
    switch (op) {
    case MU_LOGIT:
    case MU_ANGLE:
        if (!is_float)
            *out = dtype_default_float();
        return true;
    case MU_FRAC: return is_float || tensor_error_not_implemented("frac_cpu", dt);
    case MU_MISH: return is_float || tensor_error_not_implemented("mish_cpu", dt);
    case MU_SOFTSHRINK:
        if (!(p[0] >= 0)) {
            tensor_set_error("lambda must be greater or equal to 0, but found to be %g.", p[0]);
            return false;
        }
        return is_float || tensor_error_not_implemented("softshrink_cpu", dt);
    case MU_HARDSHRINK: return is_float || tensor_error_not_implemented("hardshrink_cpu", dt);
    case MU_THRESHOLD: return dt != DT_BOOL || tensor_error_not_implemented("threshold_cpu", dt);
    case MU_ELU: return is_float || tensor_error_not_implemented("elu_cpu", dt);
    }
    tensor_set_error("invalid math op %d", (int)op);
    return false;
}

Tensor *tensor_math_unary(MathUnaryOp op, const Tensor *a, const double *p)
{
    TensorDType dt;
    if (!math_unary_dtype(op, a->dtype, p, &dt))
        return NULL;
    /* Scalar::to<scalar_t>: each parameter must fit the compute type. */
    int nparams = unary_param_count(op);
    for (int k = 0; k < nparams; k++)
        if (!(op == MU_LOGIT && p[k] < 0) && !tensor_scalar_fits(p[k], dt))
            return NULL;
    Tensor *out = tensor_empty_like_operands(dt, a->ndim, a->sizes, &a, 1);
    if (!out)
        return NULL;
    const Tensor *ops[2] = {out, a};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2)) {
        tensor_release(out);
        return NULL;
    }
    float pf[3] = {0, 0, 0};
    double pd[3] = {0, 0, 0};
    for (int k = 0; k < nparams; k++) {
        pf[k] = (float)p[k];
        pd[k] = p[k];
    }
    if (dtype_is_float(dt) && math_unary_rows(op, &it, out, a, pf, pd))
        return out;
    if (dt == DT_F32) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             math_unary_f32(op, tensor_read_f32(a, it.offsets[1]), pf));
    } else if (dt == DT_F64) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             math_unary_f64(op, tensor_read_f64(a, it.offsets[1]), pd));
    } else {
        /* threshold on integers: the limits truncated to the dtype. */
        int64_t threshold = tensor_double_to_int(p[0], dt), value = tensor_double_to_int(p[1], dt);
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            int64_t x = tensor_read_i64(a, it.offsets[1]);
            tensor_write_i64(out, it.offsets[0], x <= threshold ? value : x);
        }
    }
    return out;
}

/* ---------------------------------------------------------------- binary */

/* Ops of the binary machinery that are not tensor_math_binary's own: the
 * halves of glu and prelu's input with its weight. */
enum { MB_GLU = MB_RSHIFT + 1, MB_PRELU };

static const char *binary_kernel_name(int op)
{
    switch (op) {
    case MB_HYPOT: return "hypot_cpu";
    case MB_LOGADDEXP: return "logaddexp_cpu";
    case MB_LOGADDEXP2: return "logaddexp2_cpu";
    case MB_NEXTAFTER: return "nextafter_cpu";
    case MB_GCD: return "gcd_cpu";
    case MB_LCM: return "lcm_cpu";
    case MB_LSHIFT: return "lshift_cpu";
    case MB_RSHIFT: return "rshift_cpu";
    case MB_GLU: return "glu_cpu";
    case MB_PRELU: return "prelu_cpu";
    default: return NULL;
    }
}

#define DEFINE_MATH_BINARY_FLOAT(T, NAME)                                                    \
    static inline __attribute__((always_inline)) T NAME(int op, T x, T y)                    \
    {                                                                                        \
        const T zero = 0, one = 1;                                                           \
        switch (op) {                                                                        \
        case MB_COPYSIGN: return copysign(x, y);                                             \
        case MB_HYPOT: return hypot(x, y);                                                   \
        case MB_LOGADDEXP:                                                                   \
        case MB_LOGADDEXP2: {                                                                \
            if (isinf(x) && x == y)                                                          \
                return x;                                                                    \
            T m = x < y ? y : x;    /* std::max */                                           \
            if (op == MB_LOGADDEXP)                                                          \
                return m + log1p(exp(-fabs(x - y)));                                         \
            return m + log1p(exp2(-fabs(x - y))) * (T)(1.0 / LN_2_DOUBLE);                   \
        }                                                                                    \
        case MB_NEXTAFTER: return nextafter(x, y);                                           \
        case MB_FMAX: return fmax(x, y);                                                     \
        case MB_FMIN: return fmin(x, y);                                                     \
        case MB_HEAVISIDE: return x == zero ? y : (T)(x > zero);                             \
        case MB_GLU: return x * (one / (one + exp(-y)));                                     \
        case MB_PRELU: return x > zero ? x : y * x;                                          \
        default: return zero;                                                                \
        }                                                                                    \
    }

DEFINE_MATH_BINARY_FLOAT(float, math_binary_f32)
DEFINE_MATH_BINARY_FLOAT(double, math_binary_f64)

/* Rows of a float op where out, a and b all hold T, for a constant op. */
#define DEFINE_MATH_BINARY_ROWS(T, NAME, FN)                                                 \
    static inline __attribute__((always_inline)) void NAME(int op, TensorIter *it, T *out,  \
            const T *a, const T *b)                                                          \
    {                                                                                        \
        int64_t row = tensor_iter_row_size(it);                                              \
        int64_t so = tensor_iter_row_stride(it, 0), sa = tensor_iter_row_stride(it, 1);      \
        int64_t sb = tensor_iter_row_stride(it, 2);                                          \
        for (int64_t i = 0; i < it->numel; i += row, tensor_iter_next_row(it)) {             \
            T *o = out + it->offsets[0];                                                     \
            const T *x = a + it->offsets[1], *y = b + it->offsets[2];                        \
            for (int64_t j = 0; j < row; j++)                                                \
                o[j * so] = FN(op, x[j * sa], y[j * sb]);                                    \
        }                                                                                    \
    }

DEFINE_MATH_BINARY_ROWS(float, math_binary_rows_f32, math_binary_f32)
DEFINE_MATH_BINARY_ROWS(double, math_binary_rows_f64, math_binary_f64)

/* v as C++ holds it after integer promotion: int64 stays, every narrower
 * type computes in (32-bit) int. */
static int64_t promoted_wrap(int64_t v, TensorDType dt)
{
    return dt == DT_I64 ? v : tensor_wrap_int(v, DT_I32);
}

/* std::abs in the promoted type: the most negative value stays itself. */
static int64_t promoted_abs(int64_t v, TensorDType dt)
{
    return promoted_wrap(v < 0 ? (int64_t)(0 - (uint64_t)v) : v, dt);
}

/* ATen's calc_gcd on values of dtype dt (already wrapped to it). */
static int64_t gcd_of(int64_t a, int64_t b, TensorDType dt)
{
    a = tensor_wrap_int(promoted_abs(a, dt), dt);
    b = tensor_wrap_int(promoted_abs(b, dt), dt);
    while (a != 0) {
        int64_t c = a;
        a = tensor_wrap_int(b % a, dt);
        b = c;
    }
    return b;
}

/* Integer ops on x, y of dtype dt (bool for fmax/fmin/heaviside too). */
static int64_t math_binary_int(int op, int64_t x, int64_t y, TensorDType dt)
{
    switch (op) {
    case MB_FMAX: return x < y ? y : x;
    case MB_FMIN: return y < x ? y : x;
    case MB_HEAVISIDE: return x == 0 ? y : x > 0;
    case MB_GCD: return gcd_of(x, y, dt);
    case MB_LCM: {
        int64_t g = gcd_of(x, y, dt);
        if (g == 0)
            return 0;
        /* a / g * b in the promoted type, wrapping (g is positive, or the
         * dtype's minimum value: never -1). */
        int64_t q = x / g;
        return promoted_abs(promoted_wrap((int64_t)((uint64_t)q * (uint64_t)y), dt), dt);
    }
    case MB_LSHIFT:
        /* (unsigned)a << b; x86 takes the count modulo the width of the
         * promoted type, which is what PyTorch's kernel gives. */
        if (dt == DT_I64)
            return (int64_t)((uint64_t)x << (y & 63));
        return (int32_t)((uint32_t)x << (y & 31));
    case MB_RSHIFT:
        /* Arithmetic shift of the sign-extended value, counts as above. */
        if (dt == DT_I64) {
            int s = (int)(y & 63);
            return x < 0 ? ~(~x >> s) : x >> s;
        } else {
            int s = (int)(y & 31);
            int32_t v = (int32_t)x;
            return v < 0 ? ~(~v >> s) : v >> s;
        }
    default: return 0;
    }
}

/* Dtypes one binary op computes with. */
typedef struct MathPlan {
    TensorDType common;     /* operands are converted to this */
    TensorDType compute;    /* arithmetic in this (common, or float32 for copysign) */
} MathPlan;

static bool plan_math_binary(int op, const Tensor *a, const Tensor *b, MathPlan *plan)
{
    if (op == MB_HEAVISIDE && a->dtype != b->dtype) {
        tensor_set_error("heaviside is not yet implemented for tensors with different dtypes.");
        return false;
    }
    const Tensor *pair[2] = {a, b};
    TensorDType common = tensor_result_type(pair, 2);
    plan->common = plan->compute = common;
    bool is_float = dtype_is_float(common);
    switch (op) {
    case MB_COPYSIGN:
        if (!is_float)
            plan->compute = dtype_default_float();
        return true;
    case MB_HYPOT: case MB_LOGADDEXP: case MB_LOGADDEXP2: case MB_NEXTAFTER: case MB_GLU:
    case MB_PRELU:
        return is_float || tensor_error_not_implemented(binary_kernel_name(op), common);
    case MB_GCD: case MB_LCM: case MB_LSHIFT: case MB_RSHIFT:
        return dtype_is_integral(common) ||
               tensor_error_not_implemented(binary_kernel_name(op), common);
    case MB_FMAX: case MB_FMIN: case MB_HEAVISIDE:
        return true;
    default:
        tensor_set_error("invalid math op %d", op);
        return false;
    }
}

#define MATH_BINARY_FLOAT_OPS(X) \
    X(MB_COPYSIGN) X(MB_HYPOT) X(MB_LOGADDEXP) X(MB_LOGADDEXP2) X(MB_NEXTAFTER) X(MB_FMAX) \
    X(MB_FMIN) X(MB_HEAVISIDE) X(MB_GLU) X(MB_PRELU)

/* The typed loop when a, b and out all hold the float compute type. */
static bool math_binary_rows(int op, TensorIter *it, Tensor *out, const Tensor *a, const Tensor *b)
{
    TensorDType t = out->dtype;
    if (a->dtype != t || b->dtype != t)
        return false;
    if (t == DT_F32) {
        float *o = out->storage->data;
        const float *x = a->storage->data, *y = b->storage->data;
#define CASE_F32(OP) case OP: math_binary_rows_f32(OP, it, o, x, y); return true;
        switch (op) {
        MATH_BINARY_FLOAT_OPS(CASE_F32)
        default: return false;
        }
#undef CASE_F32
    }
    double *o = out->storage->data;
    const double *x = a->storage->data, *y = b->storage->data;
#define CASE_F64(OP) case OP: math_binary_rows_f64(OP, it, o, x, y); return true;
    switch (op) {
    MATH_BINARY_FLOAT_OPS(CASE_F64)
    default: return false;
    }
#undef CASE_F64
}

/* out = op(a, b), a and b broadcast to out's shape. */
static bool math_binary_kernel(int op, const MathPlan *plan, Tensor *out, const Tensor *a,
                               const Tensor *b)
{
    const Tensor *ops[3] = {out, a, b};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 3))
        return false;
    if (dtype_is_float(plan->compute) && out->dtype == plan->compute &&
        math_binary_rows(op, &it, out, a, b))
        return true;
    if (plan->compute == DT_F32) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             math_binary_f32(op, tensor_read_f32(a, it.offsets[1]),
                                             tensor_read_f32(b, it.offsets[2])));
    } else if (plan->compute == DT_F64) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             math_binary_f64(op, tensor_read_f64(a, it.offsets[1]),
                                             tensor_read_f64(b, it.offsets[2])));
    } else {
        TensorDType dt = plan->common;
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            int64_t x = tensor_wrap_int(tensor_read_i64(a, it.offsets[1]), dt);
            int64_t y = tensor_wrap_int(tensor_read_i64(b, it.offsets[2]), dt);
            tensor_write_i64(out, it.offsets[0], tensor_wrap_int(math_binary_int(op, x, y, dt), dt));
        }
    }
    return true;
}

static Tensor *math_binary(int op, const Tensor *a, const Tensor *b)
{
    MathPlan plan;
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(a->ndim, a->sizes, b->ndim, b->sizes, shape);
    if (n < 0 || !plan_math_binary(op, a, b, &plan))
        return NULL;
    const Tensor *inputs[2] = {a, b};
    Tensor *out = tensor_empty_like_operands(plan.compute, n, shape, inputs, 2);
    if (out && !math_binary_kernel(op, &plan, out, a, b)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_math_binary(MathBinaryOp op, const Tensor *a, const Tensor *b)
{
    return math_binary((int)op, a, b);
}

/* ---------------------------------------------------------------- closeness */

/* ATen's isclose: a == b, or (finite |a - b| <= atol + |rtol * b|), the
 * tolerance test in the inputs' dtype for floats and in float32 (the
 * default dtype) for integers and bools. */
Tensor *tensor_isclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan)
{
    if (a->dtype != b->dtype) {
        tensor_set_error("%s did not match %s", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
        return NULL;
    }
    if (!(rtol >= 0)) {
        tensor_set_error("rtol must be greater than or equal to zero, but got %g", rtol);
        return NULL;
    }
    if (!(atol >= 0)) {
        tensor_set_error("atol must be greater than or equal to zero, but got %g", atol);
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(a->ndim, a->sizes, b->ndim, b->sizes, shape);
    if (n < 0)
        return NULL;
    const Tensor *inputs[2] = {a, b};
    Tensor *out = tensor_empty_like_operands(DT_BOOL, n, shape, inputs, 2);
    if (!out)
        return NULL;
    const Tensor *ops[3] = {out, a, b};
    TensorIter it;
    if (!tensor_iter_init(&it, n, shape, ops, 3)) {
        tensor_release(out);
        return NULL;
    }
    TensorDType dt = a->dtype;
    bool tolerant = !(rtol == 0 && atol == 0);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        bool close;
        if (dt == DT_F64) {
            double x = tensor_read_f64(a, it.offsets[1]), y = tensor_read_f64(b, it.offsets[2]);
            close = x == y || (equal_nan && isnan(x) && isnan(y));
            if (!close && tolerant) {
                double diff = fabs(x - y);
                close = isfinite(diff) && diff <= atol + fabs(rtol * y);
            }
        } else {
            /* Integers and bools compare as float32 (the default dtype) once
             * they are not exactly equal. */
            float x = tensor_read_f32(a, it.offsets[1]), y = tensor_read_f32(b, it.offsets[2]);
            close = dt == DT_F32 ? x == y
                                 : tensor_read_i64(a, it.offsets[1]) == tensor_read_i64(b, it.offsets[2]);
            if (!close && dt == DT_F32 && equal_nan)
                close = isnan(x) && isnan(y);
            if (!close && tolerant) {
                float diff = fabs(x - y);
                close = isfinite(diff) && diff <= (float)atol + fabs((float)rtol * y);
            }
        }
        tensor_write_i64(out, it.offsets[0], close);
    }
    return out;
}

bool tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan,
                     bool *result)
{
    Tensor *close = tensor_isclose(a, b, rtol, atol, equal_nan);
    if (!close)
        return false;
    *result = true;
    for (int64_t i = 0, n = tensor_numel(close); i < n && *result; i++)
        *result = tensor_get_flat_int(close, i) != 0;
    tensor_release(close);
    return true;
}

/* torch.equal: same shape and every element equal after type promotion
 * (NaN is never equal). */
bool tensor_equal(const Tensor *a, const Tensor *b, bool *result)
{
    *result = false;
    if (!tensor_same_shape(a, b))
        return true;
    Tensor *eq = tensor_binary(BIN_EQ, a, b);
    if (!eq)
        return false;
    *result = true;
    for (int64_t i = 0, n = tensor_numel(eq); i < n && *result; i++)
        *result = tensor_get_flat_int(eq, i) != 0;
    tensor_release(eq);
    return true;
}

/* ---------------------------------------------------------------- nan_to_num */

Tensor *tensor_nan_to_num(const Tensor *a, const double *nan, const double *posinf,
                          const double *neginf)
{
    if (!dtype_is_float(a->dtype))
        return tensor_clone_preserve(a);
    bool f32 = a->dtype == DT_F32;
    /* The replacements are cast to the dtype (1e300 becomes inf in float32). */
    double nan_value = nan ? tensor_round_f64(a->dtype, *nan) : 0.0;
    double pos_value = posinf ? tensor_round_f64(a->dtype, *posinf) : f32 ? FLT_MAX : DBL_MAX;
    double neg_value = neginf ? tensor_round_f64(a->dtype, *neginf) : f32 ? -FLT_MAX : -DBL_MAX;
    Tensor *out = tensor_empty_like_operands(a->dtype, a->ndim, a->sizes, &a, 1);
    if (!out)
        return NULL;
    const Tensor *ops[2] = {out, a};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2)) {
        tensor_release(out);
        return NULL;
    }
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        double x = tensor_read_f64(a, it.offsets[1]);
        if (isnan(x))
            x = nan_value;
        else if (x == INFINITY)
            x = pos_value;
        else if (x == -INFINITY)
            x = neg_value;
        tensor_write_f64(out, it.offsets[0], x);
    }
    return out;
}

/* ---------------------------------------------------------------- ldexp, float_power, frexp */

Tensor *tensor_ldexp(const Tensor *a, const Tensor *b)
{
    /* ATen: mul(self, pow(2.0, other)); the power is float32 for integer
     * exponents, and the product promotes with self. */
    Tensor *two = tensor_wrapped_float(2.0);
    Tensor *power = two ? tensor_binary(BIN_POW, two, b) : NULL;
    tensor_release(two);
    if (!power)
        return NULL;
    Tensor *out = tensor_binary(BIN_MUL, a, power);
    tensor_release(power);
    return out;
}

/* An operand of float_power in float64: a Python number stays one (so
 * pow's fast paths for a number exponent apply), a tensor is converted. */
static Tensor *as_float64(const Tensor *t)
{
    if (t->wrapped_number)
        return tensor_wrapped_float(tensor_read_f64(t, t->offset));
    return tensor_to_dtype(t, DT_F64);
}

Tensor *tensor_float_power(const Tensor *base, const Tensor *exponent)
{
    Tensor *b = as_float64(base), *e = b ? as_float64(exponent) : NULL;
    Tensor *out = e ? tensor_binary(BIN_POW, b, e) : NULL;
    tensor_release(b);
    tensor_release(e);
    return out;
}

bool tensor_frexp(const Tensor *a, Tensor **mantissa, Tensor **exponent)
{
    *mantissa = *exponent = NULL;
    if (!dtype_is_float(a->dtype)) {
        tensor_set_error("torch.frexp() only supports floating-point dtypes");
        return false;
    }
    Tensor *m = tensor_empty_like_operands(a->dtype, a->ndim, a->sizes, &a, 1);
    Tensor *e = m ? tensor_empty_like_operands(DT_I32, a->ndim, a->sizes, &a, 1) : NULL;
    if (!e) {
        tensor_release(m);
        return false;
    }
    const Tensor *ops[3] = {m, e, a};
    TensorIter it;
    if (!tensor_iter_init(&it, a->ndim, a->sizes, ops, 3)) {
        tensor_release(m);
        tensor_release(e);
        return false;
    }
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        int exp2_of = 0;
        if (a->dtype == DT_F32)
            tensor_write_f64(m, it.offsets[0], frexp(tensor_read_f32(a, it.offsets[2]), &exp2_of));
        else
            tensor_write_f64(m, it.offsets[0], frexp(tensor_read_f64(a, it.offsets[2]), &exp2_of));
        tensor_write_i64(e, it.offsets[1], exp2_of);
    }
    *mantissa = m;
    *exponent = e;
    return true;
}

/* ---------------------------------------------------------------- glu, prelu */

Tensor *tensor_glu(const Tensor *a, int64_t dim)
{
    if (a->ndim == 0) {
        tensor_set_error("glu does not support scalars because halving size must be even");
        return NULL;
    }
    int d = tensor_wrap_dim(dim, a->ndim);
    if (d < 0)
        return NULL;
    int64_t size = a->sizes[d];
    if (size % 2 != 0) {
        tensor_set_error("Halving dimension must be even, but dimension %d is size %lld", d,
                         (long long)size);
        return NULL;
    }
    Tensor *first = tensor_narrow((Tensor *)a, d, 0, size / 2);
    Tensor *second = first ? tensor_narrow((Tensor *)a, d, size / 2, size / 2) : NULL;
    Tensor *out = second ? math_binary(MB_GLU, first, second) : NULL;
    tensor_release(first);
    tensor_release(second);
    return out;
}

Tensor *tensor_prelu(const Tensor *a, const Tensor *weight)
{
    int64_t weights = tensor_numel(weight);
    if (weights != 1) {
        if (a->ndim == 0) {
            tensor_set_error("Not allow zero-dim input tensor.");
            return NULL;
        }
        int64_t channels = a->ndim > 1 ? a->sizes[1] : 1;
        if (channels != weights) {
            tensor_set_error("Mismatch of parameter numbers and input channel size. Found "
                             "parameter numbers = %lld and channel size = %lld.",
                             (long long)weights, (long long)channels);
            return NULL;
        }
    }
    if (weight->ndim > 1) {
        tensor_set_error("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d",
                         weight->ndim);
        return NULL;
    }
    /* TensorIterator without promotion: every operand has self's dtype. */
    if (weight->dtype != a->dtype) {
        tensor_set_error("Found dtype %s but expected %s", dtype_ts_name(weight->dtype),
                         dtype_ts_name(a->dtype));
        return NULL;
    }
    if (!dtype_is_float(a->dtype)) {
        tensor_error_not_implemented("prelu_cpu", a->dtype);
        return NULL;
    }
    /* The weights along dim 1 (all of them broadcast for a single weight). */
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    for (int d = 0; d < a->ndim; d++) {
        sizes[d] = 1;
        strides[d] = 0;
    }
    if (a->ndim >= 2 && weight->ndim == 1) {
        sizes[1] = weight->sizes[0];
        strides[1] = weight->strides[0];
    }
    Tensor *w = tensor_make_view(weight, a->ndim, sizes, strides, weight->offset);
    Tensor *out = w ? tensor_empty(a->dtype, a->ndim, a->sizes) : NULL;
    MathPlan plan = {a->dtype, a->dtype};
    if (out && !math_binary_kernel(MB_PRELU, &plan, out, a, w)) {
        tensor_release(out);
        out = NULL;
    }
    tensor_release(w);
    return out;
}

/* ---------------------------------------------------------------- addcmul, addcdiv */

static Tensor *add_product(const Tensor *self, const Tensor *t1, const Tensor *t2,
                           const Tensor *value, bool divide)
{
    if (divide && !dtype_is_float(t1->dtype) && !dtype_is_float(t2->dtype)) {
        tensor_set_error(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(self->ndim, self->sizes, t1->ndim, t1->sizes, shape);
    if (n < 0 || (n = tensor_broadcast_shape(n, shape, t2->ndim, t2->sizes, shape)) < 0)
        return NULL;
    const Tensor *inputs[3] = {self, t1, t2};
    TensorDType dt = tensor_result_type(inputs, 3);
    if (dt == DT_BOOL) {
        tensor_error_not_implemented(divide ? "addcdiv_cpu_out" : "addcmul_cpu_out", dt);
        return NULL;
    }
    if (!tensor_wrapped_fits(value, dt))
        return NULL;
    Tensor *out = tensor_empty_like_operands(dt, n, shape, inputs, 3);
    if (!out)
        return NULL;
    const Tensor *ops[4] = {out, self, t1, t2};
    TensorIter it;
    if (!tensor_iter_init(&it, n, shape, ops, 4)) {
        tensor_release(out);
        return NULL;
    }
    if (dt == DT_F32) {
        float v = (float)tensor_read_f64(value, value->offset);
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            float s = tensor_read_f32(self, it.offsets[1]), x = tensor_read_f32(t1, it.offsets[2]);
            float y = tensor_read_f32(t2, it.offsets[3]);
            tensor_write_f64(out, it.offsets[0], divide ? s + v * x / y : s + v * x * y);
        }
    } else if (dt == DT_F64) {
        double v = tensor_read_f64(value, value->offset);
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            double s = tensor_read_f64(self, it.offsets[1]), x = tensor_read_f64(t1, it.offsets[2]);
            double y = tensor_read_f64(t2, it.offsets[3]);
            tensor_write_f64(out, it.offsets[0], divide ? s + v * x / y : s + v * x * y);
        }
    } else {
        /* Integers (addcmul only): Scalar::to truncates the value; the
         * arithmetic wraps. */
        uint64_t v = (uint64_t)tensor_wrap_int(tensor_read_i64(value, value->offset), dt);
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            uint64_t s = (uint64_t)tensor_wrap_int(tensor_read_i64(self, it.offsets[1]), dt);
            uint64_t x = (uint64_t)tensor_wrap_int(tensor_read_i64(t1, it.offsets[2]), dt);
            uint64_t y = (uint64_t)tensor_wrap_int(tensor_read_i64(t2, it.offsets[3]), dt);
            tensor_write_i64(out, it.offsets[0], tensor_wrap_int((int64_t)(s + v * x * y), dt));
        }
    }
    return out;
}

Tensor *tensor_addcmul(const Tensor *self, const Tensor *t1, const Tensor *t2, const Tensor *value)
{
    return add_product(self, t1, t2, value, false);
}

Tensor *tensor_addcdiv(const Tensor *self, const Tensor *t1, const Tensor *t2, const Tensor *value)
{
    return add_product(self, t1, t2, value, true);
}
