/* ops_shape_index.c — bindings of the shape_index family: the index
 * families along a dim (scatter_reduce, index_reduce, index_copy,
 * index_fill), flat addressing (take, put, masked_scatter, take_along_dim),
 * enumerations (repeat_interleave, tril/triu_indices, combinations,
 * cartesian_prod, argwhere), view ops (tensor_split and h/v/dsplit, unfold,
 * as_strided, broadcast_to, ravel, atleast_Nd), the *_scatter inverses of
 * views, NumPy-style stacking and rearranging (hstack..., tile, rot90,
 * fliplr/flipud, fftshift), narrow_copy, sum_to_size, diagflat,
 * resize_/resize_as_, and the shapes as tensors of torch.onnx.operators
 * (_shape_as_tensor, _reshape_from_tensor; fairseq calls them).
 *
 * Out-of-place forms of in-place kernels are PyTorch's definitions: a copy
 * of self written by the in-place kernel; their in-place twins run as the
 * functional op plus a copy (eval/dispatch.c). Ops that PyTorch composes
 * from other ops call those tensor functions.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* A list result from a view-list kernel (NULL on failure). The count is
 * passed by address: the kernel call in the same argument list sets it, and
 * C leaves the order of evaluating arguments unspecified. */
static bool out_views(EvalCall *c, Tensor **ts, const int *n)
{
    if (!ts)
        return eval_fail_kernel(c, "the split failed");
    return eval_out_tensor_list(c, ts, *n);
}

/* ---------------------------------------------------------------- index families */

/* scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True)
 * index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) */
typedef bool (*ReduceIntoFn)(Tensor *, int64_t, const Tensor *, const Tensor *, const char *, bool);

static bool reduce_into_copy(EvalCall *c, ReduceIntoFn fn, const char *who)
{
    Tensor *self, *index, *src;
    int64_t dim;
    const char *reduce;
    bool include_self = true;
    if (!eval_nargs(c, 5, 6) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || !eval_arg_tensor(c, 3, &src) || !eval_arg_str(c, 4, &reduce) ||
        (c->nargs > 5 && !eval_arg_bool(c, 5, &include_self)))
        return false;
    Tensor *copy = tensor_clone_preserve(self);
    bool done = copy && fn(copy, dim, index, src, reduce, include_self);
    return eval_out_written_copy(c, copy, done, who);
}
bool eval_op_scatter_reduce(EvalCall *c)
{
    return reduce_into_copy(c, tensor_scatter_reduce_, "scatter_reduce failed");
}
bool eval_op_index_reduce(EvalCall *c)
{
    return reduce_into_copy(c, tensor_index_reduce_, "index_reduce failed");
}

/* A dim argument: named dims (Dimname overloads) are not supported. */
static bool dim_arg(EvalCall *c, int i, int64_t *dim)
{
    if (eval_kind(c, i) == RT_STR)
        return eval_fail(c, "named dimensions (a str dim) are not implemented");
    return eval_arg_int(c, i, dim);
}

/* index_copy(Tensor self, int dim, Tensor index, Tensor source) */
bool eval_op_index_copy(EvalCall *c)
{
    Tensor *self, *index, *source;
    int64_t dim;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &self) || !dim_arg(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || !eval_arg_tensor(c, 3, &source))
        return false;
    Tensor *copy = tensor_clone_preserve(self);
    bool done = copy && tensor_index_copy_(copy, dim, index, source);
    return eval_out_written_copy(c, copy, done, "index_copy failed");
}

/* index_fill(Tensor self, int dim, Tensor index, Scalar|Tensor value) */
bool eval_op_index_fill(EvalCall *c)
{
    Tensor *self, *index, *value = NULL;
    int64_t dim;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &self) || !dim_arg(c, 1, &dim) ||
        !eval_arg_tensor(c, 2, &index) || !eval_arg_operand(c, 3, &value))
        return false;
    Tensor *copy = tensor_clone_preserve(self);
    bool done = copy && tensor_index_fill_(copy, dim, index, value);
    tensor_release(value);
    return eval_out_written_copy(c, copy, done, "index_fill failed");
}

/* masked_scatter(Tensor self, Tensor mask, Tensor source): self and mask
 * broadcast to one shape first. */
bool eval_op_masked_scatter(EvalCall *c)
{
    Tensor *self, *mask, *source;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &mask) ||
        !eval_arg_tensor(c, 2, &source))
        return false;
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = tensor_broadcast_shape(mask->ndim, mask->sizes, self->ndim, self->sizes, shape);
    Tensor *expanded = nd < 0 ? NULL : tensor_expand(self, nd, shape);
    Tensor *copy = expanded ? tensor_clone(expanded) : NULL;
    tensor_release(expanded);
    bool done = copy && tensor_masked_scatter_(copy, mask, source);
    return eval_out_written_copy(c, copy, done, "masked_scatter failed");
}

/* put(Tensor self, Tensor index, Tensor source, bool accumulate=False) */
bool eval_op_put(EvalCall *c)
{
    Tensor *self, *index, *source;
    bool accumulate = false;
    if (!eval_nargs(c, 3, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &index) ||
        !eval_arg_tensor(c, 2, &source) || (c->nargs > 3 && !eval_arg_bool(c, 3, &accumulate)))
        return false;
    Tensor *copy = tensor_clone_preserve(self);
    bool done = copy && tensor_put_(copy, index, source, accumulate);
    return eval_out_written_copy(c, copy, done, "put failed");
}

/* take(Tensor self, Tensor index) */
bool eval_op_take(EvalCall *c) { return eval_call_tensor_pair(c, tensor_take); }

/* take_along_dim(Tensor self, Tensor indices, int? dim=None) */
bool eval_op_take_along_dim(EvalCall *c)
{
    Tensor *self, *indices;
    int64_t dim = 0;
    bool has_dim = false;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &indices) &&
           (c->nargs < 3 || eval_arg_int_opt(c, 2, &dim, &has_dim)) &&
           eval_out_tensor(c, 0, tensor_take_along_dim(self, indices, has_dim, dim));
}

/* ---------------------------------------------------------------- enumerations */

/* repeat_interleave(Tensor repeats, *, int? output_size=None)
 * repeat_interleave(Tensor self, Tensor|int repeats, int? dim=None, *, int? output_size=None)
 * TorchScript passes every argument, so the count tells the overloads apart. */
bool eval_op_repeat_interleave(EvalCall *c)
{
    Tensor *self, *repeats = NULL;
    int64_t output_size = -1, dim = 0;
    bool has_size = false, has_dim = false;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs <= 2) {
        if (c->nargs == 2 && !eval_arg_int_opt(c, 1, &output_size, &has_size))
            return false;
        return eval_out_tensor(c, 0, tensor_repeat_interleave_index(self, has_size ? output_size : -1));
    }
    if (!eval_arg_int_opt(c, 2, &dim, &has_dim) ||
        (c->nargs > 3 && !eval_arg_int_opt(c, 3, &output_size, &has_size)))
        return false;
    if (eval_is_tensor(c, 1)) {
        repeats = tensor_retain(c->args[1]->u.t);
    } else {
        int64_t count;
        if (!eval_arg_int(c, 1, &count))
            return false;
        repeats = tensor_scalar_int(DT_I64, count);
    }
    Tensor *out = tensor_repeat_interleave(self, repeats, has_dim, dim, has_size ? output_size : -1);
    tensor_release(repeats);
    return eval_out_tensor(c, 0, out);
}

/* tril_indices/triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long,
 *                           Layout? layout, Device? device, bool? pin_memory) */
static bool triangle_indices(EvalCall *c, Tensor *(*fn)(int64_t, int64_t, int64_t, TensorDType))
{
    int64_t row, col, offset = 0;
    int dt = -1;
    if (!eval_nargs(c, 2, 7) || !eval_arg_int(c, 0, &row) || !eval_arg_int(c, 1, &col) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &offset)) || (c->nargs > 3 && !eval_arg_dtype_opt(c, 3, &dt)))
        return false;
    return eval_out_tensor(c, 0, fn(row, col, offset, dt < 0 ? DT_I64 : (TensorDType)dt));
}
bool eval_op_tril_indices(EvalCall *c) { return triangle_indices(c, tensor_tril_indices); }
bool eval_op_triu_indices(EvalCall *c) { return triangle_indices(c, tensor_triu_indices); }

/* combinations(Tensor self, int r=2, bool with_replacement=False) */
bool eval_op_combinations(EvalCall *c)
{
    Tensor *self;
    int64_t r = 2;
    bool with_replacement = false;
    return eval_nargs(c, 1, 3) && eval_arg_tensor(c, 0, &self) && (c->nargs < 2 || eval_arg_int(c, 1, &r)) &&
           (c->nargs < 3 || eval_arg_bool(c, 2, &with_replacement)) &&
           eval_out_tensor(c, 0, tensor_combinations(self, r, with_replacement));
}

/* cartesian_prod(Tensor[] tensors), hstack/vstack/dstack/column_stack(Tensor[] tensors) */
static bool tensor_list_call(EvalCall *c, Tensor *(*fn)(Tensor *const *, int))
{
    Tensor **ts;
    int n;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    bool ok = eval_out_tensor(c, 0, fn(ts, n));
    free(ts);
    return ok;
}
bool eval_op_cartesian_prod(EvalCall *c) { return tensor_list_call(c, tensor_cartesian_prod); }
bool eval_op_hstack(EvalCall *c) { return tensor_list_call(c, tensor_hstack); }
bool eval_op_vstack(EvalCall *c) { return tensor_list_call(c, tensor_vstack); }
bool eval_op_dstack(EvalCall *c) { return tensor_list_call(c, tensor_dstack); }
bool eval_op_column_stack(EvalCall *c) { return tensor_list_call(c, tensor_column_stack); }

/* argwhere(Tensor self) */
bool eval_op_argwhere(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) && eval_out_tensor(c, 0, tensor_argwhere(self));
}

/* ---------------------------------------------------------------- views */

#define MAX_SPLIT_INDICES 1024

/* tensor_split(Tensor self, int sections | int[] indices | Tensor tensor_indices_or_sections, int dim=0) */
bool eval_op_tensor_split(EvalCall *c)
{
    Tensor *self;
    int64_t dim = 0;
    int count = 0;
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &self) || (c->nargs > 2 && !eval_arg_int(c, 2, &dim)))
        return false;
    if (eval_kind(c, 1) == RT_INT)
        return out_views(c, tensor_split_sections(self, c->args[1]->u.i, dim, &count), &count);
    int64_t *indices = malloc(MAX_SPLIT_INDICES * sizeof *indices);
    int n = 0;
    bool ok = indices != NULL;
    if (ok && eval_is_tensor(c, 1)) {
        const Tensor *t = c->args[1]->u.t;
        if (t->dtype != DT_I64) {
            ok = eval_fail(c, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s",
                           dtype_ts_name(t->dtype));
        } else if (t->ndim > 1) {
            ok = eval_fail(c, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                              "one-dimensional tensor, but got a tensor with %d dims", t->ndim);
        } else if (t->ndim == 0) {
            int64_t sections = tensor_item_int(t);
            free(indices);
            return out_views(c, tensor_split_sections(self, sections, dim, &count), &count);
        } else if (tensor_numel(t) > MAX_SPLIT_INDICES) {
            ok = eval_fail(c, "tensor_split: at most %d indices are supported", MAX_SPLIT_INDICES);
        } else {
            n = (int)tensor_numel(t);
            for (int i = 0; i < n; i++)
                indices[i] = tensor_get_flat_int(t, i);
        }
    } else if (ok) {
        ok = eval_arg_ints(c, 1, indices, MAX_SPLIT_INDICES, &n);
    }
    if (ok)
        ok = out_views(c, tensor_split_indices(self, n, indices, dim, &count), &count);
    free(indices);
    return ok;
}

/* hsplit/vsplit/dsplit(Tensor self, int sections | int[] indices): a
 * tensor_split along dim (hsplit: dim 0 of a 1-d tensor, else 1), whose
 * sections must divide the dim evenly. */
static bool numpy_split(EvalCall *c, const char *who, int min_dims, int dim)
{
    Tensor *self;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (self->ndim < min_dims)
        return eval_fail(c, "torch.%s requires a tensor with at least %d dimension%s, but got a tensor with %d "
                            "dimensions!", who, min_dims, min_dims == 1 ? "" : "s", self->ndim);
    if (dim == 1 && self->ndim == 1)
        dim = 0;
    int count = 0;
    if (eval_kind(c, 1) == RT_INT) {
        int64_t sections = c->args[1]->u.i;
        if (sections == 0 || self->sizes[dim] % sections != 0)
            return eval_fail(c, "torch.%s attempted to split along dimension %d, but the size of the dimension "
                                "%lld is not divisible by the split_size %lld!", who, dim,
                             (long long)self->sizes[dim], (long long)sections);
        return out_views(c, tensor_split_sections(self, sections, dim, &count), &count);
    }
    int64_t *indices = malloc(MAX_SPLIT_INDICES * sizeof *indices);
    int n = 0;
    bool ok = indices && eval_arg_ints(c, 1, indices, MAX_SPLIT_INDICES, &n) &&
              out_views(c, tensor_split_indices(self, n, indices, dim, &count), &count);
    free(indices);
    return ok;
}
bool eval_op_hsplit(EvalCall *c) { return numpy_split(c, "hsplit", 1, 1); }
bool eval_op_vsplit(EvalCall *c) { return numpy_split(c, "vsplit", 2, 0); }
bool eval_op_dsplit(EvalCall *c) { return numpy_split(c, "dsplit", 3, 2); }

/* unfold(Tensor self, int dimension, int size, int step) */
bool eval_op_unfold(EvalCall *c)
{
    Tensor *self;
    int64_t dim, size, step;
    return eval_nargs(c, 4, 4) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_arg_int(c, 2, &size) && eval_arg_int(c, 3, &step) &&
           eval_out_tensor(c, 0, tensor_unfold(self, dim, size, step));
}

/* The (size, stride, storage_offset=None) arguments of as_strided from
 * argument `first` on. */
typedef struct StridedArgs {
    int n;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int64_t offset;
    bool has_offset;
} StridedArgs;

static bool strided_args(EvalCall *c, int first, StridedArgs *a)
{
    int ns;
    if (!eval_arg_ints(c, first, a->sizes, TENSOR_MAX_DIMS, &a->n) ||
        !eval_arg_ints(c, first + 1, a->strides, TENSOR_MAX_DIMS, &ns))
        return false;
    a->has_offset = false;
    a->offset = 0;
    if (c->nargs > first + 2 && !eval_arg_int_opt(c, first + 2, &a->offset, &a->has_offset))
        return false;
    if (ns != a->n)
        return eval_fail(c, "mismatch in length of strides and shape");
    return true;
}

/* as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) */
bool eval_op_as_strided(EvalCall *c)
{
    Tensor *self;
    StridedArgs a;
    return eval_nargs(c, 3, 4) && eval_arg_tensor(c, 0, &self) && strided_args(c, 1, &a) &&
           eval_out_tensor(c, 0, tensor_as_strided(self, a.n, a.sizes, a.strides, a.has_offset, a.offset));
}

/* broadcast_to(Tensor self, int[] size): expand */
bool eval_op_broadcast_to(EvalCall *c) { return eval_call_view_ints(c, tensor_expand); }

/* ravel(Tensor self): reshape(-1) */
bool eval_op_ravel(EvalCall *c)
{
    Tensor *self;
    int64_t all = -1;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) && eval_out_tensor(c, 0, tensor_reshape(self, 1, &all));
}

/* atleast_Nd(Tensor self) -> Tensor, atleast_Nd(Tensor[] tensors) -> Tensor[] */
static bool atleast(EvalCall *c, int n)
{
    if (!eval_nargs(c, 1, 1))
        return false;
    if (eval_is_tensor(c, 0))
        return eval_out_tensor(c, 0, tensor_atleast_nd(c->args[0]->u.t, n));
    Tensor **ts;
    int count;
    if (!eval_arg_tensor_list(c, 0, false, &ts, &count))
        return false;
    Tensor **out = malloc((size_t)(count > 0 ? count : 1) * sizeof *out);
    int made = 0;
    while (out && made < count && (out[made] = tensor_atleast_nd(ts[made], n)) != NULL)
        made++;
    free(ts);
    if (out && made == count)
        return eval_out_tensor_list(c, out, count);
    for (int i = 0; i < made; i++)
        tensor_release(out[i]);
    free(out);
    return out ? eval_fail_kernel(c, "atleast failed") : eval_fail(c, "out of memory");
}
bool eval_op_atleast_1d(EvalCall *c) { return atleast(c, 1); }
bool eval_op_atleast_2d(EvalCall *c) { return atleast(c, 2); }
bool eval_op_atleast_3d(EvalCall *c) { return atleast(c, 3); }

/* ---------------------------------------------------------------- scatters of views */

/* as_strided_scatter(Tensor self, Tensor src, int[] size, int[] stride, int? storage_offset=None) */
bool eval_op_as_strided_scatter(EvalCall *c)
{
    Tensor *self, *src;
    StridedArgs a;
    return eval_nargs(c, 4, 5) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &src) &&
           strided_args(c, 2, &a) &&
           eval_out_tensor(c, 0, tensor_as_strided_scatter(self, src, a.n, a.sizes, a.strides, a.has_offset,
                                                           a.offset));
}

/* select_scatter(Tensor self, Tensor src, int dim, int index) */
bool eval_op_select_scatter(EvalCall *c)
{
    Tensor *self, *src;
    int64_t dim, index;
    return eval_nargs(c, 4, 4) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &src) &&
           eval_arg_int(c, 2, &dim) && eval_arg_int(c, 3, &index) &&
           eval_out_tensor(c, 0, tensor_select_scatter(self, src, dim, index));
}

/* slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1) */
bool eval_op_slice_scatter(EvalCall *c)
{
    Tensor *self, *src;
    int64_t dim = 0, start = 0, end = INT64_MAX, step = 1;
    bool has_start = false, has_end = false;
    if (!eval_nargs(c, 2, 6) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &src) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)) ||
        (c->nargs > 3 && !eval_arg_int_opt(c, 3, &start, &has_start)) ||
        (c->nargs > 4 && !eval_arg_int_opt(c, 4, &end, &has_end)) || (c->nargs > 5 && !eval_arg_int(c, 5, &step)))
        return false;
    if (step <= 0)
        return eval_fail(c, "slice step must be positive");
    return eval_out_tensor(c, 0, tensor_slice_scatter(self, src, dim, has_start ? start : 0,
                                                      has_end ? end : INT64_MAX, step));
}

/* diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) */
bool eval_op_diagonal_scatter(EvalCall *c)
{
    Tensor *self, *src;
    int64_t offset = 0, dim1 = 0, dim2 = 1;
    return eval_nargs(c, 2, 5) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &src) &&
           (c->nargs < 3 || eval_arg_int(c, 2, &offset)) && (c->nargs < 4 || eval_arg_int(c, 3, &dim1)) &&
           (c->nargs < 5 || eval_arg_int(c, 4, &dim2)) &&
           eval_out_tensor(c, 0, tensor_diagonal_scatter(self, src, offset, dim1, dim2));
}

/* ---------------------------------------------------------------- rearranging */

/* tile(Tensor self, int[] dims) */
bool eval_op_tile(EvalCall *c) { return eval_call_tensor_ints(c, tensor_tile); }

/* rot90(Tensor self, int k=1, int[] dims=[0, 1]) */
bool eval_op_rot90(EvalCall *c)
{
    Tensor *self;
    int64_t k = 1, dims[TENSOR_MAX_DIMS] = {0, 1};
    int n = 2;
    return eval_nargs(c, 1, 3) && eval_arg_tensor(c, 0, &self) && (c->nargs < 2 || eval_arg_int(c, 1, &k)) &&
           (c->nargs < 3 || eval_arg_ints(c, 2, dims, TENSOR_MAX_DIMS, &n)) &&
           eval_out_tensor(c, 0, tensor_rot90(self, k, n, dims));
}

/* fliplr(Tensor self) = flip(self, [1]); flipud(Tensor self) = flip(self, [0]) */
static bool flip_one(EvalCall *c, int64_t dim)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (self->ndim < dim + 1)
        return eval_fail(c, "Input must be >= %d-d.", (int)dim + 1);
    return eval_out_tensor(c, 0, tensor_flip(self, 1, &dim));
}
bool eval_op_fliplr(EvalCall *c) { return flip_one(c, 1); }
bool eval_op_flipud(EvalCall *c) { return flip_one(c, 0); }

/* fft_fftshift/fft_ifftshift(Tensor self, int[1]? dim=None) */
static bool fftshift(EvalCall *c, bool inverse)
{
    Tensor *self;
    int64_t dims[TENSOR_MAX_DIMS];
    int n = 0;
    bool has_dims = false;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &self) &&
           (c->nargs < 2 || eval_arg_ints_opt(c, 1, dims, TENSOR_MAX_DIMS, &n, &has_dims)) &&
           eval_out_tensor(c, 0, tensor_fftshift(self, n, has_dims ? dims : NULL, inverse));
}
bool eval_op_fft_fftshift(EvalCall *c) { return fftshift(c, false); }
bool eval_op_fft_ifftshift(EvalCall *c) { return fftshift(c, true); }

/* narrow_copy(Tensor self, int dim, int start, int length): a copy of narrow */
bool eval_op_narrow_copy(EvalCall *c)
{
    Tensor *self;
    int64_t dim, start, length;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_int(c, 2, &start) || !eval_arg_int(c, 3, &length))
        return false;
    Tensor *view = tensor_narrow(self, dim, start, length);
    Tensor *copy = view ? tensor_clone(view) : NULL;
    tensor_release(view);
    return eval_out_tensor(c, 0, copy);
}

/* sum_to_size(Tensor self, int[] size) */
bool eval_op_sum_to_size(EvalCall *c) { return eval_call_tensor_ints(c, tensor_sum_to_size); }

/* diagflat(Tensor self, int offset=0) */
bool eval_op_diagflat(EvalCall *c)
{
    Tensor *self;
    int64_t offset = 0;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &self) && (c->nargs < 2 || eval_arg_int(c, 1, &offset)) &&
           eval_out_tensor(c, 0, tensor_diagflat(self, offset));
}

/* ---------------------------------------------------------------- resize */

/* The memory_format argument: None or contiguous_format (0) only. */
static bool contiguous_format_arg(EvalCall *c, int i)
{
    int64_t format = 0;
    bool present = false;
    if (c->nargs > i && !eval_arg_int_opt(c, i, &format, &present))
        return false;
    if (present && format != 0)
        return eval_fail(c, "resize_ with a memory_format other than contiguous_format is not implemented");
    return true;
}

/* resize_(Tensor self, int[] size, *, MemoryFormat? memory_format=None) */
bool eval_op_resize_(EvalCall *c)
{
    Tensor *self;
    int64_t sizes[TENSOR_MAX_DIMS];
    int n;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &self) &&
           eval_arg_ints(c, 1, sizes, TENSOR_MAX_DIMS, &n) && contiguous_format_arg(c, 2) &&
           eval_out_self(c, tensor_resize_(self, n, sizes), "resize_ failed");
}

/* resize_as_(Tensor self, Tensor the_template, *, MemoryFormat? memory_format=None) */
bool eval_op_resize_as_(EvalCall *c)
{
    Tensor *self, *like;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &like) &&
           contiguous_format_arg(c, 2) &&
           eval_out_self(c, tensor_resize_(self, like->ndim, like->sizes), "resize_as_ failed");
}

/* _shape_as_tensor(Tensor self): self's sizes as a 1-d int64 tensor
 * (torch.onnx.operators.shape_as_tensor). */
bool eval_op_shape_as_tensor(EvalCall *c)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &self))
        return false;
    int64_t n = self->ndim;
    Tensor *shape = tensor_empty(DT_I64, 1, &n);
    if (shape && n > 0)
        memcpy(tensor_data(shape), self->sizes, (size_t)n * sizeof(int64_t));
    return eval_out_tensor(c, 0, shape);
}

/* _reshape_from_tensor(Tensor self, Tensor shape): self reshaped to the
 * sizes a 1-d integer tensor holds (torch.onnx.operators.
 * reshape_from_tensor_shape; -1 infers one size, as in reshape). PyTorch
 * returns reshape's result, a view where the geometry allows; this one is
 * always a fresh copy (the op table says ALIAS_NONE), which differs only
 * for a program that writes into the result in place. */
bool eval_op_reshape_from_tensor(EvalCall *c)
{
    Tensor *self, *shape;
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &self) || !eval_arg_tensor(c, 1, &shape))
        return false;
    if (shape->ndim != 1 || !dtype_is_integral(shape->dtype))
        return eval_fail(c, "the shape must be a 1-d integer tensor, got %d dims of %s",
                         shape->ndim, dtype_name(shape->dtype));
    if (shape->sizes[0] > TENSOR_MAX_DIMS)
        return eval_fail(c, "the shape has %lld sizes, at most %d supported",
                         (long long)shape->sizes[0], TENSOR_MAX_DIMS);
    int64_t sizes[TENSOR_MAX_DIMS];
    int n = (int)shape->sizes[0];
    for (int i = 0; i < n; i++)
        sizes[i] = tensor_get_flat_int(shape, i);
    Tensor *view = tensor_reshape(self, n, sizes);
    if (!view)
        return eval_out_tensor(c, 0, NULL);
    Tensor *copy = tensor_clone(view);
    tensor_release(view);
    return eval_out_tensor(c, 0, copy);
}
