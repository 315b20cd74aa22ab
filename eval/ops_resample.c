/* ops_resample.c — bindings of the resampling family: transposed
 * convolution, im2col/col2im, interpolation (the upsample_* ops), grid
 * sampling, embedding_bag, pixel (un)shuffle (tensor/conv_transpose.c,
 * tensor/resample.c, tensor/embedding_bag.c).
 */
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* ---------------------------------------------------------------- transposed convolution */

/* conv_transpose{1,2,3}d(Tensor input, Tensor weight, Tensor? bias=None,
 * int[N] stride=1, int[N] padding=0, int[N] output_padding=0, int groups=1,
 * int[N] dilation=1) */
static bool conv_transpose(EvalCall *c, int spatial)
{
    Tensor *x, *w, *bias = NULL;
    int64_t stride[3] = {1, 1, 1}, padding[3] = {0, 0, 0}, output_padding[3] = {0, 0, 0};
    int64_t dilation[3] = {1, 1, 1}, groups = 1;
    return eval_nargs(c, 2, 8) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &w) &&
           (c->nargs < 3 || eval_arg_tensor_opt(c, 2, &bias)) &&
           (c->nargs < 4 || eval_arg_ints_fixed(c, 3, stride, spatial)) &&
           (c->nargs < 5 || eval_arg_ints_fixed(c, 4, padding, spatial)) &&
           (c->nargs < 6 || eval_arg_ints_fixed(c, 5, output_padding, spatial)) &&
           (c->nargs < 7 || eval_arg_int(c, 6, &groups)) &&
           (c->nargs < 8 || eval_arg_ints_fixed(c, 7, dilation, spatial)) &&
           eval_out_tensor(c, 0, tensor_conv_transpose(x, w, bias, spatial, stride, padding, output_padding,
                                                        groups, dilation));
}
bool eval_op_conv_transpose1d(EvalCall *c) { return conv_transpose(c, 1); }
bool eval_op_conv_transpose2d(EvalCall *c) { return conv_transpose(c, 2); }
bool eval_op_conv_transpose3d(EvalCall *c) { return conv_transpose(c, 3); }

/* ---------------------------------------------------------------- sliding windows */

/* im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) */
bool eval_op_im2col(EvalCall *c)
{
    Tensor *x;
    int64_t kernel[2], dilation[2], padding[2], stride[2];
    return eval_nargs(c, 5, 5) && eval_arg_tensor(c, 0, &x) && eval_arg_ints_fixed(c, 1, kernel, 2) &&
           eval_arg_ints_fixed(c, 2, dilation, 2) && eval_arg_ints_fixed(c, 3, padding, 2) &&
           eval_arg_ints_fixed(c, 4, stride, 2) &&
           eval_out_tensor(c, 0, tensor_im2col(x, kernel, dilation, padding, stride));
}

/* col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2]
 * dilation, int[2] padding, int[2] stride) */
bool eval_op_col2im(EvalCall *c)
{
    Tensor *x;
    int64_t size[2], kernel[2], dilation[2], padding[2], stride[2];
    return eval_nargs(c, 6, 6) && eval_arg_tensor(c, 0, &x) && eval_arg_ints_fixed(c, 1, size, 2) &&
           eval_arg_ints_fixed(c, 2, kernel, 2) && eval_arg_ints_fixed(c, 3, dilation, 2) &&
           eval_arg_ints_fixed(c, 4, padding, 2) && eval_arg_ints_fixed(c, 5, stride, 2) &&
           eval_out_tensor(c, 0, tensor_col2im(x, size, kernel, dilation, padding, stride));
}

/* ---------------------------------------------------------------- interpolation */

/* A list of numbers (float[]) into buf; false (reported) otherwise. */
static bool arg_doubles(EvalCall *c, int i, double *buf, int cap, int *n)
{
    RtValue *list;
    if (!eval_arg_list(c, i, &list))
        return false;
    if (list->u.list.n > cap)
        return eval_fail(c, "argument %d: expected at most %d scale factors, got %d", i + 1, cap, list->u.list.n);
    for (int k = 0; k < list->u.list.n; k++) {
        const RtValue *item = list->u.list.items[k];
        if (item->kind == RT_FLOAT)
            buf[k] = item->u.f;
        else if (item->kind == RT_INT || item->kind == RT_BOOL)
            buf[k] = (double)item->u.i;
        else
            return eval_fail(c, "argument %d: expected a list of floats", i + 1);
    }
    *n = list->u.list.n;
    return true;
}

/* The .vec overload: (input, int[]? output_size, [bool align_corners,]
 * float[]? scale_factors) -- exactly one of size and scales. */
static bool upsample_vec_args(EvalCall *c, Tensor *x, int spatial, int scales_arg, int64_t *out_size,
                              double *scales)
{
    bool has_size = !eval_is_none(c, 1), has_scales = !eval_is_none(c, scales_arg);
    if (has_size == has_scales)
        return eval_fail(c, "Must specify exactly one of output_size and scale_factors");
    int n;
    if (has_size) {
        int64_t buf[TENSOR_MAX_DIMS];
        if (!eval_arg_ints(c, 1, buf, TENSOR_MAX_DIMS, &n))
            return false;
        if (n != spatial || x->ndim != spatial + 2)
            return eval_fail(c, "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
                                "true, but got false.");
        memcpy(out_size, buf, (size_t)spatial * sizeof *out_size);
        return true;
    }
    if (!arg_doubles(c, scales_arg, scales, 3, &n))
        return false;
    if (n != spatial || x->ndim != spatial + 2)
        return eval_fail(c, "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, "
                            "but got false.");
    return tensor_upsample_output_size(x, spatial, scales, out_size) || eval_fail_kernel(c, "upsample failed");
}

/* upsample_<mode><spatial>d in both overloads:
 *   (Tensor self, int[N] output_size, [bool align_corners,] float? scales_0=None, ...)
 *   .vec(Tensor input, int[]? output_size, [bool align_corners,] float[]? scale_factors)
 * They coincide when a size and no scales are given (only their error
 * messages differ). */
static bool upsample(EvalCall *c, UpsampleMode mode, int spatial)
{
    bool has_align = mode != UPSAMPLE_NEAREST && mode != UPSAMPLE_NEAREST_EXACT;
    int scales_arg = has_align ? 3 : 2;
    Tensor *x;
    bool align_corners = false;
    int64_t out_size[3];
    double scales[3] = {0.0, 0.0, 0.0};
    if (!eval_nargs(c, scales_arg, scales_arg + spatial) || !eval_arg_tensor(c, 0, &x) ||
        (has_align && !eval_arg_bool(c, 2, &align_corners)))
        return false;
    RtKind scales_kind = c->nargs > scales_arg ? eval_kind(c, scales_arg) : RT_NONE;
    /* TorchScript resolves a trailing None to .vec */
    bool vec = c->nargs == scales_arg + 1 && (scales_kind == RT_LIST || scales_kind == RT_TUPLE || scales_kind == RT_NONE);
    if (vec) {
        if (!upsample_vec_args(c, x, spatial, scales_arg, out_size, scales))
            return false;
    } else {
        int64_t buf[TENSOR_MAX_DIMS];
        int n;
        if (!eval_arg_ints(c, 1, buf, TENSOR_MAX_DIMS, &n))
            return false;
        if (n != spatial)
            return eval_fail(c, "It is expected output_size equals to %d, but got size %d", spatial, n);
        memcpy(out_size, buf, (size_t)spatial * sizeof *out_size);
        for (int d = 0; d < spatial && scales_arg + d < c->nargs; d++) {
            bool present;
            if (!eval_arg_double_opt(c, scales_arg + d, &scales[d], &present))
                return false;
            if (!present)
                scales[d] = 0.0;
        }
    }
    return eval_out_tensor(c, 0, tensor_upsample(x, mode, spatial, out_size, align_corners, scales));
}
bool eval_op_upsample_nearest1d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST, 1); }
bool eval_op_upsample_nearest2d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST, 2); }
bool eval_op_upsample_nearest3d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST, 3); }
bool eval_op_upsample_nearest_exact1d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST_EXACT, 1); }
bool eval_op_upsample_nearest_exact2d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST_EXACT, 2); }
bool eval_op_upsample_nearest_exact3d(EvalCall *c) { return upsample(c, UPSAMPLE_NEAREST_EXACT, 3); }
bool eval_op_upsample_linear1d(EvalCall *c) { return upsample(c, UPSAMPLE_LINEAR, 1); }
bool eval_op_upsample_bilinear2d(EvalCall *c) { return upsample(c, UPSAMPLE_LINEAR, 2); }
bool eval_op_upsample_trilinear3d(EvalCall *c) { return upsample(c, UPSAMPLE_LINEAR, 3); }
bool eval_op_upsample_bicubic2d(EvalCall *c) { return upsample(c, UPSAMPLE_CUBIC, 2); }
bool eval_op_upsample_bilinear2d_aa(EvalCall *c) { return upsample(c, UPSAMPLE_LINEAR_AA, 2); }
bool eval_op_upsample_bicubic2d_aa(EvalCall *c) { return upsample(c, UPSAMPLE_CUBIC_AA, 2); }

/* ---------------------------------------------------------------- grid sampling */

/* grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int
 * padding_mode, bool align_corners) */
bool eval_op_grid_sampler(EvalCall *c)
{
    Tensor *x, *grid;
    int64_t mode, padding;
    bool align_corners;
    if (!eval_nargs(c, 5, 5) || !eval_arg_tensor(c, 0, &x) || !eval_arg_tensor(c, 1, &grid) ||
        !eval_arg_int(c, 2, &mode) || !eval_arg_int(c, 3, &padding) || !eval_arg_bool(c, 4, &align_corners))
        return false;
    if (mode < 0 || mode > 2 || padding < 0 || padding > 2)
        return eval_fail(c, "grid_sampler(): interpolation mode %lld or padding mode %lld is not implemented",
                         (long long)mode, (long long)padding);
    return eval_out_tensor(c, 0, tensor_grid_sample(x, grid, (GridSampleMode)mode, (GridSamplePadding)padding,
                                                    align_corners));
}

/* ---------------------------------------------------------------- embedding_bag */

/* embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool
 * scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor?
 * per_sample_weights=None, bool include_last_offset=False[, int?
 * padding_idx]) -> (Tensor, Tensor, Tensor, Tensor). scale_grad_by_freq and
 * sparse only shape gradients. */
bool eval_op_embedding_bag(EvalCall *c)
{
    Tensor *weight, *indices, *offsets, *psw = NULL, *out[4];
    int64_t mode = 0, padding_idx = 0;
    bool include_last_offset = false, has_padding = false, flag;
    if (!eval_nargs(c, 3, 9) || !eval_arg_tensor(c, 0, &weight) || !eval_arg_tensor(c, 1, &indices) ||
        !eval_arg_tensor(c, 2, &offsets) || (c->nargs > 3 && !eval_arg_bool(c, 3, &flag)) ||
        (c->nargs > 4 && !eval_arg_int(c, 4, &mode)) || (c->nargs > 5 && !eval_arg_bool(c, 5, &flag)) ||
        (c->nargs > 6 && !eval_arg_tensor_opt(c, 6, &psw)) ||
        (c->nargs > 7 && !eval_arg_bool(c, 7, &include_last_offset)) ||
        (c->nargs > 8 && !eval_arg_int_opt(c, 8, &padding_idx, &has_padding)))
        return false;
    if (c->nouts != 4)
        return eval_fail(c, "embedding_bag returns 4 tensors, the graph expects %d results", c->nouts);
    if (mode < 0 || mode > 2)
        return eval_fail(c, "embedding_bag: mode has to be one of sum, mean or max, got %lld", (long long)mode);
    if (!tensor_embedding_bag(weight, indices, offsets, (int)mode, psw, include_last_offset,
                              has_padding ? padding_idx : INT64_MIN, out))
        return eval_fail_kernel(c, "embedding_bag failed");
    bool ok = true;
    for (int k = 0; k < 4; k++)
        ok = eval_out_tensor(c, k, out[k]) && ok;
    return ok;
}

/* ---------------------------------------------------------------- pixel shuffle */

/* pixel_shuffle(Tensor self, int upscale_factor), pixel_unshuffle(Tensor self, int downscale_factor) */
static bool shuffle(EvalCall *c, bool up)
{
    Tensor *x;
    int64_t factor;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &x) && eval_arg_int(c, 1, &factor) &&
           eval_out_tensor(c, 0, up ? tensor_pixel_shuffle(x, factor) : tensor_pixel_unshuffle(x, factor));
}
bool eval_op_pixel_shuffle(EvalCall *c) { return shuffle(c, true); }
bool eval_op_pixel_unshuffle(EvalCall *c) { return shuffle(c, false); }
