/* fuzz_safetensors.c — libFuzzer target for the safetensors reader: any
 * bytes must give a Safetensors or a clean error, never a crash, a leak or
 * an oversized allocation; every tensor it lists must be found by name.
 *
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_safetensors
 *   build-fuzz/fuzz/fuzz_safetensors -max_total_time=60 tests/io/safetensors/valid tests/io/safetensors/bad
 */
#include <stdint.h>
#include <stdlib.h>

#include "tssa/io.h"
#include "tssa/tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Safetensors *st = safetensors_parse(data, size, "fuzz.safetensors", NULL);
    for (int i = 0; i < safetensors_count(st); i++) {
        Tensor *t = safetensors_get(st, safetensors_name(st, i));
        if (!t)
            abort();
        const unsigned char *bytes = tensor_data(t);
        size_t nbytes = (size_t)tensor_numel(t) * dtype_size(t->dtype);
        unsigned sum = 0;
        for (size_t j = 0; j < nbytes; j++)
            sum += bytes[j];
        if (t->dtype == DT_BOOL && sum > nbytes)
            abort();   /* bools must come out as 0 or 1 */
        tensor_release(t);
    }
    (void)safetensors_metadata(st, "format");
    safetensors_close(st);
    return 0;
}
