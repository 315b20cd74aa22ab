/* ops_resample.c — bindings of the resampling family: transposed
 * convolution, im2col/col2im, pixel (un)shuffle (tensor/conv_transpose.c,
 * tensor/resample.c).
 */
#include <math.h>
#include <stdlib.h>
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
