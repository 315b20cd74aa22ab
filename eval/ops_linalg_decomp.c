/* ops_linalg_decomp.c — the bindings of the decompositions through LAPACK
 * beyond ops_linalg.c: SVD and what is built on it (svd, linalg.svd,
 * linalg.svdvals, linalg.pinv, pinverse, linalg.matrix_rank, linalg.cond,
 * linalg.lstsq), symmetric eigenvalues (linalg.eigvalsh, symeig), the LU
 * family, triangular solves, Householder products, LDL, the _ex variants
 * and matrix functions (matrix_exp, tensorinv, tensorsolve).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* Stores n tensors as outputs 0..n-1 when the kernel succeeded (`ok`). */
static bool out_tensors(EvalCall *c, bool ok, Tensor **ts, int n, const char *fallback)
{
    return ok ? eval_out_tensors(c, ts, n) : eval_fail_kernel(c, fallback);
}

/* A "driver" argument: only None is supported on CPU (PyTorch's rule). */
static bool no_driver(EvalCall *c, int i, const char *op)
{
    if (i >= c->nargs || eval_is_none(c, i))
        return true;
    return eval_fail(c, "%s: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.", op);
}

/* ---------------------------------------------------------------- svd */

/* linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) */
bool eval_op_linalg_svd(EvalCall *c)
{
    Tensor *a, *r[3];
    bool full = true;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &full)) ||
        !no_driver(c, 2, "torch.linalg.svd"))
        return false;
    return out_tensors(c, tensor_linalg_svd(a, full, &r[0], &r[1], &r[2]), r, 3, "linalg.svd failed");
}

/* svd(Tensor self, bool some=True, bool compute_uv=True) */
bool eval_op_svd(EvalCall *c)
{
    Tensor *a, *r[3];
    bool some = true, compute_uv = true;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &some)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &compute_uv)))
        return false;
    return out_tensors(c, tensor_svd(a, some, compute_uv, &r[0], &r[1], &r[2]), r, 3, "svd failed");
}

/* linalg_svdvals(Tensor A, *, str? driver=None) */
bool eval_op_linalg_svdvals(EvalCall *c)
{
    Tensor *a;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &a) && no_driver(c, 1, "torch.linalg.svdvals") &&
           eval_out_tensor(c, 0, tensor_linalg_svdvals(a));
}

/* ---------------------------------------------------------------- tolerances */

/* A tolerance argument: None (*t NULL), a float (a 0-d float64 tensor) or
 * a Tensor; *t is a new reference. */
static bool arg_tolerance(EvalCall *c, int i, Tensor **t)
{
    *t = NULL;
    if (i >= c->nargs || eval_is_none(c, i))
        return true;
    if (eval_is_tensor(c, i)) {
        Tensor *borrowed;
        if (!eval_arg_tensor(c, i, &borrowed))
            return false;
        *t = tensor_retain(borrowed);
        return true;
    }
    double v;
    if (!eval_arg_double(c, i, &v))
        return false;
    *t = tensor_scalar(DT_F64, v);
    return *t != NULL;
}

typedef Tensor *(*ToleranceFn)(const Tensor *, const Tensor *, const Tensor *, bool);

/* (self, *, atol=None, rtol=None, bool hermitian=False) with atol/rtol
 * floats or tensors, or (self, tol, bool hermitian=False) where tol is an
 * absolute (matrix_rank) or relative (pinv's rcond) tolerance and the
 * other one is 0. */
static bool tolerance_op(EvalCall *c, ToleranceFn fn, bool single_is_relative)
{
    Tensor *a, *t1 = NULL, *t2 = NULL;
    bool hermitian = false;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &a))
        return false;
    bool ok;
    if (c->nargs == 4) {
        ok = arg_tolerance(c, 1, &t1) && arg_tolerance(c, 2, &t2) && eval_arg_bool(c, 3, &hermitian);
    } else {
        /* one tolerance (required by these schemas) and an optional hermitian */
        if (c->nargs < 2 || eval_is_none(c, 1))
            return eval_fail(c, "expected a tolerance argument");
        Tensor *tol = NULL, *zero = tensor_scalar(DT_F64, 0.0);
        ok = arg_tolerance(c, 1, &tol) && (c->nargs < 3 || eval_arg_bool(c, 2, &hermitian)) && zero;
        t1 = single_is_relative ? zero : tol;
        t2 = single_is_relative ? tol : zero;
    }
    if (!ok) {
        tensor_release(t1);
        tensor_release(t2);
        return false;
    }
    Tensor *out = fn(a, t1, t2, hermitian);
    tensor_release(t1);
    tensor_release(t2);
    return eval_out_tensor(c, 0, out);
}

bool eval_op_linalg_pinv(EvalCall *c) { return tolerance_op(c, tensor_linalg_pinv, true); }
bool eval_op_linalg_matrix_rank(EvalCall *c) { return tolerance_op(c, tensor_linalg_matrix_rank, false); }

/* pinverse(Tensor self, float rcond=1e-15): linalg.pinv with rtol = rcond, atol = 0 */
bool eval_op_pinverse(EvalCall *c)
{
    Tensor *a;
    double rcond = 1e-15;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_double(c, 1, &rcond)))
        return false;
    Tensor *atol = tensor_scalar(DT_F64, 0.0), *rtol = tensor_scalar(DT_F64, rcond);
    Tensor *out = atol && rtol ? tensor_linalg_pinv(a, atol, rtol, false) : NULL;
    tensor_release(atol);
    tensor_release(rtol);
    return eval_out_tensor(c, 0, out);
}

/* ---------------------------------------------------------------- symmetric eigenvalues */

/* linalg_eigvalsh(Tensor self, str UPLO="L") */
bool eval_op_linalg_eigvalsh(EvalCall *c)
{
    Tensor *a;
    const char *uplo = "L";
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_str(c, 1, &uplo)))
        return false;
    if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0)
        return eval_fail(c, "Expected UPLO argument to be 'L' or 'U', but got %s", uplo);
    return eval_out_tensor(c, 0, tensor_linalg_eigvalsh(a, uplo[0] == 'U'));
}

/* symeig(Tensor self, bool eigenvectors=False, bool upper=True) */
bool eval_op_symeig(EvalCall *c)
{
    Tensor *a, *r[2];
    bool vectors = false, upper = true;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &vectors)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &upper)))
        return false;
    return out_tensors(c, tensor_symeig(a, vectors, upper, &r[0], &r[1]), r, 2, "symeig failed");
}

/* ---------------------------------------------------------------- cond, lstsq */

/* linalg_cond(Tensor self, Scalar? p=None) / (Tensor self, str p) */
bool eval_op_linalg_cond(EvalCall *c)
{
    Tensor *a;
    double ord = 2;
    const char *ord_str = NULL;
    bool has_ord = false;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a))
        return false;
    if (c->nargs == 2 && eval_kind(c, 1) == RT_STR) {
        if (!eval_arg_str(c, 1, &ord_str))
            return false;
    } else if (c->nargs == 2 && !eval_arg_double_opt(c, 1, &ord, &has_ord)) {
        return false;
    }
    return eval_out_tensor(c, 0, tensor_linalg_cond(a, has_ord, ord, ord_str));
}

/* linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) */
bool eval_op_linalg_lstsq(EvalCall *c)
{
    Tensor *a, *b, *r[4];
    double rcond = 0;
    bool has_rcond = false;
    const char *driver = NULL;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &a) || !eval_arg_tensor(c, 1, &b) ||
        (c->nargs > 2 && !eval_arg_double_opt(c, 2, &rcond, &has_rcond)) ||
        (c->nargs > 3 && !eval_arg_str_opt(c, 3, &driver)))
        return false;
    return out_tensors(c, tensor_linalg_lstsq(a, b, has_rcond, rcond, driver, r), r, 4, "linalg.lstsq failed");
}

/* ---------------------------------------------------------------- LU */

/* linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) */
bool eval_op_linalg_lu_factor_ex(EvalCall *c)
{
    Tensor *a, *r[3];
    bool pivot = true, check = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &pivot)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &check)))
        return false;
    return out_tensors(c, tensor_linalg_lu_factor_ex(a, pivot, check, "torch.linalg.lu_factor_ex", &r[0], &r[1], &r[2]),
                       r, 3, "linalg.lu_factor_ex failed");
}

/* _lu_with_info(Tensor self, bool pivot=True, bool check_errors=True):
 * PyTorch ignores check_errors here (torch.lu reports infos itself). */
bool eval_op__lu_with_info(EvalCall *c)
{
    Tensor *a, *r[3];
    bool pivot = true, check = true;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &pivot)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &check)))
        return false;
    return out_tensors(c, tensor_linalg_lu_factor_ex(a, pivot, false, "torch.lu", &r[0], &r[1], &r[2]), r, 3,
                       "lu failed");
}

/* linalg_lu_factor(Tensor A, *, bool pivot=True) -> (LU, pivots) */
bool eval_op_linalg_lu_factor(EvalCall *c)
{
    Tensor *a, *r[3];
    bool pivot = true;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &pivot)))
        return false;
    if (!tensor_linalg_lu_factor_ex(a, pivot, true, "torch.linalg.lu_factor", &r[0], &r[1], &r[2]))
        return eval_fail_kernel(c, "linalg.lu_factor failed");
    tensor_release(r[2]);
    return eval_out_tensors(c, r, 2);
}

/* linalg_lu(Tensor A, *, bool pivot=True) -> (P, L, U) */
bool eval_op_linalg_lu(EvalCall *c)
{
    Tensor *a, *r[3];
    bool pivot = true;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &pivot)))
        return false;
    return out_tensors(c, tensor_linalg_lu(a, pivot, &r[0], &r[1], &r[2]), r, 3, "linalg.lu failed");
}

/* lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) */
bool eval_op_lu_unpack(EvalCall *c)
{
    Tensor *lu, *piv, *r[3];
    bool data = true, pivots = true;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &lu) || !eval_arg_tensor(c, 1, &piv) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &data)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &pivots)))
        return false;
    return out_tensors(c, tensor_lu_unpack(lu, piv, data, pivots, &r[0], &r[1], &r[2]), r, 3, "lu_unpack failed");
}

/* linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) */
bool eval_op_linalg_lu_solve(EvalCall *c)
{
    Tensor *lu, *piv, *b;
    bool left = true, adjoint = false;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &lu) && eval_arg_tensor(c, 1, &piv) &&
           eval_arg_tensor(c, 2, &b) && (c->nargs < 4 || eval_arg_bool(c, 3, &left)) &&
           (c->nargs < 5 || eval_arg_bool(c, 4, &adjoint)) &&
           eval_out_tensor(c, 0, tensor_linalg_lu_solve(lu, piv, b, left, adjoint));
}

/* lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) */
bool eval_op_lu_solve(EvalCall *c)
{
    Tensor *b, *lu, *piv;
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &b) && eval_arg_tensor(c, 1, &lu) &&
           eval_arg_tensor(c, 2, &piv) && eval_out_tensor(c, 0, tensor_linalg_lu_solve(lu, piv, b, true, false));
}

/* linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (inverse, info) */
bool eval_op_linalg_inv_ex(EvalCall *c)
{
    Tensor *a, *r[2];
    bool check = false;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &check)))
        return false;
    return out_tensors(c, tensor_linalg_inv_ex(a, check, &r[0], &r[1]), r, 2, "linalg.inv_ex failed");
}

/* linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (result, info) */
bool eval_op_linalg_solve_ex(EvalCall *c)
{
    Tensor *a, *b, *r[2];
    bool left = true, check = false;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &a) || !eval_arg_tensor(c, 1, &b) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &left)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &check)))
        return false;
    return out_tensors(c, tensor_linalg_solve_ex(a, b, left, check, &r[0], &r[1]), r, 2, "linalg.solve_ex failed");
}

/* linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) */
bool eval_op_linalg_solve_triangular(EvalCall *c)
{
    Tensor *a, *b;
    bool upper, left = true, unit = false;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           eval_arg_bool(c, 2, &upper) && (c->nargs < 4 || eval_arg_bool(c, 3, &left)) &&
           (c->nargs < 5 || eval_arg_bool(c, 4, &unit)) &&
           eval_out_tensor(c, 0, tensor_linalg_solve_triangular(a, b, upper, left, unit));
}

/* triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) */
bool eval_op_triangular_solve(EvalCall *c)
{
    Tensor *b, *a, *r[2];
    bool upper = true, transpose = false, unit = false;
    if (!eval_nargs(c, 2, 5) || !eval_arg_tensor(c, 0, &b) || !eval_arg_tensor(c, 1, &a) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &upper)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &transpose)) ||
        (c->nargs > 4 && !eval_arg_bool(c, 4, &unit)))
        return false;
    return out_tensors(c, tensor_triangular_solve(b, a, upper, transpose, unit, &r[0], &r[1]), r, 2,
                       "triangular_solve failed");
}

/* ---------------------------------------------------------------- QR pieces, LDL, Cholesky */

bool eval_op_geqrf(EvalCall *c)
{
    Tensor *a, *r[2];
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &a))
        return false;
    return out_tensors(c, tensor_geqrf(a, &r[0], &r[1]), r, 2, "geqrf failed");
}

bool eval_op_linalg_householder_product(EvalCall *c)
{
    return eval_call_tensor_pair(c, tensor_linalg_householder_product);
}

/* ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) */
bool eval_op_ormqr(EvalCall *c)
{
    Tensor *a, *tau, *other;
    bool left = true, transpose = false;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &tau) &&
           eval_arg_tensor(c, 2, &other) && (c->nargs < 4 || eval_arg_bool(c, 3, &left)) &&
           (c->nargs < 5 || eval_arg_bool(c, 4, &transpose)) &&
           eval_out_tensor(c, 0, tensor_ormqr(a, tau, other, left, transpose));
}

/* qr(Tensor self, bool some=True): linalg.qr in mode "reduced" or "complete" */
bool eval_op_qr(EvalCall *c)
{
    Tensor *a, *r[2];
    bool some = true;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &some)))
        return false;
    return out_tensors(c, tensor_linalg_qr(a, some ? "reduced" : "complete", &r[0], &r[1]), r, 2, "qr failed");
}

/* linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False); for real
 * dtypes hermitian changes nothing */
bool eval_op_linalg_ldl_factor_ex(EvalCall *c)
{
    Tensor *a, *r[3];
    bool hermitian = false, check = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &hermitian)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &check)))
        return false;
    return out_tensors(c, tensor_linalg_ldl_factor_ex(a, check, &r[0], &r[1], &r[2]), r, 3,
                       "linalg.ldl_factor_ex failed");
}

/* linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (LD, pivots) */
bool eval_op_linalg_ldl_factor(EvalCall *c)
{
    Tensor *a, *r[3];
    bool hermitian = false;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &hermitian)))
        return false;
    if (!tensor_linalg_ldl_factor_ex(a, true, &r[0], &r[1], &r[2]))
        return eval_fail_kernel(c, "linalg.ldl_factor failed");
    tensor_release(r[2]);
    return eval_out_tensors(c, r, 2);
}

/* linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) */
bool eval_op_linalg_ldl_solve(EvalCall *c)
{
    Tensor *ld, *piv, *b;
    bool hermitian = false;
    return eval_nargs(c, 3, 4) && eval_arg_tensor(c, 0, &ld) && eval_arg_tensor(c, 1, &piv) &&
           eval_arg_tensor(c, 2, &b) && (c->nargs < 4 || eval_arg_bool(c, 3, &hermitian)) &&
           eval_out_tensor(c, 0, tensor_linalg_ldl_solve(ld, piv, b));
}

/* linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (L, info) */
bool eval_op_linalg_cholesky_ex(EvalCall *c)
{
    Tensor *a, *r[2];
    bool upper = false, check = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &a) || (c->nargs > 1 && !eval_arg_bool(c, 1, &upper)) ||
        (c->nargs > 2 && !eval_arg_bool(c, 2, &check)))
        return false;
    return out_tensors(c, tensor_linalg_cholesky_ex(a, upper, check, &r[0], &r[1]), r, 2, "linalg.cholesky_ex failed");
}

/* cholesky(Tensor self, bool upper=False) */
bool eval_op_cholesky(EvalCall *c)
{
    Tensor *a;
    bool upper = false;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &a) && (c->nargs < 2 || eval_arg_bool(c, 1, &upper)) &&
           eval_out_tensor(c, 0, tensor_linalg_cholesky(a, upper));
}

/* cholesky_inverse(Tensor self, bool upper=False) */
bool eval_op_cholesky_inverse(EvalCall *c)
{
    Tensor *a;
    bool upper = false;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &a) && (c->nargs < 2 || eval_arg_bool(c, 1, &upper)) &&
           eval_out_tensor(c, 0, tensor_cholesky_inverse(a, upper));
}

/* ---------------------------------------------------------------- matrix functions */

bool eval_op_linalg_matrix_exp(EvalCall *c)
{
    Tensor *a;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &a) && eval_out_tensor(c, 0, tensor_linalg_matrix_exp(a));
}

/* linalg_tensorinv(Tensor self, int ind=2) */
bool eval_op_linalg_tensorinv(EvalCall *c)
{
    Tensor *a;
    int64_t ind = 2;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &a) && (c->nargs < 2 || eval_arg_int(c, 1, &ind)) &&
           eval_out_tensor(c, 0, tensor_linalg_tensorinv(a, ind));
}

/* linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) */
bool eval_op_linalg_tensorsolve(EvalCall *c)
{
    Tensor *a, *b;
    int64_t dims[TENSOR_MAX_DIMS];
    int ndims = 0;
    bool has_dims = false;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           (c->nargs < 3 || eval_arg_ints_opt(c, 2, dims, TENSOR_MAX_DIMS, &ndims, &has_dims)) &&
           eval_out_tensor(c, 0, tensor_linalg_tensorsolve(a, b, has_dims ? dims : NULL, ndims));
}
