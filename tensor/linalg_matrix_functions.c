/* linalg_matrix_functions.c — the matrix exponential (linalg.matrix_exp)
 * and the tensor inverses linalg.tensorinv and linalg.tensorsolve.
 *
 * matrix_exp uses the scaling and squaring method with the [13/13] Padé
 * approximant of N. J. Higham, "The scaling and squaring method for the
 * matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), 2005
 * (Algorithm 2.3 with m = 13): A is scaled by 2^-s so that its 1-norm is
 * at most theta_13 = 5.37, r = q(A)^-1 p(A) is formed from A^2, A^4, A^6
 * with GEMM and one LU solve (LAPACK gesv), and squared s times. PyTorch
 * uses a Taylor-based variant of the same method; both are accurate to a
 * few ulps of double precision, so they agree far inside the comparison
 * tolerances. float32 matrices are computed in double and rounded once.
 */
#include "tensor/lapack_common.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* c = a @ b for n x n row-major double buffers, through kern_gemm. */
static bool gemm_square(const double *a, const double *b, double *c, int64_t n, Tensor *ta, Tensor *tb, Tensor *tc)
{
    memcpy(tensor_data(ta), a, sizeof(double) * (size_t)(n * n));
    memcpy(tensor_data(tb), b, sizeof(double) * (size_t)(n * n));
    if (!kern_gemm(ta, tb, tc))
        return false;
    memcpy(c, tensor_data(tc), sizeof(double) * (size_t)(n * n));
    return true;
}

/* exp(a) of one n x n matrix in place (double). */
static bool expm_pade13(double *a, int64_t n)
{
    static const double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                                 1187353796428800.0,  129060195264000.0,   10559470521600.0,
                                 670442572800.0,      33522128640.0,       1323241920.0,
                                 40840800.0,          960960.0,            16380.0,
                                 182.0,               1.0};
    const double theta13 = 5.371920351148152;
    int64_t nn = n * n, sizes[2] = {n, n};
    double norm = 0;
    for (int64_t j = 0; j < n; j++) {
        double col = 0;
        for (int64_t i = 0; i < n; i++)
            col += fabs(a[i * n + j]);
        norm = col > norm || isnan(col) ? col : norm;
    }
    int s = 0;
    if (norm > theta13)
        s = (int)ceil(log2(norm / theta13));
    if (s > 0)
        for (int64_t i = 0; i < nn; i++)
            a[i] = ldexp(a[i], -s);
    double *buf = kern_malloc((size_t)(7 * nn), sizeof *buf);
    Tensor *ta = tensor_empty(DT_F64, 2, sizes), *tb = tensor_empty(DT_F64, 2, sizes), *tc = tensor_empty(DT_F64, 2, sizes);
    lapack_int *piv = kern_malloc((size_t)n, sizeof *piv);
    bool ok = buf && ta && tb && tc && piv;
    if (ok) {
        double *a2 = buf, *a4 = a2 + nn, *a6 = a4 + nn, *u = a6 + nn, *v = u + nn, *t = v + nn, *w = t + nn;
        ok = gemm_square(a, a, a2, n, ta, tb, tc) && gemm_square(a2, a2, a4, n, ta, tb, tc) &&
             gemm_square(a4, a2, a6, n, ta, tb, tc);
        if (ok) {
            /* U = A (A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I)
             * V =    A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
            for (int64_t i = 0; i < nn; i++)
                t[i] = b[13] * a6[i] + b[11] * a4[i] + b[9] * a2[i];
            ok = gemm_square(a6, t, w, n, ta, tb, tc);
            for (int64_t i = 0; ok && i < nn; i++)
                w[i] += b[7] * a6[i] + b[5] * a4[i] + b[3] * a2[i] + (i % (n + 1) == 0 ? b[1] : 0.0);
            ok = ok && gemm_square(a, w, u, n, ta, tb, tc);
            for (int64_t i = 0; ok && i < nn; i++)
                t[i] = b[12] * a6[i] + b[10] * a4[i] + b[8] * a2[i];
            ok = ok && gemm_square(a6, t, v, n, ta, tb, tc);
            for (int64_t i = 0; ok && i < nn; i++)
                v[i] += b[6] * a6[i] + b[4] * a4[i] + b[2] * a2[i] + (i % (n + 1) == 0 ? b[0] : 0.0);
        }
        if (ok) {
            /* (V - U) R = V + U */
            for (int64_t i = 0; i < nn; i++) {
                t[i] = v[i] - u[i];
                a[i] = v[i] + u[i];
            }
            lapack_int r = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)n, t, (lapack_int)n, piv, a,
                                         (lapack_int)n);
            if (r != 0) {
                tensor_set_error("linalg.matrix_exp: the Pade denominator is singular (LAPACK info %d)", (int)r);
                ok = false;
            }
        }
        for (int k = 0; ok && k < s; k++) {
            ok = gemm_square(a, a, w, n, ta, tb, tc);
            if (ok)
                memcpy(a, w, sizeof(double) * (size_t)nn);
        }
    }
    free(buf);
    free(piv);
    tensor_release(ta);
    tensor_release(tb);
    tensor_release(tc);
    return ok;
}

Tensor *tensor_linalg_matrix_exp(const Tensor *a)
{
    int64_t batch, n;
    if (!lapack_square_batch(a, "linalg.matrix_exp", &batch, &n))
        return NULL;
    if (n == 1)
        return tensor_unary(UN_EXP, a, 0, 0);
    Tensor *out = tensor_empty(a->dtype, a->ndim, a->sizes);
    double *v = out ? kern_read_all_f64(a) : NULL;
    bool ok = v != NULL;
    for (int64_t b = 0; ok && b < batch && n > 0; b++)
        ok = expm_pade13(v + b * n * n, n);
    if (ok)
        kern_write_all_f64(out, v);
    free(v);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- tensorinv, tensorsolve */

Tensor *tensor_linalg_tensorinv(const Tensor *a, int64_t ind)
{
    if (ind <= 0) {
        tensor_set_error("Expected a strictly positive integer for 'ind', but got %" PRId64, ind);
        return NULL;
    }
    if (ind > a->ndim) {
        tensor_set_error("linalg.tensorinv: ind %" PRId64 " is larger than the number of dims %d", ind, a->ndim);
        return NULL;
    }
    int64_t front = 1, back = 1;
    for (int i = 0; i < a->ndim; i++)
        *(i < ind ? &front : &back) *= a->sizes[i];
    if (front != back) {
        tensor_set_error("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                         "but got %" PRId64 " != %" PRId64, back, front);
        return NULL;
    }
    int64_t square[2] = {front, back}, result[TENSOR_MAX_DIMS];
    int nr = 0;
    for (int i = (int)ind; i < a->ndim; i++)
        result[nr++] = a->sizes[i];
    for (int i = 0; i < (int)ind; i++)
        result[nr++] = a->sizes[i];
    Tensor *m = tensor_reshape((Tensor *)a, 2, square);
    Tensor *inv = NULL, *info = NULL;
    bool ok = m && tensor_linalg_inv_ex(m, true, &inv, &info);
    Tensor *out = ok ? tensor_reshape(inv, nr, result) : NULL;
    tensor_release(m);
    tensor_release(inv);
    tensor_release(info);
    return out;
}

Tensor *tensor_linalg_tensorsolve(const Tensor *a, const Tensor *b, const int64_t *dims, int ndims)
{
    int nd = a->ndim;
    Tensor *moved = tensor_retain((Tensor *)a);
    if (dims && ndims > 0) {
        /* move dims to the end, keeping the order of the others */
        bool picked[TENSOR_MAX_DIMS] = {false};
        int64_t perm[TENSOR_MAX_DIMS];
        int k = 0;
        for (int i = 0; i < ndims; i++) {
            int d = tensor_wrap_dim(dims[i], nd);
            if (d < 0 || picked[d]) {
                if (d >= 0)
                    tensor_set_error("movedim: repeated dim in `source` (%" PRId64 ")", dims[i]);
                tensor_release(moved);
                return NULL;
            }
            picked[d] = true;
        }
        for (int i = 0; i < nd; i++)
            if (!picked[i])
                perm[k++] = i;
        for (int i = 0; i < ndims; i++)
            perm[k++] = tensor_wrap_dim(dims[i], nd);
        Tensor *p = tensor_permute(moved, nd, perm);
        tensor_release(moved);
        moved = p;
        if (!moved)
            return NULL;
    }
    if (b->ndim > nd) {
        tensor_set_error("linalg.tensorsolve: other has more dims (%d) than self (%d)", b->ndim, nd);
        tensor_release(moved);
        return NULL;
    }
    int64_t result[TENSOR_MAX_DIMS], rprod = 1, bprod = 1;
    int nr = 0;
    for (int i = b->ndim; i < nd; i++) {
        result[nr++] = moved->sizes[i];
        rprod *= moved->sizes[i];
    }
    for (int i = 0; i < b->ndim; i++)
        bprod *= b->sizes[i];
    if (rprod != bprod) {
        tensor_set_error("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                         "prod(self.shape[:other.ndim]), but got %" PRId64 " != %" PRId64, rprod, bprod);
        tensor_release(moved);
        return NULL;
    }
    int64_t square[2] = {rprod, rprod}, flat = bprod;
    Tensor *m = tensor_reshape(moved, 2, square);
    Tensor *bf = m ? tensor_reshape((Tensor *)b, 1, &flat) : NULL;
    Tensor *x = bf ? tensor_linalg_solve(m, bf) : NULL;
    Tensor *out = x ? tensor_reshape(x, nr, result) : NULL;
    tensor_release(moved);
    tensor_release(m);
    tensor_release(bf);
    tensor_release(x);
    return out;
}
