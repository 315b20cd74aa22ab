/* view_layouts.c — the sizes and strides each view op gives: PyTorch's
 * rules for select, slice, narrow, t, transpose, permute, unsqueeze,
 * squeeze, expand (and expand_as), diagonal, as_strided, view (and
 * view_as: ATen's computeStride, tensor_view_strides), flatten's target
 * shape and the pieces of unbind, chunk and split, on a layout alone
 * (TssaLayout: known sizes and strides, or only "row-major", or unknown),
 * with constant arguments. Which view ops keep a row-major tensor row-major
 * whatever its sizes is said here too. reshape_decide.c walks a graph with
 * them; the strides PyTorch gives are checked by tests/functionalize/
 * test_reshape_decide.c (its cases run through PyTorch).
 *
 * Every rule returns false where it cannot tell (an argument not a
 * constant, out of range, a shape that does not fit): the caller then
 * knows nothing of the result, never something wrong.
 */
#include <stdint.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/tensor.h"

static bool strided_is_contiguous(const TssaLayout *l)
{
    int64_t expected = 1;
    for (int i = l->t.ndim - 1; i >= 0; i--) {
        if (l->t.sizes[i] == 0)
            return true;
        if (l->t.sizes[i] != 1 && l->t.strides[i] != expected)
            return false;
        expected *= l->t.sizes[i];
    }
    return true;
}

bool tssa_layout_known_contiguous(const TssaLayout *l)
{
    return l->kind == TSSA_LAYOUT_CONTIGUOUS || (l->kind == TSSA_LAYOUT_STRIDED && strided_is_contiguous(l));
}

TssaLayout tssa_layout_contiguous(void)
{
    TssaLayout l = {TSSA_LAYOUT_CONTIGUOUS, {0}};
    return l;
}

/* Row-major strides for the sizes. */
TssaLayout tssa_layout_row_major(int ndim, const int64_t *sizes)
{
    TssaLayout l = {TSSA_LAYOUT_STRIDED, {0}};
    l.t.ndim = ndim;
    int64_t stride = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        l.t.sizes[i] = sizes[i];
        l.t.strides[i] = stride;
        stride *= sizes[i] > 1 ? sizes[i] : 1;
    }
    return l;
}

int64_t tssa_layout_numel(const TssaLayout *l)
{
    int64_t n = 1;
    for (int i = 0; i < l->t.ndim; i++)
        n *= l->t.sizes[i];
    return n;
}

/* A dim argument wrapped into [0, ndim); false when out of range. */
static bool wrap_dim(int64_t dim, int ndim, int *out)
{
    int n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n)
        return false;
    *out = (int)(dim < 0 ? dim + n : dim);
    return true;
}

static void drop_dim(TssaLayout *l, int dim)
{
    for (int i = dim; i + 1 < l->t.ndim; i++) {
        l->t.sizes[i] = l->t.sizes[i + 1];
        l->t.strides[i] = l->t.strides[i + 1];
    }
    l->t.ndim--;
}

static bool insert_dim(TssaLayout *l, int dim, int64_t size, int64_t stride)
{
    if (l->t.ndim >= TENSOR_MAX_DIMS)
        return false;
    for (int i = l->t.ndim; i > dim; i--) {
        l->t.sizes[i] = l->t.sizes[i - 1];
        l->t.strides[i] = l->t.strides[i - 1];
    }
    l->t.sizes[dim] = size;
    l->t.strides[dim] = stride;
    l->t.ndim++;
    return true;
}

/* slice's start or end: None (absent) gives dflt. */
static bool arg_opt_int(const IrNode *n, int i, int64_t dflt, int64_t *out)
{
    if (i >= n->ninputs || tssa_is_none(n->inputs[i])) {
        *out = dflt;
        return true;
    }
    return tssa_const_int(n->inputs[i], out);
}

/* The layout view(x, shape) gives a strided x, or false (the view fails). */
bool tssa_layout_view_shape(const TssaLayout *in, const int64_t *shape, int n, TssaLayout *out)
{
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    if (n > TENSOR_MAX_DIMS || !tensor_infer_shape(n, shape, tssa_layout_numel(in), sizes)) {
        tensor_clear_error();
        return false;
    }
    if (!tensor_view_strides(&in->t, n, sizes, strides))
        return false;
    out->kind = TSSA_LAYOUT_STRIDED;
    out->t.ndim = n;
    memcpy(out->t.sizes, sizes, sizeof(int64_t) * (size_t)n);
    memcpy(out->t.strides, strides, sizeof(int64_t) * (size_t)n);
    return true;
}

/* select(dim, index) */
static bool select_layout(const IrNode *n, TssaLayout *l)
{
    int64_t dim;
    int d;
    if (!tssa_const_int_arg(n, 1, 0, &dim) || l->t.ndim == 0 || !wrap_dim(dim, l->t.ndim, &d))
        return false;
    drop_dim(l, d);
    return true;
}

/* slice(dim=0, start=None, end=None, step=1), as ATen clamps it. */
static bool slice_layout(const IrNode *n, TssaLayout *l)
{
    int64_t dim, start, end, step;
    int d;
    if (!tssa_const_int_arg(n, 1, 0, &dim) || !arg_opt_int(n, 2, 0, &start) ||
        !arg_opt_int(n, 3, INT64_MAX, &end) || !tssa_const_int_arg(n, 4, 1, &step) || step <= 0 ||
        l->t.ndim == 0 || !wrap_dim(dim, l->t.ndim, &d))
        return false;
    int64_t len = tensor_slice_bounds(l->t.sizes[d], &start, &end);
    l->t.sizes[d] = len == 0 ? 0 : (len - 1) / step + 1;   /* as tensor_slice */
    l->t.strides[d] *= step;
    return true;
}

/* narrow(dim, start, length) */
static bool narrow_layout(const IrNode *n, TssaLayout *l)
{
    int64_t dim, length;
    int d;
    if (!tssa_const_int_arg(n, 1, 0, &dim) || !tssa_const_int_arg(n, 3, 0, &length) || l->t.ndim == 0 ||
        !wrap_dim(dim, l->t.ndim, &d) || length < 0 || length > l->t.sizes[d])
        return false;
    l->t.sizes[d] = length;
    return true;
}

static void swap_dims(TssaLayout *l, int a, int b)
{
    int64_t s = l->t.sizes[a], st = l->t.strides[a];
    l->t.sizes[a] = l->t.sizes[b];
    l->t.strides[a] = l->t.strides[b];
    l->t.sizes[b] = s;
    l->t.strides[b] = st;
}

static bool transpose_layout(const IrNode *n, TssaLayout *l)
{
    if (n->op == OP_ATEN_T) {
        if (l->t.ndim > 2)
            return false;
        if (l->t.ndim == 2)
            swap_dims(l, 0, 1);
        return true;
    }
    int64_t a, b;
    int da, db;
    if (!tssa_const_int_arg(n, 1, 0, &a) || !tssa_const_int_arg(n, 2, 0, &b) || !wrap_dim(a, l->t.ndim, &da) ||
        !wrap_dim(b, l->t.ndim, &db))
        return false;
    if (l->t.ndim > 0)
        swap_dims(l, da, db);
    return true;
}

static bool permute_layout(const IrNode *n, TssaLayout *l)
{
    int64_t dims[TENSOR_MAX_DIMS];
    int count;
    if (n->ninputs < 2 || !tssa_const_int_list(n->inputs[1], dims, TENSOR_MAX_DIMS, &count) ||
        count != l->t.ndim)
        return false;
    TssaLayout in = *l;
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < count; i++) {
        int d;
        if (!wrap_dim(dims[i], count, &d) || seen[d])
            return false;
        seen[d] = true;
        l->t.sizes[i] = in.t.sizes[d];
        l->t.strides[i] = in.t.strides[d];
    }
    return true;
}

/* unsqueeze(dim): ATen gives the new dim the stride sizes[dim] * strides[dim]
 * (1 at the end). */
static bool unsqueeze_layout(const IrNode *n, TssaLayout *l)
{
    int64_t dim;
    int d;
    if (!tssa_const_int_arg(n, 1, 0, &dim) || !wrap_dim(dim, l->t.ndim + 1, &d))
        return false;
    int64_t stride = d >= l->t.ndim ? 1 : l->t.sizes[d] * l->t.strides[d];
    return insert_dim(l, d, 1, stride);
}

/* squeeze() drops every size-1 dim; squeeze(dim) that one, if size 1. */
static bool squeeze_layout(const IrNode *n, TssaLayout *l)
{
    if (n->ninputs < 2) {
        for (int i = l->t.ndim - 1; i >= 0; i--)
            if (l->t.sizes[i] == 1)
                drop_dim(l, i);
        return true;
    }
    int64_t dim;
    int d;
    if (!tssa_const_int(n->inputs[1], &dim))
        return false;
    if (l->t.ndim == 0)
        return dim == 0 || dim == -1;
    if (!wrap_dim(dim, l->t.ndim, &d))
        return false;
    if (l->t.sizes[d] == 1)
        drop_dim(l, d);
    return true;
}

/* expand(size): new leading dims and expanded size-1 dims get stride 0. */
static bool expand_layout(const IrNode *n, TssaLayout *l)
{
    int64_t target[TENSOR_MAX_DIMS];
    int count;
    if (n->ninputs < 2 || !tssa_const_int_list(n->inputs[1], target, TENSOR_MAX_DIMS, &count) ||
        count < l->t.ndim)
        return false;
    TssaLayout in = *l;
    int lead = count - in.t.ndim;
    l->t.ndim = count;
    for (int i = 0; i < count; i++) {
        if (i < lead) {
            if (target[i] < 0)
                return false;
            l->t.sizes[i] = target[i];
            l->t.strides[i] = 0;
            continue;
        }
        int64_t size = in.t.sizes[i - lead], stride = in.t.strides[i - lead];
        if (target[i] == -1 || target[i] == size) {
            l->t.sizes[i] = size;
            l->t.strides[i] = stride;
        } else if (size == 1 && target[i] >= 0) {
            l->t.sizes[i] = target[i];
            l->t.strides[i] = 0;
        } else {
            return false;
        }
    }
    return true;
}

/* diagonal(offset=0, dim1=0, dim2=1): the two dims go, the diagonal comes
 * last with the sum of their strides. */
static bool diagonal_layout(const IrNode *n, TssaLayout *l)
{
    int64_t offset, a, b;
    int d1, d2;
    if (!tssa_const_int_arg(n, 1, 0, &offset) || !tssa_const_int_arg(n, 2, 0, &a) || !tssa_const_int_arg(n, 3, 1, &b) ||
        !wrap_dim(a, l->t.ndim, &d1) || !wrap_dim(b, l->t.ndim, &d2) || d1 == d2 || l->t.ndim < 2)
        return false;
    int64_t s1 = l->t.sizes[d1], s2 = l->t.sizes[d2];
    int64_t size = offset >= 0 ? (s1 < s2 - offset ? s1 : s2 - offset)
                               : (s1 + offset < s2 ? s1 + offset : s2);
    int64_t stride = l->t.strides[d1] + l->t.strides[d2];
    drop_dim(l, d1 > d2 ? d1 : d2);
    drop_dim(l, d1 > d2 ? d2 : d1);
    return insert_dim(l, l->t.ndim, size > 0 ? size : 0, stride);
}

static bool as_strided_layout(const IrNode *n, TssaLayout *l)
{
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int ns, nst;
    if (n->ninputs < 3 || !tssa_const_int_list(n->inputs[1], sizes, TENSOR_MAX_DIMS, &ns) ||
        !tssa_const_int_list(n->inputs[2], strides, TENSOR_MAX_DIMS, &nst) || ns != nst)
        return false;
    l->t.ndim = ns;
    memcpy(l->t.sizes, sizes, sizeof(int64_t) * (size_t)ns);
    memcpy(l->t.strides, strides, sizeof(int64_t) * (size_t)ns);
    return true;
}

/* The sizes flatten(start, end) gives a layout of ndim dims. */
bool tssa_layout_flatten_shape(const IrNode *n, const TssaLayout *l, int64_t *shape, int *count)
{
    int64_t start, end;
    int s, e;
    if (!tssa_const_int_arg(n, 1, 0, &start) || !tssa_const_int_arg(n, 2, -1, &end))
        return false;
    if (l->t.ndim == 0) {
        shape[0] = 1;
        *count = 1;
        return true;
    }
    if (!wrap_dim(start, l->t.ndim, &s) || !wrap_dim(end, l->t.ndim, &e) || s > e)
        return false;
    int k = 0;
    for (int i = 0; i < s; i++)
        shape[k++] = l->t.sizes[i];
    int64_t merged = 1;
    for (int i = s; i <= e; i++)
        merged *= l->t.sizes[i];
    shape[k++] = merged;
    for (int i = e + 1; i < l->t.ndim; i++)
        shape[k++] = l->t.sizes[i];
    *count = k;
    return true;
}

/* The layout of a strided value l after view op n (second: the layout of
 * n's input 1, for view_as and expand_as, or NULL); false when unknown. */
bool tssa_layout_after_view(const IrNode *n, const TssaLayout *second, TssaLayout *l)
{
    int64_t shape[TENSOR_MAX_DIMS];
    int count;
    switch (n->op) {
    case OP_ATEN_SELECT: return select_layout(n, l);
    case OP_ATEN_SLICE: return slice_layout(n, l);
    case OP_ATEN_NARROW: return narrow_layout(n, l);
    case OP_ATEN_T:
    case OP_ATEN_TRANSPOSE: return transpose_layout(n, l);
    case OP_ATEN_PERMUTE: return permute_layout(n, l);
    case OP_ATEN_UNSQUEEZE: return unsqueeze_layout(n, l);
    case OP_ATEN_SQUEEZE: return squeeze_layout(n, l);
    case OP_ATEN_EXPAND: return expand_layout(n, l);
    case OP_ATEN_DIAGONAL: return diagonal_layout(n, l);
    case OP_ATEN_AS_STRIDED: return as_strided_layout(n, l);
    case OP_ATEN_ALIAS:
    case OP_ATEN_DETACH: return true;
    case OP_ATEN_VIEW:
        if (n->ninputs < 2 || !tssa_const_int_list(n->inputs[1], shape, TENSOR_MAX_DIMS, &count))
            return false;
        return tssa_layout_view_shape(l, shape, count, l);
    case OP_ATEN_VIEW_AS:
    case OP_ATEN_EXPAND_AS: {
        const TssaLayout *other = second;
        if (!other || other->kind != TSSA_LAYOUT_STRIDED)
            return false;
        if (n->op == OP_ATEN_VIEW_AS)
            return tssa_layout_view_shape(l, other->t.sizes, other->t.ndim, l);
        int lead = other->t.ndim - l->t.ndim;
        if (lead < 0)
            return false;
        TssaLayout in = *l;
        l->t.ndim = other->t.ndim;
        for (int i = 0; i < other->t.ndim; i++) {
            int64_t want = other->t.sizes[i];
            if (i < lead) {
                l->t.sizes[i] = want;
                l->t.strides[i] = 0;
            } else if (in.t.sizes[i - lead] == want) {
                l->t.sizes[i] = want;
                l->t.strides[i] = in.t.strides[i - lead];
            } else if (in.t.sizes[i - lead] == 1) {
                l->t.sizes[i] = want;
                l->t.strides[i] = 0;
            } else {
                return false;
            }
        }
        return true;
    }
    default:
        return false;
    }
}

/* Whether view op n keeps a contiguous input contiguous whatever its sizes
 * (see the header). */
bool tssa_layout_keeps_contiguous(const IrNode *n)
{
    int64_t dim, step;
    switch (n->op) {
    case OP_ATEN_VIEW:
    case OP_ATEN_UNSQUEEZE:
    case OP_ATEN_SQUEEZE:
    case OP_ATEN_ALIAS:
    case OP_ATEN_DETACH:
        return true;
    case OP_ATEN_SELECT:
    case OP_ATEN_NARROW:
        return tssa_const_int_arg(n, 1, 0, &dim) && dim == 0;
    case OP_ATEN_SLICE:
        return tssa_const_int_arg(n, 1, 0, &dim) && dim == 0 && tssa_const_int_arg(n, 4, 1, &step) && step == 1;
    default:
        return false;
    }
}

/* The piece k of the list of views made by n (unbind, chunk, split). */
bool tssa_layout_piece(const IrNode *n, int64_t k, const TssaLayout *in, TssaLayout *out)
{
    int dim_at = n->op == OP_ATEN_UNBIND ? 1 : 2;
    int64_t dim;
    if (!tssa_const_int_arg(n, dim_at, 0, &dim))
        return false;
    if (in->kind == TSSA_LAYOUT_CONTIGUOUS) {
        *out = tssa_layout_contiguous();
        return dim == 0;
    }
    int d;
    if (in->kind != TSSA_LAYOUT_STRIDED || in->t.ndim == 0 || !wrap_dim(dim, in->t.ndim, &d))
        return false;
    *out = *in;
    int64_t size = in->t.sizes[d], start = 0, length = 0;
    switch (n->op) {
    case OP_ATEN_UNBIND:
        if (k >= size)
            return false;
        drop_dim(out, d);
        return true;
    case OP_ATEN_CHUNK:
    case OP_ATEN_SPLIT: {
        int64_t sizes[TENSOR_MAX_DIMS * 64];
        int count;
        if (n->op == OP_ATEN_SPLIT && n->ninputs > 1 && n->inputs[1]->type &&
            n->inputs[1]->type->kind == TY_LIST) {
            if (!tssa_const_int_list(n->inputs[1], sizes, (int)(sizeof sizes / sizeof *sizes), &count) ||
                k >= count)
                return false;
            for (int64_t i = 0; i < k; i++)
                start += sizes[i];
            length = sizes[k];
            break;
        }
        int64_t arg;
        if (!tssa_const_int_arg(n, 1, 1, &arg) || arg <= 0)
            return false;
        int64_t piece = n->op == OP_ATEN_CHUNK ? (size + arg - 1) / arg : arg;
        if (piece <= 0)
            return false;
        start = k * piece;
        length = size - start < piece ? size - start : piece;
        break;
    }
    case OP_ATEN_SPLIT_WITH_SIZES: {
        int64_t sizes[TENSOR_MAX_DIMS * 64];
        int count;
        if (n->ninputs < 2 ||
            !tssa_const_int_list(n->inputs[1], sizes, (int)(sizeof sizes / sizeof *sizes), &count) ||
            k >= count)
            return false;
        for (int64_t i = 0; i < k; i++)
            start += sizes[i];
        length = sizes[k];
        break;
    }
    default:
        return false;
    }
    if (start < 0 || length < 0 || start + length > size)
        return false;
    out->t.sizes[d] = length;
    return true;
}
