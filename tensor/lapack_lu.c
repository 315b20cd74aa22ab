/* lapack_lu.c — LU factorization (getrf) and what PyTorch builds on it:
 * linalg.lu_factor(_ex), _lu_with_info, lu_unpack, linalg.lu,
 * linalg.lu_solve / lu_solve (getrs), linalg.inv_ex and linalg.solve_ex
 * (getrf + getrs, as PyTorch 1.13 computes both), and the triangular
 * solves linalg.solve_triangular / triangular_solve (trtrs).
 *
 * Pivots are LAPACK's: 1-based row interchanges, int32, and `info` is
 * LAPACK's per matrix (int32, the batch shape). Solves broadcast the batch
 * dims of the factorization and of B against each other, as PyTorch does.
 * X A = B (left=False) is solved as A^T X^T = B^T.
 */
#include "tensor/lapack_common.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* The batch shape of a (its dims before the last `a_inner`) broadcast with
 * b's into shape: its number of dims, or -1 with PyTorch's broadcast error. */
static int broadcast_batch(const Tensor *a, int a_inner, const Tensor *b, int b_inner, int64_t *shape)
{
    return tensor_broadcast_shape(a->ndim - a_inner, a->sizes, b->ndim - b_inner, b->sizes, shape);
}

/* A contiguous clone of t expanded to batch shape (nb dims) followed by
 * t's last `inner` dims, converted to dtype dt. */
static Tensor *expand_clone(const Tensor *t, int nb, const int64_t *batch, int inner, TensorDType dt)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, batch, sizeof(int64_t) * (size_t)nb);
    for (int i = 0; i < inner; i++)
        sizes[nb + i] = t->sizes[t->ndim - inner + i];
    Tensor *view = kern_expand_view(t, nb + inner, sizes);
    Tensor *out = view ? (view->dtype == dt ? tensor_clone(view) : tensor_to_dtype(view, dt)) : NULL;
    tensor_release(view);
    if (out && !tensor_is_contiguous(out)) {
        Tensor *c = tensor_clone(out);
        tensor_release(out);
        out = c;
    }
    return out;
}

/* A contiguous copy of the matrix transpose of t. */
static Tensor *transposed_copy(Tensor *t)
{
    Tensor *v = tensor_transpose(t, -2, -1);
    Tensor *c = v ? tensor_clone(v) : NULL;
    tensor_release(v);
    return c;
}

static lapack_int getrf(bool f32, int64_t m, int64_t n, void *a, lapack_int *piv)
{
    return f32 ? LAPACKE_sgetrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, a, (lapack_int)n, piv)
               : LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, a, (lapack_int)n, piv);
}

/* Solves op(A) X = B in place of b (n x k, row-major) from A's LU. */
static void getrs(bool f32, char trans, int64_t n, int64_t k, const void *lu, const lapack_int *piv, void *b)
{
    if (n == 0 || k == 0)
        return;
    if (f32)
        LAPACKE_sgetrs(LAPACK_ROW_MAJOR, trans, (lapack_int)n, (lapack_int)k, lu, (lapack_int)n, piv, b,
                       (lapack_int)k);
    else
        LAPACKE_dgetrs(LAPACK_ROW_MAJOR, trans, (lapack_int)n, (lapack_int)k, lu, (lapack_int)n, piv, b,
                       (lapack_int)k);
}

/* ---------------------------------------------------------------- factor */

bool tensor_linalg_lu_factor_ex(const Tensor *a, bool pivot, bool check_errors, const char *op, Tensor **lu,
                                Tensor **pivots, Tensor **info)
{
    *lu = *pivots = *info = NULL;
    int64_t batch, m, n;
    if (!lapack_matrix_batch(a, op, &batch, &m, &n))
        return false;
    if (!pivot) {
        tensor_set_error("%s: LU without pivoting is not implemented on the CPU", op);
        return false;
    }
    int64_t k = m < n ? m : n;
    *lu = tensor_clone(a);
    *pivots = lapack_vector_batch(a, DT_I32, k);
    *info = tensor_zeros(DT_I32, a->ndim - 2, a->sizes);
    lapack_int *piv = kern_malloc((size_t)(k ? k : 1), sizeof *piv);
    bool ok = *lu && *pivots && *info && piv;
    for (int64_t b = 0; ok && b < batch && k > 0; b++) {
        lapack_int r = getrf(a->dtype == DT_F32, m, n, lapack_matrix_at(*lu, b, m, n), piv);
        for (int64_t i = 0; i < k; i++)
            ((int32_t *)tensor_data(*pivots))[b * k + i] = (int32_t)piv[i];
        ((int32_t *)tensor_data(*info))[b] = (int32_t)r;
        if (r > 0 && check_errors) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            tensor_set_error("torch.linalg.lu_factor: %sU[%d,%d] is zero and using it on lu_solve would result in a "
                             "division by zero. If you still want to perform the factorization, consider calling "
                             "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)", prefix, (int)r, (int)r);
            ok = false;
        }
    }
    free(piv);
    if (!ok) {
        tensor_release(*lu);
        tensor_release(*pivots);
        tensor_release(*info);
        *lu = *pivots = *info = NULL;
    }
    return ok;
}

/* ---------------------------------------------------------------- unpack */

bool tensor_lu_unpack(const Tensor *lu, const Tensor *pivots, bool unpack_data, bool unpack_pivots, Tensor **p,
                      Tensor **l, Tensor **u)
{
    *p = *l = *u = NULL;
    if (lu->ndim < 2) {
        tensor_set_error("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [%" PRId64 "] instead",
                         lu->ndim ? lu->sizes[0] : 0);
        return false;
    }
    int64_t m = lu->sizes[lu->ndim - 2], n = lu->sizes[lu->ndim - 1], k = m < n ? m : n;
    if (unpack_pivots && pivots->dtype != DT_I32) {
        tensor_set_error("lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                         "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor");
        return false;
    }
    if (unpack_pivots && (pivots->ndim != lu->ndim - 1 || pivots->sizes[pivots->ndim - 1] != k)) {
        tensor_set_error("torch.lu_unpack: the pivots must have the shape of LU's batch followed by min(m, n) = %" PRId64,
                         k);
        return false;
    }
    int64_t zero = 0;
    bool ok = true;
    if (unpack_data) {
        /* L: the strict lower part of the first k columns, unit diagonal;
         * U: the upper part of the first k rows */
        Tensor *lcols = tensor_narrow((Tensor *)lu, -1, 0, k);
        Tensor *urows = tensor_narrow((Tensor *)lu, -2, 0, k);
        *l = lcols ? tensor_tril(lcols, -1) : NULL;
        *u = urows ? tensor_triu(urows, 0) : NULL;
        tensor_release(lcols);
        tensor_release(urows);
        Tensor *diag = *l ? tensor_diagonal(*l, 0, -2, -1) : NULL;
        ok = *u && diag && tensor_fill_(diag, 1.0);
        tensor_release(diag);
    } else {
        *l = tensor_zeros(lu->dtype, 1, &zero);
        *u = tensor_zeros(lu->dtype, 1, &zero);
        ok = *l && *u;
    }
    if (ok && unpack_pivots) {
        /* Applying the row interchanges to 0..m-1 gives perm with
         * (L U)[i] = A[perm[i]], so A = P L U for P[perm[i], i] = 1. */
        *p = lapack_batch_of(lu, lu->dtype, m, m);
        int64_t batch = lapack_batch_count(lu->ndim - 2, lu->sizes);
        int64_t *perm = kern_malloc((size_t)(m ? m : 1), sizeof *perm);
        Tensor *pc = tensor_clone(pivots);
        ok = *p && perm && pc;
        for (int64_t b = 0; ok && b < batch; b++) {
            for (int64_t i = 0; i < m; i++)
                perm[i] = i;
            for (int64_t i = 0; ok && i < k; i++) {
                int64_t j = ((const int32_t *)tensor_data(pc))[b * k + i] - 1;
                if (j < 0 || j >= m) {
                    tensor_set_error("torch.lu_unpack: pivot %" PRId64 " is out of range [1, %" PRId64 "]", j + 1, m);
                    ok = false;
                    break;
                }
                int64_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int64_t i = 0; ok && i < m; i++)
                tensor_set_flat(*p, b * m * m + perm[i] * m + i, 1.0);
        }
        free(perm);
        tensor_release(pc);
    } else if (ok) {
        *p = tensor_zeros(lu->dtype, 1, &zero);
        ok = *p != NULL;
    }
    if (!ok) {
        tensor_release(*p);
        tensor_release(*l);
        tensor_release(*u);
        *p = *l = *u = NULL;
    }
    return ok;
}

bool tensor_linalg_lu(const Tensor *a, bool pivot, Tensor **p, Tensor **l, Tensor **u)
{
    Tensor *lu, *piv, *info;
    *p = *l = *u = NULL;
    if (!tensor_linalg_lu_factor_ex(a, pivot, false, "linalg.lu", &lu, &piv, &info))
        return false;
    bool ok = tensor_lu_unpack(lu, piv, true, true, p, l, u);
    tensor_release(lu);
    tensor_release(piv);
    tensor_release(info);
    return ok;
}

/* ---------------------------------------------------------------- lu_solve */

Tensor *tensor_linalg_lu_solve(const Tensor *lu, const Tensor *pivots, const Tensor *b, bool left, bool adjoint)
{
    int64_t batch, n;
    if (!lapack_square_batch(lu, "linalg.lu_solve", &batch, &n))
        return NULL;
    if (b->ndim < 2) {
        tensor_set_error("linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
        return NULL;
    }
    if (b->dtype != lu->dtype) {
        tensor_set_error("linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type %s and B of "
                         "type %s instead", dtype_ts_name(lu->dtype), dtype_ts_name(b->dtype));
        return NULL;
    }
    if (pivots->dtype != DT_I32) {
        tensor_set_error("linalg.lu_solve: pivots should be a Tensor of scalar type Int");
        return NULL;
    }
    int64_t rows = b->sizes[b->ndim - 2], cols = b->sizes[b->ndim - 1];
    if ((left ? rows : cols) != n) {
        tensor_set_error("linalg.lu_solve: Incompatible shapes of A and B for the equation %s (%" PRId64 "x%" PRId64
                         " and %" PRId64 "x%" PRId64 ")", left ? "AX = B" : "XA = B", n, n, rows, cols);
        return NULL;
    }
    if (pivots->ndim != lu->ndim - 1 || pivots->sizes[pivots->ndim - 1] != n) {
        tensor_set_error("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same");
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = broadcast_batch(lu, 2, b, 2, shape);
    if (nb < 0)
        return NULL;
    Tensor *luc = expand_clone(lu, nb, shape, 2, lu->dtype);
    Tensor *pc = luc ? expand_clone(pivots, nb, shape, 1, DT_I32) : NULL;
    Tensor *bc = pc ? expand_clone(b, nb, shape, 2, lu->dtype) : NULL;
    /* X A = B is A^T X^T = B^T: the right-hand sides as columns */
    Tensor *rhs = bc && !left ? transposed_copy(bc) : bc ? tensor_retain(bc) : NULL;
    lapack_int *piv = kern_malloc((size_t)(n ? n : 1), sizeof *piv);
    bool ok = rhs && piv;
    int64_t count = lapack_batch_count(nb, shape), k = left ? cols : rows;
    char trans = left == !adjoint ? 'N' : 'T';
    for (int64_t i = 0; ok && i < count; i++) {
        for (int64_t j = 0; ok && j < n; j++) {
            piv[j] = ((const int32_t *)tensor_data(pc))[i * n + j];
            /* LAPACK trusts them: one out of range swaps rows outside b */
            if (piv[j] < 1 || piv[j] > n) {
                tensor_set_error("linalg.lu_solve: pivot %d is out of range [1, %" PRId64 "]", (int)piv[j], n);
                ok = false;
            }
        }
        if (ok)
            getrs(lu->dtype == DT_F32, trans, n, k, lapack_matrix_at(luc, i, n, n), piv, lapack_matrix_at(rhs, i, n, k));
    }
    free(piv);
    Tensor *out = ok ? (left ? tensor_retain(rhs) : transposed_copy(rhs)) : NULL;
    tensor_release(luc);
    tensor_release(pc);
    tensor_release(bc);
    tensor_release(rhs);
    return out;
}

/* ---------------------------------------------------------------- inv_ex, solve_ex */

/* X with op(A) X = B for a batch of square A and B of the broadcast batch,
 * B (.., n, k) contiguous: getrf + getrs, info per matrix. */
static bool lu_solve_batch(Tensor *a, Tensor *b, bool transpose, Tensor *info)
{
    int64_t n = a->sizes[a->ndim - 1], k = b->sizes[b->ndim - 1];
    int64_t count = lapack_batch_count(a->ndim - 2, a->sizes);
    lapack_int *piv = kern_malloc((size_t)(n ? n : 1), sizeof *piv);
    if (!piv)
        return false;
    bool f32 = a->dtype == DT_F32;
    for (int64_t i = 0; i < count && n > 0; i++) {
        void *am = lapack_matrix_at(a, i, n, n);
        lapack_int r = getrf(f32, n, n, am, piv);
        ((int32_t *)tensor_data(info))[i] = (int32_t)r;
        /* PyTorch solves even when U is singular: inf and NaN, as LAPACK gives */
        getrs(f32, transpose ? 'T' : 'N', n, k, am, piv, lapack_matrix_at(b, i, n, k));
    }
    free(piv);
    return true;
}

/* The first nonzero info as PyTorch's _linalg_check_errors reports it. */
static bool check_info(const Tensor *info, const Tensor *a, const char *kind)
{
    int64_t count = tensor_numel(info);
    for (int64_t i = 0; i < count; i++) {
        int32_t r = ((const int32_t *)tensor_data(info))[i];
        if (r <= 0)
            continue;
        char prefix[48];
        lapack_batch_prefix(prefix, sizeof prefix, a, i);
        if (strcmp(kind, "inv") == 0)
            tensor_set_error("linalg.inv: %sThe diagonal element %d is zero, the inversion could not be completed "
                             "because the input matrix is singular.", prefix, (int)r);
        else
            tensor_set_error("torch.linalg.solve_ex: %sThe solver failed because the input matrix is singular.",
                             prefix);
        return false;
    }
    return true;
}

bool tensor_linalg_inv_ex(const Tensor *a, bool check_errors, Tensor **inverse, Tensor **info)
{
    *inverse = *info = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.inv", &batch, &n))
        return false;
    Tensor *lu = tensor_clone(a);
    *inverse = tensor_zeros(a->dtype, a->ndim, a->sizes);
    *info = tensor_zeros(DT_I32, a->ndim - 2, a->sizes);
    Tensor *diag = *inverse ? tensor_diagonal(*inverse, 0, -2, -1) : NULL;
    bool ok = lu && *info && diag && tensor_fill_(diag, 1.0) && lu_solve_batch(lu, *inverse, false, *info) &&
              (!check_errors || check_info(*info, a, "inv"));
    tensor_release(diag);
    tensor_release(lu);
    if (!ok) {
        tensor_release(*inverse);
        tensor_release(*info);
        *inverse = *info = NULL;
    }
    return ok;
}

bool tensor_linalg_solve_ex(const Tensor *a, const Tensor *b, bool left, bool check_errors, Tensor **result,
                            Tensor **info)
{
    *result = *info = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.solve", &batch, &n))
        return false;
    if (b->dtype != a->dtype) {
        tensor_set_error("linalg.solve: Expected A and B to have the same dtype, but found A of type %s and B of type "
                         "%s instead", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
        return false;
    }
    /* B is a batch of vectors when it is 1-d, or has one dim fewer than A
     * with A's batch shape (torch.linalg.solve's rule) */
    bool vector = b->ndim == 1 || (b->ndim == a->ndim - 1 &&
                                   memcmp(b->sizes, a->sizes, sizeof(int64_t) * (size_t)(b->ndim - 1)) == 0);
    Tensor *bm = vector ? tensor_unsqueeze((Tensor *)b, b->ndim) : tensor_retain((Tensor *)b);
    if (!bm)
        return false;
    if (bm->ndim < 2 || (left ? bm->sizes[bm->ndim - 2] : bm->sizes[bm->ndim - 1]) != n) {
        tensor_set_error("linalg.solve: Incompatible shapes of A and B for the equation %s (%" PRId64 "x%" PRId64
                         " and %" PRId64 "x%" PRId64 ")", left ? "AX = B" : "XA = B", n, n,
                         bm->ndim >= 2 ? bm->sizes[bm->ndim - 2] : 0, bm->sizes[bm->ndim - 1]);
        tensor_release(bm);
        return false;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = broadcast_batch(a, 2, bm, 2, shape);
    Tensor *ac = nb >= 0 ? expand_clone(a, nb, shape, 2, a->dtype) : NULL;
    Tensor *bc = ac ? expand_clone(bm, nb, shape, 2, a->dtype) : NULL;
    Tensor *rhs = bc && !left ? transposed_copy(bc) : bc ? tensor_retain(bc) : NULL;
    *info = rhs ? tensor_zeros(DT_I32, nb, shape) : NULL;
    bool ok = *info && lu_solve_batch(ac, rhs, !left, *info) && (!check_errors || check_info(*info, a, "solve"));
    Tensor *x = ok ? (left ? tensor_retain(rhs) : transposed_copy(rhs)) : NULL;
    if (x && vector) {
        Tensor *v = tensor_squeeze_dim(x, -1);
        tensor_release(x);
        x = v ? tensor_clone(v) : NULL;
        tensor_release(v);
    }
    tensor_release(bm);
    tensor_release(ac);
    tensor_release(bc);
    tensor_release(rhs);
    if (!x) {
        tensor_release(*info);
        *info = NULL;
        return false;
    }
    *result = x;
    return true;
}

/* ---------------------------------------------------------------- triangular solves */

/* op(A) X = B for triangular A (trtrs); a and b contiguous of one batch. */
static bool triangular_batch(Tensor *a, Tensor *b, bool upper, bool transpose, bool unit, const char *op)
{
    int64_t n = a->sizes[a->ndim - 1], k = b->sizes[b->ndim - 1];
    int64_t count = lapack_batch_count(a->ndim - 2, a->sizes);
    bool f32 = a->dtype == DT_F32;
    char uplo = upper ? 'U' : 'L', trans = transpose ? 'T' : 'N', diag = unit ? 'U' : 'N';
    for (int64_t i = 0; i < count && n > 0 && k > 0; i++) {
        void *am = lapack_matrix_at(a, i, n, n), *bm = lapack_matrix_at(b, i, n, k);
        lapack_int r = f32 ? LAPACKE_strtrs(LAPACK_ROW_MAJOR, uplo, trans, diag, (lapack_int)n, (lapack_int)k, am,
                                            (lapack_int)n, bm, (lapack_int)k)
                           : LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, uplo, trans, diag, (lapack_int)n, (lapack_int)k, am,
                                            (lapack_int)n, bm, (lapack_int)k);
        if (r > 0) {
            /* PyTorch's BLAS trsm would divide by the zero and return inf/NaN */
            tensor_set_error("%s: a triangular matrix with a zero on its diagonal (element %d) is not supported", op,
                             (int)r);
            return false;
        }
    }
    return true;
}

Tensor *tensor_linalg_solve_triangular(const Tensor *a, const Tensor *b, bool upper, bool left, bool unitriangular)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.solve_triangular", &batch, &n))
        return NULL;
    if (b->ndim < 2) {
        tensor_set_error("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
        return NULL;
    }
    if (b->dtype != a->dtype) {
        tensor_set_error("linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type %s and "
                         "B of type %s instead", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
        return NULL;
    }
    int64_t rows = b->sizes[b->ndim - 2], cols = b->sizes[b->ndim - 1];
    if ((left ? rows : cols) != n) {
        tensor_set_error("linalg.solve_triangular: Incompatible shapes of A and B for the equation %s (%" PRId64
                         "x%" PRId64 " and %" PRId64 "x%" PRId64 ")", left ? "AX = B" : "XA = B", n, n, rows, cols);
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = broadcast_batch(a, 2, b, 2, shape);
    Tensor *ac = nb >= 0 ? expand_clone(a, nb, shape, 2, a->dtype) : NULL;
    Tensor *bc = ac ? expand_clone(b, nb, shape, 2, a->dtype) : NULL;
    Tensor *rhs = bc && !left ? transposed_copy(bc) : bc ? tensor_retain(bc) : NULL;
    bool ok = rhs && triangular_batch(ac, rhs, upper, !left, unitriangular, "linalg.solve_triangular");
    Tensor *out = ok ? (left ? tensor_retain(rhs) : transposed_copy(rhs)) : NULL;
    tensor_release(ac);
    tensor_release(bc);
    tensor_release(rhs);
    return out;
}

bool tensor_triangular_solve(const Tensor *b, const Tensor *a, bool upper, bool transpose, bool unitriangular,
                             Tensor **solution, Tensor **coefficient)
{
    *solution = *coefficient = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "triangular_solve", &batch, &n))
        return false;
    if (b->ndim < 2 || b->sizes[b->ndim - 2] != n) {
        tensor_set_error("Incompatible matrix sizes for triangular_solve: each A matrix is %" PRId64 " by %" PRId64
                         " but each b matrix is %" PRId64 " by %" PRId64, n, n,
                         b->ndim >= 2 ? b->sizes[b->ndim - 2] : 0, b->ndim ? b->sizes[b->ndim - 1] : 0);
        return false;
    }
    if (b->dtype != a->dtype) {
        tensor_set_error("Expected b and A to have the same dtype, but found b of type %s and A of type %s instead.",
                         dtype_ts_name(b->dtype), dtype_ts_name(a->dtype));
        return false;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = broadcast_batch(a, 2, b, 2, shape);
    Tensor *ac = nb >= 0 ? expand_clone(a, nb, shape, 2, a->dtype) : NULL;
    Tensor *bc = ac ? expand_clone(b, nb, shape, 2, a->dtype) : NULL;
    bool ok = bc && triangular_batch(ac, bc, upper, transpose, unitriangular, "triangular_solve");
    if (!ok) {
        tensor_release(ac);
        tensor_release(bc);
        return false;
    }
    *solution = bc;
    *coefficient = ac;
    return true;
}
