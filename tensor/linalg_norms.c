/* linalg_norms.c — linalg.vector_norm, linalg.matrix_norm, linalg.norm,
 * frobenius_norm, nuclear_norm, renorm and linalg.cond.
 *
 * These follow PyTorch's definitions in terms of other ops: a vector norm
 * is the reduction of tensor_norm (reduce.c) after PyTorch's argument
 * checks; the matrix 1- and inf-norms are a vector 1-norm over one dim and
 * a max (min for negative orders) over the other; the 2-norms and the
 * nuclear norm come from the singular values (tensor_linalg_svdvals,
 * through LAPACK's gesdd) of the matrices moved to the last two dims.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An order for messages: "2", "-1", "inf", "0.5". */
static const char *format_ord(double ord, char *buf, size_t n)
{
    if (isfinite(ord) && ord == floor(ord) && fabs(ord) < 1e15)
        snprintf(buf, n, "%" PRId64, (int64_t)ord);
    else
        snprintf(buf, n, "%g", ord);
    return buf;
}

/* PyTorch's check_linalg_norm_dtype and the cast of the input to dtype. */
static Tensor *cast_for_norm(const Tensor *a, int dtype, const char *op)
{
    if (dtype < 0)
        return tensor_retain((Tensor *)a);
    if (!dtype_is_float((TensorDType)dtype)) {
        tensor_set_error("%s: dtype should be floating point or complex, but got %s", op,
                         dtype_ts_name((TensorDType)dtype));
        return NULL;
    }
    if (dtype_is_float(a->dtype) && (int)a->dtype > dtype) {
        tensor_set_error("%s: the dtype of the input (%s) should be convertible without narrowing to the specified "
                         "dtype (%s)", op, dtype_ts_name(a->dtype), dtype_ts_name((TensorDType)dtype));
        return NULL;
    }
    return a->dtype == (TensorDType)dtype ? tensor_retain((Tensor *)a) : tensor_to_dtype(a, (TensorDType)dtype);
}

static bool check_float(const Tensor *a, const char *op)
{
    if (dtype_is_float(a->dtype))
        return true;
    tensor_set_error("%s: Expected a floating point or complex tensor as input. Got %s", op, dtype_ts_name(a->dtype));
    return false;
}

/* ---------------------------------------------------------------- vector norm */

Tensor *tensor_linalg_vector_norm(const Tensor *x, double ord, const int64_t *dims, int ndims, bool has_dims,
                                  bool keepdim, int dtype)
{
    if (!check_float(x, "linalg.vector_norm"))
        return NULL;
    if (tensor_numel(x) == 0 && (ord < 0 || ord == INFINITY)) {
        char ob[32];
        if (!has_dims || ndims == 0) {
            tensor_set_error("linalg.vector_norm cannot compute the %s norm on an empty tensor because the operation "
                             "does not have an identity", format_ord(ord, ob, sizeof ob));
            return NULL;
        }
        for (int i = 0; i < ndims; i++) {
            int d = tensor_wrap_dim(dims[i], x->ndim);
            if (d < 0)
                return NULL;
            if (x->sizes[d] == 0) {
                tensor_set_error("linalg.vector_norm cannot compute the %s norm on the dimension %" PRId64
                                 "because this dimension is empty and the operation does not have an identity",
                                 format_ord(ord, ob, sizeof ob), dims[i]);
                return NULL;
            }
        }
    }
    Tensor *xc = cast_for_norm(x, dtype, "linalg.vector_norm");
    Tensor *out = xc ? tensor_norm(xc, ord, has_dims ? dims : NULL, has_dims ? ndims : 0, keepdim) : NULL;
    tensor_release(xc);
    return out;
}

/* ---------------------------------------------------------------- matrix norms */

/* Wraps the two dims of a matrix norm; PyTorch's checks and messages. */
static bool matrix_norm_checks(const Tensor *a, const int64_t *dims, int ndims, int dtype, int wrapped[2])
{
    if (a->ndim < 2) {
        tensor_set_error("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
        return false;
    }
    if (!check_float(a, "linalg.matrix_norm"))
        return false;
    if (ndims != 2) {
        char buf[TENSOR_SHAPE_BUF];
        tensor_set_error("linalg.matrix_norm: dim must be a 2-tuple. Got %s",
                         tensor_format_shape(ndims, dims, buf, sizeof buf));
        return false;
    }
    for (int i = 0; i < 2; i++)
        if ((wrapped[i] = tensor_wrap_dim(dims[i], a->ndim)) < 0)
            return false;
    if (wrapped[0] == wrapped[1]) {
        tensor_set_error("linalg.matrix_norm: dims must be different. Got (%d, %d)", wrapped[0], wrapped[1]);
        return false;
    }
    if (dtype >= 0 && !dtype_is_float((TensorDType)dtype)) {
        tensor_set_error("linalg.matrix_norm: dtype should be floating point or complex, but got %s",
                         dtype_ts_name((TensorDType)dtype));
        return false;
    }
    return true;
}

/* The singular values of a's matrices in dims (d0, d1) (moved to the end,
 * as PyTorch's create_dim_backshift_permutation does), reduced by `reduce`
 * ('M' max, 'm' min, 's' sum) over the last dim, the two dims kept as size 1
 * when keepdim. */
static Tensor *singular_value_norm(const Tensor *a, const int dims[2], bool keepdim, int dtype, char reduce)
{
    int64_t perm[TENSOR_MAX_DIMS], inverse[TENSOR_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < a->ndim; i++)
        if (i != dims[0] && i != dims[1])
            perm[k++] = i;
    perm[k++] = dims[0];
    perm[k++] = dims[1];
    for (int i = 0; i < a->ndim; i++)
        inverse[perm[i]] = i;
    Tensor *ac = cast_for_norm(a, dtype, "linalg.matrix_norm");
    Tensor *moved = ac ? tensor_permute(ac, a->ndim, perm) : NULL;
    Tensor *s = moved ? tensor_linalg_svdvals(moved) : NULL;
    int64_t last = -1;
    Tensor *r = NULL;
    if (s)
        r = reduce == 's' ? tensor_sum(s, &last, 1, keepdim, -1)
            : reduce == 'M' ? tensor_amax(s, &last, 1, keepdim) : tensor_amin(s, &last, 1, keepdim);
    Tensor *out = r;
    if (r && keepdim) {
        Tensor *u = tensor_unsqueeze(r, -1);
        out = u ? tensor_permute(u, a->ndim, inverse) : NULL;
        tensor_release(u);
        tensor_release(r);
    }
    tensor_release(ac);
    tensor_release(moved);
    tensor_release(s);
    return out;
}

Tensor *tensor_linalg_matrix_norm(const Tensor *a, double ord, const int64_t *dims, int ndims, bool keepdim,
                                  int dtype)
{
    double abs_ord = fabs(ord);
    if (abs_ord != 2 && abs_ord != 1 && abs_ord != INFINITY) {
        char ob[32];
        tensor_set_error("linalg.matrix_norm: Order %s not supported.", format_ord(ord, ob, sizeof ob));
        return NULL;
    }
    int d[2];
    if (!matrix_norm_checks(a, dims, ndims, dtype, d))
        return NULL;
    if (abs_ord == 2)
        return singular_value_norm(a, d, keepdim, dtype, ord > 0 ? 'M' : 'm');
    /* The inf norm is the 1 norm of the transpose. */
    if (abs_ord == INFINITY) {
        int t = d[0];
        d[0] = d[1];
        d[1] = t;
    }
    int64_t first = d[0], second = !keepdim && d[0] < d[1] ? d[1] - 1 : d[1];
    Tensor *col = tensor_linalg_vector_norm(a, 1.0, &first, 1, true, keepdim, dtype);
    Tensor *out = NULL;
    if (col)
        out = ord > 0 ? tensor_amax(col, &second, 1, keepdim) : tensor_amin(col, &second, 1, keepdim);
    tensor_release(col);
    return out;
}

Tensor *tensor_linalg_matrix_norm_str(const Tensor *a, const char *ord, const int64_t *dims, int ndims,
                                      bool keepdim, int dtype)
{
    if (strcmp(ord, "fro") != 0 && strcmp(ord, "nuc") != 0) {
        tensor_set_error("linalg.matrix_norm: Order %s not supported.", ord);
        return NULL;
    }
    int d[2];
    if (!matrix_norm_checks(a, dims, ndims, dtype, d))
        return NULL;
    if (ord[0] == 'f')
        return tensor_linalg_vector_norm(a, 2.0, dims, 2, true, keepdim, dtype);
    return singular_value_norm(a, d, keepdim, dtype, 's');
}

Tensor *tensor_linalg_norm(const Tensor *x, bool has_ord, double ord, const char *ord_str, const int64_t *dims,
                           int ndims, bool has_dims, bool keepdim, int dtype)
{
    if (has_dims && ndims != 1 && ndims != 2) {
        char buf[TENSOR_SHAPE_BUF];
        tensor_set_error("linalg.norm: If dim is specified, it must be of length 1 or 2. Got %s",
                         tensor_format_shape(ndims, dims, buf, sizeof buf));
        return NULL;
    }
    if (!has_dims && (has_ord || ord_str) && x->ndim != 1 && x->ndim != 2) {
        tensor_set_error("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.",
                         x->ndim);
        return NULL;
    }
    int64_t all[2] = {0, 1};
    if (ord_str)
        return tensor_linalg_matrix_norm_str(x, ord_str, has_dims ? dims : all, has_dims ? ndims : 2, keepdim, dtype);
    if (has_ord && ((has_dims && ndims == 2) || (!has_dims && x->ndim == 2)))
        return tensor_linalg_matrix_norm(x, ord, has_dims ? dims : all, 2, keepdim, dtype);
    return tensor_linalg_vector_norm(x, has_ord ? ord : 2.0, dims, ndims, has_dims, keepdim, dtype);
}

/* ---------------------------------------------------------------- frobenius, nuclear */

Tensor *tensor_frobenius_norm(const Tensor *x, const int64_t *dims, int ndims, bool keepdim)
{
    if (ndims > 2) {
        tensor_set_error("Expected at most 2 dimensions, but got %d dimensions instead.", ndims);
        return NULL;
    }
    if (!dtype_is_float(x->dtype)) {
        tensor_set_error("frobenius_norm: expected a floating point input, got %s", dtype_ts_name(x->dtype));
        return NULL;
    }
    if (ndims == 2) {
        int d0 = tensor_wrap_dim(dims[0], x->ndim), d1 = d0 < 0 ? -1 : tensor_wrap_dim(dims[1], x->ndim);
        if (d0 < 0 || d1 < 0)
            return NULL;
        if (d0 == d1) {
            tensor_set_error("Expected dims to be different, got [%" PRId64 ", %" PRId64 "] instead", dims[0],
                             dims[1]);
            return NULL;
        }
    }
    return tensor_norm(x, 2.0, ndims ? dims : NULL, ndims, keepdim);
}

Tensor *tensor_nuclear_norm(const Tensor *x, const int64_t *dims, int ndims, bool keepdim)
{
    int64_t all[2] = {0, 1};
    if (!dims) {
        if (x->ndim != 2) {
            tensor_set_error("Expected a tensor with 2 dimensions, but got a tensor with %d dimension%s instead.",
                             x->ndim, x->ndim == 1 ? "" : "s");
            return NULL;
        }
        dims = all;
        ndims = 2;
    }
    if (!dtype_is_float(x->dtype)) {
        tensor_set_error("linalg.svd: Expected a floating point or complex tensor as input. Got %s",
                         dtype_ts_name(x->dtype));
        return NULL;
    }
    return tensor_linalg_matrix_norm_str(x, "nuc", dims, ndims, keepdim, -1);
}

/* ---------------------------------------------------------------- renorm */

Tensor *tensor_renorm(const Tensor *x, double p, int64_t dim, double maxnorm)
{
    if (p <= 0) {
        tensor_set_error("renorm: non-positive-norm not supported");
        return NULL;
    }
    if (maxnorm < 0) {
        tensor_set_error("renorm: expected maxnorm to be >= 0 but got %g", maxnorm);
        return NULL;
    }
    if (x->ndim < 2) {
        tensor_set_error("renorm: input needs at least 2 dimensions, got %d dimensions", x->ndim);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, x->ndim);
    if (d < 0)
        return NULL;
    int64_t others[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < x->ndim; i++)
        if (i != d)
            others[n++] = i;
    Tensor *norm = tensor_linalg_vector_norm(x, p, others, n, true, true, -1);
    if (!norm)
        return NULL;
    /* factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1 */
    Tensor *factor = tensor_empty(norm->dtype, norm->ndim, norm->sizes);
    double *v = factor ? kern_read_all_f64(norm) : NULL;
    Tensor *out = NULL;
    if (v) {
        int64_t count = tensor_numel(norm);
        for (int64_t i = 0; i < count; i++) {
            double nv = v[i];
            if (norm->dtype == DT_F32)
                v[i] = nv > (float)maxnorm ? (double)((float)maxnorm / ((float)nv + 1e-7f)) : 1.0;
            else
                v[i] = nv > maxnorm ? maxnorm / (nv + 1e-7) : 1.0;
        }
        kern_write_all_f64(factor, v);
        out = tensor_binary(BIN_MUL, x, factor);
    }
    free(v);
    tensor_release(norm);
    tensor_release(factor);
    return out;
}
