/* tensor_impl.h — private helpers shared by the files of tensor/.
 *
 * Three things every kernel needs and nobody outside this folder should see:
 *
 *   - element access at a storage offset, converting to and from double or
 *     int64 with PyTorch's (C-cast) rules but without C's undefined behaviour
 *     for out-of-range float-to-int conversions;
 *   - TensorIter: a row-major walk over a shape that keeps the storage offset
 *     of up to TENSOR_ITER_MAX_OPERANDS strided operands, each broadcast to
 *     that shape (a broadcast dim has stride 0);
 *   - small shape utilities: overflow-checked numel, contiguous strides,
 *     "[2, 3]" formatting for messages, storage-overlap tests;
 *   - the kern_* helpers of the reduction, sort, index, linalg, nn and shape
 *     kernels (kernel_common.c, linalg.c): these compute in double (floating
 *     dtypes) or int64 (integers, bool) over row-major copies of their
 *     inputs, so one loop serves every dtype and results are rounded to the
 *     output dtype once, on store.
 *
 * Keep this header small and stable: other helpers' kernels include it.
 */
#ifndef TSSA_TENSOR_IMPL_H
#define TSSA_TENSOR_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tssa/tensor.h"

/* ---------------------------------------------------------------- storage buffers */

/* A buffer of nbytes (at least 1 byte) from the installed StoragePool or
 * malloc, NULL when memory runs out; *from is the pool it must go back to
 * (storage_pool_give), or NULL: free it (storage_pool.c). */
void *storage_pool_take(size_t nbytes, StoragePool **from);
void storage_pool_give(StoragePool *p, void *data, size_t nbytes);

/* ---------------------------------------------------------------- elements */

/* Converts a double to an integer dtype the way PyTorch's CPU casts behave on
 * x86-64 (truncation toward zero; NaN and out-of-range values give the
 * "integer indefinite" INT32_MIN / INT64_MIN before narrowing), without C's
 * undefined behaviour. The result is the int64 value to store (already
 * wrapped to the range of dt for the narrow types). */
int64_t tensor_double_to_int(double v, TensorDType dt);

/* Wraps an int64 to dt's range, modulo 2^bits (what a C cast does on every
 * platform we build for); bool gives v != 0. */
static inline int64_t tensor_wrap_int(int64_t v, TensorDType dt)
{
    switch (dt) {
    case DT_BOOL: return v != 0;
    case DT_U8: return (uint8_t)v;
    case DT_I8: return (int8_t)(uint8_t)v;
    case DT_I16: return (int16_t)(uint16_t)v;
    case DT_I32: return (int32_t)(uint32_t)v;
    default: return v;
    }
}

/* Bytes of one element of dt (dtype_size, inlined for the element loops). */
static inline int64_t tensor_elem_size(TensorDType dt)
{
    switch (dt) {
    case DT_BOOL: return (int64_t)sizeof(bool);
    case DT_U8: case DT_I8: return 1;
    case DT_I16: return 2;
    case DT_I32: case DT_F32: return 4;
    default: return 8;
    }
}

/* Address of the element at storage offset off (in elements) of t. */
static inline void *tensor_elem_ptr(const Tensor *t, int64_t off)
{
    return (char *)t->storage->data + off * tensor_elem_size(t->dtype);
}

/* The element of dtype dt at p, as double or int64 (float -> int64 as
 * tensor_double_to_int does). */
static inline double tensor_load_f64(TensorDType dt, const void *p)
{
    switch (dt) {
    case DT_BOOL: return *(const bool *)p ? 1.0 : 0.0;
    case DT_U8: return *(const uint8_t *)p;
    case DT_I8: return *(const int8_t *)p;
    case DT_I16: return *(const int16_t *)p;
    case DT_I32: return *(const int32_t *)p;
    case DT_I64: return (double)*(const int64_t *)p;
    case DT_F32: return *(const float *)p;
    case DT_F64: return *(const double *)p;
    default: return 0.0;
    }
}

static inline int64_t tensor_load_i64(TensorDType dt, const void *p)
{
    switch (dt) {
    case DT_BOOL: return *(const bool *)p;
    case DT_U8: return *(const uint8_t *)p;
    case DT_I8: return *(const int8_t *)p;
    case DT_I16: return *(const int16_t *)p;
    case DT_I32: return *(const int32_t *)p;
    case DT_I64: return *(const int64_t *)p;
    case DT_F32: return tensor_double_to_int(*(const float *)p, DT_I64);
    case DT_F64: return tensor_double_to_int(*(const double *)p, DT_I64);
    default: return 0;
    }
}

/* Stores v into the element of dtype dt at p with C++ static_cast semantics:
 * int -> narrower int wraps, float -> int as tensor_double_to_int, anything
 * -> bool is "!= 0". */
static inline void tensor_store_i64(TensorDType dt, void *p, int64_t v)
{
    switch (dt) {
    case DT_BOOL: *(bool *)p = v != 0; break;
    case DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case DT_I8: *(int8_t *)p = (int8_t)tensor_wrap_int(v, DT_I8); break;
    case DT_I16: *(int16_t *)p = (int16_t)tensor_wrap_int(v, DT_I16); break;
    case DT_I32: *(int32_t *)p = (int32_t)tensor_wrap_int(v, DT_I32); break;
    case DT_I64: *(int64_t *)p = v; break;
    case DT_F32: *(float *)p = (float)v; break;
    case DT_F64: *(double *)p = (double)v; break;
    default: break;
    }
}

static inline void tensor_store_f64(TensorDType dt, void *p, double v)
{
    switch (dt) {
    case DT_BOOL: *(bool *)p = v != 0; break;
    case DT_F32: *(float *)p = (float)v; break;
    case DT_F64: *(double *)p = v; break;
    default: tensor_store_i64(dt, p, tensor_double_to_int(v, dt)); break;
    }
}

/* The same at storage offset off of t, converting to or from t's dtype. */
static inline double tensor_read_f64(const Tensor *t, int64_t off)
{
    return tensor_load_f64(t->dtype, tensor_elem_ptr(t, off));
}

/* float32 straight from the stored type (an int64 is rounded once, not twice
 * through double). */
static inline float tensor_read_f32(const Tensor *t, int64_t off)
{
    const void *p = tensor_elem_ptr(t, off);
    switch (t->dtype) {
    case DT_I64: return (float)*(const int64_t *)p;
    case DT_F64: return (float)*(const double *)p;
    case DT_F32: return *(const float *)p;
    default: return (float)tensor_load_f64(t->dtype, p);
    }
}

static inline int64_t tensor_read_i64(const Tensor *t, int64_t off)
{
    return tensor_load_i64(t->dtype, tensor_elem_ptr(t, off));
}

static inline void tensor_write_i64(Tensor *t, int64_t off, int64_t v)
{
    tensor_store_i64(t->dtype, tensor_elem_ptr(t, off), v);
}

static inline void tensor_write_f64(Tensor *t, int64_t off, double v)
{
    tensor_store_f64(t->dtype, tensor_elem_ptr(t, off), v);
}

/* v rounded through dtype dt (what storing and loading again would give). */
static inline double tensor_round_f64(TensorDType dt, double v)
{
    union { double d; int64_t i; float f; uint8_t b[8]; } slot;
    memset(&slot, 0, sizeof slot);
    tensor_store_f64(dt, &slot, v);
    return tensor_load_f64(dt, &slot);
}

/* PyTorch's Scalar::to<T> check for a Python number going into dtype dt:
 * false (with "value cannot be converted to type uint8_t without overflow")
 * for NaN or out-of-range values into integers, finite values beyond float's
 * range into float32. uint8 accepts -255..255 (negatives wrap). */
bool tensor_scalar_fits(double v, TensorDType dt);   /* a float number */
/* c10's checked_convert: does a Python number (fv if is_float, else iv) fit
 * dtype dt? False with "value cannot be converted to type uint8_t without
 * overflow" when not. */
bool tensor_number_fits(TensorDType dt, bool is_float, double fv, int64_t iv);

/* ---------------------------------------------------------------- iteration */

#define TENSOR_ITER_MAX_OPERANDS 4

/* Row-major walk over `sizes`; offsets[k] is operand k's storage offset of
 * the current element. Dims that are contiguous with each other in every
 * operand are merged (and size-1 dims dropped), so the walk may have fewer,
 * longer dims than `sizes`: only the visiting order (row-major) and the
 * offsets are meaningful to callers. Usage, element by element:
 *
 *     TensorIter it;
 *     if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 2)) return NULL;
 *     for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
 *         ... it.offsets[0], it.offsets[1] ...
 *
 * or row by row (the innermost dim in a tight loop):
 *
 *     int64_t row = tensor_iter_row_size(&it);
 *     for (int64_t i = 0; i < it.numel; i += row, tensor_iter_next_row(&it))
 *         for (int64_t j = 0; j < row; j++)
 *             ... it.offsets[k] + j * tensor_iter_row_stride(&it, k) ...
 */
typedef struct TensorIter {
    int ndim;
    int noperands;
    int64_t numel;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t index[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_ITER_MAX_OPERANDS][TENSOR_MAX_DIMS];
    int64_t offsets[TENSOR_ITER_MAX_OPERANDS];
} TensorIter;

/* Each operand must broadcast to sizes (else false with PyTorch's message). */
bool tensor_iter_init(TensorIter *it, int ndim, const int64_t *sizes,
                      const Tensor *const *operands, int noperands);
/* One operand walked over its own shape (cannot fail for a valid tensor). */
void tensor_iter_init_single(TensorIter *it, const Tensor *t);

/* Advances the dims from `from` outwards (the odometer step). */
static inline void tensor_iter_advance(TensorIter *it, int from)
{
    for (int d = from; d >= 0; d--) {
        if (++it->index[d] < it->sizes[d]) {
            for (int k = 0; k < it->noperands; k++)
                it->offsets[k] += it->strides[k][d];
            return;
        }
        it->index[d] = 0;
        for (int k = 0; k < it->noperands; k++)
            it->offsets[k] -= it->strides[k][d] * (it->sizes[d] - 1);
    }
}

static inline void tensor_iter_next(TensorIter *it)
{
    tensor_iter_advance(it, it->ndim - 1);
}

static inline int64_t tensor_iter_row_size(const TensorIter *it)
{
    return it->ndim > 0 ? it->sizes[it->ndim - 1] : 1;
}

static inline int64_t tensor_iter_row_stride(const TensorIter *it, int k)
{
    return it->ndim > 0 ? it->strides[k][it->ndim - 1] : 0;
}

/* Moves to the start of the next row (offsets at the row's first element). */
static inline void tensor_iter_next_row(TensorIter *it)
{
    tensor_iter_advance(it, it->ndim - 2);
}

/* Strides of t seen with shape (ndim, sizes): new leading dims and expanded
 * size-1 dims get stride 0. False (with error) if t does not broadcast. */
bool tensor_broadcast_strides(const Tensor *t, int ndim, const int64_t *sizes, int64_t *strides);
/* The same without a message, for callers that word their own: needs
 * t->ndim <= ndim; returns -1, or the first dim d where t's size (at
 * d - (ndim - t->ndim)) neither equals sizes[d] nor is 1. */
int tensor_try_broadcast_strides(const Tensor *t, int ndim, const int64_t *sizes, int64_t *strides);

/* ---------------------------------------------------------------- shapes */

/* a * b wrapping modulo 2^64: for strides of tensors without elements,
 * which are never used to address memory but may exceed int64. */
static inline int64_t tensor_mul_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* Product of sizes; false with an error on a negative size, too many dims or
 * int64 overflow (of the element count or of its byte size for elem_size). */
bool tensor_checked_numel(int ndim, const int64_t *sizes, size_t elem_size, int64_t *numel);
void tensor_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* Writes "[2, 3]" into buf (truncated to n bytes) and returns buf.
 * TENSOR_SHAPE_BUF bytes hold any shape of TENSOR_MAX_DIMS dims. */
#define TENSOR_SHAPE_BUF 256
const char *tensor_format_shape(int ndim, const int64_t *sizes, char *buf, size_t n);
/* Fresh uninitialized storage-backed tensor with explicit strides that must
 * describe a dense (non-overlapping) layout of sizes. */
Tensor *tensor_empty_strided(TensorDType dt, int ndim, const int64_t *sizes, const int64_t *strides);

/* PyTorch's is_non_overlapping_and_dense. */
bool tensor_is_dense(const Tensor *t);
/* a and b share storage and their memory ranges intersect. */
bool tensor_may_overlap(const Tensor *a, const Tensor *b);
/* a and b address exactly the same elements in the same order. */
bool tensor_same_geometry(const Tensor *a, const Tensor *b);
/* Some element of t is reachable through two indices (a stride-0 dim of size
 * > 1): writing into it is an error in PyTorch. */
bool tensor_has_internal_overlap(const Tensor *t);

/* ---------------------------------------------------------------- dtypes */

TensorDType dtype_promote(TensorDType a, TensorDType b);
/* PyTorch's canCast: no float -> integral, no non-bool -> bool. */
bool dtype_can_cast(TensorDType from, TensorDType to);

/* ---------------------------------------------------------------- layout */

/* The result of an elementwise op over `inputs`, laid out as PyTorch's
 * TensorIterator lays out a fresh output: contiguous when all inputs are,
 * otherwise the inputs' stride order (so x.t() + 1 is "transposed" too). */
Tensor *tensor_empty_like_operands(TensorDType dt, int ndim, const int64_t *sizes,
                                   const Tensor *const *inputs, int ninputs);
/* empty_like(t) with memory_format=preserve: t's strides when t is dense,
 * else contiguous (or channels-last for a 4-d channels-last-like t). */
Tensor *tensor_empty_preserving(const Tensor *t, TensorDType dt);

/* ---------------------------------------------------------------- elementwise */

/* "\"NAME\" not implemented for 'Long'": ATen's dispatch error for a kernel
 * that has no loop for dt. Returns false so callers can `return` it. */
bool tensor_error_not_implemented(const char *kernel, TensorDType dt);
/* True for a float32/float64 x; otherwise false with the error above, for
 * kernels that have only floating loops. */
bool tensor_require_float(const Tensor *x, const char *kernel);
/* "torch.FloatTensor" etc., as some ATen messages name dtypes. */
const char *dtype_legacy_tensor_name(TensorDType dt);
/* An op writing into `out` whose inputs broadcast to (ndim, shape): false
 * with PyTorch's "output with shape [2] doesn't match the broadcast shape
 * [3, 2]" unless that is out's shape. */
bool tensor_check_out_shape(const Tensor *out, int ndim, const int64_t *shape);
/* Checks an in-place elementwise op writing `out` from `inputs`: the inputs
 * broadcast to exactly out's shape, result_dtype can be cast to out's dtype,
 * and out has no stretched (stride 0) dim. */
bool tensor_check_inplace(const Tensor *out, TensorDType result_dtype,
                          const Tensor *const *inputs, int ninputs);
/* tensor_number_fits for a wrapped number (exact for large int64s). */
bool tensor_wrapped_fits(const Tensor *number, TensorDType dt);
/* Where an input shares memory with the output it is about to be written to
 * (other than element for element), *copy receives a clone to read from
 * instead; otherwise *copy is NULL. Returns the tensor to read, or NULL on
 * allocation failure. */
const Tensor *tensor_unalias_input(const Tensor *out, const Tensor *in, Tensor **copy);

/* ---------------------------------------------------------------- kernel helpers */

/* Marks dims[0..ndims) in mask[0..ndim). ndims == 0 marks every dim (PyTorch
 * reduces over all dims for an empty list). Errors on a dim out of range and
 * on "dim 0 appears multiple times in the list of dims". */
bool kern_dims_to_mask(const int64_t *dims, int ndims, int ndim, bool mask[TENSOR_MAX_DIMS]);

/* Product of sizes[0..ndim) with overflow check (1 for ndim == 0); its
 * messages are the kernels' own ("tensor size overflows int64 (a * b)"). */
bool kern_numel_checked(int ndim, const int64_t *sizes, int64_t *out);
/* dst op= src for one element of dtype dt: sums wrap for integers, "or" for
 * bool (add); products wrap, "and" for bool (multiply). */
void kern_accumulate_add(TensorDType dt, void *dst, const void *src);
void kern_accumulate_mul(TensorDType dt, void *dst, const void *src);

/* Row-major copies of t's elements into a malloc'd array (NULL with an error
 * when out of memory; a valid pointer for numel 0). */
double *kern_read_all_f64(const Tensor *t);
int64_t *kern_read_all_i64(const Tensor *t);
/* Writes vals (row-major over t's shape) into the strided view t. */
void kern_write_all_f64(Tensor *t, const double *vals);
void kern_write_all_i64(Tensor *t, const int64_t *vals);

/* ---------------------------------------------------------------- kernel helpers: views */

/* A view of t with its dims reordered: new dim i is old dim perm[i]. */
Tensor *kern_permuted_view(const Tensor *t, const int *perm);
/* A view of t moving dim to the last position (others keep their order). */
Tensor *kern_dim_last_view(const Tensor *t, int dim);
/* A view of t broadcast to (ndim, sizes), or NULL with PyTorch's expand error
 * ("The expanded size of the tensor (3) must match the existing size (2) at
 * non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2]"). */
Tensor *kern_expand_view(const Tensor *t, int ndim, const int64_t *sizes);
/* Allocates a buffer, reporting out-of-memory as a tensor error. */
void *kern_malloc(size_t count, size_t elem_size);

/* ---------------------------------------------------------------- kernel helpers: copy by tables */

/* A new contiguous tensor of src's dtype and shape (ndim, out_sizes) whose
 * element at coordinates (c0, c1, ...) is src's element at (tables[0][c0],
 * tables[1][c1], ...); a table entry of -1 selects fill (an element of src's
 * dtype, read as raw bytes) instead. src->ndim must equal ndim. Flip, roll,
 * repeat, constant padding and index_select are all such remappings. */
Tensor *kern_remap(const Tensor *src, int ndim, const int64_t *out_sizes,
                   int64_t *const *tables, const void *fill);
/* tables[d] = {0, 1, ..., sizes[d]-1} for every d (malloc'd; false with an
 * error when out of memory, everything freed). kern_tables_free frees them. */
bool kern_identity_tables(int ndim, const int64_t *sizes, int64_t **tables);
void kern_tables_free(int ndim, int64_t **tables);

/* ---------------------------------------------------------------- kernel helpers: gemm */

/* c = a @ b for 2-d views a (m, k), b (k, n) and a contiguous (m, n) view c,
 * all of one dtype (float via BLAS when enabled, integers by loops with
 * wrapping int64 accumulation). Caller checks shapes and dtypes. */
bool kern_gemm(const Tensor *a, const Tensor *b, Tensor *c);


/* PyTorch's C type names as used in some messages ("float", "double", "long int"). */
const char *kern_ctype_name(TensorDType dt);

#endif
