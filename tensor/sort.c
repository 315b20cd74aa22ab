/* sort.c — sort, argsort, msort, topk, kthvalue, median, nanmedian, mode
 * and nonzero.
 *
 * Order statistics work line by line along one dim: the input is viewed
 * with that dim moved last and read into a row-major array (double for
 * floating dtypes, int64 otherwise, so int64 keys compare exactly). Each
 * line is ordered through an array of positions 0..n-1.
 *
 * Which element of a run of equal keys lands where is part of PyTorch's
 * result (the indices), and PyTorch's CPU kernels leave that to the C++
 * standard library: sort(stable=False) calls std::sort, topk std::nth_element
 * / std::partial_sort, mode std::sort, median std::nth_element, kthvalue
 * its own quickselect (ATen's SortingUtils.h quick_select_template). So the
 * algorithms of libstdc++ (GCC's bits/stl_algo.h and bits/stl_heap.h:
 * introsort with median-of-three pivots, a depth limit of 2*floor(log2 n)
 * falling back to heapsort, and a final insertion sort over runs of 16;
 * introselect; heap select) are reproduced step for step below: given the
 * same comparisons they move elements exactly as the library does, so ties
 * come out in PyTorch's order. sort(stable=True) is a stable merge sort
 * (every stable sort gives the same order).
 *
 * NaN orders above every number, as in PyTorch: last when ascending, first
 * when descending.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- comparisons */

typedef enum OrderKind {
    ORD_ASCENDING,      /* sort/topk: a < b, NaN largest */
    ORD_DESCENDING,     /* sort/topk/kthvalue: a > b, NaN largest */
    ORD_PLAIN_LESS,     /* mode: a < b as C++ compares (NaN unordered) */
    ORD_MEDIAN,         /* median along a dim: value, then position */
    ORD_NANMEDIAN,      /* the same with NaN after every number */
} OrderKind;

typedef struct Order {
    const double *f;        /* floating keys of the line, or NULL */
    const int64_t *i;       /* integer keys otherwise */
    OrderKind kind;
} Order;

/* The comparator of `kind` applied to the elements at positions a and b. */
static bool ord_less(const Order *o, int64_t a, int64_t b)
{
    if (o->f) {
        double x = o->f[a], y = o->f[b];
        switch (o->kind) {
        case ORD_ASCENDING: return (!isnan(x) && isnan(y)) || x < y;
        case ORD_DESCENDING: return (isnan(x) && !isnan(y)) || x > y;
        case ORD_PLAIN_LESS: return x < y;
        case ORD_MEDIAN: return x < y || (x == y && a < b);
        case ORD_NANMEDIAN: return x < y || (x == y && a < b) || (isnan(y) && !isnan(x));
        }
        return false;
    }
    int64_t x = o->i[a], y = o->i[b];
    switch (o->kind) {
    case ORD_ASCENDING: case ORD_PLAIN_LESS: return x < y;
    case ORD_DESCENDING: return x > y;
    case ORD_MEDIAN: case ORD_NANMEDIAN: return x < y || (x == y && a < b);
    }
    return false;
}

/* ---------------------------------------------------------------- libstdc++'s algorithms */

enum { STD_SORT_THRESHOLD = 16 };   /* libstdc++'s _S_threshold */

static int64_t floor_log2(int64_t n)
{
    int64_t k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

static void swap_pos(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

/* std::__unguarded_linear_insert */
static void std_unguarded_linear_insert(const Order *o, int64_t *last)
{
    int64_t val = *last;
    int64_t *next = last - 1;
    while (ord_less(o, val, *next)) {
        *last = *next;
        last = next;
        --next;
    }
    *last = val;
}

/* std::__insertion_sort */
static void std_insertion_sort(const Order *o, int64_t *first, int64_t *last)
{
    if (first == last)
        return;
    for (int64_t *i = first + 1; i != last; ++i) {
        if (ord_less(o, *i, *first)) {
            int64_t val = *i;
            memmove(first + 1, first, (size_t)(i - first) * sizeof *first);
            *first = val;
        } else {
            std_unguarded_linear_insert(o, i);
        }
    }
}

/* std::__final_insertion_sort */
static void std_final_insertion_sort(const Order *o, int64_t *first, int64_t *last)
{
    if (last - first > STD_SORT_THRESHOLD) {
        std_insertion_sort(o, first, first + STD_SORT_THRESHOLD);
        for (int64_t *i = first + STD_SORT_THRESHOLD; i != last; ++i)
            std_unguarded_linear_insert(o, i);
    } else {
        std_insertion_sort(o, first, last);
    }
}

/* std::__move_median_to_first */
static void std_move_median_to_first(const Order *o, int64_t *result, int64_t *a, int64_t *b, int64_t *c)
{
    if (ord_less(o, *a, *b)) {
        if (ord_less(o, *b, *c))
            swap_pos(result, b);
        else if (ord_less(o, *a, *c))
            swap_pos(result, c);
        else
            swap_pos(result, a);
    } else if (ord_less(o, *a, *c)) {
        swap_pos(result, a);
    } else if (ord_less(o, *b, *c)) {
        swap_pos(result, c);
    } else {
        swap_pos(result, b);
    }
}

/* std::__unguarded_partition */
static int64_t *std_unguarded_partition(const Order *o, int64_t *first, int64_t *last, int64_t *pivot)
{
    for (;;) {
        while (ord_less(o, *first, *pivot))
            ++first;
        --last;
        while (ord_less(o, *pivot, *last))
            --last;
        if (!(first < last))
            return first;
        swap_pos(first, last);
        ++first;
    }
}

/* std::__unguarded_partition_pivot */
static int64_t *std_partition_pivot(const Order *o, int64_t *first, int64_t *last)
{
    int64_t *mid = first + (last - first) / 2;
    std_move_median_to_first(o, first, first + 1, mid, last - 1);
    return std_unguarded_partition(o, first + 1, last, first);
}

/* std::__adjust_heap followed by std::__push_heap */
static void std_adjust_heap(const Order *o, int64_t *first, int64_t hole, int64_t len, int64_t value)
{
    int64_t top = hole, second = hole;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (ord_less(o, first[second], first[second - 1]))
            second--;
        first[hole] = first[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        first[hole] = first[second - 1];
        hole = second - 1;
    }
    int64_t parent = (hole - 1) / 2;
    while (hole > top && ord_less(o, first[parent], value)) {
        first[hole] = first[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    first[hole] = value;
}

/* std::__make_heap */
static void std_make_heap(const Order *o, int64_t *first, int64_t *last)
{
    int64_t len = last - first;
    if (len < 2)
        return;
    for (int64_t parent = (len - 2) / 2;; parent--) {
        std_adjust_heap(o, first, parent, len, first[parent]);
        if (parent == 0)
            return;
    }
}

/* std::__pop_heap */
static void std_pop_heap(const Order *o, int64_t *first, int64_t *last, int64_t *result)
{
    int64_t value = *result;
    *result = *first;
    std_adjust_heap(o, first, 0, last - first, value);
}

/* std::__heap_select */
static void std_heap_select(const Order *o, int64_t *first, int64_t *middle, int64_t *last)
{
    std_make_heap(o, first, middle);
    for (int64_t *i = middle; i < last; ++i)
        if (ord_less(o, *i, *first))
            std_pop_heap(o, first, middle, i);
}

/* std::partial_sort */
static void std_partial_sort(const Order *o, int64_t *first, int64_t *middle, int64_t *last)
{
    std_heap_select(o, first, middle, last);
    while (middle - first > 1) {
        --middle;
        std_pop_heap(o, first, middle, middle);
    }
}

/* std::__introsort_loop */
static void std_introsort_loop(const Order *o, int64_t *first, int64_t *last, int64_t depth_limit)
{
    while (last - first > STD_SORT_THRESHOLD) {
        if (depth_limit == 0) {
            std_partial_sort(o, first, last, last);
            return;
        }
        --depth_limit;
        int64_t *cut = std_partition_pivot(o, first, last);
        std_introsort_loop(o, cut, last, depth_limit);
        last = cut;
    }
}

/* std::sort */
static void std_sort(const Order *o, int64_t *first, int64_t *last)
{
    if (first == last)
        return;
    std_introsort_loop(o, first, last, floor_log2(last - first) * 2);
    std_final_insertion_sort(o, first, last);
}

/* std::nth_element (std::__introselect) */
static void std_nth_element(const Order *o, int64_t *first, int64_t *nth, int64_t *last)
{
    if (first == last || nth == last)
        return;
    int64_t depth_limit = floor_log2(last - first) * 2;
    while (last - first > 3) {
        if (depth_limit == 0) {
            std_heap_select(o, first, nth + 1, last);
            swap_pos(first, nth);
            return;
        }
        --depth_limit;
        int64_t *cut = std_partition_pivot(o, first, last);
        if (cut <= nth)
            first = cut;
        else
            last = cut;
    }
    std_insertion_sort(o, first, last);
}

/* Stable merge sort of pos[0..n) (tmp has room for n entries). */
static void stable_sort(const Order *o, int64_t *pos, int64_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    if (n <= 12) {                        /* insertion sort: stable, cheap for short runs */
        for (int64_t i = 1; i < n; i++) {
            int64_t p = pos[i], j = i;
            while (j > 0 && ord_less(o, p, pos[j - 1])) {
                pos[j] = pos[j - 1];
                j--;
            }
            pos[j] = p;
        }
        return;
    }
    int64_t half = n / 2;
    stable_sort(o, pos, tmp, half);
    stable_sort(o, pos + half, tmp, n - half);
    int64_t a = 0, b = half, out = 0;
    while (a < half && b < n)
        tmp[out++] = ord_less(o, pos[b], pos[a]) ? pos[b++] : pos[a++];
    while (a < half)
        tmp[out++] = pos[a++];
    while (b < n)
        tmp[out++] = pos[b++];
    memcpy(pos, tmp, (size_t)n * sizeof *pos);
}

/* ATen's quick_select_template (SortingUtils.h), as kthvalue runs it with
 * the "greater or NaN" comparison: afterwards pos[k] holds the k-th
 * smallest element. */
static void aten_quick_select(const Order *gt, int64_t *pos, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    for (;;) {
        if (hi <= lo)
            return;
        if (hi == lo + 1) {
            if (ord_less(gt, pos[lo], pos[hi]))
                swap_pos(&pos[lo], &pos[hi]);
            return;
        }
        int64_t mid = lo + (hi - lo) / 2;
        swap_pos(&pos[mid], &pos[lo + 1]);
        if (ord_less(gt, pos[lo + 1], pos[hi]))
            swap_pos(&pos[lo + 1], &pos[hi]);
        if (ord_less(gt, pos[lo], pos[hi]))
            swap_pos(&pos[lo], &pos[hi]);
        if (ord_less(gt, pos[lo + 1], pos[lo]))
            swap_pos(&pos[lo + 1], &pos[lo]);
        int64_t i = lo + 1, j = hi, pivot = pos[lo];
        for (;;) {
            do
                i++;
            while (ord_less(gt, pivot, pos[i]));
            do
                j--;
            while (ord_less(gt, pos[j], pivot));
            if (j < i)
                break;
            swap_pos(&pos[i], &pos[j]);
        }
        swap_pos(&pos[lo], &pos[j]);
        if (j <= k)
            lo = i;
        if (j >= k)
            hi = j - 1;
    }
}

/* ---------------------------------------------------------------- lines */

/* The lines of t along dim, row-major (dim moved last). */
typedef struct Lines {
    int64_t count, len;
    double *f;              /* floating dtypes */
    int64_t *i;             /* integers and bool */
} Lines;

static bool lines_read(const Tensor *t, int dim, Lines *L)
{
    L->len = t->ndim == 0 ? 1 : t->sizes[dim];
    L->count = L->len > 0 ? tensor_numel(t) / L->len : 0;
    L->f = NULL;
    L->i = NULL;
    Tensor *view = kern_dim_last_view(t, dim);
    if (!view)
        return false;
    if (dtype_is_float(t->dtype))
        L->f = kern_read_all_f64(view);
    else
        L->i = kern_read_all_i64(view);
    tensor_release(view);
    return L->f || L->i;
}

static void lines_free(Lines *L)
{
    free(L->f);
    free(L->i);
}

static Order line_order(const Lines *L, int64_t line, OrderKind kind)
{
    Order o = {L->f ? L->f + line * L->len : NULL, L->i ? L->i + line * L->len : NULL, kind};
    return o;
}

/* Orders one line's positions pos[0..len) (tmp: scratch of len entries). */
typedef void (*OrderLineFn)(const Order *o, int64_t *pos, int64_t *tmp, int64_t len, const void *arg);

/* Orders every line of t along dim with fn and writes the first `keep`
 * entries of each into values/indices (either may be NULL), which have t's
 * shape except `keep` along dim. */
static bool order_lines(const Tensor *t, int dim, OrderKind kind, OrderLineFn fn, const void *arg,
                        int64_t keep, Tensor *values, Tensor *indices)
{
    Lines L;
    if (!lines_read(t, dim, &L))
        return false;
    Tensor *val_view = values ? kern_dim_last_view(values, dim) : NULL;
    Tensor *idx_view = indices ? kern_dim_last_view(indices, dim) : NULL;
    int64_t *pos = kern_malloc((size_t)L.len, sizeof *pos);
    int64_t *tmp = kern_malloc((size_t)L.len, sizeof *tmp);
    int64_t *idx_out = kern_malloc((size_t)(L.count * keep), sizeof *idx_out);
    double *fout = L.f ? kern_malloc((size_t)(L.count * keep), sizeof *fout) : NULL;
    int64_t *iout = L.i ? kern_malloc((size_t)(L.count * keep), sizeof *iout) : NULL;
    bool ok = (!values || val_view) && (!indices || idx_view) && pos && tmp && idx_out && (fout || iout);
    for (int64_t l = 0; ok && l < L.count; l++) {
        Order o = line_order(&L, l, kind);
        for (int64_t i = 0; i < L.len; i++)
            pos[i] = i;
        fn(&o, pos, tmp, L.len, arg);
        for (int64_t i = 0; i < keep; i++) {
            idx_out[l * keep + i] = pos[i];
            if (fout)
                fout[l * keep + i] = o.f[pos[i]];
            else
                iout[l * keep + i] = o.i[pos[i]];
        }
    }
    if (ok && val_view) {
        if (fout)
            kern_write_all_f64(val_view, fout);
        else
            kern_write_all_i64(val_view, iout);
    }
    if (ok && idx_view)
        kern_write_all_i64(idx_view, idx_out);
    lines_free(&L);
    free(fout);
    free(iout);
    free(pos);
    free(tmp);
    free(idx_out);
    tensor_release(val_view);
    tensor_release(idx_view);
    return ok;
}

static void line_std_sort(const Order *o, int64_t *pos, int64_t *tmp, int64_t len, const void *arg)
{
    (void)tmp;
    (void)arg;
    std_sort(o, pos, pos + len);
}

static void line_stable_sort(const Order *o, int64_t *pos, int64_t *tmp, int64_t len, const void *arg)
{
    (void)arg;
    stable_sort(o, pos, tmp, len);
}

/* ---------------------------------------------------------------- sort, argsort, msort */

bool tensor_sort(const Tensor *t, int64_t dim, bool descending, bool stable, Tensor **values, Tensor **indices)
{
    *values = *indices = NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    *values = tensor_empty(t->dtype, t->ndim, t->sizes);
    *indices = tensor_empty(DT_I64, t->ndim, t->sizes);
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (*values && *indices &&
        order_lines(t, d, descending ? ORD_DESCENDING : ORD_ASCENDING,
                    stable ? line_stable_sort : line_std_sort, NULL, len, *values, *indices))
        return true;
    tensor_release(*values);
    tensor_release(*indices);
    *values = *indices = NULL;
    return false;
}

Tensor *tensor_argsort(const Tensor *t, int64_t dim, bool descending, bool stable)
{
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return NULL;
    Tensor *indices = tensor_empty(DT_I64, t->ndim, t->sizes);
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (indices && order_lines(t, d, descending ? ORD_DESCENDING : ORD_ASCENDING,
                               stable ? line_stable_sort : line_std_sort, NULL, len, NULL, indices))
        return indices;
    tensor_release(indices);
    return NULL;
}

Tensor *tensor_msort(const Tensor *t)
{
    Tensor *values, *indices;
    if (!tensor_sort(t, 0, false, false, &values, &indices))
        return NULL;
    tensor_release(indices);
    return values;
}

/* ---------------------------------------------------------------- topk */

typedef struct TopkArgs {
    int64_t k;
    bool sorted;
} TopkArgs;

/* ATen's topk_impl_loop: a partial sort when k is small against the line,
 * else nth_element and (sorted) a sort of the first k - 1. */
static void line_topk(const Order *o, int64_t *pos, int64_t *tmp, int64_t len, const void *arg)
{
    (void)tmp;
    const TopkArgs *a = arg;
    if (a->k == 0)
        return;
    if (a->k * 64 <= len) {
        std_partial_sort(o, pos, pos + a->k, pos + len);
    } else {
        std_nth_element(o, pos, pos + a->k - 1, pos + len);
        if (a->sorted)
            std_sort(o, pos, pos + a->k - 1);
    }
}

bool tensor_topk(const Tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
                 Tensor **values, Tensor **indices)
{
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
    TopkArgs args = {keep, sorted};
    if (*values && *indices &&
        order_lines(t, d, largest ? ORD_DESCENDING : ORD_ASCENDING, line_topk, &args, keep, *values, *indices))
        return true;
    tensor_release(*values);
    tensor_release(*indices);
    *values = *indices = NULL;
    return false;
}

/* ---------------------------------------------------------------- one element per line */

/* values/indices of a reduction along d that picked position pick[l] of
 * every line l: t's shape with d removed (or size 1 with keepdim). */
static bool emit_picks(const Tensor *t, int d, bool keepdim, const Lines *L, const int64_t *pick,
                       Tensor **values, Tensor **indices)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int ndim = 0;
    for (int k = 0; k < t->ndim; k++) {
        if (k != d)
            sizes[ndim++] = t->sizes[k];
        else if (keepdim)
            sizes[ndim++] = 1;
    }
    *values = tensor_empty(t->dtype, ndim, sizes);
    *indices = tensor_empty(DT_I64, ndim, sizes);
    if (!*values || !*indices) {
        tensor_release(*values);
        tensor_release(*indices);
        *values = *indices = NULL;
        return false;
    }
    for (int64_t l = 0; l < L->count; l++) {
        int64_t at = l * L->len + pick[l];
        if (L->f)
            tensor_set_flat(*values, l, L->f[at]);
        else
            tensor_set_flat_int(*values, l, L->i[at]);
        tensor_set_flat_int(*indices, l, pick[l]);
    }
    return true;
}

typedef int64_t (*PickFn)(const Lines *L, int64_t line, int64_t *pos, const void *arg);

/* Runs pick on every line of t along dim (which must not be empty) and
 * emits the picked elements and their positions. */
static bool reduce_by_pick(const Tensor *t, int64_t dim, bool keepdim, const char *fn, PickFn pick,
                           const void *arg, Tensor **values, Tensor **indices)
{
    *values = *indices = NULL;
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    if (t->ndim > 0 && t->sizes[d] == 0) {
        tensor_set_error("%s(): Expected reduction dim %d to have non-zero size.", fn, d);
        return false;
    }
    Lines L;
    if (!lines_read(t, d, &L))
        return false;
    int64_t *pos = kern_malloc((size_t)L.len, sizeof *pos);
    int64_t *picks = kern_malloc((size_t)L.count, sizeof *picks);
    bool ok = pos && picks;
    for (int64_t l = 0; ok && l < L.count; l++) {
        for (int64_t i = 0; i < L.len; i++)
            pos[i] = i;
        picks[l] = pick(&L, l, pos, arg);
    }
    ok = ok && emit_picks(t, d, keepdim, &L, picks, values, indices);
    free(pos);
    free(picks);
    lines_free(&L);
    return ok;
}

/* kthvalue: ATen's quickselect for position k - 1 under "greater or NaN". */
static int64_t pick_kth(const Lines *L, int64_t line, int64_t *pos, const void *arg)
{
    int64_t k = *(const int64_t *)arg;
    Order gt = line_order(L, line, ORD_DESCENDING);
    aten_quick_select(&gt, pos, L->len, k - 1);
    return pos[k - 1];
}

bool tensor_kthvalue(const Tensor *t, int64_t k, int64_t dim, bool keepdim, Tensor **values, Tensor **indices)
{
    int d = tensor_wrap_dim(dim, t->ndim);
    if (d < 0)
        return false;
    int64_t len = t->ndim == 0 ? 1 : t->sizes[d];
    if (k < 1 || k > len) {
        tensor_set_error("kthvalue(): selected number k out of range for dimension %d", d);
        return false;
    }
    return reduce_by_pick(t, d, keepdim, "kthvalue", pick_kth, &k, values, indices);
}

/* median along a dim: the first NaN if there is one (median), else the
 * element std::nth_element puts at the middle (the lower of the two middle
 * elements for an even count; nanmedian counts only the numbers). */
static int64_t pick_median(const Lines *L, int64_t line, int64_t *pos, const void *arg)
{
    bool ignore_nan = *(const bool *)arg;
    int64_t nans = 0;
    if (L->f) {
        const double *x = L->f + line * L->len;
        for (int64_t i = 0; i < L->len; i++) {
            if (isnan(x[i])) {
                if (!ignore_nan)
                    return i;
                nans++;
            }
        }
    }
    Order o = line_order(L, line, ignore_nan ? ORD_NANMEDIAN : ORD_MEDIAN);
    int64_t *nth = pos + (L->len - nans - 1) / 2;
    std_nth_element(&o, pos, nth, pos + L->len);
    return *nth;
}

bool tensor_median_dim(const Tensor *t, int64_t dim, bool keepdim, bool ignore_nan,
                       Tensor **values, Tensor **indices)
{
    return reduce_by_pick(t, dim, keepdim, ignore_nan ? "nanmedian" : "median", pick_median,
                          &ignore_nan, values, indices);
}

/* median of all elements (values only): NaN if any (median) or if all are
 * NaN (nanmedian), else the lower middle of the numbers; NaN (cast to the
 * dtype) for an empty tensor. */
Tensor *tensor_median_all(const Tensor *t, bool ignore_nan)
{
    int64_t n = tensor_numel(t);
    if (n == 0) {
        Tensor *nan_value = tensor_scalar(DT_F32, NAN);
        Tensor *out = nan_value ? tensor_to_dtype(nan_value, t->dtype) : NULL;
        tensor_release(nan_value);
        return out;
    }
    Tensor *flat_src = tensor_clone(t);
    Tensor *flat = flat_src ? tensor_reshape(flat_src, 1, &n) : NULL;
    tensor_release(flat_src);
    if (!flat)
        return NULL;
    Lines L;
    bool ok = lines_read(flat, 0, &L);
    tensor_release(flat);
    if (!ok)
        return NULL;
    Tensor *out = tensor_empty(t->dtype, 0, NULL);
    int64_t *pos = kern_malloc((size_t)n, sizeof *pos);
    int64_t *tmp = kern_malloc((size_t)n, sizeof *tmp);
    if (out && pos && tmp) {
        int64_t nans = 0;
        for (int64_t i = 0; L.f && i < n; i++)
            nans += isnan(L.f[i]) != 0;
        if (nans > 0 && (!ignore_nan || nans == n)) {
            tensor_set_flat(out, 0, NAN);
        } else {
            Order o = line_order(&L, 0, ORD_ASCENDING);
            for (int64_t i = 0; i < n; i++)
                pos[i] = i;
            stable_sort(&o, pos, tmp, n);
            int64_t at = pos[(n - nans - 1) / 2];
            if (L.f)
                tensor_set_flat(out, 0, L.f[at]);
            else
                tensor_set_flat_int(out, 0, L.i[at]);
        }
    } else {
        tensor_release(out);
        out = NULL;
    }
    free(pos);
    free(tmp);
    lines_free(&L);
    return out;
}

/* mode: std::sort by value, then the smallest value among the most frequent,
 * with the position of the last of its run in the sorted order. */
static int64_t pick_mode(const Lines *L, int64_t line, int64_t *pos, const void *arg)
{
    (void)arg;
    Order o = line_order(L, line, ORD_PLAIN_LESS);
    std_sort(&o, pos, pos + L->len);
    int64_t best = 0, best_freq = 0, freq = 0;
    for (int64_t i = 0; i < L->len; i++) {
        freq++;
        bool run_ends = i == L->len - 1 ||
                        (o.f ? o.f[pos[i]] != o.f[pos[i + 1]] : o.i[pos[i]] != o.i[pos[i + 1]]);
        if (run_ends) {
            if (freq > best_freq) {
                best = pos[i];
                best_freq = freq;
            }
            freq = 0;
        }
    }
    return best;
}

bool tensor_mode(const Tensor *t, int64_t dim, bool keepdim, Tensor **values, Tensor **indices)
{
    return reduce_by_pick(t, dim, keepdim, "mode", pick_mode, NULL, values, indices);
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
