/* test_cost_terms.c — the cost model's kernel terms: the math-library calls
 * an op table template makes per element (kir_math_calls, which
 * filter_costs.c charges at the math rate), and the probe that measures
 * the bandwidth and the math rate with code compiled as the kernels are
 * (kernels/measure_rates.c). Expected counts are read off the templates
 * by hand; the probe's figures are bounded by what any machine that runs
 * the suite gives (a triad of at least 0.1 GB/s, a tanh/exp call under
 * 1 us, and a tanh dearer than one byte of a triad is not asserted: it
 * depends on the machine).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "test_util.h"
#include "tssa/kernels.h"
#include "tssa/ops.h"

static void test_math_calls(void)
{
    CHECK(kir_math_calls("(T)1 / ((T)1 + EXP(-$0))") == 1);    /* sigmoid */
    CHECK(kir_math_calls("POW($0, $1)") == 1);
    CHECK(kir_math_calls("EXP(LOG($0)) + TANH($1)") == 3);
    CHECK(kir_math_calls("$0 + $2 * $1") == 0);
    CHECK(kir_math_calls("SQRT($0)") == 0);                      /* an instruction, not a call */
    CHECK(kir_math_calls("FLOOR($0)") == 0);
    CHECK(kir_math_calls("ISNAN($0)") == 0);
    CHECK(kir_math_calls("EXP") == 0);                           /* a name, not a call */
    CHECK(kir_math_calls("") == 0);
    /* the op table's own rows */
    CHECK(kir_math_calls(op_template(OP_ATEN_TANH)->text) == 1);
    CHECK(kir_math_calls(op_template(OP_ATEN_SILU)->text) == 1);
    CHECK(kir_math_calls(op_template(OP_ATEN_ATAN2)->text) == 0); /* atan2 has no vector variant */
    CHECK(kir_math_calls(op_template(OP_ATEN_MUL)->text) == 0);
}

static void test_probe(void)
{
    char dir[] = "/tmp/tssa-cost-terms-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("TSSA_CACHE_DIR", dir, 1);
    double bytes = 0, math = 0;
    if (!kernels_measure_rates(NULL, 1, &bytes, &math)) {
        fprintf(stderr, "test_cost_terms: no C compiler: probe skipped\n");
    } else {
        fprintf(stderr, "test_cost_terms: triad %.3g GB/s, %.3g math calls/s (one thread)\n", bytes * 1e-9, math);
        CHECK(isfinite(bytes) && bytes > 1e8);
        CHECK(isfinite(math) && math > 1e6);
    }
    char *cmd = xprintf("rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    free(cmd);
}

int main(void)
{
    test_math_calls();
    test_probe();
    return test_report("test_cost_terms");
}
