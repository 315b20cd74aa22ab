/* rational.c — exact rationals over int64 with overflow detection.
 *
 * The balance equations of a stream graph relate firing counts by ratios of
 * rates; solving them in rationals and only then scaling to integers gives
 * the least repetition vector exactly. Products are reduced by cross gcds
 * before multiplying (a/b * c/d = (a/g1 * c/g2) / (b/g2 * d/g1)), so an
 * overflow is reported only when the reduced result itself does not fit.
 * INT64_MIN never appears: rates are non-negative and every operation that
 * could produce it reports overflow instead.
 */
#include <stdint.h>

#include "scheduler/rational.h"
#include "tssa/util.h"


bool mul64(int64_t a, int64_t b, int64_t *out)
{
    return ckd_mul_i64(out, a, b) && *out != INT64_MIN;
}

bool add64(int64_t a, int64_t b, int64_t *out)
{
    return ckd_add_i64(out, a, b) && *out != INT64_MIN;
}

bool lcm64(int64_t a, int64_t b, int64_t *out)
{
    return mul64(a / gcd64(a, b), b, out);
}

Rational rat_int(int64_t n)
{
    return (Rational){n, 1};
}

bool rat_make(int64_t n, int64_t d, Rational *out)
{
    if (d == 0 || n == INT64_MIN || d == INT64_MIN)
        return false;
    if (d < 0) {
        n = -n;
        d = -d;
    }
    int64_t g = gcd64(n, d);
    if (g == 0)
        g = 1;
    *out = (Rational){n / g, d / g};
    if (out->num == 0)
        out->den = 1;
    return true;
}

bool rat_mul(Rational a, Rational b, Rational *out)
{
    int64_t g1 = gcd64(a.num, b.den), g2 = gcd64(b.num, a.den);
    if (g1 == 0)
        g1 = 1;
    if (g2 == 0)
        g2 = 1;
    int64_t num, den;
    if (!mul64(a.num / g1, b.num / g2, &num) || !mul64(a.den / g2, b.den / g1, &den))
        return false;
    return rat_make(num, den, out);
}

bool rat_div(Rational a, Rational b, Rational *out)
{
    if (b.num == 0)
        return false;
    Rational inverse;
    if (!rat_make(b.den, b.num, &inverse))
        return false;
    return rat_mul(a, inverse, out);
}

bool rat_scale(Rational a, int64_t n, int64_t d, Rational *out)
{
    if (n == d && n != 0) {     /* equal rates, the usual case: a itself */
        *out = a;
        return true;
    }
    Rational ratio;
    return rat_make(n, d, &ratio) && rat_mul(a, ratio, out);
}

bool rat_equal(Rational a, Rational b)
{
    return a.num == b.num && a.den == b.den;
}

bool rat_to_least_integers(const Rational *v, int n, int64_t *out)
{
    int64_t scale = 1;
    for (int i = 0; i < n; i++)
        if (v[i].num != 0 && !lcm64(scale, v[i].den, &scale))
            return false;
    int64_t g = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].num == 0) {
            out[i] = 0;
            continue;
        }
        /* v = num/den and den divides scale, so num * (scale/den) is exact. */
        if (!mul64(v[i].num, scale / v[i].den, &out[i]))
            return false;
        g = gcd64(g, out[i]);
    }
    if (g > 1)
        for (int i = 0; i < n; i++)
            out[i] /= g;
    return true;
}
