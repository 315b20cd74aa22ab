/* lapack_lstsq.c — torch.linalg.lstsq through LAPACK's least-squares
 * drivers gels (QR, full rank), gelsy (complete orthogonal factorization,
 * PyTorch's CPU default), gelsd and gelss (SVD).
 *
 * The outputs are PyTorch's: the solution (n x k per matrix; a batch of
 * vectors when B is one), the residuals (sums of squares of the rows n..m
 * of LAPACK's output) only when m > n and the driver is not gelsy (for
 * gelsd/gelss only when every matrix has full rank), otherwise an empty
 * tensor; the rank (int64, batch shape) except for gels; and the singular
 * values for gelsd/gelss. Empty outputs have shape [0].
 */
#include "tensor/lapack_common.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum Driver { GELS, GELSY, GELSD, GELSS } Driver;

/* One least-squares problem: a (m x n) and b (rows max(m, n) x ldb) row-major,
 * overwritten; *rank and s (min(m, n) values) for the drivers that give them. */
static lapack_int solve_one(Driver d, bool f32, int64_t m, int64_t n, int64_t k, void *a, void *b, int64_t ldb,
                            double rcond, void *s, lapack_int *jpvt, lapack_int *rank)
{
    lapack_int lm = (lapack_int)m, ln = (lapack_int)n, lk = (lapack_int)k, lb = (lapack_int)ldb;
    switch (d) {
    case GELS:
        return f32 ? LAPACKE_sgels(LAPACK_ROW_MAJOR, 'N', lm, ln, lk, a, ln, b, lb)
                   : LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', lm, ln, lk, a, ln, b, lb);
    case GELSY:
        for (int64_t i = 0; i < n; i++)
            jpvt[i] = 0;     /* every column is free to move */
        return f32 ? LAPACKE_sgelsy(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, jpvt, (float)rcond, rank)
                   : LAPACKE_dgelsy(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, jpvt, rcond, rank);
    case GELSD:
        return f32 ? LAPACKE_sgelsd(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, s, (float)rcond, rank)
                   : LAPACKE_dgelsd(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, s, rcond, rank);
    default:
        return f32 ? LAPACKE_sgelss(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, s, (float)rcond, rank)
                   : LAPACKE_dgelss(LAPACK_ROW_MAJOR, lm, ln, lk, a, ln, b, lb, s, rcond, rank);
    }
}

bool tensor_linalg_lstsq(const Tensor *a, const Tensor *b, bool has_rcond, double rcond, const char *driver,
                         Tensor *out[4])
{
    out[0] = out[1] = out[2] = out[3] = NULL;
    const char *op = "torch.linalg.lstsq";
    Driver d;
    if (!driver || strcmp(driver, "gelsy") == 0)
        d = GELSY;
    else if (strcmp(driver, "gels") == 0)
        d = GELS;
    else if (strcmp(driver, "gelsd") == 0)
        d = GELSD;
    else if (strcmp(driver, "gelss") == 0)
        d = GELSS;
    else {
        tensor_set_error("%s: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", op);
        return false;
    }
    int64_t batch, m, n;
    if (!lapack_matrix_batch(a, op, &batch, &m, &n))
        return false;
    if (b->dtype != a->dtype) {
        tensor_set_error("%s: Expected input and other to have the same dtype, but got input's dtype %s and other's "
                         "dtype %s", op, dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
        return false;
    }
    /* B is a batch of vectors when its shape is A's without the last dim */
    bool vector = b->ndim == 1 || (b->ndim == a->ndim - 1 &&
                                   memcmp(b->sizes, a->sizes, sizeof(int64_t) * (size_t)b->ndim) == 0);
    if (b->ndim < 1 || (!vector && b->ndim < 2)) {
        tensor_set_error("%s: other must have at least 1 dimension.", op);
        return false;
    }
    Tensor *bm = vector ? tensor_unsqueeze((Tensor *)b, -1) : tensor_retain((Tensor *)b);
    if (!bm)
        return false;
    if (bm->sizes[bm->ndim - 2] != m) {
        tensor_set_error("%s: input.size(-2) should match other.size(-2)", op);
        tensor_release(bm);
        return false;
    }
    int64_t k = bm->sizes[bm->ndim - 1];
    int64_t shape[TENSOR_MAX_DIMS];
    int nb = tensor_broadcast_shape(a->ndim - 2, a->sizes, bm->ndim - 2, bm->sizes, shape);
    if (nb < 0) {
        tensor_release(bm);
        return false;
    }
    int64_t asz[TENSOR_MAX_DIMS], bsz[TENSOR_MAX_DIMS];
    memcpy(asz, shape, sizeof(int64_t) * (size_t)nb);
    memcpy(bsz, shape, sizeof(int64_t) * (size_t)nb);
    asz[nb] = m, asz[nb + 1] = n;
    bsz[nb] = m, bsz[nb + 1] = k;
    Tensor *ae = kern_expand_view(a, nb + 2, asz), *be = ae ? kern_expand_view(bm, nb + 2, bsz) : NULL;
    Tensor *ac = be ? tensor_clone(ae) : NULL, *bc = ac ? tensor_clone(be) : NULL;
    tensor_release(ae);
    tensor_release(be);
    tensor_release(bm);
    batch = 1;
    for (int i = 0; i < nb; i++)
        batch *= shape[i];
    if (!has_rcond)
        rcond = (a->dtype == DT_F32 ? FLT_EPSILON : DBL_EPSILON) * (double)(m > n ? m : n);
    int64_t rows = m > n ? m : n, ldb = k > 1 ? k : 1, mn = m < n ? m : n;
    bool f32 = a->dtype == DT_F32;
    size_t es = dtype_size(a->dtype);
    int64_t zero = 0;
    /* the solution in LAPACK's (rows x k) layout, then the outputs */
    char *work = kern_malloc((size_t)(rows * ldb + 1), es);
    lapack_int *jpvt = kern_malloc((size_t)(n + 1), sizeof *jpvt);
    int64_t ssz[TENSOR_MAX_DIMS];
    memcpy(ssz, shape, sizeof(int64_t) * (size_t)nb);
    ssz[nb] = n, ssz[nb + 1] = k;
    Tensor *sol = tensor_zeros(a->dtype, nb + 2, ssz);
    double *res = kern_malloc((size_t)(batch * k + 1), sizeof *res);
    Tensor *rank = d == GELS ? tensor_zeros(DT_I64, 1, &zero) : tensor_zeros(DT_I64, nb, shape);
    ssz[nb] = mn;
    Tensor *sv = d == GELSD || d == GELSS ? tensor_zeros(a->dtype, nb + 1, ssz) : tensor_zeros(a->dtype, 1, &zero);
    bool ok = ac && bc && work && jpvt && sol && res && rank && sv;
    bool full_rank = true;
    for (int64_t i = 0; ok && i < batch; i++) {
        lapack_int r = 0, rk = 0;
        memset(work, 0, (size_t)(rows * ldb) * es);
        for (int64_t row = 0; row < m; row++)
            memcpy(work + (size_t)(row * ldb) * es, (char *)lapack_matrix_at(bc, i, m, k) + (size_t)(row * k) * es,
                   (size_t)k * es);
        if (m > 0 && n > 0) {
            void *s = d == GELSD || d == GELSS ? (char *)tensor_data(sv) + (size_t)(i * mn) * es : NULL;
            r = solve_one(d, f32, m, n, k, lapack_matrix_at(ac, i, m, n), work, ldb, rcond, s, jpvt, &rk);
        }
        if (r != 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, i);
            if (r > 0)
                tensor_set_error("%s: %sThe least squares solution could not be computed because the input matrix "
                                 "does not have full rank (error code: %d).", op, prefix, (int)r);
            else
                tensor_set_error("%s: %sLAPACK failed (argument %d; NaN in the input?)", op, prefix, (int)-r);
            ok = false;
            break;
        }
        if (d != GELS)
            ((int64_t *)tensor_data(rank))[i] = rk;
        full_rank = full_rank && rk == n;
        for (int64_t row = 0; row < n && m > 0; row++)
            memcpy((char *)lapack_matrix_at(sol, i, n, k) + (size_t)(row * k) * es, work + (size_t)(row * ldb) * es,
                   (size_t)k * es);
        for (int64_t j = 0; j < k; j++) {
            double acc = 0;
            for (int64_t row = n; row < m; row++) {
                double v = f32 ? ((float *)work)[row * ldb + j] : ((double *)work)[row * ldb + j];
                acc += tensor_round_f64(a->dtype, v * v);
            }
            res[i * k + j] = acc;
        }
    }
    bool residuals = ok && m > n && d != GELSY && (d == GELS || full_rank);
    Tensor *residual = NULL;
    if (ok) {
        ssz[nb] = k;
        residual = residuals ? tensor_empty(a->dtype, nb + 1, ssz) : tensor_zeros(a->dtype, 1, &zero);
        if (residual && residuals)
            for (int64_t i = 0; i < batch * k; i++)
                tensor_set_flat(residual, i, res[i]);
        ok = residual != NULL;
    }
    Tensor *solution = NULL;
    if (ok && vector) {
        Tensor *v = tensor_squeeze_dim(sol, -1);
        solution = v ? tensor_clone(v) : NULL;
        tensor_release(v);
        ok = solution != NULL;
    } else if (ok) {
        solution = tensor_retain(sol);
    }
    free(work);
    free(jpvt);
    free(res);
    tensor_release(ac);
    tensor_release(bc);
    tensor_release(sol);
    if (!ok) {
        tensor_release(solution);
        tensor_release(residual);
        tensor_release(rank);
        tensor_release(sv);
        return false;
    }
    out[0] = solution;
    out[1] = residual;
    out[2] = rank;
    out[3] = sv;
    return true;
}
