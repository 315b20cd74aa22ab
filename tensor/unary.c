/* unary.c — elementwise ops of one tensor (tensor_unary, tensor_unary_).
 *
 * The result dtype follows PyTorch: transcendental ops (exp, sigmoid, ...)
 * compute in float32 for integer and bool inputs; neg/abs/relu/floor/sign
 * and friends keep integer dtypes (floor, ceil, round, trunc are the
 * identity there); logical_not gives bool; the nn activations (gelu, silu,
 * hardswish, elu, ...) exist for floating dtypes only. Floating ops compute
 * in the dtype itself, float32 in float with the C library's float functions
 * (expf, tanhf... through <tgmath.h>), using ATen's formulas, so results
 * match PyTorch's CPU kernels to within an ulp or two. Integer ops compute
 * in int64 and wrap to the dtype, as C++ arithmetic in that type would.
 */
#include <tgmath.h>

#include "tensor/tensor_impl.h"

/* std::max / std::min as ATen's clamp kernels use them: a NaN in x passes
 * through, a NaN bound is ignored. */
#define CLAMP_STD(x, lo, hi) ((hi) < ((x) < (lo) ? (lo) : (x)) ? (hi) : ((x) < (lo) ? (lo) : (x)))

/* One definition of the floating ops for both float and double. */
#define DEFINE_UNARY_FLOAT(T, NAME)                                                          \
    static inline __attribute__((always_inline)) T NAME(UnaryOp op, T x, T p0, T p1)         \
    {                                                                                        \
        const T zero = 0, one = 1, half = (T)0.5, three = 3, six = 6;                        \
        switch (op) {                                                                        \
        case UN_NEG: return -x;                                                              \
        case UN_ABS: return fabs(x);                                                         \
        case UN_EXP: return exp(x);                                                          \
        case UN_LOG: return log(x);                                                          \
        case UN_LOG2: return log2(x);                                                        \
        case UN_LOG1P: return log1p(x);                                                      \
        case UN_EXPM1: return expm1(x);                                                      \
        case UN_SQRT: return sqrt(x);                                                        \
        case UN_RSQRT: return one / sqrt(x);                                                 \
        case UN_SIN: return sin(x);                                                          \
        case UN_COS: return cos(x);                                                          \
        case UN_TAN: return tan(x);                                                          \
        case UN_TANH: return tanh(x);                                                        \
        case UN_ERF: return erf(x);                                                          \
        case UN_SIGMOID: return one / (one + exp(-x));                                       \
        case UN_RELU: return x < zero ? zero : x;                                            \
        case UN_RELU6: return CLAMP_STD(x, zero, six);                                       \
        case UN_HARDTANH: return CLAMP_STD(x, p0, p1);                                       \
        case UN_GELU: return x * half * (one + erf(x * (T)0.70710678118654752440));          \
        case UN_GELU_TANH: {                                                                 \
            const T beta = (T)(1.41421356237309504880 * 1.12837916709551257390 * 0.5);       \
            const T kappa = (T)0.044715;                                                     \
            T inner = beta * (x + kappa * (x * x * x));                                      \
            return half * x * (one + tanh(inner));                                           \
        }                                                                                    \
        case UN_SILU: return x / (one + exp(-x));                                            \
        case UN_FLOOR: return floor(x);                                                      \
        case UN_CEIL: return ceil(x);                                                        \
        case UN_ROUND: return nearbyint(x);                                                  \
        case UN_TRUNC: return trunc(x);                                                      \
        case UN_SIGN: return (T)((zero < x) - (x < zero));                                   \
        case UN_RECIPROCAL: return one / x;                                                  \
        case UN_ACOS: return acos(x);                                        \
        case UN_ASIN: return asin(x);                                        \
        case UN_ATAN: return atan(x);                                        \
        case UN_SINH: return sinh(x);                                        \
        case UN_COSH: return cosh(x);                                        \
        case UN_ASINH: return asinh(x);                                      \
        case UN_ACOSH: return acosh(x);                                      \
        case UN_ATANH: return atanh(x);                                      \
        case UN_ERFC: return erfc(x);                                        \
        case UN_EXP2: return exp2(x);                                        \
        case UN_LOG10: return log10(x);                                      \
        case UN_LGAMMA: return lgamma(x);                                    \
        case UN_DEG2RAD: return x * (T)(3.14159265358979323846 / 180.0);     \
        case UN_RAD2DEG: return x * (T)(180.0 / 3.14159265358979323846);     \
        case UN_SINC: return x == zero ? one : sin((T)3.14159265358979323846 * x) / ((T)3.14159265358979323846 * x); \
        case UN_HARDSIGMOID: return CLAMP_STD(x + three, zero, six) / six;                   \
        case UN_HARDSWISH: return x * CLAMP_STD(x + three, zero, six) / six;                 \
        case UN_LEAKY_RELU: return x > zero ? x : x * p0;                                    \
        case UN_ELU: return x <= zero ? (exp(x) - one) * p0 : x;                             \
        case UN_SOFTPLUS: return x * p0 > p1 ? x : log1p(exp(x * p0)) / p0;                  \
        case UN_ROUND_DECIMALS: {                                                            \
            T decimals = p0;                                                                 \
            bool negative = decimals < 0;                                                    \
            T scale = (T)pow(10.0, (double)(negative ? -decimals : decimals));               \
            return negative ? nearbyint(x / scale) * scale : nearbyint(x * scale) / scale;   \
        }                                                                                    \
        default: return x;                                                                   \
        }                                                                                    \
    }

DEFINE_UNARY_FLOAT(float, unary_f32)
DEFINE_UNARY_FLOAT(double, unary_f64)

/* Integer (and bool) ops, in int64; the caller wraps to the dtype. */
static int64_t unary_int(UnaryOp op, int64_t x, int64_t lo, int64_t hi, TensorDType dt)
{
    switch (op) {
    case UN_NEG: return (int64_t)(0 - (uint64_t)x);
    case UN_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    case UN_RELU: return x < 0 ? 0 : x;
    case UN_RELU6:
    case UN_HARDTANH: return CLAMP_STD(x, lo, hi);
    case UN_SIGN: return (0 < x) - (x < 0);
    case UN_LOGICAL_NOT: return x == 0;
    case UN_BITWISE_NOT: return dt == DT_BOOL ? !x : ~x;
    default: return x;      /* floor, ceil, round, trunc */
    }
}

static bool is_float_math(UnaryOp op)
{
    switch (op) {
    case UN_EXP: case UN_LOG: case UN_LOG2: case UN_LOG1P: case UN_EXPM1: case UN_SQRT:
    case UN_RSQRT: case UN_SIN: case UN_COS: case UN_TAN: case UN_TANH: case UN_ERF:
    case UN_SIGMOID: case UN_RECIPROCAL:
    case UN_ACOS: case UN_ASIN: case UN_ATAN: case UN_SINH: case UN_COSH: case UN_ASINH: case UN_ACOSH: case UN_ATANH: case UN_ERFC: case UN_EXP2: case UN_LOG10: case UN_LGAMMA: case UN_DEG2RAD: case UN_RAD2DEG: case UN_SINC:
        return true;
    default:
        return false;
    }
}

/* ATen's kernel name for the float-only activations. */
static const char *float_only_kernel(UnaryOp op)
{
    switch (op) {
    case UN_GELU: case UN_GELU_TANH: return "GeluKernelImpl";
    case UN_SILU: return "silu_cpu";
    case UN_HARDSIGMOID: return "hardsigmoid_cpu";
    case UN_HARDSWISH: return "hardswish_cpu";
    case UN_LEAKY_RELU: return "leaky_relu_cpu";
    case UN_ELU: return "elu_cpu";
    case UN_SOFTPLUS: return "softplus_cpu";
    case UN_ROUND_DECIMALS: return "round_cpu";
    default: return NULL;
    }
}

/* The result dtype of op on dt, or false with PyTorch's error. */
static bool unary_result_dtype(UnaryOp op, TensorDType dt, double p0, double p1, TensorDType *out)
{
    bool is_bool = dt == DT_BOOL;
    if ((unsigned)op >= UN_COUNT) {
        tensor_set_error("invalid unary op %d", (int)op);
        return false;
    }
    *out = dt;
    if (is_float_math(op)) {
        if (!dtype_is_float(dt))
            *out = dtype_default_float();
        return true;
    }
    const char *kernel = float_only_kernel(op);
    if (kernel)
        return dtype_is_float(dt) || tensor_error_not_implemented(kernel, dt);
    switch (op) {
    case UN_NEG:
        if (is_bool) {
            tensor_set_error("Negation, the `-` operator, on a bool tensor is not supported. If "
                             "you are trying to invert a mask, use the `~` or `logical_not()` "
                             "operator instead.");
            return false;
        }
        return true;
    case UN_ABS: return !is_bool || tensor_error_not_implemented("abs_cpu", dt);
    case UN_FLOOR: return !is_bool || tensor_error_not_implemented("floor_vml_cpu", dt);
    case UN_CEIL: return !is_bool || tensor_error_not_implemented("ceil_vml_cpu", dt);
    case UN_ROUND: return !is_bool || tensor_error_not_implemented("round_vml_cpu", dt);
    case UN_TRUNC: return !is_bool || tensor_error_not_implemented("trunc_vml_cpu", dt);
    case UN_RELU:
        if (is_bool) {
            tensor_set_error("Boolean inputs not supported for relu");
            return false;
        }
        return true;
    case UN_RELU6:
    case UN_HARDTANH:
        if (is_bool) {
            tensor_set_error("Bool inputs not supported for hardtanh");
            return false;
        }
        /* Integer hardtanh truncates its limits (Scalar::toLong). */
        if (dt == DT_U8 && op == UN_HARDTANH &&
            (tensor_double_to_int(p0, DT_I64) < 0 || tensor_double_to_int(p1, DT_I64) < 0)) {
            tensor_set_error("cannot do hardtanh on an unsigned type with negative limits");
            return false;
        }
        return true;
    case UN_LOGICAL_NOT:
        *out = DT_BOOL;
        return true;
    case UN_BITWISE_NOT:
        return !dtype_is_float(dt) || tensor_error_not_implemented("bitwise_not_cpu", dt);
    default:
        return true;        /* sign */
    }
}

/* Rows of a float op where out and in both hold T, for a constant op. */
#define DEFINE_UNARY_ROWS(T, NAME, FN)                                                       \
    static inline __attribute__((always_inline)) void NAME(UnaryOp op, TensorIter *it,      \
            T *out, const T *in, T p0, T p1)                                                 \
    {                                                                                        \
        int64_t row = tensor_iter_row_size(it);                                              \
        int64_t so = tensor_iter_row_stride(it, 0), si = tensor_iter_row_stride(it, 1);      \
        for (int64_t i = 0; i < it->numel; i += row, tensor_iter_next_row(it)) {             \
            T *o = out + it->offsets[0];                                                     \
            const T *x = in + it->offsets[1];                                                \
            for (int64_t j = 0; j < row; j++)                                                \
                o[j * so] = FN(op, x[j * si], p0, p1);                                       \
        }                                                                                    \
    }

DEFINE_UNARY_ROWS(float, unary_rows_f32, unary_f32)
DEFINE_UNARY_ROWS(double, unary_rows_f64, unary_f64)

#define UNARY_FLOAT_OPS(X) \
    X(UN_NEG) X(UN_ABS) X(UN_EXP) X(UN_LOG) X(UN_LOG2) X(UN_LOG1P) X(UN_EXPM1) X(UN_SQRT) \
    X(UN_RSQRT) X(UN_SIN) X(UN_COS) X(UN_TAN) X(UN_TANH) X(UN_ERF) X(UN_SIGMOID) X(UN_RELU) \
    X(UN_RELU6) X(UN_GELU) X(UN_GELU_TANH) X(UN_SILU) X(UN_FLOOR) X(UN_CEIL) X(UN_ROUND) \
    X(UN_TRUNC) X(UN_SIGN) X(UN_RECIPROCAL) X(UN_HARDSIGMOID) X(UN_HARDSWISH) \
    X(UN_LEAKY_RELU) X(UN_ELU) X(UN_SOFTPLUS) X(UN_HARDTANH) X(UN_ROUND_DECIMALS) \
    X(UN_ACOS) X(UN_ASIN) X(UN_ATAN) X(UN_SINH) X(UN_COSH) X(UN_ASINH) X(UN_ACOSH) X(UN_ATANH) X(UN_ERFC) X(UN_EXP2) X(UN_LOG10) X(UN_LGAMMA) X(UN_DEG2RAD) X(UN_RAD2DEG) X(UN_SINC)

/* The float fast path: false when the dtypes do not allow it. */
static bool unary_float_rows(UnaryOp op, TensorDType compute, TensorIter *it, Tensor *out,
                             const Tensor *in, double p0, double p1)
{
    if (!dtype_is_float(compute) || out->dtype != compute || in->dtype != compute)
        return false;
    if (compute == DT_F32) {
        float *o = out->storage->data;
        const float *x = in->storage->data;
#define CASE_F32(OP) case OP: unary_rows_f32(OP, it, o, x, (float)p0, (float)p1); return true;
        switch (op) {
        UNARY_FLOAT_OPS(CASE_F32)
        default: return false;
        }
#undef CASE_F32
    }
    double *o = out->storage->data;
    const double *x = in->storage->data;
#define CASE_F64(OP) case OP: unary_rows_f64(OP, it, o, x, p0, p1); return true;
    switch (op) {
    UNARY_FLOAT_OPS(CASE_F64)
    default: return false;
    }
#undef CASE_F64
}

/* out = op(in) elementwise, computing in `compute` (the result dtype). */
static bool unary_kernel(UnaryOp op, TensorDType compute, Tensor *out, const Tensor *in,
                         double p0, double p1)
{
    const Tensor *ops[2] = {out, in};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2))
        return false;
    if (op == UN_RELU6) {
        p0 = 0;
        p1 = 6;
    }
    if (unary_float_rows(op, compute, &it, out, in, p0, p1))
        return true;
    if (compute == DT_F32) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             unary_f32(op, tensor_read_f32(in, it.offsets[1]), (float)p0, (float)p1));
    } else if (compute == DT_F64) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             unary_f64(op, tensor_read_f64(in, it.offsets[1]), p0, p1));
    } else if (op == UN_LOGICAL_NOT && dtype_is_float(in->dtype)) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_i64(out, it.offsets[0], tensor_read_f64(in, it.offsets[1]) == 0);
    } else {
        int64_t lo = tensor_double_to_int(p0, DT_I64), hi = tensor_double_to_int(p1, DT_I64);
        TensorDType in_dt = in->dtype;
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            int64_t r = unary_int(op, tensor_read_i64(in, it.offsets[1]), lo, hi, in_dt);
            tensor_write_i64(out, it.offsets[0], tensor_wrap_int(r, compute));
        }
    }
    return true;
}

Tensor *tensor_unary(UnaryOp op, const Tensor *a, double p0, double p1)
{
    TensorDType result;
    if (!unary_result_dtype(op, a->dtype, p0, p1, &result))
        return NULL;
    Tensor *out = tensor_empty_like_operands(result, a->ndim, a->sizes, &a, 1);
    if (out && !unary_kernel(op, result, out, a, p0, p1)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

bool tensor_unary_(UnaryOp op, Tensor *a, double p0, double p1)
{
    TensorDType result;
    if (!unary_result_dtype(op, a->dtype, p0, p1, &result))
        return false;
    const Tensor *in = a;
    if (!tensor_check_inplace(a, result, &in, 1))
        return false;
    /* Reading and writing the same element in one step is safe in place. */
    return unary_kernel(op, result, a, a, p0, p1);
}
