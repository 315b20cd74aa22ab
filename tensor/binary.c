/* binary.c — elementwise ops of two tensors, broadcasting, with PyTorch's
 * type promotion.
 *
 * The operands are promoted to common = result_type(a, b) before the op, as
 * TensorIterator casts its inputs: an int8 tensor + 300 computes with 300
 * wrapped to int8 first. True division and atan2 of integers compute in
 * float32; comparisons and logical ops compute in the common dtype and give
 * bool. Floating ops compute in the dtype itself (float32 in float) with
 * ATen's formulas (Python floor division and remainder, NaN-propagating
 * maximum/minimum, pow's fast paths for a scalar exponent). Integer ops
 * compute in int64 with wrap-around done in unsigned arithmetic, then wrap to
 * the common dtype; integer division by zero is an error, as PyTorch raises
 * ZeroDivisionError on CPU.
 */
#include <inttypes.h>
#include <tgmath.h>

#include "tensor/tensor_impl.h"

static bool is_comparison(BinaryOp op)
{
    return op >= BIN_EQ && op <= BIN_LOGICAL_XOR;
}

static bool is_bitwise(BinaryOp op)
{
    return op >= BIN_BITWISE_AND && op <= BIN_BITWISE_XOR;
}

/* A pow whose exponent is a Python number gets ATen's fast paths. */
typedef struct PowScalar {
    bool active;
    double exponent;
} PowScalar;

#define DEFINE_BINARY_FLOAT(T, NAME)                                                         \
    static inline __attribute__((always_inline)) T NAME(BinaryOp op, T x, T y, T alpha,      \
                                                        PowScalar pow_scalar)                \
    {                                                                                        \
        switch (op) {                                                                        \
        case BIN_ADD: return x + alpha * y;                                                  \
        case BIN_SUB: return x - alpha * y;                                                  \
        case BIN_MUL: return x * y;                                                          \
        case BIN_DIV: return x / y;                                                          \
        case BIN_DIV_TRUNC: return trunc(x / y);                                             \
        case BIN_DIV_FLOOR: {                                                                \
            if (y == 0)                                                                      \
                return x / y;                                                                \
            T mod = fmod(x, y);                                                              \
            T div = (x - mod) / y;                                                           \
            if (mod != 0 && (y < 0) != (mod < 0))                                            \
                div -= 1;                                                                    \
            if (div == 0)                                                                    \
                return copysign((T)0, x / y);                                                \
            T floordiv = floor(div);                                                         \
            if (div - floordiv > (T)0.5)                                                     \
                floordiv += 1;                                                               \
            return floordiv;                                                                 \
        }                                                                                    \
        case BIN_REMAINDER: {                                                                \
            T mod = fmod(x, y);                                                              \
            if (mod != 0 && (y < 0) != (mod < 0))                                            \
                mod += y;                                                                    \
            return mod;                                                                      \
        }                                                                                    \
        case BIN_FMOD: return fmod(x, y);                                                    \
        case BIN_POW:                                                                        \
            if (pow_scalar.active) {                                                         \
                double e = pow_scalar.exponent;                                              \
                if (e == 0.5) return sqrt(x);                                                \
                if (e == 2.0) return x * x;                                                  \
                if (e == 3.0) return x * x * x;                                              \
                if (e == -0.5) return (T)1 / sqrt(x);                                        \
                if (e == -1.0) return (T)1 / x;                                              \
                if (e == -2.0) return (T)1 / (x * x);                                        \
            }                                                                                \
            return pow(x, y);                                                                \
        case BIN_MAXIMUM: return (x != x || y != y) ? (T)NAN : (x < y ? y : x);              \
        case BIN_MINIMUM: return (x != x || y != y) ? (T)NAN : (y < x ? y : x);              \
        case BIN_ATAN2: return atan2(x, y);                                                  \
        default: return 0;                                                                   \
        }                                                                                    \
    }

DEFINE_BINARY_FLOAT(float, binary_f32)
DEFINE_BINARY_FLOAT(double, binary_f64)

/* Comparisons and logical ops; floats compare exactly in double, integers
 * exactly in int64. */
#define DEFINE_COMPARE(T, NAME)                                                              \
    static bool NAME(BinaryOp op, T x, T y)                                                  \
    {                                                                                        \
        switch (op) {                                                                        \
        case BIN_EQ: return x == y;                                                          \
        case BIN_NE: return x != y;                                                          \
        case BIN_LT: return x < y;                                                           \
        case BIN_LE: return x <= y;                                                          \
        case BIN_GT: return x > y;                                                           \
        case BIN_GE: return x >= y;                                                          \
        case BIN_LOGICAL_AND: return x != 0 && y != 0;                                       \
        case BIN_LOGICAL_OR: return x != 0 || y != 0;                                        \
        default: return (x != 0) != (y != 0);                                               \
        }                                                                                    \
    }

DEFINE_COMPARE(double, compare_f64)
DEFINE_COMPARE(int64_t, compare_int)

/* c10's powi: repeated squaring, wrapping; negative exponents give 0 except
 * for bases 1 and -1. */
static int64_t int_pow(int64_t base, int64_t exponent)
{
    if (exponent < 0) {
        if (base == 1)
            return 1;
        if (base == -1)
            return (exponent & 1) ? -1 : 1;
        return 0;
    }
    uint64_t result = 1, b = (uint64_t)base;
    while (exponent) {
        if (exponent & 1)
            result *= b;
        exponent >>= 1;
        b *= b;
    }
    return (int64_t)result;
}

/* Integer ops in wrapping int64; false on division by zero. */
static bool binary_int(BinaryOp op, int64_t x, int64_t y, int64_t alpha, int64_t *r)
{
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (op) {
    case BIN_ADD: *r = (int64_t)(ux + (uint64_t)alpha * uy); return true;
    case BIN_SUB: *r = (int64_t)(ux - (uint64_t)alpha * uy); return true;
    case BIN_MUL: *r = (int64_t)(ux * uy); return true;
    case BIN_DIV_TRUNC:
    case BIN_DIV_FLOOR:
    case BIN_REMAINDER:
    case BIN_FMOD: {
        if (y == 0)
            return false;
        /* x / -1 overflows only for INT64_MIN; it wraps, with remainder 0. */
        int64_t quot = y == -1 ? (int64_t)(0 - ux) : x / y;
        int64_t rem = y == -1 ? 0 : x % y;
        if (op == BIN_DIV_TRUNC)
            *r = quot;
        else if (op == BIN_FMOD)
            *r = rem;
        else if (op == BIN_DIV_FLOOR)
            *r = (rem != 0 && ((x < 0) != (y < 0))) ? quot - 1 : quot;
        else
            *r = (rem != 0 && ((rem < 0) != (y < 0))) ? rem + y : rem;
        return true;
    }
    case BIN_POW: *r = int_pow(x, y); return true;
    case BIN_MAXIMUM: *r = x < y ? y : x; return true;
    case BIN_MINIMUM: *r = y < x ? y : x; return true;
    case BIN_BITWISE_AND: *r = x & y; return true;
    case BIN_BITWISE_OR: *r = x | y; return true;
    case BIN_BITWISE_XOR: *r = x ^ y; return true;
    default: *r = 0; return true;
    }
}

/* How one binary op runs on given operands: dtypes, alpha, pow fast path. */
typedef struct BinaryPlan {
    TensorDType common;     /* operands are promoted to this */
    TensorDType compute;    /* arithmetic happens in this (common, or float32) */
    TensorDType result;     /* dtype of the out-of-place result */
    double alpha;
    PowScalar pow_scalar;
} BinaryPlan;

static const char *bool_kernel_name(BinaryOp op)
{
    switch (op) {
    case BIN_DIV_TRUNC: return "div_trunc_cpu";
    case BIN_DIV_FLOOR: return "div_floor_cpu";
    case BIN_REMAINDER: return "remainder_cpu";
    case BIN_FMOD: return "fmod_cpu";
    case BIN_POW: return "pow";
    default: return NULL;
    }
}

/* Checks ATen makes before it looks at shapes: sub of bools, and a negative
 * integer exponent given as a Python number. */
static bool binary_prechecks(BinaryOp op, const Tensor *a, const Tensor *b)
{
    if ((unsigned)op >= BIN_COUNT) {
        tensor_set_error("invalid binary op %d", (int)op);
        return false;
    }
    if (op == BIN_SUB && a->dtype == DT_BOOL && b->dtype == DT_BOOL) {
        tensor_set_error("Subtraction, the `-` operator, with two bool tensors is not supported. "
                         "Use the `^` or `logical_xor()` operator instead.");
        return false;
    }
    if (op == BIN_SUB && (a->dtype == DT_BOOL || b->dtype == DT_BOOL)) {
        tensor_set_error("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                         "you are trying to invert a mask, use the `~` or `logical_not()` "
                         "operator instead.");
        return false;
    }
    if (op == BIN_POW && b->wrapped_number && !dtype_is_float(a->dtype) &&
        !dtype_is_float(b->dtype) && tensor_read_i64(b, b->offset) < 0) {
        tensor_set_error("Integers to negative integer powers are not allowed.");
        return false;
    }
    return true;
}

/* The dtypes op computes with on a and b (no checks). */
static void plan_binary(BinaryOp op, const Tensor *a, const Tensor *b, double alpha,
                        BinaryPlan *plan)
{
    const Tensor *pair[2] = {a, b};
    TensorDType common = tensor_result_type(pair, 2);
    plan->common = plan->compute = plan->result = common;
    plan->alpha = alpha;
    plan->pow_scalar.active = op == BIN_POW && b->wrapped_number;
    plan->pow_scalar.exponent = plan->pow_scalar.active ? tensor_read_f64(b, b->offset) : 0;
    if (op == BIN_DIV || op == BIN_ATAN2) {
        if (!dtype_is_float(common))
            plan->compute = plan->result = dtype_default_float();
    } else if (is_comparison(op)) {
        plan->result = DT_BOOL;
    }
}

/* Checks ATen makes once shapes and dtypes are settled: a kernel for the
 * dtype, an integral alpha for integral adds, an exponent that fits. */
static bool binary_kernel_checks(BinaryOp op, const BinaryPlan *plan, const Tensor *b)
{
    TensorDType common = plan->common;
    if (common == DT_BOOL && bool_kernel_name(op))
        return tensor_error_not_implemented(bool_kernel_name(op), common);
    if (is_bitwise(op) && dtype_is_float(common)) {
        const char *names[] = {"bitwise_and_cpu", "bitwise_or_cpu", "bitwise_xor_cpu"};
        return tensor_error_not_implemented(names[op - BIN_BITWISE_AND], common);
    }
    if ((op == BIN_ADD || op == BIN_SUB) && !dtype_is_float(common) &&
        plan->alpha != trunc(plan->alpha)) {
        tensor_set_error("For integral input tensors, argument alpha must not be a floating point "
                         "number.");
        return false;
    }
    /* pow converts a Python-number exponent with Scalar::to<integer type>. */
    if (plan->pow_scalar.active && !dtype_is_float(common) && !tensor_wrapped_fits(b, common))
        return false;
    return true;
}

/* Rows of a float op where out, a and b all hold the compute type T: called
 * with a constant op, so the op's switch folds away inside the loop. */
#define DEFINE_BINARY_ROWS(T, NAME, FN)                                                      \
    static inline __attribute__((always_inline)) void NAME(BinaryOp op, TensorIter *it,     \
            T *out, const T *a, const T *b, T alpha, PowScalar pow_scalar)                   \
    {                                                                                        \
        int64_t row = tensor_iter_row_size(it);                                              \
        int64_t so = tensor_iter_row_stride(it, 0), sa = tensor_iter_row_stride(it, 1);      \
        int64_t sb = tensor_iter_row_stride(it, 2);                                          \
        for (int64_t i = 0; i < it->numel; i += row, tensor_iter_next_row(it)) {             \
            T *o = out + it->offsets[0];                                                     \
            const T *x = a + it->offsets[1], *y = b + it->offsets[2];                        \
            for (int64_t j = 0; j < row; j++)                                                \
                o[j * so] = FN(op, x[j * sa], y[j * sb], alpha, pow_scalar);                 \
        }                                                                                    \
    }

DEFINE_BINARY_ROWS(float, binary_rows_f32, binary_f32)
DEFINE_BINARY_ROWS(double, binary_rows_f64, binary_f64)

#define BINARY_FLOAT_OPS(X) \
    X(BIN_ADD) X(BIN_SUB) X(BIN_MUL) X(BIN_DIV) X(BIN_DIV_TRUNC) X(BIN_DIV_FLOOR) \
    X(BIN_REMAINDER) X(BIN_FMOD) X(BIN_POW) X(BIN_MAXIMUM) X(BIN_MINIMUM) X(BIN_ATAN2)

/* The float fast path: false when the operands' dtypes do not allow it. */
static bool binary_float_rows(BinaryOp op, const BinaryPlan *plan, TensorIter *it, Tensor *out,
                              const Tensor *a, const Tensor *b)
{
    TensorDType t = plan->compute;
    if (!dtype_is_float(t) || out->dtype != t || a->dtype != t || b->dtype != t)
        return false;
    if (t == DT_F32) {
        float *o = out->storage->data;
        const float *x = a->storage->data, *y = b->storage->data;
        float alpha = (float)plan->alpha;
#define CASE_F32(OP) case OP: binary_rows_f32(OP, it, o, x, y, alpha, plan->pow_scalar); return true;
        switch (op) {
        BINARY_FLOAT_OPS(CASE_F32)
        default: return false;
        }
#undef CASE_F32
    }
    double *o = out->storage->data;
    const double *x = a->storage->data, *y = b->storage->data;
#define CASE_F64(OP) case OP: binary_rows_f64(OP, it, o, x, y, plan->alpha, plan->pow_scalar); return true;
    switch (op) {
    BINARY_FLOAT_OPS(CASE_F64)
    default: return false;
    }
#undef CASE_F64
}

/* out = a op b over out's shape. out may be a itself (in place). */
static bool binary_kernel(BinaryOp op, const BinaryPlan *plan, Tensor *out, const Tensor *a,
                          const Tensor *b)
{
    const Tensor *ops[3] = {out, a, b};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 3))
        return false;
    bool compares = is_comparison(op);
    TensorDType ct = plan->compute;
    if (dtype_is_float(ct) && out->dtype == ct && !compares && (a->dtype == ct || a->ndim == 0) &&
        (b->dtype == ct || b->ndim == 0)) {
        /* A 0-d operand of another dtype (a Python number, mostly) is cast
         * once, the same cast the loop below makes per element, so the typed
         * loop can run. Its strides are all 0: only its offset changes. */
        Tensor *a_cast = a->dtype != ct ? tensor_to_dtype(a, ct) : NULL;
        Tensor *b_cast = b->dtype != ct ? tensor_to_dtype(b, ct) : NULL;
        if ((a->dtype == ct || a_cast) && (b->dtype == ct || b_cast)) {
            if (a_cast)
                it.offsets[1] = a_cast->offset;
            if (b_cast)
                it.offsets[2] = b_cast->offset;
            bool done = binary_float_rows(op, plan, &it, out, a_cast ? a_cast : a,
                                          b_cast ? b_cast : b);
            tensor_release(a_cast);
            tensor_release(b_cast);
            if (!done)
                tensor_set_error("internal error: no float loop for binary op %d", (int)op);
            return done;
        }
        tensor_release(a_cast);
        tensor_release(b_cast);
        return false;
    }
    if (plan->compute == DT_F32) {
        float alpha = (float)plan->alpha;
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            float x = tensor_read_f32(a, it.offsets[1]), y = tensor_read_f32(b, it.offsets[2]);
            if (compares)
                tensor_write_i64(out, it.offsets[0], compare_f64(op, x, y));
            else
                tensor_write_f64(out, it.offsets[0], binary_f32(op, x, y, alpha, plan->pow_scalar));
        }
        return true;
    }
    if (plan->compute == DT_F64) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            double x = tensor_read_f64(a, it.offsets[1]), y = tensor_read_f64(b, it.offsets[2]);
            if (compares)
                tensor_write_i64(out, it.offsets[0], compare_f64(op, x, y));
            else
                tensor_write_f64(out, it.offsets[0],
                                 binary_f64(op, x, y, plan->alpha, plan->pow_scalar));
        }
        return true;
    }
    TensorDType common = plan->common;
    int64_t alpha = tensor_double_to_int(plan->alpha, DT_I64);  /* integral: see plan_binary */
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        int64_t x = tensor_wrap_int(tensor_read_i64(a, it.offsets[1]), common);
        int64_t y = tensor_wrap_int(tensor_read_i64(b, it.offsets[2]), common);
        int64_t r;
        if (compares) {
            r = compare_int(op, x, y);
        } else if (!binary_int(op, x, y, alpha, &r)) {
            tensor_set_error("ZeroDivisionError");
            return false;
        } else {
            r = tensor_wrap_int(r, common);
        }
        tensor_write_i64(out, it.offsets[0], r);
    }
    return true;
}

static Tensor *binary_out_of_place(BinaryOp op, const Tensor *a, const Tensor *b, double alpha)
{
    if (!binary_prechecks(op, a, b))
        return NULL;
    BinaryPlan plan;
    plan_binary(op, a, b, alpha, &plan);
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(a->ndim, a->sizes, b->ndim, b->sizes, shape);
    if (n < 0 || !binary_kernel_checks(op, &plan, b))
        return NULL;
    /* pow with a number exponent is a unary op on a in ATen: a alone
     * decides the layout. */
    const Tensor *inputs[2] = {a, b};
    Tensor *out = tensor_empty_like_operands(plan.result, n, shape, inputs,
                                             plan.pow_scalar.active ? 1 : 2);
    if (out && !binary_kernel(op, &plan, out, a, b)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

static bool binary_in_place(BinaryOp op, Tensor *a, const Tensor *b, double alpha)
{
    if (!binary_prechecks(op, a, b))
        return false;
    BinaryPlan plan;
    plan_binary(op, a, b, alpha, &plan);
    if (plan.pow_scalar.active && !dtype_can_cast(plan.result, a->dtype)) {
        /* pow_ checks dtypes the way unary ops do, with this message. */
        tensor_set_error("Found dtype %s but expected %s", dtype_ts_name(a->dtype),
                         dtype_ts_name(plan.result));
        return false;
    }
    const Tensor *inputs[2] = {a, b};
    if (!tensor_check_inplace(a, plan.result, inputs, 2) || !binary_kernel_checks(op, &plan, b))
        return false;
    Tensor *copy;
    const Tensor *src = tensor_unalias_input(a, b, &copy);
    if (!src)
        return false;
    bool ok = binary_kernel(op, &plan, a, a, src);
    tensor_release(copy);
    return ok;
}

Tensor *tensor_binary(BinaryOp op, const Tensor *a, const Tensor *b)
{
    return binary_out_of_place(op, a, b, 1.0);
}

Tensor *tensor_add(const Tensor *a, const Tensor *b, double alpha)
{
    return binary_out_of_place(BIN_ADD, a, b, alpha);
}

Tensor *tensor_sub(const Tensor *a, const Tensor *b, double alpha)
{
    return binary_out_of_place(BIN_SUB, a, b, alpha);
}

bool tensor_binary_(BinaryOp op, Tensor *a, const Tensor *b)
{
    return binary_in_place(op, a, b, 1.0);
}

bool tensor_add_(Tensor *a, const Tensor *b, double alpha)
{
    return binary_in_place(BIN_ADD, a, b, alpha);
}

bool tensor_sub_(Tensor *a, const Tensor *b, double alpha)
{
    return binary_in_place(BIN_SUB, a, b, alpha);
}
