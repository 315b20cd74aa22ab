/* unique.c — torch.unique_consecutive and torch.unique.
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
 * for sorted output, and for slices along a dim always. Unsorted flat
 * output comes in the iteration order of the std::unordered_set ATen fills,
 * which is reproduced below (tensor_unique_unsorted).
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static Tensor *int64_vector(int64_t n)
{
    return tensor_empty(DT_I64, 1, &n);
}

typedef struct SliceOrder {
    const double *f;        /* floating rows, or NULL */
    const int64_t *i;       /* integer rows otherwise */
    int64_t len;            /* elements per row */
} SliceOrder;

/* Rows equal as at::equal sees them (NaN differs from everything). */
static bool rows_equal(const SliceOrder *o, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < o->len; k++) {
        if (o->f ? !(o->f[a * o->len + k] == o->f[b * o->len + k]) : o->i[a * o->len + k] != o->i[b * o->len + k])
            return false;
    }
    return true;
}

/* x as rows along dim 0: the slices along d moved to the front (contiguous)
 * with a dim, every element as a row of one without. */
static Tensor *rows_of(const Tensor *x, bool has_dim, int d)
{
    if (!has_dim) {
        int64_t numel = tensor_numel(x);
        return tensor_reshape((Tensor *)x, 1, &numel);
    }
    Tensor *front = tensor_transpose((Tensor *)x, 0, d);
    Tensor *moved = front ? tensor_clone(front) : NULL;
    tensor_release(front);
    return moved;
}

/* The rows first[0..n) of moved, moved back to dim d with a dim. */
static Tensor *pick_rows(const Tensor *moved, const int64_t *first, int64_t n, bool has_dim, int d)
{
    Tensor *index = int64_vector(n);
    if (!index)
        return NULL;
    for (int64_t r = 0; r < n; r++)
        tensor_set_flat_int(index, r, first[r]);
    Tensor *picked = tensor_index_select(moved, 0, index);
    tensor_release(index);
    if (!picked || !has_dim)
        return picked;
    Tensor *back = tensor_transpose(picked, 0, d);
    Tensor *values = back ? tensor_clone(back) : NULL;
    tensor_release(back);
    tensor_release(picked);
    return values;
}

bool tensor_unique_consecutive(const Tensor *x, bool return_inverse, bool return_counts,
                               bool has_dim, int64_t dim, Tensor **values, Tensor **inverse,
                               Tensor **counts)
{
    *values = *inverse = *counts = NULL;
    int d = 0;
    if (has_dim) {
        if (x->ndim == 0) {
            tensor_set_error("unique_consecutive: dim %" PRId64 " is out of range for a 0-d tensor", dim);
            return false;
        }
        d = tensor_wrap_dim(dim, x->ndim);
        if (d < 0)
            return false;
    }
    Tensor *moved = rows_of(x, has_dim, d);
    if (!moved)
        return false;
    int64_t rows = moved->ndim ? moved->sizes[0] : 1;
    int64_t len = rows ? tensor_numel(moved) / rows : 0;
    SliceOrder o = {NULL, NULL, len};
    double *f = NULL;
    int64_t *iv = NULL;
    if (dtype_is_float(x->dtype))
        o.f = f = kern_read_all_f64(moved);
    else
        o.i = iv = kern_read_all_i64(moved);
    int64_t *run_of = kern_malloc((size_t)(rows ? rows : 1), sizeof *run_of);
    int64_t *first = kern_malloc((size_t)(rows ? rows : 1), sizeof *first);
    bool ok = (f || iv) && run_of && first;
    int64_t runs = 0;
    for (int64_t i = 0; ok && i < rows; i++) {
        if (i == 0 || !rows_equal(&o, first[runs - 1], i))
            first[runs++] = i;
        run_of[i] = runs - 1;
    }
    if (ok) {
        /* The first slice of each run, in order, along the original dim. */
        *values = pick_rows(moved, first, runs, has_dim, d);
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
    free(f);
    free(iv);
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
    if (has_dim && (d = tensor_wrap_dim(dim, x->ndim)) < 0)
        return false;
    Tensor *moved = rows_of(x, has_dim, d);
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
        *values = pick_rows(moved, first, groups, has_dim, d);
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

/* ---------------------------------------------------------------- torch.unique(sorted=False) */

/* ATen's unsorted unique fills a std::unordered_set from the flat input and
 * copies it out in iteration order, so that order is part of the result.
 * What follows reproduces libstdc++'s (GCC 12) std::unordered_set step for
 * step: the hash (std::hash: the value itself for integers, _Hash_bytes
 * (a MurmurHash2 variant) of the bytes for float and double, 0 for +-0.0),
 * the bucket count (a default-constructed set: 13 buckets on the first
 * insert, then the next prime of libstdc++'s table at or above twice the
 * count whenever the elements would outnumber the buckets), and the node
 * list: a node for an empty bucket goes to the front of the list, one for a
 * non-empty bucket to the front of that bucket's run, and a rehash relinks
 * the nodes in list order by the same rule. */

/* libstdc++'s _Prime_rehash_policy: the fast table for small counts and the
 * prime list (up to what the element counts here can reach). */
static const unsigned char hash_fast_buckets[14] = {2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13};
static const int64_t hash_primes[] = {
    17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137,
    139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467,
    503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741,
    1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953,
    6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183,
    20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557,
    62233, 67307, 72817, 78779, 85229, 92203, 99733};

/* _M_next_bkt: the bucket count for at least n buckets; -1 past the table. */
static int64_t hash_next_buckets(int64_t n)
{
    if (n < 14)
        return n == 0 ? 1 : hash_fast_buckets[n];
    for (size_t i = 0; i < sizeof hash_primes / sizeof hash_primes[0]; i++)
        if (hash_primes[i] >= n)
            return hash_primes[i];
    return -1;
}

static uint64_t hash_shift_mix(uint64_t v)
{
    return v ^ (v >> 47);
}

/* libstdc++'s _Hash_bytes for a 64-bit size_t, seed 0xc70f6907. */
static uint64_t hash_bytes(const unsigned char *buf, size_t len)
{
    const uint64_t mul = ((uint64_t)0xc6a4a793UL << 32) + (uint64_t)0x5bd1e995UL;
    size_t aligned = len & ~(size_t)7;
    uint64_t hash = (uint64_t)0xc70f6907UL ^ ((uint64_t)len * mul);
    for (size_t p = 0; p < aligned; p += 8) {
        uint64_t data;
        memcpy(&data, buf + p, 8);
        hash ^= hash_shift_mix(data * mul) * mul;
        hash *= mul;
    }
    if (len & 7) {
        uint64_t data = 0;
        for (size_t k = len; k-- > aligned;)
            data = (data << 8) + buf[k];
        hash ^= data;
        hash *= mul;
    }
    hash = hash_shift_mix(hash) * mul;
    return hash_shift_mix(hash);
}

typedef struct HashSetSim {
    TensorDType dt;
    const double *f;
    const int64_t *i;
    int64_t *next;          /* per node (element position); `sentinel` is before-begin */
    int64_t *buckets;       /* node before the bucket's run, or -1 when empty */
    int64_t nbuckets, next_resize, count, sentinel;
    bool too_many;          /* more distinct values than the bucket table reaches */
} HashSetSim;

static uint64_t sim_hash(const HashSetSim *s, int64_t node)
{
    if (!s->f)
        return (uint64_t)s->i[node];
    if (s->f[node] == 0.0)
        return 0;
    if (s->dt == DT_F32) {
        float v = (float)s->f[node];
        return hash_bytes((const unsigned char *)&v, sizeof v);
    }
    double v = s->f[node];
    return hash_bytes((const unsigned char *)&v, sizeof v);
}

static int64_t sim_bucket(const HashSetSim *s, int64_t node)
{
    return (int64_t)(sim_hash(s, node) % (uint64_t)s->nbuckets);
}

static bool sim_equal(const HashSetSim *s, int64_t a, int64_t b)
{
    return s->f ? s->f[a] == s->f[b] : s->i[a] == s->i[b];
}

/* _M_rehash_aux for unique keys. */
static bool sim_rehash(HashSetSim *s, int64_t nbuckets)
{
    int64_t *buckets = kern_malloc((size_t)nbuckets, sizeof *buckets);
    if (!buckets)
        return false;
    for (int64_t b = 0; b < nbuckets; b++)
        buckets[b] = -1;
    free(s->buckets);
    s->buckets = buckets;
    s->nbuckets = nbuckets;
    int64_t p = s->next[s->sentinel], begin_bucket = 0;
    s->next[s->sentinel] = -1;
    while (p >= 0) {
        int64_t following = s->next[p], b = sim_bucket(s, p);
        if (buckets[b] < 0) {
            s->next[p] = s->next[s->sentinel];
            s->next[s->sentinel] = p;
            buckets[b] = s->sentinel;
            if (s->next[p] >= 0)
                buckets[begin_bucket] = p;
            begin_bucket = b;
        } else {
            s->next[p] = s->next[buckets[b]];
            s->next[buckets[b]] = p;
        }
        p = following;
    }
    return true;
}

/* insert() of element `node`: nothing if an equal key is present. */
static bool sim_insert(HashSetSim *s, int64_t node)
{
    if (s->nbuckets > 0) {
        int64_t b = sim_bucket(s, node);
        if (s->buckets[b] >= 0)
            for (int64_t p = s->next[s->buckets[b]]; p >= 0 && sim_bucket(s, p) == b; p = s->next[p])
                if (sim_equal(s, p, node))
                    return true;
    }
    /* _M_need_rehash(nbuckets, count, 1) */
    if (s->count + 1 > s->next_resize) {
        int64_t min_buckets = s->count + 1 > (s->next_resize ? 0 : 11) ? s->count + 1 : 11;
        if (min_buckets >= s->nbuckets) {
            int64_t want = min_buckets + 1 > s->nbuckets * 2 ? min_buckets + 1 : s->nbuckets * 2;
            int64_t nb = hash_next_buckets(want);
            if (nb < 0) {
                s->too_many = true;   /* past the bucket table: see tensor_unique_unsorted */
                return false;
            }
            s->next_resize = nb;
            if (!sim_rehash(s, nb))
                return false;
        } else {
            s->next_resize = s->nbuckets;
        }
    }
    int64_t b = sim_bucket(s, node);
    if (s->buckets[b] >= 0) {
        s->next[node] = s->next[s->buckets[b]];
        s->next[s->buckets[b]] = node;
    } else {
        s->next[node] = s->next[s->sentinel];
        s->next[s->sentinel] = node;
        if (s->next[node] >= 0)
            s->buckets[sim_bucket(s, s->next[node])] = node;
        s->buckets[b] = s->sentinel;
    }
    s->count++;
    return true;
}

/* torch.unique(x, sorted=False) of a non-bool x (flat): values in the hash
 * set's order; the inverse (x's shape) when the inverse or the counts are
 * asked for; the counts. */
bool tensor_unique_unsorted(const Tensor *x, bool return_inverse, bool return_counts, Tensor **values,
                            Tensor **inverse, Tensor **counts)
{
    *values = *inverse = *counts = NULL;
    int64_t n = tensor_numel(x);
    HashSetSim s = {.dt = x->dtype, .sentinel = n};
    double *f = NULL;
    int64_t *iv = NULL;
    if (dtype_is_float(x->dtype))
        s.f = f = kern_read_all_f64(x);
    else
        s.i = iv = kern_read_all_i64(x);
    s.next = kern_malloc((size_t)n + 1, sizeof *s.next);
    int64_t *slot = kern_malloc((size_t)n + 1, sizeof *slot);   /* output position of a node */
    bool ok = (f || iv) && s.next && slot;
    if (ok)
        s.next[n] = -1;
    for (int64_t k = 0; ok && k < n; k++)
        ok = sim_insert(&s, k);
    int64_t count = 0;
    if (ok) {
        *values = tensor_empty(x->dtype, 1, &s.count);
        ok = *values != NULL;
        for (int64_t p = s.next[n]; ok && p >= 0; p = s.next[p]) {
            if (f)
                tensor_set_flat(*values, count, f[p]);
            else
                tensor_set_flat_int(*values, count, iv[p]);
            slot[p] = count++;
        }
    }
    if (ok) {
        bool fill_inverse = return_inverse || return_counts;
        *inverse = fill_inverse ? tensor_empty(DT_I64, x->ndim, x->sizes) : int64_vector(0);
        *counts = return_counts ? tensor_zeros(DT_I64, 1, &count) : int64_vector(0);
        ok = *inverse && *counts;
        for (int64_t k = 0; ok && fill_inverse && k < n; k++) {
            /* the output position of the set's element equal to element k
             * (a NaN finds none: ATen's map lookup then gives 0) */
            int64_t b = sim_bucket(&s, k), at = 0;
            for (int64_t p = s.next[s.buckets[b]]; p >= 0 && sim_bucket(&s, p) == b; p = s.next[p])
                if (sim_equal(&s, p, k)) {
                    at = slot[p];
                    break;
                }
            tensor_set_flat_int(*inverse, k, at);
            if (return_counts)
                tensor_set_flat_int(*counts, at, tensor_get_flat_int(*counts, at) + 1);
        }
    }
    free(f);
    free(iv);
    free(s.next);
    free(s.buckets);
    free(slot);
    if (!ok) {
        tensor_release(*values);
        tensor_release(*inverse);
        tensor_release(*counts);
        *values = *inverse = *counts = NULL;
    }
    /* More distinct values than the bucket table above reaches: PyTorch
     * leaves the order of sorted=False unspecified, so ascending order is a
     * valid answer, though not the one its hash set would give. */
    if (!ok && s.too_many)
        return tensor_unique_sorted(x, false, 0, return_inverse, return_counts, values, inverse, counts);
    return ok;
}
