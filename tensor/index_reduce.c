/* index_reduce.c — writes of whole slices picked by a vector of indices
 * along one dim: index_copy_, index_fill_ and index_reduce_ (prod, mean,
 * amax, amin).
 *
 * Each is a loop over the index vector: slice index[i] of self (along dim)
 * is replaced by, filled with, or combined elementwise with slice i of the
 * source, through the elementwise kernels (tensor_copy_, tensor_fill_,
 * tensor_binary_), so dtype rules and NaN handling are theirs. A 0-d self
 * (or source) is seen as one element along a size-1 dim, as PyTorch does.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/* t as a tensor with at least one dim: a 0-d t becomes a (1) view. */
static Tensor *at_least_1d_view(const Tensor *t)
{
    if (t->ndim > 0)
        return tensor_retain((Tensor *)t);
    int64_t one = 1, stride = 1;
    return tensor_make_view(t, 1, &one, &stride, t->offset);
}

/* The int64 values of a 0-d or 1-d index (malloc'd), or NULL with `who`'s
 * messages. */
static int64_t *index_vector(const char *who, const Tensor *index, bool long_message, int64_t *n)
{
    if (index->ndim > 1) {
        if (long_message)
            tensor_set_error("%s(): Index should have dimension 1 or 0 (got %d)", who, index->ndim);
        else
            tensor_set_error("Index has to be a vector/scalar");
        return NULL;
    }
    if (index->dtype != DT_I64) {
        if (long_message)
            tensor_set_error("%s(): Expected a long tensor for index, but got %s", who, dtype_ts_name(index->dtype));
        else
            tensor_set_error("%s(): Expected dtype int64 for index.", who);
        return NULL;
    }
    *n = tensor_numel(index);
    return kern_read_all_i64(index);
}

/* Checks that source has self's shape apart from dim, where it has n
 * entries (index_copy_'s and index_reduce_'s rule). */
static bool source_matches(const char *who, const Tensor *self, const Tensor *source, int d, int64_t n)
{
    int64_t src_len = source->ndim ? source->sizes[d < source->ndim ? d : 0] : 1;
    if (src_len != n) {
        tensor_set_error("%s(): Number of indices (%" PRId64 ") should be equal to source.size(dim) (%" PRId64 ")",
                         who, n, src_len);
        return false;
    }
    if (self->ndim > 0 && source->ndim > 0) {
        if (source->ndim != self->ndim) {
            tensor_set_error("%s(): When source and destination are not scalars, their dimensionality must match. "
                             "Source dimensionality (%d), destination dimensionality (%d)",
                             who, source->ndim, self->ndim);
            return false;
        }
        for (int k = 0; k < self->ndim; k++)
            if (k != d && self->sizes[k] != source->sizes[k]) {
                tensor_set_error("%s(): Source/destination tensor must have same slice shapes. Destination slice "
                                 "shape: %" PRId64 " at dimension %d and source slice shape: %" PRId64
                                 " at dimension %d.", who, self->sizes[k], k, source->sizes[k], k);
                return false;
            }
    }
    return true;
}

bool tensor_index_copy_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source)
{
    int d = tensor_wrap_dim(dim, t->ndim ? t->ndim : 1);
    if (d < 0)
        return false;
    int64_t n;
    int64_t *idx = index_vector("index_copy_", index, true, &n);
    if (!idx)
        return false;
    bool ok = true;
    if (source->dtype != t->dtype) {
        tensor_set_error("index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
                         "(source) %s", dtype_ts_name(t->dtype), dtype_ts_name(source->dtype));
        ok = false;
    }
    ok = ok && source_matches("index_copy_", t, source, d, n);
    Tensor *self1 = ok ? at_least_1d_view(t) : NULL, *src1 = ok ? at_least_1d_view(source) : NULL;
    int64_t size = self1 ? self1->sizes[d] : 0;
    for (int64_t i = 0; ok && i < n; i++)
        if (idx[i] < 0 || idx[i] >= size) {
            tensor_set_error("index_copy_(): index %" PRId64 " is out of bounds for dimension %d with size %" PRId64,
                             idx[i], d, size);
            ok = false;
        }
    /* The source slices are read before any write: source may alias t. */
    Tensor *src_copy = ok ? tensor_clone(src1) : NULL;
    ok = ok && src_copy;
    for (int64_t i = 0; ok && i < n; i++) {
        Tensor *dst = tensor_select(self1, d, idx[i]);
        Tensor *src = dst ? tensor_select(src_copy, d, i) : NULL;
        ok = src && tensor_copy_(dst, src);
        tensor_release(dst);
        tensor_release(src);
    }
    tensor_release(src_copy);
    tensor_release(self1);
    tensor_release(src1);
    free(idx);
    return ok;
}

bool tensor_index_fill_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *value)
{
    if (value->ndim != 0) {
        tensor_set_error("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                         "dimension(s).", value->ndim);
        return false;
    }
    int d = tensor_wrap_dim(dim, t->ndim ? t->ndim : 1);
    if (d < 0)
        return false;
    int64_t n;
    int64_t *idx = index_vector("index_fill_", index, false, &n);
    if (!idx)
        return false;
    Tensor *self1 = at_least_1d_view(t);
    int64_t size = self1 ? self1->sizes[d] : 0;
    bool ok = self1 != NULL;
    /* The value converts once, with PyTorch's overflow check for numbers. */
    bool is_float = dtype_is_float(value->dtype);
    double fv = tensor_read_f64(value, value->offset);
    int64_t iv = tensor_read_i64(value, value->offset);
    if (ok && value->wrapped_number && !tensor_number_fits(t->dtype, is_float, fv, iv))
        ok = false;
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t at = idx[i];
        if (at < -size || at >= size) {
            tensor_set_error("index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, at, d, size);
            ok = false;
            break;
        }
        Tensor *slice = tensor_select(self1, d, at < 0 ? at + size : at);
        ok = slice && (is_float ? tensor_fill_(slice, fv) : tensor_fill_int_(slice, iv));
        tensor_release(slice);
    }
    tensor_release(self1);
    free(idx);
    return ok;
}

typedef enum IndexReduction { IR_PROD, IR_MEAN, IR_AMAX, IR_AMIN } IndexReduction;

/* Fills slice `at` of self with the reduction's identity (include_self
 * false): 1, 0, or the lowest/highest value of the dtype. */
static bool fill_identity(Tensor *slice, IndexReduction op)
{
    static const int64_t lo[DT_COUNT] = {0, 0, INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, 0, 0};
    static const int64_t hi[DT_COUNT] = {1, UINT8_MAX, INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX, 0, 0};
    switch (op) {
    case IR_PROD: return tensor_fill_int_(slice, 1);
    case IR_MEAN: return tensor_fill_int_(slice, 0);
    case IR_AMAX:
        return dtype_is_float(slice->dtype) ? tensor_fill_(slice, -INFINITY) : tensor_fill_int_(slice, lo[slice->dtype]);
    case IR_AMIN:
        return dtype_is_float(slice->dtype) ? tensor_fill_(slice, INFINITY) : tensor_fill_int_(slice, hi[slice->dtype]);
    }
    return false;
}

bool tensor_index_reduce_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source, const char *reduce,
                          bool include_self)
{
    static const char *const names[] = {"prod", "mean", "amax", "amin"};
    int op = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(reduce, names[k]) == 0)
            op = k;
    if (op < 0) {
        tensor_set_error("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", reduce);
        return false;
    }
    int d = tensor_wrap_dim(dim, t->ndim ? t->ndim : 1);
    if (d < 0)
        return false;
    if (source->dtype != t->dtype) {
        tensor_set_error("index_reduce_(): self and source expected to have the same dtype, but got (self) %s and "
                         "(source) %s", dtype_ts_name(t->dtype), dtype_ts_name(source->dtype));
        return false;
    }
    int64_t n;
    int64_t *idx = index_vector("index_reduce_", index, true, &n);
    if (!idx)
        return false;
    bool ok = source_matches("index_reduce_", t, source, d, n);
    Tensor *self1 = ok ? at_least_1d_view(t) : NULL, *src1 = ok ? at_least_1d_view(source) : NULL;
    int64_t size = self1 ? self1->sizes[d] : 0;
    for (int64_t i = 0; ok && i < n; i++)
        if (idx[i] < 0 || idx[i] >= size) {
            tensor_set_error("index out of range in self");
            ok = false;
        }
    Tensor *src_copy = ok ? tensor_clone(src1) : NULL;     /* source may alias t */
    int64_t *count = ok && op == IR_MEAN ? kern_malloc((size_t)size, sizeof *count) : NULL;
    ok = ok && src_copy && (op != IR_MEAN || size == 0 || count);
    for (int64_t j = 0; ok && count && j < size; j++)
        count[j] = include_self ? 1 : 0;
    for (int64_t i = 0; ok && !include_self && i < n; i++) {
        Tensor *slice = tensor_select(self1, d, idx[i]);
        ok = slice && fill_identity(slice, (IndexReduction)op);
        tensor_release(slice);
    }
    static const BinaryOp combine[] = {BIN_MUL, BIN_ADD, BIN_MAXIMUM, BIN_MINIMUM};
    for (int64_t i = 0; ok && i < n; i++) {
        Tensor *dst = tensor_select(self1, d, idx[i]);
        Tensor *src = dst ? tensor_select(src_copy, d, i) : NULL;
        ok = src && tensor_binary_(combine[op], dst, src);
        if (count)
            count[idx[i]]++;
        tensor_release(dst);
        tensor_release(src);
    }
    /* mean: divide by the counts (those of 0 stay), floor for integers. */
    for (int64_t j = 0; ok && count && j < size; j++) {
        if (count[j] <= 1)
            continue;
        Tensor *dst = tensor_select(self1, d, j);
        Tensor *k = dst ? tensor_scalar_int(DT_I64, count[j]) : NULL;
        if (k)
            k->wrapped_number = true;
        ok = k && tensor_binary_(dtype_is_float(t->dtype) ? BIN_DIV : BIN_DIV_FLOOR, dst, k);
        tensor_release(dst);
        tensor_release(k);
    }
    free(count);
    tensor_release(src_copy);
    tensor_release(self1);
    tensor_release(src1);
    free(idx);
    return ok;
}
