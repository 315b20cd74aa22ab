/* layout.c — memory layout questions: density, overlap, and the strides
 * PyTorch gives a fresh result.
 *
 * The layout of a result is observable in PyTorch (x.t() + 1 is itself
 * "transposed", so a later reshape of it copies instead of aliasing, and
 * .contiguous() of it is a copy), so the reference runtime must lay results
 * out the same way to alias the same way. tensor_empty_like_operands follows
 * TensorIterator: contiguous when every input is contiguous, the inputs'
 * common strides when they are all dense with equal strides, and otherwise
 * the dims sorted by the inputs' strides (an insertion sort whose comparisons
 * skip broadcast dims and break ties by size), then contiguous in that order.
 */
#include <stdlib.h>

#include "tensor/tensor_impl.h"

bool tensor_is_dense(const Tensor *t)
{
    if (t->ndim == 1)
        return t->sizes[0] < 2 || t->strides[0] == 1;
    /* Dims of size >= 2 sorted by stride must be contiguous in that order;
     * dims of size 0 or 1 do not constrain anything. */
    int dims[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] >= 2)
            dims[n++] = d;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t->strides[dims[j - 1]] > t->strides[dims[j]]; j--) {
            int tmp = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = tmp;
        }
    int64_t required = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[dims[i]] != required)
            return false;
        required *= t->sizes[dims[i]];
    }
    return true;
}

/* Byte range [lo, hi) that t's elements occupy in its storage. */
static void byte_range(const Tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t first = t->offset, last = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0)
            first += span;
        else
            last += span;
    }
    int64_t size = (int64_t)dtype_size(t->dtype);
    *lo = first * size;
    *hi = (last + 1) * size;
}

bool tensor_may_overlap(const Tensor *a, const Tensor *b)
{
    if (a->storage != b->storage || tensor_numel(a) == 0 || tensor_numel(b) == 0)
        return false;
    int64_t alo, ahi, blo, bhi;
    byte_range(a, &alo, &ahi);
    byte_range(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

bool tensor_same_geometry(const Tensor *a, const Tensor *b)
{
    if (a->storage != b->storage || a->dtype != b->dtype || !tensor_same_shape(a, b))
        return false;
    if (tensor_numel(a) == 0)
        return true;
    if (a->offset != b->offset)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != 1 && a->strides[d] != b->strides[d])
            return false;
    return true;
}

/* PyTorch's has_internal_overlap answers YES only for a stretched dim; other
 * self-overlapping layouts are "too hard" and pass unchecked there too. */
bool tensor_has_internal_overlap(const Tensor *t)
{
    if (tensor_is_dense(t))
        return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0)
            return true;
    return false;
}

/* TensorIterator::reorder_dimensions' comparison: 1 if dim0 should come after
 * dim1 (in fastest-first order), -1 if before, 0 if no input decides. */
static int compare_dims(int dim0, int dim1, const int64_t *sizes,
                        int64_t (*strides)[TENSOR_MAX_DIMS], int ninputs)
{
    for (int k = 0; k < ninputs; k++) {
        int64_t s0 = strides[k][dim0], s1 = strides[k][dim1];
        if (s0 == 0 || s1 == 0)
            continue;           /* broadcast in one of them: undecided */
        if (s0 < s1)
            return -1;
        if (s0 > s1)
            return 1;
        if (sizes[dim0] > sizes[dim1])
            return 1;
    }
    return 0;
}

/* TensorIterator::reorder_dimensions: perm[j] is the dim that varies j-th
 * fastest, found by an insertion sort (from row-major order) that only moves
 * a dim past another when some input's strides decide it. */
static void sort_dims_by_strides(int ndim, const int64_t *sizes,
                                 int64_t (*strides)[TENSOR_MAX_DIMS], int ninputs, int *perm)
{
    for (int j = 0; j < ndim; j++)
        perm[j] = ndim - 1 - j;
    for (int i = 1; i < ndim; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int cmp = compare_dims(perm[dim0], perm[dim1], sizes, strides, ninputs);
            if (cmp > 0) {
                int tmp = perm[dim0];
                perm[dim0] = perm[dim1];
                perm[dim1] = tmp;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

static bool all_same_shape(int ndim, const int64_t *sizes, const Tensor *const *inputs, int n)
{
    bool scalars = false, tensors = false;
    for (int k = 0; k < n; k++) {
        if (!inputs[k])
            continue;
        if (inputs[k]->ndim == 0)
            scalars = true;
        else
            tensors = true;
        if (inputs[k]->ndim != ndim)
            return false;
        for (int d = 0; d < ndim; d++)
            if (inputs[k]->sizes[d] != sizes[d])
                return false;
    }
    return !(scalars && tensors);
}

/* TensorIterator's fast setup: contiguous inputs give a contiguous result,
 * dense inputs with identical strides give those strides. */
static bool fast_setup_strides(int ndim, const int64_t *sizes, const Tensor *const *inputs, int n,
                               int64_t *strides)
{
    if (!all_same_shape(ndim, sizes, inputs, n))
        return false;
    bool contiguous = true, dense = true;
    const Tensor *first = NULL;
    for (int k = 0; k < n; k++) {
        if (!inputs[k])
            continue;
        contiguous &= tensor_is_contiguous(inputs[k]);
        dense &= tensor_is_dense(inputs[k]);
        if (!first)
            first = inputs[k];
    }
    if (contiguous || !first) {
        tensor_contiguous_strides(ndim, sizes, strides);
        return true;
    }
    if (!dense)
        return false;
    for (int k = 0; k < n; k++) {
        if (!inputs[k])
            continue;
        for (int d = 0; d < ndim; d++)
            if (inputs[k]->strides[d] != first->strides[d])
                return false;
    }
    for (int d = 0; d < ndim; d++)
        strides[d] = first->strides[d];
    return true;
}

Tensor *tensor_empty_like_operands(TensorDType dt, int ndim, const int64_t *sizes,
                                   const Tensor *const *inputs, int ninputs)
{
    int64_t strides[TENSOR_MAX_DIMS];
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", ndim,
                         TENSOR_MAX_DIMS);
        return NULL;
    }
    if (fast_setup_strides(ndim, sizes, inputs, ninputs, strides))
        return tensor_empty_strided(dt, ndim, sizes, strides);

    int64_t (*input_strides)[TENSOR_MAX_DIMS] = calloc(ninputs > 0 ? (size_t)ninputs : 1,
                                                       sizeof *input_strides);
    if (!input_strides) {
        tensor_set_error("out of memory");
        return NULL;
    }
    int used = 0;
    for (int k = 0; k < ninputs; k++) {
        if (!inputs[k])
            continue;
        if (!tensor_broadcast_strides(inputs[k], ndim, sizes, input_strides[used])) {
            free(input_strides);
            return NULL;
        }
        used++;
    }
    int perm[TENSOR_MAX_DIMS];
    sort_dims_by_strides(ndim, sizes, input_strides, used, perm);
    free(input_strides);
    bool row_major = true;
    for (int j = 0; j < ndim; j++)
        row_major &= perm[j] == ndim - 1 - j;
    if (row_major) {
        tensor_contiguous_strides(ndim, sizes, strides);
    } else {
        int64_t next = 1;
        for (int j = 0; j < ndim; j++) {
            strides[perm[j]] = next;
            next *= sizes[perm[j]];
        }
    }
    return tensor_empty_strided(dt, ndim, sizes, strides);
}

/* ATen's infer_dense_strides: the layout permutation of a non-dense t (the
 * same stride sort as above, for t alone), made dense. */
Tensor *tensor_empty_preserving(const Tensor *t, TensorDType dt)
{
    if (tensor_is_dense(t))
        return tensor_empty_strided(dt, t->ndim, t->sizes, t->strides);
    int64_t strides[TENSOR_MAX_DIMS][TENSOR_MAX_DIMS];
    int perm[TENSOR_MAX_DIMS];
    memcpy(strides[0], t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sort_dims_by_strides(t->ndim, t->sizes, strides, 1, perm);
    int64_t out[TENSOR_MAX_DIMS], next = 1;
    for (int j = 0; j < t->ndim; j++) {
        out[perm[j]] = next;
        if (t->sizes[perm[j]] > 1)
            next *= t->sizes[perm[j]];
    }
    return tensor_empty_strided(dt, t->ndim, t->sizes, out);
}
