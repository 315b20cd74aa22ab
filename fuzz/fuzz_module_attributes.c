/* fuzz_module_attributes.c — libFuzzer target for module attributes read
 * from a weights file's __metadata__ (eval/module.c): scalars as text,
 * containers as JSON ({"__tensor__": NAME} for tensors inside,
 * {"__object__": PATH} for objects of TorchScript classes, tied tensor
 * names), parsed by the type the graph declares.
 *
 * The input is one metadata value. It is stored under the name "a" of an
 * in-memory safetensors file that also holds a tensor "w", and read back as
 * each type of a fixed graph's inputs (lists, nested lists, tuples, dicts
 * with str and int keys, tensors, Optional, Any, lists and dicts of
 * objects, an Optional object). Any text must give a value
 * or fail cleanly with a reason (no crash, no leak).
 *
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_module_attributes
 *   build-fuzz/fuzz/fuzz_module_attributes -max_total_time=60
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tssa/eval.h"
#include "tssa/frontend.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/value.h"

static const char graph_text[] =
    "graph(%a : int[], %b : Dict(str, float), %c : (int, str), %d : int[][], %e : Dict(int, Tensor[]),\n"
    "      %f : Tensor, %g : float?, %h : Any, %i : bool[], %j : str, %k : Tensor[],\n"
    "      %l : __torch__.C[], %m : Dict(str, __torch__.C), %n : __torch__.C?):\n"
    "  return (%a)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A safetensors file: 8-byte header length, the JSON header, the data. */
static uint8_t *safetensors_with_metadata(const char *value, size_t *len)
{
    cJSON *header = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(header, "__metadata__");
    cJSON_AddStringToObject(meta, "a", value);
    cJSON *w = cJSON_AddObjectToObject(header, "w");
    cJSON_AddStringToObject(w, "dtype", "F32");
    cJSON *shape = cJSON_AddArrayToObject(w, "shape");
    cJSON_AddItemToArray(shape, cJSON_CreateNumber(2));
    cJSON *offsets = cJSON_AddArrayToObject(w, "data_offsets");
    cJSON_AddItemToArray(offsets, cJSON_CreateNumber(0));
    cJSON_AddItemToArray(offsets, cJSON_CreateNumber(8));
    char *text = cJSON_PrintUnformatted(header);
    cJSON_Delete(header);
    if (!text)
        return NULL;
    size_t hlen = strlen(text);
    uint8_t *blob = malloc(8 + hlen + 8);
    if (blob) {
        for (int i = 0; i < 8; i++)
            blob[i] = (uint8_t)((uint64_t)hlen >> (8 * i));
        memcpy(blob + 8, text, hlen);
        memset(blob + 8 + hlen, 0, 8);
        *len = 8 + hlen + 8;
    }
    cJSON_free(text);
    return blob;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static IrGraph *g;
    if (!g && !(g = ir_parse(graph_text, sizeof graph_text - 1, "fuzz.ir", NULL)))
        abort();
    char *value = malloc(size + 1);
    if (!value)
        return 0;
    memcpy(value, data, size);
    value[size] = '\0';
    size_t len = 0;
    uint8_t *blob = safetensors_with_metadata(value, &len);
    Safetensors *st = blob ? safetensors_parse(blob, len, "fuzz.safetensors", NULL) : NULL;
    for (int i = 0; st && i < ir_block_nparams(g->top); i++) {
        char *why = NULL;
        RtValue *v = eval_module_attribute(st, "a", ir_block_param(g->top, i)->type, &why);
        if (!v == !why)
            abort();   /* a value, or a reason: exactly one */
        rt_release(v);
        free(why);
    }
    safetensors_close(st);
    free(blob);
    free(value);
    return 0;
}
