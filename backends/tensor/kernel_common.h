/* kernel_common.h — private helpers shared by the kernel files (reduce.c,
 * sort.c, index.c, linalg.c, nn.c, shape.c).
 *
 * The kernels are written against three small tools:
 *   - dimension arguments: wrapping a possibly negative dim the way PyTorch's
 *     maybe_wrap_dim does (a 0-d tensor accepts -1 and 0), and turning a dims
 *     list into a mask with PyTorch's duplicate check;
 *   - element access by storage offset: load/store one element of any dtype
 *     as double or int64, with the casts PyTorch's static_cast performs;
 *   - bulk transfer: read a strided tensor (any view) into a row-major array
 *     of doubles or int64s, and write such an array back into a strided view.
 * Kernels compute in double (floating dtypes) or int64 (integers, bool), so
 * one loop serves every dtype; results are rounded to the output dtype once,
 * on store. Sizes are multiplied with overflow checks before any allocation.
 */
#ifndef TSSA_KERNEL_COMMON_H
#define TSSA_KERNEL_COMMON_H

#include "tssa/tensor.h"

/* ---------------------------------------------------------------- dims */

/* PyTorch's maybe_wrap_dim(dim, ndim, wrap_scalar=true): a 0-d tensor is
 * treated as 1-d. Returns -1 with "Dimension out of range ..." on error. */
int kern_wrap_dim(int64_t dim, int ndim);
/* Marks dims[0..ndims) in mask[0..ndim). ndims == 0 marks every dim (PyTorch
 * reduces over all dims for an empty list). Errors on a dim out of range and
 * on "dim 0 appears multiple times in the list of dims". */
bool kern_dims_to_mask(const int64_t *dims, int ndims, int ndim, bool mask[TENSOR_MAX_DIMS]);

/* ---------------------------------------------------------------- sizes */

/* *out = a * b for non-negative sizes; false with an error on overflow. */
bool kern_mul_size(int64_t a, int64_t b, int64_t *out);
/* Product of sizes[0..ndim) with overflow check (1 for ndim == 0). */
bool kern_numel_checked(int ndim, const int64_t *sizes, int64_t *out);
/* "[2, 3]" into buf (for error messages). Returns buf. */
const char *kern_shape_str(int ndim, const int64_t *sizes, char *buf, size_t cap);
#define KERN_SHAPE_BUF 256

/* ---------------------------------------------------------------- elements */

/* Address of the element at storage offset off (in elements). */
void *kern_elem_ptr(const Tensor *t, int64_t off);
double kern_load_f64(TensorDType dt, const void *p);
int64_t kern_load_i64(TensorDType dt, const void *p);
/* Stores with C++ static_cast semantics: float -> int truncates toward zero
 * (NaN and out-of-range values become INT64_MIN first, as x86 does), int ->
 * narrower int wraps, anything -> bool is "!= 0". */
void kern_store_f64(TensorDType dt, void *p, double v);
void kern_store_i64(TensorDType dt, void *p, int64_t v);
/* v rounded through dtype dt (what storing and loading again would give). */
double kern_round_f64(TensorDType dt, double v);
/* dst op= src for one element of dtype dt: sums wrap for integers, "or" for
 * bool (add); products wrap, "and" for bool (multiply). */
void kern_accumulate_add(TensorDType dt, void *dst, const void *src);
void kern_accumulate_mul(TensorDType dt, void *dst, const void *src);

/* ---------------------------------------------------------------- traversal */

/* Visits the storage offsets of a strided geometry in row-major order.
 *   KernCursor c; kern_cursor_init(&c, t);
 *   for (int64_t i = 0; i < n; i++) { use(c.offset); kern_cursor_next(&c); } */
typedef struct KernCursor {
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
    int64_t coord[TENSOR_MAX_DIMS];
    int64_t offset;
} KernCursor;

void kern_cursor_init(KernCursor *c, const Tensor *t);
void kern_cursor_next(KernCursor *c);

/* Row-major copies of t's elements into a malloc'd array (NULL with an error
 * when out of memory; a valid pointer for numel 0). */
double *kern_read_all_f64(const Tensor *t);
int64_t *kern_read_all_i64(const Tensor *t);
/* Writes vals (row-major over t's shape) into the strided view t. */
void kern_write_all_f64(Tensor *t, const double *vals);
void kern_write_all_i64(Tensor *t, const int64_t *vals);

/* ---------------------------------------------------------------- views */

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

/* ---------------------------------------------------------------- copy by tables */

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

/* ---------------------------------------------------------------- gemm */

/* c = a @ b for 2-d views a (m, k), b (k, n) and a contiguous (m, n) view c,
 * all of one dtype (float via BLAS when enabled, integers by loops with
 * wrapping int64 accumulation). Caller checks shapes and dtypes. */
bool kern_gemm(const Tensor *a, const Tensor *b, Tensor *c);

/* c10's checked_convert for a Python scalar (double fv when is_float, else
 * int64 iv) stored into dtype dt; false with "value cannot be converted to
 * type uint8_t without overflow" when it does not fit. */
bool kern_scalar_fits(TensorDType dt, bool is_float, double fv, int64_t iv);

/* PyTorch's C type names as used in some messages ("float", "double", "long int"). */
const char *kern_ctype_name(TensorDType dt);

#endif
