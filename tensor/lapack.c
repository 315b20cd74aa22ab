/* lapack.c — factorizations and solves through LAPACK (LAPACKE):
 * linalg.cholesky, cholesky_solve, linalg.solve, linalg.inv, det, slogdet,
 * linalg.qr and linalg.eigh.
 *
 * Every op works on batches of matrices: the last two dims are the matrix,
 * the leading ones the batch (broadcast between the two operands of a
 * solve, as PyTorch does). The operands are copied into fresh contiguous
 * row-major buffers of their own dtype, each matrix is handed to the
 * single- or double-precision LAPACK routine (LAPACK_ROW_MAJOR), and the
 * buffer becomes the result: float32 stays float32 through LAPACK, as in
 * PyTorch, so results agree to the rounding of the same algorithm.
 *
 * Errors are PyTorch's: integer inputs, non-square or 1-d operands,
 * incompatible shapes, and the numerical failures LAPACK reports (a matrix
 * that is not positive-definite, a singular matrix), named by batch element
 * when there is a batch.
 */
#include "tensor/lapack_common.h"

#include <inttypes.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAPACKE scans its matrix arguments for NaN and then returns an error code
 * without computing anything, which would leave a result silently equal to
 * its input. PyTorch calls LAPACK itself, which carries NaN and inf into
 * the results (and reports what LAPACK reports). Switching the scan off
 * once, when the program is loaded, gives every kernel of tensor/lapack*.c
 * PyTorch's behaviour. */
__attribute__((constructor)) static void lapacke_without_nan_scan(void)
{
    LAPACKE_set_nancheck(0);
}

/* ---------------------------------------------------------------- cholesky */

Tensor *tensor_linalg_cholesky(const Tensor *a, bool upper)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.cholesky", &batch, &n))
        return NULL;
    Tensor *out = tensor_clone(a);
    if (!out)
        return NULL;
    bool f32 = a->dtype == DT_F32;
    for (int64_t k = 0; k < batch; k++) {
        void *m = lapack_matrix_at(out, k, n, n);
        char uplo = upper ? 'U' : 'L';
        lapack_int info = f32 ? LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n)
                              : LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n);
        if (info != 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, k);
            tensor_set_error("linalg.cholesky: %sThe factorization could not be completed because the "
                             "input is not positive-definite (the leading minor of order %d is not "
                             "positive-definite).", prefix, (int)info);
            tensor_release(out);
            return NULL;
        }
        /* LAPACK leaves the other triangle as it was: the factor has zeros there. */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                if (upper ? j < i : j > i) {
                    if (f32)
                        ((float *)m)[i * n + j] = 0;
                    else
                        ((double *)m)[i * n + j] = 0;
                }
    }
    return out;
}

/* ---------------------------------------------------------------- solves */

/* A (*, n, n) and B (*, n, k) broadcast to one batch shape, as contiguous
 * clones of A's dtype. Returns false after the error. */
static bool broadcast_pair(const Tensor *a, const Tensor *b, const char *op, Tensor **a_out,
                           Tensor **b_out, int64_t *batch)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int na = a->ndim - 2, nb = b->ndim - 2;
    int nbatch = na > nb ? na : nb;
    for (int i = 0; i < nbatch; i++) {
        int64_t da = i - (nbatch - na) >= 0 ? a->sizes[i - (nbatch - na)] : 1;
        int64_t db = i - (nbatch - nb) >= 0 ? b->sizes[i - (nbatch - nb)] : 1;
        if (da != db && da != 1 && db != 1) {
            tensor_set_error("%s: the batch dimensions of A and B cannot be broadcast "
                             "(%" PRId64 " and %" PRId64 " at dim %d)", op, da, db, i);
            return false;
        }
        sizes[i] = da == 1 ? db : da;
    }
    *batch = 1;
    ckd_product_i64(batch, sizes, nbatch);
    int64_t ea[TENSOR_MAX_DIMS], eb[TENSOR_MAX_DIMS];
    memcpy(ea, sizes, sizeof(int64_t) * (size_t)nbatch);
    memcpy(eb, sizes, sizeof(int64_t) * (size_t)nbatch);
    ea[nbatch] = a->sizes[a->ndim - 2], ea[nbatch + 1] = a->sizes[a->ndim - 1];
    eb[nbatch] = b->sizes[b->ndim - 2], eb[nbatch + 1] = b->sizes[b->ndim - 1];
    Tensor *va = tensor_expand((Tensor *)a, nbatch + 2, ea);
    Tensor *vb = tensor_expand((Tensor *)b, nbatch + 2, eb);
    *a_out = va ? tensor_clone(va) : NULL;
    *b_out = vb ? tensor_clone(vb) : NULL;
    tensor_release(va);
    tensor_release(vb);
    if (*b_out && (*b_out)->dtype != a->dtype) {
        Tensor *cast = tensor_to_dtype(*b_out, a->dtype);
        tensor_release(*b_out);
        *b_out = cast;
    }
    if (!*a_out || !*b_out) {
        tensor_release(*a_out);
        tensor_release(*b_out);
        return false;
    }
    return true;
}

Tensor *tensor_cholesky_solve(const Tensor *b, const Tensor *l, bool upper)
{
    int64_t batch, n;
    if (!lapack_square_batch(l, "cholesky_solve", &batch, &n))
        return NULL;
    if (b->ndim < 2 || b->sizes[b->ndim - 2] != n) {
        if (b->ndim < 2)
            tensor_set_error("b should have at least 2 dimensions, but has %d dimensions instead",
                             b->ndim);
        else
            tensor_set_error("Incompatible matrix sizes for cholesky_solve: each A matrix is %" PRId64
                             " by %" PRId64 " but each b matrix is %" PRId64 " by %" PRId64, n, n,
                             b->sizes[b->ndim - 2], b->sizes[b->ndim - 1]);
        return NULL;
    }
    if (b->dtype != l->dtype) {
        tensor_set_error("Expected b and A to have the same dtype, but found b of type %s and A of "
                         "type %s instead.", dtype_ts_name(b->dtype), dtype_ts_name(l->dtype));
        return NULL;
    }
    Tensor *lc, *x;
    if (!broadcast_pair(l, b, "cholesky_solve", &lc, &x, &batch))
        return NULL;
    int64_t k = b->sizes[b->ndim - 1];
    bool f32 = l->dtype == DT_F32;
    for (int64_t i = 0; i < batch && n > 0 && k > 0; i++) {
        void *lm = lapack_matrix_at(lc, i, n, n), *xm = lapack_matrix_at(x, i, n, k);
        char uplo = upper ? 'U' : 'L';
        if (f32)
            LAPACKE_spotrs(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, (lapack_int)k, lm, (lapack_int)n,
                           xm, (lapack_int)k);
        else
            LAPACKE_dpotrs(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, (lapack_int)k, lm, (lapack_int)n,
                           xm, (lapack_int)k);
    }
    tensor_release(lc);
    return x;
}

Tensor *tensor_linalg_solve(const Tensor *a, const Tensor *b)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.solve", &batch, &n))
        return NULL;
    if (b->dtype != a->dtype) {
        tensor_set_error("linalg.solve: Expected A and B to have the same dtype, but found A of type "
                         "%s and B of type %s instead", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
        return NULL;
    }
    /* B is a batch of vectors when it is 1-d, or has one dim fewer than A
     * with A's batch shape (torch.linalg.solve's rule). */
    bool vector = b->ndim == 1 ||
                  (b->ndim == a->ndim - 1 && memcmp(b->sizes, a->sizes, sizeof(int64_t) * (size_t)(b->ndim - 1)) == 0);
    Tensor *bm = vector ? tensor_unsqueeze((Tensor *)b, b->ndim) : tensor_retain((Tensor *)b);
    if (!bm)
        return NULL;
    if (bm->ndim < 2 || bm->sizes[bm->ndim - 2] != n) {
        tensor_set_error("linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                         "(%" PRId64 "x%" PRId64 " and %" PRId64 "x%" PRId64 ")", n, n,
                         bm->ndim >= 2 ? bm->sizes[bm->ndim - 2] : 0, bm->sizes[bm->ndim - 1]);
        tensor_release(bm);
        return NULL;
    }
    Tensor *ac, *x;
    bool ok = broadcast_pair(a, bm, "linalg.solve", &ac, &x, &batch);
    tensor_release(bm);
    if (!ok)
        return NULL;
    int64_t k = x->sizes[x->ndim - 1];
    bool f32 = a->dtype == DT_F32;
    lapack_int *pivots = kern_malloc((size_t)(n ? n : 1), sizeof *pivots);
    for (int64_t i = 0; ok && pivots && i < batch && n > 0 && k > 0; i++) {
        void *am = lapack_matrix_at(ac, i, n, n), *xm = lapack_matrix_at(x, i, n, k);
        lapack_int info = f32 ? LAPACKE_sgesv(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)k, am,
                                              (lapack_int)n, pivots, xm, (lapack_int)k)
                              : LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)k, am,
                                              (lapack_int)n, pivots, xm, (lapack_int)k);
        if (info > 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, i);
            tensor_set_error("torch.linalg.solve: %sThe solver failed because the input matrix is "
                             "singular.", prefix);
            ok = false;
        }
    }
    ok = ok && pivots;
    free(pivots);
    tensor_release(ac);
    if (ok && vector) {
        Tensor *v = tensor_squeeze_dim(x, x->ndim - 1);
        Tensor *c = v ? tensor_clone(v) : NULL;
        tensor_release(v);
        tensor_release(x);
        return c;
    }
    if (!ok) {
        tensor_release(x);
        return NULL;
    }
    return x;
}

/* ---------------------------------------------------------------- inverse */

Tensor *tensor_linalg_inv(const Tensor *a)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.inv", &batch, &n))
        return NULL;
    Tensor *out = tensor_clone(a);
    lapack_int *pivots = kern_malloc((size_t)(n ? n : 1), sizeof *pivots);
    bool ok = out && pivots;
    bool f32 = a->dtype == DT_F32;
    for (int64_t k = 0; ok && k < batch && n > 0; k++) {
        void *m = lapack_matrix_at(out, k, n, n);
        lapack_int info = f32 ? LAPACKE_sgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, m,
                                               (lapack_int)n, pivots)
                              : LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, m,
                                               (lapack_int)n, pivots);
        if (info == 0)
            info = f32 ? LAPACKE_sgetri(LAPACK_ROW_MAJOR, (lapack_int)n, m, (lapack_int)n, pivots)
                       : LAPACKE_dgetri(LAPACK_ROW_MAJOR, (lapack_int)n, m, (lapack_int)n, pivots);
        if (info > 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, k);
            tensor_set_error("linalg.inv: %sThe diagonal element %d is zero, the inversion could not "
                             "be completed because the input matrix is singular.", prefix, (int)info);
            ok = false;
        }
    }
    free(pivots);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- determinants */

/* LU of each matrix: the sign of the determinant (from the pivots and the
 * diagonal) and the log of its absolute value, or the determinant itself. */
static bool lu_determinants(const Tensor *a, const char *op, Tensor **det, Tensor **sign,
                            Tensor **logabs)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, op, &batch, &n))
        return false;
    Tensor *lu = tensor_clone(a);
    int nbatch = a->ndim - 2;
    Tensor *d = det ? tensor_empty(a->dtype, nbatch, a->sizes) : NULL;
    Tensor *s = sign ? tensor_empty(a->dtype, nbatch, a->sizes) : NULL;
    Tensor *l = logabs ? tensor_empty(a->dtype, nbatch, a->sizes) : NULL;
    lapack_int *pivots = kern_malloc((size_t)(n ? n : 1), sizeof *pivots);
    bool ok = lu && pivots && (!det || d) && (!sign || s) && (!logabs || l);
    bool f32 = a->dtype == DT_F32;
    for (int64_t k = 0; ok && k < batch; k++) {
        /* det = (-1)^(row swaps) * prod(diag U); the sign from the swaps
         * and the diagonal's signs, not from the product, which may
         * underflow or overflow where the log does not. */
        double swaps = 1, sgn = 1, logsum = 0, prod = 1;
        if (n > 0) {
            void *m = lapack_matrix_at(lu, k, n, n);
            lapack_int info = f32 ? LAPACKE_sgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, m,
                                                   (lapack_int)n, pivots)
                                  : LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, m,
                                                   (lapack_int)n, pivots);
            (void)info;     /* a zero pivot is a zero determinant, not an error */
            bool zero = false;
            for (int64_t i = 0; i < n; i++) {
                double u = f32 ? ((float *)m)[i * n + i] : ((double *)m)[i * n + i];
                if (pivots[i] != i + 1)
                    swaps = -swaps;
                sgn = u < 0 ? -sgn : sgn;
                zero = zero || u == 0;
                prod *= u;
                logsum += log(fabs(u));
            }
            prod *= swaps;
            sgn = zero ? 0 : sgn * swaps;
        }
        if (d)
            tensor_set_flat(d, k, n ? prod : 1);
        if (s)
            tensor_set_flat(s, k, sgn);
        if (l)
            tensor_set_flat(l, k, n ? logsum : 0);
    }
    free(pivots);
    tensor_release(lu);
    if (!ok) {
        tensor_release(d);
        tensor_release(s);
        tensor_release(l);
        return false;
    }
    if (det)
        *det = d;
    if (sign)
        *sign = s;
    if (logabs)
        *logabs = l;
    return true;
}

Tensor *tensor_linalg_det(const Tensor *a)
{
    Tensor *d = NULL;
    return lu_determinants(a, "linalg.det", &d, NULL, NULL) ? d : NULL;
}

bool tensor_linalg_slogdet(const Tensor *a, Tensor **sign, Tensor **logabsdet)
{
    return lu_determinants(a, "linalg.slogdet", NULL, sign, logabsdet);
}

/* ---------------------------------------------------------------- qr, eigh */

bool tensor_linalg_qr(const Tensor *a, const char *mode, Tensor **q, Tensor **r)
{
    *q = *r = NULL;
    bool complete = strcmp(mode, "complete") == 0, r_only = strcmp(mode, "r") == 0;
    if (!complete && !r_only && strcmp(mode, "reduced") != 0) {
        tensor_set_error("qr received unrecognized mode '%s' but expected one of 'reduced' (default), "
                         "'r', or 'complete'", mode);
        return false;
    }
    int64_t batch, m, n;
    if (!lapack_matrix_batch(a, "linalg.qr", &batch, &m, &n))
        return false;
    int64_t k = m < n ? m : n, qcols = complete ? m : k, rrows = complete ? m : k;
    Tensor *work = tensor_clone(a);
    int64_t zero = 0;
    *q = r_only ? tensor_zeros(a->dtype, 1, &zero) : lapack_batch_of(a, a->dtype, m, qcols);
    *r = lapack_batch_of(a, a->dtype, rrows, n);
    size_t esize = dtype_size(a->dtype);
    void *tau = kern_malloc((size_t)(k ? k : 1), esize);
    /* Q is built in an m x max(n, qcols) buffer holding the reflectors. */
    int64_t wide = n > qcols ? n : qcols;
    void *qbuf = kern_malloc((size_t)(m * wide > 0 ? m * wide : 1), esize);
    bool ok = work && *q && *r && tau && qbuf;
    bool f32 = a->dtype == DT_F32;
    for (int64_t b = 0; ok && b < batch && m > 0 && n > 0; b++) {
        void *am = lapack_matrix_at(work, b, m, n);
        lapack_int info = f32 ? LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, am,
                                               (lapack_int)n, tau)
                              : LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, am,
                                               (lapack_int)n, tau);
        ok = info == 0;
        /* R: the upper triangle of the first rrows rows. */
        char *rm = lapack_matrix_at(*r, b, rrows, n);
        for (int64_t i = 0; ok && i < rrows && i < m; i++)
            for (int64_t j = i; j < n; j++)
                memcpy(rm + (size_t)(i * n + j) * esize, (char *)am + (size_t)(i * n + j) * esize, esize);
        if (!ok || r_only)
            continue;
        memset(qbuf, 0, (size_t)(m * wide) * esize);
        for (int64_t i = 0; i < m; i++)
            memcpy((char *)qbuf + (size_t)(i * wide) * esize, (char *)am + (size_t)(i * n) * esize,
                   (size_t)(n < wide ? n : wide) * esize);
        info = f32 ? LAPACKE_sorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)qcols, (lapack_int)k,
                                    qbuf, (lapack_int)wide, tau)
                   : LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)qcols, (lapack_int)k,
                                    qbuf, (lapack_int)wide, tau);
        ok = info == 0;
        char *qm = lapack_matrix_at(*q, b, m, qcols);
        for (int64_t i = 0; ok && i < m; i++)
            memcpy(qm + (size_t)(i * qcols) * esize, (char *)qbuf + (size_t)(i * wide) * esize,
                   (size_t)qcols * esize);
    }
    if (!ok && !tensor_last_error()[0])
        tensor_set_error("linalg.qr: LAPACK failed");
    free(tau);
    free(qbuf);
    tensor_release(work);
    if (!ok) {
        tensor_release(*q);
        tensor_release(*r);
        *q = *r = NULL;
    }
    return ok;
}

bool tensor_linalg_eigh(const Tensor *a, bool upper, Tensor **values, Tensor **vectors)
{
    *values = *vectors = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.eigh", &batch, &n))
        return false;
    *vectors = tensor_clone(a);
    /* The eigenvalues' shape: the batch dims, then n. */
    *values = tensor_empty(a->dtype, a->ndim - 1, a->sizes);
    bool ok = *vectors && *values;
    bool f32 = a->dtype == DT_F32;
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *vm = lapack_matrix_at(*vectors, b, n, n);
        void *w = (char *)tensor_data(*values) + (size_t)(b * n) * dtype_size(a->dtype);
        char uplo = upper ? 'U' : 'L';
        lapack_int info = f32 ? LAPACKE_ssyevd(LAPACK_ROW_MAJOR, 'V', uplo, (lapack_int)n, vm,
                                               (lapack_int)n, w)
                              : LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', uplo, (lapack_int)n, vm,
                                               (lapack_int)n, w);
        if (info > 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            tensor_set_error("linalg.eigh: %sThe algorithm failed to converge because the input matrix "
                             "is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                             prefix, (int)info);
            ok = false;
        }
    }
    if (!ok) {
        tensor_release(*values);
        tensor_release(*vectors);
        *values = *vectors = NULL;
    }
    return ok;
}
