/* fuzz_ir_parser.c — libFuzzer target for the TorchScript graph reader.
 *
 * Each input is parsed as graph text. When it parses, it is verified,
 * checked against the op table (the driver's stage after reading), printed, and the printed text is parsed and printed again: the two
 * printings must be identical (printing is a fixpoint) and the second parse
 * must succeed; then its composite ops are inlined (ir_expand_decompositions)
 * and the graph must still verify; otherwise the target aborts so libFuzzer
 * records the input.
 * Error messages go nowhere (err = NULL); a crash, hang, leak or sanitizer
 * report is a bug.
 *
 * Seed corpus: tests/frontend/golden/ and tests/models/NAME/model.ir.
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_ir_parser
 *   mkdir -p /tmp/corpus && cp tests/frontend/golden/NAME.ir ... /tmp/corpus/
 *   build-fuzz/fuzz/fuzz_ir_parser /tmp/corpus -max_total_time=60
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/frontend.h"
#include "tssa/ir.h"

static char *print_graph(const IrGraph *g, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    if (!f)
        abort();
    ir_print(f, g);
    fclose(f);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    IrGraph *g = ir_parse((const char *)data, size, "fuzz.ir", NULL);
    if (!g)
        return 0;
    if (!ir_verify(g, NULL))
        abort();
    (void)ir_check_ops(g, NULL, 0, NULL);   /* the driver's next stage: any answer, no crash */
    size_t len1, len2;
    char *first = print_graph(g, &len1);
    IrGraph *again = ir_parse(first, len1, "printed.ir", NULL);
    if (!again) {
        fprintf(stderr, "printed graph does not parse:\n%s", first);
        ir_parse(first, len1, "printed.ir", stderr);
        abort();
    }
    char *second = print_graph(again, &len2);
    if (len1 != len2 || memcmp(first, second, len1) != 0) {
        fprintf(stderr, "printing is not a fixpoint:\n--- first\n%s--- second\n%s", first, second);
        abort();
    }
    free(first);
    free(second);
    /* the driver's stage after --emit=ir: composite ops inlined, and the
     * graph still well formed whatever their arguments */
    if (ir_expand_decompositions(g, NULL) < 0 || !ir_verify(g, NULL))
        abort();
    ir_graph_free(again);
    ir_graph_free(g);
    return 0;
}
