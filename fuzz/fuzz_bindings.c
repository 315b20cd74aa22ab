/* fuzz_bindings.c — libFuzzer target for the command line's NAME=VALUE
 * bindings (frontend/bindings.c), the one reader of outside input that takes
 * its text from argv rather than a file.
 *
 * The input is split at newlines into binding strings and resolved against a
 * fixed graph whose inputs have every type a binding can fill from text
 * (int, float, bool, str, Scalar, Device, Optional, Any, and the JSON
 * arrays of lists and tuples, nested). Tensor inputs are left out on
 * purpose: their values are paths, and a fuzzer naming /dev/stdin would only
 * test the terminal. Any text must bind or fail cleanly (false, no leak);
 * when it binds, every input has a value.
 *
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_bindings
 *   build-fuzz/fuzz/fuzz_bindings -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/value.h"

static const char graph_text[] =
    "graph(%n.1 : int, %f.1 : float, %b.1 : bool, %s.1 : str, %x.1 : Scalar,\n"
    "      %d.1 : Device, %o.1 : int?, %g.1 : float?, %a.1 : Any?,\n"
    "      %l.1 : int[], %t.1 : (float, bool), %m.1 : int?[][]?):\n"
    "  return (%n.1, %f.1, %b.1, %s.1, %x.1, %d.1, %o.1, %g.1, %a.1, %l.1, %t.1, %m.1)\n";

enum { MAX_BINDINGS = 32 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static IrGraph *g;
    if (!g && !(g = ir_parse(graph_text, sizeof graph_text - 1, "fuzz.ir", NULL)))
        abort();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *bind[MAX_BINDINGS];
    int nbind = 0;
    for (char *line = text, *next; line && nbind < MAX_BINDINGS; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        bind[nbind++] = line;
    }
    RtValue **inputs = NULL;
    int ninputs = 0;
    Safetensors *weights = NULL;
    if (bindings_resolve(g, nbind, bind, NULL, &inputs, &ninputs, &weights, NULL)) {
        if (ninputs != ir_block_nparams(g->top))
            abort();
        for (int i = 0; i < ninputs; i++) {
            if (!inputs[i])
                abort();
            rt_release(inputs[i]);
        }
        free(inputs);
    }
    free(text);
    return 0;
}
