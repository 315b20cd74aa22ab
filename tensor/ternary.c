/* ternary.c — where, clamp and lerp: elementwise ops of up to three tensors.
 *
 * where(cond, a, b) picks from a or b, both promoted to result_type(a, b),
 * broadcasting all three. clamp follows ATen's two code paths, which differ
 * on NaN: bounds given as Python numbers (wrapped numbers) behave like
 * std::max/std::min (a NaN bound is ignored, unless both bounds are given
 * and one is NaN, which makes every element NaN), while tensor bounds
 * broadcast and propagate NaN like maximum/minimum. lerp needs all floating
 * operands of one dtype and uses ATen's two-sided formula, exact at both
 * ends.
 */
#include <math.h>

#include "tensor/tensor_impl.h"

/* c10's TypeMeta names, which some ATen messages print. */
/* Broadcast shape of up to three tensors (NULL ones skipped). */
static int broadcast3(const Tensor *a, const Tensor *b, const Tensor *c, int64_t *shape)
{
    int n = a->ndim;
    memcpy(shape, a->sizes, sizeof(int64_t) * (size_t)n);
    if (b && (n = tensor_broadcast_shape(n, shape, b->ndim, b->sizes, shape)) < 0)
        return -1;
    if (c && (n = tensor_broadcast_shape(n, shape, c->ndim, c->sizes, shape)) < 0)
        return -1;
    return n;
}

/* dst[off] = src[soff] converted to dst's dtype (ints never pass through
 * double, so int64 -> float32 rounds once). */
static void convert_element(Tensor *dst, int64_t off, const Tensor *src, int64_t soff)
{
    if (dtype_is_float(src->dtype))
        tensor_write_f64(dst, off, tensor_read_f64(src, soff));
    else
        tensor_write_i64(dst, off, tensor_read_i64(src, soff));
}

Tensor *tensor_where(const Tensor *cond, const Tensor *a, const Tensor *b)
{
    if (cond->dtype != DT_BOOL && cond->dtype != DT_U8) {
        tensor_set_error("where expected condition to be a boolean tensor, but got a tensor with "
                         "dtype %s", dtype_ts_name(cond->dtype));
        return NULL;
    }
    const Tensor *pair[2] = {a, b};
    TensorDType result = tensor_result_type(pair, 2);
    /* A Python-number branch becomes scalar_tensor(value, result dtype),
     * whose fill checks the range. */
    for (int k = 0; k < 2; k++)
        if (pair[k]->wrapped_number && !tensor_wrapped_fits(pair[k], result))
            return NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    int n = broadcast3(cond, a, b, shape);
    if (n < 0)
        return NULL;
    const Tensor *inputs[3] = {cond, a, b};
    Tensor *out = tensor_empty_like_operands(result, n, shape, inputs, 3);
    if (!out)
        return NULL;
    /* Converting each picked element straight to the result dtype is the
     * same as promoting a and b first (ints wrap, int64 rounds once). */
    const Tensor *ops[4] = {out, cond, a, b};
    TensorIter it;
    if (!tensor_iter_init(&it, n, shape, ops, 4)) {
        tensor_release(out);
        return NULL;
    }
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        bool take_a = tensor_read_i64(cond, it.offsets[1]) != 0;
        convert_element(out, it.offsets[0], take_a ? a : b, it.offsets[take_a ? 2 : 3]);
    }
    return out;
}

/* ------------------------------------------------------------------ clamp */

typedef struct ClampPlan {
    TensorDType result;
    bool all_nan;           /* two number bounds, one of them NaN */
} ClampPlan;

static bool plan_clamp(const Tensor *a, const Tensor *min, const Tensor *max, ClampPlan *plan)
{
    if (!min && !max) {
        tensor_set_error("torch.clamp: At least one of 'min' or 'max' must not be None");
        return false;
    }
    const Tensor *all[3] = {a, min, max};
    plan->result = tensor_result_type(all, 3);
    plan->all_nan = false;
    bool numbers = (!min || min->wrapped_number) && (!max || max->wrapped_number);
    if (numbers && min && max) {
        double lo = tensor_read_f64(min, min->offset), hi = tensor_read_f64(max, max->offset);
        plan->all_nan = isnan(lo) || isnan(hi);
    }
    /* A number bound goes through Scalar::to<result type>, which checks range. */
    for (int k = 1; k < 3; k++) {
        if (all[k] && all[k]->wrapped_number && !dtype_is_float(plan->result) &&
            !tensor_wrapped_fits(all[k], plan->result))
            return false;
    }
    return true;
}

/* One bound applied to v, in the compute type. */
#define APPLY_BOUND(v, bound, is_min, propagate_nan)                                   \
    do {                                                                               \
        if ((propagate_nan) && ((v) != (v) || (bound) != (bound)))                     \
            (v) = (bound) != (bound) ? (bound) : (v);                                  \
        else if (is_min)                                                               \
            (v) = (v) < (bound) ? (bound) : (v);                                       \
        else                                                                           \
            (v) = (bound) < (v) ? (bound) : (v);                                       \
    } while (0)

static bool clamp_kernel(const ClampPlan *plan, Tensor *out, const Tensor *a,
                         const Tensor *min, const Tensor *max)
{
    /* Absent bounds are replaced by `a` itself so the iterator has fixed
     * operands; has_min/has_max say which are real. */
    const Tensor *ops[4] = {out, a, min ? min : a, max ? max : a};
    TensorIter it;
    if (!tensor_iter_init(&it, out->ndim, out->sizes, ops, 4))
        return false;
    bool min_nan = min && !min->wrapped_number, max_nan = max && !max->wrapped_number;
    TensorDType rt = plan->result;
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        if (plan->all_nan) {
            tensor_write_f64(out, it.offsets[0], NAN);
        } else if (rt == DT_F32) {
            float v = tensor_read_f32(a, it.offsets[1]);
            if (min) {
                float lo = tensor_read_f32(min, it.offsets[2]);
                APPLY_BOUND(v, lo, true, min_nan);
            }
            if (max) {
                float hi = tensor_read_f32(max, it.offsets[3]);
                APPLY_BOUND(v, hi, false, max_nan);
            }
            tensor_write_f64(out, it.offsets[0], v);
        } else if (rt == DT_F64) {
            double v = tensor_read_f64(a, it.offsets[1]);
            if (min) {
                double lo = tensor_read_f64(min, it.offsets[2]);
                APPLY_BOUND(v, lo, true, min_nan);
            }
            if (max) {
                double hi = tensor_read_f64(max, it.offsets[3]);
                APPLY_BOUND(v, hi, false, max_nan);
            }
            tensor_write_f64(out, it.offsets[0], v);
        } else {
            int64_t v = tensor_wrap_int(tensor_read_i64(a, it.offsets[1]), rt);
            if (min) {
                int64_t lo = tensor_wrap_int(tensor_read_i64(min, it.offsets[2]), rt);
                APPLY_BOUND(v, lo, true, false);
            }
            if (max) {
                int64_t hi = tensor_wrap_int(tensor_read_i64(max, it.offsets[3]), rt);
                APPLY_BOUND(v, hi, false, false);
            }
            tensor_write_i64(out, it.offsets[0], v);
        }
    }
    return true;
}

Tensor *tensor_clamp(const Tensor *a, const Tensor *min, const Tensor *max)
{
    ClampPlan plan;
    if (!plan_clamp(a, min, max, &plan))
        return NULL;
    /* Number bounds do not take part in the shape or the layout. */
    const Tensor *tmin = min && !min->wrapped_number ? min : NULL;
    const Tensor *tmax = max && !max->wrapped_number ? max : NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    int n = broadcast3(a, tmin, tmax, shape);
    if (n < 0)
        return NULL;
    const Tensor *inputs[3] = {a, tmin, tmax};
    Tensor *out = tensor_empty_like_operands(plan.result, n, shape, inputs, 3);
    if (out && !clamp_kernel(&plan, out, a, min, max)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

bool tensor_clamp_(Tensor *a, const Tensor *min, const Tensor *max)
{
    ClampPlan plan;
    if (!plan_clamp(a, min, max, &plan))
        return false;
    bool numbers = (!min || min->wrapped_number) && (!max || max->wrapped_number);
    if (numbers && plan.result != a->dtype) {
        /* ATen's clamp.Scalar refuses any promotion in place. */
        tensor_set_error("result type %s can't be cast to the desired output type %s",
                         dtype_ts_name(plan.result), kern_ctype_name(a->dtype));
        return false;
    }
    const Tensor *inputs[2] = {min, max};
    if (!tensor_check_inplace(a, plan.result, inputs, 2))
        return false;
    Tensor *min_copy, *max_copy;
    const Tensor *lo = tensor_unalias_input(a, min, &min_copy);
    const Tensor *hi = tensor_unalias_input(a, max, &max_copy);
    bool ok = (!min || lo) && (!max || hi) && clamp_kernel(&plan, a, a, lo, hi);
    tensor_release(min_copy);
    tensor_release(max_copy);
    return ok;
}

/* ------------------------------------------------------------------- lerp */

Tensor *tensor_lerp(const Tensor *a, const Tensor *b, const Tensor *weight)
{
    bool scalar_weight = weight->wrapped_number;
    if (a->dtype != b->dtype) {
        tensor_set_error("expected dtype %s for `end` but got dtype %s", kern_ctype_name(a->dtype),
                         kern_ctype_name(b->dtype));
        return NULL;
    }
    if (!scalar_weight && a->dtype != weight->dtype) {
        tensor_set_error("expected dtype %s for `weight` but got dtype %s",
                         kern_ctype_name(a->dtype), kern_ctype_name(weight->dtype));
        return NULL;
    }
    if (!dtype_is_float(a->dtype)) {
        tensor_error_not_implemented(scalar_weight ? "lerp_kernel_scalar" : "lerp_kernel_tensor",
                                     a->dtype);
        return NULL;
    }
    const Tensor *tweight = scalar_weight ? NULL : weight;
    int64_t shape[TENSOR_MAX_DIMS];
    int n = broadcast3(a, b, tweight, shape);
    if (n < 0)
        return NULL;
    const Tensor *inputs[3] = {a, b, tweight};
    Tensor *out = tensor_empty_like_operands(a->dtype, n, shape, inputs, 3);
    if (!out)
        return NULL;
    const Tensor *ops[4] = {out, a, b, weight};
    TensorIter it;
    if (!tensor_iter_init(&it, n, shape, ops, 4)) {
        tensor_release(out);
        return NULL;
    }
    /* self + w * (end - self) for |w| < 0.5, else end - (end - self) * (1 - w). */
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        if (a->dtype == DT_F32) {
            float x = tensor_read_f32(a, it.offsets[1]), y = tensor_read_f32(b, it.offsets[2]);
            float w = tensor_read_f32(weight, it.offsets[3]);
            float r = fabsf(w) < 0.5f ? x + w * (y - x) : y - (y - x) * (1.0f - w);
            tensor_write_f64(out, it.offsets[0], r);
        } else {
            double x = tensor_read_f64(a, it.offsets[1]), y = tensor_read_f64(b, it.offsets[2]);
            double w = tensor_read_f64(weight, it.offsets[3]);
            double r = fabs(w) < 0.5 ? x + w * (y - x) : y - (y - x) * (1.0 - w);
            tensor_write_f64(out, it.offsets[0], r);
        }
    }
    return out;
}
