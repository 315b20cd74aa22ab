/* index.c — advanced indexing and the scatter/gather family: index,
 * index_put_, index_select, masked_select, gather, masked_fill_, scatter_.
 *
 * Advanced indexing (t[i0, :, i2] with tensor indices) is planned once and
 * then executed as a triple loop. The plan:
 *   1. expands every bool/uint8 mask into one int64 index per masked dim (the
 *      columns of its nonzero()), checking the mask's shape against the dims
 *      it covers; a 0-d mask indexes a new size-1 dim, as Python's x[True];
 *   2. broadcasts all index tensors to one shape B and folds them, bounds-
 *      checked and wrapped, into one storage offset per position of B;
 *   3. lays the result out as PyTorch does: if the indexed dims are adjacent
 *      the B dims replace them in place, otherwise B goes first, followed by
 *      the sliced dims in order.
 * With the sliced dims split into those before and after B, every result
 * element is before[p] + adv[b] + after[q]: three offset tables whose sums
 * address the source (index) or destination (index_put_) element.
 *
 * Element data moves as raw bytes of the tensor's dtype; only accumulation
 * (index_put_ accumulate, scatter add/multiply) does typed arithmetic.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct IndexPlan {
    /* geometry of the indexed tensor (with a size-1 dim per 0-d mask) */
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
    /* one int64 index tensor per advanced dim, in dim order */
    int nadv;
    int adv_dim[TENSOR_MAX_DIMS];
    Tensor *adv[TENSOR_MAX_DIMS];
    /* result */
    int res_ndim;
    int64_t res_sizes[TENSOR_MAX_DIMS];
    int64_t nbefore, nb, nafter;
    int64_t *before_off, *adv_off, *after_off;
} IndexPlan;

static void index_plan_free(IndexPlan *P)
{
    for (int i = 0; i < P->nadv; i++)
        tensor_release(P->adv[i]);
    free(P->before_off);
    free(P->adv_off);
    free(P->after_off);
    memset(P, 0, sizeof *P);
}

/* Offsets of every coordinate of a (k, sizes, strides) geometry, row-major. */
static int64_t *geometry_offsets(int k, const int64_t *sizes, const int64_t *strides, int64_t *count)
{
    int64_t n;
    if (!kern_numel_checked(k, sizes, &n))
        return NULL;
    int64_t *off = kern_malloc((size_t)n, sizeof *off);
    if (!off)
        return NULL;
    int64_t coord[TENSOR_MAX_DIMS] = {0};
    int64_t cur = 0;
    for (int64_t i = 0; i < n; i++) {
        off[i] = cur;
        for (int d = k - 1; d >= 0; d--) {
            cur += strides[d];
            if (++coord[d] < sizes[d])
                break;
            cur -= strides[d] * sizes[d];
            coord[d] = 0;
        }
    }
    *count = n;
    return off;
}

/* A 1-d int64 tensor holding vals[0..n). */
static Tensor *int64_vector(const int64_t *vals, int64_t n)
{
    Tensor *t = tensor_empty(DT_I64, 1, &n);
    if (t && n > 0)
        memcpy(tensor_data(t), vals, (size_t)n * sizeof *vals);
    return t;
}

static bool plan_add_adv(IndexPlan *P, int dim, Tensor *idx)
{
    P->adv_dim[P->nadv] = dim;
    P->adv[P->nadv++] = idx;
    return idx != NULL;
}

/* Step 1: one int64 index per advanced dim. */
static bool plan_expand_indices(IndexPlan *P, const Tensor *t, Tensor *const *indices, int n)
{
    char mb[TENSOR_SHAPE_BUF], tb[TENSOR_SHAPE_BUF];
    int consumed = 0, zero_d_masks = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *idx = indices[i];
        if (idx && idx->dtype != DT_I64 && idx->dtype != DT_BOOL && idx->dtype != DT_U8) {
            tensor_set_error("tensors used as indices must be long, byte or bool tensors");
            return false;
        }
        if (idx && idx->dtype != DT_I64) {
            consumed += idx->ndim;
            zero_d_masks += idx->ndim == 0;
        } else {
            consumed += 1;
        }
    }
    if (consumed > t->ndim || t->ndim + zero_d_masks > TENSOR_MAX_DIMS) {
        tensor_set_error("too many indices for tensor of dimension %d (got %d)", t->ndim, consumed);
        return false;
    }
    P->ndim = t->ndim;
    memcpy(P->sizes, t->sizes, sizeof P->sizes);
    memcpy(P->strides, t->strides, sizeof P->strides);
    int d = 0;
    for (int i = 0; i < n; i++) {
        Tensor *idx = indices[i];
        if (!idx) {
            d++;
        } else if (idx->dtype == DT_I64) {
            if (!plan_add_adv(P, d++, tensor_retain(idx)))
                return false;
        } else if (idx->ndim == 0) {
            /* x[True] / x[False]: a new size-1 dim at d, indexed by [0] or []. */
            for (int k = P->ndim; k > d; k--) {
                P->sizes[k] = P->sizes[k - 1];
                P->strides[k] = P->strides[k - 1];
            }
            P->sizes[d] = 1;
            P->strides[d] = 0;
            P->ndim++;
            int64_t zero = 0;
            bool set = tensor_load_i64(idx->dtype, tensor_elem_ptr(idx, idx->offset)) != 0;
            if (!plan_add_adv(P, d++, int64_vector(&zero, set ? 1 : 0)))
                return false;
        } else {
            for (int j = 0; j < idx->ndim; j++)
                if (idx->sizes[j] != P->sizes[d + j]) {
                    tensor_set_error("The shape of the mask %s at index %d does not match the shape of the "
                                     "indexed tensor %s at index %d",
                                     tensor_format_shape(idx->ndim, idx->sizes, mb, sizeof mb), j,
                                     tensor_format_shape(t->ndim, t->sizes, tb, sizeof tb), d + j);
                    return false;
                }
            Tensor *nz = tensor_nonzero(idx);
            if (!nz)
                return false;
            for (int j = 0; j < idx->ndim; j++) {
                int64_t size = nz->sizes[0], stride = idx->ndim;
                if (!plan_add_adv(P, d++, tensor_make_view(nz, 1, &size, &stride, nz->offset + j))) {
                    tensor_release(nz);
                    return false;
                }
            }
            tensor_release(nz);
        }
    }
    return true;
}

/* Step 2: broadcast shape B and one storage offset per position of B. */
static bool plan_fold_indices(IndexPlan *P, int *bndim, int64_t *bsizes)
{
    *bndim = 0;
    for (int i = 0; i < P->nadv; i++) {
        const Tensor *a = P->adv[i];
        int nd = a->ndim > *bndim ? a->ndim : *bndim;
        int64_t out[TENSOR_MAX_DIMS];
        for (int k = 0; k < nd; k++) {
            int ia = k - (nd - a->ndim), ib = k - (nd - *bndim);
            int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? bsizes[ib] : 1;
            if (sa != sb && sa != 1 && sb != 1) {
                char msg[1024] = "", sh[TENSOR_SHAPE_BUF];
                size_t used = 0;
                for (int j = 0; j < P->nadv && used < sizeof msg; j++) {
                    int w = snprintf(msg + used, sizeof msg - used, "%s%s", j ? ", " : "",
                                     tensor_format_shape(P->adv[j]->ndim, P->adv[j]->sizes, sh, sizeof sh));
                    used += w > 0 ? (size_t)w : 0;
                }
                tensor_set_error("shape mismatch: indexing tensors could not be broadcast together with shapes %s",
                                 msg);
                return false;
            }
            out[k] = sa == 1 ? sb : sa;
        }
        *bndim = nd;
        memcpy(bsizes, out, (size_t)nd * sizeof *out);
    }
    if (!kern_numel_checked(*bndim, bsizes, &P->nb))
        return false;
    P->adv_off = kern_malloc((size_t)P->nb, sizeof *P->adv_off);
    if (!P->adv_off)
        return false;
    for (int64_t b = 0; b < P->nb; b++)
        P->adv_off[b] = 0;
    for (int i = 0; i < P->nadv; i++) {
        int dim = P->adv_dim[i];
        Tensor *ex = kern_expand_view(P->adv[i], *bndim, bsizes);
        int64_t *vals = ex ? kern_read_all_i64(ex) : NULL;
        tensor_release(ex);
        if (!vals)
            return false;
        int64_t size = P->sizes[dim];
        for (int64_t b = 0; b < P->nb; b++) {
            int64_t v = vals[b];
            if (v < -size || v >= size) {
                tensor_set_error("index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, v, dim,
                                 size);
                free(vals);
                return false;
            }
            P->adv_off[b] += (v < 0 ? v + size : v) * P->strides[dim];
        }
        free(vals);
    }
    return true;
}

/* Step 3: result layout and the before/after offset tables. */
static bool plan_layout(IndexPlan *P, int bndim, const int64_t *bsizes)
{
    bool is_adv[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < P->nadv; i++)
        is_adv[P->adv_dim[i]] = true;
    bool adjacent = P->nadv == 0 || P->adv_dim[P->nadv - 1] - P->adv_dim[0] == P->nadv - 1;
    int rest[TENSOR_MAX_DIMS], nrest = 0, bpos = 0;
    for (int d = 0; d < P->ndim; d++)
        if (!is_adv[d]) {
            if (adjacent && P->nadv > 0 && d < P->adv_dim[0])
                bpos++;
            rest[nrest++] = d;
        }
    if (nrest + bndim > TENSOR_MAX_DIMS) {
        tensor_set_error("index: result would have %d dims (at most %d supported)", nrest + bndim, TENSOR_MAX_DIMS);
        return false;
    }
    int64_t bs[TENSOR_MAX_DIMS], bst[TENSOR_MAX_DIMS], as[TENSOR_MAX_DIMS], ast[TENSOR_MAX_DIMS];
    P->res_ndim = 0;
    for (int k = 0; k < bpos; k++) {
        bs[k] = P->sizes[rest[k]];
        bst[k] = P->strides[rest[k]];
        P->res_sizes[P->res_ndim++] = bs[k];
    }
    for (int k = 0; k < bndim; k++)
        P->res_sizes[P->res_ndim++] = bsizes[k];
    for (int k = bpos; k < nrest; k++) {
        as[k - bpos] = P->sizes[rest[k]];
        ast[k - bpos] = P->strides[rest[k]];
        P->res_sizes[P->res_ndim++] = as[k - bpos];
    }
    int64_t total;
    if (!kern_numel_checked(P->res_ndim, P->res_sizes, &total))
        return false;
    P->before_off = geometry_offsets(bpos, bs, bst, &P->nbefore);
    P->after_off = geometry_offsets(nrest - bpos, as, ast, &P->nafter);
    return P->before_off && P->after_off;
}

static bool index_plan_build(IndexPlan *P, const Tensor *t, Tensor *const *indices, int n)
{
    memset(P, 0, sizeof *P);
    int bndim;
    int64_t bsizes[TENSOR_MAX_DIMS];
    if (plan_expand_indices(P, t, indices, n) && plan_fold_indices(P, &bndim, bsizes) &&
        plan_layout(P, bndim, bsizes))
        return true;
    index_plan_free(P);
    return false;
}

Tensor *tensor_index(const Tensor *t, Tensor *const *indices, int n)
{
    IndexPlan P;
    if (!index_plan_build(&P, t, indices, n))
        return NULL;
    Tensor *out = tensor_empty(t->dtype, P.res_ndim, P.res_sizes);
    if (out && tensor_numel(out) > 0) {
        size_t es = dtype_size(t->dtype);
        char *dst = tensor_data(out);
        for (int64_t p = 0; p < P.nbefore; p++)
            for (int64_t b = 0; b < P.nb; b++) {
                int64_t base = t->offset + P.before_off[p] + P.adv_off[b];
                for (int64_t q = 0; q < P.nafter; q++, dst += es)
                    memcpy(dst, tensor_elem_ptr(t, base + P.after_off[q]), es);
            }
    }
    index_plan_free(&P);
    return out;
}

bool tensor_index_put_(Tensor *t, Tensor *const *indices, int n, const Tensor *values, bool accumulate)
{
    IndexPlan P;
    if (!index_plan_build(&P, t, indices, n))
        return false;
    char vb[TENSOR_SHAPE_BUF], rb[TENSOR_SHAPE_BUF];
    Tensor *conv = NULL, *ex = NULL;
    bool ok = false;
    /* values broadcast to the indexing result; the copy made by the cast also
     * protects against values aliasing t. */
    bool fits = values->ndim <= P.res_ndim;
    for (int k = 0; fits && k < values->ndim; k++) {
        int64_t v = values->sizes[values->ndim - 1 - k], r = P.res_sizes[P.res_ndim - 1 - k];
        fits = v == r || v == 1;
    }
    if (!fits) {
        tensor_set_error("shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                         tensor_format_shape(values->ndim, values->sizes, vb, sizeof vb),
                         tensor_format_shape(P.res_ndim, P.res_sizes, rb, sizeof rb));
        goto done;
    }
    conv = tensor_to_dtype(values, t->dtype);
    ex = conv ? kern_expand_view(conv, P.res_ndim, P.res_sizes) : NULL;
    if (!ex)
        goto done;
    TensorIter c;
    tensor_iter_init_single(&c, ex);
    for (int64_t p = 0; p < P.nbefore; p++)
        for (int64_t b = 0; b < P.nb; b++) {
            int64_t base = t->offset + P.before_off[p] + P.adv_off[b];
            for (int64_t q = 0; q < P.nafter; q++) {
                void *dst = tensor_elem_ptr(t, base + P.after_off[q]);
                const void *src = tensor_elem_ptr(ex, c.offsets[0]);
                if (accumulate)
                    kern_accumulate_add(t->dtype, dst, src);
                else
                    memcpy(dst, src, dtype_size(t->dtype));
                tensor_iter_next(&c);
            }
        }
    ok = true;
done:
    tensor_release(ex);
    tensor_release(conv);
    index_plan_free(&P);
    return ok;
}

/* ---------------------------------------------------------------- index_select */

Tensor *tensor_index_select(const Tensor *t, int64_t dim, const Tensor *index)
{
    if (index->dtype != DT_I64 && index->dtype != DT_I32) {
        tensor_set_error("index_select(): Expected dtype int32 or int64 for index");
        return NULL;
    }
    if (index->ndim > 1) {
        tensor_set_error("index_select(): Index is supposed to be a vector");
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    int64_t *vals = kern_read_all_i64(index);
    if (!vals)
        return NULL;
    int64_t count = tensor_numel(index);
    int64_t size = t->ndim == 0 ? 1 : t->sizes[d];
    for (int64_t i = 0; i < count; i++)
        if (vals[i] < 0 || vals[i] >= size) {
            tensor_set_error("index out of range in self");
            free(vals);
            return NULL;
        }
    Tensor *out = NULL;
    if (t->ndim == 0) {
        out = tensor_clone(t);                  /* PyTorch keeps a 0-d result */
    } else if (d == 0 && t->sizes[0] > 0 && tensor_is_contiguous(t)) {
        /* whole rows of a contiguous tensor (an embedding lookup): memcpy */
        int64_t sizes[TENSOR_MAX_DIMS];
        memcpy(sizes, t->sizes, sizeof sizes);
        sizes[0] = count;
        out = tensor_empty(t->dtype, t->ndim, sizes);
        size_t row = (size_t)(tensor_numel(t) / t->sizes[0]) * dtype_size(t->dtype);
        const char *from = tensor_data(t);
        for (int64_t i = 0; out && i < count; i++)
            memcpy((char *)tensor_data(out) + (size_t)i * row, from + (size_t)vals[i] * row, row);
    } else {
        int64_t sizes[TENSOR_MAX_DIMS], *tables[TENSOR_MAX_DIMS];
        memcpy(sizes, t->sizes, sizeof sizes);
        sizes[d] = count;
        if (kern_identity_tables(t->ndim, t->sizes, tables)) {
            free(tables[d]);
            tables[d] = vals;
            vals = NULL;
            out = kern_remap(t, t->ndim, sizes, tables, NULL);
            kern_tables_free(t->ndim, tables);
        }
    }
    free(vals);
    return out;
}

/* ---------------------------------------------------------------- masks */

static bool is_mask_dtype(TensorDType dt)
{
    return dt == DT_BOOL || dt == DT_U8;
}

Tensor *tensor_masked_select(const Tensor *t, const Tensor *mask)
{
    if (!is_mask_dtype(mask->dtype)) {
        tensor_set_error("masked_select: expected BoolTensor or ByteTensor for mask");
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    /* mask first: PyTorch's message names the mask "tensor a" */
    int nd = tensor_broadcast_shape(mask->ndim, mask->sizes, t->ndim, t->sizes, shape);
    if (nd < 0)
        return NULL;
    Tensor *tv = kern_expand_view(t, nd, shape);
    Tensor *mv = tv ? kern_expand_view(mask, nd, shape) : NULL;
    int64_t *m = mv ? kern_read_all_i64(mv) : NULL;
    Tensor *out = NULL;
    if (m) {
        int64_t n = tensor_numel(tv), count = 0;
        for (int64_t i = 0; i < n; i++)
            count += m[i] != 0;
        out = tensor_empty(t->dtype, 1, &count);
        if (out && count > 0) {
            size_t es = dtype_size(t->dtype);
            char *dst = tensor_data(out);
            TensorIter c;
            tensor_iter_init_single(&c, tv);
            for (int64_t i = 0; i < n; i++) {
                if (m[i]) {
                    memcpy(dst, tensor_elem_ptr(tv, c.offsets[0]), es);
                    dst += es;
                }
                tensor_iter_next(&c);
            }
        }
    }
    free(m);
    tensor_release(tv);
    tensor_release(mv);
    return out;
}

/* One element of dtype dt holding the scalar value of a 0-d tensor. */
static bool scalar_to_elem(const Tensor *value, TensorDType dt, void *elem)
{
    const void *p = tensor_elem_ptr(value, value->offset);
    bool is_float = dtype_is_float(value->dtype);
    double fv = tensor_load_f64(value->dtype, p);
    int64_t iv = tensor_load_i64(value->dtype, p);
    if (!tensor_number_fits(dt, is_float, fv, iv))
        return false;
    if (is_float)
        tensor_store_f64(dt, elem, fv);
    else
        tensor_store_i64(dt, elem, iv);
    return true;
}

bool tensor_masked_fill_(Tensor *t, const Tensor *mask, const Tensor *value)
{
    char ob[TENSOR_SHAPE_BUF], bb[TENSOR_SHAPE_BUF];
    if (value->ndim != 0) {
        tensor_set_error("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                         "dimension(s).", value->ndim);
        return false;
    }
    if (dtype_is_float(mask->dtype)) {
        tensor_set_error("masked_fill_ only supports boolean masks, but got mask with dtype %s",
                         dtype_name(mask->dtype));
        return false;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = tensor_broadcast_shape(t->ndim, t->sizes, mask->ndim, mask->sizes, shape);
    if (nd < 0)
        return false;
    if (nd != t->ndim || memcmp(shape, t->sizes, (size_t)nd * sizeof *shape) != 0) {
        tensor_set_error("output with shape %s doesn't match the broadcast shape %s",
                         tensor_format_shape(t->ndim, t->sizes, ob, sizeof ob), tensor_format_shape(nd, shape, bb, sizeof bb));
        return false;
    }
    union { double d; int64_t i; uint8_t b[8]; } elem;
    memset(&elem, 0, sizeof elem);
    if (!scalar_to_elem(value, t->dtype, &elem))
        return false;
    /* The mask is read in full before any write: it may alias t. */
    Tensor *mv = kern_expand_view(mask, t->ndim, t->sizes);
    int64_t *m = mv ? kern_read_all_i64(mv) : NULL;
    tensor_release(mv);
    if (!m)
        return false;
    size_t es = dtype_size(t->dtype);
    int64_t n = tensor_numel(t);
    TensorIter c;
    tensor_iter_init_single(&c, t);
    for (int64_t i = 0; i < n; i++) {
        if (m[i])
            memcpy(tensor_elem_ptr(t, c.offsets[0]), &elem, es);
        tensor_iter_next(&c);
    }
    free(m);
    return true;
}

/* ---------------------------------------------------------------- gather, scatter */

/* Sizes of t as PyTorch's ensure_nonempty_dim sees them: 0-d is (1). */
static int nonempty_dims(const Tensor *t, int64_t *sizes, int64_t *strides)
{
    if (t->ndim == 0) {
        sizes[0] = 1;
        strides[0] = 0;
        return 1;
    }
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    return t->ndim;
}

/* Storage offsets (without the index term) of walking `sizes` with the
 * strides of `base`, whose stride along `dim` is left out. */
static int64_t *walk_offsets(int nd, const int64_t *sizes, const int64_t *base_strides, int dim, int64_t offset)
{
    int64_t strides[TENSOR_MAX_DIMS], count;
    memcpy(strides, base_strides, (size_t)nd * sizeof *strides);
    if (dim >= 0)
        strides[dim] = 0;
    int64_t *off = geometry_offsets(nd, sizes, strides, &count);
    if (off)
        for (int64_t i = 0; i < count; i++)
            off[i] += offset;
    return off;
}

Tensor *tensor_gather(const Tensor *t, int64_t dim, const Tensor *index)
{
    char ib[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF];
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    if (index->dtype != DT_I64 && tensor_numel(index) != 0) {    /* ATen checks a non-empty index only */
        tensor_set_error("gather(): Expected dtype int64 for index");
        return NULL;
    }
    int64_t ssz[TENSOR_MAX_DIMS], sst[TENSOR_MAX_DIMS], isz[TENSOR_MAX_DIMS], ist[TENSOR_MAX_DIMS];
    int snd = nonempty_dims(t, ssz, sst), ind = nonempty_dims(index, isz, ist);
    if (snd != ind) {
        tensor_set_error("Index tensor must have the same number of dimensions as input tensor");
        return NULL;
    }
    int64_t n = tensor_numel(index);
    Tensor *out = tensor_empty(t->dtype, index->ndim, index->sizes);
    if (!out || n == 0)
        return out;
    for (int k = 0; k < snd; k++)
        if (k != d && isz[k] > ssz[k]) {
            tensor_set_error("Size does not match at dimension %d expected index %s to be smaller than self %s "
                             "apart from dimension %d", k, tensor_format_shape(index->ndim, index->sizes, ib, sizeof ib),
                             tensor_format_shape(t->ndim, t->sizes, sb, sizeof sb), d);
            tensor_release(out);
            return NULL;
        }
    int64_t *idx = kern_read_all_i64(index);
    int64_t *base = idx ? walk_offsets(snd, isz, sst, d, t->offset) : NULL;
    bool ok = idx && base;
    size_t es = dtype_size(t->dtype);
    char *dst = tensor_data(out);
    for (int64_t i = 0; ok && i < n; i++, dst += es) {
        if (idx[i] < 0 || idx[i] >= ssz[d]) {
            tensor_set_error("index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, idx[i], d,
                             ssz[d]);
            ok = false;
            break;
        }
        memcpy(dst, tensor_elem_ptr(t, base[i] + idx[i] * sst[d]), es);
    }
    free(idx);
    free(base);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* Where scatter and scatter_reduce write: for each element i of index (row-
 * major), dst[i] is the storage offset in t, and src_off[i] that of the
 * matching element of src (NULL when src is a wrapped number). Checks
 * PyTorch's shape rules and the index bounds. *n == 0 means nothing to do
 * (PyTorch returns before checking shapes); the arrays are then NULL. */
typedef struct ScatterPlan {
    int64_t n;
    int64_t *dst;
    int64_t *src_off;
} ScatterPlan;

static void scatter_plan_free(ScatterPlan *P)
{
    free(P->dst);
    free(P->src_off);
}

static bool scatter_plan_build(ScatterPlan *P, const Tensor *t, int d, const Tensor *index, const Tensor *src,
                               bool value_src)
{
    char ib[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF], rb[TENSOR_SHAPE_BUF];
    memset(P, 0, sizeof *P);
    int64_t n = tensor_numel(index);
    if (n == 0)
        return true;
    int64_t ssz[TENSOR_MAX_DIMS], sst[TENSOR_MAX_DIMS], isz[TENSOR_MAX_DIMS], ist[TENSOR_MAX_DIMS];
    int64_t rsz[TENSOR_MAX_DIMS], rst[TENSOR_MAX_DIMS];
    int snd = nonempty_dims(t, ssz, sst), ind = nonempty_dims(index, isz, ist);
    if (snd != ind) {
        tensor_set_error("Index tensor must have the same number of dimensions as self tensor");
        return false;
    }
    if (!value_src && nonempty_dims(src, rsz, rst) != ind) {
        tensor_set_error("Index tensor must have the same number of dimensions as src tensor");
        return false;
    }
    for (int k = 0; k < snd; k++) {
        bool bad_self = k != d && isz[k] > ssz[k];
        bool bad_src = !value_src && isz[k] > rsz[k];
        if (bad_self || bad_src) {
            if (value_src)
                tensor_set_error("Expected index %s to be smaller than self %s apart from dimension %d",
                                 tensor_format_shape(index->ndim, index->sizes, ib, sizeof ib),
                                 tensor_format_shape(t->ndim, t->sizes, sb, sizeof sb), d);
            else
                tensor_set_error("Expected index %s to be smaller than self %s apart from dimension %d and to be "
                                 "smaller size than src %s", tensor_format_shape(index->ndim, index->sizes, ib, sizeof ib),
                                 tensor_format_shape(t->ndim, t->sizes, sb, sizeof sb), d,
                                 tensor_format_shape(src->ndim, src->sizes, rb, sizeof rb));
            return false;
        }
    }
    int64_t *idx = kern_read_all_i64(index);
    P->dst = idx ? walk_offsets(snd, isz, sst, d, t->offset) : NULL;
    P->src_off = (P->dst && !value_src) ? walk_offsets(snd, isz, rst, -1, src->offset) : NULL;
    bool ok = P->dst && (value_src || P->src_off);
    for (int64_t i = 0; ok && i < n; i++) {
        if (idx[i] < 0 || idx[i] >= ssz[d]) {
            tensor_set_error("index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, idx[i], d,
                             ssz[d]);
            ok = false;
        } else {
            P->dst[i] += idx[i] * sst[d];
        }
    }
    free(idx);
    if (!ok) {
        scatter_plan_free(P);
        return false;
    }
    P->n = n;
    return true;
}

/* scatter_add_ of whole rows, the form graph networks use (PyG's
 * scatter(..., reduce='sum'/'mean'): index holds one row number per row of
 * src, expanded along the other dims): t[index[i], ...] += src[i, ...] for
 * float32 or float64 t and src, contiguous, in separate storages, dim 0.
 * Returns false when that is not the case (the general path then runs);
 * sets *ok false after an index out of bounds, as the general path would,
 * with no element written. The sums are added in i order, as there. */
static bool scatter_add_rows(Tensor *t, const Tensor *index, const Tensor *src, bool *ok)
{
    int nd = t->ndim;
    if (nd < 1 || index->ndim != nd || src->ndim != nd || index->sizes[0] > src->sizes[0] ||
        src->dtype != t->dtype || (t->dtype != DT_F32 && t->dtype != DT_F64) || src->wrapped_number ||
        src->storage == t->storage || !tensor_is_contiguous(t) || !tensor_is_contiguous(src))
        return false;
    int64_t row = 1;
    for (int k = 1; k < nd; k++) {
        if (index->sizes[k] != t->sizes[k] || src->sizes[k] != t->sizes[k] ||
            (index->strides[k] != 0 && index->sizes[k] != 1))
            return false;
        row *= t->sizes[k];
    }
    int64_t rows = index->sizes[0], limit = t->sizes[0];
    const int64_t *idx = (const int64_t *)index->storage->data;
    for (int64_t i = 0; i < rows; i++) {
        int64_t r = idx[index->offset + i * index->strides[0]];
        if (r < 0 || r >= limit) {
            tensor_set_error("index %" PRId64 " is out of bounds for dimension 0 with size %" PRId64, r, limit);
            *ok = false;
            return true;
        }
    }
    for (int64_t i = 0; i < rows; i++) {
        int64_t r = idx[index->offset + i * index->strides[0]];
        if (t->dtype == DT_F32) {
            float *dst = (float *)t->storage->data + t->offset + r * row;
            const float *from = (const float *)src->storage->data + src->offset + i * row;
            for (int64_t j = 0; j < row; j++)
                dst[j] += from[j];
        } else {
            double *dst = (double *)t->storage->data + t->offset + r * row;
            const double *from = (const double *)src->storage->data + src->offset + i * row;
            for (int64_t j = 0; j < row; j++)
                dst[j] += from[j];
        }
    }
    *ok = true;
    return true;
}

bool tensor_scatter_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *src, const char *reduce)
{
    enum { SCATTER_SET, SCATTER_ADD, SCATTER_MUL } mode = SCATTER_SET;
    if (reduce && strcmp(reduce, "add") == 0) {
        mode = SCATTER_ADD;
    } else if (reduce && strcmp(reduce, "multiply") == 0) {
        mode = SCATTER_MUL;
    } else if (reduce) {
        tensor_set_error("reduce argument must be either add or multiply.");
        return false;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    if (index->dtype != DT_I64 && tensor_numel(index) != 0) {    /* ATen checks a non-empty index only */
        tensor_set_error("scatter(): Expected dtype int64 for index");
        return false;
    }
    bool value_src = src->wrapped_number;
    if (!value_src && src->dtype != t->dtype) {
        tensor_set_error("scatter(): Expected self.dtype to be equal to src.dtype");
        return false;
    }
    bool rows_ok;
    if (mode == SCATTER_ADD && d == 0 && tensor_numel(index) > 0 && scatter_add_rows(t, index, src, &rows_ok))
        return rows_ok;
    ScatterPlan P;
    if (!scatter_plan_build(&P, t, d, index, src, value_src))
        return false;
    int64_t n = P.n;
    size_t es = dtype_size(t->dtype);
    char *vals = n > 0 ? kern_malloc((size_t)n, es) : NULL;
    bool ok = n == 0 || vals != NULL;
    /* Source elements are gathered before any write: src may alias t. */
    for (int64_t i = 0; ok && i < n; i++) {
        if (!value_src)
            memcpy(vals + (size_t)i * es, tensor_elem_ptr(src, P.src_off[i]), es);
        else if (dtype_is_float(src->dtype))
            tensor_store_f64(t->dtype, vals + (size_t)i * es, tensor_load_f64(src->dtype, tensor_elem_ptr(src, src->offset)));
        else
            tensor_store_i64(t->dtype, vals + (size_t)i * es, tensor_load_i64(src->dtype, tensor_elem_ptr(src, src->offset)));
    }
    for (int64_t i = 0; ok && i < n; i++) {
        void *dst = tensor_elem_ptr(t, P.dst[i]);
        const void *v = vals + (size_t)i * es;
        if (mode == SCATTER_ADD)
            kern_accumulate_add(t->dtype, dst, v);
        else if (mode == SCATTER_MUL)
            kern_accumulate_mul(t->dtype, dst, v);
        else
            memcpy(dst, v, es);
    }
    scatter_plan_free(&P);
    free(vals);
    return ok;
}

/* ---------------------------------------------------------------- scatter_reduce */

typedef enum ScatterReduction { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN } ScatterReduction;

/* a (op) b for one element of a floating dtype: max/min propagate NaN. */
static double reduce_f64(ScatterReduction op, double a, double b)
{
    switch (op) {
    case SR_PROD: return a * b;
    case SR_AMAX: return isnan(b) ? b : (a > b || isnan(a) ? a : b);
    case SR_AMIN: return isnan(b) ? b : (a < b || isnan(a) ? a : b);
    default: return a + b;
    }
}

static int64_t reduce_i64(ScatterReduction op, int64_t a, int64_t b)
{
    switch (op) {
    case SR_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    case SR_AMAX: return a > b ? a : b;
    case SR_AMIN: return a < b ? a : b;
    default: return (int64_t)((uint64_t)a + (uint64_t)b);
    }
}

/* The identity PyTorch writes first where include_self is false. */
static void reduction_identity(ScatterReduction op, TensorDType dt, double *f, int64_t *i)
{
    static const int64_t lo[DT_COUNT] = {0, 0, INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, 0, 0};
    static const int64_t hi[DT_COUNT] = {1, UINT8_MAX, INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX, 0, 0};
    *f = op == SR_PROD ? 1 : op == SR_AMAX ? -INFINITY : op == SR_AMIN ? INFINITY : 0;
    *i = op == SR_PROD ? 1 : op == SR_AMAX ? lo[dt] : op == SR_AMIN ? hi[dt] : 0;
}

bool tensor_scatter_reduce_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *src, const char *reduce,
                            bool include_self)
{
    static const char *const names[] = {"sum", "prod", "mean", "amax", "amin"};
    int op = -1;
    for (int k = 0; k < 5; k++)
        if (strcmp(reduce, names[k]) == 0)
            op = k;
    if (op < 0) {
        tensor_set_error("reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce);
        return false;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    if (index->dtype != DT_I64 && tensor_numel(index) != 0) {    /* ATen checks a non-empty index only */
        tensor_set_error("scatter_reduce(): Expected dtype int64 for index");
        return false;
    }
    if (src->dtype != t->dtype) {
        tensor_set_error("scatter_reduce(): Expected self.dtype to be equal to src.dtype");
        return false;
    }
    ScatterPlan P;
    if (!scatter_plan_build(&P, t, d, index, src, false))
        return false;
    int64_t n = P.n;
    if (n == 0)
        return true;
    bool is_float = dtype_is_float(t->dtype);
    /* src is read in full first (it may alias t), then reduced into t in
     * index order, rounding to t's dtype after every step as PyTorch's
     * element loop does. */
    double *fv = is_float ? kern_malloc((size_t)n, sizeof *fv) : NULL;
    int64_t *iv = is_float ? NULL : kern_malloc((size_t)n, sizeof *iv);
    int64_t *count = NULL;
    bool ok = fv || iv;
    for (int64_t i = 0; ok && i < n; i++) {
        if (is_float)
            fv[i] = tensor_read_f64(src, P.src_off[i]);
        else
            iv[i] = tensor_read_i64(src, P.src_off[i]);
    }
    if (ok && !include_self) {
        double f0;
        int64_t i0;
        reduction_identity((ScatterReduction)op, t->dtype, &f0, &i0);
        for (int64_t i = 0; i < n; i++) {
            if (is_float)
                tensor_write_f64(t, P.dst[i], f0);
            else
                tensor_write_i64(t, P.dst[i], i0);
        }
    }
    for (int64_t i = 0; ok && i < n; i++) {
        if (is_float)
            tensor_write_f64(t, P.dst[i], reduce_f64((ScatterReduction)op, tensor_read_f64(t, P.dst[i]), fv[i]));
        else
            tensor_write_i64(t, P.dst[i], reduce_i64((ScatterReduction)op, tensor_read_i64(t, P.dst[i]), iv[i]));
    }
    if (ok && op == SR_MEAN) {
        /* count[o - lo]: how many values (self included) reached storage
         * offset o; each reached element is divided once, floor for integers. */
        int64_t lo = P.dst[0], hi = P.dst[0];
        for (int64_t i = 1; i < n; i++) {
            lo = P.dst[i] < lo ? P.dst[i] : lo;
            hi = P.dst[i] > hi ? P.dst[i] : hi;
        }
        count = kern_malloc((size_t)(hi - lo + 1), sizeof *count);
        ok = count != NULL;
        for (int64_t i = 0; ok && i < n; i++)
            count[P.dst[i] - lo] = include_self ? 1 : 0;
        for (int64_t i = 0; ok && i < n; i++)
            count[P.dst[i] - lo]++;
        for (int64_t i = 0; ok && i < n; i++) {
            int64_t k = count[P.dst[i] - lo];
            if (k == 0)
                continue;                 /* already divided */
            count[P.dst[i] - lo] = 0;
            if (is_float) {
                tensor_write_f64(t, P.dst[i], tensor_read_f64(t, P.dst[i]) / (double)k);
            } else {
                int64_t v = tensor_read_i64(t, P.dst[i]), q = v / k;
                if (v % k != 0 && v < 0)
                    q--;
                tensor_write_i64(t, P.dst[i], q);
            }
        }
    }
    free(fv);
    free(iv);
    free(count);
    scatter_plan_free(&P);
    return ok;
}

/* ---------------------------------------------------------------- index_add, bincount, searchsorted */

bool tensor_index_add_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source, double alpha)
{
    int d = tensor_wrap_dim(dim, t->ndim ? t->ndim : 1);
    if (d < 0)
        return false;
    if (index->ndim > 1 || dtype_is_float(index->dtype) || index->dtype == DT_BOOL) {
        tensor_set_error("index_add_(): Index is supposed to be a vector of integers");
        return false;
    }
    int64_t n = tensor_numel(index);
    int64_t src_len = source->ndim ? source->sizes[d < source->ndim ? d : 0] : 1;
    if (source->ndim != t->ndim || (t->ndim && src_len != n)) {
        tensor_set_error("index_add_(): Number of indices (%" PRId64 ") should be equal to "
                         "source.size(dim) (%" PRId64 ")", n, src_len);
        return false;
    }
    int64_t size = t->ndim ? t->sizes[d] : 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t at = tensor_get_flat_int(index, i);
        if (at < -size || at >= size) {
            tensor_set_error("index out of range in self");
            return false;
        }
        if (at < 0)
            at += size;
        Tensor *dst = t->ndim ? tensor_select(t, d, at) : tensor_retain(t);
        Tensor *src = source->ndim ? tensor_select((Tensor *)source, d, i) : tensor_retain((Tensor *)source);
        bool ok = dst && src && tensor_add_(dst, src, alpha);
        tensor_release(dst);
        tensor_release(src);
        if (!ok)
            return false;
    }
    return true;
}

Tensor *tensor_bincount(const Tensor *x, const Tensor *weights, int64_t minlength)
{
    if (x->ndim != 1 || dtype_is_float(x->dtype) || x->dtype == DT_BOOL) {
        tensor_set_error("bincount only supports 1-d non-negative integral inputs.");
        return NULL;
    }
    if (minlength < 0) {
        tensor_set_error("minlength should be >= 0");
        return NULL;
    }
    if (weights && (weights->ndim != 1 || weights->sizes[0] != x->sizes[0])) {
        tensor_set_error("weights should be 1-d and have the same length as input");
        return NULL;
    }
    int64_t n = x->sizes[0], bins = minlength;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tensor_get_flat_int(x, i);
        if (v < 0) {
            tensor_set_error("bincount only supports 1-d non-negative integral inputs.");
            return NULL;
        }
        bins = v + 1 > bins ? v + 1 : bins;
    }
    /* Counts are int64; weighted sums take the weights' float dtype
     * (float64 for integer weights, as PyTorch does). */
    TensorDType dt = !weights ? DT_I64 : weights->dtype == DT_F32 ? DT_F32 : DT_F64;
    Tensor *out = tensor_zeros(dt, 1, &bins);
    for (int64_t i = 0; out && i < n; i++) {
        int64_t v = tensor_get_flat_int(x, i);
        if (weights)
            tensor_set_flat(out, v, tensor_get_flat(out, v) + tensor_get_flat(weights, i));
        else
            tensor_set_flat_int(out, v, tensor_get_flat_int(out, v) + 1);
    }
    return out;
}

/* The insertion point of v in row[0..n) (sorted ascending): the first i with
 * row[i] >= v (left) or > v (right). */
static int64_t insertion_point(const Tensor *sorted, int64_t base, int64_t n, double v, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double m = tensor_get_flat(sorted, base + mid);
        if (right ? m <= v : m < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

Tensor *tensor_searchsorted(const Tensor *sorted, const Tensor *values, bool out_int32, bool right)
{
    if (sorted->ndim == 0) {
        tensor_set_error("torch.searchsorted(): boundaries tensor should have positive dimension, "
                         "but got 0 dimension");
        return NULL;
    }
    bool one_row = sorted->ndim == 1;
    if (!one_row && (values->ndim != sorted->ndim ||
                     memcmp(values->sizes, sorted->sizes, sizeof(int64_t) * (size_t)(sorted->ndim - 1)) != 0)) {
        tensor_set_error("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                         "dimensions of boundaries tensor and input value tensor must match");
        return NULL;
    }
    int64_t n = sorted->sizes[sorted->ndim - 1];
    int64_t per_row = values->ndim ? values->sizes[values->ndim - 1] : 1;
    Tensor *out = tensor_empty(out_int32 ? DT_I32 : DT_I64, values->ndim, values->sizes);
    for (int64_t i = 0; out && i < tensor_numel(values); i++) {
        int64_t base = one_row ? 0 : (i / per_row) * n;
        tensor_set_flat_int(out, i, insertion_point(sorted, base, n, tensor_get_flat(values, i), right));
    }
    return out;
}
