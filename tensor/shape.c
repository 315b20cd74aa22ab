/* shape.c — kernels that rearrange elements: cat, stack, repeat, flip, roll,
 * tril, triu, constant_pad.
 *
 * cat allocates the result in the promoted dtype and copies each input into
 * its slice (a view) with tensor_copy_, which casts. stack is cat of views
 * with a new size-1 dim. The others are per-dim coordinate remappings run
 * by kern_remap: output coordinate c along dim d reads source coordinate
 * tables[d][c] (c % size for repeat, size-1-c for flip, (c - shift) mod size
 * for roll, c - left_pad or "fill" for constant_pad). tril/triu clone and
 * zero the elements outside the band.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- cat, stack */

/* PyTorch's legacy rule: 1-d tensors of shape (0,) take no part in cat. */
static bool cat_skipped(const Tensor *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

Tensor *tensor_cat(Tensor *const *ts, int n, int64_t dim)
{
    if (n <= 0) {
        tensor_set_error("torch.cat(): expected a non-empty list of Tensors");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0) {
            tensor_set_error("zero-dimensional tensor (at position %d) cannot be concatenated", i);
            return NULL;
        }
    TensorDType dt = tensor_result_type((const Tensor *const *)ts, n);
    const Tensor *ref = NULL;
    for (int i = 0; i < n && !ref; i++)
        if (!cat_skipped(ts[i]))
            ref = ts[i];
    if (!ref) {
        int64_t zero = 0;
        return tensor_empty(dt, 1, &zero);
    }
    int d = tensor_wrap_dim(dim, ref->ndim);
    if (d < 0)
        return NULL;
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, ref->sizes, sizeof sizes);
    sizes[d] = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        if (cat_skipped(t))
            continue;
        if (t->ndim != ref->ndim) {
            tensor_set_error("Tensors must have same number of dimensions: got %d and %d", ref->ndim, t->ndim);
            return NULL;
        }
        for (int k = 0; k < ref->ndim; k++)
            if (k != d && t->sizes[k] != ref->sizes[k]) {
                tensor_set_error("Sizes of tensors must match except in dimension %d. Expected size %" PRId64
                                 " but got size %" PRId64 " for tensor number %d in the list.", d, ref->sizes[k],
                                 t->sizes[k], i);
                return NULL;
            }
        if (sizes[d] > INT64_MAX - t->sizes[d]) {
            tensor_set_error("cat: result size along dimension %d overflows int64", d);
            return NULL;
        }
        sizes[d] += t->sizes[d];
    }
    Tensor *out = tensor_empty(dt, ref->ndim, sizes);
    if (!out)
        return NULL;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        if (cat_skipped(t))
            continue;
        int64_t part[TENSOR_MAX_DIMS];
        memcpy(part, sizes, sizeof part);
        part[d] = t->sizes[d];
        Tensor *slot = tensor_make_view(out, out->ndim, part, out->strides, out->offset + at * out->strides[d]);
        bool ok = slot && tensor_copy_(slot, t);
        tensor_release(slot);
        if (!ok) {
            tensor_release(out);
            return NULL;
        }
        at += t->sizes[d];
    }
    return out;
}

Tensor *tensor_stack(Tensor *const *ts, int n, int64_t dim)
{
    char ab[TENSOR_SHAPE_BUF], bb[TENSOR_SHAPE_BUF];
    if (n <= 0) {
        tensor_set_error("stack expects a non-empty TensorList");
        return NULL;
    }
    for (int i = 1; i < n; i++)
        if (!tensor_same_shape(ts[0], ts[i])) {
            tensor_set_error("stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                             tensor_format_shape(ts[0]->ndim, ts[0]->sizes, ab, sizeof ab),
                             tensor_format_shape(ts[i]->ndim, ts[i]->sizes, bb, sizeof bb), i);
            return NULL;
        }
    int nd = ts[0]->ndim + 1;
    int d = tensor_wrap_dim(dim, nd);
    if (d < 0)
        return NULL;
    if (nd > TENSOR_MAX_DIMS) {
        tensor_set_error("stack: result would have %d dims (at most %d supported)", nd, TENSOR_MAX_DIMS);
        return NULL;
    }
    Tensor **views = kern_malloc((size_t)n, sizeof *views);
    if (!views)
        return NULL;
    int made = 0;
    for (; made < n; made++) {
        const Tensor *t = ts[made];
        int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
        for (int k = 0, src = 0; k < nd; k++) {
            if (k == d) {
                sizes[k] = 1;
                strides[k] = 1;
            } else {
                sizes[k] = t->sizes[src];
                strides[k] = t->strides[src++];
            }
        }
        if (!(views[made] = tensor_make_view(t, nd, sizes, strides, t->offset)))
            break;
    }
    Tensor *out = made == n ? tensor_cat(views, n, d) : NULL;
    for (int i = 0; i < made; i++)
        tensor_release(views[i]);
    free(views);
    return out;
}

/* ---------------------------------------------------------------- remappings */

/* repeat as block copies: the output block of dim k is the source's
 * block of dim k (its rows filled by the level below, the last dim's
 * elements read at their stride), then copied until it fills repeats[k]
 * times its size, doubling the copied part each time. Sizes and strides
 * are in elements; the source is t seen with n dims (leading ones of
 * stride 0). */
typedef struct RepeatCopy {
    int n;
    size_t es;
    const int64_t *src_sizes, *src_strides, *repeats;
    int64_t out_block[TENSOR_MAX_DIMS + 1];
} RepeatCopy;

static void repeat_fill(const RepeatCopy *rc, int k, char *dst, const char *src)
{
    size_t once = (size_t)(rc->src_sizes[k] * rc->out_block[k + 1]) * rc->es;
    if (k == rc->n - 1 && rc->src_strides[k] == 1)
        memcpy(dst, src, once);
    else if (k == rc->n - 1)
        for (int64_t i = 0; i < rc->src_sizes[k]; i++)
            memcpy(dst + (size_t)i * rc->es, src + (ptrdiff_t)(i * rc->src_strides[k]) * (ptrdiff_t)rc->es, rc->es);
    else
        for (int64_t i = 0; i < rc->src_sizes[k]; i++)
            repeat_fill(rc, k + 1, dst + (size_t)(i * rc->out_block[k + 1]) * rc->es,
                        src + (ptrdiff_t)(i * rc->src_strides[k]) * (ptrdiff_t)rc->es);
    size_t total = once * (size_t)rc->repeats[k];
    for (size_t filled = once; filled < total;) {
        size_t chunk = filled < total - filled ? filled : total - filled;
        memcpy(dst + filled, dst, chunk);
        filled += chunk;
    }
}

Tensor *tensor_repeat(const Tensor *t, int n, const int64_t *repeats)
{
    char sb[TENSOR_SHAPE_BUF];
    if (n < t->ndim) {
        tensor_set_error("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (n > TENSOR_MAX_DIMS) {
        tensor_set_error("repeat: %d dims requested (at most %d supported)", n, TENSOR_MAX_DIMS);
        return NULL;
    }
    /* t seen with leading size-1 dims, and the target sizes */
    int lead = n - t->ndim;
    int64_t src_sizes[TENSOR_MAX_DIMS], src_strides[TENSOR_MAX_DIMS], out_sizes[TENSOR_MAX_DIMS];
    bool negative = false;
    for (int k = 0; k < n; k++) {
        src_sizes[k] = k < lead ? 1 : t->sizes[k - lead];
        src_strides[k] = k < lead ? 0 : t->strides[k - lead];
        if (!ckd_mul_i64(&out_sizes[k], src_sizes[k], repeats[k])) {
            tensor_set_error("repeat: size of dimension %d overflows int64", k);
            return NULL;
        }
        negative |= out_sizes[k] < 0;
    }
    if (negative) {
        int64_t first = 0;
        for (int k = 0; k < n && !first; k++)
            if (out_sizes[k] < 0)
                first = out_sizes[k];
        tensor_set_error("Trying to create tensor with negative dimension %" PRId64 ": %s", first,
                         tensor_format_shape(n, out_sizes, sb, sizeof sb));
        return NULL;
    }
    int64_t total;
    if (!kern_numel_checked(n, out_sizes, &total))
        return NULL;
    if (total == 0)                 /* no tables for dims that may be huge */
        return tensor_empty(t->dtype, n, out_sizes);
    if (n > 0) {                    /* block copies, no tables */
        Tensor *out = tensor_empty(t->dtype, n, out_sizes);
        if (out) {
            RepeatCopy rc = {.n = n, .es = dtype_size(t->dtype), .src_sizes = src_sizes,
                             .src_strides = src_strides, .repeats = repeats};
            rc.out_block[n] = 1;
            for (int k = n - 1; k >= 0; k--)
                rc.out_block[k] = rc.out_block[k + 1] * out_sizes[k];
            repeat_fill(&rc, 0, tensor_data(out), tensor_elem_ptr(t, t->offset));
        }
        return out;
    }
    Tensor *src = tensor_make_view(t, n, src_sizes, src_strides, t->offset);
    int64_t *tables[TENSOR_MAX_DIMS];
    Tensor *out = NULL;
    if (src && kern_identity_tables(n, out_sizes, tables)) {
        for (int k = 0; k < n; k++)
            for (int64_t c = 0; c < out_sizes[k]; c++)
                tables[k][c] = c % src_sizes[k];
        out = kern_remap(src, n, out_sizes, tables, NULL);
        kern_tables_free(n, tables);
    }
    tensor_release(src);
    return out;
}

Tensor *tensor_flip(const Tensor *t, int n, const int64_t *dims)
{
    bool mask[TENSOR_MAX_DIMS];
    if (n == 0)
        return tensor_clone(t);
    if (!kern_dims_to_mask(dims, n, t->ndim, mask))
        return NULL;
    int64_t *tables[TENSOR_MAX_DIMS];
    if (!kern_identity_tables(t->ndim, t->sizes, tables))
        return NULL;
    for (int d = 0; d < t->ndim; d++)
        if (mask[d])
            for (int64_t c = 0; c < t->sizes[d]; c++)
                tables[d][c] = t->sizes[d] - 1 - c;
    Tensor *out = kern_remap(t, t->ndim, t->sizes, tables, NULL);
    kern_tables_free(t->ndim, tables);
    return out;
}

/* Rolls the elements along each dim d by shift[d], already reduced to
 * [0, size): out[c] = t[(c - shift) mod size]. */
/* v mod m in [0, m) for m > 0, without overflow. */
static int64_t positive_mod(int64_t v, int64_t m)
{
    int64_t r = v % m;
    return r < 0 ? r + m : r;
}

static Tensor *roll_by(const Tensor *t, const int64_t *shift)
{
    int64_t *tables[TENSOR_MAX_DIMS];
    if (!kern_identity_tables(t->ndim, t->sizes, tables))
        return NULL;
    for (int d = 0; d < t->ndim; d++)
        for (int64_t c = 0; c < t->sizes[d]; c++) {
            int64_t s = c - shift[d];
            tables[d][c] = s < 0 ? s + t->sizes[d] : s;
        }
    Tensor *out = kern_remap(t, t->ndim, t->sizes, tables, NULL);
    kern_tables_free(t->ndim, tables);
    return out;
}

Tensor *tensor_roll(const Tensor *t, int n, const int64_t *shifts, int ndims, const int64_t *dims)
{
    if (n == 0) {
        tensor_set_error("`shifts` required");
        return NULL;
    }
    if (ndims == 0 && n != 1) {
        tensor_set_error("shifts and dimensions must align. shifts: %d, dims:%d", n, ndims);
        return NULL;
    }
    if (ndims != 0 && n != ndims) {
        tensor_set_error("shifts and dimensions must align. shifts: %d, dims:%d", n, ndims);
        return NULL;
    }
    int64_t numel = tensor_numel(t);
    if (ndims == 0) {
        /* roll the flattened tensor, then restore the shape */
        if (numel == 0 || t->ndim == 0)
            return tensor_clone(t);
        Tensor *flat_src = tensor_clone(t);
        Tensor *flat = flat_src ? tensor_make_view(flat_src, 1, &numel, (int64_t[1]){1}, flat_src->offset) : NULL;
        int64_t shift = positive_mod(shifts[0], numel);
        Tensor *rolled = flat ? roll_by(flat, &shift) : NULL;
        Tensor *out = NULL;
        if (rolled) {
            int64_t strides[TENSOR_MAX_DIMS];
            int64_t s = 1;
            for (int d = t->ndim - 1; d >= 0; d--) {
                strides[d] = s;
                s *= t->sizes[d];
            }
            out = tensor_make_view(rolled, t->ndim, t->sizes, strides, rolled->offset);
        }
        tensor_release(flat_src);
        tensor_release(flat);
        tensor_release(rolled);
        return out;
    }
    if (t->ndim == 0) {
        tensor_set_error("Dimension specified as %" PRId64 " but tensor has no dimensions", dims[0]);
        return NULL;
    }
    int64_t shift[TENSOR_MAX_DIMS] = {0};
    for (int i = 0; i < ndims; i++) {
        int d = tensor_wrap_dim(dims[i], t->ndim);
        if (d < 0)
            return NULL;
        if (t->sizes[d] > 0)
            shift[d] = positive_mod(shift[d] + positive_mod(shifts[i], t->sizes[d]), t->sizes[d]);
    }
    if (numel == 0)
        return tensor_clone(t);
    return roll_by(t, shift);
}

static Tensor *triangle(const Tensor *t, int64_t diagonal, bool lower)
{
    if (t->ndim < 2) {
        tensor_wrap_dim(-2, t->ndim);          /* PyTorch's message for a missing dim -2 */
        return NULL;
    }
    Tensor *out = tensor_clone(t);
    if (!out)
        return NULL;
    int64_t rows = t->sizes[t->ndim - 2], cols = t->sizes[t->ndim - 1];
    int64_t n = tensor_numel(t), per = rows * cols;
    size_t es = dtype_size(t->dtype);
    char *p = tensor_data(out);
    for (int64_t i = 0; i < n; i++, p += es) {
        int64_t r = (i % per) / cols, c = i % cols;
        bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
        if (!keep)
            memset(p, 0, es);
    }
    return out;
}

Tensor *tensor_tril(const Tensor *t, int64_t diagonal)
{
    return triangle(t, diagonal, true);
}

Tensor *tensor_triu(const Tensor *t, int64_t diagonal)
{
    return triangle(t, diagonal, false);
}

/* ATen's narrow() checks, as constant_pad_nd's cropping reports them. */
static bool narrow_ok(int64_t start, int64_t length, int64_t size)
{
    if (start != size && (start < -size || start >= size)) {
        tensor_set_error("Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                         "], but got %" PRId64 ")", -size, size - 1, start);
        return false;
    }
    if (length < 0 || start > size - length) {
        tensor_set_error("start (%" PRId64 ") + length (%" PRId64 ") exceeds dimension size (%" PRId64 ").", start,
                         length, size);
        return false;
    }
    return true;
}

/* F.pad(x, (l, r)) of a contiguous x, l and r >= 0 (what compute_deltas and
 * a conv front end pad): row by row the fill, the row, the fill, instead of
 * kern_remap's per-element tables (4 ns an element). fill holds one element
 * of t's dtype. */
static Tensor *pad_last_dim(const Tensor *t, const int64_t *out_sizes, int64_t l, int64_t r, const void *fill)
{
    Tensor *out = tensor_empty(t->dtype, t->ndim, out_sizes);
    if (!out)
        return NULL;
    size_t es = dtype_size(t->dtype);
    int64_t w = t->ndim ? t->sizes[t->ndim - 1] : 1, ow = w + l + r;
    int64_t rows = tensor_numel(out) / ow;
    const char *src = tensor_data(t);
    char *dst = tensor_data(out);
    for (int64_t row = 0; row < rows; row++) {
        for (int64_t k = 0; k < l; k++, dst += es)
            memcpy(dst, fill, es);
        memcpy(dst, src, (size_t)w * es);
        dst += (size_t)w * es;
        src += (size_t)w * es;
        for (int64_t k = 0; k < r; k++, dst += es)
            memcpy(dst, fill, es);
    }
    return out;
}

Tensor *tensor_constant_pad(const Tensor *t, int n, const int64_t *pad, double value)
{
    if (n % 2 != 0) {
        tensor_set_error("Length of pad must be even but instead it equals %d", n);
        return NULL;
    }
    if (n / 2 > t->ndim) {
        tensor_set_error("Length of pad should be no more than twice the number of dimensions of the input. Pad "
                         "length is %dwhile the input has %ddimensions.", n, t->ndim);
        return NULL;
    }
    /* crop with the negative pads (a view), then pad with the positive ones */
    int64_t sizes[TENSOR_MAX_DIMS], out_sizes[TENSOR_MAX_DIMS], left[TENSOR_MAX_DIMS] = {0};
    int64_t offset = t->offset;
    memcpy(sizes, t->sizes, sizeof sizes);
    for (int d = t->ndim - n / 2; d < t->ndim; d++) {
        int at = 2 * (t->ndim - d - 1);
        int64_t l = pad[at], r = pad[at + 1];
        if (l < 0) {
            if (!narrow_ok(-l, sizes[d] + l, sizes[d]))
                return NULL;
            offset += -l * t->strides[d];
            sizes[d] += l;
        }
        if (r < 0) {
            if (!narrow_ok(0, sizes[d] + r, sizes[d]))
                return NULL;
            sizes[d] += r;
        }
        left[d] = l > 0 ? l : 0;
        int64_t grow = left[d] + (r > 0 ? r : 0);
        if (sizes[d] > INT64_MAX - grow) {
            tensor_set_error("constant_pad_nd: padded size of dimension %d overflows int64", d);
            return NULL;
        }
    }
    for (int d = 0; d < t->ndim; d++) {
        int at = 2 * (t->ndim - d - 1);
        bool padded = d >= t->ndim - n / 2;
        out_sizes[d] = sizes[d] + (padded ? left[d] + (pad[at + 1] > 0 ? pad[at + 1] : 0) : 0);
    }
    union { double d; int64_t i; uint8_t b[8]; } fill;
    memset(&fill, 0, sizeof fill);
    if (!tensor_scalar_fits(value, t->dtype))
        return NULL;
    tensor_store_f64(t->dtype, &fill, value);
    int64_t total;
    if (!kern_numel_checked(t->ndim, out_sizes, &total))
        return NULL;
    if (total == 0)
        return tensor_empty(t->dtype, t->ndim, out_sizes);
    if (n == 2 && pad[0] >= 0 && pad[1] >= 0 && tensor_is_contiguous(t))
        return pad_last_dim(t, out_sizes, pad[0], pad[1], &fill);
    Tensor *cropped = tensor_make_view(t, t->ndim, sizes, t->strides, offset);
    int64_t *tables[TENSOR_MAX_DIMS];
    Tensor *out = NULL;
    if (cropped && kern_identity_tables(t->ndim, out_sizes, tables)) {
        for (int d = 0; d < t->ndim; d++)
            for (int64_t c = 0; c < out_sizes[d]; c++) {
                int64_t s = c - left[d];
                tables[d][c] = s >= 0 && s < sizes[d] ? s : -1;
            }
        out = kern_remap(cropped, t->ndim, out_sizes, tables, &fill);
        kern_tables_free(t->ndim, tables);
    }
    tensor_release(cropped);
    return out;
}

/* Zeros of the given shape with t copied onto diagonal `offset` of the
 * last two dims (diag of a vector, diag_embed). */
static Tensor *zeros_with_diagonal(const Tensor *t, int ndim, const int64_t *sizes, int64_t offset)
{
    Tensor *out = tensor_zeros(t->dtype, ndim, sizes);
    Tensor *view = out ? tensor_diagonal(out, offset, ndim - 2, ndim - 1) : NULL;
    bool ok = view && tensor_copy_(view, t);
    tensor_release(view);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_diag(const Tensor *t, int64_t offset)
{
    if (t->ndim != 1 && t->ndim != 2) {
        tensor_set_error("diag(): Supports 1D or 2D tensors. Got %dD", t->ndim);
        return NULL;
    }
    if (t->ndim == 2) {
        Tensor *view = tensor_diagonal((Tensor *)t, offset, 0, 1);
        Tensor *out = view ? tensor_clone(view) : NULL;
        tensor_release(view);
        return out;
    }
    int64_t n;
    if (!ckd_add_i64(&n, t->sizes[0], offset < 0 ? -offset : offset)) {
        tensor_set_error("diag(): offset %" PRId64 " is too large", offset);
        return NULL;
    }
    int64_t sizes[2] = {n, n};
    return zeros_with_diagonal(t, 2, sizes, offset);
}

Tensor *tensor_diag_embed(const Tensor *t, int64_t offset)
{
    if (t->ndim < 1 || t->ndim + 1 > TENSOR_MAX_DIMS) {
        tensor_set_error("diag_embed: the input needs between 1 and %d dims", TENSOR_MAX_DIMS - 1);
        return NULL;
    }
    int64_t sizes[TENSOR_MAX_DIMS], n;
    if (!ckd_add_i64(&n, t->sizes[t->ndim - 1], offset < 0 ? -offset : offset)) {
        tensor_set_error("diag_embed: offset %" PRId64 " is too large", offset);
        return NULL;
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)(t->ndim - 1));
    sizes[t->ndim - 1] = n;
    sizes[t->ndim] = n;
    return zeros_with_diagonal(t, t->ndim + 1, sizes, offset);
}
