/* fuzz_safetensors.c — libFuzzer target for the safetensors reader: any
 * bytes must give a Safetensors or a clean error, never a crash, a leak or
 * an oversized allocation; every tensor it lists must be found by name.
 *
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_safetensors
 *   build-fuzz/fuzz/fuzz_safetensors -max_total_time=60 tests/tensor/io/safetensors/valid tests/tensor/io/safetensors/bad
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
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
        fuzz_check_tensor_bytes(t);
        tensor_release(t);
    }
    (void)safetensors_metadata(st, "format");
    safetensors_close(st);
    return 0;
}
