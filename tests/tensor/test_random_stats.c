/* test_random_stats.c — the distributions of tensor/random.c, checked
 * statistically at significance 0.001 per test, with N = 100000 samples:
 *   - against PyTorch 1.13's samples (data/random_torch_stats.h, written by
 *     gen_random_expected.py): two-sample Kolmogorov-Smirnov on a grid of
 *     81 points for continuous draws (D = max |F_ours - F_torch| there,
 *     critical value 1.949 sqrt(2 / N) = 0.00872), two-sample chi-square
 *     on the counts of each value for discrete ones;
 *   - against the exact distribution: one-sample KS over every sample
 *     (critical 1.949 / sqrt(N) = 0.00616), mean and variance within 5
 *     standard errors, chi-square of the counts against the exact
 *     probabilities. The exact laws are derived in the comments below.
 * The values can not match PyTorch's bit for bit (another generator); the
 * laws must. Prints every statistic so a run shows the margins.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tensor/data/random_torch_stats.h"
#include "test_util.h"
#include "tssa/tensor.h"

#define N TORCH_SAMPLES
#define NGRID 81
static const double KS2_CRIT = 1.949 * 0.00447213595499958;     /* 1.949 sqrt(2/N), N = 1e5 */
static const double KS1_CRIT = 1.949 * 0.00316227766016838;     /* 1.949 / sqrt(N) */
/* chi-square quantiles at 1 - 0.001 by degrees of freedom */
static double chi2_crit(int df)
{
    switch (df) {
    case 1: return 10.828; case 2: return 13.816; case 3: return 16.266;
    case 9: return 27.877; case 16: return 39.252; case 24: return 51.179;
    default: abort();
    }
}

static TensorRandomKey key_of(uint64_t stream) { return (TensorRandomKey){12345, stream}; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef double (*Cdf)(double x, const double *param);
static double cdf_uniform(double x, const double *p) { return x <= p[0] ? 0 : x >= p[1] ? 1 : (x - p[0]) / (p[1] - p[0]); }
static double cdf_normal(double x, const double *p) { return 0.5 * erfc(-(x - p[0]) / (p[1] * sqrt(2.0))); }

/* Checks sample t (N values) against the exact law (cdf, its mean and
 * variance, the fourth central moment for the variance's standard error)
 * and PyTorch's grid ECDF. */
static void check_continuous(const char *name, const Tensor *t, Cdf cdf, const double *param, double mean,
                             double var, double mu4, const double *points, const double *torch_cdf)
{
    double *x = malloc(sizeof *x * N);
    double sum = 0, sq = 0;
    for (int i = 0; i < N; i++) {
        x[i] = tensor_get_flat(t, i);
        sum += x[i];
    }
    double m = sum / N;
    for (int i = 0; i < N; i++)
        sq += (x[i] - m) * (x[i] - m);
    double v = sq / (N - 1);
    qsort(x, N, sizeof *x, cmp_double);
    double ks1 = 0;
    for (int i = 0; i < N; i++) {
        double f = cdf(x[i], param);
        ks1 = fmax(ks1, fmax((i + 1.0) / N - f, f - (double)i / N));
    }
    double ks2 = 0;
    for (int k = 0, i = 0; k < NGRID; k++) {
        while (i < N && x[i] <= points[k])
            i++;
        ks2 = fmax(ks2, fabs((double)i / N - torch_cdf[k]));
    }
    double z_mean = (m - mean) / sqrt(var / N), z_var = (v - var) / sqrt((mu4 - var * var) / N);
    printf("%-22s mean z %+6.2f  var z %+6.2f  KS exact %.5f (<%.5f)  KS torch %.5f (<%.5f)\n", name, z_mean,
           z_var, ks1, KS1_CRIT, ks2, KS2_CRIT);
    CHECK_MSG(fabs(z_mean) < 5, "%s: mean %g, expected %g", name, m, mean);
    CHECK_MSG(fabs(z_var) < 5, "%s: variance %g, expected %g", name, v, var);
    CHECK_MSG(ks1 < KS1_CRIT, "%s: KS against the exact law %g", name, ks1);
    CHECK_MSG(ks2 < KS2_CRIT, "%s: KS against PyTorch %g", name, ks2);
    free(x);
}

/* Counts (k values) against exact probabilities (NULL: skip) and against
 * PyTorch's counts (two-sample chi-square, df k - 1, or df_exact cells
 * constrained more). */
static void check_counts(const char *name, const double *ours, const double *prob, const double *torch, int k,
                         int df)
{
    double n_ours = 0, n_torch = 0, x_exact = 0, x_two = 0;
    for (int i = 0; i < k; i++) {
        n_ours += ours[i];
        n_torch += torch[i];
    }
    for (int i = 0; i < k; i++) {
        if (prob) {
            double e = prob[i] * n_ours;
            x_exact += (ours[i] - e) * (ours[i] - e) / e;
        }
        double d = sqrt(n_torch / n_ours) * ours[i] - sqrt(n_ours / n_torch) * torch[i];
        if (ours[i] + torch[i] > 0)
            x_two += d * d / (ours[i] + torch[i]);
    }
    printf("%-22s chi2 exact %7.2f  chi2 torch %7.2f  (< %.2f, df %d; torch df %d: < %.2f)\n", name, x_exact,
           x_two, chi2_crit(df), df, k - 1, chi2_crit(k - 1));
    if (prob)
        CHECK_MSG(x_exact < chi2_crit(df), "%s: chi-square against the exact law %g", name, x_exact);
    CHECK_MSG(x_two < chi2_crit(k - 1), "%s: chi-square against PyTorch %g", name, x_two);
}

static void count_values(const Tensor *t, int64_t offset, double *counts, int k)
{
    for (int i = 0; i < k; i++)
        counts[i] = 0;
    for (int64_t i = 0; i < tensor_numel(t); i++) {
        int64_t v = tensor_get_flat_int(t, i) + offset;
        CHECK_MSG(v >= 0 && v < k, "value %lld out of range", (long long)(v - offset));
        if (v >= 0 && v < k)
            counts[v]++;
    }
}

int main(void)
{
    int64_t n = N;
    /* uniform on [a, b): mean (a+b)/2, variance (b-a)^2/12, mu4 (b-a)^4/80 */
    const double unit[2] = {0, 1}, wide[2] = {-1, 3}, slopes[2] = {0.1, 0.3};
    Tensor *t = tensor_random_uniform(key_of(1), DT_F32, 1, &n, 0, 1);
    check_continuous("rand float32", t, cdf_uniform, unit, 0.5, 1.0 / 12, 1.0 / 80, rand_f32_points, rand_f32_cdf);
    tensor_release(t);
    t = tensor_random_uniform(key_of(2), DT_F64, 1, &n, 0, 1);
    check_continuous("rand float64", t, cdf_uniform, unit, 0.5, 1.0 / 12, 1.0 / 80, rand_f64_points, rand_f64_cdf);
    tensor_release(t);
    t = tensor_random_uniform(key_of(3), DT_F32, 1, &n, -1, 3);
    check_continuous("uniform_(-1, 3)", t, cdf_uniform, wide, 1, 16.0 / 12, 256.0 / 80, uniform_m1_3_points,
                     uniform_m1_3_cdf);
    tensor_release(t);
    /* normal(mu, s): mu4 = 3 s^4 */
    const double std_normal[2] = {0, 1}, normal23[2] = {2, 3};
    t = tensor_random_normal(key_of(4), DT_F32, 1, &n, 0, 1);
    check_continuous("randn float32", t, cdf_normal, std_normal, 0, 1, 3, randn_f32_points, randn_f32_cdf);
    tensor_release(t);
    t = tensor_random_normal(key_of(5), DT_F64, 1, &n, 0, 1);
    check_continuous("randn float64", t, cdf_normal, std_normal, 0, 1, 3, randn_f64_points, randn_f64_cdf);
    tensor_release(t);
    t = tensor_random_normal(key_of(6), DT_F32, 1, &n, 2, 3);
    check_continuous("normal(2, 3)", t, cdf_normal, normal23, 2, 9, 243, normal_2_3_points, normal_2_3_cdf);
    tensor_release(t);
    /* rrelu of -1: minus the slope, uniform on [0.1, 0.3) */
    Tensor *minus_one = tensor_full(DT_F32, 1, &n, -1);
    Tensor *r = tensor_random_rrelu(key_of(7), minus_one, 0.1, 0.3);
    t = r ? tensor_unary(UN_NEG, r, 0, 0) : NULL;
    check_continuous("rrelu slope", t, cdf_uniform, slopes, 0.2, 0.04 / 12, 0.0016 / 80, rrelu_slope_points,
                     rrelu_slope_cdf);
    tensor_release(t);
    tensor_release(r);
    tensor_release(minus_one);

    double counts[25], prob[25];
    /* randint(-3, 7): each of the 10 values with probability 1/10 */
    t = tensor_random_int(key_of(8), DT_I64, 1, &n, -3, 7);
    count_values(t, 3, counts, 10);
    for (int i = 0; i < 10; i++)
        prob[i] = 0.1;
    check_counts("randint(-3, 7)", counts, prob, randint_m3_7_counts, 10, 9);
    tensor_release(t);

    /* multinomial of weights 1:2:3:4 with replacement: p = w / 10 */
    int64_t four = 4;
    const double w[4] = {1, 2, 3, 4}, p[4] = {0.1, 0.2, 0.3, 0.4};
    Tensor *weights = tensor_empty(DT_F32, 1, &four);
    for (int i = 0; i < 4; i++)
        tensor_set_flat(weights, i, w[i]);
    t = tensor_random_multinomial(key_of(9), weights, N, true);
    count_values(t, 0, counts, 4);
    check_counts("multinomial repl", counts, p, multinomial_repl_counts, 4, 3);
    tensor_release(t);
    /* without replacement, two of four per row: the first pick has p; the
     * second is j with P = sum over i != j of p_i p_j / (1 - p_i) (the
     * first is i, then j among the rest in proportion to its weight) */
    int64_t rows_sizes[2] = {N / 2, 4};
    Tensor *rows = tensor_expand(weights, 2, rows_sizes);
    t = tensor_random_multinomial(key_of(10), rows, 2, false);
    double first[4] = {0}, second[4] = {0}, p_second[4] = {0};
    int distinct = 1;
    for (int64_t i = 0; t && i < N / 2; i++) {
        int64_t a = tensor_get_flat_int(t, 2 * i), b = tensor_get_flat_int(t, 2 * i + 1);
        first[a]++;
        second[b]++;
        distinct &= a != b;
    }
    CHECK_MSG(distinct, "%s", "multinomial without replacement drew a category twice");
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            if (i != j)
                p_second[j] += p[i] * p[j] / (1 - p[i]);
    check_counts("multinomial 1st", first, p, multinomial_norepl_first_counts, 4, 3);
    check_counts("multinomial 2nd", second, p_second, multinomial_norepl_second_counts, 4, 3);
    tensor_release(t);
    tensor_release(rows);
    tensor_release(weights);

    /* bernoulli(0.3) from a tensor of probabilities: P(1) = 0.3 */
    Tensor *p03 = tensor_full(DT_F32, 1, &n, 0.3);
    t = tensor_random_bernoulli(key_of(11), p03, 0, DT_F32, 0, NULL);
    for (int i = 0; i < 2; i++)
        counts[i] = 0;
    for (int64_t i = 0; t && i < N; i++)
        counts[tensor_get_flat(t, i) != 0]++;
    check_counts("bernoulli(0.3)", counts, (const double[]){0.7, 0.3}, bernoulli_03_counts, 2, 1);
    tensor_release(t);
    tensor_release(p03);

    /* dropout(ones, 0.4): kept with probability 0.6, and then 1 / 0.6 */
    Tensor *ones = tensor_full(DT_F32, 1, &n, 1);
    t = tensor_random_dropout(key_of(12), ones, 0.4);
    counts[0] = counts[1] = 0;
    int scaled = 1;
    for (int64_t i = 0; t && i < N; i++) {
        double v = tensor_get_flat(t, i);
        counts[v != 0]++;
        scaled &= v == 0 || v == (double)(float)(1 / 0.6);
    }
    CHECK_MSG(scaled, "%s", "dropout kept a value not scaled by 1 / (1 - p)");
    check_counts("dropout(0.4) kept", counts, (const double[]){0.4, 0.6}, dropout_04_kept_counts, 2, 1);
    tensor_release(t);
    tensor_release(ones);

    /* randperm(5), N / 5 of them: value v at position q with probability
     * 1/25 each; rows and columns of the 5x5 table are fixed: df 16 */
    for (int i = 0; i < 25; i++) {
        counts[i] = 0;
        prob[i] = 1.0 / 25;
    }
    int perms_ok = 1;
    for (int k = 0; k < N / 5; k++) {
        t = tensor_random_perm(key_of(100 + (uint64_t)k), 5, DT_I64);
        int seen = 0;
        for (int q = 0; t && q < 5; q++) {
            int64_t v = tensor_get_flat_int(t, q);
            seen |= 1 << v;
            counts[v * 5 + q]++;
        }
        perms_ok &= seen == 31;
        tensor_release(t);
    }
    CHECK_MSG(perms_ok, "%s", "randperm(5) is not a permutation");
    check_counts("randperm(5) cells", counts, prob, randperm5_value_position_counts, 25, 16);
    return test_report("tensor_random_stats");
}
