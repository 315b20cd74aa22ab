/* linalg_cov.c — torch.cov and torch.corrcoef, written as PyTorch writes
 * them (aten/src/ATen/native/Correlation.cpp) in terms of other ops, so
 * that dtypes (an integer input gives float32 through the true division
 * by the weight sum) and rounding follow PyTorch's.
 *
 * Every intermediate is kept in a small pool and released at the end,
 * which keeps the long chains of ops readable.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <stdlib.h>

#define POOL_CAP 32

typedef struct Pool {
    Tensor *items[POOL_CAP];
    int n;
} Pool;

/* Records t and returns it (NULL when t is NULL or the pool is full). */
static Tensor *keep(Pool *p, Tensor *t)
{
    if (t && p->n == POOL_CAP)
        tensor_set_error("cov: too many intermediate tensors");
    if (!t || p->n == POOL_CAP) {
        tensor_release(t);
        return NULL;
    }
    p->items[p->n++] = t;
    return t;
}

static void pool_release(Pool *p)
{
    for (int i = 0; i < p->n; i++)
        tensor_release(p->items[i]);
    p->n = 0;
}

/* The checks of fweights / aweights (which == "fweights" / "aweights"). */
static bool check_weights(const Tensor *w, const char *which, bool integral, int64_t observations)
{
    if (w->ndim > 1) {
        tensor_set_error("cov(): expected %s to have one or fewer dimensions but got %s with %d dimensions", which,
                         which, w->ndim);
        return false;
    }
    if (integral ? !dtype_is_integral(w->dtype) : !dtype_is_float(w->dtype)) {
        tensor_set_error("cov(): expected %s to have %s dtype but got %s with %s dtype", which,
                         integral ? "integral" : "floating point", which, dtype_ts_name(w->dtype));
        return false;
    }
    if (tensor_numel(w) != observations) {
        tensor_set_error("cov(): expected %s to have the same numel as there are observations in the input but got "
                         "%" PRId64 " != %" PRId64, which, tensor_numel(w), observations);
        return false;
    }
    for (int64_t i = 0; i < observations; i++)
        if (tensor_get_flat(w, i) < 0) {
            tensor_set_error("cov(): %s cannot be negative", which);
            return false;
        }
    return true;
}

Tensor *tensor_cov(const Tensor *x, int64_t correction, const Tensor *fweights, const Tensor *aweights)
{
    if (x->ndim > 2) {
        tensor_set_error("cov(): expected input to have two or fewer dimensions but got an input with %d dimensions",
                         x->ndim);
        return NULL;
    }
    if (x->dtype == DT_BOOL) {
        tensor_set_error("cov(): bool dtype is not supported for input");
        return NULL;
    }
    Pool p = {.n = 0};
    int64_t row[2] = {1, -1};
    /* (variables, observations) */
    Tensor *in = keep(&p, x->ndim < 2 ? tensor_reshape((Tensor *)x, 2, row) : tensor_retain((Tensor *)x));
    if (!in)
        goto fail;
    int64_t observations = in->sizes[1];
    Tensor *w = NULL;
    if (fweights) {
        if (!check_weights(fweights, "fweights", true, observations))
            goto fail;
        w = (Tensor *)fweights;
    }
    if (aweights) {
        if (!check_weights(aweights, "aweights", false, observations))
            goto fail;
        w = w ? keep(&p, tensor_binary(BIN_MUL, w, aweights)) : (Tensor *)aweights;
        if (!w)
            goto fail;
    }
    Tensor *w_sum = keep(&p, w ? tensor_sum(w, NULL, 0, false, -1) : tensor_scalar_int(DT_I64, observations));
    if (!w_sum)
        goto fail;
    if (w && tensor_item(w_sum) == 0) {
        tensor_set_error("cov(): weights sum to zero, can't be normalized");
        goto fail;
    }
    int64_t one = 1;
    Tensor *weighted = w ? keep(&p, tensor_binary(BIN_MUL, in, w)) : in;
    Tensor *total = weighted ? keep(&p, tensor_sum(weighted, &one, 1, false, -1)) : NULL;
    Tensor *avg = total ? keep(&p, tensor_binary(BIN_DIV, total, w_sum)) : NULL;
    Tensor *norm_factor;
    Tensor *corr = keep(&p, tensor_wrapped_int(correction));
    if (!avg || !corr)
        goto fail;
    if (w && aweights && correction != 0) {
        /* w_sum - correction * sum(w * aweights) / w_sum */
        Tensor *waw = keep(&p, tensor_binary(BIN_MUL, w, aweights));
        Tensor *s = waw ? keep(&p, tensor_sum(waw, NULL, 0, false, -1)) : NULL;
        Tensor *cs = s ? keep(&p, tensor_binary(BIN_MUL, corr, s)) : NULL;
        Tensor *q = cs ? keep(&p, tensor_binary(BIN_DIV, cs, w_sum)) : NULL;
        norm_factor = q ? keep(&p, tensor_sub(w_sum, q, 1.0)) : NULL;
    } else {
        norm_factor = keep(&p, tensor_sub(w_sum, corr, 1.0));
    }
    if (!norm_factor)
        goto fail;
    if (tensor_item(norm_factor) <= 0)
        tensor_set_flat(norm_factor, 0, 0);     /* PyTorch warns "degrees of freedom is <= 0" */
    Tensor *avg_col = keep(&p, tensor_unsqueeze(avg, 1));
    Tensor *centered = avg_col ? keep(&p, tensor_sub(in, avg_col, 1.0)) : NULL;
    Tensor *right = centered && w ? keep(&p, tensor_binary(BIN_MUL, centered, w)) : centered;
    Tensor *right_t = right ? keep(&p, tensor_t(right)) : NULL;
    Tensor *c = right_t ? keep(&p, tensor_mm(centered, right_t)) : NULL;
    Tensor *scaled = c ? keep(&p, tensor_binary(BIN_DIV, c, norm_factor)) : NULL;
    Tensor *out = scaled ? tensor_squeeze(scaled) : NULL;
    Tensor *result = out ? tensor_clone(out) : NULL;
    tensor_release(out);
    pool_release(&p);
    return result;
fail:
    pool_release(&p);
    return NULL;
}

Tensor *tensor_corrcoef(const Tensor *x)
{
    if (x->ndim > 2) {
        tensor_set_error("corrcoef(): expected input to have two or fewer dimensions but got an input with %d "
                         "dimensions", x->ndim);
        return NULL;
    }
    Pool p = {.n = 0};
    Tensor *c = keep(&p, tensor_cov(x, 1, NULL, NULL));
    if (!c)
        goto fail;
    if (c->ndim == 0) {
        Tensor *r = tensor_binary(BIN_DIV, c, c);
        pool_release(&p);
        return r;
    }
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    Tensor *d = keep(&p, tensor_diagonal(c, 0, 0, 1));
    Tensor *sd = d ? keep(&p, tensor_unary(UN_SQRT, d, 0, 0)) : NULL;
    Tensor *sd_col = sd ? keep(&p, tensor_reshape(sd, 2, col)) : NULL;
    Tensor *sd_row = sd ? keep(&p, tensor_reshape(sd, 2, row)) : NULL;
    Tensor *c1 = sd_col ? keep(&p, tensor_binary(BIN_DIV, c, sd_col)) : NULL;
    Tensor *c2 = c1 && sd_row ? keep(&p, tensor_binary(BIN_DIV, c1, sd_row)) : NULL;
    Tensor *lo = keep(&p, tensor_wrapped_int(-1)), *hi = keep(&p, tensor_wrapped_int(1));
    if (!c2 || !lo || !hi)
        goto fail;
    Tensor *r = tensor_clamp(c2, lo, hi);
    pool_release(&p);
    return r;
fail:
    pool_release(&p);
    return NULL;
}
