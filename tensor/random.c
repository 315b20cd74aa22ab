/* random.c — random tensors from the counter-based generator (philox.c).
 *
 * Which bits each element reads. A draw has a key (TensorRandomKey: the
 * seed and a stream id) and reads Philox4x32-10 blocks:
 *   key     = (seed mod 2^32, seed >> 32)
 *   counter = (block mod 2^32, block >> 32, stream mod 2^32, stream >> 32)
 *   block   = (sub << 48) | index, where index numbers the element's block
 *             and sub (0 unless said) separates a draw's second use of an
 *             element's bits (randint's retries).
 * 32-bit draws: element i reads word i % 4 of block i / 4. 64-bit draws:
 * element i reads words 2(i % 2) (low half) and 2(i % 2) + 1 (high half) of
 * block i / 2. Normal pairs: elements 2j and 2j + 1 share Box-Muller pair j,
 * whose two uniforms are the pair's two 32-bit (float32: pair j reads words
 * 2(j % 2), +1 of block j / 2) or 64-bit (float64: the two 64-bit draws of
 * block j) words. So element i depends on (seed, stream, i) alone: any
 * slice of a tensor can be computed on its own (a data-parallel split gets
 * the numbers of the whole).
 *
 * Distributions: uniform from the top 24 bits of a word (float32) or the
 * top 53 bits of a 64-bit draw (float64), u in [0, 1); normal by
 * Box-Muller, z = sqrt(-2 ln(1 - u1)) (cos | sin)(2 pi u2), in double;
 * randint by Lemire's multiply-shift with rejection (exact); randperm as
 * the order of 64-bit keys (ties by index); bernoulli as u < p with 53-bit
 * u; multinomial with replacement by the inverse CDF of a 53-bit u, without
 * replacement as the num_samples smallest exponential races E_c / w_c
 * (successive sampling proportional to the weights, as PyTorch samples).
 */
#include <stdlib.h>

#include "tensor/tensor_impl.h"

enum { SUB_SHIFT = 48 };

/* One cached block: elements read in order reuse its four words. */
typedef struct Draw {
    TensorRandomKey key;
    uint64_t block;
    bool valid;
    uint32_t words[4];
} Draw;

static const uint32_t *draw_block(Draw *d, uint64_t block)
{
    if (!d->valid || d->block != block) {
        uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)d->key.stream,
                           (uint32_t)(d->key.stream >> 32)};
        uint32_t key[2] = {(uint32_t)d->key.seed, (uint32_t)(d->key.seed >> 32)};
        philox4x32(ctr, key, 10, d->words);
        d->block = block;
        d->valid = true;
    }
    return d->words;
}

static uint32_t draw32(Draw *d, uint64_t sub, uint64_t i)
{
    return draw_block(d, (sub << SUB_SHIFT) | (i >> 2))[i & 3];
}

static uint64_t draw64(Draw *d, uint64_t sub, uint64_t i)
{
    const uint32_t *w = draw_block(d, (sub << SUB_SHIFT) | (i >> 1));
    unsigned at = 2 * (unsigned)(i & 1);
    return (uint64_t)w[at] | (uint64_t)w[at + 1] << 32;
}

static double unit24(uint32_t w) { return (double)(w >> 8) * 0x1p-24; }
static double unit53(uint64_t x) { return (double)(x >> 11) * 0x1p-53; }

/* Uniform on [0, 1) for element i at dt's precision. */
static double draw_unit(Draw *d, TensorDType dt, uint64_t i)
{
    return dt == DT_F64 ? unit53(draw64(d, 0, i)) : unit24(draw32(d, 0, i));
}

/* Standard normal element i (Box-Muller pairs, see the header). */
static double draw_normal(Draw *d, TensorDType dt, uint64_t i)
{
    uint64_t pair = i >> 1;
    double u1, u2;
    if (dt == DT_F64) {
        u1 = unit53(draw64(d, 0, 2 * pair));
        u2 = unit53(draw64(d, 0, 2 * pair + 1));
    } else {
        u1 = unit24(draw32(d, 0, 2 * pair));
        u2 = unit24(draw32(d, 0, 2 * pair + 1));
    }
    double r = sqrt(-2.0 * log(1.0 - u1));
    double angle = 2.0 * M_PI * u2;
    return (i & 1) ? r * sin(angle) : r * cos(angle);
}

static bool need_float(TensorDType dt, const char *what)
{
    if (dtype_is_float(dt))
        return true;
    tensor_set_error("%s expects a floating point dtype, got %s", what, dtype_name(dt));
    return false;
}

/* The float value v in dt, kept below `to` where rounding to float32
 * would reach it. */
static double below(double v, double to, TensorDType dt)
{
    if (dt == DT_F32 && (float)v >= (float)to && to > v)
        return nextafterf((float)to, -INFINITY);
    return v;
}

Tensor *tensor_random_uniform(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                              double from, double to)
{
    if (!need_float(dt, "uniform"))
        return NULL;
    if (!(from <= to) || !isfinite(to - from)) {
        tensor_set_error("uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                         from, to);
        return NULL;
    }
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (!t)
        return NULL;
    Draw d = {.key = key};
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        tensor_set_flat(t, i, below(from + draw_unit(&d, dt, (uint64_t)i) * (to - from), to, dt));
    return t;
}

Tensor *tensor_random_normal(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                             double mean, double std)
{
    if (!need_float(dt, "normal"))
        return NULL;
    if (!(std >= 0)) {
        tensor_set_error("normal expects std >= 0.0, but found std %g", std);
        return NULL;
    }
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (!t)
        return NULL;
    Draw d = {.key = key};
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        tensor_set_flat(t, i, mean + std * draw_normal(&d, dt, (uint64_t)i));
    return t;
}

Tensor *tensor_random_normal_tensors(TensorRandomKey key, const Tensor *mean, double mean_scalar,
                                     const Tensor *std, double std_scalar)
{
    int64_t shape[TENSOR_MAX_DIMS];
    int ndim = 0;
    TensorDType dt = mean ? mean->dtype : std ? std->dtype : DT_F32;
    if (mean && std) {
        ndim = tensor_broadcast_shape(mean->ndim, mean->sizes, std->ndim, std->sizes, shape);
        if (ndim < 0)
            return NULL;
    } else {
        const Tensor *only = mean ? mean : std;
        ndim = only->ndim;
        memcpy(shape, only->sizes, sizeof(int64_t) * (size_t)ndim);
    }
    if (!need_float(dt, "normal"))
        return NULL;
    Tensor *m = mean ? tensor_expand((Tensor *)mean, ndim, shape) : NULL;
    Tensor *s = std ? tensor_expand((Tensor *)std, ndim, shape) : NULL;
    Tensor *t = (mean && !m) || (std && !s) ? NULL : tensor_empty(dt, ndim, shape);
    Draw d = {.key = key};
    int64_t n = t ? tensor_numel(t) : 0;
    for (int64_t i = 0; i < n; i++) {
        double mu = m ? tensor_get_flat(m, i) : mean_scalar;
        double sigma = s ? tensor_get_flat(s, i) : std_scalar;
        if (!(sigma >= 0)) {
            tensor_set_error("normal expects all elements of std >= 0.0");
            tensor_release(t);
            t = NULL;
            break;
        }
        tensor_set_flat(t, i, mu + sigma * draw_normal(&d, dt, (uint64_t)i));
    }
    tensor_release(m);
    tensor_release(s);
    return t;
}

/* High and low halves of the 128-bit product a * b. */
static uint64_t mul_hilo(uint64_t a, uint64_t b, uint64_t *lo)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* Uniform on [0, range) (range > 0), exactly: Lemire, "Fast random integer
 * generation in an interval" (2019); a rejected draw retries with the
 * element's bits of the next sub-draw. */
static uint64_t draw_below(Draw *d, uint64_t i, uint64_t range)
{
    uint64_t threshold = (0 - range) % range;
    for (uint64_t sub = 0;; sub++) {
        uint64_t lo;
        uint64_t hi = mul_hilo(draw64(d, sub, i), range, &lo);
        if (lo >= threshold)
            return hi;
    }
}

Tensor *tensor_random_int(TensorRandomKey key, TensorDType dt, int ndim, const int64_t *sizes,
                          int64_t low, int64_t high)
{
    if (low >= high) {
        tensor_set_error("random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                         (long long)low, (long long)high);
        return NULL;
    }
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (!t)
        return NULL;
    Draw d = {.key = key};
    uint64_t range = (uint64_t)high - (uint64_t)low;
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)((uint64_t)low + draw_below(&d, (uint64_t)i, range));
        if (dtype_is_float(dt))
            tensor_set_flat(t, i, (double)v);
        else
            tensor_set_flat_int(t, i, v);
    }
    return t;
}

typedef struct KeyedIndex {
    uint64_t key;
    int64_t index;
} KeyedIndex;

static int by_key(const void *a, const void *b)
{
    const KeyedIndex *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

Tensor *tensor_random_perm(TensorRandomKey key, int64_t n, TensorDType dt)
{
    if (n < 0) {
        tensor_set_error("n must be non-negative, got%lld", (long long)n);
        return NULL;
    }
    Tensor *t = tensor_empty(dt, 1, &n);
    KeyedIndex *keys = t ? malloc(sizeof *keys * (size_t)(n > 0 ? n : 1)) : NULL;
    if (!keys) {
        tensor_release(t);
        return NULL;
    }
    Draw d = {.key = key};
    for (int64_t i = 0; i < n; i++)
        keys[i] = (KeyedIndex){draw64(&d, 0, (uint64_t)i), i};
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    for (int64_t i = 0; i < n; i++) {
        if (dtype_is_float(dt))
            tensor_set_flat(t, i, (double)keys[i].index);
        else
            tensor_set_flat_int(t, i, keys[i].index);
    }
    free(keys);
    return t;
}

Tensor *tensor_random_bernoulli(TensorRandomKey key, const Tensor *p, double p_scalar, TensorDType dt,
                                int ndim, const int64_t *sizes)
{
    if (p) {
        ndim = p->ndim;
        sizes = p->sizes;
    } else if (!(p_scalar >= 0 && p_scalar <= 1)) {
        tensor_set_error("bernoulli_ expects p to be in [0, 1], but got p=%g", p_scalar);
        return NULL;
    }
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (!t)
        return NULL;
    Draw d = {.key = key};
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double pi = p ? tensor_get_flat(p, i) : p_scalar;
        if (!(pi >= 0 && pi <= 1)) {
            tensor_set_error("Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
            tensor_release(t);
            return NULL;
        }
        tensor_set_flat(t, i, unit53(draw64(&d, 0, (uint64_t)i)) < pi ? 1.0 : 0.0);
    }
    return t;
}

/* Row r of a multinomial draw with replacement: inverse CDF of a 53-bit u
 * per sample; zero-weight categories are never taken. */
static void sample_with_replacement(Draw *d, const double *w, int64_t ncat, double total,
                                    int64_t row, int64_t num_samples, int64_t *out)
{
    for (int64_t s = 0; s < num_samples; s++) {
        double target = unit53(draw64(d, 0, (uint64_t)(row * num_samples + s))) * total;
        double cum = 0;
        int64_t pick = -1;
        for (int64_t c = 0; c < ncat; c++) {
            if (w[c] <= 0)
                continue;
            pick = c;
            cum += w[c];
            if (target < cum)
                break;
        }
        out[s] = pick;
    }
}

/* Row r without replacement: category c races E_c / w_c (E_c exponential
 * from its 53-bit u); the num_samples first to finish, in order. */
static void sample_without_replacement(Draw *d, const double *w, int64_t ncat, int64_t row,
                                       int64_t num_samples, KeyedIndex *race, double *times,
                                       int64_t *out)
{
    for (int64_t c = 0; c < ncat; c++) {
        double u = unit53(draw64(d, 0, (uint64_t)(row * ncat + c)));
        times[c] = w[c] > 0 ? -log1p(-u) / w[c] : INFINITY;
    }
    /* order by finishing time: doubles >= 0 compare as their bits do */
    for (int64_t c = 0; c < ncat; c++) {
        uint64_t bits;
        memcpy(&bits, &times[c], sizeof bits);
        race[c] = (KeyedIndex){bits, c};
    }
    qsort(race, (size_t)ncat, sizeof *race, by_key);
    for (int64_t s = 0; s < num_samples; s++)
        out[s] = race[s].index;
}

Tensor *tensor_random_multinomial(TensorRandomKey key, const Tensor *probs, int64_t num_samples,
                                  bool replacement)
{
    if (probs->ndim < 1 || probs->ndim > 2) {
        tensor_set_error("prob_dist must be 1 or 2 dim");
        return NULL;
    }
    if (!dtype_is_float(probs->dtype)) {
        tensor_set_error("multinomial only supports floating-point dtypes for input, got: %s",
                         dtype_name(probs->dtype));
        return NULL;
    }
    if (num_samples <= 0) {
        tensor_set_error("cannot sample n_sample <= 0 samples");
        return NULL;
    }
    int64_t rows = probs->ndim == 2 ? probs->sizes[0] : 1;
    int64_t ncat = probs->sizes[probs->ndim - 1];
    if (!replacement && num_samples > ncat) {
        tensor_set_error("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        return NULL;
    }
    int64_t out_sizes[2] = {rows, num_samples};
    Tensor *t = tensor_empty(DT_I64, probs->ndim, probs->ndim == 2 ? out_sizes : out_sizes + 1);
    double *w = malloc(sizeof *w * (size_t)(ncat > 0 ? ncat : 1));
    double *times = malloc(sizeof *times * (size_t)(ncat > 0 ? ncat : 1));
    KeyedIndex *race = malloc(sizeof *race * (size_t)(ncat > 0 ? ncat : 1));
    bool ok = t && w && times && race;
    Draw d = {.key = key};
    for (int64_t r = 0; ok && r < rows; r++) {
        double total = 0;
        int64_t positive = 0;
        for (int64_t c = 0; c < ncat; c++) {
            w[c] = tensor_get_flat(probs, r * ncat + c);
            if (!(w[c] >= 0) || !isfinite(w[c])) {
                tensor_set_error("probability tensor contains either `inf`, `nan` or element < 0");
                ok = false;
                break;
            }
            total += w[c];
            positive += w[c] > 0;
        }
        if (ok && !(total > 0)) {
            tensor_set_error("invalid multinomial distribution (sum of probabilities <= 0)");
            ok = false;
        }
        if (ok && !replacement && positive < num_samples) {
            tensor_set_error("invalid multinomial distribution (with replacement=False, not enough "
                             "non-negative category to sample)");
            ok = false;
        }
        int64_t *out = ok ? (int64_t *)tensor_data(t) + r * num_samples : NULL;
        if (ok && replacement)
            sample_with_replacement(&d, w, ncat, total, r, num_samples, out);
        else if (ok)
            sample_without_replacement(&d, w, ncat, r, num_samples, race, times, out);
    }
    free(w);
    free(times);
    free(race);
    if (!ok) {
        tensor_release(t);
        return NULL;
    }
    return t;
}

Tensor *tensor_random_dropout(TensorRandomKey key, const Tensor *x, double p)
{
    if (!(p >= 0 && p <= 1)) {
        tensor_set_error("dropout probability has to be between 0 and 1, but got %g", p);
        return NULL;
    }
    if (!need_float(x->dtype, "dropout"))
        return NULL;
    Tensor *t = tensor_empty(x->dtype, x->ndim, x->sizes);
    if (!t)
        return NULL;
    double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
    Draw d = {.key = key};
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        bool keep = unit53(draw64(&d, 0, (uint64_t)i)) >= p;
        tensor_set_flat(t, i, keep ? tensor_get_flat(x, i) * scale : 0.0);
    }
    return t;
}

Tensor *tensor_random_rrelu(TensorRandomKey key, const Tensor *x, double lower, double upper)
{
    if (!need_float(x->dtype, "rrelu"))
        return NULL;
    if (!(lower <= upper)) {
        tensor_set_error("Lower bound should be less than or equal to the upper bound");
        return NULL;
    }
    Tensor *t = tensor_empty(x->dtype, x->ndim, x->sizes);
    if (!t)
        return NULL;
    Draw d = {.key = key};
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double v = tensor_get_flat(x, i);
        if (v < 0)
            v *= lower + (upper - lower) * unit53(draw64(&d, 0, (uint64_t)i));
        tensor_set_flat(t, i, v);
    }
    return t;
}
