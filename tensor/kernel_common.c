/* kernel_common.c — the kern_* helpers of tensor_impl.h that the reduction,
 * sorting, indexing, linear-algebra, nn and shape kernels share: dims lists,
 * strided bulk transfer, views that reorder or broadcast dims, and
 * table-driven copies.
 *
 * Bulk transfer walks a tensor with a one-operand TensorIter (row-major, one
 * add per step, no divisions), so reading any view (transposed, sliced,
 * expanded with stride 0) costs the same as reading a contiguous tensor.
 * Element conversions are tensor_impl.h's tensor_load_* / tensor_store_*.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dims */

bool kern_dims_to_mask(const int64_t *dims, int ndims, int ndim, bool mask[TENSOR_MAX_DIMS])
{
    for (int d = 0; d < TENSOR_MAX_DIMS; d++)
        mask[d] = ndims == 0 && d < ndim;
    for (int i = 0; i < ndims; i++) {
        int d = tensor_wrap_dim(dims[i], ndim);
        if (d < 0)
            return false;
        if (ndim == 0)
            continue;               /* a 0-d tensor has nothing to mark */
        if (mask[d]) {
            tensor_set_error("dim %d appears multiple times in the list of dims", d);
            return false;
        }
        mask[d] = true;
    }
    return true;
}

/* ---------------------------------------------------------------- sizes */

static bool mul_size(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0) {
        tensor_set_error("negative size in a size product (%" PRId64 " * %" PRId64 ")", a, b);
        return false;
    }
    if (!ckd_mul_i64(out, a, b)) {
        tensor_set_error("tensor size overflows int64 (%" PRId64 " * %" PRId64 ")", a, b);
        return false;
    }
    return true;
}

bool kern_numel_checked(int ndim, const int64_t *sizes, int64_t *out)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (!mul_size(n, sizes[d], &n))
            return false;
    *out = n;
    return true;
}

/* ---------------------------------------------------------------- elements */

void kern_accumulate_add(TensorDType dt, void *dst, const void *src)
{
    switch (dt) {
    case DT_F32: *(float *)dst += *(const float *)src; break;
    case DT_F64: *(double *)dst += *(const double *)src; break;
    case DT_BOOL: *(bool *)dst = *(bool *)dst || *(const bool *)src; break;
    default: {
        uint64_t s = (uint64_t)tensor_load_i64(dt, dst) + (uint64_t)tensor_load_i64(dt, src);
        tensor_store_i64(dt, dst, (int64_t)s);
    }
    }
}

void kern_accumulate_mul(TensorDType dt, void *dst, const void *src)
{
    switch (dt) {
    case DT_F32: *(float *)dst *= *(const float *)src; break;
    case DT_F64: *(double *)dst *= *(const double *)src; break;
    case DT_BOOL: *(bool *)dst = *(bool *)dst && *(const bool *)src; break;
    default: {
        uint64_t s = (uint64_t)tensor_load_i64(dt, dst) * (uint64_t)tensor_load_i64(dt, src);
        tensor_store_i64(dt, dst, (int64_t)s);
    }
    }
}

/* ---------------------------------------------------------------- bulk transfer */

void *kern_malloc(size_t count, size_t elem_size)
{
    if (count == 0)
        count = 1;
    size_t bytes;
    if (!ckd_mul_size(&bytes, count, elem_size)) {
        tensor_set_error("out of memory: buffer of %zu elements", count);
        return NULL;
    }
    void *p = malloc(bytes);
    if (!p)
        tensor_set_error("out of memory: buffer of %zu bytes", count * elem_size);
    return p;
}

/* float32 or float64 t's elements in row-major order into read_into, or
 * out of write_from into t (one of the two is NULL), a row of the last dim at a time by its stride: the
 * reference kernels read most of their inputs and write most of their
 * results so, and the general per-element iterator below was more than
 * half of a lag-by-lag pitch detector's time. */
static void float_rows(const Tensor *t, double *read_into, const double *write_from)
{
    int last = t->ndim - 1;
    int64_t row = t->ndim ? t->sizes[last] : 1, step = t->ndim ? t->strides[last] : 1;
    int64_t rows = row ? tensor_numel(t) / row : 0;
    int64_t coord[TENSOR_MAX_DIMS] = {0};
    char *base = t->storage->data;
    for (int64_t r = 0; r < rows; r++) {
        int64_t off = t->offset;
        for (int d = 0; d < last; d++)
            off += coord[d] * t->strides[d];
        int64_t done = r * row;
        if (t->dtype == DT_F32 && write_from) {
            float *p = (float *)(void *)base + off;
            for (int64_t j = 0; j < row; j++)
                p[j * step] = (float)write_from[done + j];
        } else if (t->dtype == DT_F32) {
            const float *p = (const float *)(const void *)base + off;
            for (int64_t j = 0; j < row; j++)
                read_into[done + j] = p[j * step];
        } else if (write_from) {
            double *p = (double *)(void *)base + off;
            for (int64_t j = 0; j < row; j++)
                p[j * step] = write_from[done + j];
        } else {
            const double *p = (const double *)(const void *)base + off;
            for (int64_t j = 0; j < row; j++)
                read_into[done + j] = p[j * step];
        }
        for (int d = last - 1; d >= 0; d--) {
            if (++coord[d] < t->sizes[d])
                break;
            coord[d] = 0;
        }
    }
}

double *kern_read_all_f64(const Tensor *t)
{
    double *vals = kern_malloc((size_t)tensor_numel(t), sizeof *vals);
    if (!vals)
        return NULL;
    if (t->dtype == DT_F32 || t->dtype == DT_F64) {
        float_rows(t, vals, NULL);
        return vals;
    }
    TensorIter it;
    tensor_iter_init_single(&it, t);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
        vals[i] = tensor_read_f64(t, it.offsets[0]);
    return vals;
}

int64_t *kern_read_all_i64(const Tensor *t)
{
    int64_t *vals = kern_malloc((size_t)tensor_numel(t), sizeof *vals);
    if (!vals)
        return NULL;
    TensorIter it;
    tensor_iter_init_single(&it, t);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
        vals[i] = tensor_read_i64(t, it.offsets[0]);
    return vals;
}

void kern_write_all_f64(Tensor *t, const double *vals)
{
    if (t->dtype == DT_F32 || t->dtype == DT_F64) {
        float_rows(t, NULL, vals);
        return;
    }
    TensorIter it;
    tensor_iter_init_single(&it, t);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
        tensor_write_f64(t, it.offsets[0], vals[i]);
}

void kern_write_all_i64(Tensor *t, const int64_t *vals)
{
    TensorIter it;
    tensor_iter_init_single(&it, t);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it))
        tensor_write_i64(t, it.offsets[0], vals[i]);
}

/* ---------------------------------------------------------------- views */

Tensor *kern_permuted_view(const Tensor *t, const int *perm)
{
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        sizes[d] = t->sizes[perm[d]];
        strides[d] = t->strides[perm[d]];
    }
    return tensor_make_view(t, t->ndim, sizes, strides, t->offset);
}

Tensor *kern_dim_last_view(const Tensor *t, int dim)
{
    int perm[TENSOR_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < t->ndim; d++)
        if (d != dim)
            perm[k++] = d;
    if (t->ndim > 0)
        perm[k] = dim;
    return kern_permuted_view(t, perm);
}

Tensor *kern_expand_view(const Tensor *t, int ndim, const int64_t *sizes)
{
    char tb[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF];
    if (ndim < t->ndim) {
        tensor_set_error("expand: the number of sizes provided (%d) must be greater or equal to the "
                         "number of dimensions in the tensor (%d)", ndim, t->ndim);
        return NULL;
    }
    int64_t strides[TENSOR_MAX_DIMS];
    int d = tensor_try_broadcast_strides(t, ndim, sizes, strides);
    if (d >= 0) {
        tensor_set_error("The expanded size of the tensor (%" PRId64 ") must match the existing size (%" PRId64
                         ") at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                         sizes[d], t->sizes[d - (ndim - t->ndim)], d,
                         tensor_format_shape(ndim, sizes, tb, sizeof tb),
                         tensor_format_shape(t->ndim, t->sizes, sb, sizeof sb));
        return NULL;
    }
    return tensor_make_view(t, ndim, sizes, strides, t->offset);
}

/* ---------------------------------------------------------------- copy by tables */

Tensor *kern_remap(const Tensor *src, int ndim, const int64_t *out_sizes,
                   int64_t *const *tables, const void *fill)
{
    int64_t n;
    if (!kern_numel_checked(ndim, out_sizes, &n))
        return NULL;
    Tensor *out = tensor_empty(src->dtype, ndim, out_sizes);
    if (!out || n == 0)
        return out;
    size_t es = dtype_size(src->dtype);
    const char *sbase = src->storage->data;
    char *dst = tensor_data(out);
    if (ndim == 0) {
        memcpy(dst, sbase + src->offset * (int64_t)es, es);
        return out;
    }
    /* Walk the output row by row: the offset of the outer coordinates is
     * summed once per row, the last dim's table gives the rest. */
    int last = ndim - 1;
    int64_t coord[TENSOR_MAX_DIMS] = {0};
    int64_t row_len = out_sizes[last];
    int64_t rows = n / row_len;
    const int64_t *last_table = tables[last];
    int64_t last_stride = src->strides[last];
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = src->offset;
        bool row_fill = false;
        for (int d = 0; d < last; d++) {
            int64_t s = tables[d][coord[d]];
            if (s < 0)
                row_fill = true;
            else
                base += s * src->strides[d];
        }
        if (es == 4 && !row_fill) {
            /* 4-byte elements (float32, int32), the common case, copied by
             * a constant-size memcpy the compiler makes one move: a call
             * per element of a variable size was most of a reflection
             * pad's time */
            for (int64_t j = 0; j < row_len; j++, dst += 4) {
                int64_t s = last_table[j];
                memcpy(dst, s < 0 ? fill : sbase + (base + s * last_stride) * 4, 4);
            }
        } else {
            for (int64_t j = 0; j < row_len; j++, dst += es) {
                int64_t s = last_table[j];
                if (row_fill || s < 0)
                    memcpy(dst, fill, es);
                else
                    memcpy(dst, sbase + (base + s * last_stride) * (int64_t)es, es);
            }
        }
        for (int d = last - 1; d >= 0; d--) {
            if (++coord[d] < out_sizes[d])
                break;
            coord[d] = 0;
        }
    }
    return out;
}

bool kern_identity_tables(int ndim, const int64_t *sizes, int64_t **tables)
{
    for (int d = 0; d < ndim; d++) {
        tables[d] = kern_malloc((size_t)sizes[d], sizeof **tables);
        if (!tables[d]) {
            kern_tables_free(d, tables);
            return false;
        }
        for (int64_t i = 0; i < sizes[d]; i++)
            tables[d][i] = i;
    }
    return true;
}

void kern_tables_free(int ndim, int64_t **tables)
{
    for (int d = 0; d < ndim; d++) {
        free(tables[d]);
        tables[d] = NULL;
    }
}

const char *kern_ctype_name(TensorDType dt)
{
    switch (dt) {
    case DT_BOOL: return "bool";
    case DT_U8: return "unsigned char";
    case DT_I8: return "signed char";
    case DT_I16: return "short int";
    case DT_I32: return "int";
    case DT_I64: return "long int";
    case DT_F32: return "float";
    case DT_F64: return "double";
    default: return "unknown";
    }
}
