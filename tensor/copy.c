/* copy.c — moving elements between tensors: copy_, fill_, clone, contiguous,
 * to_dtype.
 *
 * Everything funnels into copy_elements, a broadcast walk that converts each
 * element with C-cast rules (floats truncate toward zero into ints, anything
 * into bool is != 0). copy_ first rejects what PyTorch rejects (a destination
 * with a stretched dim, shapes that do not broadcast to the destination),
 * then copies through a temporary when source and destination share memory,
 * so a copy between overlapping views reads every element before writing.
 * PyTorch refuses partial overlaps it can detect; reading first is the
 * superset behaviour, identical wherever PyTorch accepts the program.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tensor/tensor_impl.h"

/* Strided copy of elements of type T along the iterator's rows. */
#define COPY_ROWS(T)                                                                     \
    do {                                                                                 \
        T *out = (T *)dst->storage->data;                                                \
        const T *in = (const T *)src->storage->data;                                     \
        int64_t row = tensor_iter_row_size(&it);                                         \
        int64_t so = tensor_iter_row_stride(&it, 0), si = tensor_iter_row_stride(&it, 1); \
        for (int64_t i = 0; i < it.numel; i += row, tensor_iter_next_row(&it)) {         \
            T *o = out + it.offsets[0];                                                  \
            const T *x = in + it.offsets[1];                                             \
            for (int64_t j = 0; j < row; j++)                                            \
                o[j * so] = x[j * si];                                                   \
        }                                                                                \
    } while (0)

/* dst[i] = CONVERT(src[i]) over n contiguous elements. */
#define CONVERT_ALL(DT, ST, CONVERT)                                   \
    do {                                                               \
        DT *d_ = tensor_data(dst);                                     \
        const ST *s_ = tensor_data(src);                               \
        for (int64_t i_ = 0; i_ < n; i_++)                             \
            d_[i_] = CONVERT(s_[i_]);                                  \
    } while (0)
/* tensor_double_to_int(v, DT_I64), inlined for the loop */
#define TO_I64(v) ((double)(v) >= -9223372036854775808.0 && (double)(v) < 9223372036854775808.0 \
                       ? (int64_t)(v) : INT64_MIN)
#define TO_F32(v) ((float)(v))
#define TO_F64(v) ((double)(v))

/* The casts a program makes most (x.to(torch.int64) of a float tensor, a
 * float of an int64 one), contiguous to contiguous of one shape, as typed
 * loops the compiler vectorizes: the general walk below reads and writes
 * each element through a 64-bit load and store, several calls per element.
 * The results are the walk's, which are PyTorch's static_cast: an int
 * converts to float32 in one rounding (through a double it would round
 * twice: 2^60 + 2^36 + 1 would become 2^60, not 2^60 + 2^37), a float out
 * of int64's range or NaN gives INT64_MIN as x86's conversion does
 * (tensor_double_to_int). False when the pair is not one of these. */
static bool convert_contiguous(Tensor *dst, const Tensor *src)
{
    if (!tensor_is_contiguous(dst) || !tensor_is_contiguous(src) || !tensor_same_shape(dst, src))
        return false;
    int64_t n = tensor_numel(dst);
    switch (src->dtype * 64 + dst->dtype) {
    case DT_F32 * 64 + DT_I64: CONVERT_ALL(int64_t, float, TO_I64); return true;
    case DT_F64 * 64 + DT_I64: CONVERT_ALL(int64_t, double, TO_I64); return true;
    case DT_F32 * 64 + DT_F64: CONVERT_ALL(double, float, TO_F64); return true;
    case DT_F64 * 64 + DT_F32: CONVERT_ALL(float, double, TO_F32); return true;
    case DT_I64 * 64 + DT_F32: CONVERT_ALL(float, int64_t, (float)); return true;
    case DT_I64 * 64 + DT_F64: CONVERT_ALL(double, int64_t, TO_F64); return true;
    case DT_I32 * 64 + DT_F32: CONVERT_ALL(float, int32_t, (float)); return true;
    case DT_I32 * 64 + DT_I64: CONVERT_ALL(int64_t, int32_t, (int64_t)); return true;
    default: return false;
    }
}

/* dst[i] = src[i] over dst's shape, src broadcast; no overlap handling. */
static bool copy_elements(Tensor *dst, const Tensor *src)
{
    if (dst->dtype != src->dtype && convert_contiguous(dst, src))
        return true;
    if (dst->dtype == src->dtype && tensor_is_contiguous(dst) && tensor_is_contiguous(src) &&
        tensor_same_shape(dst, src)) {
        memmove(tensor_data(dst), tensor_data(src),
                (size_t)tensor_numel(dst) * dtype_size(dst->dtype));
        return true;
    }
    const Tensor *ops[2] = {dst, src};
    TensorIter it;
    if (!tensor_iter_init(&it, dst->ndim, dst->sizes, ops, 2))
        return false;
    if (dst->dtype == src->dtype) {
        /* Same dtype: move the bytes, row by row. */
        switch (dtype_size(dst->dtype)) {
        case 1: COPY_ROWS(uint8_t); return true;
        case 2: COPY_ROWS(uint16_t); return true;
        case 4: COPY_ROWS(uint32_t); return true;
        case 8: COPY_ROWS(uint64_t); return true;
        default: break;
        }
    }
    if (dtype_is_float(src->dtype)) {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_f64(dst, it.offsets[0], tensor_read_f64(src, it.offsets[1]));
    } else {
        for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
            tensor_write_i64(dst, it.offsets[0], tensor_read_i64(src, it.offsets[1]));
    }
    return true;
}

static bool check_writable(const Tensor *dst)
{
    if (tensor_has_internal_overlap(dst)) {
        tensor_set_error("unsupported operation: more than one element of the written-to tensor "
                         "refers to a single memory location. Please clone() the tensor before "
                         "performing the operation.");
        return false;
    }
    return true;
}

bool tensor_copy_(Tensor *dst, const Tensor *src)
{
    int64_t shape[TENSOR_MAX_DIMS];
    int n = tensor_broadcast_shape(dst->ndim, dst->sizes, src->ndim, src->sizes, shape);
    if (n < 0)
        return false;
    if (!tensor_check_out_shape(dst, n, shape))
        return false;
    if (tensor_same_geometry(dst, src))
        return true;
    if (!check_writable(dst))
        return false;
    if (tensor_may_overlap(dst, src)) {
        Tensor *tmp = tensor_clone(src);
        if (!tmp)
            return false;
        bool ok = copy_elements(dst, tmp);
        tensor_release(tmp);
        return ok;
    }
    return copy_elements(dst, src);
}

/* c10's checked_convert: a Python number stored into dtype dt must fit.
 * For a float number: NaN or a value beyond an integer type's range, or a
 * finite value beyond float's, overflows; unsigned types start at 0
 * (x.fill_(-1.0) on uint8 is an error in PyTorch). For an int number:
 * unsigned types also take -max..-1, which wrap (x.fill_(-1) on uint8 gives
 * 255); floating types and int64 take any. Bool takes anything. */
bool tensor_number_fits(TensorDType dt, bool is_float, double fv, int64_t iv)
{
    static const char *cpp_names[DT_COUNT] = {
        [DT_BOOL] = "bool", [DT_U8] = "uint8_t", [DT_I8] = "int8_t", [DT_I16] = "int16_t",
        [DT_I32] = "int", [DT_I64] = "int64_t", [DT_F32] = "float", [DT_F64] = "double",
    };
    bool fits = true;
    if (!is_float) {
        switch (dt) {
        case DT_U8: fits = iv >= -255 && iv <= 255; break;
        case DT_I8: fits = iv >= INT8_MIN && iv <= INT8_MAX; break;
        case DT_I16: fits = iv >= INT16_MIN && iv <= INT16_MAX; break;
        case DT_I32: fits = iv >= INT32_MIN && iv <= INT32_MAX; break;
        default: break;
        }
    } else {
        switch (dt) {
        case DT_BOOL: case DT_F64: break;
        case DT_F32: fits = isinf(fv) || isnan(fv) || (fv >= -3.4028234663852886e38 && fv <= 3.4028234663852886e38); break;
        case DT_U8: fits = fv >= 0.0 && fv <= 255.0; break;
        case DT_I8: fits = fv >= -128.0 && fv <= 127.0; break;
        case DT_I16: fits = fv >= -32768.0 && fv <= 32767.0; break;
        case DT_I32: fits = fv >= -2147483648.0 && fv <= 2147483647.0; break;
        case DT_I64: fits = fv >= -9223372036854775808.0 && fv < 9223372036854775808.0; break;
        default: break;
        }
    }
    if (!fits)
        tensor_set_error("value cannot be converted to type %s without overflow",
                         (unsigned)dt < DT_COUNT ? cpp_names[dt] : "?");
    return fits;
}

bool tensor_scalar_fits(double v, TensorDType dt)
{
    return tensor_number_fits(dt, true, v, 0);
}

/* Fills without the written-to overlap check, as PyTorch's fill_ does: every
 * alias of an element receives the same value anyway. */
bool tensor_fill_(Tensor *dst, double value)
{
    if (!tensor_scalar_fits(value, dst->dtype))
        return false;
    Tensor *scalar = tensor_empty(dst->dtype, 0, NULL);
    if (!scalar)
        return false;
    tensor_write_f64(scalar, 0, value);
    bool ok = copy_elements(dst, scalar);
    tensor_release(scalar);
    return ok;
}

bool tensor_fill_int_(Tensor *dst, int64_t value)
{
    if (!tensor_number_fits(dst->dtype, false, 0.0, value))
        return false;
    Tensor *scalar = tensor_scalar_int(DT_I64, value);
    if (!scalar)
        return false;
    bool ok = copy_elements(dst, scalar);
    tensor_release(scalar);
    return ok;
}

Tensor *tensor_clone(const Tensor *t)
{
    Tensor *out = tensor_empty(t->dtype, t->ndim, t->sizes);
    if (out && !copy_elements(out, t)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_clone_preserve(const Tensor *t)
{
    Tensor *out = tensor_empty_preserving(t, t->dtype);
    if (out && !copy_elements(out, t)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_contiguous(Tensor *t)
{
    if (tensor_is_contiguous(t))
        return tensor_retain(t);
    return tensor_clone(t);
}

/* A copy laid out like t (PyTorch's .to(dtype) preserves a dense layout). */
Tensor *tensor_to_dtype(const Tensor *t, TensorDType dt)
{
    Tensor *out = tensor_empty_preserving(t, dt);
    if (out && !copy_elements(out, t)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}
