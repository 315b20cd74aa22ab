/* ops_linalg_products.c — the bindings of the products and norms of
 * tensor/linalg_products.c and tensor/linalg_norms.c: mT, mH, H, trace,
 * mv, addmv, addr, baddbmm, addbmm, inner, vdot, linalg.vecdot, kron,
 * tensordot, cross, linalg.cross, block_diag, linalg.multi_dot,
 * chain_matmul, linalg.matrix_power, linalg.vander, the vector, matrix,
 * Frobenius and nuclear norms, renorm, cov and corrcoef.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* ---------------------------------------------------------------- views */

static bool matrix_transpose(EvalCall *c, const char *attr)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) &&
           eval_out_tensor(c, 0, tensor_matrix_transpose(t, attr));
}

bool eval_op_mT(EvalCall *c) { return matrix_transpose(c, "mT"); }
bool eval_op_mH(EvalCall *c) { return matrix_transpose(c, "mH"); }
bool eval_op_matrix_H(EvalCall *c) { return matrix_transpose(c, "H"); }

/* ---------------------------------------------------------------- products */

bool eval_op_trace(EvalCall *c)
{
    Tensor *t;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &t) && eval_out_tensor(c, 0, tensor_trace(t));
}

bool eval_op_mv(EvalCall *c) { return eval_call_tensor_pair(c, tensor_mv); }
bool eval_op_inner(EvalCall *c) { return eval_call_tensor_pair(c, tensor_inner); }
bool eval_op_vdot(EvalCall *c) { return eval_call_tensor_pair(c, tensor_vdot); }
bool eval_op_kron(EvalCall *c) { return eval_call_tensor_pair(c, tensor_kron); }

/* A Scalar argument with the kind it was written as. */
static bool arg_scalar(EvalCall *c, int i, LinalgScalar *s)
{
    if (!eval_arg_double(c, i, &s->value))
        return false;
    RtKind k = eval_kind(c, i);
    s->kind = k == RT_FLOAT ? 'f' : k == RT_BOOL ? 'b' : 'i';
    return true;
}

typedef Tensor *(*ScaledProductFn)(const Tensor *, const Tensor *, const Tensor *, double, double);

/* (Tensor self, Tensor a, Tensor b, *, Scalar beta=1, Scalar alpha=1) */
static bool scaled_product(EvalCall *c, ScaledProductFn fn)
{
    Tensor *self, *a, *b;
    double beta = 1, alpha = 1;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &a) &&
           eval_arg_tensor(c, 2, &b) && (c->nargs < 4 || eval_arg_double(c, 3, &beta)) &&
           (c->nargs < 5 || eval_arg_double(c, 4, &alpha)) && eval_out_tensor(c, 0, fn(self, a, b, beta, alpha));
}

bool eval_op_addmv(EvalCall *c) { return scaled_product(c, tensor_addmv); }
bool eval_op_baddbmm(EvalCall *c) { return scaled_product(c, tensor_baddbmm); }
bool eval_op_addbmm(EvalCall *c) { return scaled_product(c, tensor_addbmm); }

bool eval_op_addr(EvalCall *c)
{
    Tensor *self, *a, *b;
    LinalgScalar beta = {1, 'i'}, alpha = {1, 'i'};
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &a) &&
           eval_arg_tensor(c, 2, &b) && (c->nargs < 4 || arg_scalar(c, 3, &beta)) &&
           (c->nargs < 5 || arg_scalar(c, 4, &alpha)) && eval_out_tensor(c, 0, tensor_addr(self, a, b, beta, alpha));
}

/* tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) */
bool eval_op_tensordot(EvalCall *c)
{
    Tensor *a, *b;
    int64_t da[TENSOR_MAX_DIMS], db[TENSOR_MAX_DIMS];
    int na, nb;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &a) || !eval_arg_tensor(c, 1, &b) ||
        !eval_arg_ints(c, 2, da, TENSOR_MAX_DIMS, &na) || !eval_arg_ints(c, 3, db, TENSOR_MAX_DIMS, &nb))
        return false;
    if (na != nb)
        return eval_fail(c, "both dimension lists should have same length");
    return eval_out_tensor(c, 0, tensor_tensordot(a, b, na, da, db));
}

/* linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) */
bool eval_op_linalg_vecdot(EvalCall *c)
{
    Tensor *x, *y;
    int64_t dim = -1;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &y) &&
           (c->nargs < 3 || eval_arg_int(c, 2, &dim)) && eval_out_tensor(c, 0, tensor_linalg_vecdot(x, y, dim));
}

/* cross(Tensor self, Tensor other, int? dim=None) */
bool eval_op_cross(EvalCall *c)
{
    Tensor *a, *b;
    int64_t dim = 0;
    bool has_dim = false;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           (c->nargs < 3 || eval_arg_int_opt(c, 2, &dim, &has_dim)) &&
           eval_out_tensor(c, 0, tensor_cross(a, b, has_dim, dim));
}

/* linalg_cross(Tensor self, Tensor other, *, int dim=-1) */
bool eval_op_linalg_cross(EvalCall *c)
{
    Tensor *a, *b;
    int64_t dim = -1;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           (c->nargs < 3 || eval_arg_int(c, 2, &dim)) && eval_out_tensor(c, 0, tensor_linalg_cross(a, b, dim));
}

typedef Tensor *(*TensorListFn)(Tensor *const *, int);

static bool tensor_list_op(EvalCall *c, TensorListFn fn)
{
    Tensor **ts;
    int n;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    bool ok = eval_out_tensor(c, 0, fn(ts, n));
    free(ts);
    return ok;
}

bool eval_op_block_diag(EvalCall *c) { return tensor_list_op(c, tensor_block_diag); }
bool eval_op_linalg_multi_dot(EvalCall *c) { return tensor_list_op(c, tensor_linalg_multi_dot); }

/* chain_matmul(Tensor[] matrices): multi_dot of 2-d matrices; one is copied. */
bool eval_op_chain_matmul(EvalCall *c)
{
    Tensor **ts;
    int n;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (ts[i]->ndim != 2)
            bad = i;
    if (n == 0 || bad >= 0) {
        int nd = bad >= 0 ? ts[bad]->ndim : 0;
        free(ts);
        return n == 0 ? eval_fail(c, "chain_matmul(): Expected one or more matrices")
                      : eval_fail(c, "Tensor dimension is %d, expected 2 instead.", nd);
    }
    Tensor *out = n == 1 ? tensor_clone(ts[0]) : tensor_linalg_multi_dot(ts, n);
    free(ts);
    return eval_out_tensor(c, 0, out);
}

bool eval_op_linalg_matrix_power(EvalCall *c)
{
    Tensor *a;
    int64_t n;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &a) && eval_arg_int(c, 1, &n) &&
           eval_out_tensor(c, 0, tensor_linalg_matrix_power(a, n));
}

/* linalg_vander(Tensor x, *, int? N=None) */
bool eval_op_linalg_vander(EvalCall *c)
{
    Tensor *x;
    int64_t n = 0;
    bool has_n = false;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &x) && (c->nargs < 2 || eval_arg_int_opt(c, 1, &n, &has_n)) &&
           eval_out_tensor(c, 0, tensor_linalg_vander(x, has_n, n));
}

/* ---------------------------------------------------------------- norms */

/* An order argument: a number (*has true), a string (*str) or None. */
static bool arg_ord(EvalCall *c, int i, bool *has, double *ord, const char **str)
{
    *has = false;
    *str = NULL;
    if (i >= c->nargs || eval_is_none(c, i))
        return true;
    if (eval_kind(c, i) == RT_STR)
        return eval_arg_str(c, i, str);
    *has = true;
    return eval_arg_double(c, i, ord);
}

/* linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) */
bool eval_op_linalg_vector_norm(EvalCall *c)
{
    Tensor *x;
    double ord = 2;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, dt = -1;
    bool has_dims = false, keepdim = false;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &x) || (c->nargs > 1 && !eval_arg_double(c, 1, &ord)) ||
        (c->nargs > 2 && !eval_arg_ints_opt(c, 2, dims, TENSOR_MAX_DIMS, &ndims, &has_dims)) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)) || (c->nargs > 4 && !eval_arg_dtype_opt(c, 4, &dt)))
        return false;
    return eval_out_tensor(c, 0, tensor_linalg_vector_norm(x, ord, dims, ndims, has_dims, keepdim, dt));
}

/* linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None)
 * and the str_ord overload (ord="fro") */
bool eval_op_linalg_matrix_norm(EvalCall *c)
{
    Tensor *x;
    double ord = 0;
    const char *ord_str = "fro";
    bool has_ord, keepdim = false;
    int64_t dims[TENSOR_MAX_DIMS] = {-2, -1};
    int ndims = 2, dt = -1;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &x) || !arg_ord(c, 1, &has_ord, &ord, &ord_str) ||
        (c->nargs > 2 && !eval_arg_ints(c, 2, dims, TENSOR_MAX_DIMS, &ndims)) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)) || (c->nargs > 4 && !eval_arg_dtype_opt(c, 4, &dt)))
        return false;
    if (has_ord)
        return eval_out_tensor(c, 0, tensor_linalg_matrix_norm(x, ord, dims, ndims, keepdim, dt));
    return eval_out_tensor(c, 0, tensor_linalg_matrix_norm_str(x, ord_str ? ord_str : "fro", dims, ndims, keepdim, dt));
}

/* linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)
 * and the ord_str overload */
bool eval_op_linalg_norm(EvalCall *c)
{
    Tensor *x;
    double ord = 0;
    const char *ord_str;
    bool has_ord, has_dims = false, keepdim = false;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0, dt = -1;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &x) || !arg_ord(c, 1, &has_ord, &ord, &ord_str) ||
        (c->nargs > 2 && !eval_arg_ints_opt(c, 2, dims, TENSOR_MAX_DIMS, &ndims, &has_dims)) ||
        (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)) || (c->nargs > 4 && !eval_arg_dtype_opt(c, 4, &dt)))
        return false;
    return eval_out_tensor(c, 0, tensor_linalg_norm(x, has_ord, ord, ord_str, dims, ndims, has_dims, keepdim, dt));
}

/* frobenius_norm(Tensor self) / (Tensor self, int[1] dim, bool keepdim=False) */
bool eval_op_frobenius_norm(EvalCall *c)
{
    Tensor *x;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0;
    bool keepdim = false;
    return eval_nargs(c, 1, 3) && eval_arg_tensor(c, 0, &x) &&
           (c->nargs < 2 || eval_arg_ints(c, 1, dims, TENSOR_MAX_DIMS, &ndims)) &&
           (c->nargs < 3 || eval_arg_bool(c, 2, &keepdim)) &&
           eval_out_tensor(c, 0, tensor_frobenius_norm(x, dims, ndims, keepdim));
}

/* nuclear_norm(Tensor self, bool keepdim=False) / (Tensor self, int[2] dim, bool keepdim=False) */
bool eval_op_nuclear_norm(EvalCall *c)
{
    Tensor *x;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &x))
        return false;
    RtKind k = eval_kind(c, 1);
    bool with_dims = c->nargs > 1 && (k == RT_LIST || k == RT_TUPLE);
    if (with_dims) {
        if (!eval_arg_ints(c, 1, dims, TENSOR_MAX_DIMS, &ndims) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
            return false;
    } else if (c->nargs > 2 || (c->nargs > 1 && !eval_arg_bool(c, 1, &keepdim))) {
        return c->nargs > 2 ? eval_fail(c, "nuclear_norm: unexpected arguments") : false;
    }
    return eval_out_tensor(c, 0, tensor_nuclear_norm(x, with_dims ? dims : NULL, ndims, keepdim));
}

/* renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) */
bool eval_op_renorm(EvalCall *c)
{
    Tensor *x;
    double p, maxnorm;
    int64_t dim;
    return eval_nargs(c, 4, 4) && eval_arg_tensor(c, 0, &x) && eval_arg_double(c, 1, &p) &&
           eval_arg_int(c, 2, &dim) && eval_arg_double(c, 3, &maxnorm) &&
           eval_out_tensor(c, 0, tensor_renorm(x, p, dim, maxnorm));
}

/* ---------------------------------------------------------------- cov, corrcoef */

/* cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) */
bool eval_op_cov(EvalCall *c)
{
    Tensor *x, *fw = NULL, *aw = NULL;
    int64_t correction = 1;
    return eval_nargs(c, 1, 4) && eval_arg_tensor(c, 0, &x) && (c->nargs < 2 || eval_arg_int(c, 1, &correction)) &&
           (c->nargs < 3 || eval_arg_tensor_opt(c, 2, &fw)) && (c->nargs < 4 || eval_arg_tensor_opt(c, 3, &aw)) &&
           eval_out_tensor(c, 0, tensor_cov(x, correction, fw, aw));
}

bool eval_op_corrcoef(EvalCall *c)
{
    Tensor *x;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &x) && eval_out_tensor(c, 0, tensor_corrcoef(x));
}
