/* distance.c — distances and similarities between tensors with PyTorch's
 * (1.13, CPU) semantics: cosine_similarity, pairwise_distance, pdist, cdist
 * and dist. The embedding losses of loss.c are built on the first two.
 *
 * pairwise_distance composes ATen's ops (norm of x1 - x2 + eps), so its
 * dtypes and messages are those of the ops involved; the others have a
 * kernel of their own in ATen, and here evaluate its formula per element in
 * double, rounding once to the result dtype.
 */
#include "tensor/scratch.h"
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- distances */

Tensor *tensor_cosine_similarity(const Tensor *x1, const Tensor *x2, int64_t dim, double eps)
{
    const Tensor *ins[2] = {x1, x2};
    TensorDType dt = tensor_result_type(ins, 2);
    if (!dtype_is_float(dt)) {
        tensor_set_error("expected common dtype to be floating point, yet common dtype is %s", dtype_ts_name(dt));
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = tensor_broadcast_shape(x1->ndim, x1->sizes, x2->ndim, x2->sizes, shape);
    if (nd < 0)
        return NULL;
    int d = tensor_wrap_dim(dim, nd > 0 ? nd : 1);
    if (d < 0)
        return NULL;
    /* sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim, each
     * norm clamped on its own as ATen does. */
    Scratch s = {0};
    Tensor *a = scratch_keep(&s, tensor_expand((Tensor *)x1, nd, shape));
    Tensor *b = a ? scratch_keep(&s, tensor_expand((Tensor *)x2, nd, shape)) : NULL;
    Tensor *al = b ? scratch_keep(&s, kern_dim_last_view(a, nd > 0 ? d : 0)) : NULL;
    Tensor *bl = al ? scratch_keep(&s, kern_dim_last_view(b, nd > 0 ? d : 0)) : NULL;
    if (!bl)
        return scratch_finish(&s, NULL);
    int64_t len = nd > 0 ? shape[d] : 1;
    int64_t out_shape[TENSOR_MAX_DIMS];
    int on = 0;
    for (int k = 0; k < nd; k++)
        if (k != d)
            out_shape[on++] = shape[k];
    Tensor *out = scratch_keep(&s, tensor_empty(dt, on, out_shape));
    double *va = kern_read_all_f64(al), *vb = kern_read_all_f64(bl);
    int64_t rows = len > 0 ? tensor_numel(al) / len : tensor_numel(out);
    double *r = kern_malloc((size_t)rows, sizeof *r);
    if (out && va && vb && r) {
        for (int64_t i = 0; i < rows; i++) {
            double dot = 0, n1 = 0, n2 = 0;
            for (int64_t j = 0; j < len; j++) {
                double p = va[i * len + j], q = vb[i * len + j];
                dot += p * q;
                n1 += p * p;
                n2 += q * q;
            }
            r[i] = dot / (fmax(sqrt(n1), eps) * fmax(sqrt(n2), eps));
        }
        kern_write_all_f64(out, r);
    } else {
        out = NULL;
    }
    free(va);
    free(vb);
    free(r);
    return scratch_finish(&s, out);
}

Tensor *tensor_pairwise_distance(const Tensor *x1, const Tensor *x2, double p, double eps, bool keepdim)
{
    /* ATen: norm(x1 - x2 + eps, p, last dim of the broadcast, keepdim) */
    int output_dim = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
    int64_t innermost = output_dim - 1;
    Scratch s = {0};
    Tensor *d = scratch_keep(&s, tensor_sub(x1, x2, 1.0));
    Tensor *shifted = d ? scratch_keep(&s, tensor_add(d, scratch_number(&s, eps), 1.0)) : NULL;
    Tensor *r = shifted ? scratch_keep(&s, tensor_norm(shifted, p, &innermost, 1, keepdim)) : NULL;
    return scratch_finish(&s, r);
}

/* The p-norm of the difference of two rows of length m. */
static double row_distance(const double *a, const double *b, int64_t m, double p)
{
    if (p == 0) {
        double c = 0;
        for (int64_t k = 0; k < m; k++)
            c += a[k] != b[k];
        return c;
    }
    if (isinf(p)) {
        double mx = 0;
        for (int64_t k = 0; k < m; k++) {
            double v = fabs(a[k] - b[k]);
            if (v > mx || isnan(v))
                mx = v;
        }
        return mx;
    }
    double sum = 0;
    for (int64_t k = 0; k < m; k++) {
        double v = fabs(a[k] - b[k]);
        sum += p == 1 ? v : p == 2 ? v * v : pow(v, p);
    }
    return p == 1 ? sum : p == 2 ? sqrt(sum) : pow(sum, 1.0 / p);
}

Tensor *tensor_pdist(const Tensor *x, double p)
{
    if (x->ndim != 2) {
        tensor_set_error("pdist only supports 2D tensors, got: %dD", x->ndim);
        return NULL;
    }
    if (!dtype_is_float(x->dtype)) {
        tensor_set_error("pdist only supports floating-point dtypes");
        return NULL;
    }
    if (!(p >= 0)) {
        tensor_set_error("pdist only supports non-negative p values");
        return NULL;
    }
    int64_t n = x->sizes[0], m = x->sizes[1];
    int64_t count = n > 1 ? n * (n - 1) / 2 : 0;
    Tensor *out = tensor_empty(x->dtype, 1, &count);
    double *v = kern_read_all_f64(x);
    double *r = kern_malloc((size_t)count, sizeof *r);
    if (!out || !v || !r) {
        tensor_release(out);
        free(v);
        free(r);
        return NULL;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++)
            r[k++] = row_distance(v + i * m, v + j * m, m, p);
    kern_write_all_f64(out, r);
    free(v);
    free(r);
    return out;
}

Tensor *tensor_cdist(const Tensor *x1, const Tensor *x2, double p, int64_t compute_mode)
{
    if (!dtype_is_float(x1->dtype) || !dtype_is_float(x2->dtype)) {
        const Tensor *bad = dtype_is_float(x1->dtype) ? x2 : x1;
        tensor_set_error("cdist only supports floating-point dtypes, %s got: %s", bad == x1 ? "X1" : "X2",
                         dtype_ts_name(bad->dtype));
        return NULL;
    }
    if (x1->ndim < 2 || x2->ndim < 2) {
        const Tensor *bad = x1->ndim < 2 ? x1 : x2;
        tensor_set_error("cdist only supports at least 2D tensors, %s got: %dD", bad == x1 ? "X1" : "X2",
                         bad->ndim);
        return NULL;
    }
    int64_t m = x1->sizes[x1->ndim - 1];
    if (m != x2->sizes[x2->ndim - 1]) {
        tensor_set_error("X1 and X2 must have the same number of columns. X1: %" PRId64 " X2: %" PRId64, m,
                         x2->sizes[x2->ndim - 1]);
        return NULL;
    }
    if (!(p >= 0)) {
        tensor_set_error("cdist only supports non-negative p values");
        return NULL;
    }
    if (compute_mode < -1 || compute_mode > 2) {
        tensor_set_error("%" PRId64 " is not a valid value for compute_mode", compute_mode);
        return NULL;
    }
    if (x1->dtype != x2->dtype) {
        tensor_set_error("X1 and X2 must have the same dtype, but got %s and %s", dtype_ts_name(x1->dtype),
                         dtype_ts_name(x2->dtype));
        return NULL;
    }
    int64_t P = x1->sizes[x1->ndim - 2], R = x2->sizes[x2->ndim - 2];
    int64_t batch_shape[TENSOR_MAX_DIMS];
    int nb = tensor_broadcast_shape(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, batch_shape);
    if (nb < 0)
        return NULL;
    int64_t shape1[TENSOR_MAX_DIMS], shape2[TENSOR_MAX_DIMS], out_shape[TENSOR_MAX_DIMS];
    memcpy(shape1, batch_shape, sizeof(int64_t) * (size_t)nb);
    memcpy(shape2, batch_shape, sizeof(int64_t) * (size_t)nb);
    memcpy(out_shape, batch_shape, sizeof(int64_t) * (size_t)nb);
    shape1[nb] = P;
    shape1[nb + 1] = m;
    shape2[nb] = R;
    shape2[nb + 1] = m;
    out_shape[nb] = P;
    out_shape[nb + 1] = R;
    /* p = 2 through |a|^2 + |b|^2 - 2 a.b (ATen's _euclidean_dist, clamped
     * at 1e-30 before the root) when compute_mode asks for it. */
    bool use_mm = p == 2 && (compute_mode == 1 || (compute_mode <= 0 && (P > 25 || R > 25)));
    Scratch s = {0};
    Tensor *a = scratch_keep(&s, tensor_expand((Tensor *)x1, nb + 2, shape1));
    Tensor *b = a ? scratch_keep(&s, tensor_expand((Tensor *)x2, nb + 2, shape2)) : NULL;
    Tensor *out = b ? scratch_keep(&s, tensor_empty(x1->dtype, nb + 2, out_shape)) : NULL;
    if (!out)
        return scratch_finish(&s, NULL);
    int64_t batches = 1;
    for (int d = 0; d < nb; d++)
        batches *= batch_shape[d];
    double *va = kern_read_all_f64(a), *vb = kern_read_all_f64(b);
    double *r = kern_malloc((size_t)(batches * P * R), sizeof *r);
    if (!va || !vb || !r) {
        out = NULL;
    } else {
        for (int64_t bi = 0; bi < batches; bi++)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) {
                    const double *ra = va + (bi * P + i) * m, *rb = vb + (bi * R + j) * m;
                    double d;
                    if (use_mm) {
                        double na = 0, nbb = 0, dot = 0;
                        for (int64_t k = 0; k < m; k++) {
                            na += ra[k] * ra[k];
                            nbb += rb[k] * rb[k];
                            dot += ra[k] * rb[k];
                        }
                        d = sqrt(fmax(na + nbb - 2 * dot, 1e-30));
                    } else {
                        d = row_distance(ra, rb, m, p);
                    }
                    r[(bi * P + i) * R + j] = d;
                }
        kern_write_all_f64(out, r);
    }
    free(va);
    free(vb);
    free(r);
    return scratch_finish(&s, out);
}

Tensor *tensor_dist(const Tensor *a, const Tensor *b, double p)
{
    /* ATen: norm(a - b, p) */
    Tensor *d = tensor_sub(a, b, 1.0);
    if (!d)
        return NULL;
    Tensor *r = tensor_norm(d, p, NULL, 0, false);
    tensor_release(d);
    return r;
}
