/* special_bessel_impl.h — the Bessel-type functions for one floating type,
 * included by special_bessel.c once per type with
 *   SP_T        the type (float or double)
 *   SP_NAME(n)  the function name for that type
 *   SP_FLOAT    1 for float (where PyTorch's i1/i1e use shortened tables)
 * Literals written C(v) are of type SP_T, as PyTorch's T(v); bare literals
 * are double, as in PyTorch's kernels (k0's log(0.5 * x)), so the float
 * instance rounds where PyTorch's float kernel does. Math calls are
 * type-generic (<tgmath.h>); coefficient tables are double, rounded to SP_T
 * on use as PyTorch's `static const T coeff[]` are.
 */

#define C(v) ((SP_T)(v))

/* Horner: coef[0] x^n + ... + coef[n]. */
static SP_T SP_NAME(polevl)(SP_T x, const double *coef, int n)
{
    SP_T r = 0;
    for (int i = 0; i <= n; i++)
        r = r * x + C(coef[i]);
    return r;
}

/* Cephes chbevl: sum of coef[i] T_i(x/2), highest order first. */
static SP_T SP_NAME(chbevl)(SP_T x, const double *coef, int len)
{
    SP_T b0 = C(coef[0]), b1 = 0, b2 = 0;
    for (int i = 1; i < len; i++) {
        b2 = b1;
        b1 = b0;
        b0 = x * b1 - b2 + C(coef[i]);
    }
    return C(0.5) * (b0 - b2);
}

/* exp(-x) I1(x) expansions: the float kernel uses only the last 17 and 7
 * coefficients (the rest are below float precision). */
#if SP_FLOAT
#define I1E_A_TABLE (I1E_A + 12)
#define I1E_A_LEN 17
#define I1E_B_TABLE (I1E_B + 18)
#define I1E_B_LEN 7
#else
#define I1E_A_TABLE I1E_A
#define I1E_A_LEN 29
#define I1E_B_TABLE I1E_B
#define I1E_B_LEN 25
#endif

SP_T SP_NAME(sp_i0e)(SP_T x)
{
    x = fabs(x);
    if (x <= C(8.0))
        return SP_NAME(chbevl)(x / C(2.0) - C(2.0), I0E_A, 30);
    return SP_NAME(chbevl)(C(32.0) / x - C(2.0), I0E_B, 25) / sqrt(x);
}

SP_T SP_NAME(sp_i0)(SP_T x)
{
    x = fabs(x);
    if (x <= C(8.0))
        return exp(x) * SP_NAME(chbevl)(x / C(2.0) - C(2.0), I0E_A, 30);
    return exp(x) * SP_NAME(chbevl)(C(32.0) / x - C(2.0), I0E_B, 25) / sqrt(x);
}

SP_T SP_NAME(sp_i1e)(SP_T x0)
{
    SP_T x = fabs(x0), out;
    if (x <= C(8.0))
        out = SP_NAME(chbevl)(x / C(2.0) - C(2.0), I1E_A_TABLE, I1E_A_LEN) * x;
    else
        out = SP_NAME(chbevl)(C(32.0) / x - C(2.0), I1E_B_TABLE, I1E_B_LEN) / sqrt(x);
    return x0 < 0 ? -out : out;
}

SP_T SP_NAME(sp_i1)(SP_T x0)
{
    SP_T x = fabs(x0), out;
    if (x <= C(8.0))
        out = exp(x) * x * SP_NAME(chbevl)(x / C(2.0) - C(2.0), I1E_A_TABLE, I1E_A_LEN);
    else
        out = exp(x) * SP_NAME(chbevl)(C(32.0) / x - C(2.0), I1E_B_TABLE, I1E_B_LEN) / sqrt(x);
    return x0 < 0 ? -out : out;
}

#undef I1E_A_TABLE
#undef I1E_A_LEN
#undef I1E_B_TABLE
#undef I1E_B_LEN

/* torch.special.modified_bessel_i0/i1: the full tables in either type. */
SP_T SP_NAME(sp_modified_bessel_i0)(SP_T x)
{
    SP_T ax = fabs(x);
    if (ax <= C(8.0))
        return exp(ax) * SP_NAME(chbevl)(ax / C(2.0) - C(2.0), I0E_A, 30);
    return exp(ax) * SP_NAME(chbevl)(C(32.0) / ax - C(2.0), I0E_B, 25) / sqrt(ax);
}

SP_T SP_NAME(sp_modified_bessel_i1)(SP_T x)
{
    SP_T ax = fabs(x), out;
    if (ax <= C(8.0))
        out = SP_NAME(chbevl)(ax / C(2.0) - C(2.0), I1E_A, 29) * ax * exp(ax);
    else
        out = exp(ax) * SP_NAME(chbevl)(C(32.0) / ax - C(2.0), I1E_B, 25) / sqrt(ax);
    return x < 0 ? -out : out;
}

/* K0(x) + log(x/2) I0(x) on [0, 2] in T_i(x^2 - 2); exp(x) sqrt(x) K0(x)
 * beyond in T_i(8/x - 2). Likewise K1. */
SP_T SP_NAME(sp_modified_bessel_k0)(SP_T x)
{
    if (x == 0)
        return INFINITY;
    if (x < 0)
        return NAN;
    if (x <= C(2.0))
        return SP_NAME(chbevl)(x * x - C(2.0), K0_A, 10) -
               log(0.5 * x) * SP_NAME(sp_modified_bessel_i0)(x);
    return exp(-x) * SP_NAME(chbevl)(C(8.0) / x - C(2.0), K0_B, 25) / sqrt(x);
}

SP_T SP_NAME(sp_scaled_modified_bessel_k0)(SP_T x)
{
    if (x == 0)
        return INFINITY;
    if (x < 0)
        return NAN;
    if (x <= C(2.0))
        return (SP_NAME(chbevl)(x * x - C(2.0), K0_A, 10) -
                log(C(0.5) * x) * SP_NAME(sp_modified_bessel_i0)(x)) * exp(x);
    return SP_NAME(chbevl)(C(8.0) / x - C(2.0), K0_B, 25) / sqrt(x);
}

SP_T SP_NAME(sp_modified_bessel_k1)(SP_T x)
{
    if (x == 0)
        return INFINITY;
    if (x < 0)
        return NAN;
    if (x <= C(2.0))
        return log(C(0.5) * x) * SP_NAME(sp_modified_bessel_i1)(x) +
               SP_NAME(chbevl)(x * x - C(2.0), K1_A, 11) / x;
    return exp(-x) * SP_NAME(chbevl)(C(8.0) / x - C(2.0), K1_B, 25) / sqrt(x);
}

SP_T SP_NAME(sp_scaled_modified_bessel_k1)(SP_T x)
{
    if (x == 0)
        return INFINITY;
    if (x < 0)
        return NAN;
    if (x <= C(2.0))
        return (log(C(0.5) * x) * SP_NAME(sp_modified_bessel_i1)(x) +
                SP_NAME(chbevl)(x * x - C(2.0), K1_A, 11) / x) * exp(x);
    return SP_NAME(chbevl)(C(8.0) / x - C(2.0), K1_B, 25) / sqrt(x);
}

/* Bessel J and Y. Below 5: rational approximations (J0 and J1 with their
 * first two zeros factored out; Y adds (2/pi) log(x) J). Above: Hankel's
 * form sqrt(2/(pi x)) (P cos(x - phase) -+ (5/x) Q sin(x - phase)) with P,
 * Q rational in 25/x^2. */
#define SQRT_2_OVER_PI C(0.797884560802865355879892119868763737)
#define PI_OVER_4 C(0.785398163397448309615660845819875721)
#define THREE_PI_OVER_4 C(2.356194490192344928846982537459627163)
#define TWO_OVER_PI C(0.636619772367581343075535053490057448)

SP_T SP_NAME(sp_bessel_j0)(SP_T x)
{
    if (x < 0)
        x = -x;
    if (x <= C(5.0)) {
        if (x < C(0.00001))
            return C(1.0) - x * x / C(4.0);
        SP_T z = x * x;
        return (z - C(5.78318596294678452118e+00)) * (z - C(3.04712623436620863991e+01)) *
               SP_NAME(polevl)(z, J0_RP, 3) / SP_NAME(polevl)(z, J0_RQ, 7);
    }
    SP_T w = C(25.0) / (x * x);
    SP_T p = SP_NAME(polevl)(w, J0_PP, 6) / SP_NAME(polevl)(w, J0_PQ, 6);
    SP_T q = SP_NAME(polevl)(w, J0_QP, 7) / SP_NAME(polevl)(w, J0_QQ, 6);
    return (p * cos(x - PI_OVER_4) - C(5.0) / x * q * sin(x - PI_OVER_4)) * SQRT_2_OVER_PI / sqrt(x);
}

SP_T SP_NAME(sp_bessel_j1)(SP_T x)
{
    if (x < 0)
        return -SP_NAME(sp_bessel_j1)(-x);
    if (x <= C(5.0)) {
        SP_T z = x * x;
        return SP_NAME(polevl)(z, J1_RP, 3) / SP_NAME(polevl)(z, J1_RQ, 7) * x *
               (z - C(1.46819706421238932572e+01)) * (z - C(4.92184563216946036703e+01));
    }
    SP_T w = C(5.0) / x * (C(5.0) / x);
    SP_T p = SP_NAME(polevl)(w, J1_PP, 6) / SP_NAME(polevl)(w, J1_PQ, 6);
    SP_T q = SP_NAME(polevl)(w, J1_QP, 7) / SP_NAME(polevl)(w, J1_QQ, 6);
    return (p * cos(x - THREE_PI_OVER_4) - C(5.0) / x * q * sin(x - THREE_PI_OVER_4)) *
           SQRT_2_OVER_PI / sqrt(x);
}

SP_T SP_NAME(sp_bessel_y0)(SP_T x)
{
    if (x <= C(5.0)) {
        if (x == 0)
            return -INFINITY;
        if (x < 0)
            return NAN;
        SP_T z = x * x;
        return SP_NAME(polevl)(z, Y0_YP, 7) / SP_NAME(polevl)(z, Y0_YQ, 6) +
               TWO_OVER_PI * log(x) * SP_NAME(sp_bessel_j0)(x);
    }
    SP_T w = C(25.0) / (x * x);
    SP_T p = SP_NAME(polevl)(w, J0_PP, 6) / SP_NAME(polevl)(w, J0_PQ, 6);
    SP_T q = SP_NAME(polevl)(w, J0_QP, 7) / SP_NAME(polevl)(w, J0_QQ, 6);
    return (p * sin(x - PI_OVER_4) + C(5.0) / x * q * cos(x - PI_OVER_4)) * SQRT_2_OVER_PI / sqrt(x);
}

SP_T SP_NAME(sp_bessel_y1)(SP_T x)
{
    if (x <= C(5.0)) {
        if (x == 0)
            return -INFINITY;
        if (x <= 0)
            return NAN;
        SP_T z = x * x;
        return x * (SP_NAME(polevl)(z, Y1_YP, 5) / SP_NAME(polevl)(z, Y1_YQ, 7)) +
               TWO_OVER_PI * (SP_NAME(sp_bessel_j1)(x) * log(x) - C(1.0) / x);
    }
    SP_T w = C(5.0) / x * (C(5.0) / x);
    SP_T p = SP_NAME(polevl)(w, J1_PP, 6) / SP_NAME(polevl)(w, J1_PQ, 6);
    SP_T q = SP_NAME(polevl)(w, J1_QP, 7) / SP_NAME(polevl)(w, J1_QQ, 6);
    return (p * sin(x - THREE_PI_OVER_4) + C(5.0) / x * q * cos(x - THREE_PI_OVER_4)) *
           SQRT_2_OVER_PI / sqrt(x);
}

#undef SQRT_2_OVER_PI
#undef PI_OVER_4
#undef THREE_PI_OVER_4
#undef TWO_OVER_PI

/* sin(x)/x, by its Taylor polynomial below 1/2. */
SP_T SP_NAME(sp_spherical_bessel_j0)(SP_T x)
{
    if (isinf(x))
        return 0;
    if (fabs(x) < C(0.5)) {
        SP_T z = x * x;
        return C(1.0) + z * (C(-1.0) / C(6.0) + z * (C(1.0) / C(120.0) + z * (C(-1.0) / C(5040.0) +
               z * (C(1.0) / C(362880.0) + z * (C(-1.0) / C(39916800.0) + z * (C(1.0) / C(6227020800.0)))))));
    }
    return sin(x) / x;
}

/* Airy Ai (Cephes airy.c): the Maclaurin series Ai = c1 f - c2 g for
 * |x| < 2.09; beyond, the asymptotic forms in zeta = (2/3)|x|^(3/2) with
 * rational corrections. */
SP_T SP_NAME(sp_airy_ai)(SP_T x)
{
    const SP_T inv_sqrt_pi = C(5.64189583547756286948e-01);
    if (isinf(x))
        return NAN;
    if (x > C(103.892))
        return 0;
    if (x < C(-2.09)) {
        SP_T z = C(1.0) / (C(-2.0) * x * sqrt(-x) / C(3.0)), zz = z * z;
        SP_T afn = SP_NAME(polevl)(zz, AIRY_AFN, 8), afd = SP_NAME(polevl)(zz, AIRY_AFD, 8);
        SP_T agn = SP_NAME(polevl)(zz, AIRY_AGN, 10), agd = SP_NAME(polevl)(zz, AIRY_AGD, 9);
        SP_T t = C(-2.0) * x * sqrt(-x) / C(3.0) + C(0.25) * C(3.14159265358979323846);
        return inv_sqrt_pi / sqrt(sqrt(-x)) *
               (sin(t) * (C(1.0) + zz * afn / afd) - cos(t) * (z * agn / agd));
    }
    if (x >= C(2.09)) {
        SP_T zeta = C(2.0) * x * sqrt(x) / C(3.0), w = C(1.0) / zeta;
        return inv_sqrt_pi * (SP_NAME(polevl)(w, AIRY_AN, 7) / SP_NAME(polevl)(w, AIRY_AD, 7)) /
               (C(2.0) * sqrt(sqrt(x)) * exp(zeta));
    }
    const SP_T eps = SP_FLOAT ? C(1.1920928955078125e-07) : C(2.220446049250313e-16);
    SP_T f = 1, g = x, k = 1, m = 1, n = x, t = 1, z = x * x * x;
    while (t > eps) {
        m *= z;
        k += C(1.0);
        m /= k;
        n *= z;
        k += C(1.0);
        n /= k;
        m /= k;
        f += m;
        k += C(1.0);
        n /= k;
        g += n;
        t = fabs(m / f);
    }
    return C(0.355028053887817239260) * f - C(0.258819403792806798405) * g;
}

#undef C
