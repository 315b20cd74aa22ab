/* promote.c — PyTorch's type promotion (result_type) and casting rules.
 *
 * Two dtypes promote to the larger one in the order bool < uint8/int8 <
 * int16 < int32 < int64 < float32 < float64, except uint8 with int8, which
 * meets at int16. result_type ranks its operands in three groups: tensors
 * with dims, 0-d tensors, and wrapped Python numbers (a wrapped float counts
 * as the default dtype, float32). Each lower group may only raise the
 * category (bool < integral < floating) of the higher one, never its width:
 * int32 tensor + 2 is int32, int32 tensor + 2.5 is float32, float32 tensor +
 * 0-d float64 tensor is float32, bool tensor + 2 is int64.
 */
#include "tensor/tensor_impl.h"

TensorDType dtype_default_float(void)
{
    return DT_F32;
}

TensorDType dtype_promote(TensorDType a, TensorDType b)
{
    if ((a == DT_U8 && b == DT_I8) || (a == DT_I8 && b == DT_U8))
        return DT_I16;
    return a > b ? a : b;
}

bool dtype_can_cast(TensorDType from, TensorDType to)
{
    if (dtype_is_float(from) && !dtype_is_float(to))
        return false;
    if (from != DT_BOOL && to == DT_BOOL)
        return false;
    return true;
}

/* -1 stands for "no operand in this group yet" (c10's Undefined). */
static int promote_defined(int acc, TensorDType dt)
{
    return acc < 0 ? (int)dt : (int)dtype_promote((TensorDType)acc, dt);
}

/* c10's combine_categories: the lower group wins only by raising the
 * category of the higher one. */
static int combine_categories(int higher, int lower)
{
    if (higher < 0)
        return lower;
    if (dtype_is_float((TensorDType)higher))
        return higher;
    if (lower >= 0 && (higher == DT_BOOL || dtype_is_float((TensorDType)lower)))
        return promote_defined(higher, (TensorDType)lower);
    return higher;
}

TensorDType tensor_result_type(const Tensor *const *ts, int n)
{
    int dims = -1, zero_dim = -1, wrapped = -1;
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        if (!t)
            continue;
        TensorDType dt = t->dtype;
        if (t->wrapped_number) {
            if (dtype_is_float(dt))
                dt = dtype_default_float();
            /* A wrapped number is 0-d; should one carry dims, it ranks as one. */
            if (t->ndim == 0) {
                wrapped = promote_defined(wrapped, dt);
                continue;
            }
        }
        if (t->ndim > 0)
            dims = promote_defined(dims, dt);
        else
            zero_dim = promote_defined(zero_dim, dt);
    }
    int result = combine_categories(dims, combine_categories(zero_dim, wrapped));
    return result < 0 ? dtype_default_float() : (TensorDType)result;
}
