/* lapack_common.h — what the LAPACK-backed kernels (lapack*.c) share:
 * PyTorch's checks on batches of matrices, the "(Batch element k): "
 * prefix of their error messages, and addressing of the k-th matrix of a
 * contiguous batch. Every kernel copies its operands into contiguous
 * row-major buffers of their own dtype and hands each matrix to LAPACKE
 * with LAPACK_ROW_MAJOR (LAPACKE transposes for the Fortran routine, so
 * the computation is the one PyTorch's column-major call makes).
 */
#ifndef TSSA_LAPACK_COMMON_H
#define TSSA_LAPACK_COMMON_H

#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

/* Batches of m x n matrices (at least 2 dims, float); *batch counts them. */
static inline bool lapack_matrix_batch(const Tensor *a, const char *op, int64_t *batch, int64_t *m, int64_t *n)
{
    if (!dtype_is_float(a->dtype)) {
        tensor_set_error("%s: Expected a floating point or complex tensor as input. Got %s", op,
                         dtype_ts_name(a->dtype));
        return false;
    }
    if (a->ndim < 2) {
        tensor_set_error("%s: The input tensor A must have at least 2 dimensions.", op);
        return false;
    }
    *m = a->sizes[a->ndim - 2];
    *n = a->sizes[a->ndim - 1];
    if (*m > INT_MAX || *n > INT_MAX || (*m && *n > INT_MAX / *m)) {
        tensor_set_error("%s: matrices of %" PRId64 " by %" PRId64 " are too large for LAPACK", op, *m, *n);
        return false;
    }
    *batch = 1;
    ckd_product_i64(batch, a->sizes, a->ndim - 2);
    return true;
}

/* The number of matrices in a batch of shape[0..nb) (1 for nb <= 0; the
 * sizes are those of a valid tensor, so the product does not overflow). */
static inline int64_t lapack_batch_count(int nb, const int64_t *shape)
{
    int64_t n = 1;
    ckd_product_i64(&n, shape, nb);
    return n;
}

/* lapack_matrix_batch, and square (*n by *n). */
static inline bool lapack_square_batch(const Tensor *a, const char *op, int64_t *batch, int64_t *n)
{
    int64_t rows, cols;
    if (!lapack_matrix_batch(a, op, batch, &rows, &cols))
        return false;
    if (rows != cols) {
        tensor_set_error("%s: A must be batches of square matrices, but they are %" PRId64 " by %" PRId64
                         " matrices", op, rows, cols);
        return false;
    }
    *n = rows;
    return true;
}

/* "(Batch element 3): " when the operand has a batch, else "". */
static inline void lapack_batch_prefix(char *buf, size_t cap, const Tensor *a, int64_t k)
{
    if (a->ndim > 2)
        snprintf(buf, cap, "(Batch element %" PRId64 "): ", k);
    else
        buf[0] = '\0';
}

/* The i-th rows x cols matrix of a contiguous batch, as float or double. */
static inline void *lapack_matrix_at(const Tensor *t, int64_t i, int64_t rows, int64_t cols)
{
    return (char *)tensor_data(t) + (size_t)(i * rows * cols) * dtype_size(t->dtype);
}

/* A contiguous tensor of a's batch shape with the matrix dims replaced by
 * rows x cols (zero-filled). */
static inline Tensor *lapack_batch_of(const Tensor *a, TensorDType dt, int64_t rows, int64_t cols)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int d = 0; d < a->ndim - 2; d++)
        sizes[d] = a->sizes[d];
    sizes[a->ndim - 2] = rows;
    sizes[a->ndim - 1] = cols;
    return tensor_zeros(dt, a->ndim, sizes);
}

/* A contiguous tensor of a's batch shape followed by `count` (zero-filled). */
static inline Tensor *lapack_vector_batch(const Tensor *a, TensorDType dt, int64_t count)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int d = 0; d < a->ndim - 2; d++)
        sizes[d] = a->sizes[d];
    sizes[a->ndim - 2] = count;
    return tensor_zeros(dt, a->ndim - 1, sizes);
}

#endif
