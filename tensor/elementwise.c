/* elementwise.c — what every elementwise op shares: the checks an in-place
 * op makes before writing, reading through a copy when an input overlaps the
 * output, and ATen's "not implemented for" dispatch message.
 *
 * The ops themselves live in unary.c, binary.c and ternary.c (where, clamp,
 * lerp). Each one computes PyTorch's result dtype, allocates its result with
 * TensorIterator's layout (tensor_empty_like_operands), and walks operands
 * broadcast to the result shape with a TensorIter.
 */
#include <stdio.h>

#include "tensor/tensor_impl.h"

bool tensor_error_not_implemented(const char *kernel, TensorDType dt)
{
    tensor_set_error("\"%s\" not implemented for '%s'", kernel, dtype_ts_name(dt));
    return false;
}

bool tensor_require_float(const Tensor *x, const char *kernel)
{
    return dtype_is_float(x->dtype) || tensor_error_not_implemented(kernel, x->dtype);
}

const char *dtype_legacy_tensor_name(TensorDType dt)
{
    switch (dt) {
    case DT_BOOL: return "torch.BoolTensor";
    case DT_U8: return "torch.ByteTensor";
    case DT_I8: return "torch.CharTensor";
    case DT_I16: return "torch.ShortTensor";
    case DT_F32: return "torch.FloatTensor";
    case DT_F64: return "torch.DoubleTensor";
    case DT_I32: return "torch.IntTensor";
    default: return "torch.LongTensor";
    }
}

bool tensor_check_out_shape(const Tensor *out, int ndim, const int64_t *shape)
{
    if (ndim == out->ndim && memcmp(shape, out->sizes, sizeof(int64_t) * (size_t)ndim) == 0)
        return true;
    char have[TENSOR_SHAPE_BUF], want[TENSOR_SHAPE_BUF];
    tensor_set_error("output with shape %s doesn't match the broadcast shape %s",
                     tensor_format_shape(out->ndim, out->sizes, have, sizeof have),
                     tensor_format_shape(ndim, shape, want, sizeof want));
    return false;
}

bool tensor_check_inplace(const Tensor *out, TensorDType result_dtype,
                          const Tensor *const *inputs, int ninputs)
{
    /* TensorIterator's order: memory overlap, then shapes, then dtypes. */
    if (tensor_has_internal_overlap(out)) {
        tensor_set_error("unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
        return false;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    int n = out->ndim;
    memcpy(shape, out->sizes, sizeof(int64_t) * (size_t)n);
    for (int k = 0; k < ninputs; k++) {
        if (!inputs[k])
            continue;
        n = tensor_broadcast_shape(n, shape, inputs[k]->ndim, inputs[k]->sizes, shape);
        if (n < 0)
            return false;
    }
    if (!tensor_check_out_shape(out, n, shape))
        return false;
    if (!dtype_can_cast(result_dtype, out->dtype)) {
        tensor_set_error("result type %s can't be cast to the desired output type %s",
                         dtype_ts_name(result_dtype), dtype_ts_name(out->dtype));
        return false;
    }
    return true;
}

bool tensor_wrapped_fits(const Tensor *number, TensorDType dt)
{
    /* Read as int64 too: exact for ints beyond 2^53. */
    return tensor_number_fits(dt, dtype_is_float(number->dtype),
                              tensor_read_f64(number, number->offset),
                              tensor_read_i64(number, number->offset));
}

const Tensor *tensor_unalias_input(const Tensor *out, const Tensor *in, Tensor **copy)
{
    *copy = NULL;
    if (!in || !tensor_may_overlap(out, in) || tensor_same_geometry(out, in))
        return in;
    *copy = tensor_clone(in);
    if (*copy)
        (*copy)->wrapped_number = in->wrapped_number;   /* it still promotes as one */
    return *copy;
}
