/* views.c — the view ops: new geometry over the same storage.
 *
 * Each op computes new (sizes, strides, offset) from t's and wraps them in a
 * Tensor that shares t's storage, so writes through any alias are seen by
 * all. The arithmetic and the error messages follow ATen (TensorShape.cpp):
 * Python clamping in slice, computeStride for view (a view exists iff every
 * group of new dims lies inside one run of old dims that is contiguous in
 * memory), inferExpandGeometry for expand, and the split sizing of
 * chunk/split. reshape and flatten alias when computeStride succeeds and
 * copy otherwise, which is exactly when PyTorch copies.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#define SHAPE_BUF 512

static Tensor *view_with(Tensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset)
{
    return tensor_make_view(t, ndim, sizes, strides, offset);
}

Tensor *tensor_alias(Tensor *t)
{
    return view_with(t, t->ndim, t->sizes, t->strides, t->offset);
}

/* maybe_wrap_dim for a position inside a dim of `size` elements (narrow's
 * start), with the same message as for dims. */
static bool wrap_position(int64_t *pos, int64_t size)
{
    int64_t n = size > 0 ? size : 1;
    if (*pos < -n || *pos >= n) {
        tensor_set_error("Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                         "], but got %" PRId64 ")", -n, n - 1, *pos);
        return false;
    }
    if (*pos < 0)
        *pos += n;
    return true;
}

/* t's sizes and strides without dim d (select, squeeze); returns the count. */
static int drop_dim(const Tensor *t, int d, int64_t *sizes, int64_t *strides)
{
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    return n;
}

/* dim wrapped for an op that needs at least one dim: -1 with zero_dim_error
 * (PyTorch's message for that op) for a 0-d tensor. */
static int wrap_dim_of_nonscalar(const Tensor *t, int64_t dim, const char *zero_dim_error)
{
    if (t->ndim == 0) {
        tensor_set_error("%s", zero_dim_error);
        return -1;
    }
    return tensor_wrap_dim(dim, t->ndim);
}

Tensor *tensor_select(Tensor *t, int64_t dim, int64_t index)
{
    char shape[SHAPE_BUF];
    int d = wrap_dim_of_nonscalar(t, dim, "select() cannot be applied to a 0-dim tensor.");
    if (d < 0)
        return NULL;
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        tensor_set_error("select(): index %" PRId64 " out of range for tensor of size %s at "
                         "dimension %d", index,
                         tensor_format_shape(t->ndim, t->sizes, shape, sizeof shape), d);
        return NULL;
    }
    if (index < 0)
        index += size;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = drop_dim(t, d, sizes, strides);
    return view_with(t, n, sizes, strides, t->offset + tensor_mul_wrap(index, t->strides[d]));
}

int64_t tensor_slice_bounds(int64_t size, int64_t *start, int64_t *end)
{
    int64_t s = *start, e = *end;
    if (s < 0)
        s += size;          /* cannot overflow: size >= 0 > s */
    if (e < 0)
        e += size;
    s = s < 0 ? 0 : s > size ? size : s;
    e = e < s ? s : e > size ? size : e;
    *start = s;
    *end = e;
    return e - s;
}

Tensor *tensor_slice(Tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step)
{
    int d = wrap_dim_of_nonscalar(t, dim, "slice() cannot be applied to a 0-dim tensor.");
    if (d < 0)
        return NULL;
    if (step <= 0) {
        tensor_set_error("slice step must be positive");
        return NULL;
    }
    int64_t len = tensor_slice_bounds(t->sizes[d], &start, &end);
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sizes[d] = len == 0 ? 0 : (len - 1) / step + 1;  /* ceil(len / step) without overflow */
    /* A step wider than the dim leaves at most one element, whose stride is
     * never used; keep the product from overflowing then. */
    if (!ckd_mul_i64(&strides[d], t->strides[d], step))
        strides[d] = t->strides[d];
    return view_with(t, t->ndim, sizes, strides, t->offset + tensor_mul_wrap(start, t->strides[d]));
}

Tensor *tensor_narrow(Tensor *t, int64_t dim, int64_t start, int64_t length)
{
    int d = wrap_dim_of_nonscalar(t, dim, "narrow() cannot be applied to a 0-dim tensor.");
    if (d < 0)
        return NULL;
    int64_t size = t->sizes[d];
    if (start != size && !wrap_position(&start, size))
        return NULL;
    if (length < 0 || start > size - length) {
        tensor_set_error("start (%" PRId64 ") + length (%" PRId64 ") exceeds dimension size (%"
                         PRId64 ").", start, length, size);
        return NULL;
    }
    return tensor_slice(t, d, start, start + length, 1);
}

/* ATen's infer_size: resolves one -1 against numel; writes out. */
bool tensor_infer_shape(int n, const int64_t *shape, int64_t numel, int64_t *out)
{
    char buf[SHAPE_BUF];
    int infer = -1;
    int64_t known = 1;
    bool overflow = false;
    if (n < 0 || n > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", n,
                         TENSOR_MAX_DIMS);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) {
                tensor_set_error("only one dimension can be inferred");
                return false;
            }
            infer = i;
        } else if (shape[i] >= 0) {
            if (!ckd_mul_i64(&known, known, shape[i]))
                overflow = true;
        } else {
            tensor_set_error("invalid shape dimension %" PRId64, shape[i]);
            return false;
        }
        out[i] = shape[i];
    }
    if (!overflow && (numel == known || (infer >= 0 && known > 0 && numel % known == 0))) {
        if (infer >= 0) {
            if (known == 0) {
                tensor_set_error("cannot reshape tensor of 0 elements into shape %s because the "
                                 "unspecified dimension size -1 can be any value and is ambiguous",
                                 tensor_format_shape(n, shape, buf, sizeof buf));
                return false;
            }
            out[infer] = numel / known;
        }
        return true;
    }
    tensor_set_error("shape '%s' is invalid for input of size %" PRId64,
                     tensor_format_shape(n, shape, buf, sizeof buf), numel);
    return false;
}

/* ATen's computeStride: strides that let (new_n, new_sizes) view memory laid
 * out as t, or false when a new dim would span two non-contiguous chunks. */
bool tensor_view_strides(const Tensor *t, int new_n, const int64_t *new_sizes, int64_t *new_strides)
{
    if (t->ndim == 0) {
        for (int i = 0; i < new_n; i++)
            new_strides[i] = 1;
        return true;
    }
    int64_t numel = tensor_numel(t);
    if (numel == 0) {
        bool same = new_n == t->ndim;
        for (int i = 0; same && i < new_n; i++)
            same = new_sizes[i] == t->sizes[i];
        if (same) {
            memcpy(new_strides, t->strides, sizeof(int64_t) * (size_t)new_n);
            return true;
        }
        for (int d = new_n - 1; d >= 0; d--) {
            if (d == new_n - 1)
                new_strides[d] = 1;
            else
                new_strides[d] = tensor_mul_wrap(new_sizes[d + 1] > 1 ? new_sizes[d + 1] : 1,
                                                 new_strides[d + 1]);
        }
        return true;
    }
    int view_d = new_n - 1;
    int64_t chunk_base_stride = t->strides[t->ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = t->ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= t->sizes[tensor_d];
        /* End of a contiguous chunk of old dims: the new dims must tile it. */
        if (tensor_d == 0 ||
            (t->sizes[tensor_d - 1] != 1 &&
             t->strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (tensor_d > 0) {
                chunk_base_stride = t->strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

Tensor *tensor_view(Tensor *t, int n, const int64_t *sizes)
{
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    if (!tensor_infer_shape(n, sizes, tensor_numel(t), shape))
        return NULL;
    if (!tensor_view_strides(t, n, shape, strides)) {
        tensor_set_error("view size is not compatible with input tensor's size and stride (at "
                         "least one dimension spans across two contiguous subspaces). Use "
                         ".reshape(...) instead.");
        return NULL;
    }
    return view_with(t, n, shape, strides, t->offset);
}

Tensor *tensor_reshape(Tensor *t, int n, const int64_t *sizes)
{
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    if (!tensor_infer_shape(n, sizes, tensor_numel(t), shape))
        return NULL;
    if (tensor_view_strides(t, n, shape, strides))
        return view_with(t, n, shape, strides, t->offset);
    Tensor *copy = tensor_clone(t);
    if (!copy)
        return NULL;
    Tensor *result = tensor_view(copy, n, shape);
    tensor_release(copy);
    return result;
}

Tensor *tensor_squeeze(Tensor *t)
{
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 1)
            continue;
        sizes[n] = t->sizes[d];
        strides[n++] = t->strides[d];
    }
    return view_with(t, n, sizes, strides, t->offset);
}

Tensor *tensor_squeeze_dim(Tensor *t, int64_t dim)
{
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    if (t->ndim == 0 || t->sizes[d] != 1)
        return tensor_alias(t);
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = drop_dim(t, d, sizes, strides);
    return view_with(t, n, sizes, strides, t->offset);
}

static bool check_new_ndim(int ndim)
{
    if (ndim > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", ndim,
                         TENSOR_MAX_DIMS);
        return false;
    }
    return true;
}

Tensor *tensor_unsqueeze(Tensor *t, int64_t dim)
{
    if (!check_new_ndim(t->ndim + 1))
        return NULL;
    int d = tensor_wrap_dim(dim, t->ndim + 1);
    if (d < 0)
        return NULL;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            /* ATen's inferUnsqueezeGeometry picks this stride. */
            strides[i] = d >= t->ndim ? 1 : tensor_mul_wrap(t->sizes[d], t->strides[d]);
        } else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j++];
        }
    }
    return view_with(t, t->ndim + 1, sizes, strides, t->offset);
}

Tensor *tensor_expand(Tensor *t, int n, const int64_t *target)
{
    char want[SHAPE_BUF], have[SHAPE_BUF];
    if (n < t->ndim) {
        tensor_set_error("expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) "
                         "must be greater or equal to the number of dimensions in the tensor (%d)",
                         dtype_ts_name(t->dtype),
                         tensor_format_shape(t->ndim, t->sizes, have, sizeof have),
                         tensor_format_shape(n, target, want, sizeof want), n, t->ndim);
        return NULL;
    }
    if (!check_new_ndim(n))
        return NULL;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    for (int i = n - 1; i >= 0; i--) {
        int dim = t->ndim - (n - i);
        int64_t size = dim >= 0 ? t->sizes[dim] : 1;
        /* A new leading dim of size 1 gets the stride that would make it
         * contiguous with the dim after it (0 after the last), as ATen. */
        int64_t stride = dim >= 0 ? t->strides[dim] : (i + 1 < n ? tensor_mul_wrap(sizes[i + 1], strides[i + 1]) : 0);
        int64_t want_size = target[i];
        if (want_size == -1) {
            if (dim < 0) {
                tensor_set_error("The expanded size of the tensor (-1) isn't allowed in a leading, "
                                 "non-existing dimension %d", i);
                return NULL;
            }
            want_size = size;
        }
        if (want_size < 0) {
            tensor_set_error("expand: invalid size %" PRId64 " at dimension %d (target sizes %s)",
                             want_size, i, tensor_format_shape(n, target, want, sizeof want));
            return NULL;
        }
        if (size != want_size) {
            if (size != 1) {
                tensor_set_error("The expanded size of the tensor (%" PRId64 ") must match the "
                                 "existing size (%" PRId64 ") at non-singleton dimension %d.  "
                                 "Target sizes: %s.  Tensor sizes: %s", want_size, size, i,
                                 tensor_format_shape(n, target, want, sizeof want),
                                 tensor_format_shape(t->ndim, t->sizes, have, sizeof have));
                return NULL;
            }
            size = want_size;
            stride = 0;
        }
        sizes[i] = size;
        strides[i] = stride;
    }
    int64_t numel;
    if (!tensor_checked_numel(n, sizes, 1, &numel))
        return NULL;
    return view_with(t, n, sizes, strides, t->offset);
}

Tensor *tensor_permute(Tensor *t, int n, const int64_t *dims)
{
    if (n != t->ndim) {
        tensor_set_error("permute(sparse_coo): number of dimensions in the tensor input does not "
                         "match the length of the desired ordering of dimensions i.e. input.dim() "
                         "= %d is not equal to len(dims) = %d", t->ndim, n);
        return NULL;
    }
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int d = tensor_wrap_dim(dims[i], t->ndim);
        if (d < 0)
            return NULL;
        if (seen[d]) {
            tensor_set_error("permute(): duplicate dims are not allowed.");
            return NULL;
        }
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return view_with(t, n, sizes, strides, t->offset);
}

Tensor *tensor_transpose(Tensor *t, int64_t d0, int64_t d1)
{
    int a = tensor_wrap_dim(d0, t->ndim);
    int b = a < 0 ? -1 : tensor_wrap_dim(d1, t->ndim);
    if (a < 0 || b < 0)
        return NULL;
    Tensor *v = tensor_alias(t);
    if (v && t->ndim > 0) {
        v->sizes[a] = t->sizes[b];
        v->sizes[b] = t->sizes[a];
        v->strides[a] = t->strides[b];
        v->strides[b] = t->strides[a];
    }
    return v;
}

Tensor *tensor_t(Tensor *t)
{
    if (t->ndim > 2) {
        tensor_set_error("t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
        return NULL;
    }
    if (t->ndim < 2)
        return tensor_alias(t);
    return tensor_transpose(t, 0, 1);
}

Tensor *tensor_diagonal(Tensor *t, int64_t offset, int64_t d1, int64_t d2)
{
    int a = tensor_wrap_dim(d1, t->ndim);
    int b = a < 0 ? -1 : tensor_wrap_dim(d2, t->ndim);
    if (a < 0 || b < 0)
        return NULL;
    if (a == b) {
        tensor_set_error("diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, d1, d2);
        return NULL;
    }
    int64_t diag_size, storage_offset = t->offset;
    if (offset >= 0) {
        int64_t rest = t->sizes[b] - offset;
        diag_size = t->sizes[a] < rest ? t->sizes[a] : rest;
    } else {
        int64_t rest = t->sizes[a] + offset;
        diag_size = rest < t->sizes[b] ? rest : t->sizes[b];
    }
    if (diag_size < 0)
        diag_size = 0;
    if (diag_size > 0)
        storage_offset += offset >= 0 ? offset * t->strides[b] : -offset * t->strides[a];
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == a || i == b)
            continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    sizes[n] = diag_size;
    strides[n++] = t->strides[a] + t->strides[b];
    return view_with(t, n, sizes, strides, storage_offset);
}

Tensor *tensor_flatten(Tensor *t, int64_t start, int64_t end)
{
    int s = tensor_wrap_dim(start, t->ndim);
    int e = s < 0 ? -1 : tensor_wrap_dim(end, t->ndim);
    if (s < 0 || e < 0)
        return NULL;
    if (s > e) {
        tensor_set_error("flatten() has invalid args: start_dim cannot come after end_dim");
        return NULL;
    }
    if (t->ndim == 0) {
        int64_t one = 1;
        return tensor_reshape(t, 1, &one);
    }
    if (s == e)
        return tensor_alias(t);
    int64_t shape[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < s; i++)
        shape[n++] = t->sizes[i];
    int64_t collapsed = 1;
    for (int i = s; i <= e; i++)
        collapsed *= t->sizes[i];   /* bounded by numel, which fits */
    shape[n++] = collapsed;
    for (int i = e + 1; i < t->ndim; i++)
        shape[n++] = t->sizes[i];
    return tensor_reshape(t, n, shape);
}

Tensor *tensor_unflatten(Tensor *t, int64_t dim, int n, const int64_t *sizes)
{
    char buf[SHAPE_BUF];
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    if (t->ndim == 0) {
        tensor_set_error("Dimension specified as %" PRId64 " but tensor has no dimensions", dim);
        return NULL;
    }
    if (n <= 0) {
        tensor_set_error("unflatten: sizes must be non-empty");
        return NULL;
    }
    if (!check_new_ndim(t->ndim - 1 + n))
        return NULL;
    int64_t size = t->sizes[d];
    int64_t inferred[TENSOR_MAX_DIMS];
    if (!tensor_infer_shape(n, sizes, size, inferred)) {
        tensor_set_error("unflatten: Provided sizes %s don't multiply up to the size of dim %d (%"
                         PRId64 ") in the input tensor",
                         tensor_format_shape(n, sizes, buf, sizeof buf), d, size);
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < d; i++)
        shape[m++] = t->sizes[i];
    for (int i = 0; i < n; i++)
        shape[m++] = inferred[i];
    for (int i = d + 1; i < t->ndim; i++)
        shape[m++] = t->sizes[i];
    return tensor_view(t, m, shape);
}

Tensor *tensor_movedim(Tensor *t, int64_t src, int64_t dst)
{
    int s = tensor_wrap_dim(src, t->ndim);
    int d = s < 0 ? -1 : tensor_wrap_dim(dst, t->ndim);
    if (s < 0 || d < 0)
        return NULL;
    if (t->ndim == 0)
        return tensor_alias(t);
    /* The other dims keep their order; src lands at position dst. */
    int64_t perm[TENSOR_MAX_DIMS];
    for (int i = 0, next = 0; i < t->ndim; i++) {
        if (i == d) {
            perm[i] = s;
            continue;
        }
        if (next == s)
            next++;
        perm[i] = next++;
    }
    return tensor_permute(t, t->ndim, perm);
}

/* ---------------------------------------------------------------- lists */

static Tensor **view_list_new(int64_t count)
{
    if (count < 0 || count > INT_MAX / 2) {
        tensor_set_error("too many pieces (%" PRId64 ")", count);
        return NULL;
    }
    Tensor **list = calloc((size_t)(count > 0 ? count : 1), sizeof *list);
    if (!list)
        tensor_set_error("out of memory allocating %" PRId64 " views", count);
    return list;
}

static Tensor **view_list_fail(Tensor **list, int64_t filled)
{
    for (int64_t i = 0; i < filled; i++)
        tensor_release(list[i]);
    free(list);
    return NULL;
}

Tensor **tensor_split_sizes(Tensor *t, int n, const int64_t *sizes, int64_t dim, int *count)
{
    char buf[SHAPE_BUF];
    int d = wrap_dim_of_nonscalar(t, dim, "split expects at least a 1-dimensional tensor");
    if (d < 0)
        return NULL;
    int64_t total = 0;
    bool overflow = false;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            tensor_set_error("split_with_sizes expects split_sizes have only non-negative entries, "
                             "but got split_sizes=%s", tensor_format_shape(n, sizes, buf, sizeof buf));
            return NULL;
        }
        overflow |= !ckd_add_i64(&total, total, sizes[i]);
    }
    if (overflow || total != t->sizes[d]) {
        tensor_set_error("split_with_sizes expects split_sizes to sum exactly to %" PRId64
                         " (input tensor's size at dimension %d), but got split_sizes=%s",
                         t->sizes[d], d, tensor_format_shape(n, sizes, buf, sizeof buf));
        return NULL;
    }
    Tensor **list = view_list_new(n);
    if (!list)
        return NULL;
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        list[i] = tensor_slice(t, d, start, start + sizes[i], 1);
        if (!list[i])
            return view_list_fail(list, i);
        start += sizes[i];
    }
    *count = n;
    return list;
}

Tensor **tensor_split(Tensor *t, int64_t split_size, int64_t dim, int *count)
{
    int d = wrap_dim_of_nonscalar(t, dim, "split expects at least a 1-dimensional tensor");
    if (d < 0)
        return NULL;
    if (split_size < 0) {
        tensor_set_error("split expects split_size be non-negative, but got split_size=%" PRId64,
                         split_size);
        return NULL;
    }
    int64_t dim_size = t->sizes[d];
    if (split_size == 0 && dim_size != 0) {
        tensor_set_error("split_size can only be 0 if dimension size is 0, but got dimension size "
                         "of %" PRId64, dim_size);
        return NULL;
    }
    /* At least one piece, also when split_size exceeds the dim. */
    int64_t pieces = 1;
    if (split_size != 0) {
        pieces = dim_size == 0 ? 0 : (dim_size - 1) / split_size + 1;
        if (pieces < 1)
            pieces = 1;
    }
    Tensor **list = view_list_new(pieces);
    if (!list)
        return NULL;
    for (int64_t i = 0; i < pieces; i++) {
        int64_t start = i * split_size;
        int64_t length = i < pieces - 1 ? split_size : dim_size - start;
        list[i] = tensor_narrow(t, d, start, length);
        if (!list[i])
            return view_list_fail(list, i);
    }
    *count = (int)pieces;
    return list;
}

Tensor **tensor_chunk(Tensor *t, int64_t chunks, int64_t dim, int *count)
{
    if (t->ndim == 0) {
        tensor_set_error("chunk expects at least a 1-dimensional tensor");
        return NULL;
    }
    if (chunks <= 0) {
        tensor_set_error("chunk expects `chunks` to be greater than 0, got: %" PRId64, chunks);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    int64_t dim_size = t->sizes[d];
    /* ceil(dim_size / chunks): pieces of that size, the last one shorter, so
     * there may be fewer than `chunks` pieces. */
    int64_t split_size = dim_size == 0 ? 0 : (dim_size - 1) / chunks + 1;
    if (split_size == 0 && dim_size == 0) {
        /* PyTorch keeps `chunks` empty pieces here. */
        Tensor **list = view_list_new(chunks);
        if (!list)
            return NULL;
        for (int64_t i = 0; i < chunks; i++) {
            list[i] = tensor_slice(t, d, 0, 0, 1);
            if (!list[i])
                return view_list_fail(list, i);
        }
        *count = (int)chunks;
        return list;
    }
    return tensor_split(t, split_size, d, count);
}

Tensor **tensor_unbind(Tensor *t, int64_t dim, int *count)
{
    if (t->ndim == 0) {
        tensor_set_error("Dimension specified as %" PRId64 " but tensor has no dimensions", dim);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    int64_t n = t->sizes[d];
    Tensor **list = view_list_new(n);
    if (!list)
        return NULL;
    for (int64_t i = 0; i < n; i++) {
        list[i] = tensor_select(t, d, i);
        if (!list[i])
            return view_list_fail(list, i);
    }
    *count = (int)n;
    return list;
}

/* ---------------------------------------------------------------- tensor_split */

Tensor **tensor_split_sections(Tensor *t, int64_t sections, int64_t dim, int *count)
{
    if (t->ndim == 0) {
        tensor_set_error("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        return NULL;
    }
    if (sections <= 0) {
        tensor_set_error("number of sections must be larger than 0, got %" PRId64, sections);
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    /* The first size % sections pieces get one extra element. */
    int64_t size = t->sizes[d], smallest = size / sections, extra = size % sections;
    Tensor **list = view_list_new(sections);
    if (!list)
        return NULL;
    int64_t start = 0;
    for (int64_t i = 0; i < sections; i++) {
        int64_t len = smallest + (i < extra ? 1 : 0);
        list[i] = tensor_slice(t, d, start, start + len, 1);
        if (!list[i])
            return view_list_fail(list, i);
        start += len;
    }
    *count = (int)sections;
    return list;
}

Tensor **tensor_split_indices(Tensor *t, int n, const int64_t *indices, int64_t dim, int *count)
{
    if (t->ndim == 0) {
        tensor_set_error("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        return NULL;
    }
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    Tensor **list = view_list_new((int64_t)n + 1);
    if (!list)
        return NULL;
    /* Each piece is a Python slice [previous index, index). */
    int64_t start = 0;
    for (int i = 0; i <= n; i++) {
        int64_t end = i < n ? indices[i] : t->sizes[d];
        list[i] = tensor_slice(t, d, start, end, 1);
        if (!list[i])
            return view_list_fail(list, i);
        start = end;
    }
    *count = n + 1;
    return list;
}

/* ---------------------------------------------------------------- unfold, as_strided */

Tensor *tensor_unfold(Tensor *t, int64_t dimension, int64_t size, int64_t step)
{
    int d = tensor_wrap_dim(dimension, t->ndim ? t->ndim : 1);
    if (d < 0 || !check_new_ndim(t->ndim + 1))
        return NULL;
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size) {
        tensor_set_error("maximum size for tensor at dimension %d is %" PRId64 " but size is %" PRId64, d, max_size,
                         size);
        return NULL;
    }
    if (step <= 0) {
        tensor_set_error("step is %" PRId64 " but must be > 0", step);
        return NULL;
    }
    if (size < 0) {
        tensor_set_error("size is %" PRId64 " but must be >= 0", size);
        return NULL;
    }
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sizes[t->ndim] = size;
    strides[t->ndim] = t->ndim == 0 ? 1 : t->strides[d];
    if (t->ndim > 0) {
        sizes[d] = (sizes[d] - size) / step + 1;
        strides[d] *= step;
    }
    return view_with(t, t->ndim + 1, sizes, strides, t->offset);
}

Tensor *tensor_as_strided(Tensor *t, int n, const int64_t *sizes, const int64_t *strides, bool has_offset,
                          int64_t offset)
{
    char sb[SHAPE_BUF], tb[SHAPE_BUF];
    if (!check_new_ndim(n))
        return NULL;
    if (!has_offset)
        offset = t->offset;
    if (offset < 0) {
        tensor_set_error("Tensor: invalid storage offset %" PRId64, offset);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (strides[i] < 0) {
            tensor_set_error("as_strided: Negative strides are not supported at the moment, got strides: %s",
                             tensor_format_shape(n, strides, sb, sizeof sb));
            return NULL;
        }
        if (sizes[i] < 0) {
            tensor_set_error("Trying to create tensor with negative dimension %" PRId64 ": %s", sizes[i],
                             tensor_format_shape(n, sizes, sb, sizeof sb));
            return NULL;
        }
    }
    /* The highest element addressed must lie inside the storage. */
    int64_t need = 1;
    bool empty = false;
    for (int i = 0; i < n; i++) {
        empty |= sizes[i] == 0;
        need += (sizes[i] - 1) * strides[i];
    }
    int64_t es = (int64_t)dtype_size(t->dtype), have = (int64_t)t->storage->nbytes / es;
    if (!empty && offset + need > have) {
        tensor_set_error("setStorage: sizes %s, strides %s, storage offset %" PRId64 ", and itemsize %" PRId64
                         " requiring a storage size of %" PRId64 " are out of bounds for storage of size %" PRId64,
                         tensor_format_shape(n, sizes, sb, sizeof sb), tensor_format_shape(n, strides, tb, sizeof tb),
                         offset, es, (offset + need) * es, have * es);
        return NULL;
    }
    return view_with(t, n, sizes, strides, offset);
}
