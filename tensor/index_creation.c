/* index_creation.c — ops that enumerate positions: tril_indices and
 * triu_indices (the coordinates of a triangle, row-major), combinations and
 * cartesian_prod (tuples of elements, in lexicographic order of their
 * positions), argwhere (nonzero), repeat_interleave (which repeats
 * positions, then selects them), and one_hot (a class index to the
 * position of its 1).
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- triangles */

/* In row r of a row x col matrix, the columns [lo, hi) of the triangle. */
static void triangle_columns(bool lower, int64_t r, int64_t col, int64_t offset, int64_t *lo, int64_t *hi)
{
    int64_t a = lower ? 0 : r + offset, b = lower ? r + offset + 1 : col;
    *lo = a < 0 ? 0 : a > col ? col : a;
    *hi = b < 0 ? 0 : b > col ? col : b;
    if (*hi < *lo)
        *hi = *lo;
}

static Tensor *triangle_indices(bool lower, int64_t row, int64_t col, int64_t offset, TensorDType dt)
{
    const char *name = lower ? "tril_indices" : "triu_indices";
    if (row < 0 || col < 0) {
        tensor_set_error("%s must be non-negative, got%" PRId64, row < 0 ? "row" : "col", row < 0 ? row : col);
        return NULL;
    }
    if (dt != DT_I64 && dt != DT_I32) {
        tensor_set_error("\"%s\" not implemented for '%s'", name, dtype_ts_name(dt));
        return NULL;
    }
    int64_t count = 0, lo, hi;
    for (int64_t r = 0; r < row; r++) {
        triangle_columns(lower, r, col, offset, &lo, &hi);
        count += hi - lo;
    }
    int64_t sizes[2] = {2, count};
    Tensor *out = tensor_empty(dt, 2, sizes);
    int64_t k = 0;
    for (int64_t r = 0; out && r < row; r++) {
        triangle_columns(lower, r, col, offset, &lo, &hi);
        for (int64_t c = lo; c < hi; c++, k++) {
            tensor_set_flat_int(out, k, r);
            tensor_set_flat_int(out, count + k, c);
        }
    }
    return out;
}

Tensor *tensor_tril_indices(int64_t row, int64_t col, int64_t offset, TensorDType dt)
{
    return triangle_indices(true, row, col, offset, dt);
}

Tensor *tensor_triu_indices(int64_t row, int64_t col, int64_t offset, TensorDType dt)
{
    return triangle_indices(false, row, col, offset, dt);
}

/* ---------------------------------------------------------------- tuples */

/* A (count, r) tensor of t's elements: row k holds t[pos[k * r + j]]. */
static Tensor *rows_of_positions(const Tensor *t, const int64_t *pos, int64_t count, int64_t r)
{
    int64_t flat_len = count * r;
    Tensor *idx = tensor_empty(DT_I64, 1, &flat_len);
    if (!idx)
        return NULL;
    if (flat_len > 0)
        memcpy(tensor_data(idx), pos, (size_t)flat_len * sizeof *pos);
    Tensor *flat = tensor_index_select(t, 0, idx);
    tensor_release(idx);
    int64_t sizes[2] = {count, r};
    Tensor *out = flat ? tensor_reshape(flat, 2, sizes) : NULL;
    tensor_release(flat);
    return out;
}

Tensor *tensor_combinations(const Tensor *t, int64_t r, bool with_replacement)
{
    char sb[TENSOR_SHAPE_BUF];
    if (t->ndim != 1) {
        tensor_set_error("Expect a 1D vector, but got shape %s", tensor_format_shape(t->ndim, t->sizes, sb, sizeof sb));
        return NULL;
    }
    if (r < 0) {
        tensor_set_error("Expect a non-negative number, but got %" PRId64, r);
        return NULL;
    }
    if (r == 0) {
        int64_t zero = 0;
        return tensor_empty(t->dtype, 1, &zero);
    }
    int64_t n = t->sizes[0];
    if (r > TENSOR_MAX_DIMS) {
        tensor_set_error("combinations: r = %" PRId64 " is more than the %d dims supported", r, TENSOR_MAX_DIMS);
        return NULL;
    }
    /* Every non-decreasing (with replacement) or increasing tuple of
     * positions, in lexicographic order: an odometer over r digits. */
    int64_t count = 0, cap = 16;
    int64_t *pos = kern_malloc((size_t)(cap * r), sizeof *pos);
    int64_t digit[TENSOR_MAX_DIMS];
    for (int64_t j = 0; j < r; j++)
        digit[j] = with_replacement ? 0 : j;
    bool more = pos && (with_replacement ? n > 0 : r <= n);
    while (more) {
        if (count == cap) {
            cap *= 2;
            int64_t *grown = realloc(pos, (size_t)(cap * r) * sizeof *pos);
            if (!grown) {
                free(pos);
                tensor_set_error("combinations: out of memory");
                return NULL;
            }
            pos = grown;
        }
        memcpy(pos + count * r, digit, (size_t)r * sizeof *digit);
        count++;
        /* The rightmost digit that can still grow, then its successors
         * restart as low as the order allows. */
        int64_t j = r - 1;
        while (j >= 0 && digit[j] >= (with_replacement ? n - 1 : n - r + j))
            j--;
        if (j < 0)
            break;
        digit[j]++;
        for (int64_t k = j + 1; k < r; k++)
            digit[k] = with_replacement ? digit[j] : digit[k - 1] + 1;
    }
    Tensor *out = pos ? rows_of_positions(t, pos, count, r) : NULL;
    free(pos);
    return out;
}

Tensor *tensor_cartesian_prod(Tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim != 1) {
            tensor_set_error("Expect a 1D vector, but got shape [%d dims]", ts[i]->ndim);
            return NULL;
        }
    if (n == 1)
        return tensor_clone(ts[0]);
    /* meshgrid(ij), each grid flattened into a column. */
    Tensor **grids = kern_malloc((size_t)n, sizeof *grids);
    Tensor **cols = grids ? kern_malloc((size_t)n, sizeof *cols) : NULL;
    if (!cols) {
        free(grids);
        return NULL;
    }
    Tensor *out = NULL;
    if (tensor_meshgrid(ts, n, false, grids)) {
        int ok = 0;
        int64_t all = -1;
        for (int i = 0; i < n; i++) {
            cols[i] = tensor_reshape(grids[i], 1, &all);
            ok += cols[i] != NULL;
        }
        if (ok == n)
            out = tensor_stack(cols, n, 1);
        for (int i = 0; i < n; i++) {
            tensor_release(cols[i]);
            tensor_release(grids[i]);
        }
    }
    free(cols);
    free(grids);
    return out;
}

Tensor *tensor_argwhere(const Tensor *t)
{
    return tensor_nonzero(t);
}

/* ---------------------------------------------------------------- repeat_interleave */

Tensor *tensor_repeat_interleave_index(const Tensor *repeats, int64_t output_size)
{
    if (repeats->ndim != 1) {
        tensor_set_error("repeat_interleave only accept 1D vector as repeat");
        return NULL;
    }
    if (repeats->dtype != DT_I64 && repeats->dtype != DT_I32) {
        tensor_set_error("\"repeat_interleave_cpu\" not implemented for '%s'", dtype_ts_name(repeats->dtype));
        return NULL;
    }
    int64_t *reps = kern_read_all_i64(repeats);
    if (!reps)
        return NULL;
    int64_t n = repeats->sizes[0], total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (reps[i] < 0) {
            tensor_set_error("repeats can not be negative");
            free(reps);
            return NULL;
        }
        total += reps[i];
    }
    if (output_size >= 0 && output_size != total) {
        tensor_set_error("allocated size does not match required size");
        free(reps);
        return NULL;
    }
    Tensor *out = tensor_empty(repeats->dtype, 1, &total);
    for (int64_t i = 0, k = 0; out && i < n; i++)
        for (int64_t j = 0; j < reps[i]; j++)
            tensor_set_flat_int(out, k++, i);
    free(reps);
    return out;
}

Tensor *tensor_repeat_interleave(const Tensor *t, const Tensor *repeats, bool has_dim, int64_t dim,
                                 int64_t output_size)
{
    Tensor *input;
    int d = 0;
    int64_t all = -1;
    if (has_dim) {
        d = tensor_wrap_dim(dim, t->ndim);
        if (d < 0)
            return NULL;
        input = tensor_retain((Tensor *)t);
    } else {
        input = tensor_reshape((Tensor *)t, 1, &all);
        if (!input)
            return NULL;
    }
    Tensor *reps = NULL;
    if (repeats->ndim == 0 || (repeats->ndim == 1 && repeats->sizes[0] == 1)) {
        /* One count for every position along dim. */
        int64_t len = input->sizes[d];
        reps = tensor_expand((Tensor *)repeats, 1, &len);
    } else if (repeats->ndim == 1 && repeats->sizes[0] != input->sizes[d]) {
        tensor_set_error("repeats must have the same size as input along dim");
    } else if (repeats->ndim > 1) {
        tensor_set_error("repeats must be 0-dim or 1-dim tensor");
    } else {
        reps = tensor_retain((Tensor *)repeats);
    }
    Tensor *index = reps ? tensor_repeat_interleave_index(reps, output_size) : NULL;
    Tensor *index64 = index ? tensor_to_dtype(index, DT_I64) : NULL;
    Tensor *out = index64 ? tensor_index_select(input, d, index64) : NULL;
    tensor_release(index64);
    tensor_release(index);
    tensor_release(reps);
    tensor_release(input);
    return out;
}

/* ---------------------------------------------------------------- one_hot */

/* F.one_hot: position v[i] of row i set, for class indices v. */
Tensor *tensor_one_hot(const Tensor *indices, int64_t num_classes)
{
    if (indices->dtype != DT_I64) {
        tensor_set_error("one_hot is only applicable to index tensor.");
        return NULL;
    }
    int64_t n = tensor_numel(indices);
    int64_t *v = kern_read_all_i64(indices);
    if (!v)
        return NULL;
    int64_t lo = 0, hi = -1;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || v[i] < lo)
            lo = v[i];
        if (i == 0 || v[i] > hi)
            hi = v[i];
    }
    if (num_classes == -1) {
        if (n == 0) {
            free(v);
            tensor_set_error("Can not infer total number of classes from empty tensor.");
            return NULL;
        }
        num_classes = hi + 1;
    }
    if (n > 0 && lo < 0) {
        free(v);
        tensor_set_error("Class values must be non-negative.");
        return NULL;
    }
    if (n > 0 && hi >= num_classes) {
        free(v);
        tensor_set_error("Class values must be smaller than num_classes.");
        return NULL;
    }
    int64_t shape[TENSOR_MAX_DIMS];
    memcpy(shape, indices->sizes, sizeof(int64_t) * (size_t)indices->ndim);
    shape[indices->ndim] = num_classes;
    Tensor *out = tensor_zeros(DT_I64, indices->ndim + 1, shape);
    if (out)
        for (int64_t i = 0; i < n; i++)
            tensor_write_i64(out, out->offset + i * num_classes + v[i], 1);
    free(v);
    return out;
}
