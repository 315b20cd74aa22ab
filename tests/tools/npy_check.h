/* npy_check.h — whether an output .npy equals the expected one, as the test
 * corpus judges it (npy_check.c; the npy_compare command and the
 * conformance runner tssa-conform both use it).
 *
 * Equal means: the same dtype, the same shape, and every element equal. Floats
 * are equal when |actual - expected| <= atol + rtol * |expected| (numpy's
 * isclose), NaN equals NaN, and an infinity equals only the same infinity;
 * integers and bools must match exactly.
 */
#ifndef TSSA_TESTS_NPY_CHECK_H
#define TSSA_TESTS_NPY_CHECK_H

#include <stdio.h>

/* The corpus's tolerances (npy_compare's defaults; the runners pass none). */
#define NPY_CHECK_RTOL 1e-4
#define NPY_CHECK_ATOL 1e-5

/* Compares the files: 0 equal; 1 different, after writing to `report` the
 * first mismatches (index, expected, actual) and the largest absolute and
 * relative errors, or the dtypes or shapes that differ; 2 when a file
 * cannot be read (the reader's message goes to `errors`). */
int npy_check_files(const char *expected_path, const char *actual_path, double rtol,
                    double atol, FILE *report, FILE *errors);

#endif
