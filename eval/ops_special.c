/* ops_special.c — bindings of the special functions (tensor/special.c):
 * digamma, polygamma, mvlgamma, erfinv, i0, xlogy, igamma/igammac, the
 * torch.special ops (Bessel and Airy functions, ndtr family, entr, erfcx,
 * zeta, xlog1py) and the orthogonal polynomials, with their in-place twins.
 *
 * Two-operand ops take Tensor or Scalar for either operand (xlogy.Scalar_Self,
 * special_zeta.other_scalar, special_chebyshev_polynomial_t.n_scalar...): a
 * Python number becomes a wrapped-number tensor, so promotion matches
 * PyTorch. The in-place twins take Tensor or Scalar for `other`.
 */
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* op(Tensor self) / op_(Tensor self) */
static bool special_unary(EvalCall *c, SpecialUnaryOp op, bool inplace)
{
    Tensor *t;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &t))
        return false;
    if (inplace)
        return eval_out_self(c, tensor_special_unary_(op, t, 0), "in-place kernel failed");
    return eval_out_tensor(c, 0, tensor_special_unary(op, t, 0));
}

#define SPECIAL_UNARY(name, OP) \
    bool eval_op_##name(EvalCall *c) { return special_unary(c, OP, false); }
#define SPECIAL_UNARY_PAIR(name, OP) \
    SPECIAL_UNARY(name, OP)          \
    bool eval_op_##name##_(EvalCall *c) { return special_unary(c, OP, true); }

SPECIAL_UNARY_PAIR(digamma, SP_DIGAMMA)
SPECIAL_UNARY_PAIR(erfinv, SP_ERFINV)
SPECIAL_UNARY_PAIR(i0, SP_I0)
SPECIAL_UNARY(special_entr, SP_ENTR)
SPECIAL_UNARY(special_erfcx, SP_ERFCX)
SPECIAL_UNARY(special_ndtr, SP_NDTR)
SPECIAL_UNARY(special_ndtri, SP_NDTRI)
SPECIAL_UNARY(special_log_ndtr, SP_LOG_NDTR)
SPECIAL_UNARY(special_i0e, SP_I0E)
SPECIAL_UNARY(special_i1, SP_I1)
SPECIAL_UNARY(special_i1e, SP_I1E)
SPECIAL_UNARY(special_airy_ai, SP_AIRY_AI)
SPECIAL_UNARY(special_bessel_j0, SP_BESSEL_J0)
SPECIAL_UNARY(special_bessel_j1, SP_BESSEL_J1)
SPECIAL_UNARY(special_bessel_y0, SP_BESSEL_Y0)
SPECIAL_UNARY(special_bessel_y1, SP_BESSEL_Y1)
SPECIAL_UNARY(special_modified_bessel_i0, SP_MODIFIED_BESSEL_I0)
SPECIAL_UNARY(special_modified_bessel_i1, SP_MODIFIED_BESSEL_I1)
SPECIAL_UNARY(special_modified_bessel_k0, SP_MODIFIED_BESSEL_K0)
SPECIAL_UNARY(special_modified_bessel_k1, SP_MODIFIED_BESSEL_K1)
SPECIAL_UNARY(special_scaled_modified_bessel_k0, SP_SCALED_MODIFIED_BESSEL_K0)
SPECIAL_UNARY(special_scaled_modified_bessel_k1, SP_SCALED_MODIFIED_BESSEL_K1)
SPECIAL_UNARY(special_spherical_bessel_j0, SP_SPHERICAL_BESSEL_J0)

/* polygamma(int n, Tensor self) */
bool eval_op_polygamma(EvalCall *c)
{
    int64_t n;
    Tensor *t;
    return eval_nargs(c, 2, 2) && eval_arg_int(c, 0, &n) && eval_arg_tensor(c, 1, &t) &&
           eval_out_tensor(c, 0, tensor_special_unary(SP_POLYGAMMA, t, n));
}

/* polygamma_(Tensor self, int n) */
bool eval_op_polygamma_(EvalCall *c)
{
    int64_t n;
    Tensor *t;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &t) && eval_arg_int(c, 1, &n) &&
           eval_out_self(c, tensor_special_unary_(SP_POLYGAMMA, t, n), "in-place kernel failed");
}

/* mvlgamma(Tensor self, int p) / mvlgamma_(Tensor self, int p) */
static bool mvlgamma_op(EvalCall *c, bool inplace)
{
    int64_t p;
    Tensor *t;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &t) || !eval_arg_int(c, 1, &p))
        return false;
    if (inplace)
        return eval_out_self(c, tensor_special_unary_(SP_MVLGAMMA, t, p), "in-place kernel failed");
    return eval_out_tensor(c, 0, tensor_special_unary(SP_MVLGAMMA, t, p));
}
bool eval_op_mvlgamma(EvalCall *c) { return mvlgamma_op(c, false); }
bool eval_op_mvlgamma_(EvalCall *c) { return mvlgamma_op(c, true); }

/* op(Tensor|Scalar self, Tensor|Scalar other) / op_(Tensor self, Tensor|Scalar other) */
static bool special_binary(EvalCall *c, SpecialBinaryOp op, bool inplace)
{
    Tensor *a = NULL, *b = NULL;
    bool ok;
    if (!eval_nargs(c, 2, 2))
        return false;
    if (inplace) {
        ok = eval_arg_tensor(c, 0, &a) && eval_arg_operand(c, 1, &b) &&
             eval_out_self(c, tensor_special_binary_(op, a, b), "in-place kernel failed");
        tensor_release(b);
        return ok;
    }
    ok = eval_arg_operand(c, 0, &a) && eval_arg_operand(c, 1, &b) &&
         eval_out_tensor(c, 0, tensor_special_binary(op, a, b));
    tensor_release(a);
    tensor_release(b);
    return ok;
}

#define SPECIAL_BINARY(name, OP) \
    bool eval_op_##name(EvalCall *c) { return special_binary(c, OP, false); }
#define SPECIAL_BINARY_PAIR(name, OP) \
    SPECIAL_BINARY(name, OP)          \
    bool eval_op_##name##_(EvalCall *c) { return special_binary(c, OP, true); }

SPECIAL_BINARY_PAIR(xlogy, SP_XLOGY)
SPECIAL_BINARY_PAIR(igamma, SP_IGAMMA)
SPECIAL_BINARY_PAIR(igammac, SP_IGAMMAC)
SPECIAL_BINARY(special_xlog1py, SP_XLOG1PY)
SPECIAL_BINARY(special_zeta, SP_ZETA)
SPECIAL_BINARY(special_chebyshev_polynomial_t, SP_CHEBYSHEV_T)
SPECIAL_BINARY(special_chebyshev_polynomial_u, SP_CHEBYSHEV_U)
SPECIAL_BINARY(special_chebyshev_polynomial_v, SP_CHEBYSHEV_V)
SPECIAL_BINARY(special_chebyshev_polynomial_w, SP_CHEBYSHEV_W)
SPECIAL_BINARY(special_shifted_chebyshev_polynomial_t, SP_SHIFTED_CHEBYSHEV_T)
SPECIAL_BINARY(special_shifted_chebyshev_polynomial_u, SP_SHIFTED_CHEBYSHEV_U)
SPECIAL_BINARY(special_shifted_chebyshev_polynomial_v, SP_SHIFTED_CHEBYSHEV_V)
SPECIAL_BINARY(special_shifted_chebyshev_polynomial_w, SP_SHIFTED_CHEBYSHEV_W)
SPECIAL_BINARY(special_hermite_polynomial_h, SP_HERMITE_H)
SPECIAL_BINARY(special_hermite_polynomial_he, SP_HERMITE_HE)
SPECIAL_BINARY(special_laguerre_polynomial_l, SP_LAGUERRE_L)
SPECIAL_BINARY(special_legendre_polynomial_p, SP_LEGENDRE_P)
