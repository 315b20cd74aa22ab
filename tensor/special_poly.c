/* special_poly.c — the classical orthogonal polynomials (Chebyshev T, U, V,
 * W and their shifted kinds, Hermite H and He, Laguerre L, Legendre P), in
 * float and double: special_poly_impl.h once per type. */
#include <stdint.h>
#include <tgmath.h>

#include "tensor/special_math.h"

#define SP_T float
#define SP_NAME(n) n##_f
#include "tensor/special_poly_impl.h"
#undef SP_T
#undef SP_NAME

#define SP_T double
#define SP_NAME(n) n
#include "tensor/special_poly_impl.h"
#undef SP_T
#undef SP_NAME
