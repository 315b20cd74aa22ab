/* flat_index.c — ops that address a tensor as if it were flattened to one
 * row-major vector: take, put_, masked_scatter_ (the mask's true positions in
 * row-major order consume source elements in order), and take_along_dim
 * (gather along a dim after broadcasting, or over the flattened tensor).
 *
 * Elements move as raw bytes of self's dtype (these ops require source and
 * self to share a dtype); only put_'s accumulate does typed arithmetic.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/* Storage offsets of every element of t, row-major (malloc'd). */
static int64_t *row_major_offsets(const Tensor *t)
{
    int64_t n = tensor_numel(t);
    int64_t *off = kern_malloc((size_t)n, sizeof *off);
    if (!off)
        return NULL;
    TensorIter it;
    tensor_iter_init_single(&it, t);
    for (int64_t i = 0; i < n; i++, tensor_iter_next(&it))
        off[i] = it.offsets[0];
    return off;
}

/* The flat positions in index, wrapped and bounds-checked against numel. */
static int64_t *flat_positions(const char *who, const Tensor *index, int64_t numel)
{
    if (index->dtype != DT_I64) {
        tensor_set_error("%s(): Expected a long tensor for index, but got %s", who, dtype_ts_name(index->dtype));
        return NULL;
    }
    int64_t *pos = kern_read_all_i64(index);
    int64_t n = tensor_numel(index);
    for (int64_t i = 0; pos && i < n; i++) {
        if (pos[i] < -numel || pos[i] >= numel) {
            tensor_set_error("out of range: tried to access index %" PRId64 " on a tensor of %" PRId64 " elements.",
                             pos[i], numel);
            free(pos);
            return NULL;
        }
        if (pos[i] < 0)
            pos[i] += numel;
    }
    return pos;
}

Tensor *tensor_take(const Tensor *t, const Tensor *index)
{
    int64_t numel = tensor_numel(t);
    int64_t *pos = flat_positions("take", index, numel);
    if (!pos)
        return NULL;
    int64_t *off = row_major_offsets(t);
    Tensor *out = off ? tensor_empty(t->dtype, index->ndim, index->sizes) : NULL;
    if (out) {
        size_t es = dtype_size(t->dtype);
        char *dst = tensor_data(out);
        for (int64_t i = 0; i < tensor_numel(index); i++, dst += es)
            memcpy(dst, tensor_elem_ptr(t, off[pos[i]]), es);
    }
    free(off);
    free(pos);
    return out;
}

bool tensor_put_(Tensor *t, const Tensor *index, const Tensor *source, bool accumulate)
{
    int64_t n = tensor_numel(index);
    if (index->dtype != DT_I64) {
        tensor_set_error("put_(): Expected a long tensor for index, but got %s", dtype_ts_name(index->dtype));
        return false;
    }
    if (source->dtype != t->dtype) {
        tensor_set_error("put_(): self and source expected to have the same dtype, but got self.dtype = %s and "
                         "source.dtype = %s", dtype_ts_name(t->dtype), dtype_ts_name(source->dtype));
        return false;
    }
    if (tensor_numel(source) != n) {
        tensor_set_error("put_(): Expected source and index to have the same number of elements, but got "
                         "source.numel() = %" PRId64 ", index.numel() = %" PRId64, tensor_numel(source), n);
        return false;
    }
    int64_t *pos = flat_positions("put_", index, tensor_numel(t));
    int64_t *off = pos ? row_major_offsets(t) : NULL;
    Tensor *src = off ? tensor_clone(source) : NULL;   /* read before writing: source may alias t */
    bool ok = src != NULL;
    if (ok) {
        size_t es = dtype_size(t->dtype);
        const char *s = tensor_data(src);
        for (int64_t i = 0; i < n; i++, s += es) {
            void *dst = tensor_elem_ptr(t, off[pos[i]]);
            if (accumulate)
                kern_accumulate_add(t->dtype, dst, s);
            else
                memcpy(dst, s, es);
        }
    }
    tensor_release(src);
    free(off);
    free(pos);
    return ok;
}

bool tensor_masked_scatter_(Tensor *t, const Tensor *mask, const Tensor *source)
{
    if (mask->dtype != DT_BOOL && mask->dtype != DT_U8) {
        tensor_set_error("masked_scatter_ only supports boolean masks, but got mask with dtype %s",
                         dtype_name(mask->dtype));
        return false;
    }
    if (source->dtype != t->dtype) {
        tensor_set_error("masked_scatter: expected self and source to have same dtypes but got%s and %s",
                         dtype_ts_name(t->dtype), dtype_ts_name(source->dtype));
        return false;
    }
    Tensor *mv = tensor_expand((Tensor *)mask, t->ndim, t->sizes);
    int64_t *m = mv ? kern_read_all_i64(mv) : NULL;
    tensor_release(mv);
    if (!m)
        return false;
    int64_t n = tensor_numel(t), ones = 0;
    for (int64_t i = 0; i < n; i++)
        ones += m[i] != 0;
    bool ok = ones <= tensor_numel(source);
    if (!ok)
        tensor_set_error("Number of elements of source < number of ones in mask");
    Tensor *src = ok ? tensor_clone(source) : NULL;    /* row-major, and safe if it aliases t */
    ok = ok && src;
    if (ok) {
        size_t es = dtype_size(t->dtype);
        const char *s = tensor_data(src);
        TensorIter it;
        tensor_iter_init_single(&it, t);
        for (int64_t i = 0; i < n; i++, tensor_iter_next(&it))
            if (m[i]) {
                memcpy(tensor_elem_ptr(t, it.offsets[0]), s, es);
                s += es;
            }
    }
    tensor_release(src);
    free(m);
    return ok;
}

Tensor *tensor_take_along_dim(const Tensor *t, const Tensor *indices, bool has_dim, int64_t dim)
{
    if (indices->dtype != DT_I64) {
        tensor_set_error("torch.take_along_dim(): dtype of indices should be Long but got %s",
                         dtype_ts_name(indices->dtype));
        return NULL;
    }
    if (!has_dim) {
        /* self.view(-1).gather(0, indices.view(-1)) */
        int64_t all = -1;
        Tensor *flat = tensor_reshape((Tensor *)t, 1, &all);
        Tensor *idx = flat ? tensor_reshape((Tensor *)indices, 1, &all) : NULL;
        Tensor *out = idx ? tensor_gather(flat, 0, idx) : NULL;
        tensor_release(flat);
        tensor_release(idx);
        return out;
    }
    if (t->ndim != indices->ndim) {
        tensor_set_error("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                         "but got %d dimensions for input, and %d dimensions for indices", t->ndim, indices->ndim);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    if (t->ndim == 0)
        return tensor_gather(t, 0, indices);
    /* Both broadcast against each other everywhere but at dim, where each
     * keeps its own size. */
    int64_t want[TENSOR_MAX_DIMS], shape[TENSOR_MAX_DIMS];
    memcpy(want, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    want[d] = indices->sizes[d];
    int nd = tensor_broadcast_shape(t->ndim, want, indices->ndim, indices->sizes, shape);
    Tensor *idx = nd < 0 ? NULL : tensor_expand((Tensor *)indices, nd, shape);
    memcpy(want, indices->sizes, sizeof(int64_t) * (size_t)t->ndim);
    want[d] = t->sizes[d];
    nd = idx ? tensor_broadcast_shape(indices->ndim, want, t->ndim, t->sizes, shape) : -1;
    Tensor *self = nd < 0 ? NULL : tensor_expand((Tensor *)t, nd, shape);
    Tensor *out = self ? tensor_gather(self, d, idx) : NULL;
    tensor_release(idx);
    tensor_release(self);
    return out;
}
