/* ops_stats.c — bindings of the stats family: order statistics (median,
 * nanmedian, kthvalue, mode, msort, quantile), scans (cummax, cummin,
 * logcumsumexp), NaN-aware and paired reductions (nansum, nanmean,
 * std_mean, var_mean, aminmax, count_nonzero), histograms, bucketize,
 * isin, segment_reduce, unique, diff, gradient and the trapezoid rules.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* Stores a (values, indices)-like pair of results, or reports the kernel's failure. */
static bool out_pair(EvalCall *c, bool ok, Tensor *a, Tensor *b)
{
    if (!ok) {
        tensor_release(a);
        tensor_release(b);
        return eval_fail_kernel(c, "the kernel failed");
    }
    if (c->nouts != 2) {
        tensor_release(a);
        tensor_release(b);
        return eval_fail(c, "the op has 2 results, the node has %d outputs", c->nouts);
    }
    return eval_out_tensor(c, 0, a) && eval_out_tensor(c, 1, b);
}

/* ---------------------------------------------------------------- order statistics */

bool eval_op_msort(EvalCall *c)
{
    Tensor *self;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &self) &&
           eval_out_tensor(c, 0, tensor_msort(self));
}

/* kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) */
bool eval_op_kthvalue(EvalCall *c)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t k, dim = -1;
    bool keepdim = false;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &k) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim)) || (c->nargs > 3 && !eval_arg_bool(c, 3, &keepdim)))
        return false;
    bool ok = tensor_kthvalue(self, k, dim, keepdim, &values, &indices);
    return out_pair(c, ok, values, indices);
}

/* median/nanmedian(Tensor self) -> Tensor;
 * (Tensor self, int dim, bool keepdim=False) -> (values, indices) */
static bool median_common(EvalCall *c, bool ignore_nan)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nargs == 1)
        return eval_out_tensor(c, 0, tensor_median_all(self, ignore_nan));
    if (!eval_arg_int(c, 1, &dim) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    bool ok = tensor_median_dim(self, dim, keepdim, ignore_nan, &values, &indices);
    return out_pair(c, ok, values, indices);
}
bool eval_op_median(EvalCall *c) { return median_common(c, false); }
bool eval_op_nanmedian(EvalCall *c) { return median_common(c, true); }

/* mode(Tensor self, int dim=-1, bool keepdim=False) */
bool eval_op_mode(EvalCall *c)
{
    Tensor *self, *values = NULL, *indices = NULL;
    int64_t dim = -1;
    bool keepdim = false;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_int(c, 1, &dim)) || (c->nargs > 2 && !eval_arg_bool(c, 2, &keepdim)))
        return false;
    bool ok = tensor_mode(self, dim, keepdim, &values, &indices);
    return out_pair(c, ok, values, indices);
}
