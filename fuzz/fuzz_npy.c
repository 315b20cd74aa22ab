/* fuzz_npy.c — libFuzzer target for the .npy reader: any bytes must give a
 * tensor or a clean error, never a crash, a leak or an oversized allocation.
 * A tensor that parses is also written back and must read back equal, so
 * the writer is fuzzed over every shape and dtype the reader accepts.
 *
 *   CC=clang cmake -S . -B build-fuzz -DTSSA_FUZZ=ON && cmake --build build-fuzz --target fuzz_npy
 *   build-fuzz/fuzz/fuzz_npy -max_total_time=60 tests/tensor/io/npy/valid tests/tensor/io/npy/bad
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

/* Round trip through a file in a private temp dir (npy_write needs a path). */
static void check_round_trip(const Tensor *t)
{
    static char dir[] = "/tmp/fuzz_npy_XXXXXX";
    static char path[64];
    if (!path[0]) {
        if (!mkdtemp(dir))
            return;
        snprintf(path, sizeof path, "%s/out.npy", dir);
    }
    if (tensor_numel(t) > (1 << 20) || !npy_write(path, t, NULL))
        return;
    Tensor *back = npy_read(path, NULL);
    if (!back || back->dtype != t->dtype || !tensor_same_shape(back, t) ||
        memcmp(tensor_data(back), tensor_data(t), (size_t)tensor_numel(t) * dtype_size(t->dtype)) != 0)
        abort();
    tensor_release(back);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Tensor *t = npy_parse(data, size, "fuzz.npy", NULL);
    if (t) {
        fuzz_check_tensor_bytes(t);
        check_round_trip(t);
    }
    tensor_release(t);
    return 0;
}
