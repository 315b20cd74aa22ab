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

typedef struct Storage {
    int refcount;
    size_t nbytes;
    void *data;
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

/* ---------------------------------------------------------------- core */

Tensor *tensor_empty(TensorDType dt, int ndim, const int64_t *sizes); /* poison-filled */
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
/* (end of family special) */

/* ---------------------------------------------------------------- family math: elementwise math, predicates and activations */
/* (end of family math) */

/* ---------------------------------------------------------------- family pool_norm: pooling, unpooling, padding modes and normalization */
/* (end of family pool_norm) */

/* ---------------------------------------------------------------- family resample: transposed convolution, interpolation, grid sampling, im2col, pixel shuffle, embedding_bag */
/* (end of family resample) */

/* ---------------------------------------------------------------- family loss: losses and distances */
/* (end of family loss) */

/* ---------------------------------------------------------------- family linalg_extra: more linear algebra: SVD, LU, least squares, norms, products */
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
/* torch.unique(sorted=False) of a non-bool tensor: PyTorch's hash-set order. */
bool tensor_unique_unsorted(const Tensor *x, bool return_inverse, bool return_counts, Tensor **values,
                            Tensor **inverse, Tensor **counts);
/* (end of family stats) */

/* ---------------------------------------------------------------- family shape_index: shape ops, scatter/index families, index creation */
/* (end of family shape_index) */

#endif
