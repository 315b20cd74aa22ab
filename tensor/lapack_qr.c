/* lapack_qr.c — Householder QR pieces (geqrf, linalg.householder_product
 * through orgqr, ormqr), the LDL^T factorization of symmetric matrices
 * (linalg.ldl_factor(_ex) through sytrf, linalg.ldl_solve through
 * sytrs, always the lower triangle as PyTorch), and the Cholesky
 * variants linalg.cholesky_ex (potrf with its info) and cholesky_inverse
 * (potri, the computed triangle reflected onto the other, as PyTorch).
 */
#include "tensor/lapack_common.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

static bool same_batch(const Tensor *a, int a_inner, const Tensor *b, int b_inner)
{
    int na = a->ndim - a_inner, nb = b->ndim - b_inner;
    return na == nb && memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)(na > 0 ? na : 0)) == 0;
}

/* ---------------------------------------------------------------- geqrf */

bool tensor_geqrf(const Tensor *a, Tensor **qr, Tensor **tau)
{
    *qr = *tau = NULL;
    int64_t batch, m, n;
    if (!lapack_matrix_batch(a, "geqrf", &batch, &m, &n))
        return false;
    int64_t k = m < n ? m : n;
    *qr = tensor_clone(a);
    *tau = lapack_vector_batch(a, a->dtype, k);
    bool ok = *qr && *tau;
    size_t es = dtype_size(a->dtype);
    for (int64_t b = 0; ok && b < batch && k > 0; b++) {
        void *am = lapack_matrix_at(*qr, b, m, n), *t = (char *)tensor_data(*tau) + (size_t)(b * k) * es;
        lapack_int r = a->dtype == DT_F32
                           ? LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, am, (lapack_int)n, t)
                           : LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n, am, (lapack_int)n, t);
        if (r != 0) {
            tensor_set_error("geqrf: LAPACK failed (info %d)", (int)r);
            ok = false;
        }
    }
    if (!ok) {
        tensor_release(*qr);
        tensor_release(*tau);
        *qr = *tau = NULL;
    }
    return ok;
}

/* ---------------------------------------------------------------- householder_product */

Tensor *tensor_linalg_householder_product(const Tensor *a, const Tensor *tau)
{
    const char *op = "torch.linalg.householder_product";
    if (a->ndim < 2) {
        tensor_set_error("%s: input must have at least 2 dimensions.", op);
        return NULL;
    }
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
    int64_t k = tau->ndim ? tau->sizes[tau->ndim - 1] : 1;
    if (m < n) {
        tensor_set_error("%s: input.shape[-2] must be greater than or equal to input.shape[-1]", op);
        return NULL;
    }
    if (n < k) {
        tensor_set_error("%s: input.shape[-1] must be greater than or equal to tau.shape[-1]", op);
        return NULL;
    }
    if (tau->ndim != a->ndim - 1 || !same_batch(a, 2, tau, 1)) {
        tensor_set_error("%s: Expected batch dimensions of tau to be equal to input.shape[:-2], but got %d dims",
                         op, tau->ndim - 1);
        return NULL;
    }
    if (tau->dtype != a->dtype) {
        tensor_set_error("%s: tau dtype %s does not match input dtype %s", op, dtype_ts_name(tau->dtype),
                         dtype_ts_name(a->dtype));
        return NULL;
    }
    int64_t batch;
    if (!lapack_matrix_batch(a, op, &batch, &m, &n))
        return NULL;
    Tensor *out = tensor_clone(a), *tc = tensor_clone(tau);
    bool ok = out && tc;
    size_t es = dtype_size(a->dtype);
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *am = lapack_matrix_at(out, b, m, n), *t = (char *)tensor_data(tc) + (size_t)(b * k) * es;
        lapack_int r = a->dtype == DT_F32 ? LAPACKE_sorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n,
                                                           (lapack_int)k, am, (lapack_int)n, t)
                                          : LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)n,
                                                           (lapack_int)k, am, (lapack_int)n, t);
        if (r != 0) {
            tensor_set_error("%s: LAPACK orgqr failed (info %d)", op, (int)r);
            ok = false;
        }
    }
    tensor_release(tc);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- ormqr */

Tensor *tensor_ormqr(const Tensor *a, const Tensor *tau, const Tensor *c, bool left, bool transpose)
{
    if (a->ndim < 2 || c->ndim < 2) {
        tensor_set_error("torch.ormqr: %s must have at least 2 dimensions.", a->ndim < 2 ? "input" : "other");
        return NULL;
    }
    if (!dtype_is_float(a->dtype) || a->dtype != tau->dtype || a->dtype != c->dtype) {
        tensor_set_error("torch.ormqr: Expected input, tau and other to have the same floating point dtype, but got "
                         "%s, %s and %s", dtype_ts_name(a->dtype), dtype_ts_name(tau->dtype), dtype_ts_name(c->dtype));
        return NULL;
    }
    int64_t mc = c->sizes[c->ndim - 2], nc = c->sizes[c->ndim - 1];
    int64_t rows = a->sizes[a->ndim - 2], acols = a->sizes[a->ndim - 1];
    int64_t k = tau->ndim ? tau->sizes[tau->ndim - 1] : 1;
    int64_t side = left ? mc : nc;
    if (rows != side) {
        tensor_set_error("torch.ormqr: input.shape[-2] must be equal to other.shape[%d]", left ? -2 : -1);
        return NULL;
    }
    if (k > acols || k > side) {
        tensor_set_error("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1] and to "
                         "other.shape[%d]", left ? -2 : -1);
        return NULL;
    }
    if (tau->ndim != a->ndim - 1 || !same_batch(a, 2, tau, 1) || !same_batch(a, 2, c, 2)) {
        tensor_set_error("torch.ormqr: Expected batch dimensions of input, tau and other to be equal");
        return NULL;
    }
    Tensor *ac = tensor_clone(a), *tc = tensor_clone(tau), *out = tensor_clone(c);
    bool ok = ac && tc && out;
    int64_t count = lapack_batch_count(c->ndim - 2, c->sizes);
    size_t es = dtype_size(a->dtype);
    char sd = left ? 'L' : 'R', tr = transpose ? 'T' : 'N';
    for (int64_t b = 0; ok && b < count && mc > 0 && nc > 0 && k > 0; b++) {
        void *am = lapack_matrix_at(ac, b, rows, acols), *t = (char *)tensor_data(tc) + (size_t)(b * k) * es;
        void *cm = lapack_matrix_at(out, b, mc, nc);
        lapack_int r = a->dtype == DT_F32
                           ? LAPACKE_sormqr(LAPACK_ROW_MAJOR, sd, tr, (lapack_int)mc, (lapack_int)nc, (lapack_int)k,
                                            am, (lapack_int)acols, t, cm, (lapack_int)nc)
                           : LAPACKE_dormqr(LAPACK_ROW_MAJOR, sd, tr, (lapack_int)mc, (lapack_int)nc, (lapack_int)k,
                                            am, (lapack_int)acols, t, cm, (lapack_int)nc);
        if (r != 0) {
            tensor_set_error("torch.ormqr: LAPACK failed (info %d)", (int)r);
            ok = false;
        }
    }
    tensor_release(ac);
    tensor_release(tc);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- ldl */

bool tensor_linalg_ldl_factor_ex(const Tensor *a, bool check_errors, Tensor **ld, Tensor **pivots, Tensor **info)
{
    *ld = *pivots = *info = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "torch.linalg.ldl_factor_ex", &batch, &n))
        return false;
    Tensor *work = tensor_clone(a);
    *pivots = lapack_vector_batch(a, DT_I32, n);
    *info = tensor_zeros(DT_I32, a->ndim - 2, a->sizes);
    lapack_int *piv = kern_malloc((size_t)(n ? n : 1), sizeof *piv);
    bool ok = work && *pivots && *info && piv;
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *am = lapack_matrix_at(work, b, n, n);
        lapack_int r = a->dtype == DT_F32
                           ? LAPACKE_ssytrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, am, (lapack_int)n, piv)
                           : LAPACKE_dsytrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, am, (lapack_int)n, piv);
        for (int64_t i = 0; i < n; i++)
            ((int32_t *)tensor_data(*pivots))[b * n + i] = (int32_t)piv[i];
        ((int32_t *)tensor_data(*info))[b] = (int32_t)r;
        if (r < 0 || (r > 0 && check_errors)) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            tensor_set_error("torch.linalg.ldl_factor: %sThe factorization could not be completed: D[%d,%d] is zero "
                             "(error code: %d).", prefix, (int)r, (int)r, (int)r);
            ok = false;
        }
    }
    free(piv);
    /* only the lower triangle holds the factorization (PyTorch zeroes the rest) */
    *ld = ok ? tensor_tril(work, 0) : NULL;
    tensor_release(work);
    if (!*ld) {
        tensor_release(*pivots);
        tensor_release(*info);
        *pivots = *info = NULL;
        return false;
    }
    return true;
}

Tensor *tensor_linalg_ldl_solve(const Tensor *ld, const Tensor *pivots, const Tensor *b)
{
    const char *op = "torch.linalg.ldl_solve";
    int64_t batch, n;
    if (!lapack_square_batch(ld, op, &batch, &n))
        return NULL;
    if (b->ndim < 2 || b->sizes[b->ndim - 2] != n) {
        tensor_set_error("%s: Incompatible shapes of LD and B for the equation LD X = B", op);
        return NULL;
    }
    if (pivots->dtype != DT_I32) {
        tensor_set_error("%s: Expected pivots to be integers. Got %s", op, dtype_ts_name(pivots->dtype));
        return NULL;
    }
    if (b->dtype != ld->dtype) {
        tensor_set_error("%s: LD dtype %s does not match b dtype %s", op, dtype_ts_name(ld->dtype),
                         dtype_ts_name(b->dtype));
        return NULL;
    }
    if (pivots->ndim != ld->ndim - 1 || !same_batch(ld, 2, pivots, 1) || pivots->sizes[pivots->ndim - 1] != n) {
        tensor_set_error("%s: Expected LD.shape[:-2] and pivots.shape[:-1] to be the same", op);
        return NULL;
    }
    /* LD, its pivots and B broadcast to one batch */
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = tensor_broadcast_shape(ld->ndim - 2, ld->sizes, b->ndim - 2, b->sizes, shape);
    if (nb < 0)
        return NULL;
    int64_t k = b->sizes[b->ndim - 1];
    int64_t ls[TENSOR_MAX_DIMS], ps[TENSOR_MAX_DIMS], bs[TENSOR_MAX_DIMS];
    memcpy(ls, shape, sizeof(int64_t) * (size_t)nb);
    memcpy(ps, shape, sizeof(int64_t) * (size_t)nb);
    memcpy(bs, shape, sizeof(int64_t) * (size_t)nb);
    ls[nb] = ls[nb + 1] = n;
    ps[nb] = n;
    bs[nb] = n, bs[nb + 1] = k;
    Tensor *le = kern_expand_view(ld, nb + 2, ls), *pe = le ? kern_expand_view(pivots, nb + 1, ps) : NULL;
    Tensor *be = pe ? kern_expand_view(b, nb + 2, bs) : NULL;
    Tensor *lc = be ? tensor_clone(le) : NULL, *pc = lc ? tensor_clone(pe) : NULL;
    Tensor *out = pc ? tensor_clone(be) : NULL;
    lapack_int *piv = kern_malloc((size_t)(n ? n : 1), sizeof *piv);
    bool ok = out && piv;
    int64_t count = 1;
    for (int i = 0; i < nb; i++)
        count *= shape[i];
    for (int64_t i = 0; ok && i < count && n > 0 && k > 0; i++) {
        for (int64_t j = 0; ok && j < n; j++) {
            piv[j] = ((const int32_t *)tensor_data(pc))[i * n + j];
            /* LAPACK trusts them (negative: a 2 x 2 block's): one out of
             * range swaps rows outside b */
            if (piv[j] == 0 || piv[j] > n || piv[j] < -n) {
                tensor_set_error("linalg.ldl_solve: pivot %d is out of range [1, %" PRId64 "]", (int)piv[j], n);
                ok = false;
            }
        }
        if (!ok)
            break;
        void *lm = lapack_matrix_at(lc, i, n, n), *xm = lapack_matrix_at(out, i, n, k);
        lapack_int r = ld->dtype == DT_F32 ? LAPACKE_ssytrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, (lapack_int)k, lm,
                                                            (lapack_int)n, piv, xm, (lapack_int)k)
                                           : LAPACKE_dsytrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, (lapack_int)k, lm,
                                                            (lapack_int)n, piv, xm, (lapack_int)k);
        if (r != 0) {
            tensor_set_error("%s: LAPACK sytrs failed (info %d)", op, (int)r);
            ok = false;
        }
    }
    free(piv);
    tensor_release(le);
    tensor_release(pe);
    tensor_release(be);
    tensor_release(lc);
    tensor_release(pc);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- cholesky_ex, cholesky_inverse */

bool tensor_linalg_cholesky_ex(const Tensor *a, bool upper, bool check_errors, Tensor **l, Tensor **info)
{
    *l = *info = NULL;
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.cholesky", &batch, &n))
        return false;
    Tensor *work = tensor_clone(a);
    *info = tensor_zeros(DT_I32, a->ndim - 2, a->sizes);
    bool ok = work && *info;
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *m = lapack_matrix_at(work, b, n, n);
        char uplo = upper ? 'U' : 'L';
        lapack_int r = a->dtype == DT_F32 ? LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n)
                                          : LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n);
        ((int32_t *)tensor_data(*info))[b] = (int32_t)r;
        if (r != 0 && check_errors) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            tensor_set_error("linalg.cholesky: %sThe factorization could not be completed because the input is not "
                             "positive-definite (the leading minor of order %d is not positive-definite).", prefix,
                             (int)r);
            ok = false;
        }
    }
    /* the factor has zeros in the other triangle */
    *l = ok ? (upper ? tensor_triu(work, 0) : tensor_tril(work, 0)) : NULL;
    tensor_release(work);
    if (!*l) {
        tensor_release(*info);
        *info = NULL;
        return false;
    }
    return true;
}

Tensor *tensor_cholesky_inverse(const Tensor *l, bool upper)
{
    int64_t batch, n;
    if (!lapack_square_batch(l, "cholesky_inverse", &batch, &n))
        return NULL;
    Tensor *out = tensor_clone(l);
    bool ok = out != NULL;
    bool f32 = l->dtype == DT_F32;
    for (int64_t b = 0; ok && b < batch && n > 0; b++) {
        void *m = lapack_matrix_at(out, b, n, n);
        char uplo = upper ? 'U' : 'L';
        lapack_int r = f32 ? LAPACKE_spotri(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n)
                           : LAPACKE_dpotri(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, m, (lapack_int)n);
        if (r > 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, l, b);
            tensor_set_error("cholesky_inverse: %sThe diagonal element %d is zero, the inversion could not be "
                             "completed because the input matrix is singular.", prefix, (int)r);
            ok = false;
        }
        /* potri fills one triangle of the (symmetric) inverse: reflect it */
        for (int64_t i = 0; ok && i < n; i++)
            for (int64_t j = 0; j < i; j++) {
                int64_t from = upper ? j * n + i : i * n + j, to = upper ? i * n + j : j * n + i;
                if (f32)
                    ((float *)m)[to] = ((float *)m)[from];
                else
                    ((double *)m)[to] = ((double *)m)[from];
            }
    }
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}
