/* philox.c — the Philox4x32 counter-based generator (Salmon, Moraes, Dror,
 * Shaw: "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
 * generator PyTorch's CUDA backend and JAX use.
 *
 * A draw is a pure function of a 128-bit counter and a 64-bit key: four
 * 32-bit words, with no state between calls. That is what lets every
 * backend, placement and rank count compute any element of a random tensor
 * on its own and get the same bits (tensor/random.c builds the
 * distributions and documents how counters and keys are chosen).
 *
 * One round: two 32x32->64 multiplications by the Philox constants, the
 * high halves xored with the other counter words and the round key; the
 * key is bumped by the Weyl constants (golden ratio, sqrt(3) - 1) between
 * rounds. Ten rounds is the published Philox4x32-10 (tests/tensor/
 * test_philox.c checks it against Random123's known-answer vectors).
 */
#include "tensor/tensor_impl.h"

enum {
    PHILOX_M0 = 0xD2511F53u,
    PHILOX_M1 = 0xCD9E8D57u,
    PHILOX_W0 = 0x9E3779B9u,
    PHILOX_W1 = 0xBB67AE85u,
};

static void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t next[4] = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    for (int i = 0; i < 4; i++)
        c[i] = next[i];
}

void philox4x32(const uint32_t counter[4], const uint32_t key[2], int rounds, uint32_t out[4])
{
    uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int r = 0; r < rounds; r++) {
        if (r > 0) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(c, k);
    }
    for (int i = 0; i < 4; i++)
        out[i] = c[i];
}
