/* tensor.h — strided tensors with PyTorch's semantics, and the reference
 * kernels the ref backend runs.
 *
 * A Tensor is a view: (dtype, sizes, strides, offset) over a reference-counted
 * Storage. Views share storage, so a write through any view is seen by every
 * alias, exactly as in PyTorch. Strides and offsets count elements, not bytes.
 *
 * Ownership: every function returning Tensor* returns a new reference the
 * caller must tensor_release. Arguments are borrowed. Functions returning
 * arrays of tensors (chunk, split, unbind, topk...) fill caller-provided
 * arrays or return a malloc'd array of new references (documented per call).
 *
 * Errors: a kernel given bad arguments (shape mismatch, index out of range)
 * returns NULL (or false) after recording a message with tensor_set_error;
 * the caller (the interpreter) reports it with the node's source line.
 */
#ifndef TSSA_TENSOR_H
#define TSSA_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TENSOR_MAX_DIMS 16

/* Ordered so that promotion within a category is "larger enum wins". */
typedef enum TensorDType {
    DT_BOOL,
    DT_U8,
    DT_I8,
    DT_I16,
    DT_I32,
    DT_I64,
    DT_F32,
    DT_F64,
    DT_COUNT
} TensorDType;

size_t dtype_size(TensorDType dt);
const char *dtype_name(TensorDType dt);          /* "float32", "int64", "bool" */
bool dtype_is_float(TensorDType dt);
bool dtype_is_integral(TensorDType dt);          /* ints, not bool */
/* TorchScript ScalarType codes (the ints TorchScript passes as `dtype`):
 * 0 uint8, 1 int8, 2 int16, 3 int32, 4 int64, 6 float32, 7 float64, 11 bool.
 * Returns -1 for codes without a TensorDType (half, complex...). */
int dtype_from_scalar_type(int64_t code);
int64_t dtype_to_scalar_type(TensorDType dt);
/* TorchScript type-name prefix ("Float", "Long", "Bool") <-> dtype; -1 if none. */
int dtype_from_ts_name(const char *name);
const char *dtype_ts_name(TensorDType dt);

typedef struct StoragePool StoragePool;

typedef struct Storage {
    int refcount;
    size_t nbytes;
    void *data;
    StoragePool *pool;          /* where data goes back to, or NULL: free it */
} Storage;

typedef struct Tensor {
    int refcount;
    Storage *storage;
    TensorDType dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
    int64_t offset;
    /* A 0-d tensor made from a Python number: it takes part in type promotion
     * only by category (int tensor + 2.5 -> float32; float32 + 2.5 stays
     * float32), as PyTorch's wrapped numbers do. */
    bool wrapped_number;
} Tensor;

/* ---------------------------------------------------------------- errors */

void tensor_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *tensor_last_error(void);
void tensor_clear_error(void);

/* ---------------------------------------------------------------- storage pool
 * Buffers kept for reuse across a plan's runs (tensor/storage_pool.c): while
 * a pool is installed, new storages take a free buffer of their exact size
 * from it before calling malloc, and every storage made then gives its
 * buffer back to that pool when its last reference goes. Thread-safe. */
enum {
    STORAGE_POOL_MIN_CAP = 64 << 20,        /* default cap: at least 64 MiB ... */
    STORAGE_POOL_PLANNED_FACTOR = 4,        /* ... or 4x the plan's bytes_planned */
    STORAGE_POOL_MAX_HELD = 4096,           /* free buffers held, at most */
};
typedef struct StoragePoolStats {
    int64_t allocations;            /* buffers malloc'd for storages made under the pool */
    int64_t reuses;                 /* buffers handed out again from the free lists */
    int64_t over_cap;               /* buffers freed because the pool was full */
    int64_t runs;                   /* storage_pool_begin_run calls */
    int64_t first_run_allocations;  /* allocations during run 1 (-1: no run yet) */
    int64_t last_run_allocations;   /* allocations since the last begin_run */
    int64_t bytes_held, peak_bytes_held, cap_bytes;
    int buffers_held;
} StoragePoolStats;
/* A pool holding at most cap_bytes of free buffers (0: it keeps none). */
StoragePool *storage_pool_new(size_t cap_bytes);
/* The cap for a plan whose memory plan needs bytes_planned: the larger of
 * STORAGE_POOL_MIN_CAP and STORAGE_POOL_PLANNED_FACTOR x bytes_planned, at
 * most a quarter of the machine's memory; 0 (no reuse, so use-after-free
 * stays visible) under AddressSanitizer or valgrind, or when the
 * environment sets TSSA_STORAGE_POOL=0. */
size_t storage_pool_default_cap(int64_t bytes_planned);
/* Makes p the pool new storages use (NULL: none); returns the previous one. */
StoragePool *storage_pool_install(StoragePool *p);
/* Marks the start of a run, for the per-run allocation counts (NULL is fine). */
void storage_pool_begin_run(StoragePool *p);
StoragePoolStats storage_pool_stats(StoragePool *p);
/* Closes p (uninstalling it if installed): its free buffers are freed and
 * the memory returned to the system; buffers still in use are freed when
 * their storages are. NULL is fine. */
void storage_pool_free(StoragePool *p);

/* The most bytes any one new storage of the calling thread may take (0: no
 * cap, the default); an allocation above it fails as out of memory does.
 * Returns the previous cap. For callers that run ops only to learn their
 * results' shapes (kernels/shape_eval.c). */
size_t tensor_set_allocation_cap(size_t bytes);

/* ---------------------------------------------------------------- core */

/* Contiguous, not initialized; poison-filled (NaN, 0x5A, true) in builds
 * with TSSA_POISON (sanitizer builds), so an element a kernel forgets shows. */
Tensor *tensor_empty(TensorDType dt, int ndim, const int64_t *sizes);
bool tensor_poison_enabled(void);           /* whether tensor_empty poisons */
/* Contiguous and not filled: for a writer that sets every element (a
 * generated kernel), where the poison pass would cost a pass over memory. */
Tensor *tensor_empty_unfilled(TensorDType dt, int ndim, const int64_t *sizes);
Tensor *tensor_zeros(TensorDType dt, int ndim, const int64_t *sizes);
Tensor *tensor_full(TensorDType dt, int ndim, const int64_t *sizes, double value);
Tensor *tensor_scalar(TensorDType dt, double value);                 /* 0-d */
Tensor *tensor_scalar_int(TensorDType dt, int64_t value);            /* 0-d, exact for int64 */
Tensor *tensor_wrapped_int(int64_t v);     /* 0-d int64, wrapped_number */
Tensor *tensor_wrapped_float(double v);    /* 0-d float64, wrapped_number */
Tensor *tensor_wrapped_bool(bool v);       /* 0-d bool, wrapped_number */
/* A new tensor sharing t's storage with the given geometry (no checks). */
Tensor *tensor_make_view(const Tensor *t, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset);
Tensor *tensor_retain(Tensor *t);
void tensor_release(Tensor *t);            /* NULL is fine */

int64_t tensor_numel(const Tensor *t);
bool tensor_is_contiguous(const Tensor *t);
void *tensor_data(const Tensor *t);        /* address of element [0,...,0] */
/* Element at a row-major logical index (0 <= i < numel), as double/int64. */
double tensor_get_flat(const Tensor *t, int64_t i);
int64_t tensor_get_flat_int(const Tensor *t, int64_t i);
void tensor_set_flat(Tensor *t, int64_t i, double v);
void tensor_set_flat_int(Tensor *t, int64_t i, int64_t v);
/* Storage offset of row-major logical index i. */
int64_t tensor_flat_to_offset(const Tensor *t, int64_t i);
/* Python scalar of a one-element tensor (aten::item, Int, Float). */
double tensor_item(const Tensor *t);
int64_t tensor_item_int(const Tensor *t);
bool tensor_same_shape(const Tensor *a, const Tensor *b);
/* Normalizes a possibly negative dim against ndim; -1 (with error) if out of range. */
int tensor_wrap_dim(int64_t dim, int ndim);
/* Broadcast shape of a and b into out (returns its ndim), or -1 with error. */
int tensor_broadcast_shape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out);

/* ---------------------------------------------------------------- copies */

Tensor *tensor_contiguous(Tensor *t);      /* t itself (retained) if contiguous */
Tensor *tensor_clone(const Tensor *t);     /* fresh contiguous copy */
/* aten::clone (memory_format=preserve): a dense t keeps its strides, as
 * PyTorch's does; so does tensor_to_dtype. Results of elementwise ops are
 * laid out like PyTorch's TensorIterator lays them out (x.t() + 1 has
 * transposed strides): use tensor_contiguous where a kernel needs row-major
 * data. */
Tensor *tensor_clone_preserve(const Tensor *t);
Tensor *tensor_to_dtype(const Tensor *t, TensorDType dt);   /* always a copy */
/* dst[...] = src, broadcasting src to dst's shape and casting. Handles src
 * overlapping dst (copies through a temporary). */
bool tensor_copy_(Tensor *dst, const Tensor *src);
bool tensor_fill_(Tensor *dst, double value);
bool tensor_fill_int_(Tensor *dst, int64_t value);

/* ---------------------------------------------------------------- promotion */

/* PyTorch's result_type: dimensioned tensors > 0-d tensors > wrapped numbers,
 * each group only raising the category (bool < integral < floating). */
TensorDType tensor_result_type(const Tensor *const *ts, int n);
TensorDType dtype_default_float(void);     /* float32 */

/* ---------------------------------------------------------------- views */
/* All return views sharing storage (or NULL with an error). Dims may be
 * negative. Slice bounds follow Python: start/end are clamped, end may be
 * INT64_MAX for "None"; step >= 1. */

Tensor *tensor_select(Tensor *t, int64_t dim, int64_t index);
Tensor *tensor_slice(Tensor *t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor *tensor_narrow(Tensor *t, int64_t dim, int64_t start, int64_t length);
Tensor *tensor_view(Tensor *t, int n, const int64_t *sizes);    /* one -1 allowed */
/* The rules behind view and reshape, on a layout alone (only t's ndim, sizes
 * and strides are read, so a caller may describe a layout in a Tensor on
 * the stack): tensor_infer_shape resolves one -1 in shape against numel
 * (ATen's infer_size; false, with the error set, when the shape does not
 * fit); tensor_view_strides is ATen's computeStride, the strides with which
 * new_sizes view memory laid out as t, or false when a new dim would span
 * two non-contiguous chunks, where reshape copies and view fails. */
bool tensor_infer_shape(int n, const int64_t *shape, int64_t numel, int64_t *out);
/* slice's bounds as ATen clamps them: negative start and end count from
 * size, then both are clamped into [0, size] with end >= start. Returns the
 * elements a step-1 slice keeps (end - start); a step s keeps
 * (end - start + s - 1) / s of them. */
int64_t tensor_slice_bounds(int64_t size, int64_t *start, int64_t *end);
bool tensor_view_strides(const Tensor *t, int new_n, const int64_t *new_sizes, int64_t *new_strides);
/* A view if the geometry allows, else a contiguous copy: PyTorch's rule. */
Tensor *tensor_reshape(Tensor *t, int n, const int64_t *sizes);
Tensor *tensor_squeeze(Tensor *t);                              /* all size-1 dims */
Tensor *tensor_squeeze_dim(Tensor *t, int64_t dim);
Tensor *tensor_unsqueeze(Tensor *t, int64_t dim);
Tensor *tensor_expand(Tensor *t, int n, const int64_t *sizes);  /* -1 keeps */
Tensor *tensor_permute(Tensor *t, int n, const int64_t *dims);
Tensor *tensor_transpose(Tensor *t, int64_t d0, int64_t d1);
Tensor *tensor_t(Tensor *t);                                    /* ndim <= 2 */
Tensor *tensor_diagonal(Tensor *t, int64_t offset, int64_t d1, int64_t d2);
Tensor *tensor_flatten(Tensor *t, int64_t start, int64_t end);  /* may copy, like reshape */
Tensor *tensor_unflatten(Tensor *t, int64_t dim, int n, const int64_t *sizes);
Tensor *tensor_movedim(Tensor *t, int64_t src, int64_t dst);
Tensor *tensor_alias(Tensor *t);
/* Lists of views: return a malloc'd array of *count new references. */
Tensor **tensor_chunk(Tensor *t, int64_t chunks, int64_t dim, int *count);
Tensor **tensor_split(Tensor *t, int64_t split_size, int64_t dim, int *count);
Tensor **tensor_split_sizes(Tensor *t, int n, const int64_t *sizes, int64_t dim, int *count);
Tensor **tensor_unbind(Tensor *t, int64_t dim, int *count);

/* ---------------------------------------------------------------- creation */

Tensor *tensor_arange(double start, double end, double step, TensorDType dt);
Tensor *tensor_linspace(double start, double end, int64_t steps, TensorDType dt);
Tensor *tensor_eye(int64_t n, int64_t m, TensorDType dt);   /* m == -1: n x n */
/* Tensors of shape (len0, len1, ...) for 1-d inputs; indexing "ij" or "xy".
 * Fills out[0..n-1] with new references (views, as PyTorch returns). */
bool tensor_meshgrid(Tensor *const *ts, int n, bool xy, Tensor **out);

/* ---------------------------------------------------------------- elementwise */

typedef enum UnaryOp {
    UN_NEG, UN_ABS, UN_EXP, UN_LOG, UN_LOG2, UN_LOG1P, UN_EXPM1, UN_SQRT,
    UN_RSQRT, UN_SIN, UN_COS, UN_TAN, UN_TANH, UN_ERF, UN_SIGMOID, UN_RELU,
    UN_RELU6, UN_GELU, UN_GELU_TANH, UN_SILU, UN_FLOOR, UN_CEIL, UN_ROUND,
    UN_TRUNC, UN_SIGN, UN_RECIPROCAL, UN_LOGICAL_NOT, UN_BITWISE_NOT,
    UN_HARDSIGMOID, UN_HARDSWISH,
    UN_ACOS, UN_ASIN, UN_ATAN, UN_SINH, UN_COSH, UN_ASINH, UN_ACOSH, UN_ATANH,
    UN_ERFC, UN_EXP2, UN_LOG10, UN_LGAMMA, UN_DEG2RAD, UN_RAD2DEG, UN_SINC,
    /* parameterized: p0, p1 */
    UN_LEAKY_RELU,   /* p0 = negative_slope */
    UN_ELU,          /* p0 = alpha */
    UN_SOFTPLUS,     /* p0 = beta, p1 = threshold */
    UN_HARDTANH,     /* p0 = min, p1 = max */
    UN_ROUND_DECIMALS, /* p0 = decimals */
    UN_COUNT
} UnaryOp;

typedef enum BinaryOp {
    BIN_ADD, BIN_SUB, BIN_MUL,
    BIN_DIV,           /* true division: ints promote to float32 */
    BIN_DIV_TRUNC,     /* rounding_mode="trunc" */
    BIN_DIV_FLOOR,     /* rounding_mode="floor", floor_divide */
    BIN_REMAINDER,     /* Python %: sign of divisor */
    BIN_FMOD,          /* C fmod: sign of dividend */
    BIN_POW, BIN_MAXIMUM, BIN_MINIMUM, BIN_ATAN2,
    BIN_EQ, BIN_NE, BIN_LT, BIN_LE, BIN_GT, BIN_GE,          /* -> bool */
    BIN_LOGICAL_AND, BIN_LOGICAL_OR, BIN_LOGICAL_XOR,        /* -> bool */
    BIN_BITWISE_AND, BIN_BITWISE_OR, BIN_BITWISE_XOR,        /* ints and bools */
    BIN_COUNT
} BinaryOp;

/* Out-of-place; result dtype follows PyTorch (float ops on ints give
 * float32, comparisons give bool, logical_not gives bool). */
Tensor *tensor_unary(UnaryOp op, const Tensor *a, double p0, double p1);
Tensor *tensor_binary(BinaryOp op, const Tensor *a, const Tensor *b);
/* a + alpha * b and a - alpha * b (aten::add/sub with alpha). */
Tensor *tensor_add(const Tensor *a, const Tensor *b, double alpha);
Tensor *tensor_sub(const Tensor *a, const Tensor *b, double alpha);
/* In-place forms write into a (whose dtype must hold the result, as PyTorch
 * checks: "result type Float can't be cast to the desired output type Long"). */
bool tensor_unary_(UnaryOp op, Tensor *a, double p0, double p1);
bool tensor_binary_(BinaryOp op, Tensor *a, const Tensor *b);
bool tensor_add_(Tensor *a, const Tensor *b, double alpha);
bool tensor_sub_(Tensor *a, const Tensor *b, double alpha);
Tensor *tensor_where(const Tensor *cond, const Tensor *a, const Tensor *b);
/* min/max may be NULL (absent); either may be a wrapped number. */
Tensor *tensor_clamp(const Tensor *a, const Tensor *min, const Tensor *max);
bool tensor_clamp_(Tensor *a, const Tensor *min, const Tensor *max);
Tensor *tensor_lerp(const Tensor *a, const Tensor *b, const Tensor *weight);

/* ---------------------------------------------------------------- reductions */
/* dims == NULL / ndims == 0 means all dims. out_dtype < 0 means default
 * (sum of ints/bools gives int64; mean needs a float). */

Tensor *tensor_sum(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype);
Tensor *tensor_mean(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype);
Tensor *tensor_prod(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype);
Tensor *tensor_amax(const Tensor *t, const int64_t *dims, int ndims, bool keepdim);
Tensor *tensor_amin(const Tensor *t, const int64_t *dims, int ndims, bool keepdim);
Tensor *tensor_max_all(const Tensor *t);
Tensor *tensor_min_all(const Tensor *t);
/* values and indices along dim (first occurrence on ties, as PyTorch CPU). */
bool tensor_max_dim(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices);
bool tensor_min_dim(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices);
/* has_dim false: over the flattened tensor. */
Tensor *tensor_argmax(const Tensor *t, bool has_dim, int64_t dim, bool keepdim);
Tensor *tensor_argmin(const Tensor *t, bool has_dim, int64_t dim, bool keepdim);
Tensor *tensor_softmax(const Tensor *t, int64_t dim, int out_dtype);
Tensor *tensor_log_softmax(const Tensor *t, int64_t dim, int out_dtype);
Tensor *tensor_logsumexp(const Tensor *t, const int64_t *dims, int ndims, bool keepdim);
Tensor *tensor_cumsum(const Tensor *t, int64_t dim, int out_dtype);
Tensor *tensor_cumprod(const Tensor *t, int64_t dim, int out_dtype);
Tensor *tensor_all(const Tensor *t, bool has_dim, int64_t dim, bool keepdim);
Tensor *tensor_any(const Tensor *t, bool has_dim, int64_t dim, bool keepdim);
bool tensor_topk(const Tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
                 Tensor **values, Tensor **indices);
bool tensor_sort(const Tensor *t, int64_t dim, bool descending, bool stable,
                 Tensor **values, Tensor **indices);
Tensor *tensor_argsort(const Tensor *t, int64_t dim, bool descending, bool stable);
Tensor *tensor_nonzero(const Tensor *t);                        /* (n, ndim) int64 */
Tensor *tensor_norm(const Tensor *t, double p, const int64_t *dims, int ndims, bool keepdim);
/* correction: 1 for unbiased (Bessel), 0 for population. */
Tensor *tensor_var(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim);
Tensor *tensor_std(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim);

/* ---------------------------------------------------------------- indexing */

/* t[indices], PyTorch advanced indexing: indices[i] NULL means ":" for dim i;
 * long tensors index, bool tensors mask (they expand to nonzero()). n may be
 * less than t->ndim. */
Tensor *tensor_index(const Tensor *t, Tensor *const *indices, int n);
/* t[indices] = values (accumulate: +=), in place; values broadcast. */
bool tensor_index_put_(Tensor *t, Tensor *const *indices, int n, const Tensor *values, bool accumulate);
Tensor *tensor_index_select(const Tensor *t, int64_t dim, const Tensor *index);
Tensor *tensor_masked_select(const Tensor *t, const Tensor *mask);
Tensor *tensor_gather(const Tensor *t, int64_t dim, const Tensor *index);
/* t.index_add_(dim, index, source, alpha): t[index[i]] += alpha * source[i] along dim. */
bool tensor_index_add_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source, double alpha);
/* torch.bincount (weights nullable) and torch.searchsorted (sorted along its last dim). */
Tensor *tensor_bincount(const Tensor *x, const Tensor *weights, int64_t minlength);
Tensor *tensor_searchsorted(const Tensor *sorted, const Tensor *values, bool out_int32, bool right);
/* value is a 0-d tensor (or wrapped number). */
bool tensor_masked_fill_(Tensor *t, const Tensor *mask, const Tensor *value);
/* reduce: NULL (replace), "add", "multiply". src may be a wrapped number. */
bool tensor_scatter_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *src, const char *reduce);

/* ---------------------------------------------------------------- linalg (OpenBLAS) */

Tensor *tensor_mm(const Tensor *a, const Tensor *b);
Tensor *tensor_bmm(const Tensor *a, const Tensor *b);
Tensor *tensor_matmul(const Tensor *a, const Tensor *b);        /* numpy rules */
/* beta * self + alpha * (a @ b) */
Tensor *tensor_addmm(const Tensor *self, const Tensor *a, const Tensor *b, double beta, double alpha);
Tensor *tensor_linear(const Tensor *x, const Tensor *w, const Tensor *bias /* nullable */);
Tensor *tensor_dot(const Tensor *a, const Tensor *b);
Tensor *tensor_outer(const Tensor *a, const Tensor *b);

/* ---------------------------------------------------------------- linalg (LAPACK) */
/* Batches of matrices in the last two dims (tensor/lapack.c); float32 and
 * float64; PyTorch's errors for integer, non-square and singular inputs. */

Tensor *tensor_linalg_cholesky(const Tensor *a, bool upper);
/* X with (L L^T) X = b, L the Cholesky factor (upper: U^T U). */
Tensor *tensor_cholesky_solve(const Tensor *b, const Tensor *l, bool upper);
/* X with A X = B; B a batch of vectors or of matrices (torch.linalg.solve). */
Tensor *tensor_linalg_solve(const Tensor *a, const Tensor *b);
Tensor *tensor_linalg_inv(const Tensor *a);
Tensor *tensor_linalg_det(const Tensor *a);
bool tensor_linalg_slogdet(const Tensor *a, Tensor **sign, Tensor **logabsdet);
/* mode "reduced", "complete" or "r" (Q is then empty). */
bool tensor_linalg_qr(const Tensor *a, const char *mode, Tensor **q, Tensor **r);
/* Eigenvalues ascending, eigenvectors as columns, of symmetric matrices
 * (read from the lower triangle, or the upper one). */
bool tensor_linalg_eigh(const Tensor *a, bool upper, Tensor **values, Tensor **vectors);
/* torch.diag_embed with the default dims (-2, -1). */
Tensor *tensor_diag_embed(const Tensor *t, int64_t offset);
/* torch.unique_consecutive (tensor/unique.c): values, the inverse (empty
 * unless asked for) and the run lengths (empty unless asked for). */
bool tensor_unique_consecutive(const Tensor *x, bool return_inverse, bool return_counts,
                               bool has_dim, int64_t dim, Tensor **values, Tensor **inverse,
                               Tensor **counts);
/* torch.einsum (tensor/einsum.c): contractions planned onto permutes,
 * reshapes and tensor_bmm. */
Tensor *tensor_einsum(const char *equation, Tensor *const *operands, int n);
/* torch.diag: a 1-d input becomes a matrix with it on diagonal `offset`;
 * a 2-d input gives a copy of that diagonal. */
Tensor *tensor_diag(const Tensor *t, int64_t offset);

/* ---------------------------------------------------------------- nn */

/* x: (N, C, H, W) or (C, H, W); w: (O, C/groups, kH, kW); bias nullable. */
Tensor *tensor_conv2d(const Tensor *x, const Tensor *w, const Tensor *bias,
                      const int64_t stride[2], const int64_t padding[2],
                      const int64_t dilation[2], int64_t groups);
Tensor *tensor_conv1d(const Tensor *x, const Tensor *w, const Tensor *bias,
                      int64_t stride, int64_t padding, int64_t dilation, int64_t groups);
/* x: (N, C, D, H, W) or (C, D, H, W); w: (O, C/groups, kD, kH, kW). */
Tensor *tensor_conv3d(const Tensor *x, const Tensor *w, const Tensor *bias,
                      const int64_t stride[3], const int64_t padding[3],
                      const int64_t dilation[3], int64_t groups);
/* Inference batch norm over dim 1; weight/bias nullable. */
Tensor *tensor_batch_norm(const Tensor *x, const Tensor *weight, const Tensor *bias,
                          const Tensor *running_mean, const Tensor *running_var, double eps);
Tensor *tensor_layer_norm(const Tensor *x, int n, const int64_t *normalized_shape,
                          const Tensor *weight, const Tensor *bias, double eps);
Tensor *tensor_group_norm(const Tensor *x, int64_t groups, const Tensor *weight,
                          const Tensor *bias, double eps);
Tensor *tensor_max_pool2d(const Tensor *x, const int64_t kernel[2], const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], bool ceil_mode);
/* divisor_override <= 0: none. */
Tensor *tensor_avg_pool2d(const Tensor *x, const int64_t kernel[2], const int64_t stride[2],
                          const int64_t padding[2], bool ceil_mode, bool count_include_pad,
                          int64_t divisor_override);
Tensor *tensor_adaptive_avg_pool2d(const Tensor *x, const int64_t out_size[2]);
Tensor *tensor_embedding(const Tensor *weight, const Tensor *indices);
Tensor *tensor_cat(Tensor *const *ts, int n, int64_t dim);
Tensor *tensor_stack(Tensor *const *ts, int n, int64_t dim);
Tensor *tensor_repeat(const Tensor *t, int n, const int64_t *repeats);
Tensor *tensor_flip(const Tensor *t, int n, const int64_t *dims);
Tensor *tensor_roll(const Tensor *t, int n, const int64_t *shifts, int ndims, const int64_t *dims);
Tensor *tensor_tril(const Tensor *t, int64_t diagonal);
Tensor *tensor_triu(const Tensor *t, int64_t diagonal);
/* pad: pairs (left, right) starting from the last dim, as F.pad. */
Tensor *tensor_constant_pad(const Tensor *t, int n, const int64_t *pad, double value);

/* ---------------------------------------------------------------- family special: special functions: gamma family, Bessel, orthogonal polynomials, ndtr, zeta, erfinv */
typedef enum SpecialUnaryOp {
    SP_DIGAMMA, SP_POLYGAMMA /* n = order */, SP_MVLGAMMA /* n = dimension p */,
    SP_ERFINV, SP_I0, SP_I0E, SP_I1, SP_I1E, SP_ENTR, SP_ERFCX, SP_NDTR, SP_NDTRI,
    SP_LOG_NDTR, SP_AIRY_AI, SP_BESSEL_J0, SP_BESSEL_J1, SP_BESSEL_Y0, SP_BESSEL_Y1,
    SP_MODIFIED_BESSEL_I0, SP_MODIFIED_BESSEL_I1, SP_MODIFIED_BESSEL_K0, SP_MODIFIED_BESSEL_K1,
    SP_SCALED_MODIFIED_BESSEL_K0, SP_SCALED_MODIFIED_BESSEL_K1, SP_SPHERICAL_BESSEL_J0,
    SP_UNARY_COUNT
} SpecialUnaryOp;

typedef enum SpecialBinaryOp {
    SP_XLOGY, SP_XLOG1PY, SP_IGAMMA, SP_IGAMMAC, SP_ZETA,
    /* orthogonal polynomials: (x, n) */
    SP_CHEBYSHEV_T, SP_CHEBYSHEV_U, SP_CHEBYSHEV_V, SP_CHEBYSHEV_W,
    SP_SHIFTED_CHEBYSHEV_T, SP_SHIFTED_CHEBYSHEV_U, SP_SHIFTED_CHEBYSHEV_V, SP_SHIFTED_CHEBYSHEV_W,
    SP_HERMITE_H, SP_HERMITE_HE, SP_LAGUERRE_L, SP_LEGENDRE_P,
    SP_BINARY_COUNT
} SpecialBinaryOp;

/* Elementwise special functions (tensor/special.c): integer and bool inputs
 * give float32. n is polygamma's order or mvlgamma's p (else unused). */
Tensor *tensor_special_unary(SpecialUnaryOp op, const Tensor *a, int64_t n);
bool tensor_special_unary_(SpecialUnaryOp op, Tensor *a, int64_t n);
/* Operands broadcast; either may be a wrapped number. */
Tensor *tensor_special_binary(SpecialBinaryOp op, const Tensor *a, const Tensor *b);
bool tensor_special_binary_(SpecialBinaryOp op, Tensor *a, const Tensor *b);
/* (end of family special) */

/* ---------------------------------------------------------------- family math: elementwise math, predicates and activations */
/* tensor/math_extra.c: PyTorch's dtype rules and error messages per op. */

/* Elementwise predicates on one tensor, giving bool: integers and bools are
 * never NaN or infinite (isreal is true for every real dtype). */
typedef enum MathPredicate {
    MP_ISNAN, MP_ISINF, MP_ISFINITE, MP_ISPOSINF, MP_ISNEGINF, MP_ISREAL, MP_SIGNBIT,
} MathPredicate;
Tensor *tensor_predicate(MathPredicate pred, const Tensor *a);

/* One-tensor ops with parameters p[0..2]. */
typedef enum MathUnaryOp {
    MU_FRAC,        /* x - trunc(x); floating dtypes only */
    MU_LOGIT,       /* log(x / (1 - x)), x clamped to [p0, 1 - p0] when p0 >= 0; ints -> float32 */
    MU_ANGLE,       /* pi for x < 0, else 0 (NaN stays); ints -> float32 */
    MU_MISH,        /* x * tanh(softplus(x)); floating only */
    MU_SOFTSHRINK,  /* p0 = lambda (>= 0) */
    MU_HARDSHRINK,  /* p0 = lambda */
    MU_THRESHOLD,   /* x <= p0 ? p1 : x; every dtype but bool */
    MU_ELU,         /* p0 = alpha, p1 = scale, p2 = input_scale (elu, celu, selu) */
} MathUnaryOp;
Tensor *tensor_math_unary(MathUnaryOp op, const Tensor *a, const double *p);

/* Two-tensor ops, broadcasting, operands promoted to their result type. */
typedef enum MathBinaryOp {
    MB_COPYSIGN,    /* ints -> float32 */
    MB_HYPOT, MB_LOGADDEXP, MB_LOGADDEXP2, MB_NEXTAFTER,   /* floating only */
    MB_FMAX, MB_FMIN,          /* NaN-ignoring max/min; integers as maximum/minimum */
    MB_GCD, MB_LCM,            /* integers only */
    MB_HEAVISIDE,              /* both operands of one dtype */
    MB_LSHIFT, MB_RSHIFT,      /* integers only; shift counts taken modulo the C type's width */
} MathBinaryOp;
Tensor *tensor_math_binary(MathBinaryOp op, const Tensor *a, const Tensor *b);

/* torch.isclose / allclose / equal. */
Tensor *tensor_isclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan);
bool tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan,
                     bool *result);
bool tensor_equal(const Tensor *a, const Tensor *b, bool *result);
/* torch.nan_to_num: NULL replacements take the defaults (0, the dtype's
 * largest and lowest finite values); integer and bool tensors are copied. */
Tensor *tensor_nan_to_num(const Tensor *a, const double *nan, const double *posinf,
                          const double *neginf);
/* torch.ldexp: a * 2^b (as PyTorch computes it: mul(a, pow(2.0, b))). */
Tensor *tensor_ldexp(const Tensor *a, const Tensor *b);
/* torch.float_power: pow in float64; either operand may be a wrapped number. */
Tensor *tensor_float_power(const Tensor *base, const Tensor *exponent);
/* torch.frexp: mantissa (a's dtype) and int32 exponent of a floating tensor. */
bool tensor_frexp(const Tensor *a, Tensor **mantissa, Tensor **exponent);
/* F.glu: first half of dim times the sigmoid of the second half. */
Tensor *tensor_glu(const Tensor *a, int64_t dim);
/* F.prelu: x > 0 ? x : w * x, w one value or one per channel (dim 1). */
Tensor *tensor_prelu(const Tensor *a, const Tensor *weight);
/* self + value * t1 * t2 and self + value * t1 / t2, promoted over the
 * three tensors; value is a Python number (a wrapped 0-d tensor), converted
 * to the result dtype as PyTorch's Scalar::to does (3.14 -> 3 for ints). */
Tensor *tensor_addcmul(const Tensor *self, const Tensor *t1, const Tensor *t2, const Tensor *value);
Tensor *tensor_addcdiv(const Tensor *self, const Tensor *t1, const Tensor *t2, const Tensor *value);
/* (end of family math) */

/* ---------------------------------------------------------------- family pool_norm: pooling, unpooling, padding modes and normalization */
/* Pools over the last nd (1, 2 or 3) dims of a (C, ...) or (N, C, ...)
 * input; kernel, stride, padding and dilation hold nd values (stride NULL:
 * the kernel size). kernel_name names the kernel in the dtype error. A max
 * pool also returns its int64 indices (flat within each plane) in *indices
 * unless indices is NULL. */
Tensor *tensor_max_pool(const Tensor *x, int nd, const int64_t *kernel, const int64_t *stride,
                        const int64_t *padding, const int64_t *dilation, bool ceil_mode,
                        const char *kernel_name, Tensor **indices);
/* has_divisor: divide every window by divisor_override (not 0) instead. */
Tensor *tensor_avg_pool(const Tensor *x, int nd, const int64_t *kernel, const int64_t *stride,
                        const int64_t *padding, bool ceil_mode, bool count_include_pad,
                        bool has_divisor, int64_t divisor_override);
Tensor *tensor_adaptive_avg_pool(const Tensor *x, int nd, const int64_t *out_size);
Tensor *tensor_adaptive_max_pool(const Tensor *x, int nd, const int64_t *out_size, Tensor **indices);
/* max_unpool2d/3d (nd = 2 or 3): zeros of out_size per plane, x's values
 * scattered to their indices. */
Tensor *tensor_max_unpool(const Tensor *x, const Tensor *indices, int nd, const int64_t *out_size);
typedef enum TensorPadMode { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR } TensorPadMode;
/* F.pad's non-constant modes; pad: pairs (left, right) from the last dim. */
Tensor *tensor_pad_mode(const Tensor *x, int n, const int64_t *pad, TensorPadMode mode);
/* batch_norm with batch statistics (training mode) over dim 1; with
 * save_mean, also the per-channel mean and 1 / sqrt(biased var + eps)
 * (native_batch_norm). Running statistics are the caller's business. */
Tensor *tensor_batch_norm_train(const Tensor *x, const Tensor *weight, const Tensor *bias, double eps,
                                Tensor **save_mean, Tensor **save_invstd);
/* instance_norm: every (n, c) line normalized by its own statistics, or by
 * running_mean/var[c] when !use_input_stats; weight/bias per channel. */
Tensor *tensor_instance_norm(const Tensor *x, const Tensor *weight, const Tensor *bias,
                             const Tensor *running_mean, const Tensor *running_var,
                             bool use_input_stats, double eps);
/* native_layer_norm: layer_norm and the mean and rstd of every line, shaped
 * x.shape[:-n] + [1] * n. */
Tensor *tensor_native_layer_norm(const Tensor *x, int n, const int64_t *normalized_shape,
                                 const Tensor *weight, const Tensor *bias, double eps,
                                 Tensor **mean, Tensor **rstd);
/* (end of family pool_norm) */

/* ---------------------------------------------------------------- family resample: transposed convolution, interpolation, grid sampling, im2col, pixel shuffle, embedding_bag */
/* conv_transpose{1,2,3}d (spatial = 1..3): input (N, Cin, *) or unbatched
 * (Cin, *), weight (Cin, Cout / groups, *k); per-dim arrays of `spatial`
 * entries. float32, float64 and int64, as PyTorch's CPU kernels. */
Tensor *tensor_conv_transpose(const Tensor *x, const Tensor *w, const Tensor *bias, int spatial,
                              const int64_t *stride, const int64_t *padding, const int64_t *output_padding,
                              int64_t groups, const int64_t *dilation);
/* im2col (F.unfold): (N, C, H, W) or (C, H, W) -> (N, C * kh * kw, L). */
Tensor *tensor_im2col(const Tensor *x, const int64_t kernel[2], const int64_t dilation[2],
                      const int64_t padding[2], const int64_t stride[2]);
/* col2im (F.fold): (N, C * kh * kw, L) or unbatched -> (N, C, output_size). */
Tensor *tensor_col2im(const Tensor *x, const int64_t output_size[2], const int64_t kernel[2],
                      const int64_t dilation[2], const int64_t padding[2], const int64_t stride[2]);
/* (*, C * r * r, H, W) <-> (*, C, H * r, W * r); any dtype, a fresh tensor. */
Tensor *tensor_pixel_shuffle(const Tensor *x, int64_t upscale_factor);
Tensor *tensor_pixel_unshuffle(const Tensor *x, int64_t downscale_factor);
/* Interpolation of the `spatial` (1..3) trailing dims of x (N, C, *) to
 * out_size, as ATen's upsample_* kernels: nearest (floats, uint8),
 * nearest-exact, linear/bilinear/trilinear and bicubic (floats), and the
 * antialiased bilinear/bicubic.
 * align_corners matters for linear and cubic; scales (NULL, or one per
 * spatial dim; <= 0 for "not given") are the user's scale factors, which
 * ATen uses (as 1 / scale) instead of in / out to place source pixels. */
typedef enum UpsampleMode {
    UPSAMPLE_NEAREST,
    UPSAMPLE_NEAREST_EXACT,
    UPSAMPLE_LINEAR,
    UPSAMPLE_CUBIC,
    UPSAMPLE_LINEAR_AA,    /* antialiased (F.interpolate(..., antialias=True)), 2-d */
    UPSAMPLE_CUBIC_AA,
} UpsampleMode;
Tensor *tensor_upsample(const Tensor *x, UpsampleMode mode, int spatial, const int64_t *out_size,
                        bool align_corners, const double *scales);
/* The .vec overloads' output size from scale factors: floor(in * scale),
 * converted as C++ converts double to int64. */
bool tensor_upsample_output_size(const Tensor *x, int spatial, const double *scale_factors, int64_t *out_size);
/* grid_sampler (F.grid_sample): input (N, C, H, W) with grid (N, Ho, Wo, 2),
 * or (N, C, D, H, W) with grid (N, Do, Ho, Wo, 3); the enums have ATen's
 * integer codes. Floating dtypes. */
typedef enum GridSampleMode { GRID_SAMPLE_BILINEAR, GRID_SAMPLE_NEAREST, GRID_SAMPLE_BICUBIC } GridSampleMode;
typedef enum GridSamplePadding { GRID_PAD_ZEROS, GRID_PAD_BORDER, GRID_PAD_REFLECTION } GridSamplePadding;
Tensor *tensor_grid_sample(const Tensor *x, const Tensor *grid, GridSampleMode mode, GridSamplePadding padding,
                           bool align_corners);
/* embedding_bag: weight (num_embeddings, dim), 1-d indices and offsets
 * (int64 or int32), mode 0 sum / 1 mean / 2 max, per_sample_weights (sum
 * only) or NULL, padding_idx INT64_MIN for none (negative counts from the
 * end). out receives (output, offset2bag, bag_size, max_indices). */
bool tensor_embedding_bag(const Tensor *weight, const Tensor *indices, const Tensor *offsets, int mode,
                          const Tensor *per_sample_weights, bool include_last_offset, int64_t padding_idx,
                          Tensor **out);
/* (end of family resample) */

/* ---------------------------------------------------------------- family loss: losses and distances */
/* Losses take the reduction as TorchScript passes it: 0 none, 1 mean, 2
 * sum (tensor/loss.c). Each follows ATen 1.13's CPU definition, composite
 * ones op for op, so dtypes, shapes and errors are PyTorch's. */
/* torch.broadcast_tensors: a malloc'd array of n views (new references), each
 * input expanded to the common shape. */
Tensor **tensor_broadcast_tensors(Tensor *const *ts, int n);
Tensor *tensor_l1_loss(const Tensor *input, const Tensor *target, int64_t reduction);
Tensor *tensor_mse_loss(const Tensor *input, const Tensor *target, int64_t reduction);
Tensor *tensor_smooth_l1_loss(const Tensor *input, const Tensor *target, int64_t reduction, double beta);
Tensor *tensor_huber_loss(const Tensor *input, const Tensor *target, int64_t reduction, double delta);
Tensor *tensor_kl_div(const Tensor *input, const Tensor *target, int64_t reduction, bool log_target);
/* weight and pos_weight nullable. */
Tensor *tensor_binary_cross_entropy(const Tensor *input, const Tensor *target, const Tensor *weight,
                                    int64_t reduction);
Tensor *tensor_binary_cross_entropy_with_logits(const Tensor *input, const Tensor *target,
                                                const Tensor *weight, const Tensor *pos_weight,
                                                int64_t reduction);
/* nll_loss_nd: input (C), (N, C) or (N, C, d1, ...); weight nullable. */
Tensor *tensor_nll_loss(const Tensor *input, const Tensor *target, const Tensor *weight,
                        int64_t reduction, int64_t ignore_index);
/* Class indices, or class probabilities when target has input's shape. */
Tensor *tensor_cross_entropy_loss(const Tensor *input, const Tensor *target, const Tensor *weight,
                                  int64_t reduction, int64_t ignore_index, double label_smoothing);
Tensor *tensor_margin_ranking_loss(const Tensor *input1, const Tensor *input2, const Tensor *target,
                                   double margin, int64_t reduction);
Tensor *tensor_hinge_embedding_loss(const Tensor *input, const Tensor *target, double margin,
                                    int64_t reduction);
Tensor *tensor_soft_margin_loss(const Tensor *input, const Tensor *target, int64_t reduction);
/* p is 1 or 2; weight nullable. */
Tensor *tensor_multi_margin_loss(const Tensor *input, const Tensor *target, double p, double margin,
                                 const Tensor *weight, int64_t reduction);
Tensor *tensor_multilabel_margin_loss(const Tensor *input, const Tensor *target, int64_t reduction);
Tensor *tensor_log_sigmoid(const Tensor *input);
Tensor *tensor_cosine_embedding_loss(const Tensor *input1, const Tensor *input2, const Tensor *target,
                                     double margin, int64_t reduction);
Tensor *tensor_triplet_margin_loss(const Tensor *anchor, const Tensor *positive, const Tensor *negative,
                                   double margin, double p, double eps, bool swap, int64_t reduction);
Tensor *tensor_poisson_nll_loss(const Tensor *input, const Tensor *target, bool log_input, bool full,
                                double eps, int64_t reduction);
/* log_probs (T, N, C) or (T, C); targets (N, S) padded or 1-d concatenated. */
Tensor *tensor_ctc_loss(const Tensor *log_probs, const Tensor *targets, const int64_t *input_lengths,
                        int n_input_lengths, const int64_t *target_lengths, int n_target_lengths,
                        int64_t blank, int64_t reduction, bool zero_infinity);
/* Distances (tensor/distance.c). */
Tensor *tensor_cosine_similarity(const Tensor *x1, const Tensor *x2, int64_t dim, double eps);
Tensor *tensor_pairwise_distance(const Tensor *x1, const Tensor *x2, double p, double eps, bool keepdim);
Tensor *tensor_pdist(const Tensor *x, double p);
/* compute_mode: -1 (None) or 0 use mm for p = 2 beyond 25 rows, 1 always, 2 never. */
Tensor *tensor_cdist(const Tensor *x1, const Tensor *x2, double p, int64_t compute_mode);
Tensor *tensor_dist(const Tensor *a, const Tensor *b, double p);
/* tensor/index_creation.c */
Tensor *tensor_one_hot(const Tensor *indices, int64_t num_classes);
/* tensor/linalg_products.c */
Tensor *tensor_bilinear(const Tensor *input1, const Tensor *input2, const Tensor *weight,
                        const Tensor *bias /* nullable */);
/* (end of family loss) */

/* ---------------------------------------------------------------- family linalg_extra: more linear algebra: SVD, LU, least squares, norms, products */
/* A Scalar argument (beta, alpha) with the kind it was written as: 'i'
 * int, 'f' float, 'b' bool (addr's checks depend on it). */
typedef struct LinalgScalar {
    double value;
    char kind;
} LinalgScalar;

/* tensor/linalg_products.c. The matrix transposes of t as views: attr is
 * "mT", "mH" (the last two dims; mH is mT for real dtypes) or "H" (2-d). */
Tensor *tensor_matrix_transpose(Tensor *t, const char *attr);
Tensor *tensor_trace(const Tensor *t);
Tensor *tensor_mv(const Tensor *mat, const Tensor *vec);
/* beta * self + alpha * product; self broadcast to the product's shape. */
Tensor *tensor_addmv(const Tensor *self, const Tensor *mat, const Tensor *vec, double beta, double alpha);
Tensor *tensor_addr(const Tensor *self, const Tensor *v1, const Tensor *v2, LinalgScalar beta, LinalgScalar alpha);
Tensor *tensor_baddbmm(const Tensor *self, const Tensor *b1, const Tensor *b2, double beta, double alpha);
Tensor *tensor_addbmm(const Tensor *self, const Tensor *b1, const Tensor *b2, double beta, double alpha);
/* Contracts dims_a[i] of a with dims_b[i] of b (torch.tensordot). */
Tensor *tensor_tensordot(const Tensor *a, const Tensor *b, int ndims, const int64_t *dims_a, const int64_t *dims_b);
Tensor *tensor_inner(const Tensor *a, const Tensor *b);
Tensor *tensor_vdot(const Tensor *a, const Tensor *b);
Tensor *tensor_linalg_vecdot(const Tensor *x, const Tensor *y, int64_t dim);
Tensor *tensor_kron(const Tensor *a, const Tensor *b);
Tensor *tensor_linalg_cross(const Tensor *a, const Tensor *b, int64_t dim);
/* torch.cross: without a dim, the first dim of size 3. */
Tensor *tensor_cross(const Tensor *a, const Tensor *b, bool has_dim, int64_t dim);
Tensor *tensor_block_diag(Tensor *const *ts, int n);
Tensor *tensor_linalg_multi_dot(Tensor *const *ts, int n);
Tensor *tensor_linalg_matrix_power(const Tensor *a, int64_t n);
/* has_n false: N is the size of x's last dim. */
Tensor *tensor_linalg_vander(const Tensor *x, bool has_n, int64_t n);

/* tensor/linalg_norms.c. dtype < 0: none (the input's). */
Tensor *tensor_linalg_vector_norm(const Tensor *x, double ord, const int64_t *dims, int ndims, bool has_dims,
                                  bool keepdim, int dtype);
/* ord 1, -1, 2, -2, inf or -inf over the matrices in dims[0..1]. */
Tensor *tensor_linalg_matrix_norm(const Tensor *a, double ord, const int64_t *dims, int ndims, bool keepdim,
                                  int dtype);
/* ord "fro" or "nuc". */
Tensor *tensor_linalg_matrix_norm_str(const Tensor *a, const char *ord, const int64_t *dims, int ndims,
                                      bool keepdim, int dtype);
/* torch.linalg.norm: a numeric ord (has_ord), a string ord (ord_str) or none. */
Tensor *tensor_linalg_norm(const Tensor *x, bool has_ord, double ord, const char *ord_str, const int64_t *dims,
                           int ndims, bool has_dims, bool keepdim, int dtype);
/* ndims 0 (every dim), 1 or 2. */
Tensor *tensor_frobenius_norm(const Tensor *x, const int64_t *dims, int ndims, bool keepdim);
/* dims NULL: a 2-d x. */
Tensor *tensor_nuclear_norm(const Tensor *x, const int64_t *dims, int ndims, bool keepdim);
Tensor *tensor_renorm(const Tensor *x, double p, int64_t dim, double maxnorm);

/* tensor/linalg_cov.c: torch.cov (weights nullable) and torch.corrcoef. */
Tensor *tensor_cov(const Tensor *x, int64_t correction, const Tensor *fweights, const Tensor *aweights);
Tensor *tensor_corrcoef(const Tensor *x);

/* tensor/lapack_svd.c: singular values in descending order (gesdd). */
Tensor *tensor_linalg_svdvals(const Tensor *a);
bool tensor_linalg_svd(const Tensor *a, bool full_matrices, Tensor **u, Tensor **s, Tensor **vh);
/* torch.svd: V (not Vh); compute_uv false gives zero-filled full U and V. */
bool tensor_svd(const Tensor *a, bool some, bool compute_uv, Tensor **u, Tensor **s, Tensor **v);
/* atol/rtol: NULL for absent, else broadcast to the batch shape. */
Tensor *tensor_linalg_pinv(const Tensor *a, const Tensor *atol, const Tensor *rtol, bool hermitian);
Tensor *tensor_linalg_matrix_rank(const Tensor *a, const Tensor *atol, const Tensor *rtol, bool hermitian);

/* ord: none (has_ord false: 2), a number, or "fro" / "nuc" (ord_str). */
Tensor *tensor_linalg_cond(const Tensor *a, bool has_ord, double ord, const char *ord_str);

/* tensor/lapack_lstsq.c: out = solution, residuals, rank, singular_values;
 * driver NULL is gelsy. */
bool tensor_linalg_lstsq(const Tensor *a, const Tensor *b, bool has_rcond, double rcond, const char *driver,
                         Tensor *out[4]);

/* tensor/lapack_lu.c: LAPACK's 1-based int32 pivots and int32 info. op
 * names the function in messages; check_errors raises on a zero pivot. */
bool tensor_linalg_lu_factor_ex(const Tensor *a, bool pivot, bool check_errors, const char *op, Tensor **lu,
                                Tensor **pivots, Tensor **info);
/* P, L, U with A = P L U; an unpacked part not asked for is an empty tensor. */
bool tensor_lu_unpack(const Tensor *lu, const Tensor *pivots, bool unpack_data, bool unpack_pivots, Tensor **p,
                      Tensor **l, Tensor **u);
bool tensor_linalg_lu(const Tensor *a, bool pivot, Tensor **p, Tensor **l, Tensor **u);
Tensor *tensor_linalg_lu_solve(const Tensor *lu, const Tensor *pivots, const Tensor *b, bool left, bool adjoint);
bool tensor_linalg_inv_ex(const Tensor *a, bool check_errors, Tensor **inverse, Tensor **info);
bool tensor_linalg_solve_ex(const Tensor *a, const Tensor *b, bool left, bool check_errors, Tensor **result,
                            Tensor **info);
Tensor *tensor_linalg_solve_triangular(const Tensor *a, const Tensor *b, bool upper, bool left, bool unitriangular);
/* torch.triangular_solve: the solution and A broadcast to the batch. */
bool tensor_triangular_solve(const Tensor *b, const Tensor *a, bool upper, bool transpose, bool unitriangular,
                             Tensor **solution, Tensor **coefficient);

/* tensor/lapack_qr.c */
bool tensor_geqrf(const Tensor *a, Tensor **qr, Tensor **tau);
Tensor *tensor_linalg_householder_product(const Tensor *a, const Tensor *tau);
Tensor *tensor_ormqr(const Tensor *a, const Tensor *tau, const Tensor *c, bool left, bool transpose);
bool tensor_linalg_ldl_factor_ex(const Tensor *a, bool check_errors, Tensor **ld, Tensor **pivots, Tensor **info);
Tensor *tensor_linalg_ldl_solve(const Tensor *ld, const Tensor *pivots, const Tensor *b);
bool tensor_linalg_cholesky_ex(const Tensor *a, bool upper, bool check_errors, Tensor **l, Tensor **info);
Tensor *tensor_cholesky_inverse(const Tensor *l, bool upper);

/* tensor/linalg_matrix_functions.c */
Tensor *tensor_linalg_matrix_exp(const Tensor *a);
Tensor *tensor_linalg_tensorinv(const Tensor *a, int64_t ind);
/* dims NULL: none. */
Tensor *tensor_linalg_tensorsolve(const Tensor *a, const Tensor *b, const int64_t *dims, int ndims);

/* tensor/lapack_eig.c */
Tensor *tensor_linalg_eigvalsh(const Tensor *a, bool upper);
/* eigenvectors false: *vectors is an empty tensor, as PyTorch's. */
bool tensor_symeig(const Tensor *a, bool eigenvectors, bool upper, Tensor **values, Tensor **vectors);
/* (end of family linalg_extra) */

/* ---------------------------------------------------------------- family stats: order statistics, scans, histograms, sorting */
/* tensor/sort.c: order statistics with PyTorch's choice among ties. */
Tensor *tensor_msort(const Tensor *t);
bool tensor_kthvalue(const Tensor *t, int64_t k, int64_t dim, bool keepdim, Tensor **values, Tensor **indices);
/* ignore_nan: nanmedian. */
bool tensor_median_dim(const Tensor *t, int64_t dim, bool keepdim, bool ignore_nan,
                       Tensor **values, Tensor **indices);
Tensor *tensor_median_all(const Tensor *t, bool ignore_nan);
bool tensor_mode(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices);
/* tensor/creation.c: torch.logspace (base ** linspace exponents). */
Tensor *tensor_logspace(double start, double end, int64_t steps, double base, TensorDType dt);
/* tensor/stats.c: scans. cummax/cummin give (values, indices); ties take the later index. */
bool tensor_cum_extreme(const Tensor *t, int64_t dim, bool want_max, Tensor **values, Tensor **indices);
Tensor *tensor_logcumsumexp(const Tensor *t, int64_t dim);
/* NaN-aware and paired reductions (dims NULL / ndims 0: every dim). */
Tensor *tensor_nansum(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype);
Tensor *tensor_nanmean(const Tensor *t, const int64_t *dims, int ndims, bool keepdim, int out_dtype);
Tensor *tensor_count_nonzero(const Tensor *t, const int64_t *dims, int ndims);
bool tensor_aminmax(const Tensor *t, bool has_dim, int64_t dim, bool keepdim, Tensor **min, Tensor **max);
/* (var or, with take_sqrt, std; mean) over dims. */
bool tensor_var_mean(const Tensor *t, const int64_t *dims, int ndims, double correction, bool keepdim,
                     bool take_sqrt, Tensor **spread, Tensor **mean);
/* quantile/nanquantile (tensor/stats.c): q a 0-d or 1-d tensor of t's dtype. */
typedef enum QuantileMode {
    QUANTILE_LINEAR, QUANTILE_LOWER, QUANTILE_HIGHER, QUANTILE_MIDPOINT, QUANTILE_NEAREST
} QuantileMode;
bool tensor_quantile_mode_from_name(const char *name, QuantileMode *mode);
Tensor *tensor_quantile(const Tensor *t, const Tensor *q, bool has_dim, int64_t dim, bool keepdim,
                        QuantileMode mode, bool ignore_nan);
/* torch.diff (prepend/append nullable). */
Tensor *tensor_diff(const Tensor *t, int64_t n, int64_t dim, const Tensor *prepend, const Tensor *append);
/* trapezoid rules over sample points x (NULL: constant spacing dx). */
Tensor *tensor_trapezoid(const Tensor *y, const Tensor *x, double dx, int64_t dim);
Tensor *tensor_cumulative_trapezoid(const Tensor *y, const Tensor *x, double dx, int64_t dim);
Tensor *tensor_bucketize(const Tensor *values, const Tensor *boundaries, bool out_int32, bool right);
Tensor *tensor_searchsorted_sorter(const Tensor *sorted, const Tensor *values, const Tensor *sorter,
                                   bool out_int32, bool right);
Tensor *tensor_isin(const Tensor *elements, const Tensor *test, bool invert);
/* torch.histc: bins evenly spaced over [min, max] (the data's range when
 * min == max). */
Tensor *tensor_histc(const Tensor *input, int64_t bins, double min, double max);
/* torch.histogramdd / torch.histogram (flat: every element one 1-d point):
 * nbins edge sequences, either evenly spaced (bin_counts, over range[2k..2k+1]
 * or the data's range when range is NULL) or given (bin_edges). Fills *hist
 * and edges_out[0..nbins). weight nullable. */
bool tensor_histogramdd(const Tensor *input, bool flat, int nbins, const int64_t *bin_counts,
                        Tensor *const *bin_edges, const double *range, const Tensor *weight, bool density,
                        Tensor **hist, Tensor **edges_out);
/* torch.gradient: a malloc'd array of ndims new tensors (NULL on error);
 * spacing h[k] (numbers) or coords[k] (1-d coordinate tensors) for dims[k]. */
Tensor **tensor_gradient(const Tensor *self, const int64_t *dims, int ndims, const double *h,
                         Tensor *const *coords, int64_t edge_order);
/* torch.segment_reduce over consecutive segments along axis, given as
 * lengths or (lengths_are_offsets) as offsets. */
typedef enum SegmentReduce { SEG_MAX, SEG_MEAN, SEG_MIN, SEG_SUM, SEG_PROD } SegmentReduce;
bool tensor_segment_reduce_from_name(const char *name, SegmentReduce *op);
Tensor *tensor_segment_reduce(const Tensor *data, SegmentReduce op, const Tensor *lengths, bool lengths_are_offsets,
                              int64_t axis, bool unsafe, bool has_initial, double initial);
/* torch.unique in ascending order (tensor/unique.c): flat, or of the slices
 * along dim; values, inverse, counts (empty when not asked for). */
bool tensor_unique_sorted(const Tensor *x, bool has_dim, int64_t dim, bool return_inverse, bool return_counts,
                          Tensor **values, Tensor **inverse, Tensor **counts);
/* torch.unique(sorted=False) of a non-bool tensor: PyTorch's hash-set order
 * (ascending past the tens of thousands of distinct values whose order it
 * reproduces). */
bool tensor_unique_unsorted(const Tensor *x, bool return_inverse, bool return_counts, Tensor **values,
                            Tensor **inverse, Tensor **counts);
/* (end of family stats) */

/* ---------------------------------------------------------------- family shape_index: shape ops, scatter/index families, index creation */
/* Index families along a dim (tensor/index.c, tensor/index_reduce.c):
 * reduce "sum", "prod", "mean", "amax", "amin" (index_reduce_: not "sum");
 * include_self false reduces over the scattered values only. value of
 * index_fill_ is a 0-d tensor or wrapped number. */
bool tensor_scatter_reduce_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *src, const char *reduce,
                            bool include_self);
bool tensor_index_reduce_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source, const char *reduce,
                          bool include_self);
bool tensor_index_copy_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *source);
bool tensor_index_fill_(Tensor *t, int64_t dim, const Tensor *index, const Tensor *value);
/* Row-major flat addressing (tensor/flat_index.c). take_along_dim without
 * a dim works on the flattened tensor. */
Tensor *tensor_take(const Tensor *t, const Tensor *index);
bool tensor_put_(Tensor *t, const Tensor *index, const Tensor *source, bool accumulate);
bool tensor_masked_scatter_(Tensor *t, const Tensor *mask, const Tensor *source);
Tensor *tensor_take_along_dim(const Tensor *t, const Tensor *indices, bool has_dim, int64_t dim);
/* Enumerated positions (tensor/index_creation.c). output_size < 0: none. */
Tensor *tensor_tril_indices(int64_t row, int64_t col, int64_t offset, TensorDType dt);
Tensor *tensor_triu_indices(int64_t row, int64_t col, int64_t offset, TensorDType dt);
Tensor *tensor_combinations(const Tensor *t, int64_t r, bool with_replacement);
Tensor *tensor_cartesian_prod(Tensor *const *ts, int n);
Tensor *tensor_argwhere(const Tensor *t);
Tensor *tensor_repeat_interleave_index(const Tensor *repeats, int64_t output_size);
Tensor *tensor_repeat_interleave(const Tensor *t, const Tensor *repeats, bool has_dim, int64_t dim,
                                 int64_t output_size);
/* Views (tensor/views.c): tensor_split's lists are malloc'd arrays of *count
 * new references; as_strided's offset defaults (has_offset false) to t's. */
Tensor **tensor_split_sections(Tensor *t, int64_t sections, int64_t dim, int *count);
Tensor **tensor_split_indices(Tensor *t, int n, const int64_t *indices, int64_t dim, int *count);
Tensor *tensor_unfold(Tensor *t, int64_t dimension, int64_t size, int64_t step);
Tensor *tensor_as_strided(Tensor *t, int n, const int64_t *sizes, const int64_t *strides, bool has_offset,
                          int64_t offset);
/* NumPy-style shape helpers (tensor/stack_ops.c). atleast_nd (n = 1..3)
 * returns t itself (retained) or a view. dims NULL: all dims. */
Tensor *tensor_atleast_nd(Tensor *t, int n);
Tensor *tensor_hstack(Tensor *const *ts, int n);
Tensor *tensor_vstack(Tensor *const *ts, int n);
Tensor *tensor_dstack(Tensor *const *ts, int n);
Tensor *tensor_column_stack(Tensor *const *ts, int n);
Tensor *tensor_tile(const Tensor *t, int n, const int64_t *reps);
Tensor *tensor_rot90(const Tensor *t, int64_t k, int n, const int64_t *dims);
Tensor *tensor_diagflat(const Tensor *t, int64_t offset);
Tensor *tensor_sum_to_size(const Tensor *t, int n, const int64_t *sizes);
Tensor *tensor_fftshift(const Tensor *t, int n, const int64_t *dims, bool inverse);
/* Copies of self with a view's region replaced by src (tensor/scatter_views.c). */
Tensor *tensor_select_scatter(const Tensor *self, const Tensor *src, int64_t dim, int64_t index);
Tensor *tensor_slice_scatter(const Tensor *self, const Tensor *src, int64_t dim, int64_t start, int64_t end,
                             int64_t step);
Tensor *tensor_diagonal_scatter(const Tensor *self, const Tensor *src, int64_t offset, int64_t dim1, int64_t dim2);
Tensor *tensor_as_strided_scatter(const Tensor *self, const Tensor *src, int n, const int64_t *sizes,
                                  const int64_t *strides, bool has_offset, int64_t offset);
/* t takes the sizes (contiguous strides; same sizes keep t's), its storage
 * growing if needed. */
bool tensor_resize_(Tensor *t, int n, const int64_t *sizes);
/* (end of family shape_index) */

/* ---------------------------------------------------------------- family fft: real-output Fourier transforms (FFTW) */
/* fft.irfft (hermitian = false) and fft.hfft (true) of a real input (a
 * complex signal with zero imaginary parts) along dim: n points (default
 * 2 * (size - 1)), norm "backward" (NULL), "forward" or "ortho". */
Tensor *tensor_fft_c2r_1d(const Tensor *self, int64_t n, bool has_n, int64_t dim, const char *norm, bool hermitian);
/* fft.irfftn/irfft2 and fft.hfftn/hfft2 (fname names the op in messages):
 * signal sizes s (-1: the default) and dims as PyTorch canonicalizes them;
 * has_s/has_dims false for None. */
Tensor *tensor_fft_c2r_nd(const Tensor *self, const char *fname, const int64_t *s, int ns, bool has_s,
                          const int64_t *dims, int nd, bool has_dims, const char *norm, bool hermitian);
/* stft of a 1-d or 2-d float signal (return_complex=False): frames of n_fft
 * points every hop_length (default n_fft/4) times the window (default ones;
 * win_length points, default n_fft, centered in n_fft), their real-to-complex
 * transforms (onesided: n_fft/2 + 1 bins, else n_fft), scaled by
 * 1/sqrt(n_fft) when normalized: (..., bins, frames, 2), (re, im) last. */
Tensor *tensor_stft(const Tensor *self, int64_t n_fft, int64_t hop_length, bool has_hop, int64_t win_length,
                    bool has_win, const Tensor *window, bool normalized, bool onesided);
/* istft of a real (..., bins, frames, 2) spectrogram (3-d or 4-d) to a real
 * signal (return_complex=False): inverse transforms of the frames, windowed,
 * overlap-added and divided by the summed squared window; center trims
 * n_fft/2 at both ends, length sets the result's length (zero padding). */
Tensor *tensor_istft(const Tensor *self, int64_t n_fft, int64_t hop_length, bool has_hop, int64_t win_length,
                     bool has_win, const Tensor *window, bool center, bool normalized, bool onesided,
                     bool has_onesided, int64_t length, bool has_length);
/* (end of family fft) */

/* ---------------------------------------------------------------- family random: counter-based draws (Philox4x32-10) */
/* Philox4x32 with the given number of rounds (10 is Philox4x32-10): four
 * words from a 128-bit counter and a 64-bit key, no state (tensor/philox.c). */
void philox4x32(const uint32_t counter[4], const uint32_t key[2], int rounds, uint32_t out[4]);
/* Which numbers a draw gets: the run's seed is the Philox key; stream (a
 * hash of the drawing node and its loop iterations, eval/ops_random.c)
 * fills the counter's high 64 bits, the element's block its low 64 bits.
 * tensor/random.c says which block and word each element reads: element i
 * of a draw depends only on (seed, stream, i). */
typedef struct TensorRandomKey {
    uint64_t seed;
    uint64_t stream;
} TensorRandomKey;
/* uniform on [from, to) (float dtypes: top 24 bits for float32, 53 for float64) */
Tensor *tensor_random_uniform(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                              double from, double to);
/* normal(mean, std) by Box-Muller */
Tensor *tensor_random_normal(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                             double mean, double std);
/* normal with tensor mean and/or std (NULL: the scalar), broadcast; the
 * result's dtype is the tensors' (float32 by default). */
Tensor *tensor_random_normal_tensors(TensorRandomKey key, const Tensor *mean, double mean_scalar,
                                     const Tensor *std, double std_scalar);
/* integers uniform on [low, high), exactly (Lemire's multiply-shift with
 * rejection, each retry from the element's own next block) */
Tensor *tensor_random_int(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                          int64_t low, int64_t high);
/* a permutation of 0..n-1: the order of n random 64-bit keys */
Tensor *tensor_random_perm(TensorRandomKey key, int64_t n, TensorDType dt);
/* 1 with probability p[i] (p NULL: the scalar p everywhere), p's shape;
 * dtype dt */
Tensor *tensor_random_bernoulli(TensorRandomKey key, const Tensor *p, double p_scalar, TensorDType dt,
                                int ndim, const int64_t *sizes);
/* num_samples category indices per row of probs (1-d or 2-d weights) */
Tensor *tensor_random_multinomial(TensorRandomKey key, const Tensor *probs, int64_t num_samples,
                                  bool replacement);
/* x with each element zeroed with probability p, the rest scaled by 1/(1-p) */
Tensor *tensor_random_dropout(TensorRandomKey key, const Tensor *x, double p);
/* x, its negative elements times a slope uniform on [lower, upper) */
Tensor *tensor_random_rrelu(TensorRandomKey key, const Tensor *x, double lower, double upper);
/* (end of family random) */

/* From now on every matrix product gives the same bits whatever the number
 * of threads (tensor/linalg.c says how; OpenBLAS then runs single-
 * threaded): under mpirun, where a rank's threads depend on the ranks. */
void tensor_products_independent_of_threads(void);
/* In that mode a product of more rows than this is computed in panels of
 * this many rows, and a row's result depends only on its panel: a product
 * cut into slices whose rows are whole panels gives the same bits as the
 * whole product (kernels/strip_mine.c cuts loops so). */
enum { TENSOR_GEMM_PANEL_ROWS = 256 };

/* OpenBLAS's own thread count (1 without OpenBLAS). Setting 1 also ends
 * OpenBLAS's idle worker threads, which would otherwise spin beside
 * OpenMP's on the same cores (tensor/linalg.c says why). */
void tensor_blas_set_threads(int threads);
int tensor_blas_threads(void);

#endif
