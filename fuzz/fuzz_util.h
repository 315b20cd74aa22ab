/* fuzz_util.h — the checks the tensor-file fuzz targets (fuzz_npy.c,
 * fuzz_safetensors.c) apply to every tensor a reader hands back.
 */
#ifndef TSSA_FUZZ_UTIL_H
#define TSSA_FUZZ_UTIL_H

#include <stdlib.h>

#include "tssa/tensor.h"

/* Reads every byte of t's elements, so ASan reports a buffer shorter than
 * the shape claims, and aborts on a bool element that is not 0 or 1. */
static inline void fuzz_check_tensor_bytes(const Tensor *t)
{
    const unsigned char *bytes = tensor_data(t);
    size_t nbytes = (size_t)tensor_numel(t) * dtype_size(t->dtype);
    unsigned sum = 0;
    for (size_t i = 0; i < nbytes; i++)
        sum += bytes[i];
    if (t->dtype == DT_BOOL && sum > nbytes)
        abort();   /* bools must come out as 0 or 1 */
}

#endif
