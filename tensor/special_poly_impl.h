/* special_poly_impl.h — the orthogonal polynomials for one floating type,
 * included by special_poly.c once per type with
 *   SP_T        the type (float or double)
 *   SP_NAME(n)  the function name for that type
 * PyTorch evaluates them in the tensor's own dtype, so float32 overflows to
 * inf (and inf - inf to NaN) exactly where float arithmetic does; doing the
 * same needs one copy per type. Math calls are type-generic (<tgmath.h>).
 *
 * Methods: the three-term recurrences (DLMF 18.9.1 and Table 18.9.1), and
 * for the Chebyshev kinds with |x| < 1 and larger n the closed forms in
 * theta = acos(x) (DLMF 18.5.1-18.5.4). Special cases and the n thresholds
 * of the closed forms follow PyTorch 1.13's kernels.
 */

#define ONE ((SP_T)1)
#define TWO_N_PLUS_1(n) ((SP_T)((n) + (n) + 1))

/* p_n by p_{k+1} = 2y p_k - p_{k-1} from p_0 = 1, p_1 = first (the Chebyshev
 * kinds differ only in p_1). Stops once the values are NaN (they would stay
 * NaN), which also bounds the work for absurd degrees. */
static SP_T SP_NAME(chebyshev_recurrence)(SP_T y, SP_T first, int64_t n)
{
    SP_T p = ONE, q = first, r = q;
    for (int64_t k = 2; k <= n && !isnan(q); k++) {
        r = (y + y) * q - p;
        p = q;
        q = r;
    }
    return r;
}

SP_T SP_NAME(sp_chebyshev_t)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == ONE)
        return (x > 0 || n % 2 == 0) ? ONE : -ONE;
    if (n > 6 && fabs(x) < ONE)
        return cos((SP_T)n * acos(x));
    if (n == 0)
        return ONE;
    if (n == 1)
        return x;
    return SP_NAME(chebyshev_recurrence)(x, x, n);
}

SP_T SP_NAME(sp_chebyshev_u)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == ONE)
        return (x > 0 || n % 2 == 0) ? (SP_T)(n + 1) : -(SP_T)(n + 1);
    if (n > 8 && fabs(x) < ONE) {
        if (sin(acos(x)) != 0)
            return sin((SP_T)(n + 1) * acos(x)) / sin(acos(x));
        return (SP_T)(n + 1) * cos((SP_T)(n + 1) * acos(x)) / x;
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return x + x;
    return SP_NAME(chebyshev_recurrence)(x, x + x, n);
}

SP_T SP_NAME(sp_chebyshev_v)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == ONE) {
        if (x > 0)
            return ONE;
        return n % 2 == 0 ? TWO_N_PLUS_1(n) : -TWO_N_PLUS_1(n);
    }
    if (n > 8 && fabs(x) < ONE) {
        if (sin(acos(x) / (SP_T)2) != ONE)
            return cos(((SP_T)n + (SP_T)0.5) * acos(x)) / cos(acos(x) / (SP_T)2);
        return n % 2 == 0 ? TWO_N_PLUS_1(n) : -TWO_N_PLUS_1(n);
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return x + x - ONE;
    return SP_NAME(chebyshev_recurrence)(x, x + x - ONE, n);
}

SP_T SP_NAME(sp_chebyshev_w)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == ONE) {
        if (x > 0)
            return TWO_N_PLUS_1(n);
        return n % 2 == 0 ? ONE : -ONE;
    }
    if (n > 8 && fabs(x) < ONE) {
        if (cos(acos(x) / (SP_T)2) != ONE)
            return sin(((SP_T)n + (SP_T)0.5) * acos(x)) / sin(acos(x) / (SP_T)2);
        if (x > 0)
            return TWO_N_PLUS_1(n);
        return n % 2 == 0 ? ONE : -ONE;
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return x + x + ONE;
    return SP_NAME(chebyshev_recurrence)(x, x + x + ONE, n);
}

/* The shifted kinds are the plain ones at y = 2x - 1; PyTorch tests x at 1
 * and 0 (not y at +-1) and uses the closed forms from n > 6 (n > 4 for W). */
SP_T SP_NAME(sp_shifted_chebyshev_t)(SP_T x, int64_t n)
{
    SP_T y = x + x - ONE;
    if (n < 0)
        return 0;
    if (x == ONE)
        return ONE;
    if (x == 0)
        return n % 2 == 0 ? ONE : -ONE;
    if (n > 6 && fabs(y) < ONE)
        return cos((SP_T)n * acos(y));
    if (n == 0)
        return ONE;
    if (n == 1)
        return y;
    return SP_NAME(chebyshev_recurrence)(y, y, n);
}

SP_T SP_NAME(sp_shifted_chebyshev_u)(SP_T x, int64_t n)
{
    SP_T y = x + x - ONE;
    if (n < 0)
        return 0;
    if (x == ONE)
        return (SP_T)(n + 1);
    if (x == 0)
        return n % 2 == 0 ? (SP_T)(n + 1) : -(SP_T)(n + 1);
    if (n > 6 && fabs(y) < ONE) {
        if (sin(acos(y)) != 0)
            return sin((SP_T)(n + 1) * acos(y)) / sin(acos(y));
        return (SP_T)(n + 1) * cos((SP_T)(n + 1) * acos(y)) / y;
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return y + y;
    return SP_NAME(chebyshev_recurrence)(y, y + y, n);
}

SP_T SP_NAME(sp_shifted_chebyshev_v)(SP_T x, int64_t n)
{
    SP_T y = x + x - ONE;
    if (n < 0)
        return 0;
    if (x == ONE)
        return ONE;
    if (x == 0)
        return n % 2 == 0 ? TWO_N_PLUS_1(n) : -TWO_N_PLUS_1(n);
    if (n > 6 && fabs(y) < ONE) {
        if (sin(acos(y) / (SP_T)2) != ONE)
            return cos(((SP_T)n + (SP_T)0.5) * acos(y)) / cos(acos(y) / (SP_T)2);
        return n % 2 == 0 ? TWO_N_PLUS_1(n) : -TWO_N_PLUS_1(n);
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return y + y - ONE;
    return SP_NAME(chebyshev_recurrence)(y, y + y - ONE, n);
}

SP_T SP_NAME(sp_shifted_chebyshev_w)(SP_T x, int64_t n)
{
    SP_T y = x + x - ONE;
    if (n < 0)
        return 0;
    if (x == ONE)
        return TWO_N_PLUS_1(n);
    if (x == 0)
        return n % 2 == 0 ? ONE : -ONE;
    if (n > 4 && fabs(y) < ONE) {
        if (cos(acos(y) / (SP_T)2) != ONE)
            return sin(((SP_T)n + (SP_T)0.5) * acos(y)) / sin(acos(y) / (SP_T)2);
        return n % 2 == 0 ? ONE : -ONE;
    }
    if (n == 0)
        return ONE;
    if (n == 1)
        return y + y + ONE;
    return SP_NAME(chebyshev_recurrence)(y, y + y + ONE, n);
}

/* Physicists' Hermite: H_{k+1} = 2x H_k - 2k H_{k-1}. */
SP_T SP_NAME(sp_hermite_h)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (n == 0)
        return ONE;
    if (n == 1)
        return x + x;
    SP_T p = ONE, q = x + x, r = (x + x) * q - (SP_T)2 * p;
    for (int64_t k = 2; k < n && !isnan(r); k++) {
        p = q;
        q = r;
        r = (x + x) * q - (SP_T)(2 * k) * p;
    }
    return r;
}

/* Probabilists' Hermite: He_{k+1} = x He_k - k He_{k-1}. */
SP_T SP_NAME(sp_hermite_he)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (n == 0)
        return ONE;
    if (n == 1)
        return x;
    SP_T p = ONE, q = x, r = x * q - p;
    for (int64_t k = 2; k < n && !isnan(r); k++) {
        p = q;
        q = r;
        r = x * q - (SP_T)k * p;
    }
    return r;
}

/* Laguerre: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}. */
SP_T SP_NAME(sp_laguerre_l)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == 0)
        return ONE;
    if (n == 0)
        return ONE;
    if (n == 1)
        return ONE - x;
    SP_T p = ONE, q = ONE - x, r = q;
    for (int64_t k = 1; k < n && !isnan(q); k++) {
        r = (((SP_T)(k + k) + (ONE - x)) * q - (SP_T)k * p) / (SP_T)(k + 1);
        p = q;
        q = r;
    }
    return r;
}

/* Legendre: (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}. */
SP_T SP_NAME(sp_legendre_p)(SP_T x, int64_t n)
{
    if (n < 0)
        return 0;
    if (fabs(x) == ONE)
        return (x > 0 || n % 2 == 0) ? ONE : -ONE;
    if (n == 0)
        return ONE;
    if (n == 1)
        return x;
    SP_T p = ONE, q = x, r = q;
    for (int64_t k = 1; k < n && !isnan(q); k++) {
        r = ((SP_T)(k + k + 1) * x * q - (SP_T)k * p) / (SP_T)(k + 1);
        p = q;
        q = r;
    }
    return r;
}

#undef ONE
#undef TWO_N_PLUS_1
