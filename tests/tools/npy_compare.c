/* npy_compare — compares two .npy files, as the test corpus needs:
 *
 *     npy_compare EXPECTED.npy ACTUAL.npy [--rtol 1e-4] [--atol 1e-5]
 *
 * Equal is what tools/npy_check.h says (the conformance runner,
 * tests/conformance, judges with the same function).
 *
 * Exit status: 0 equal; 1 different, after printing the first mismatches
 * (index, expected, actual) and the largest absolute and relative errors;
 * 2 bad usage or a file that cannot be read.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/npy_check.h"

static void usage(void)
{
    fprintf(stderr, "usage: npy_compare EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A]\n");
}

/* Parses a tolerance: a finite, non-negative number and nothing else. */
static bool parse_tolerance(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    const char *paths[2];
    int npaths = 0;
    double rtol = NPY_CHECK_RTOL, atol = NPY_CHECK_ATOL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        double *tolerance = NULL;
        const char *value = NULL;
        if (strncmp(arg, "--rtol", 6) == 0 || strncmp(arg, "--atol", 6) == 0) {
            tolerance = arg[2] == 'r' ? &rtol : &atol;
            if (arg[6] == '=')
                value = arg + 7;
            else if (arg[6] == '\0' && i + 1 < argc)
                value = argv[++i];
            if (!value || !parse_tolerance(value, tolerance)) {
                fprintf(stderr, "npy_compare: %s needs a non-negative number\n", arg);
                usage();
                return 2;
            }
        } else if (arg[0] == '-' && arg[1] == '-') {
            fprintf(stderr, "npy_compare: unknown option %s\n", arg);
            usage();
            return 2;
        } else if (npaths < 2) {
            paths[npaths++] = arg;
        } else {
            usage();
            return 2;
        }
    }
    if (npaths != 2) {
        usage();
        return 2;
    }

    return npy_check_files(paths[0], paths[1], rtol, atol, stdout, stderr);
}
