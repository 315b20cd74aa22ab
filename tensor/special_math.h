/* special_math.h — scalar special functions behind tensor/special.c.
 *
 * Each follows the published algorithm PyTorch 1.13's CPU kernels use
 * (aten/src/ATen/native/Math.h), so edge values (poles, negative integers,
 * infinities, NaN) come out the same: Cephes (S. L. Moshier) series,
 * rational and Chebyshev expansions for digamma, zeta, ndtri, the Bessel,
 * Airy and modified Bessel functions; SciPy's/DLMF's split of the
 * incomplete gamma functions into series, continued fraction and uniform
 * asymptotic expansion; the three-term recurrences of the classical
 * orthogonal polynomials. Everything computes in double except where
 * PyTorch's float32 kernel gives visibly different values (digamma,
 * trigamma and mvlgamma near their poles, ndtr and erfcx where float
 * underflows or overflows, the polynomials and the Bessel-type functions
 * where float overflows or reduces large arguments less accurately), which
 * have float twins.
 */
#ifndef TSSA_SPECIAL_MATH_H
#define TSSA_SPECIAL_MATH_H

#include <stdbool.h>
#include <stdint.h>

double sp_digamma(double x);
float sp_digamma_f(float x);
double sp_trigamma(double x);
float sp_trigamma_f(float x);
/* Hurwitz zeta(x, q) = sum_k (k + q)^-x. */
double sp_zeta(double x, double q);
/* psi^(n)(x) for n >= 2 (n = 0, 1 are digamma and trigamma). */
double sp_polygamma(int64_t n, double x);
/* log of the multivariate gamma function of dimension p. */
double sp_mvlgamma(double x, int64_t p);
float sp_mvlgamma_f(float x, int64_t p);

double sp_erfinv(double y);
double sp_erfcx(double x);
float sp_erfcx_f(float x);
double sp_ndtr(double x);
float sp_ndtr_f(float x);
double sp_ndtri(double y);
double sp_log_ndtr(double x);
double sp_entr(double x);

/* Bessel-type functions, in double and in float (special_bessel.c). */
double sp_i0(double x);
float sp_i0_f(float x);
double sp_i0e(double x);
float sp_i0e_f(float x);
double sp_i1(double x);
float sp_i1_f(float x);
double sp_i1e(double x);
float sp_i1e_f(float x);
double sp_modified_bessel_i0(double x);
float sp_modified_bessel_i0_f(float x);
double sp_modified_bessel_i1(double x);
float sp_modified_bessel_i1_f(float x);
double sp_modified_bessel_k0(double x);
float sp_modified_bessel_k0_f(float x);
double sp_modified_bessel_k1(double x);
float sp_modified_bessel_k1_f(float x);
double sp_scaled_modified_bessel_k0(double x);
float sp_scaled_modified_bessel_k0_f(float x);
double sp_scaled_modified_bessel_k1(double x);
float sp_scaled_modified_bessel_k1_f(float x);
double sp_bessel_j0(double x);
float sp_bessel_j0_f(float x);
double sp_bessel_j1(double x);
float sp_bessel_j1_f(float x);
double sp_bessel_y0(double x);
float sp_bessel_y0_f(float x);
double sp_bessel_y1(double x);
float sp_bessel_y1_f(float x);
double sp_spherical_bessel_j0(double x);
float sp_spherical_bessel_j0_f(float x);
double sp_airy_ai(double x);
float sp_airy_ai_f(float x);

/* Regularized lower (igamma) and upper (igammac) incomplete gamma P(a, x), Q(a, x). */
double sp_igamma(double a, double x);
double sp_igammac(double a, double x);

/* x * log(y) and x * log1p(y) with 0 for x == 0 (unless y is NaN). */
double sp_xlogy(double x, double y);
double sp_xlog1py(double x, double y);

/* The orthogonal polynomials of degree n (n < 0 gives 0), in double and in
 * float (special_poly.c). */
double sp_chebyshev_t(double x, int64_t n);
float sp_chebyshev_t_f(float x, int64_t n);
double sp_chebyshev_u(double x, int64_t n);
float sp_chebyshev_u_f(float x, int64_t n);
double sp_chebyshev_v(double x, int64_t n);
float sp_chebyshev_v_f(float x, int64_t n);
double sp_chebyshev_w(double x, int64_t n);
float sp_chebyshev_w_f(float x, int64_t n);
double sp_shifted_chebyshev_t(double x, int64_t n);
float sp_shifted_chebyshev_t_f(float x, int64_t n);
double sp_shifted_chebyshev_u(double x, int64_t n);
float sp_shifted_chebyshev_u_f(float x, int64_t n);
double sp_shifted_chebyshev_v(double x, int64_t n);
float sp_shifted_chebyshev_v_f(float x, int64_t n);
double sp_shifted_chebyshev_w(double x, int64_t n);
float sp_shifted_chebyshev_w_f(float x, int64_t n);
double sp_hermite_h(double x, int64_t n);
float sp_hermite_h_f(float x, int64_t n);
double sp_hermite_he(double x, int64_t n);
float sp_hermite_he_f(float x, int64_t n);
double sp_laguerre_l(double x, int64_t n);
float sp_laguerre_l_f(float x, int64_t n);
double sp_legendre_p(double x, int64_t n);
float sp_legendre_p_f(float x, int64_t n);

#endif
