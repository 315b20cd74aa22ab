/* ops_view.c — bindings of the view ops: select, slice, view, reshape,
 * squeeze, unsqueeze, expand, permute, transpose, flatten, narrow, chunk,
 * split, unbind, ...
 *
 * Each returns what PyTorch returns: a view sharing self's storage (the
 * tensor library's view functions), a contiguous copy only where PyTorch
 * copies too (reshape/flatten of a non-viewable geometry), self itself for
 * contiguous() of a contiguous tensor, and Python lists of views for chunk,
 * split and unbind. aten::slice on a list or str is Python slicing.
 */
#include <stdlib.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* A list value holding the n tensors (their references move into it). */
static bool out_tensor_list(EvalCall *c, Tensor **ts, int n)
{
    if (!ts) {
        const char *e = tensor_last_error();
        if (n != 0 || (e && *e))
            return eval_fail_kernel(c, "the view kernel failed");
    }
    return eval_out_tensor_list(c, ts, n);
}

/* view_as/reshape_as/expand_as(Tensor self, Tensor other): fn to other's shape. */
static bool view_as(EvalCall *c, EvalViewIntsFn fn)
{
    Tensor *self, *other;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &self) && eval_arg_tensor(c, 1, &other) &&
           eval_out_tensor(c, 0, fn(self, other->ndim, other->sizes));
}

/* select(Tensor self, int dim, int index) */
bool eval_op_select(EvalCall *c)
{
    Tensor *self;
    int64_t dim, index;
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_arg_int(c, 2, &index) && eval_out_tensor(c, 0, tensor_select(self, dim, index));
}

/* slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1),
 * or Python slicing of a list or str. */
bool eval_op_slice(EvalCall *c)
{
    if (!eval_is_tensor(c, 0))
        return eval_sequence_slice(c);
    Tensor *self;
    int64_t dim = 0, start = 0, end = INT64_MAX, step = 1;
    bool has_start, has_end;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &dim)) ||
        !eval_arg_int_opt(c, 2, &start, &has_start) || !eval_arg_int_opt(c, 3, &end, &has_end) ||
        (c->nargs > 4 && !eval_arg_int(c, 4, &step)))
        return false;
    if (!has_start)
        start = 0;
    if (!has_end)
        end = INT64_MAX;
    if (step <= 0)
        return eval_fail(c, "slice step must be positive");
    return eval_out_tensor(c, 0, tensor_slice(self, dim, start, end, step));
}

/* narrow(Tensor self, int dim, int|Tensor start, int length) */
bool eval_op_narrow(EvalCall *c)
{
    Tensor *self;
    int64_t dim, start, length;
    if (!eval_nargs(c, 4, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &dim) ||
        !eval_arg_int(c, 3, &length))
        return false;
    if (eval_is_tensor(c, 2)) {
        const Tensor *s = c->args[2]->u.t;
        if (s->ndim != 0 || !dtype_is_integral(s->dtype))
            return eval_fail(c, "start must be an 0-dim integral Tensor");
        start = tensor_item_int(s);
    } else if (!eval_arg_int(c, 2, &start)) {
        return false;
    }
    return eval_out_tensor(c, 0, tensor_narrow(self, dim, start, length));
}

/* view(Tensor self, int[] size); view(Tensor self, ScalarType dtype) is a
 * bit reinterpretation the tensor library does not offer. */
bool eval_op_view(EvalCall *c)
{
    if (c->nargs == 2 && eval_is_tensor(c, 0) && eval_kind(c, 1) == RT_INT)
        return eval_fail(c, "view(dtype) (reinterpreting the bits) is not supported");
    return eval_call_view_ints(c, tensor_view);
}

bool eval_op_view_as(EvalCall *c) { return view_as(c, tensor_view); }

/* reshape(Tensor self, int[] shape) */
bool eval_op_reshape(EvalCall *c) { return eval_call_view_ints(c, tensor_reshape); }
bool eval_op_reshape_as(EvalCall *c) { return view_as(c, tensor_reshape); }

static int compare_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* squeeze(Tensor self) / squeeze(self, int dim) / squeeze(self, int[] dim) */
bool eval_op_squeeze(EvalCall *c)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 1)
        return eval_out_tensor(c, 0, tensor_squeeze(self));
    if (eval_kind(c, 1) == RT_INT)
        return eval_out_tensor(c, 0, tensor_squeeze_dim(self, c->args[1]->u.i));
    int64_t dims[TENSOR_MAX_DIMS];
    int n;
    if (!eval_arg_ints(c, 1, dims, TENSOR_MAX_DIMS, &n))
        return false;
    for (int i = 0; i < n; i++) {
        int d = tensor_wrap_dim(dims[i], self->ndim);
        if (d < 0)
            return eval_fail_kernel(c, "dimension out of range");
        dims[i] = d;
    }
    /* Highest dim first, so earlier squeezes do not renumber later ones. */
    qsort(dims, (size_t)n, sizeof dims[0], compare_desc);
    Tensor *t = tensor_alias(self);
    for (int i = 0; i < n && t; i++) {
        if (i > 0 && dims[i] == dims[i - 1])
            continue;
        Tensor *next = tensor_squeeze_dim(t, dims[i]);
        tensor_release(t);
        t = next;
    }
    return eval_out_tensor(c, 0, t);
}

bool eval_op_unsqueeze(EvalCall *c)
{
    Tensor *self;
    int64_t dim;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_out_tensor(c, 0, tensor_unsqueeze(self, dim));
}

/* expand(Tensor self, int[] size, *, bool implicit=False) */
bool eval_op_expand(EvalCall *c)
{
    Tensor *self;
    int64_t sizes[TENSOR_MAX_DIMS];
    int n;
    return eval_args_tensor_ints(c, 3, &self, sizes, &n) &&
           eval_out_tensor(c, 0, tensor_expand(self, n, sizes));
}

bool eval_op_expand_as(EvalCall *c) { return view_as(c, tensor_expand); }

/* permute(Tensor self, int[] dims) */
bool eval_op_permute(EvalCall *c) { return eval_call_view_ints(c, tensor_permute); }

bool eval_op_transpose(EvalCall *c)
{
    Tensor *self;
    int64_t d0, d1;
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &d0) &&
           eval_arg_int(c, 2, &d1) && eval_out_tensor(c, 0, tensor_transpose(self, d0, d1));
}

bool eval_op_t(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_tensor(c, 0, tensor_t(self));
}

/* x.T: all dims reversed. */
bool eval_op_numpy_t(EvalCall *c)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &self))
        return false;
    int64_t dims[TENSOR_MAX_DIMS];
    for (int d = 0; d < self->ndim; d++)
        dims[d] = self->ndim - 1 - d;
    return eval_out_tensor(c, 0, tensor_permute(self, self->ndim, dims));
}

/* movedim(Tensor self, int source, int destination) or with int[] lists:
 * the moved dims land at their destinations, the others keep their order. */
bool eval_op_movedim(EvalCall *c)
{
    Tensor *self;
    int64_t src[TENSOR_MAX_DIMS], dst[TENSOR_MAX_DIMS];
    int ns, nd;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor(c, 0, &self) ||
        !eval_arg_ints(c, 1, src, TENSOR_MAX_DIMS, &ns) ||
        !eval_arg_ints(c, 2, dst, TENSOR_MAX_DIMS, &nd))
        return false;
    if (ns == 1 && nd == 1)
        return eval_out_tensor(c, 0, tensor_movedim(self, src[0], dst[0]));
    if (ns != nd)
        return eval_fail(c, "movedim: Invalid source or destination dims: source (%d dims) should "
                           "contain the same number of dims as destination (%d dims)", ns, nd);
    int ndim = self->ndim;
    int64_t order[TENSOR_MAX_DIMS];
    bool src_used[TENSOR_MAX_DIMS] = {false}, dst_used[TENSOR_MAX_DIMS] = {false};
    for (int d = 0; d < ndim; d++)
        order[d] = -1;
    for (int i = 0; i < ns; i++) {
        int s = tensor_wrap_dim(src[i], ndim), t = tensor_wrap_dim(dst[i], ndim);
        if (s < 0 || t < 0)
            return eval_fail_kernel(c, "dimension out of range");
        if (src_used[s] || dst_used[t])
            return eval_fail(c, "movedim: repeated dim in source or destination");
        src_used[s] = dst_used[t] = true;
        order[t] = s;
    }
    int next_src = 0;
    for (int d = 0; d < ndim; d++) {
        if (order[d] >= 0)
            continue;
        while (src_used[next_src])
            next_src++;
        order[d] = next_src++;
    }
    return eval_out_tensor(c, 0, tensor_permute(self, ndim, order));
}

/* contiguous(Tensor self, MemoryFormat memory_format=contiguous_format):
 * self itself when already contiguous. */
bool eval_op_contiguous(EvalCall *c)
{
    Tensor *self;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (tensor_is_contiguous(self))
        return eval_out_arg(c, 0, 0);
    return eval_out_tensor(c, 0, tensor_contiguous(self));
}

/* flatten(Tensor self, int start_dim=0, int end_dim=-1) */
bool eval_op_flatten(EvalCall *c)
{
    Tensor *self;
    int64_t start = 0, end = -1;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &start)) || (c->nargs > 2 && !eval_arg_int(c, 2, &end)))
        return false;
    return eval_out_tensor(c, 0, tensor_flatten(self, start, end));
}

/* unflatten(Tensor self, int dim, int[] sizes) */
bool eval_op_unflatten(EvalCall *c)
{
    Tensor *self;
    int64_t dim, sizes[TENSOR_MAX_DIMS];
    int n;
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &self) && eval_arg_int(c, 1, &dim) &&
           eval_arg_ints(c, 2, sizes, TENSOR_MAX_DIMS, &n) &&
           eval_out_tensor(c, 0, tensor_unflatten(self, dim, n, sizes));
}

/* diagonal(Tensor self, int offset=0, int dim1=0, int dim2=1) */
bool eval_op_diagonal(EvalCall *c)
{
    Tensor *self;
    int64_t offset = 0, d1 = 0, d2 = 1;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &offset)) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &d1)) || (c->nargs > 3 && !eval_arg_int(c, 3, &d2)))
        return false;
    return eval_out_tensor(c, 0, tensor_diagonal(self, offset, d1, d2));
}

/* alias(self), detach(self): a new tensor object over the same storage. */
bool eval_op_alias(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_tensor(c, 0, tensor_alias(self));
}

/* chunk(Tensor self, int chunks, int dim=0) */
bool eval_op_chunk(EvalCall *c)
{
    Tensor *self;
    int64_t chunks, dim = 0;
    int n = 0;
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &chunks) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)))
        return false;
    if (chunks <= 0)
        return eval_fail(c, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
    Tensor **parts = tensor_chunk(self, chunks, dim, &n);
    return out_tensor_list(c, parts, n);
}

/* split(Tensor self, int split_size, int dim=0) or split(self, int[]
 * split_sizes, int dim=0); split_with_sizes(self, int[] split_sizes, int dim=0) */
bool eval_op_split(EvalCall *c)
{
    Tensor *self;
    int64_t dim = 0;
    int n = 0;
    if (c->nargs >= 1 && eval_kind(c, 0) == RT_STR)
        return eval_str_split(c);   /* str.split */
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)))
        return false;
    if (eval_kind(c, 1) == RT_INT) {
        int64_t size = c->args[1]->u.i;
        if (size < 0)
            return eval_fail(c, "split expects split_size be non-negative, but got split_size=%lld",
                            (long long)size);
        Tensor **parts = tensor_split(self, size, dim, &n);
        return out_tensor_list(c, parts, n);
    }
    return eval_op_split_with_sizes(c);
}

bool eval_op_split_with_sizes(EvalCall *c)
{
    Tensor *self;
    int64_t dim = 0;
    int64_t *sizes = NULL;
    int nsizes = 0, n = 0;
    RtValue *list;
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &self) || !eval_arg_list(c, 1, &list) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)))
        return false;
    sizes = xmalloc(((size_t)list->u.list.n + 1) * sizeof *sizes);
    if (!eval_arg_ints(c, 1, sizes, list->u.list.n, &nsizes)) {
        free(sizes);
        return false;
    }
    Tensor **parts = tensor_split_sizes(self, nsizes, sizes, dim, &n);
    free(sizes);
    return out_tensor_list(c, parts, n);
}

/* unbind(Tensor self, int dim=0) */
bool eval_op_unbind(EvalCall *c)
{
    Tensor *self;
    int64_t dim = 0;
    int n = 0;
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &dim)))
        return false;
    Tensor **parts = tensor_unbind(self, dim, &n);
    return out_tensor_list(c, parts, n);
}
