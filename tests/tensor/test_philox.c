/* test_philox.c — Philox4x32 (tensor/philox.c) against the known-answer
 * vectors of the Random123 distribution (tests/kat_vectors, the lines
 * "philox4x32 10 ..." and "philox4x32 7 ..."): counter (4 words), key
 * (2 words), expected output (4 words). They are the published answers of
 * an independent implementation, not of the code under test.
 *
 * Also the element scheme of tensor/random.c, derived by hand from it:
 * element i of a float32 uniform draw is word i % 4 of the block with
 * counter (i / 4, 0, stream lo, stream hi) under key (seed lo, seed hi),
 * top 24 bits times 2^-24; and a slice of a draw needs nothing but i.
 */
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "tssa/tensor.h"

typedef struct Kat {
    int rounds;
    uint32_t ctr[4], key[2], expect[4];
} Kat;

static const Kat kats[] = {
    {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {10, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    {7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
};

int main(void)
{
    for (size_t k = 0; k < sizeof kats / sizeof kats[0]; k++) {
        uint32_t out[4];
        philox4x32(kats[k].ctr, kats[k].key, kats[k].rounds, out);
        for (int w = 0; w < 4; w++)
            CHECK_MSG(out[w] == kats[k].expect[w], "vector %zu word %d: %08x, expected %08x", k, w,
                      out[w], kats[k].expect[w]);
    }

    /* The element scheme: a float32 uniform draw of 10 elements. */
    TensorRandomKey key = {0x299f31d0a4093822ull, 0x0370734413198a2eull};
    int64_t n = 10;
    Tensor *t = tensor_random_uniform(key, DT_F32, 1, &n, 0, 1);
    CHECK(t != NULL);
    for (int64_t i = 0; t && i < n; i++) {
        uint32_t ctr[4] = {(uint32_t)(i / 4), 0, 0x13198a2e, 0x03707344}, key_words[2] = {0xa4093822, 0x299f31d0};
        uint32_t out[4];
        philox4x32(ctr, key_words, 10, out);
        double expect = (double)(out[i % 4] >> 8) * 0x1p-24;
        CHECK_MSG(tensor_get_flat(t, i) == expect, "element %lld: %.9g, expected %.9g", (long long)i,
                  tensor_get_flat(t, i), expect);
    }
    tensor_release(t);

    /* A longer draw agrees with a shorter one on the common prefix: element
     * i depends on i alone. */
    int64_t small = 7, large = 1001;
    Tensor *a = tensor_random_normal(key, DT_F64, 1, &small, 0, 1);
    Tensor *b = tensor_random_normal(key, DT_F64, 1, &large, 0, 1);
    for (int64_t i = 0; a && b && i < small; i++)
        CHECK(tensor_get_flat(a, i) == tensor_get_flat(b, i));
    tensor_release(a);
    tensor_release(b);
    return test_report("tensor_philox");
}
