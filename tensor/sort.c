/* sort.c — sort, argsort, topk and nonzero.
 *
 * Sorting works line by line along one dim: the input and both outputs are
 * viewed with that dim moved last, the input is read into a row-major array
 * (double for floating dtypes, int64 otherwise, so int64 keys compare
 * exactly), and each line's positions 0..n-1 are merge-sorted by key. The
 * merge sort is stable, so equal keys keep their original order whether or
 * not the caller asked for stability. NaN orders above every number, as in
 * PyTorch: last when ascending, first when descending.
 *
 * topk is the first k positions of the stable sort in the requested
 * direction; on ties it returns the lowest indices first. (PyTorch's CPU
 * topk uses a partial sort whose order among equal values is unspecified,
 * so the indices of tied values may differ from PyTorch's; the values never
 * do.) sorted=false returns the same order as sorted=true.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct SortKeys {
    const double *f;        /* floating keys, or NULL */
    const int64_t *i;       /* integer keys otherwise */
    bool descending;
} SortKeys;

/* Does position a come strictly before position b? */
static bool key_before(const SortKeys *k, int64_t a, int64_t b)
{
    if (k->f) {
        double x = k->f[a], y = k->f[b];
        bool xn = isnan(x), yn = isnan(y);
        if (k->descending)
            return (xn && !yn) || (!xn && !yn && x > y);
        return (!xn && yn) || (!xn && !yn && x < y);
    }
    return k->descending ? k->i[a] > k->i[b] : k->i[a] < k->i[b];
}

/* Stable merge sort of pos[0..n) by key; tmp has room for n entries. */
static void merge_sort(const SortKeys *k, int64_t *pos, int64_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    if (n <= 12) {                        /* insertion sort: stable, cheap for short runs */
        for (int64_t i = 1; i < n; i++) {
            int64_t p = pos[i], j = i;
            while (j > 0 && key_before(k, p, pos[j - 1])) {
                pos[j] = pos[j - 1];
                j--;
            }
            pos[j] = p;
        }
        return;
    }
    int64_t half = n / 2;
    merge_sort(k, pos, tmp, half);
    merge_sort(k, pos + half, tmp, n - half);
    int64_t a = 0, b = half, o = 0;
    while (a < half && b < n)
        tmp[o++] = key_before(k, pos[b], pos[a]) ? pos[b++] : pos[a++];
    while (a < half)
        tmp[o++] = pos[a++];
    while (b < n)
        tmp[o++] = pos[b++];
    memcpy(pos, tmp, (size_t)n * sizeof *pos);
}

/* Sorts every line of t along dim and writes the first `keep` entries of each
 * line into values/indices (either may be NULL), which have t's shape except
 * `keep` along dim. */
static bool sort_lines(const Tensor *t, int dim, bool descending, int64_t keep, Tensor *values, Tensor *indices)
{
    int64_t len = t->ndim == 0 ? 1 : t->sizes[dim];
    int64_t n = tensor_numel(t);
    int64_t lines = len > 0 ? n / len : 0;
    Tensor *src_view = kern_dim_last_view(t, dim);
    Tensor *val_view = values ? kern_dim_last_view(values, dim) : NULL;
    Tensor *idx_view = indices ? kern_dim_last_view(indices, dim) : NULL;
    bool is_float = dtype_is_float(t->dtype);
    double *fkeys = NULL, *fout = NULL;
    int64_t *ikeys = NULL, *iout = NULL;
    int64_t *pos = kern_malloc((size_t)len, sizeof *pos);
    int64_t *tmp = kern_malloc((size_t)len, sizeof *tmp);
    int64_t *idx_out = kern_malloc((size_t)(lines * keep), sizeof *idx_out);
    bool ok = src_view && (!values || val_view) && (!indices || idx_view) && pos && tmp && idx_out;
    if (ok && is_float) {
        fkeys = kern_read_all_f64(src_view);
        fout = kern_malloc((size_t)(lines * keep), sizeof *fout);
        ok = fkeys && fout;
    } else if (ok) {
        ikeys = kern_read_all_i64(src_view);
        iout = kern_malloc((size_t)(lines * keep), sizeof *iout);
        ok = ikeys && iout;
    }
    for (int64_t l = 0; ok && l < lines; l++) {
        SortKeys k = {fkeys ? fkeys + l * len : NULL, ikeys ? ikeys + l * len : NULL, descending};
        for (int64_t i = 0; i < len; i++)
            pos[i] = i;
        merge_sort(&k, pos, tmp, len);
        for (int64_t i = 0; i < keep; i++) {
            idx_out[l * keep + i] = pos[i];
            if (is_float)
                fout[l * keep + i] = k.f[pos[i]];
            else
                iout[l * keep + i] = k.i[pos[i]];
        }
    }
    if (ok && val_view) {
        if (is_float)
            kern_write_all_f64(val_view, fout);
        else
            kern_write_all_i64(val_view, iout);
    }
    if (ok && idx_view)
        kern_write_all_i64(idx_view, idx_out);
    free(fkeys);
    free(fout);
    free(ikeys);
    free(iout);
    free(pos);
    free(tmp);
    free(idx_out);
    tensor_release(src_view);
    tensor_release(val_view);
    tensor_release(idx_view);
    return ok;
}

bool tensor_sort(const Tensor *t, int64_t dim, bool descending, bool stable, Tensor **values, Tensor **indices)
{
    (void)stable;                /* always stable: see the file comment */
    *values = *indices = NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    *values = tensor_empty(t->dtype, t->ndim, t->sizes);
    *indices = tensor_empty(DT_I64, t->ndim, t->sizes);
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (*values && *indices && sort_lines(t, d, descending, len, *values, *indices))
        return true;
    tensor_release(*values);
    tensor_release(*indices);
    *values = *indices = NULL;
    return false;
}

Tensor *tensor_argsort(const Tensor *t, int64_t dim, bool descending, bool stable)
{
    (void)stable;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    Tensor *indices = tensor_empty(DT_I64, t->ndim, t->sizes);
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (indices && sort_lines(t, d, descending, len, NULL, indices))
        return indices;
    tensor_release(indices);
    return NULL;
}

bool tensor_topk(const Tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
                 Tensor **values, Tensor **indices)
{
    (void)sorted;                /* results are always sorted */
    *values = *indices = NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (k < 0 || k > len) {
        tensor_set_error("selected index k out of range");
        return false;
    }
    if (t->dtype == DT_BOOL) {
        tensor_set_error("\"topk_cpu\" not implemented for 'Bool'");
        return false;
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim > 0)
        sizes[d] = k;
    *values = tensor_empty(t->dtype, t->ndim, sizes);
    *indices = tensor_empty(DT_I64, t->ndim, sizes);
    /* a 0-d tensor is its own top element, even for k == 0 (as PyTorch) */
    int64_t keep = t->ndim == 0 ? 1 : k;
    if (*values && *indices && sort_lines(t, d, largest, keep, *values, *indices))
        return true;
    tensor_release(*values);
    tensor_release(*indices);
    *values = *indices = NULL;
    return false;
}

/* (count, ndim) int64 coordinates of the nonzero elements in row-major
 * order; a 0-d input gives (1, 0) or (0, 0). NaN counts as nonzero. */
Tensor *tensor_nonzero(const Tensor *t)
{
    int64_t n = tensor_numel(t);
    double *v = kern_read_all_f64(t);
    if (!v)
        return NULL;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += v[i] != 0.0;
    int64_t sizes[2] = {count, t->ndim};
    Tensor *out = tensor_empty(DT_I64, 2, sizes);
    if (!out) {
        free(v);
        return NULL;
    }
    int64_t *dst = tensor_data(out);
    int64_t coord[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (v[i] != 0.0) {
            memcpy(dst, coord, (size_t)t->ndim * sizeof *dst);
            dst += t->ndim;
        }
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++coord[d] < t->sizes[d])
                break;
            coord[d] = 0;
        }
    }
    free(v);
    return out;
}
