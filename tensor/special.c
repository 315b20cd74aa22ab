/* special.c — elementwise special functions over tensors (digamma,
 * polygamma, mvlgamma, erfinv, the Bessel family, ndtr, zeta, igamma, xlogy,
 * the orthogonal polynomials...). The scalar functions are in
 * special_math.c; this file gives them PyTorch's tensor semantics:
 *
 *   - dtypes: floating inputs keep their dtype; integer and bool inputs
 *     compute in the default float dtype (float32), as PyTorch's "float ops"
 *     promote them. Two-operand ops first take the result_type of both
 *     operands (a Python number is a wrapped number), then promote an
 *     integral result to float32; igamma/igammac have no integral kernel.
 *   - values are computed in double and rounded once to the result dtype,
 *     except where PyTorch's float32 arithmetic visibly decides the value:
 *     digamma, trigamma and mvlgamma near their poles, ndtr and erfcx,
 *     the polynomials and Bessel-type functions where float overflows or
 *     reduces large arguments; those have float twins;
 *   - the orthogonal polynomials take the degree n elementwise from the
 *     second operand, truncated to an integer as C++'s static_cast does;
 *   - in-place forms check that the result dtype casts to self's.
 */
#include "tensor/special_math.h"
#include "tensor/tensor_impl.h"

/* ---------------------------------------------------------------- one operand */

static double special_unary_value(SpecialUnaryOp op, double x, int64_t n)
{
    switch (op) {
    case SP_DIGAMMA: return sp_digamma(x);
    case SP_POLYGAMMA:
        if (n == 0)
            return sp_digamma(x);
        if (n == 1)
            return sp_trigamma(x);
        return sp_polygamma(n, x);
    case SP_MVLGAMMA: return sp_mvlgamma(x, n);
    case SP_ERFINV: return sp_erfinv(x);
    case SP_I0: return sp_i0(x);
    case SP_I0E: return sp_i0e(x);
    case SP_I1: return sp_i1(x);
    case SP_I1E: return sp_i1e(x);
    case SP_ENTR: return sp_entr(x);
    case SP_ERFCX: return sp_erfcx(x);
    case SP_NDTR: return sp_ndtr(x);
    case SP_NDTRI: return sp_ndtri(x);
    case SP_LOG_NDTR: return sp_log_ndtr(x);
    case SP_AIRY_AI: return sp_airy_ai(x);
    case SP_BESSEL_J0: return sp_bessel_j0(x);
    case SP_BESSEL_J1: return sp_bessel_j1(x);
    case SP_BESSEL_Y0: return sp_bessel_y0(x);
    case SP_BESSEL_Y1: return sp_bessel_y1(x);
    case SP_MODIFIED_BESSEL_I0: return sp_modified_bessel_i0(x);
    case SP_MODIFIED_BESSEL_I1: return sp_modified_bessel_i1(x);
    case SP_MODIFIED_BESSEL_K0: return sp_modified_bessel_k0(x);
    case SP_MODIFIED_BESSEL_K1: return sp_modified_bessel_k1(x);
    case SP_SCALED_MODIFIED_BESSEL_K0: return sp_scaled_modified_bessel_k0(x);
    case SP_SCALED_MODIFIED_BESSEL_K1: return sp_scaled_modified_bessel_k1(x);
    case SP_SPHERICAL_BESSEL_J0: return sp_spherical_bessel_j0(x);
    default: return NAN;
    }
}

/* float32 results: the float twins where PyTorch's float arithmetic shows
 * (digamma, trigamma, mvlgamma, ndtr, erfcx, the Bessel-type functions),
 * else the double value rounded. */
static float special_unary_value_f32(SpecialUnaryOp op, float x, int64_t n)
{
    switch (op) {
    case SP_DIGAMMA: return sp_digamma_f(x);
    case SP_POLYGAMMA:
        if (n == 0)
            return sp_digamma_f(x);
        if (n == 1)
            return sp_trigamma_f(x);
        return (float)sp_polygamma(n, x);
    case SP_MVLGAMMA: return sp_mvlgamma_f(x, n);
    case SP_NDTR: return sp_ndtr_f(x);
    case SP_ERFCX: return sp_erfcx_f(x);
    case SP_I0: return sp_i0_f(x);
    case SP_I0E: return sp_i0e_f(x);
    case SP_I1: return sp_i1_f(x);
    case SP_I1E: return sp_i1e_f(x);
    case SP_AIRY_AI: return sp_airy_ai_f(x);
    case SP_BESSEL_J0: return sp_bessel_j0_f(x);
    case SP_BESSEL_J1: return sp_bessel_j1_f(x);
    case SP_BESSEL_Y0: return sp_bessel_y0_f(x);
    case SP_BESSEL_Y1: return sp_bessel_y1_f(x);
    case SP_MODIFIED_BESSEL_I0: return sp_modified_bessel_i0_f(x);
    case SP_MODIFIED_BESSEL_I1: return sp_modified_bessel_i1_f(x);
    case SP_MODIFIED_BESSEL_K0: return sp_modified_bessel_k0_f(x);
    case SP_MODIFIED_BESSEL_K1: return sp_modified_bessel_k1_f(x);
    case SP_SCALED_MODIFIED_BESSEL_K0: return sp_scaled_modified_bessel_k0_f(x);
    case SP_SCALED_MODIFIED_BESSEL_K1: return sp_scaled_modified_bessel_k1_f(x);
    case SP_SPHERICAL_BESSEL_J0: return sp_spherical_bessel_j0_f(x);
    default: return (float)special_unary_value(op, (double)x, n);
    }
}

/* out = op(in) over out's shape (out may be in itself). */
static bool special_unary_kernel(SpecialUnaryOp op, Tensor *out, const Tensor *in, int64_t n)
{
    const Tensor *ops[2] = {out, in};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2))
        return false;
    if (out->dtype == DT_F32) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             special_unary_value_f32(op, tensor_read_f32(in, it.offsets[1]), n));
    } else {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(out, it.offsets[0],
                             special_unary_value(op, tensor_read_f64(in, it.offsets[1]), n));
    }
    return true;
}

/* PyTorch's argument checks of the parameterized ops. */
static bool special_unary_checks(SpecialUnaryOp op, const Tensor *a, int64_t n)
{
    if ((unsigned)op >= SP_UNARY_COUNT) {
        tensor_set_error("invalid special op %d", (int)op);
        return false;
    }
    if (op == SP_POLYGAMMA && n < 0) {
        tensor_set_error("polygamma(n, x) does not support negative n.");
        return false;
    }
    if (op == SP_MVLGAMMA) {
        if (a->dtype == DT_BOOL) {
            tensor_set_error("The input tensor may not be a boolean tensor.");
            return false;
        }
        if (n < 1) {
            tensor_set_error("p has to be greater than or equal to 1");
            return false;
        }
    }
    return true;
}

static TensorDType float_result(TensorDType dt)
{
    return dtype_is_float(dt) ? dt : dtype_default_float();
}

Tensor *tensor_special_unary(SpecialUnaryOp op, const Tensor *a, int64_t n)
{
    if (!special_unary_checks(op, a, n))
        return NULL;
    Tensor *out = tensor_empty_like_operands(float_result(a->dtype), a->ndim, a->sizes, &a, 1);
    if (out && !special_unary_kernel(op, out, a, n)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

bool tensor_special_unary_(SpecialUnaryOp op, Tensor *a, int64_t n)
{
    if (!special_unary_checks(op, a, n))
        return false;
    if (op == SP_MVLGAMMA && !dtype_is_float(a->dtype)) {
        /* mvlgamma_ builds its offsets with arange(..., step=0.5) in self's
         * dtype, and an integral step of 0 is refused. */
        tensor_set_error("step must be nonzero");
        return false;
    }
    const Tensor *in = a;
    if (!tensor_check_inplace(a, float_result(a->dtype), &in, 1))
        return false;
    return special_unary_kernel(op, a, a, n);
}

/* ---------------------------------------------------------------- two operands */

/* The degree operand of the polynomials: C++'s static_cast<int64_t> of the
 * value (NaN and out-of-range values give INT64_MIN, so a polynomial of
 * "negative degree", 0). Hermite H maps NaN and inf to -1 first, the same. */
static int64_t degree(double n)
{
    return tensor_double_to_int(n, DT_I64);
}

static double special_binary_value(SpecialBinaryOp op, double a, double b)
{
    switch (op) {
    case SP_XLOGY: return sp_xlogy(a, b);
    case SP_XLOG1PY: return sp_xlog1py(a, b);
    case SP_IGAMMA: return sp_igamma(a, b);
    case SP_IGAMMAC: return sp_igammac(a, b);
    case SP_ZETA: return sp_zeta(a, b);
    case SP_CHEBYSHEV_T: return sp_chebyshev_t(a, degree(b));
    case SP_CHEBYSHEV_U: return sp_chebyshev_u(a, degree(b));
    case SP_CHEBYSHEV_V: return sp_chebyshev_v(a, degree(b));
    case SP_CHEBYSHEV_W: return sp_chebyshev_w(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_T: return sp_shifted_chebyshev_t(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_U: return sp_shifted_chebyshev_u(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_V: return sp_shifted_chebyshev_v(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_W: return sp_shifted_chebyshev_w(a, degree(b));
    case SP_HERMITE_H: return sp_hermite_h(a, degree(b));
    case SP_HERMITE_HE: return sp_hermite_he(a, degree(b));
    case SP_LAGUERRE_L: return sp_laguerre_l(a, degree(b));
    case SP_LEGENDRE_P: return sp_legendre_p(a, degree(b));
    default: return NAN;
    }
}

/* float32 results: the polynomials in float (where float overflows, PyTorch's
 * values become inf and NaN), the rest through double. */
static float special_binary_value_f32(SpecialBinaryOp op, float a, float b)
{
    switch (op) {
    case SP_CHEBYSHEV_T: return sp_chebyshev_t_f(a, degree(b));
    case SP_CHEBYSHEV_U: return sp_chebyshev_u_f(a, degree(b));
    case SP_CHEBYSHEV_V: return sp_chebyshev_v_f(a, degree(b));
    case SP_CHEBYSHEV_W: return sp_chebyshev_w_f(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_T: return sp_shifted_chebyshev_t_f(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_U: return sp_shifted_chebyshev_u_f(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_V: return sp_shifted_chebyshev_v_f(a, degree(b));
    case SP_SHIFTED_CHEBYSHEV_W: return sp_shifted_chebyshev_w_f(a, degree(b));
    case SP_HERMITE_H: return sp_hermite_h_f(a, degree(b));
    case SP_HERMITE_HE: return sp_hermite_he_f(a, degree(b));
    case SP_LAGUERRE_L: return sp_laguerre_l_f(a, degree(b));
    case SP_LEGENDRE_P: return sp_legendre_p_f(a, degree(b));
    default: return (float)special_binary_value(op, a, b);
    }
}

/* The dtype op computes in for a and b, or false with PyTorch's error. */
static bool special_binary_dtype(SpecialBinaryOp op, const Tensor *a, const Tensor *b,
                                 TensorDType *out)
{
    if ((unsigned)op >= SP_BINARY_COUNT) {
        tensor_set_error("invalid special op %d", (int)op);
        return false;
    }
    const Tensor *pair[2] = {a, b};
    TensorDType common = tensor_result_type(pair, 2);
    if ((op == SP_IGAMMA || op == SP_IGAMMAC) && !dtype_is_float(common))
        return tensor_error_not_implemented(op == SP_IGAMMA ? "igamma_cpu" : "igammac_cpu",
                                            common);
    *out = float_result(common);
    return true;
}

/* out = op(a, b) over out's shape, reading each operand as the compute dtype
 * (rounded to float32 first where that is the compute dtype). */
static bool special_binary_kernel(SpecialBinaryOp op, TensorDType compute, Tensor *out,
                                  const Tensor *a, const Tensor *b)
{
    const Tensor *ops[3] = {out, a, b};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 3))
        return false;
    if (compute == DT_F32) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            float x = tensor_read_f32(a, it.offsets[1]), y = tensor_read_f32(b, it.offsets[2]);
            tensor_write_f64(out, it.offsets[0], special_binary_value_f32(op, x, y));
        }
    } else {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
            double x = tensor_read_f64(a, it.offsets[1]), y = tensor_read_f64(b, it.offsets[2]);
            tensor_write_f64(out, it.offsets[0], special_binary_value(op, x, y));
        }
    }
    return true;
}

Tensor *tensor_special_binary(SpecialBinaryOp op, const Tensor *a, const Tensor *b)
{
    TensorDType result;
    if (!special_binary_dtype(op, a, b, &result))
        return NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(a->ndim, a->sizes, b->ndim, b->sizes, shape);
    if (n < 0)
        return NULL;
    const Tensor *inputs[2] = {a, b};
    Tensor *out = tensor_empty_like_operands(result, n, shape, inputs, 2);
    if (out && !special_binary_kernel(op, result, out, a, b)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

bool tensor_special_binary_(SpecialBinaryOp op, Tensor *a, const Tensor *b)
{
    TensorDType result;
    if (!special_binary_dtype(op, a, b, &result))
        return false;
    const Tensor *inputs[2] = {a, b};
    if (!tensor_check_inplace(a, result, inputs, 2))
        return false;
    Tensor *copy;
    const Tensor *src = tensor_unalias_input(a, b, &copy);
    if (!src)
        return false;
    bool ok = special_binary_kernel(op, result, a, a, src);
    tensor_release(copy);
    return ok;
}
