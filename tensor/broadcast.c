/* broadcast.c — NumPy/PyTorch broadcasting and the strided iterator.
 *
 * Shapes are aligned at their last dim; a dim broadcasts when the sizes are
 * equal or one of them is 1, and missing leading dims count as 1. A tensor
 * seen with a broadcast shape gets stride 0 in every dim it is stretched
 * along, so one TensorIter walks any number of operands in lockstep by
 * adding each operand's own stride when an index advances.
 */
#include <inttypes.h>

#include "tensor/tensor_impl.h"

int tensor_broadcast_shape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out)
{
    int n = na > nb ? na : nb;
    if (na < 0 || nb < 0 || n > TENSOR_MAX_DIMS) {
        tensor_set_error("tensors of %d dimensions are not supported (at most %d)", n,
                         TENSOR_MAX_DIMS);
        return -1;
    }
    /* Fill from the last dim so out may alias a or b. */
    for (int i = n - 1; i >= 0; i--) {
        int offset = n - 1 - i;
        int da = na - 1 - offset, db = nb - 1 - offset;
        int64_t sa = da >= 0 ? a[da] : 1;
        int64_t sb = db >= 0 ? b[db] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            tensor_set_error("The size of tensor a (%" PRId64 ") must match the size of tensor b (%"
                             PRId64 ") at non-singleton dimension %d", sa, sb, i);
            return -1;
        }
        out[i] = sa == 1 ? sb : sa;
    }
    return n;
}

int tensor_try_broadcast_strides(const Tensor *t, int ndim, const int64_t *sizes, int64_t *strides)
{
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        if (d < lead) {
            strides[d] = 0;
            continue;
        }
        int64_t size = t->sizes[d - lead];
        if (size == sizes[d])
            strides[d] = t->strides[d - lead];
        else if (size == 1)
            strides[d] = 0;
        else
            return d;
    }
    return -1;
}

bool tensor_broadcast_strides(const Tensor *t, int ndim, const int64_t *sizes, int64_t *strides)
{
    if (t->ndim > ndim) {
        char have[TENSOR_SHAPE_BUF], want[TENSOR_SHAPE_BUF];
        tensor_set_error("tensor of shape %s cannot be broadcast to shape %s",
                         tensor_format_shape(t->ndim, t->sizes, have, sizeof have),
                         tensor_format_shape(ndim, sizes, want, sizeof want));
        return false;
    }
    int d = tensor_try_broadcast_strides(t, ndim, sizes, strides);
    if (d >= 0) {
        tensor_set_error("The size of tensor a (%" PRId64 ") must match the size of tensor b (%"
                         PRId64 ") at non-singleton dimension %d", sizes[d],
                         t->sizes[d - (ndim - t->ndim)], d);
        return false;
    }
    return true;
}

/* Drops size-1 dims and merges dim d into d+1 wherever every operand steps
 * over d exactly as far as over all of d+1: the walk visits the same offsets
 * in the same order with fewer, longer rows. */
static void coalesce_dims(TensorIter *it)
{
    int n = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->sizes[d] == 1)
            continue;
        bool merge = n > 0;
        for (int k = 0; merge && k < it->noperands; k++)
            merge = it->strides[k][n - 1] == it->strides[k][d] * it->sizes[d];
        if (merge) {
            it->sizes[n - 1] *= it->sizes[d];
            for (int k = 0; k < it->noperands; k++)
                it->strides[k][n - 1] = it->strides[k][d];
            continue;
        }
        it->sizes[n] = it->sizes[d];
        for (int k = 0; k < it->noperands; k++)
            it->strides[k][n] = it->strides[k][d];
        n++;
    }
    it->ndim = n;
}

bool tensor_iter_init(TensorIter *it, int ndim, const int64_t *sizes,
                      const Tensor *const *operands, int noperands)
{
    if (noperands < 0 || noperands > TENSOR_ITER_MAX_OPERANDS) {
        tensor_set_error("internal error: %d iterator operands (at most %d)", noperands,
                         TENSOR_ITER_MAX_OPERANDS);
        return false;
    }
    if (!tensor_checked_numel(ndim, sizes, 1, &it->numel))
        return false;
    it->ndim = ndim;
    it->noperands = noperands;
    for (int d = 0; d < ndim; d++) {
        it->sizes[d] = sizes[d];
        it->index[d] = 0;
    }
    for (int k = 0; k < noperands; k++) {
        if (!tensor_broadcast_strides(operands[k], ndim, sizes, it->strides[k]))
            return false;
        it->offsets[k] = operands[k]->offset;
    }
    if (it->numel > 0)
        coalesce_dims(it);
    return true;
}

void tensor_iter_init_single(TensorIter *it, const Tensor *t)
{
    it->ndim = t->ndim;
    it->noperands = 1;
    it->numel = tensor_numel(t);
    for (int d = 0; d < t->ndim; d++) {
        it->sizes[d] = t->sizes[d];
        it->index[d] = 0;
        it->strides[0][d] = t->strides[d];
    }
    it->offsets[0] = t->offset;
    if (it->numel > 0)
        coalesce_dims(it);
}
