/* scatter_views.c — the functional inverses of the view ops:
 * select_scatter, slice_scatter, diagonal_scatter and as_strided_scatter
 * return a copy of self with the region the view would address replaced by
 * src (PyTorch: out = self.clone(); out.<view>(...).copy_(src)), after
 * checking that src has exactly the view's shape. Also resize_ and
 * resize_as_, which change a tensor's own geometry in place.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/* out = clone(self); region = view_of(out); region <- src. */
typedef Tensor *(*RegionFn)(Tensor *out, const void *args);

static Tensor *scatter_region(const Tensor *self, const Tensor *src, RegionFn region_of, const void *args)
{
    char rb[TENSOR_SHAPE_BUF], sb[TENSOR_SHAPE_BUF];
    Tensor *out = tensor_clone_preserve(self);
    Tensor *region = out ? region_of(out, args) : NULL;
    bool ok = region != NULL;
    if (ok && !tensor_same_shape(region, src)) {
        tensor_set_error("expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                         tensor_format_shape(src->ndim, src->sizes, sb, sizeof sb),
                         tensor_format_shape(region->ndim, region->sizes, rb, sizeof rb));
        ok = false;
    }
    ok = ok && tensor_copy_(region, src);
    tensor_release(region);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

typedef struct RegionArgs {
    int64_t a, b, c, d;
    int n;
    const int64_t *sizes, *strides;
    bool has_offset;
} RegionArgs;

static Tensor *select_region(Tensor *out, const void *p)
{
    const RegionArgs *r = p;
    return tensor_select(out, r->a, r->b);
}

static Tensor *slice_region(Tensor *out, const void *p)
{
    const RegionArgs *r = p;
    return tensor_slice(out, r->a, r->b, r->c, r->d);
}

static Tensor *diagonal_region(Tensor *out, const void *p)
{
    const RegionArgs *r = p;
    return tensor_diagonal(out, r->a, r->b, r->c);
}

static Tensor *as_strided_region(Tensor *out, const void *p)
{
    const RegionArgs *r = p;
    return tensor_as_strided(out, r->n, r->sizes, r->strides, r->has_offset, r->a);
}

Tensor *tensor_select_scatter(const Tensor *self, const Tensor *src, int64_t dim, int64_t index)
{
    RegionArgs r = {.a = dim, .b = index};
    return scatter_region(self, src, select_region, &r);
}

Tensor *tensor_slice_scatter(const Tensor *self, const Tensor *src, int64_t dim, int64_t start, int64_t end,
                             int64_t step)
{
    RegionArgs r = {.a = dim, .b = start, .c = end, .d = step};
    return scatter_region(self, src, slice_region, &r);
}

Tensor *tensor_diagonal_scatter(const Tensor *self, const Tensor *src, int64_t offset, int64_t dim1, int64_t dim2)
{
    RegionArgs r = {.a = offset, .b = dim1, .c = dim2};
    return scatter_region(self, src, diagonal_region, &r);
}

Tensor *tensor_as_strided_scatter(const Tensor *self, const Tensor *src, int n, const int64_t *sizes,
                                  const int64_t *strides, bool has_offset, int64_t offset)
{
    RegionArgs r = {.a = offset, .n = n, .sizes = sizes, .strides = strides, .has_offset = has_offset};
    return scatter_region(self, src, as_strided_region, &r);
}

/* ---------------------------------------------------------------- resize_ */

bool tensor_resize_(Tensor *t, int n, const int64_t *sizes)
{
    int64_t numel;
    if (n > TENSOR_MAX_DIMS) {
        tensor_set_error("resize_: %d dims (at most %d supported)", n, TENSOR_MAX_DIMS);
        return false;
    }
    for (int i = 0; i < n; i++)
        if (sizes[i] < 0) {
            char sb[TENSOR_SHAPE_BUF];
            tensor_set_error("Trying to create tensor with negative dimension %" PRId64 ": %s", sizes[i],
                             tensor_format_shape(n, sizes, sb, sizeof sb));
            return false;
        }
    if (n == t->ndim && memcmp(sizes, t->sizes, sizeof(int64_t) * (size_t)n) == 0)
        return true;                   /* same sizes: PyTorch keeps the strides */
    if (!tensor_checked_numel(n, sizes, dtype_size(t->dtype), &numel))
        return false;
    /* The storage grows when the new geometry needs more; the new elements
     * are zeros here (PyTorch leaves them uninitialized). Every alias of the
     * storage sees the reallocation, as in PyTorch. */
    size_t need = (size_t)(t->offset + numel) * dtype_size(t->dtype);
    if (numel > 0 && need > t->storage->nbytes) {
        void *grown = realloc(t->storage->data, need);
        if (!grown) {
            tensor_set_error("out of memory resizing a tensor to %zu bytes", need);
            return false;
        }
        memset((char *)grown + t->storage->nbytes, 0, need - t->storage->nbytes);
        t->storage->data = grown;
        t->storage->nbytes = need;
    }
    t->ndim = n;
    memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)n);
    tensor_contiguous_strides(n, sizes, t->strides);
    return true;
}
