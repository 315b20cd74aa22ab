/* linalg_products.c — products built on the GEMM kernels of linalg.c:
 * mv, addmv, addr, baddbmm, addbmm, inner, vdot, linalg.vecdot, kron,
 * tensordot, cross, block_diag, linalg.multi_dot, linalg.matrix_power,
 * linalg.vander, trace, the matrix transposes mT / mH / H, and bilinear
 * (x1 . W . x2 per output feature).
 *
 * Where PyTorch defines an op as a composition of other ops (inner is a
 * tensordot, tensordot a permute + reshape + mm, kron a broadcast multiply
 * of two reshaped views, vander a cumprod), the kernel here is the same
 * composition of our kernels, so dtypes, promotion and rounding follow
 * PyTorch's without being restated. The "add" family (addmv, addr,
 * baddbmm, addbmm) computes the product with kern_gemm in the operands'
 * dtype and then beta * self + alpha * product, ignoring self when beta is
 * zero (its NaNs too), as BLAS does.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- transposes */

Tensor *tensor_matrix_transpose(Tensor *t, const char *attr)
{
    /* a 0-d tensor is its own transpose (PyTorch returns an alias) */
    if (t->ndim == 0)
        return tensor_alias(t);
    if (strcmp(attr, "H") == 0) {
        if (t->ndim != 2) {
            tensor_set_error("tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor.%s", t->ndim,
                             t->ndim > 2 ? " For batches of matrices, consider using tensor.mH" : "");
            return NULL;
        }
        return tensor_transpose(t, 0, 1);
    }
    if (t->ndim < 2) {
        tensor_set_error("tensor.%s is only supported on matrices or batches of matrices. Got %d-D tensor.", attr,
                         t->ndim);
        return NULL;
    }
    return tensor_transpose(t, -2, -1);
}

/* ---------------------------------------------------------------- helpers */

static bool same_dtype(const Tensor *a, const Tensor *b)
{
    if (a->dtype == b->dtype)
        return true;
    tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
    return false;
}

/* prod = beta * self + alpha * prod, self broadcast to prod's shape (prod is
 * fresh and contiguous). Integer results use the scalars truncated to
 * integers, as PyTorch's Scalar::to<int64_t> does. */
static bool combine_scaled(const Tensor *self, Tensor *prod, double beta, double alpha)
{
    Tensor *se = kern_expand_view(self, prod->ndim, prod->sizes);
    if (!se)
        return false;
    int64_t n = tensor_numel(prod);
    bool ok;
    if (dtype_is_float(prod->dtype)) {
        double *p = kern_read_all_f64(prod), *s = kern_read_all_f64(se);
        ok = p && s;
        for (int64_t i = 0; ok && i < n; i++)
            p[i] = beta == 0.0 ? alpha * p[i] : beta * s[i] + alpha * p[i];
        if (ok)
            kern_write_all_f64(prod, p);
        free(p);
        free(s);
    } else {
        int64_t *p = kern_read_all_i64(prod), *s = kern_read_all_i64(se);
        uint64_t ib = (uint64_t)tensor_double_to_int(beta, DT_I64);
        uint64_t ia = (uint64_t)tensor_double_to_int(alpha, DT_I64);
        ok = p && s;
        for (int64_t i = 0; ok && i < n; i++)
            p[i] = (int64_t)((ib ? ib * (uint64_t)s[i] : 0) + ia * (uint64_t)p[i]);
        if (ok)
            kern_write_all_i64(prod, p);
        free(p);
        free(s);
    }
    tensor_release(se);
    return ok;
}

/* A 2-d view (rows, cols) of t at offset with the given strides. */
static Tensor *matrix_view(const Tensor *t, int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t offset)
{
    int64_t sizes[2] = {rows, cols}, strides[2] = {rs, cs};
    return tensor_make_view(t, 2, sizes, strides, offset);
}

/* ---------------------------------------------------------------- trace */

Tensor *tensor_trace(const Tensor *t)
{
    if (t->ndim != 2) {
        tensor_set_error("trace: expected a matrix, but got tensor with dim %d", t->ndim);
        return NULL;
    }
    if (t->dtype == DT_BOOL) {
        tensor_set_error("\"trace\" not implemented for 'Bool'");
        return NULL;
    }
    Tensor *d = tensor_diagonal((Tensor *)t, 0, 0, 1);
    Tensor *out = d ? tensor_sum(d, NULL, 0, false, -1) : NULL;
    tensor_release(d);
    return out;
}

/* ---------------------------------------------------------------- mv, addmv */

static Tensor *matrix_vector(const Tensor *self, const Tensor *mat, const Tensor *vec, double beta, double alpha)
{
    int self_dim = self ? self->ndim : 1;
    if (mat->ndim != 2 || vec->ndim != 1 || self_dim > 1) {
        tensor_set_error("vector + matrix @ vector expected, got %d, %d, %d", self_dim, mat->ndim, vec->ndim);
        return NULL;
    }
    int64_t m = mat->sizes[0];
    if (mat->sizes[1] != vec->sizes[0] || (self && tensor_numel(self) != m && tensor_numel(self) != 1)) {
        tensor_set_error("size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64,
                         self && self->ndim ? self->sizes[0] : m, m, mat->sizes[1], vec->sizes[0]);
        return NULL;
    }
    if (!same_dtype(mat, vec))
        return NULL;
    if (mat->dtype == DT_BOOL) {
        tensor_set_error("\"addmv_impl_cpu\" not implemented for 'Bool'");
        return NULL;
    }
    Tensor *out = tensor_empty(mat->dtype, 1, &m);
    Tensor *col = matrix_view(vec, vec->sizes[0], 1, vec->strides[0], 0, vec->offset);
    Tensor *out2 = out ? matrix_view(out, m, 1, 1, 0, 0) : NULL;
    bool ok = col && out2 && kern_gemm(mat, col, out2);
    tensor_release(col);
    tensor_release(out2);
    if (ok && self)
        ok = combine_scaled(self, out, beta, alpha);
    else if (ok && alpha != 1.0)
        ok = combine_scaled(out, out, 0.0, alpha);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_mv(const Tensor *mat, const Tensor *vec)
{
    return matrix_vector(NULL, mat, vec, 0.0, 1.0);
}

Tensor *tensor_addmv(const Tensor *self, const Tensor *mat, const Tensor *vec, double beta, double alpha)
{
    return matrix_vector(self, mat, vec, beta, alpha);
}

/* ---------------------------------------------------------------- addr */

static bool check_addr_scalar(TensorDType dt, LinalgScalar s, const char *name)
{
    if (s.kind == 'b' && dt != DT_BOOL) {
        tensor_set_error("Boolean %s only supported for Boolean results.", name);
        return false;
    }
    if (!dtype_is_float(dt) && s.kind == 'f') {
        tensor_set_error("For integral input tensors, argument %s must not be a floating point number.", name);
        return false;
    }
    return true;
}

Tensor *tensor_addr(const Tensor *self, const Tensor *v1, const Tensor *v2, LinalgScalar beta, LinalgScalar alpha)
{
    if (v1->ndim != 1 || v2->ndim != 1) {
        tensor_set_error("addr: Expected 1-D argument %s, but got %d-D", v1->ndim != 1 ? "vec1" : "vec2",
                         v1->ndim != 1 ? v1->ndim : v2->ndim);
        return NULL;
    }
    const Tensor *all[3] = {self, v1, v2};
    TensorDType dt = tensor_result_type(all, 3);
    if (!check_addr_scalar(dt, beta, "beta") || !check_addr_scalar(dt, alpha, "alpha"))
        return NULL;
    int64_t sizes[2] = {v1->sizes[0], v2->sizes[0]};
    Tensor *se = kern_expand_view(self, 2, sizes);
    Tensor *a = se ? matrix_view(v1, sizes[0], sizes[1], v1->strides[0], 0, v1->offset) : NULL;
    Tensor *b = a ? matrix_view(v2, sizes[0], sizes[1], 0, v2->strides[0], v2->offset) : NULL;
    Tensor *out = b ? tensor_empty(dt, 2, sizes) : NULL;
    int64_t n = sizes[0] * sizes[1];
    bool ok = out != NULL;
    if (ok && dt == DT_BOOL) {
        int64_t *s = kern_read_all_i64(se), *x = kern_read_all_i64(a), *y = kern_read_all_i64(b);
        ok = s && x && y;
        bool bb = beta.value != 0, ba = alpha.value != 0;
        for (int64_t i = 0; ok && i < n; i++)
            s[i] = (bb && s[i]) || (ba && x[i] && y[i]);
        if (ok)
            kern_write_all_i64(out, s);
        free(s);
        free(x);
        free(y);
    } else if (ok && dtype_is_float(dt)) {
        double *s = kern_read_all_f64(se), *x = kern_read_all_f64(a), *y = kern_read_all_f64(b);
        ok = s && x && y;
        for (int64_t i = 0; ok && i < n; i++) {
            double prod = tensor_round_f64(dt, alpha.value * x[i] * y[i]);
            s[i] = beta.value == 0.0 ? prod : beta.value * s[i] + prod;
        }
        if (ok)
            kern_write_all_f64(out, s);
        free(s);
        free(x);
        free(y);
    } else if (ok) {
        int64_t *s = kern_read_all_i64(se), *x = kern_read_all_i64(a), *y = kern_read_all_i64(b);
        uint64_t ib = (uint64_t)tensor_double_to_int(beta.value, DT_I64);
        uint64_t ia = (uint64_t)tensor_double_to_int(alpha.value, DT_I64);
        ok = s && x && y;
        for (int64_t i = 0; ok && i < n; i++)
            s[i] = (int64_t)((ib ? ib * (uint64_t)s[i] : 0) + ia * (uint64_t)x[i] * (uint64_t)y[i]);
        if (ok)
            kern_write_all_i64(out, s);
        free(s);
        free(x);
        free(y);
    }
    tensor_release(se);
    tensor_release(a);
    tensor_release(b);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- baddbmm, addbmm */

/* baddbmm casts self to the batches' dtype; addbmm requires it to match
 * (self_must_match). */
static bool check_batches(const Tensor *self, const Tensor *b1, const Tensor *b2, const char *op,
                          bool self_must_match)
{
    if (b1->ndim != 3 || b2->ndim != 3) {
        tensor_set_error("batch%d must be a 3D tensor", b1->ndim != 3 ? 1 : 2);
        return false;
    }
    if (b2->sizes[0] != b1->sizes[0] || b2->sizes[1] != b1->sizes[2]) {
        tensor_set_error("Expected size for first two dimensions of batch2 tensor to be: [%" PRId64 ", %" PRId64
                         "] but got: [%" PRId64 ", %" PRId64 "].", b1->sizes[0], b1->sizes[2], b2->sizes[0],
                         b2->sizes[1]);
        return false;
    }
    if (!same_dtype(b1, b2))
        return false;
    if (self_must_match && self->dtype != b1->dtype) {
        tensor_set_error("self and mat2 must have the same dtype");
        return false;
    }
    if (b1->dtype == DT_BOOL) {
        tensor_set_error("\"%s\" not implemented for 'Bool'", op);
        return false;
    }
    return true;
}

Tensor *tensor_baddbmm(const Tensor *self, const Tensor *b1, const Tensor *b2, double beta, double alpha)
{
    if (!check_batches(self, b1, b2, "baddbmm", false))
        return NULL;
    Tensor *prod = tensor_bmm(b1, b2);
    if (prod && !combine_scaled(self, prod, beta, alpha)) {
        tensor_release(prod);
        return NULL;
    }
    return prod;
}

Tensor *tensor_addbmm(const Tensor *self, const Tensor *b1, const Tensor *b2, double beta, double alpha)
{
    if (!check_batches(self, b1, b2, "addbmm", true))
        return NULL;
    Tensor *prod = tensor_bmm(b1, b2);
    int64_t zero = 0;
    Tensor *sum = prod ? tensor_sum(prod, &zero, 1, false, (int)b1->dtype) : NULL;
    tensor_release(prod);
    if (sum && !combine_scaled(self, sum, beta, alpha)) {
        tensor_release(sum);
        return NULL;
    }
    return sum;
}

/* ---------------------------------------------------------------- tensordot, inner, vdot, vecdot */

Tensor *tensor_tensordot(const Tensor *a, const Tensor *b, int ndims, const int64_t *dims_a, const int64_t *dims_b)
{
    bool in_a[TENSOR_MAX_DIMS] = {false}, in_b[TENSOR_MAX_DIMS] = {false};
    int da[TENSOR_MAX_DIMS], db[TENSOR_MAX_DIMS];
    Tensor *ta = tensor_retain((Tensor *)a), *tb = tensor_retain((Tensor *)b);
    int64_t csize = 1;
    for (int i = 0; i < ndims; i++) {
        int x = tensor_wrap_dim(dims_a[i], a->ndim), y = x < 0 ? -1 : tensor_wrap_dim(dims_b[i], b->ndim);
        if (x < 0 || y < 0)
            goto fail;
        if (in_a[x] || in_b[y]) {
            tensor_set_error("dim %d appears multiple times in the list of dims", in_a[x] ? x : y);
            goto fail;
        }
        in_a[x] = in_b[y] = true;
        da[i] = x, db[i] = y;
        int64_t s1 = a->sizes[x], s2 = b->sizes[y];
        /* A size-1 dim against any size is summed away on the other side first. */
        Tensor **side = s2 == 1 ? &ta : s1 == 1 ? &tb : NULL;
        if (side) {
            int64_t d = s2 == 1 ? x : y;
            Tensor *summed = tensor_sum(*side, &d, 1, true, -1);
            tensor_release(*side);
            *side = summed;
            if (!summed)
                goto fail;
        } else if (s1 != s2) {
            tensor_set_error("contracted dimensions need to match, but first has size %" PRId64 " in dim %d and second "
                             "has size %" PRId64 " in dim %d", s1, x, s2, y);
            goto fail;
        } else {
            csize *= s1;
        }
    }
    {
        int64_t perm_a[TENSOR_MAX_DIMS], perm_b[TENSOR_MAX_DIMS], rsizes[TENSOR_MAX_DIMS];
        int na = 0, nb = 0, nr = 0;
        int64_t size1 = 1, size2 = 1;
        for (int i = 0; i < a->ndim; i++)
            if (!in_a[i]) {
                perm_a[na++] = i;
                rsizes[nr++] = a->sizes[i];
                size1 *= a->sizes[i];
            }
        for (int i = 0; i < ndims; i++)
            perm_a[na++] = da[i];
        for (int i = 0; i < ndims; i++)
            perm_b[nb++] = db[i];
        for (int i = 0; i < b->ndim; i++)
            if (!in_b[i]) {
                perm_b[nb++] = i;
                rsizes[nr++] = b->sizes[i];
                size2 *= b->sizes[i];
            }
        int64_t s_a[2] = {size1, csize}, s_b[2] = {csize, size2};
        Tensor *pa = tensor_permute(ta, a->ndim, perm_a);
        Tensor *pb = tensor_permute(tb, b->ndim, perm_b);
        Tensor *ra = pa ? tensor_reshape(pa, 2, s_a) : NULL;
        Tensor *rb = pb ? tensor_reshape(pb, 2, s_b) : NULL;
        Tensor *mm = ra && rb ? tensor_mm(ra, rb) : NULL;
        Tensor *out = mm ? tensor_reshape(mm, nr, rsizes) : NULL;
        tensor_release(pa);
        tensor_release(pb);
        tensor_release(ra);
        tensor_release(rb);
        tensor_release(mm);
        tensor_release(ta);
        tensor_release(tb);
        return out;
    }
fail:
    tensor_release(ta);
    tensor_release(tb);
    return NULL;
}

Tensor *tensor_inner(const Tensor *a, const Tensor *b)
{
    if (a->ndim == 0 || b->ndim == 0)
        return tensor_binary(BIN_MUL, a, b);
    if (a->sizes[a->ndim - 1] != b->sizes[b->ndim - 1]) {
        char sa[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF];
        tensor_set_error("inner() the last dimension must match on both input tensors but got shapes %s and %s",
                         tensor_format_shape(a->ndim, a->sizes, sa, sizeof sa),
                         tensor_format_shape(b->ndim, b->sizes, sb, sizeof sb));
        return NULL;
    }
    int64_t last = -1;
    return tensor_tensordot(a, b, 1, &last, &last);
}

Tensor *tensor_vdot(const Tensor *a, const Tensor *b)
{
    return tensor_dot(a, b);
}

Tensor *tensor_linalg_vecdot(const Tensor *x, const Tensor *y, int64_t dim)
{
    if (x->dtype != y->dtype) {
        tensor_set_error("linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of "
                         "type %s instead", dtype_ts_name(x->dtype), dtype_ts_name(y->dtype));
        return NULL;
    }
    if (!dtype_is_float(x->dtype)) {
        tensor_set_error("linalg.vecdot: Expected a floating point or complex tensor as input. Got %s",
                         dtype_ts_name(x->dtype));
        return NULL;
    }
    Tensor *prod = tensor_binary(BIN_MUL, x, y);
    Tensor *out = prod ? tensor_sum(prod, &dim, 1, false, -1) : NULL;
    tensor_release(prod);
    return out;
}

/* ---------------------------------------------------------------- kron */

Tensor *tensor_kron(const Tensor *a, const Tensor *b)
{
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (2 * nd > TENSOR_MAX_DIMS) {
        tensor_set_error("kron: inputs with more than %d dims are not supported", TENSOR_MAX_DIMS / 2);
        return NULL;
    }
    int pad_a = nd - a->ndim, pad_b = nd - b->ndim;
    int64_t ra[TENSOR_MAX_DIMS], rb[TENSOR_MAX_DIMS], rr[TENSOR_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        ra[2 * i] = i >= pad_a ? a->sizes[i - pad_a] : 1;
        ra[2 * i + 1] = 1;
        rb[2 * i] = 1;
        rb[2 * i + 1] = i >= pad_b ? b->sizes[i - pad_b] : 1;
        rr[i] = ra[2 * i] * rb[2 * i + 1];
    }
    /* views, as PyTorch takes them (_unsafe_view): the product is laid out
     * like its operands, and where that layout does not allow the final
     * view (a transposed operand), PyTorch fails with view's error too */
    Tensor *va = tensor_view((Tensor *)a, 2 * nd, ra);
    Tensor *vb = va ? tensor_view((Tensor *)b, 2 * nd, rb) : NULL;
    Tensor *prod = vb ? tensor_binary(BIN_MUL, va, vb) : NULL;
    Tensor *out = prod ? tensor_view(prod, nd, rr) : NULL;
    tensor_release(va);
    tensor_release(vb);
    tensor_release(prod);
    return out;
}

/* ---------------------------------------------------------------- cross */

Tensor *tensor_linalg_cross(const Tensor *a, const Tensor *b, int64_t dim)
{
    if (a->ndim != b->ndim) {
        tensor_set_error("linalg.cross: inputs must have the same number of dimensions.");
        return NULL;
    }
    int d = tensor_wrap_dim(dim, a->ndim);
    if (d < 0)
        return NULL;
    if (a->sizes[d] != 3 || b->sizes[d] != 3) {
        tensor_set_error("linalg.cross: inputs dimension %d must have length 3. Got %" PRId64 " and %" PRId64, d,
                         a->sizes[d], b->sizes[d]);
        return NULL;
    }
    if (!same_dtype(a, b))
        return NULL;
    if (a->dtype == DT_BOOL) {
        tensor_set_error("\"cross\" not implemented for 'Bool'");
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    if (tensor_broadcast_shape(a->ndim, a->sizes, b->ndim, b->sizes, shape) < 0)
        return NULL;
    Tensor *ae = kern_expand_view(a, a->ndim, shape);
    Tensor *be = ae ? kern_expand_view(b, b->ndim, shape) : NULL;
    Tensor *la = be ? kern_dim_last_view(ae, d) : NULL, *lb = la ? kern_dim_last_view(be, d) : NULL;
    Tensor *out = lb ? tensor_empty(a->dtype, a->ndim, shape) : NULL;
    Tensor *lo = out ? kern_dim_last_view(out, d) : NULL;
    bool ok = lo != NULL;
    int64_t n = ok ? tensor_numel(out) / 3 : 0;
    if (ok && dtype_is_float(a->dtype)) {
        double *x = kern_read_all_f64(la), *y = kern_read_all_f64(lb);
        double *r = kern_malloc((size_t)(3 * n + 1), sizeof *r);
        ok = x && y && r;
        TensorDType dt = a->dtype;
        for (int64_t i = 0; ok && i < n; i++)
            for (int k = 0; k < 3; k++) {
                int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
                /* each product rounded to the dtype, as PyTorch computes in it */
                double p1 = tensor_round_f64(dt, x[3 * i + j1] * y[3 * i + j2]);
                double p2 = tensor_round_f64(dt, x[3 * i + j2] * y[3 * i + j1]);
                r[3 * i + k] = p1 - p2;
            }
        if (ok)
            kern_write_all_f64(lo, r);
        free(x);
        free(y);
        free(r);
    } else if (ok) {
        int64_t *x = kern_read_all_i64(la), *y = kern_read_all_i64(lb);
        int64_t *r = kern_malloc((size_t)(3 * n + 1), sizeof *r);
        ok = x && y && r;
        for (int64_t i = 0; ok && i < n; i++)
            for (int k = 0; k < 3; k++) {
                int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
                r[3 * i + k] = (int64_t)((uint64_t)x[3 * i + j1] * (uint64_t)y[3 * i + j2] -
                                         (uint64_t)x[3 * i + j2] * (uint64_t)y[3 * i + j1]);
            }
        if (ok)
            kern_write_all_i64(lo, r);
        free(x);
        free(y);
        free(r);
    }
    tensor_release(ae);
    tensor_release(be);
    tensor_release(la);
    tensor_release(lb);
    tensor_release(lo);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_cross(const Tensor *a, const Tensor *b, bool has_dim, int64_t dim)
{
    if (!has_dim) {
        /* torch.cross without dim: the first dim of size 3 of the input */
        dim = -1;
        for (int i = 0; i < a->ndim && dim < 0; i++)
            if (a->sizes[i] == 3)
                dim = i;
        if (dim < 0) {
            tensor_set_error("no dimension of size 3 in input");
            return NULL;
        }
    }
    return tensor_linalg_cross(a, b, dim);
}

/* ---------------------------------------------------------------- block_diag */

Tensor *tensor_block_diag(Tensor *const *ts, int n)
{
    int64_t rows = 0, cols = 0;
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim > 2) {
            tensor_set_error("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d has %d "
                             "dimensions", i, ts[i]->ndim);
            return NULL;
        }
        rows += ts[i]->ndim == 2 ? ts[i]->sizes[0] : 1;
        cols += ts[i]->ndim == 2 ? ts[i]->sizes[1] : ts[i]->ndim == 1 ? ts[i]->sizes[0] : 1;
    }
    TensorDType dt = n ? tensor_result_type((const Tensor *const *)ts, n) : dtype_default_float();
    int64_t sizes[2] = {n ? rows : 1, cols};
    Tensor *out = tensor_zeros(dt, 2, sizes);
    int64_t r = 0, c = 0;
    for (int i = 0; out && i < n; i++) {
        const Tensor *t = ts[i];
        int64_t h = t->ndim == 2 ? t->sizes[0] : 1;
        int64_t w = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
        Tensor *block = matrix_view(out, h, w, cols, 1, r * cols + c);
        Tensor *src = t->ndim == 2 ? tensor_retain((Tensor *)t)
                                   : matrix_view(t, h, w, 0, t->ndim == 1 ? t->strides[0] : 0, t->offset);
        /* an empty piece still takes up its rows or columns */
        bool ok = block && src && (h == 0 || w == 0 || tensor_copy_(block, src));
        tensor_release(block);
        tensor_release(src);
        if (!ok) {
            tensor_release(out);
            return NULL;
        }
        r += h;
        c += w;
    }
    return out;
}

/* ---------------------------------------------------------------- multi_dot */

/* The product of ms[i..j] in the order PyTorch's matrix-chain search picks. */
static Tensor *chain_product(Tensor *const *ms, const int64_t *split, int n, int i, int j)
{
    if (i == j)
        return tensor_retain(ms[i]);
    int k = (int)split[i * n + j];
    Tensor *l = chain_product(ms, split, n, i, k);
    Tensor *r = l ? chain_product(ms, split, n, k + 1, j) : NULL;
    Tensor *out = r ? tensor_mm(l, r) : NULL;
    tensor_release(l);
    tensor_release(r);
    return out;
}

Tensor *tensor_linalg_multi_dot(Tensor *const *ts, int n)
{
    if (n < 2) {
        tensor_set_error("multi_dot(): expected at least 2 tensors but got %d", n);
        return NULL;
    }
    int first = ts[0]->ndim, last = ts[n - 1]->ndim;
    if (first != 1 && first != 2) {
        tensor_set_error("multi_dot(): the first tensor must be 1D or 2D but got %dD", first);
        return NULL;
    }
    if (last != 1 && last != 2) {
        tensor_set_error("multi_dot(): the last tensor must be 1D or 2D but got %dD", last);
        return NULL;
    }
    for (int i = 1; i < n - 1; i++)
        if (ts[i]->ndim != 2) {
            tensor_set_error("multi_dot(): tensor %d must be 2D but got %dD", i, ts[i]->ndim);
            return NULL;
        }
    for (int i = 1; i < n; i++)
        if (ts[i]->dtype != ts[0]->dtype) {
            tensor_set_error("multi_dot(): all tensors must have be the same dtype but tensor 0 is %s and tensor %d "
                             "%s", kern_ctype_name(ts[0]->dtype), i, kern_ctype_name(ts[i]->dtype));
            return NULL;
        }
    Tensor **ms = kern_malloc((size_t)n, sizeof *ms);
    int64_t *p = kern_malloc((size_t)n + 1, sizeof *p);
    int64_t *cost = kern_malloc((size_t)(n * n), sizeof *cost), *split = kern_malloc((size_t)(n * n), sizeof *split);
    Tensor *out = NULL, *prod = NULL;
    int made = 0;
    bool ok = ms && p && cost && split;
    for (; ok && made < n; made++) {
        Tensor *t = ts[made];
        if (made == 0 && first == 1)
            ms[made] = matrix_view(t, 1, t->sizes[0], 0, t->strides[0], t->offset);
        else if (made == n - 1 && last == 1)
            ms[made] = matrix_view(t, t->sizes[0], 1, t->strides[0], 0, t->offset);
        else
            ms[made] = tensor_retain(t);
        ok = ms[made] != NULL;
    }
    for (int i = 0; ok && i + 1 < n; i++)
        if (ms[i]->sizes[1] != ms[i + 1]->sizes[0]) {
            char sa[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF];
            tensor_set_error("multi_dot(): tensors %d and %d with shapes %s and %s cannot be multiplied", i, i + 1,
                             tensor_format_shape(ms[i]->ndim, ms[i]->sizes, sa, sizeof sa),
                             tensor_format_shape(ms[i + 1]->ndim, ms[i + 1]->sizes, sb, sizeof sb));
            ok = false;
        }
    if (ok) {
        for (int i = 0; i < n; i++)
            p[i] = ms[i]->sizes[0];
        p[n] = ms[n - 1]->sizes[1];
        /* The matrix-chain order search of PyTorch's multi_dot: for three
         * matrices it compares the two orders directly, otherwise dynamic
         * programming; the first minimal split wins ties. */
        for (int i = 0; i < n; i++)
            cost[i * n + i] = 0;
        for (int l = 1; l < n; l++)
            for (int i = 0; i + l < n; i++) {
                int j = i + l;
                cost[i * n + j] = INT64_MAX;
                for (int k = i; k < j; k++) {
                    int64_t q = cost[i * n + k] + cost[(k + 1) * n + j] + p[i] * p[k + 1] * p[j + 1];
                    if (q < cost[i * n + j]) {
                        cost[i * n + j] = q;
                        split[i * n + j] = k;
                    }
                }
            }
        if (n == 3) {
            int64_t a = p[0], b = p[1], c = p[2], d = p[3];
            split[0 * n + 2] = (a * c) * (b + d) > (b * d) * (a + c) ? 0 : 1;
        }
        prod = chain_product(ms, split, n, 0, n - 1);
        ok = prod != NULL;
    }
    if (ok) {
        /* drop the dims a vector operand gained */
        int64_t sizes[2], strides[2];
        int nd = 0;
        if (first == 2)
            sizes[nd] = prod->sizes[0], strides[nd++] = prod->strides[0];
        if (last == 2)
            sizes[nd] = prod->sizes[1], strides[nd++] = prod->strides[1];
        Tensor *view = tensor_make_view(prod, nd, sizes, strides, prod->offset);
        out = view ? tensor_clone(view) : NULL;
        tensor_release(view);
    }
    tensor_release(prod);
    for (int i = 0; i < made && ms; i++)
        tensor_release(ms[i]);
    free(ms);
    free(p);
    free(cost);
    free(split);
    return out;
}

/* ---------------------------------------------------------------- matrix_power */

Tensor *tensor_linalg_matrix_power(const Tensor *a, int64_t n)
{
    if (a->ndim < 2) {
        tensor_set_error("linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
        return NULL;
    }
    if (a->sizes[a->ndim - 1] != a->sizes[a->ndim - 2]) {
        tensor_set_error("linalg.matrix_power: A must be batches of square matrices, but they are %" PRId64 " by %" PRId64
                         " matrices", a->sizes[a->ndim - 2], a->sizes[a->ndim - 1]);
        return NULL;
    }
    if (n == 0) {
        /* the identity, in a's dtype and batch shape */
        Tensor *out = tensor_zeros(a->dtype, a->ndim, a->sizes);
        Tensor *diag = out ? tensor_diagonal(out, 0, -2, -1) : NULL;
        bool ok = diag && tensor_fill_(diag, 1.0);
        tensor_release(diag);
        if (!ok) {
            tensor_release(out);
            return NULL;
        }
        return out;
    }
    Tensor *base = n < 0 ? tensor_linalg_inv(a) : tensor_retain((Tensor *)a);
    if (!base)
        return NULL;
    uint64_t k = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    Tensor *out = NULL;
    if (k == 1) {
        out = tensor_clone(base);
    } else if (k == 2) {
        out = tensor_matmul(base, base);
    } else if (k == 3) {
        Tensor *sq = tensor_matmul(base, base);
        out = sq ? tensor_matmul(sq, base) : NULL;
        tensor_release(sq);
    } else {
        /* PyTorch's binary decomposition, least significant bit first */
        Tensor *z = NULL;
        bool ok = true;
        while (ok && k > 0) {
            uint64_t bit = k % 2;
            k /= 2;
            Tensor *nz = z ? tensor_matmul(z, z) : tensor_retain(base);
            tensor_release(z);
            z = nz;
            ok = z != NULL;
            if (ok && bit) {
                Tensor *nr = out ? tensor_matmul(out, z) : tensor_retain(z);
                tensor_release(out);
                out = nr;
                ok = out != NULL;
            }
        }
        tensor_release(z);
        if (!ok) {
            tensor_release(out);
            out = NULL;
        }
    }
    tensor_release(base);
    return out;
}

/* ---------------------------------------------------------------- vander */

Tensor *tensor_linalg_vander(const Tensor *x, bool has_n, int64_t n)
{
    if (!dtype_is_float(x->dtype) && !dtype_is_integral(x->dtype)) {
        tensor_set_error("linalg.vander supports floating point, complex, and integer tensors, but got %s",
                         dtype_ts_name(x->dtype));
        return NULL;
    }
    Tensor *x1 = x->ndim == 0 ? tensor_unsqueeze((Tensor *)x, -1) : tensor_retain((Tensor *)x);
    if (!x1)
        return NULL;
    if (!has_n)
        n = x1->sizes[x1->ndim - 1];
    if (n <= 1) {
        tensor_set_error("N must be greater than 1.");
        tensor_release(x1);
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, x1->sizes, sizeof(int64_t) * (size_t)x1->ndim);
    shape[x1->ndim] = n - 1;
    /* cumprod over copies of x gives x^1 .. x^(N-1); a column of ones goes first */
    Tensor *col = tensor_unsqueeze(x1, -1);
    Tensor *rep = col ? tensor_expand(col, x1->ndim + 1, shape) : NULL;
    Tensor *powers = rep ? tensor_cumprod(rep, -1, -1) : NULL;
    shape[x1->ndim] = 1;
    Tensor *ones = powers ? tensor_full(powers->dtype, x1->ndim + 1, shape, 1.0) : NULL;
    Tensor *parts[2] = {ones, powers};
    Tensor *out = ones ? tensor_cat(parts, 2, -1) : NULL;
    tensor_release(x1);
    tensor_release(col);
    tensor_release(rep);
    tensor_release(powers);
    tensor_release(ones);
    return out;
}

/* ---------------------------------------------------------------- bilinear */

/* F.bilinear: out[i, o] = x1[i] . W[o] . x2[i] + b[o], one row i per batch position. */
Tensor *tensor_bilinear(const Tensor *input1, const Tensor *input2, const Tensor *weight, const Tensor *bias)
{
    if (input1->ndim != input2->ndim) {
        tensor_set_error("bilinear(): input dimensions do not match: got %d and %d", input1->ndim, input2->ndim);
        return NULL;
    }
    if (input1->ndim < 1 || weight->ndim != 3) {
        tensor_set_error("bilinear(): expected inputs with at least one dim and a 3-d weight, got %dD and %dD",
                         input1->ndim, weight->ndim);
        return NULL;
    }
    int nd = input1->ndim;
    for (int d = 0; d < nd - 1; d++)
        if (input1->sizes[d] != input2->sizes[d]) {
            tensor_set_error("bilinear(): input batch dimensions do not match: got %" PRId64 " and %" PRId64,
                             input1->sizes[d], input2->sizes[d]);
            return NULL;
        }
    int64_t in1 = input1->sizes[nd - 1], in2 = input2->sizes[nd - 1], outf = weight->sizes[0];
    if (in1 != weight->sizes[1]) {
        tensor_set_error("bilinear(): input1 size does not match weight size: got %" PRId64 " but expected %" PRId64,
                         in1, weight->sizes[1]);
        return NULL;
    }
    if (in2 != weight->sizes[2]) {
        tensor_set_error("bilinear(): input2 size does not match weight size: got %" PRId64 " but expected %" PRId64,
                         in2, weight->sizes[2]);
        return NULL;
    }
    if (bias && (bias->ndim != 1 || bias->sizes[0] != outf)) {
        tensor_set_error("bilinear(): bias size does not match weight size: got %" PRId64 " but expected %" PRId64,
                         bias->ndim ? bias->sizes[0] : (int64_t)1, outf);
        return NULL;
    }
    const Tensor *all[4] = {input1, input2, weight, bias};
    TensorDType dt = tensor_result_type(all, bias ? 4 : 3);
    for (int k = 0; k < (bias ? 4 : 3); k++)
        if (all[k]->dtype != dt) {
            tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(dt),
                             dtype_ts_name(all[k]->dtype));
            return NULL;
        }
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, input1->sizes, sizeof(int64_t) * (size_t)nd);
    shape[nd - 1] = outf;
    int64_t rows = 1;
    for (int d = 0; d < nd - 1; d++)
        rows *= input1->sizes[d];
    Tensor *out = tensor_empty(dt, nd, shape);
    if (!out)
        return NULL;
    size_t cells = (size_t)(rows * outf > 0 ? rows * outf : 1);
    bool ok;
    if (dtype_is_float(dt)) {
        double *a = kern_read_all_f64(input1), *b = kern_read_all_f64(input2), *w = kern_read_all_f64(weight);
        double *bb = bias ? kern_read_all_f64(bias) : NULL, *r = kern_malloc(cells, sizeof *r);
        ok = a && b && w && (!bias || bb) && r;
        for (int64_t i = 0; ok && i < rows; i++)
            for (int64_t o = 0; o < outf; o++) {
                double sum = 0;
                for (int64_t j = 0; j < in1; j++) {
                    double inner = 0;
                    for (int64_t k = 0; k < in2; k++)
                        inner += w[(o * in1 + j) * in2 + k] * b[i * in2 + k];
                    sum += a[i * in1 + j] * inner;
                }
                r[i * outf + o] = sum + (bb ? bb[o] : 0.0);
            }
        if (ok)
            kern_write_all_f64(out, r);
        free(a);
        free(b);
        free(w);
        free(bb);
        free(r);
    } else {
        /* Integers: exact, wrapping modulo 2^64 as ATen's int64 loops do. */
        int64_t *a = kern_read_all_i64(input1), *b = kern_read_all_i64(input2), *w = kern_read_all_i64(weight);
        int64_t *bb = bias ? kern_read_all_i64(bias) : NULL, *r = kern_malloc(cells, sizeof *r);
        ok = a && b && w && (!bias || bb) && r;
        for (int64_t i = 0; ok && i < rows; i++)
            for (int64_t o = 0; o < outf; o++) {
                uint64_t sum = 0;
                for (int64_t j = 0; j < in1; j++) {
                    uint64_t inner = 0;
                    for (int64_t k = 0; k < in2; k++)
                        inner += (uint64_t)w[(o * in1 + j) * in2 + k] * (uint64_t)b[i * in2 + k];
                    sum += (uint64_t)a[i * in1 + j] * inner;
                }
                r[i * outf + o] = (int64_t)(sum + (bb ? (uint64_t)bb[o] : 0));
            }
        if (ok)
            kern_write_all_i64(out, r);
        free(a);
        free(b);
        free(w);
        free(bb);
        free(r);
    }
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}
