/* kernel_fixtures.h — PyTorch's expected values for the tensor kernel tests.
 *
 * gen_kernels_expected.py writes tests/tensor/data/kernels_<area>.txt: input
 * tensors, PyTorch's outputs and PyTorch's error messages, each under a key.
 * A test opens its area's file, builds inputs with fx_in, calls the kernel
 * and hands the result to a check:
 *
 *     Tensor *x = fx_in("x.in");
 *     fx_check("sum.dim1", tensor_sum(x, DIMS(1), false, -1));
 *     fx_check_error("sum.err_dup", tensor_sum(x, DIMS(0, 0), false, -1));
 *
 * Checks take ownership of the result. Floats compare with rtol 1e-4 and
 * atol 1e-5 (NaN matches NaN), integers and bools exactly; dtype and shape
 * must match. Tensors passed to fx_keep (and every fx_in) are released by
 * fx_finish, which prints a summary and returns the exit status.
 */
#ifndef TSSA_TESTS_KERNEL_FIXTURES_H
#define TSSA_TESTS_KERNEL_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>

#include "tssa/tensor.h"

/* A dims argument pair: DIMS(-1, 0) is (const int64_t[]){-1, 0}, 2. */
#define I64S(...) ((const int64_t[]){__VA_ARGS__})
#define NI64(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define DIMS(...) I64S(__VA_ARGS__), NI64(__VA_ARGS__)
/* The count-first order: SHAPE(3, 4) is 2, (const int64_t[]){3, 4}. */
#define SHAPE(...) NI64(__VA_ARGS__), I64S(__VA_ARGS__)
#define NO_DIMS NULL, 0

bool fx_open(const char *path);
/* A fresh contiguous tensor holding the input stored under key. */
Tensor *fx_in(const char *key);
/* Registers t for release at fx_finish and returns it (views in tests). */
Tensor *fx_keep(Tensor *t);

void fx_check(const char *key, Tensor *actual);
/* key.values and key.indices (max/min with dim, sort, topk). */
void fx_check_pair(const char *key, bool ok, Tensor *values, Tensor *indices);
/* In-place kernels: ok must be true and t must equal the expectation. */
void fx_check_inplace(const char *key, bool ok, Tensor *t);
/* The kernel must fail (NULL / false) with PyTorch's message. */
void fx_check_error(const char *key, Tensor *result);
void fx_check_error_bool(const char *key, bool ok);

/* Hand-derived expectations (for documented deviations from PyTorch). */
void fx_check_values(const char *what, Tensor *actual, TensorDType dt, int ndim, const int64_t *sizes,
                     const double *values);
void fx_expect(bool cond, const char *what);

int fx_finish(void);

#endif
