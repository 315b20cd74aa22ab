/* unique.c — torch.unique_consecutive and torch.unique (sorted).
 *
 * unique_consecutive: runs of equal elements (or equal
 * slices along a dim) collapse to one, with the inverse (which run each
 * element belongs to) and the run lengths.
 *
 * Without a dim the input is read flat; with one, the slices along it are
 * compared element by element (values compare as numbers: -0.0 equals 0.0,
 * NaN equals nothing, as in PyTorch). Integers compare exactly as int64.
 *
 * torch.unique sorts the elements (or slices, lexicographically) and keeps
 * one of each group of equal ones, which is what ATen returns when asked
 * for sorted output, and for slices along a dim always. (Unsorted flat
 * output comes in the order of ATen's hash set, which is not reproduced:
 * the binding refuses it when it matters.)
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Slice i and j (each `len` elements of the contiguous moved tensor) equal? */
static bool slices_equal(const Tensor *t, int64_t i, int64_t j, int64_t len)
{
    bool ints = !dtype_is_float(t->dtype);
    for (int64_t k = 0; k < len; k++) {
        if (ints ? tensor_get_flat_int(t, i * len + k) != tensor_get_flat_int(t, j * len + k)
                 : !(tensor_get_flat(t, i * len + k) == tensor_get_flat(t, j * len + k)))
            return false;
    }
    return true;
}

static Tensor *int64_vector(int64_t n)
{
    return tensor_empty(DT_I64, 1, &n);
}

bool tensor_unique_consecutive(const Tensor *x, bool return_inverse, bool return_counts,
                               bool has_dim, int64_t dim, Tensor **values, Tensor **inverse,
                               Tensor **counts)
{
    *values = *inverse = *counts = NULL;
    int d = 0;
    Tensor *moved;
    if (has_dim) {
        if (x->ndim == 0) {
            tensor_set_error("unique_consecutive: dim %" PRId64 " is out of range for a 0-d tensor", dim);
            return false;
        }
        d = tensor_wrap_dim(dim, x->ndim);
        if (d < 0)
            return false;
        Tensor *front = tensor_transpose((Tensor *)x, 0, d);
        moved = front ? tensor_clone(front) : NULL;
        tensor_release(front);
    } else {
        int64_t numel = tensor_numel(x);
        Tensor *flat = tensor_clone(x);
        moved = flat ? tensor_reshape(flat, 1, &numel) : NULL;
        tensor_release(flat);
    }
    if (!moved)
        return false;
    int64_t rows = moved->ndim ? moved->sizes[0] : 1;
    int64_t len = rows ? tensor_numel(moved) / rows : 0;
    int64_t *run_of = kern_malloc((size_t)(rows ? rows : 1), sizeof *run_of);
    int64_t *first = kern_malloc((size_t)(rows ? rows : 1), sizeof *first);
    bool ok = run_of && first;
    int64_t runs = 0;
    for (int64_t i = 0; ok && i < rows; i++) {
        if (i == 0 || !slices_equal(moved, first[runs - 1], i, len))
            first[runs++] = i;
        run_of[i] = runs - 1;
    }
    if (ok) {
        /* The first slice of each run, in order, along the original dim. */
        Tensor *index = int64_vector(runs);
        ok = index != NULL;
        for (int64_t r = 0; ok && r < runs; r++)
            tensor_set_flat_int(index, r, first[r]);
        Tensor *picked = ok ? tensor_index_select(moved, 0, index) : NULL;
        tensor_release(index);
        if (picked && has_dim) {
            Tensor *back = tensor_transpose(picked, 0, d);
            *values = back ? tensor_clone(back) : NULL;
            tensor_release(back);
            tensor_release(picked);
        } else {
            *values = picked;
        }
        ok = *values != NULL;
    }
    if (ok) {
        /* The inverse has the input's shape without a dim, the dim's size with one. */
        *inverse = return_inverse ? (has_dim ? int64_vector(rows) : tensor_empty(DT_I64, x->ndim, x->sizes))
                                  : int64_vector(0);
        *counts = int64_vector(return_counts ? runs : 0);
        ok = *inverse && *counts;
        for (int64_t i = 0; ok && return_inverse && i < rows; i++)
            tensor_set_flat_int(*inverse, i, run_of[i]);
        for (int64_t r = 0; ok && return_counts && r < runs; r++)
            tensor_set_flat_int(*counts, r, (r + 1 < runs ? first[r + 1] : rows) - first[r]);
    }
    free(run_of);
    free(first);
    tensor_release(moved);
    if (!ok) {
        tensor_release(*values);
        tensor_release(*inverse);
        tensor_release(*counts);
        *values = *inverse = *counts = NULL;
    }
    return ok;
}

/* ---------------------------------------------------------------- torch.unique */

typedef struct SliceOrder {
    const double *f;        /* floating rows, or NULL */
    const int64_t *i;       /* integer rows otherwise */
    int64_t len;            /* elements per row */
} SliceOrder;

/* -1, 0, 1: row a against row b, element by element with < and > (ATen's
 * comparator; NaN compares as neither, so it ties). */
static int compare_rows(const SliceOrder *o, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < o->len; k++) {
        if (o->f) {
            double x = o->f[a * o->len + k], y = o->f[b * o->len + k];
            if (x < y)
                return -1;
            if (x > y)
                return 1;
        } else {
            int64_t x = o->i[a * o->len + k], y = o->i[b * o->len + k];
            if (x < y)
                return -1;
            if (x > y)
                return 1;
        }
    }
    return 0;
}

/* Rows equal as at::equal sees them (NaN differs from everything). */
static bool rows_equal(const SliceOrder *o, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < o->len; k++) {
        if (o->f ? !(o->f[a * o->len + k] == o->f[b * o->len + k]) : o->i[a * o->len + k] != o->i[b * o->len + k])
            return false;
    }
    return true;
}

/* Stable merge sort of row positions by compare_rows. */
static void sort_rows(const SliceOrder *o, int64_t *pos, int64_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    int64_t half = n / 2;
    sort_rows(o, pos, tmp, half);
    sort_rows(o, pos + half, tmp, n - half);
    int64_t a = 0, b = half, out = 0;
    while (a < half && b < n)
        tmp[out++] = compare_rows(o, pos[b], pos[a]) < 0 ? pos[b++] : pos[a++];
    while (a < half)
        tmp[out++] = pos[a++];
    while (b < n)
        tmp[out++] = pos[b++];
    memcpy(pos, tmp, (size_t)n * sizeof *pos);
}

/* torch.unique, sorted: the distinct elements (flat) or distinct slices
 * along dim in ascending (lexicographic) order, the inverse (which of them
 * each element or slice is) and the counts. Without a dim the inverse has
 * the input's shape and is filled when either the inverse or the counts are
 * asked for (as ATen's _unique2); with a dim it has the dim's length. */
bool tensor_unique_sorted(const Tensor *x, bool has_dim, int64_t dim, bool return_inverse, bool return_counts,
                          Tensor **values, Tensor **inverse, Tensor **counts)
{
    *values = *inverse = *counts = NULL;
    int d = 0;
    Tensor *moved;
    if (has_dim) {
        d = tensor_wrap_dim(dim, x->ndim);
        if (d < 0)
            return false;
        Tensor *front = tensor_transpose((Tensor *)x, 0, d);
        moved = front ? tensor_clone(front) : NULL;
        tensor_release(front);
    } else {
        int64_t numel = tensor_numel(x);
        Tensor *flat = tensor_clone(x);
        moved = flat ? tensor_reshape(flat, 1, &numel) : NULL;
        tensor_release(flat);
    }
    if (!moved)
        return false;
    int64_t rows = moved->sizes[0];
    int64_t len = rows ? tensor_numel(moved) / rows : 0;
    SliceOrder o = {NULL, NULL, len};
    double *f = NULL;
    int64_t *iv = NULL;
    if (dtype_is_float(x->dtype))
        o.f = f = kern_read_all_f64(moved);
    else
        o.i = iv = kern_read_all_i64(moved);
    size_t cap = (size_t)(rows ? rows : 1);
    int64_t *pos = kern_malloc(cap, sizeof *pos), *tmp = kern_malloc(cap, sizeof *tmp);
    int64_t *group = kern_malloc(cap, sizeof *group), *first = kern_malloc(cap, sizeof *first);
    int64_t *size = kern_malloc(cap, sizeof *size);
    bool ok = (f || iv) && pos && tmp && group && first && size;
    int64_t groups = 0;
    if (ok) {
        for (int64_t r = 0; r < rows; r++)
            pos[r] = r;
        sort_rows(&o, pos, tmp, rows);
        for (int64_t r = 0; r < rows; r++) {
            if (r == 0 || !rows_equal(&o, first[groups - 1], pos[r])) {
                first[groups] = pos[r];
                size[groups++] = 0;
            }
            group[pos[r]] = groups - 1;
            size[groups - 1]++;
        }
        Tensor *index = int64_vector(groups);
        ok = index != NULL;
        for (int64_t g = 0; ok && g < groups; g++)
            tensor_set_flat_int(index, g, first[g]);
        Tensor *picked = ok ? tensor_index_select(moved, 0, index) : NULL;
        tensor_release(index);
        if (picked && has_dim) {
            Tensor *back = tensor_transpose(picked, 0, d);
            *values = back ? tensor_clone(back) : NULL;
            tensor_release(back);
            tensor_release(picked);
        } else {
            *values = picked;
        }
        ok = *values != NULL;
    }
    if (ok) {
        bool fill_inverse = has_dim ? return_inverse : return_inverse || return_counts;
        *inverse = !fill_inverse ? int64_vector(0)
                   : has_dim     ? int64_vector(rows)
                                 : tensor_empty(DT_I64, x->ndim, x->sizes);
        *counts = int64_vector(return_counts ? groups : 0);
        ok = *inverse && *counts;
        for (int64_t r = 0; ok && fill_inverse && r < rows; r++)
            tensor_set_flat_int(*inverse, r, group[r]);
        for (int64_t g = 0; ok && return_counts && g < groups; g++)
            tensor_set_flat_int(*counts, g, size[g]);
    }
    free(f);
    free(iv);
    free(pos);
    free(tmp);
    free(group);
    free(first);
    free(size);
    tensor_release(moved);
    if (!ok) {
        tensor_release(*values);
        tensor_release(*inverse);
        tensor_release(*counts);
        *values = *inverse = *counts = NULL;
    }
    return ok;
}
