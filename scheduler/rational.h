/* rational.h — exact 64-bit rationals and checked integer arithmetic for the
 * scheduler (private to scheduler/).
 *
 * Every function returns false instead of overflowing; the caller turns
 * that into an error naming the stream whose rates caused it.
 */
#ifndef TSSA_RATIONAL_H
#define TSSA_RATIONAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tssa/util.h"      /* gcd64 */

/* Always normalized: den > 0, gcd(|num|, den) == 1, zero is 0/1. */
typedef struct Rational {
    int64_t num, den;
} Rational;

bool mul64(int64_t a, int64_t b, int64_t *out);
bool add64(int64_t a, int64_t b, int64_t *out);
bool lcm64(int64_t a, int64_t b, int64_t *out);  /* a, b > 0 */

Rational rat_int(int64_t n);
/* n / d with d != 0, normalized. */
bool rat_make(int64_t n, int64_t d, Rational *out);
bool rat_mul(Rational a, Rational b, Rational *out);
bool rat_div(Rational a, Rational b, Rational *out);    /* b != 0 */
/* a * n / d: the step of a balance equation (firings of the producer times
 * items per firing, over items per firing of the consumer). */
bool rat_scale(Rational a, int64_t n, int64_t d, Rational *out);
bool rat_equal(Rational a, Rational b);

/* Turns v[0..n-1] (non-negative) into the least integer vector with the same
 * ratios: multiplies by the lcm of the denominators, divides by the gcd of
 * the numerators. Zeros stay zero. False on overflow. */
bool rat_to_least_integers(const Rational *v, int n, int64_t *out);

#endif
