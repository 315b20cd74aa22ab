/* unique.c — torch.unique_consecutive: runs of equal elements (or equal
 * slices along a dim) collapse to one, with the inverse (which run each
 * element belongs to) and the run lengths.
 *
 * Without a dim the input is read flat; with one, the slices along it are
 * compared element by element (values compare as numbers: -0.0 equals 0.0,
 * NaN equals nothing, as in PyTorch). Integers compare exactly as int64.
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
