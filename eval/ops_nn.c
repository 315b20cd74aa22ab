/* ops_nn.c — bindings of linear algebra and the neural-network ops:
 * mm, bmm, matmul, addmm, linear, dot, outer, conv1d/conv2d/_convolution,
 * layer_norm, group_norm, embedding, dropout, cat, stack, repeat, flip,
 * roll, tril/triu and padding (pooling and batch_norm are in ops_pool_norm.c,
 * the RNN cells and layers in ops_rnn.c).
 *
 * Dropout with train=True (random) is an error; dropout with train=False
 * returns its input itself, as PyTorch does.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* ---------------------------------------------------------------- linear algebra */

/* mm/bmm/matmul/dot/outer(Tensor self, Tensor other) */
bool eval_op_mm(EvalCall *c) { return eval_call_tensor_pair(c, tensor_mm); }
bool eval_op_bmm(EvalCall *c) { return eval_call_tensor_pair(c, tensor_bmm); }
bool eval_op_matmul(EvalCall *c) { return eval_call_tensor_pair(c, tensor_matmul); }
bool eval_op_dot(EvalCall *c) { return eval_call_tensor_pair(c, tensor_dot); }
bool eval_op_outer(EvalCall *c) { return eval_call_tensor_pair(c, tensor_outer); }

/* addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) */
bool eval_op_addmm(EvalCall *c)
{
    Tensor *self, *a, *b;
    double beta = 1, alpha = 1;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &a) &&
           eval_arg_tensor(c, 2, &b) && (c->nargs < 4 || eval_arg_double(c, 3, &beta)) &&
           (c->nargs < 5 || eval_arg_double(c, 4, &alpha)) &&
           eval_out_tensor(c, 0, tensor_addmm(self, a, b, beta, alpha));
}

/* linear(Tensor input, Tensor weight, Tensor? bias=None) */
bool eval_op_linear(EvalCall *c)
{
    Tensor *x, *w, *bias;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &w) &&
           eval_arg_tensor_opt(c, 2, &bias) && eval_out_tensor(c, 0, tensor_linear(x, w, bias));
}

/* ---------------------------------------------------------------- convolution */

/* Convolution over `spatial` dims (1 or 2) with integer or "valid"/"same"
 * padding. "same" pads dilation * (kernel - 1) in total per dim, the odd
 * element on the right, as PyTorch does. */
static bool convolution(EvalCall *c, int spatial, Tensor *x, Tensor *w, Tensor *bias, int stride_arg,
                        int padding_arg, int dilation_arg, int64_t groups)
{
    int64_t stride[3], padding[3] = {0, 0, 0}, dilation[3];
    if (!eval_arg_ints_fixed(c, stride_arg, stride, spatial) ||
        !eval_arg_ints_fixed(c, dilation_arg, dilation, spatial))
        return false;
    if (w->ndim != spatial + 2)
        return eval_fail(c, "expected a %d-d weight, got %d-d", spatial + 2, w->ndim);
    Tensor *input = tensor_retain(x);
    if (eval_kind(c, padding_arg) == RT_STR) {
        const char *mode = c->args[padding_arg]->u.s;
        if (strcmp(mode, "same") == 0) {
            for (int d = 0; d < spatial; d++)
                if (stride[d] != 1) {
                    tensor_release(input);
                    return eval_fail(c, "padding='same' is not supported for strided convolutions");
                }
            /* pad pairs start from the last dim, as F.pad */
            int64_t pad[6] = {0, 0, 0, 0, 0, 0};
            bool asymmetric = false;
            for (int d = 0; d < spatial; d++) {
                int64_t total = dilation[d] * (w->sizes[2 + d] - 1);
                padding[d] = total / 2;
                int64_t extra = total - 2 * padding[d];
                pad[2 * (spatial - 1 - d) + 1] = extra;
                asymmetric = asymmetric || extra != 0;
            }
            if (asymmetric) {
                Tensor *padded = tensor_constant_pad(input, 2 * spatial, pad, 0);
                tensor_release(input);
                if (!padded)
                    return eval_fail_kernel(c, "padding failed");
                input = padded;
            }
        } else if (strcmp(mode, "valid") != 0) {
            tensor_release(input);
            return eval_fail(c, "Invalid padding string: '%s'", mode);
        }
    } else if (!eval_arg_ints_fixed(c, padding_arg, padding, spatial)) {
        tensor_release(input);
        return false;
    }
    Tensor *r = spatial == 3   ? tensor_conv3d(input, w, bias, stride, padding, dilation, groups)
                : spatial == 2 ? tensor_conv2d(input, w, bias, stride, padding, dilation, groups)
                               : tensor_conv1d(input, w, bias, stride[0], padding[0], dilation[0], groups);
    tensor_release(input);
    return eval_out_tensor(c, 0, r);
}

/* conv3d/conv2d/conv1d(Tensor input, Tensor weight, Tensor? bias, int[] stride,
 * int[]|str padding, int[] dilation, int groups) */
static bool conv_nd(EvalCall *c, int spatial)
{
    Tensor *x, *w, *bias;
    int64_t groups = 1;
    return eval_nargs(c, 7, 7) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &w) &&
           eval_arg_tensor_opt(c, 2, &bias) && eval_arg_int(c, 6, &groups) &&
           convolution(c, spatial, x, w, bias, 3, 4, 5, groups);
}
bool eval_op_conv2d(EvalCall *c) { return conv_nd(c, 2); }
bool eval_op_conv1d(EvalCall *c) { return conv_nd(c, 1); }
bool eval_op_conv3d(EvalCall *c) { return conv_nd(c, 3); }

/* _convolution(input, weight, bias?, stride, padding, dilation, bool
 * transposed, output_padding, groups, benchmark, deterministic,
 * cudnn_enabled[, allow_tf32]) */
bool eval_op_convolution(EvalCall *c)
{
    Tensor *x, *w, *bias;
    bool transposed;
    int64_t groups;
    if (!eval_nargs(c, 12, 13) || !eval_arg_tensor(c, 0, &x) || !eval_arg_tensor(c, 1, &w) ||
        !eval_arg_tensor_opt(c, 2, &bias) || !eval_arg_bool(c, 6, &transposed) ||
        !eval_arg_int(c, 8, &groups))
        return false;
    if (transposed) {
        int spatial = w->ndim - 2;
        int64_t stride[3], padding[3], dilation[3], output_padding[3];
        if (spatial < 1 || spatial > 3)
            return eval_fail(c, "transposed convolution needs a 3-d to 5-d weight (weight is %d-d)", w->ndim);
        if (!eval_arg_ints_fixed(c, 3, stride, spatial) || !eval_arg_ints_fixed(c, 4, padding, spatial) ||
            !eval_arg_ints_fixed(c, 5, dilation, spatial) || !eval_arg_ints_fixed(c, 7, output_padding, spatial))
            return false;
        return eval_out_tensor(c, 0, tensor_conv_transpose(x, w, bias, spatial, stride, padding, output_padding,
                                                           groups, dilation));
    }
    if (w->ndim < 3 || w->ndim > 5)
        return eval_fail(c, "expected a 3-d to 5-d weight (weight is %d-d)", w->ndim);
    return convolution(c, w->ndim - 2, x, w, bias, 3, 4, 5, groups);
}

/* ---------------------------------------------------------------- normalization */

/* The affine arguments of layer_norm and group_norm: (..., Tensor? weight,
 * Tensor? bias, float eps=1e-05, ...). */
static bool norm_affine(EvalCall *c, Tensor **weight, Tensor **bias, double *eps)
{
    *eps = 1e-5;
    return eval_arg_tensor_opt(c, 2, weight) && eval_arg_tensor_opt(c, 3, bias) &&
           (c->nargs < 5 || eval_arg_double(c, 4, eps));
}

/* layer_norm(input, int[] normalized_shape, weight?, bias?, float eps, bool cudnn_enable) */
bool eval_op_layer_norm(EvalCall *c)
{
    Tensor *x, *weight, *bias;
    int64_t shape[TENSOR_MAX_DIMS];
    int n;
    double eps;
    return eval_args_tensor_ints(c, 6, &x, shape, &n) && norm_affine(c, &weight, &bias, &eps) &&
           eval_out_tensor(c, 0, tensor_layer_norm(x, n, shape, weight, bias, eps));
}

/* group_norm(input, int num_groups, weight?, bias?, float eps, bool cudnn_enabled) */
bool eval_op_group_norm(EvalCall *c)
{
    Tensor *x, *weight, *bias;
    int64_t groups;
    double eps;
    return eval_nargs(c, 2, 6) && eval_arg_tensor(c, 0, &x) && eval_arg_int(c, 1, &groups) &&
           norm_affine(c, &weight, &bias, &eps) &&
           eval_out_tensor(c, 0, tensor_group_norm(x, groups, weight, bias, eps));
}

/* ---------------------------------------------------------------- embedding and dropout */

/* embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool
 * scale_grad_by_freq=False, bool sparse=False) */
bool eval_op_embedding(EvalCall *c)
{
    Tensor *w, *idx;
    return eval_nargs(c, 2, 5) && eval_arg_tensor(c, 0, &w) && eval_arg_tensor(c, 1, &idx) &&
           eval_out_tensor(c, 0, tensor_embedding(w, idx));
}

/* ---------------------------------------------------------------- joining and shaping */

typedef Tensor *(*TensorListFn)(Tensor *const *, int, int64_t);

/* cat/stack(Tensor[] tensors, int dim=0) */
static bool tensor_list_op(EvalCall *c, TensorListFn fn)
{
    Tensor **ts;
    int n;
    int64_t dim = 0;
    if (!eval_nargs(c, 1, 2) || (c->nargs > 1 && !eval_arg_int(c, 1, &dim)) ||
        !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    bool ok = eval_out_tensor(c, 0, fn(ts, n, dim));
    free(ts);
    return ok;
}
bool eval_op_cat(EvalCall *c) { return tensor_list_op(c, tensor_cat); }
bool eval_op_stack(EvalCall *c) { return tensor_list_op(c, tensor_stack); }

/* repeat(Tensor self, int[] repeats), flip(Tensor self, int[] dims) */
bool eval_op_repeat(EvalCall *c) { return eval_call_tensor_ints(c, tensor_repeat); }
bool eval_op_flip(EvalCall *c) { return eval_call_tensor_ints(c, tensor_flip); }

/* roll(Tensor self, int[1] shifts, int[1] dims=[]) */
bool eval_op_roll(EvalCall *c)
{
    Tensor *x;
    int64_t shifts[TENSOR_MAX_DIMS], dims[TENSOR_MAX_DIMS];
    int ns, nd = 0;
    return eval_args_tensor_ints(c, 3, &x, shifts, &ns) &&
           (c->nargs < 3 || eval_arg_ints(c, 2, dims, TENSOR_MAX_DIMS, &nd)) &&
           eval_out_tensor(c, 0, tensor_roll(x, ns, shifts, nd, dims));
}

/* tril/triu(Tensor self, int diagonal=0) */
static bool triangle(EvalCall *c, bool lower)
{
    Tensor *x;
    int64_t diagonal = 0;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &x) &&
           (c->nargs < 2 || eval_arg_int(c, 1, &diagonal)) &&
           eval_out_tensor(c, 0, lower ? tensor_tril(x, diagonal) : tensor_triu(x, diagonal));
}
bool eval_op_tril(EvalCall *c) { return triangle(c, true); }
bool eval_op_triu(EvalCall *c) { return triangle(c, false); }

/* constant_pad_nd(Tensor self, int[] pad, Scalar value=0) */
bool eval_op_constant_pad_nd(EvalCall *c)
{
    Tensor *x;
    int64_t pad[2 * TENSOR_MAX_DIMS];
    int n;
    double value = 0;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &x) &&
           eval_arg_ints(c, 1, pad, 2 * TENSOR_MAX_DIMS, &n) &&
           (c->nargs < 3 || eval_arg_double(c, 2, &value)) &&
           eval_out_tensor(c, 0, tensor_constant_pad(x, n, pad, value));
}

/* pad(Tensor self, int[] pad, str mode="constant", float? value=None) */
bool eval_op_pad(EvalCall *c)
{
    Tensor *x;
    int64_t pad[2 * TENSOR_MAX_DIMS];
    int n;
    const char *mode = "constant";
    double value = 0;
    bool has_value = false;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &x) ||
        !eval_arg_ints(c, 1, pad, 2 * TENSOR_MAX_DIMS, &n) ||
        (c->nargs > 2 && !eval_arg_str(c, 2, &mode)) ||
        (c->nargs > 3 && !eval_arg_double_opt(c, 3, &value, &has_value)))
        return false;
    if (strcmp(mode, "constant") == 0)
        return eval_out_tensor(c, 0, tensor_constant_pad(x, n, pad, value));
    TensorPadMode pad_mode;
    if (strcmp(mode, "reflect") == 0)
        pad_mode = PAD_REFLECT;
    else if (strcmp(mode, "replicate") == 0)
        pad_mode = PAD_REPLICATE;
    else if (strcmp(mode, "circular") == 0)
        pad_mode = PAD_CIRCULAR;
    else
        return eval_fail(c, "Unrecognised padding mode %s", mode);
    if (n % 2 == 0 && n <= 2 * x->ndim && has_value && value != 0)
        return eval_fail(c, "Padding mode \"%s\" doesn't take in value argument", mode);
    return eval_out_tensor(c, 0, tensor_pad_mode(x, n, pad, pad_mode));
}
