/* scratch.h — the intermediate tensors of a composite kernel (a loss or a
 * distance built from other tensor ops), released together.
 *
 * Each step keeps its result here and passes NULL (an earlier failure)
 * through, so a chain of steps needs one check at its end:
 *
 *     Scratch s = {0};
 *     Tensor *d = scratch_keep(&s, tensor_sub(x1, x2, 1.0));
 *     Tensor *r = d ? scratch_keep(&s, tensor_norm(d, ...)) : NULL;
 *     return scratch_finish(&s, r);
 */
#ifndef TSSA_TENSOR_SCRATCH_H
#define TSSA_TENSOR_SCRATCH_H

#include "tssa/tensor.h"

#define SCRATCH_CAP 64
typedef struct Scratch {
    Tensor *items[SCRATCH_CAP];
    int n;
} Scratch;

/* Keeps t (a new reference, or NULL after a failed kernel) for release. */
static inline Tensor *scratch_keep(Scratch *s, Tensor *t)
{
    if (t && s->n < SCRATCH_CAP)
        s->items[s->n++] = t;
    else if (t) {
        tensor_release(t);
        tensor_set_error("too many intermediate tensors");
        return NULL;
    }
    return t;
}

static inline void scratch_free(Scratch *s)
{
    for (int i = 0; i < s->n; i++)
        tensor_release(s->items[i]);
    s->n = 0;
}

/* A new reference to result (NULL stays NULL), the temporaries released. */
static inline Tensor *scratch_finish(Scratch *s, Tensor *result)
{
    if (result)
        tensor_retain(result);
    scratch_free(s);
    return result;
}

/* The number v as a wrapped 0-d tensor (a Python scalar operand), kept. */
static inline Tensor *scratch_number(Scratch *s, double v)
{
    return scratch_keep(s, tensor_wrapped_float(v));
}

#endif
