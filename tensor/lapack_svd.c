/* lapack_svd.c — the singular value decomposition (LAPACK gesdd, as
 * PyTorch's CPU svd calls it) and what is built on it: linalg.svd, svd,
 * linalg.svdvals, linalg.pinv, linalg.matrix_rank and linalg.cond.
 *
 * gesdd is called with jobz 'A' (full U and Vh), 'S' (reduced) or 'N'
 * (values only) exactly where PyTorch uses each, so that singular vectors
 * come out with the same signs. Tolerances of pinv and matrix_rank follow
 * PyTorch's get_atol_rtol: absolute and relative tolerances per matrix,
 * the default relative one eps(dtype) * max(m, n) (0 when an absolute one
 * above 0 is given), compared in double.
 */
#include "tensor/lapack_common.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- gesdd */

/* U, S, Vh of every matrix of a; jobz 'A', 'S' or 'N' (then *u and *vh
 * stay NULL). Empty matrices give empty S and, for 'A', identity U and Vh
 * (PyTorch's result). */
static bool svd_batch(const Tensor *a, char jobz, const char *op, Tensor **u, Tensor **s, Tensor **vh)
{
    *u = *s = *vh = NULL;
    int64_t batch, m, n;
    if (!lapack_matrix_batch(a, op, &batch, &m, &n))
        return false;
    int64_t k = m < n ? m : n;
    int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
    Tensor *work = tensor_clone(a);
    *s = lapack_vector_batch(a, a->dtype, k);
    if (jobz != 'N') {
        *u = lapack_batch_of(a, a->dtype, m, ucols);
        *vh = lapack_batch_of(a, a->dtype, vrows, n);
    }
    bool ok = work && *s && (jobz == 'N' || (*u && *vh));
    bool f32 = a->dtype == DT_F32;
    size_t es = dtype_size(a->dtype);
    double dummy[1];
    for (int64_t b = 0; ok && b < batch; b++) {
        if (m == 0 || n == 0) {
            if (jobz == 'A') {
                for (int64_t i = 0; i < m; i++)
                    tensor_set_flat(*u, b * m * m + i * m + i, 1.0);
                for (int64_t i = 0; i < n; i++)
                    tensor_set_flat(*vh, b * n * n + i * n + i, 1.0);
            }
            continue;
        }
        void *am = lapack_matrix_at(work, b, m, n);
        void *sv = (char *)tensor_data(*s) + (size_t)(b * k) * es;
        void *um = jobz == 'N' ? (void *)dummy : lapack_matrix_at(*u, b, m, ucols);
        void *vm = jobz == 'N' ? (void *)dummy : lapack_matrix_at(*vh, b, vrows, n);
        /* LAPACKE's row-major gesdd checks ldvt >= n even when Vh is not
         * computed (jobz 'N' never touches u or vt) */
        lapack_int ldu = jobz == 'N' ? 1 : (lapack_int)ucols, ldvt = (lapack_int)n;
        lapack_int info = f32 ? LAPACKE_sgesdd(LAPACK_ROW_MAJOR, jobz, (lapack_int)m, (lapack_int)n, am,
                                               (lapack_int)n, sv, um, ldu, vm, ldvt)
                              : LAPACKE_dgesdd(LAPACK_ROW_MAJOR, jobz, (lapack_int)m, (lapack_int)n, am,
                                               (lapack_int)n, sv, um, ldu, vm, ldvt);
        if (info != 0) {
            char prefix[48];
            lapack_batch_prefix(prefix, sizeof prefix, a, b);
            if (info > 0)
                tensor_set_error("%s: %sThe algorithm failed to converge because the input matrix is ill-conditioned "
                                 "or has too many repeated singular values (error code: %d).", op, prefix, (int)info);
            else if (info == -5)
                /* LAPACK 3.10+ rejects non-finite input as argument A (4, LAPACKE's 5) */
                tensor_set_error("%s: %sThe algorithm failed to converge because the input matrix contained "
                                 "non-finite values.", op, prefix);
            else
                tensor_set_error("%s: %sLAPACK gesdd failed (argument %d)", op, prefix, (int)-info);
            ok = false;
        }
    }
    tensor_release(work);
    if (!ok) {
        tensor_release(*u);
        tensor_release(*s);
        tensor_release(*vh);
        *u = *s = *vh = NULL;
    }
    return ok;
}

Tensor *tensor_linalg_svdvals(const Tensor *a)
{
    Tensor *u, *s, *vh;
    return svd_batch(a, 'N', "linalg.svd", &u, &s, &vh) ? s : NULL;
}

bool tensor_linalg_svd(const Tensor *a, bool full_matrices, Tensor **u, Tensor **s, Tensor **vh)
{
    return svd_batch(a, full_matrices ? 'A' : 'S', "linalg.svd", u, s, vh);
}

bool tensor_svd(const Tensor *a, bool some, bool compute_uv, Tensor **u, Tensor **s, Tensor **v)
{
    *u = *s = *v = NULL;
    if (a->ndim < 2) {
        tensor_set_error("linalg.svd: input should have at least 2 dimensions, but has %d dimensions instead",
                         a->ndim);
        return false;
    }
    Tensor *vh = NULL;
    if (compute_uv) {
        if (!svd_batch(a, some ? 'S' : 'A', "linalg.svd", u, s, &vh))
            return false;
    } else {
        /* U and V of the full shapes, zero-filled (PyTorch's result). */
        if (!(*s = tensor_linalg_svdvals(a)))
            return false;
        int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
        *u = lapack_batch_of(a, a->dtype, m, m);
        vh = lapack_batch_of(a, a->dtype, n, n);
    }
    *v = vh ? tensor_matrix_transpose(vh, "mT") : NULL;
    tensor_release(vh);
    if (!*u || !*v) {
        tensor_release(*u);
        tensor_release(*s);
        tensor_release(*v);
        *u = *s = *v = NULL;
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- tolerances */

/* The absolute and relative tolerance of each of the `batch` matrices of
 * a (malloc'd arrays): atol/rtol broadcast to a's batch shape, NULL for
 * absent (see the file comment for the defaults). */
static bool tolerances(const Tensor *a, const Tensor *atol, const Tensor *rtol, int64_t batch, double **atol_out,
                       double **rtol_out)
{
    *atol_out = *rtol_out = NULL;
    int nb = a->ndim - 2;
    const Tensor *given[2] = {atol, rtol};
    double *vals[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!given[i])
            continue;
        if (given[i]->ndim > nb) {
            tensor_set_error("linalg: a tolerance with more dims than the batch of matrices is not supported");
            free(vals[0]);
            return false;
        }
        Tensor *e = kern_expand_view(given[i], nb, a->sizes);
        vals[i] = e ? kern_read_all_f64(e) : NULL;
        tensor_release(e);
        if (!vals[i]) {
            free(vals[0]);
            return false;
        }
    }
    double *at = kern_malloc((size_t)(batch ? batch : 1), sizeof *at);
    double *rt = kern_malloc((size_t)(batch ? batch : 1), sizeof *rt);
    if (!at || !rt) {
        free(at);
        free(rt);
        free(vals[0]);
        free(vals[1]);
        return false;
    }
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
    double eps = a->dtype == DT_F32 ? FLT_EPSILON : DBL_EPSILON;
    double default_rtol = eps * (double)(m > n ? m : n);
    for (int64_t b = 0; b < batch; b++) {
        at[b] = vals[0] ? vals[0][b] : 0.0;
        rt[b] = vals[1] ? vals[1][b] : vals[0] && at[b] > 0 ? 0.0 : default_rtol;
    }
    free(vals[0]);
    free(vals[1]);
    *atol_out = at;
    *rtol_out = rt;
    return true;
}

/* ---------------------------------------------------------------- pinv */

/* x (rows x cols per matrix) with column j scaled by scale[j] (in x's dtype). */
static void scale_columns(Tensor *x, int64_t b, int64_t rows, int64_t cols, const Tensor *scale)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int64_t at = b * rows * cols + i * cols + j;
            double v = tensor_get_flat(x, at) * tensor_get_flat(scale, b * cols + j);
            tensor_set_flat(x, at, v);
        }
}

Tensor *tensor_linalg_pinv(const Tensor *a, const Tensor *atol, const Tensor *rtol, bool hermitian)
{
    if (!dtype_is_float(a->dtype) || a->ndim < 2) {
        char sb[TENSOR_SHAPE_BUF];
        tensor_set_error("linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, double, cfloat "
                         "or cdouble types", dtype_ts_name(a->dtype),
                         tensor_format_shape(a->ndim, a->sizes, sb, sizeof sb));
        return NULL;
    }
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
    if (tensor_numel(a) == 0)
        return lapack_batch_of(a, a->dtype, n, m);
    int64_t batch;
    if (!lapack_matrix_batch(a, "linalg.pinv", &batch, &m, &n))
        return NULL;
    double *at, *rt;
    if (!tolerances(a, atol, rtol, batch, &at, &rt))
        return NULL;
    Tensor *u = NULL, *s = NULL, *vh = NULL, *left = NULL, *right = NULL, *out = NULL;
    bool ok;
    int64_t k;
    if (!hermitian) {
        ok = svd_batch(a, 'S', "linalg.svd", &u, &s, &vh);
        k = m < n ? m : n;
        /* V @ diag(S^+) @ U^T: V's columns scaled, times U^T */
        left = ok ? tensor_matrix_transpose(vh, "mT") : NULL;
        right = ok ? tensor_matrix_transpose(u, "mT") : NULL;
    } else {
        ok = tensor_linalg_eigh(a, false, &s, &u);
        k = n;
        left = ok ? tensor_retain(u) : NULL;
        right = ok ? tensor_matrix_transpose(u, "mT") : NULL;
    }
    Tensor *lc = left ? tensor_clone(left) : NULL;
    ok = ok && lc && right;
    for (int64_t b = 0; ok && b < batch; b++) {
        /* the largest singular value, or largest |eigenvalue| */
        double smax = 0;
        for (int64_t i = 0; i < k; i++)
            smax = fmax(smax, fabs(tensor_get_flat(s, b * k + i)));
        double tol = fmax(at[b], rt[b] * smax);
        for (int64_t i = 0; i < k; i++) {
            double v = tensor_get_flat(s, b * k + i);
            double r = fabs(v) > tol ? tensor_round_f64(a->dtype, 1.0 / v) : 0.0;
            tensor_set_flat(s, b * k + i, r);
        }
        scale_columns(lc, b, n, k, s);
    }
    if (ok)
        out = tensor_matmul(lc, right);
    free(at);
    free(rt);
    tensor_release(u);
    tensor_release(s);
    tensor_release(vh);
    tensor_release(left);
    tensor_release(right);
    tensor_release(lc);
    return out;
}

/* ---------------------------------------------------------------- matrix_rank */

Tensor *tensor_linalg_matrix_rank(const Tensor *a, const Tensor *atol, const Tensor *rtol, bool hermitian)
{
    int64_t batch, m, n;
    if (a->ndim < 2) {
        tensor_set_error("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
        return NULL;
    }
    if (!lapack_matrix_batch(a, "torch.linalg.matrix_rank", &batch, &m, &n))
        return NULL;
    Tensor *out = lapack_vector_batch(a, DT_I64, 1);
    Tensor *flat = out ? tensor_squeeze_dim(out, -1) : NULL;
    tensor_release(out);
    if (!flat || tensor_numel(a) == 0)
        return flat;
    double *at, *rt;
    if (!tolerances(a, atol, rtol, batch, &at, &rt)) {
        tensor_release(flat);
        return NULL;
    }
    /* the singular values, or the absolute eigenvalues of a symmetric matrix */
    Tensor *s = hermitian ? tensor_linalg_eigvalsh(a, false) : tensor_linalg_svdvals(a);
    int64_t k = hermitian ? n : (m < n ? m : n);
    for (int64_t b = 0; s && b < batch; b++) {
        double smax = 0;
        for (int64_t i = 0; i < k; i++)
            smax = fmax(smax, fabs(tensor_get_flat(s, b * k + i)));
        double tol = fmax(at[b], rt[b] * smax);
        int64_t rank = 0;
        for (int64_t i = 0; i < k; i++)
            rank += fabs(tensor_get_flat(s, b * k + i)) > tol;
        tensor_set_flat_int(flat, b, rank);
    }
    free(at);
    free(rt);
    if (!s) {
        tensor_release(flat);
        return NULL;
    }
    tensor_release(s);
    return flat;
}

/* ---------------------------------------------------------------- cond */

/* norm(A) * norm(A^-1) for the orders 1, -1, inf, -inf, "fro" and "nuc"
 * (ord_str): a singular matrix has an inverse of infinities, and the NaN of
 * 0 * inf becomes inf (PyTorch's _linalg_cond_helper). */
static Tensor *cond_by_inverse(const Tensor *a, double ord, const char *ord_str)
{
    Tensor *inv, *info;
    if (!tensor_linalg_inv_ex(a, false, &inv, &info))
        return NULL;
    int64_t n = a->sizes[a->ndim - 1], count = tensor_numel(info);
    for (int64_t b = 0; b < count; b++)
        if (((const int32_t *)tensor_data(info))[b] > 0)
            for (int64_t i = 0; i < n * n; i++)
                tensor_set_flat(inv, b * n * n + i, INFINITY);
    int64_t dims[2] = {-2, -1};
    Tensor *na = ord_str ? tensor_linalg_matrix_norm_str(a, ord_str, dims, 2, false, -1)
                         : tensor_linalg_matrix_norm(a, ord, dims, 2, false, -1);
    Tensor *ni = na ? (ord_str ? tensor_linalg_matrix_norm_str(inv, ord_str, dims, 2, false, -1)
                               : tensor_linalg_matrix_norm(inv, ord, dims, 2, false, -1))
                    : NULL;
    Tensor *out = ni ? tensor_binary(BIN_MUL, na, ni) : NULL;
    for (int64_t i = 0; out && i < tensor_numel(out); i++)
        if (isnan(tensor_get_flat(out, i)))
            tensor_set_flat(out, i, INFINITY);
    tensor_release(inv);
    tensor_release(info);
    tensor_release(na);
    tensor_release(ni);
    return out;
}

Tensor *tensor_linalg_cond(const Tensor *a, bool has_ord, double ord, const char *ord_str)
{
    if (ord_str ? strcmp(ord_str, "fro") != 0 && strcmp(ord_str, "nuc") != 0
                : has_ord && fabs(ord) != 1 && fabs(ord) != 2 && fabs(ord) != INFINITY) {
        if (ord_str)
            tensor_set_error("linalg.cond got an invalid norm type: %s", ord_str);
        else
            tensor_set_error("linalg.cond got an invalid norm type: %g", ord);
        return NULL;
    }
    if (a->ndim < 2) {
        tensor_set_error("linalg.cond: The input tensor must have at least 2 dimensions.");
        return NULL;
    }
    int64_t m = a->sizes[a->ndim - 2], n = a->sizes[a->ndim - 1];
    bool two = !ord_str && (!has_ord || fabs(ord) == 2);
    if (!two && m != n) {
        tensor_set_error("linalg.cond: A must be batches of square matrices, but they are %" PRId64 " by %" PRId64
                         " matrices", m, n);
        return NULL;
    }
    if (!dtype_is_float(a->dtype)) {
        tensor_set_error("linalg.cond: Expected a floating point or complex tensor as input. Got %s",
                         dtype_ts_name(a->dtype));
        return NULL;
    }
    /* NumPy defines no condition number of an empty matrix: 0 */
    if (tensor_numel(a) == 0)
        return tensor_zeros(a->dtype, a->ndim - 2, a->sizes);
    if (!two && !(ord_str && strcmp(ord_str, "nuc") == 0))
        return cond_by_inverse(a, ord, ord_str);
    Tensor *s = tensor_linalg_svdvals(a);
    if (!s)
        return NULL;
    int64_t k = s->sizes[s->ndim - 1], count = tensor_numel(s) / k;
    Tensor *out = tensor_empty(a->dtype, s->ndim - 1, s->sizes);
    for (int64_t b = 0; out && b < count; b++) {
        double r;
        if (two) {
            /* singular values are descending: first / last */
            double smax = tensor_get_flat(s, b * k), smin = tensor_get_flat(s, b * k + k - 1);
            r = has_ord && ord < 0 ? smin / smax : smax / smin;
        } else {
            /* nuclear: sum(s) * sum(1 / s), each sum rounded to the dtype */
            double sum = 0, rsum = 0;
            for (int64_t i = 0; i < k; i++) {
                double v = tensor_get_flat(s, b * k + i);
                sum += v;
                rsum += tensor_round_f64(a->dtype, 1.0 / v);
            }
            r = tensor_round_f64(a->dtype, sum) * tensor_round_f64(a->dtype, rsum);
        }
        tensor_set_flat(out, b, r);
    }
    tensor_release(s);
    return out;
}
