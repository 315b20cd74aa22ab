/* resample.c — moving pixels between resolutions with PyTorch's (1.13, CPU)
 * semantics: pixel_shuffle / pixel_unshuffle (channels <-> space).
 *
 * The shuffles are pure data movement: a view of the input split into
 * factor dims, permuted, and copied into a fresh contiguous tensor, so every
 * dtype works and nothing is rounded.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- pixel shuffle */

/* x (*, C, H, W), contiguous, seen as the 6-d-plus-batch view `split` (sizes
 * and strides after the batch dims), permuted by perm, copied and viewed as
 * (*, final[0..3)). */
static Tensor *shuffle_copy(const Tensor *x, const int64_t split[6], const int perm[6], const int64_t final_[3])
{
    Tensor *xc = tensor_contiguous((Tensor *)x);
    if (!xc)
        return NULL;
    int lead = x->ndim - 3;
    int64_t sizes[TENSOR_MAX_DIMS + 3], strides[TENSOR_MAX_DIMS + 3], split_strides[6];
    int64_t stride = 1;
    for (int d = 5; d >= 0; d--) {
        split_strides[d] = stride;
        stride *= split[d];
    }
    for (int d = 0; d < lead; d++) {
        sizes[d] = x->sizes[d];
        strides[d] = xc->strides[d];
    }
    for (int d = 0; d < 6; d++) {
        sizes[lead + d] = split[perm[d]];
        strides[lead + d] = split_strides[perm[d]];
    }
    Tensor *out = NULL;
    if (lead + 6 > TENSOR_MAX_DIMS) {
        tensor_set_error("pixel_shuffle: input has too many dims (%d)", x->ndim);
    } else {
        Tensor *view = tensor_make_view(xc, lead + 6, sizes, strides, xc->offset);
        Tensor *copy = view ? tensor_clone(view) : NULL;
        if (copy) {
            int64_t fs[TENSOR_MAX_DIMS];
            memcpy(fs, x->sizes, (size_t)lead * sizeof *fs);
            memcpy(fs + lead, final_, 3 * sizeof *fs);
            out = tensor_view(copy, lead + 3, fs);
        }
        tensor_release(view);
        tensor_release(copy);
    }
    tensor_release(xc);
    return out;
}

Tensor *tensor_pixel_shuffle(const Tensor *x, int64_t factor)
{
    if (x->ndim < 3) {
        tensor_set_error("pixel_shuffle expects input to have at least 3 dimensions, but got input with %d "
                         "dimension(s)", x->ndim);
        return NULL;
    }
    if (factor <= 0) {
        tensor_set_error("pixel_shuffle expects a positive upscale_factor, but got %" PRId64, factor);
        return NULL;
    }
    int64_t c = x->sizes[x->ndim - 3], h = x->sizes[x->ndim - 2], w = x->sizes[x->ndim - 1];
    if (factor > ((int64_t)1 << 31) || c % (factor * factor) != 0) {
        tensor_set_error("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                         "upscale_factor, but input.size(-3)=%" PRId64 " is not divisible by %" PRId64, c,
                         factor <= ((int64_t)1 << 31) ? factor * factor : factor);
        return NULL;
    }
    int64_t oc = c / (factor * factor);
    /* (C', r, r, H, W) -> (C', H, r, W, r) */
    int64_t split[6] = {oc, factor, factor, h, w, 1};
    int perm[6] = {0, 3, 1, 4, 2, 5};
    /* products of sizes of a valid tensor (wrapped only where it has no elements) */
    int64_t final_[3] = {oc, tensor_mul_wrap(h, factor), tensor_mul_wrap(w, factor)};
    return shuffle_copy(x, split, perm, final_);
}

Tensor *tensor_pixel_unshuffle(const Tensor *x, int64_t factor)
{
    if (x->ndim < 3) {
        tensor_set_error("pixel_unshuffle expects input to have at least 3 dimensions, but got input with %d "
                         "dimension(s)", x->ndim);
        return NULL;
    }
    if (factor <= 0) {
        tensor_set_error("pixel_unshuffle expects a positive downscale_factor, but got %" PRId64, factor);
        return NULL;
    }
    int64_t c = x->sizes[x->ndim - 3], h = x->sizes[x->ndim - 2], w = x->sizes[x->ndim - 1];
    if (h % factor != 0) {
        tensor_set_error("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%"
                         PRId64 " is not divisible by %" PRId64, h, factor);
        return NULL;
    }
    if (w % factor != 0) {
        tensor_set_error("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%"
                         PRId64 " is not divisible by %" PRId64, w, factor);
        return NULL;
    }
    int64_t oh = h / factor, ow = w / factor;
    /* (C, H', r, W', r) -> (C, r, r, H', W') */
    int64_t split[6] = {c, oh, factor, ow, factor, 1};
    int perm[6] = {0, 2, 4, 1, 3, 5};
    int64_t final_[3] = {tensor_mul_wrap(tensor_mul_wrap(c, factor), factor), oh, ow};
    return shuffle_copy(x, split, perm, final_);
}
