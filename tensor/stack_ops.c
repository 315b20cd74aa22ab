/* stack_ops.c — NumPy-style shape helpers, each defined by PyTorch as a
 * composition of the basic shape ops and built here the same way:
 * atleast_{1,2,3}d (views adding size-1 dims), hstack/vstack/dstack/
 * column_stack (cat after atleast_Nd), tile (repeat after padding the
 * repeats), rot90 (flip + transpose), diagflat (diag of the flattened
 * input), sum_to_size (sum over the broadcast dims) and fftshift/ifftshift
 * (a roll by half of each dim).
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- atleast */

Tensor *tensor_atleast_nd(Tensor *t, int n)
{
    if (t->ndim >= n)
        return tensor_retain(t);
    int64_t sizes[3] = {1, 1, 1};
    switch (t->ndim) {
    case 0:
        return tensor_view(t, n, sizes);
    case 1:
        if (n == 2)
            return tensor_unsqueeze(t, 0);
        /* (N) -> (1, N, 1) */
        sizes[1] = t->sizes[0];
        return tensor_reshape(t, 3, sizes);
    default:                            /* 2 -> 3: (M, N) -> (M, N, 1) */
        return tensor_unsqueeze(t, -1);
    }
}

/* ---------------------------------------------------------------- stacking */

/* cat of fn(ts[i]) along dim; dim < 0 picks hstack's rule (0 for 1-d
 * pieces, else 1). */
static Tensor *cat_mapped(Tensor *const *ts, int n, const char *who, int atleast, bool columns, int64_t dim)
{
    if (n == 0) {
        tensor_set_error("%s expects a non-empty TensorList", who);
        return NULL;
    }
    Tensor **pieces = kern_malloc((size_t)n, sizeof *pieces);
    if (!pieces)
        return NULL;
    int made = 0;
    for (; made < n; made++) {
        Tensor *t = ts[made];
        if (columns && t->ndim <= 1) {
            int64_t sizes[2] = {tensor_numel(t), 1};
            pieces[made] = tensor_reshape(t, 2, sizes);
        } else {
            pieces[made] = tensor_atleast_nd(t, atleast);
        }
        if (!pieces[made])
            break;
    }
    Tensor *out = NULL;
    if (made == n) {
        if (dim < 0)
            dim = pieces[0]->ndim == 1 ? 0 : 1;
        out = tensor_cat(pieces, n, dim);
    }
    for (int i = 0; i < made; i++)
        tensor_release(pieces[i]);
    free(pieces);
    return out;
}

Tensor *tensor_hstack(Tensor *const *ts, int n) { return cat_mapped(ts, n, "hstack", 1, false, -1); }
Tensor *tensor_vstack(Tensor *const *ts, int n) { return cat_mapped(ts, n, "vstack", 2, false, 0); }
Tensor *tensor_dstack(Tensor *const *ts, int n) { return cat_mapped(ts, n, "dstack", 3, false, 2); }
Tensor *tensor_column_stack(Tensor *const *ts, int n) { return cat_mapped(ts, n, "column_stack", 0, true, 1); }

/* ---------------------------------------------------------------- tile, rot90, diagflat */

Tensor *tensor_tile(const Tensor *t, int n, const int64_t *reps)
{
    if (t->ndim <= n)
        return tensor_repeat(t, n, reps);
    /* Fewer repeats than dims: the leading dims repeat once. */
    int64_t padded[TENSOR_MAX_DIMS];
    int pad = t->ndim - n;
    for (int i = 0; i < pad; i++)
        padded[i] = 1;
    memcpy(padded + pad, reps, sizeof(int64_t) * (size_t)n);
    return tensor_repeat(t, t->ndim, padded);
}

Tensor *tensor_rot90(const Tensor *t, int64_t k, int n, const int64_t *dims)
{
    if (n != 2) {
        tensor_set_error("expected total rotation dims == 2, but got dims = %d", n);
        return NULL;
    }
    int total = t->ndim;
    if (total < 2) {
        tensor_set_error("expected total dims >= 2, but got total dims = %d", total);
        return NULL;
    }
    if (dims[0] == dims[1] || llabs(dims[0] - dims[1]) == total) {
        tensor_set_error("expected rotation dims to be different, but got dim0 = %" PRId64 " and dim1 = %" PRId64,
                         dims[0], dims[1]);
        return NULL;
    }
    for (int i = 0; i < 2; i++)
        if (dims[i] >= total || dims[i] < -total) {
            tensor_set_error("Rotation dim%d out of range, dim%d = %" PRId64, i, i, dims[i]);
            return NULL;
        }
    k = (4 + k % 4) % 4;
    if (k == 0)
        return tensor_clone(t);
    if (k == 2)
        return tensor_flip(t, 2, dims);
    /* k = 1 flips dims[1], k = 3 flips dims[0]; both then swap the two
     * (a transposed view of the fresh flipped tensor, as PyTorch returns). */
    Tensor *flipped = tensor_flip(t, 1, &dims[k == 1 ? 1 : 0]);
    Tensor *out = flipped ? tensor_transpose(flipped, dims[0], dims[1]) : NULL;
    tensor_release(flipped);
    return out;
}

Tensor *tensor_diagflat(const Tensor *t, int64_t offset)
{
    int64_t all = -1;
    Tensor *flat = tensor_reshape((Tensor *)t, 1, &all);
    Tensor *out = flat ? tensor_diag(flat, offset) : NULL;
    tensor_release(flat);
    return out;
}

/* ---------------------------------------------------------------- sum_to_size */

Tensor *tensor_sum_to_size(const Tensor *t, int n, const int64_t *sizes)
{
    char sb[TENSOR_SHAPE_BUF], tb[TENSOR_SHAPE_BUF];
    /* size must broadcast to t's shape */
    bool expandable = n <= t->ndim;
    for (int i = 0; expandable && i < n; i++) {
        int64_t want = sizes[n - 1 - i], have = t->sizes[t->ndim - 1 - i];
        expandable = want == have || want == 1;
    }
    if (!expandable) {
        tensor_set_error("size {%s} is not expandable to size {%s}.", tensor_format_shape(n, sizes, sb, sizeof sb),
                         tensor_format_shape(t->ndim, t->sizes, tb, sizeof tb));
        return NULL;
    }
    if (n == 0)
        return tensor_sum(t, NULL, 0, false, -1);
    /* Sum (keepdim) over the leading dims and the dims size brings to 1,
     * then drop the leading ones. */
    int lead = t->ndim - n, nd = 0;
    int64_t dims[TENSOR_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        if (d < lead || (sizes[d - lead] == 1 && t->sizes[d] != 1))
            dims[nd++] = d;
    if (nd == 0)
        return tensor_clone_preserve(t);
    Tensor *summed = tensor_sum(t, dims, nd, true, -1);
    Tensor *out = summed && lead > 0 ? tensor_view(summed, n, sizes) : tensor_retain(summed);
    tensor_release(summed);
    return out;
}

/* ---------------------------------------------------------------- fftshift */

Tensor *tensor_fftshift(const Tensor *t, int n, const int64_t *dims, bool inverse)
{
    int64_t all[TENSOR_MAX_DIMS], shifts[TENSOR_MAX_DIMS];
    if (dims == NULL) {
        n = t->ndim;
        for (int i = 0; i < n; i++)
            all[i] = i;
        dims = all;
    }
    if (n == 0)
        return tensor_clone_preserve(t);
    /* fftshift moves element 0 to position n / 2; ifftshift undoes it. */
    for (int i = 0; i < n; i++) {
        int d = tensor_wrap_dim(dims[i], t->ndim);
        if (d < 0)
            return NULL;
        shifts[i] = inverse ? (t->sizes[d] + 1) / 2 : t->sizes[d] / 2;
    }
    return tensor_roll(t, n, shifts, n, dims);
}
