/* loss.c — loss functions with PyTorch's (1.13, CPU) semantics:
 * broadcast_tensors, the regression losses (l1, mse, smooth l1, huber),
 * kl_div, the binary and class-index losses (binary cross entropy, nll,
 * cross entropy, the margin losses, ctc), log_sigmoid and the embedding
 * losses. The distances the embedding losses use (cosine similarity,
 * pairwise distance) are in distance.c.
 *
 * Where ATen composes a loss from other ops (l1_loss, kl_div, cross entropy
 * with label smoothing, the margin and embedding losses, poisson_nll_loss)
 * this file composes the same ops in the same order, so the result dtypes
 * (an int64 input of margin_ranking_loss gives float32), the broadcasting
 * and the messages are those of the ops involved. Where ATen has a kernel
 * of its own (mse, smooth l1, huber, binary cross entropy, nll, multi
 * margin, ctc), the kernel here evaluates ATen's formula per element in
 * double and rounds once to the result dtype.
 *
 * Reductions arrive as TorchScript passes them (_Reduction.get_enum): 0
 * none, 1 mean, 2 sum; ATen's apply_loss_reduction is loss.mean() or
 * loss.sum() over every element.
 */
#include "tensor/scratch.h"
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { REDUCTION_NONE = 0, REDUCTION_MEAN = 1, REDUCTION_SUM = 2 };

/* ---------------------------------------------------------------- reductions */

static bool check_reduction(int64_t reduction)
{
    if (reduction < REDUCTION_NONE || reduction > REDUCTION_SUM) {
        tensor_set_error("%" PRId64 " is not a valid value for reduction", reduction);
        return false;
    }
    return true;
}

/* ATen's apply_loss_reduction: a new reference. */
static Tensor *reduce_loss(const Tensor *loss, int64_t reduction)
{
    switch (reduction) {
    case REDUCTION_MEAN: return tensor_mean(loss, NULL, 0, false, -1);
    case REDUCTION_SUM: return tensor_sum(loss, NULL, 0, false, -1);
    default: return tensor_retain((Tensor *)loss);
    }
}

/* ---------------------------------------------------------------- elementwise */

/* fn(values of the inputs at one element, params) */
typedef double (*LossElemFn)(const double *v, const double *params);

/* fn over the broadcast shape of ins[0..n) (n <= 3; NULL entries are
 * skipped and read as 1), stored as dtype dt. */
static Tensor *loss_map(const Tensor *const *ins, int n, TensorDType dt, LossElemFn fn,
                        const double *params)
{
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = 0;
    const Tensor *ops[TENSOR_ITER_MAX_OPERANDS];
    int idx[TENSOR_ITER_MAX_OPERANDS];
    int nops = 1;
    for (int k = 0; k < n; k++) {
        if (!ins[k])
            continue;
        nd = tensor_broadcast_shape(nd, shape, ins[k]->ndim, ins[k]->sizes, shape);
        if (nd < 0)
            return NULL;
        idx[nops] = k;
        ops[nops++] = ins[k];
    }
    Tensor *out = tensor_empty(dt, nd, shape);
    if (!out)
        return NULL;
    ops[0] = out;
    TensorIter it;
    if (!tensor_iter_init(&it, nd, shape, ops, nops)) {
        tensor_release(out);
        return NULL;
    }
    double v[3] = {1.0, 1.0, 1.0};
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        for (int k = 1; k < nops; k++)
            v[idx[k]] = tensor_read_f64(ops[k], it.offsets[k]);
        tensor_write_f64(out, it.offsets[0], fn(v, params));
    }
    return out;
}

/* The result dtype of an elementwise loss kernel over ins, which must be
 * floating (ATen's kernels have loops for floating types only). */
static bool float_result(const Tensor *const *ins, int n, const char *kernel, TensorDType *dt)
{
    const Tensor *present[4];
    int m = 0;
    for (int k = 0; k < n; k++)
        if (ins[k])
            present[m++] = ins[k];
    *dt = tensor_result_type(present, m);
    if (!dtype_is_float(*dt))
        return tensor_error_not_implemented(kernel, *dt);
    return true;
}

/* A loss evaluated elementwise by fn, then reduced. */
static Tensor *elementwise_loss(const Tensor *const *ins, int n, const char *kernel, LossElemFn fn,
                                const double *params, int64_t reduction)
{
    TensorDType dt;
    if (!check_reduction(reduction) || !float_result(ins, n, kernel, &dt))
        return NULL;
    Tensor *loss = loss_map(ins, n, dt, fn, params);
    if (!loss)
        return NULL;
    Tensor *r = reduce_loss(loss, reduction);
    tensor_release(loss);
    return r;
}

/* ---------------------------------------------------------------- broadcast_tensors */

Tensor **tensor_broadcast_tensors(Tensor *const *ts, int n)
{
    int64_t shape[TENSOR_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < n; i++) {
        nd = tensor_broadcast_shape(nd, shape, ts[i]->ndim, ts[i]->sizes, shape);
        if (nd < 0)
            return NULL;
    }
    Tensor **out = kern_malloc((size_t)n, sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        out[i] = tensor_expand(ts[i], nd, shape);
        if (!out[i]) {
            for (int j = 0; j < i; j++)
                tensor_release(out[j]);
            free(out);
            return NULL;
        }
    }
    return out;
}

/* ---------------------------------------------------------------- regression losses */

Tensor *tensor_l1_loss(const Tensor *input, const Tensor *target, int64_t reduction)
{
    /* ATen: apply_loss_reduction((input - target).abs(), reduction) */
    if (!check_reduction(reduction))
        return NULL;
    Scratch s = {0};
    Tensor *d = scratch_keep(&s, tensor_sub(input, target, 1.0));
    Tensor *a = d ? scratch_keep(&s, tensor_unary(UN_ABS, d, 0, 0)) : NULL;
    Tensor *r = a ? scratch_keep(&s, reduce_loss(a, reduction)) : NULL;
    return scratch_finish(&s, r);
}

static double mse_elem(const double *v, const double *params)
{
    (void)params;
    double d = v[0] - v[1];
    return d * d;
}

Tensor *tensor_mse_loss(const Tensor *input, const Tensor *target, int64_t reduction)
{
    const Tensor *ins[2] = {input, target};
    return elementwise_loss(ins, 2, "mse_cpu", mse_elem, NULL, reduction);
}

static double smooth_l1_elem(const double *v, const double *params)
{
    double beta = params[0], z = fabs(v[0] - v[1]);
    return z < beta ? 0.5 * z * z / beta : z - 0.5 * beta;
}

Tensor *tensor_smooth_l1_loss(const Tensor *input, const Tensor *target, int64_t reduction, double beta)
{
    if (beta < 0) {
        tensor_set_error("smooth_l1_loss does not support negative values for beta.");
        return NULL;
    }
    if (beta == 0)
        return tensor_l1_loss(input, target, reduction);
    const Tensor *ins[2] = {input, target};
    return elementwise_loss(ins, 2, "smooth_l1_cpu", smooth_l1_elem, &beta, reduction);
}

static double huber_elem(const double *v, const double *params)
{
    double delta = params[0], z = fabs(v[0] - v[1]);
    return z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta);
}

Tensor *tensor_huber_loss(const Tensor *input, const Tensor *target, int64_t reduction, double delta)
{
    if (!(delta > 0)) {
        tensor_set_error("huber_loss does not support non-positive values for delta.");
        return NULL;
    }
    const Tensor *ins[2] = {input, target};
    return elementwise_loss(ins, 2, "huber_cpu", huber_elem, &delta, reduction);
}

/* kl_div: exp(target) * (target - input) with log_target, else
 * xlogy(target, target) - target * input (xlogy(0, y) = 0 unless y is NaN). */
static double kl_div_elem(const double *v, const double *params)
{
    double x = v[0], t = v[1];
    if (params[0] != 0)
        return exp(t) * (t - x);
    double xlogy = t == 0 && !isnan(t) ? 0.0 : t * log(t);
    return xlogy - t * x;
}

Tensor *tensor_kl_div(const Tensor *input, const Tensor *target, int64_t reduction, bool log_target)
{
    if (!check_reduction(reduction))
        return NULL;
    const Tensor *ins[2] = {input, target};
    TensorDType dt = tensor_result_type(ins, 2);
    if (!dtype_is_float(dt))
        dt = dtype_default_float();
    double param = log_target;
    Tensor *loss = loss_map(ins, 2, dt, kl_div_elem, &param);
    if (!loss)
        return NULL;
    Tensor *r = reduce_loss(loss, reduction);
    tensor_release(loss);
    return r;
}

/* ---------------------------------------------------------------- binary cross entropy */

/* The logarithms are clamped at -100 so that a 0 or 1 input gives a finite
 * loss, as ATen's kernel does. */
static double bce_elem(const double *v, const double *params)
{
    (void)params;
    double x = v[0], t = v[1], w = v[2];
    double log_x = fmax(log(x), -100.0), log_1mx = fmax(log1p(-x), -100.0);
    return ((t - 1) * log_1mx - t * log_x) * w;
}

Tensor *tensor_binary_cross_entropy(const Tensor *input, const Tensor *target, const Tensor *weight,
                                    int64_t reduction)
{
    const Tensor *ins[3] = {input, target, weight};
    TensorDType dt;
    if (!check_reduction(reduction) || !float_result(ins, 2, "binary_cross_entropy", &dt))
        return NULL;
    if (tensor_numel(input) != tensor_numel(target)) {
        char ib[TENSOR_SHAPE_BUF], tb[TENSOR_SHAPE_BUF];
        tensor_set_error("Using a target size (%s) that is different to the input size (%s) is deprecated. "
                         "Please ensure they have the same size.",
                         tensor_format_shape(target->ndim, target->sizes, tb, sizeof tb),
                         tensor_format_shape(input->ndim, input->sizes, ib, sizeof ib));
        return NULL;
    }
    TensorIter it;
    tensor_iter_init_single(&it, input);
    for (int64_t i = 0; i < it.numel; i++, tensor_iter_next(&it)) {
        double x = tensor_read_f64(input, it.offsets[0]);
        if (!(x >= 0 && x <= 1)) {
            tensor_set_error("all elements of input should be between 0 and 1");
            return NULL;
        }
    }
    Tensor *loss = loss_map(ins, 3, dt, bce_elem, NULL);
    if (!loss)
        return NULL;
    Tensor *r = reduce_loss(loss, reduction);
    tensor_release(loss);
    return r;
}

/* ATen 1.13: with m = max(-x, 0) and lw = 1 + (pos_weight - 1) * t,
 * loss = (1 - t) * x + lw * (log(exp(-m) + exp(-x - m)) + m). */
static double bce_logits_elem(const double *v, const double *params)
{
    (void)params;
    double x = v[0], t = v[1], pos_weight = v[2];
    double m = fmax(-x, 0.0);
    double lw = params[0] != 0 ? (pos_weight - 1) * t + 1 : 1.0;
    return (1 - t) * x + lw * (log(exp(-m) + exp(-x - m)) + m);
}

Tensor *tensor_binary_cross_entropy_with_logits(const Tensor *input, const Tensor *target,
                                                const Tensor *weight, const Tensor *pos_weight,
                                                int64_t reduction)
{
    const Tensor *ins[3] = {input, target, pos_weight};
    TensorDType dt;
    if (!check_reduction(reduction) || !float_result(ins, 3, "binary_cross_entropy_with_logits", &dt))
        return NULL;
    double has_pos_weight = pos_weight != NULL;
    Scratch s = {0};
    Tensor *loss = scratch_keep(&s, loss_map(ins, 3, dt, bce_logits_elem, &has_pos_weight));
    if (loss && weight)
        loss = scratch_keep(&s, tensor_binary(BIN_MUL, loss, weight));
    Tensor *r = loss ? scratch_keep(&s, reduce_loss(loss, reduction)) : NULL;
    return scratch_finish(&s, r);
}

/* ---------------------------------------------------------------- nll and cross entropy */

static bool check_class_weight(const Tensor *weight, int64_t classes)
{
    if (weight && !(weight->ndim == 1 && weight->sizes[0] == classes)) {
        char wb[TENSOR_SHAPE_BUF];
        tensor_set_error("weight tensor should be defined either for all %" PRId64
                         " classes or no classes but got weight tensor of shape: %s",
                         classes, tensor_format_shape(weight->ndim, weight->sizes, wb, sizeof wb));
        return false;
    }
    return true;
}

/* nll_loss_nd's checks, with the input seen as (batch, classes, spatial)
 * and the target as (batch, spatial). */
static bool nll_geometry(const Tensor *input, const Tensor *target, int64_t *batch, int64_t *classes,
                         int64_t *spatial)
{
    char ib[TENSOR_SHAPE_BUF], tb[TENSOR_SHAPE_BUF];
    if (input->ndim < 1) {
        tensor_set_error("input tensor should be 1D or more");
        return false;
    }
    if (target->dtype != DT_I64) {
        tensor_set_error("expected scalar type Long but found %s", dtype_ts_name(target->dtype));
        return false;
    }
    if (input->ndim == 1) {
        if (target->ndim != 0) {
            tensor_set_error("size mismatch (got input: %s, target: %s)",
                             tensor_format_shape(input->ndim, input->sizes, ib, sizeof ib),
                             tensor_format_shape(target->ndim, target->sizes, tb, sizeof tb));
            return false;
        }
        *batch = 1;
        *classes = input->sizes[0];
        *spatial = 1;
        return true;
    }
    if (target->ndim == 0 || input->sizes[0] != target->sizes[0]) {
        tensor_set_error("Expected input batch_size (%" PRId64 ") to match target batch_size (%" PRId64 ").",
                         input->sizes[0], target->ndim ? target->sizes[0] : (int64_t)0);
        return false;
    }
    *batch = input->sizes[0];
    *classes = input->sizes[1];
    *spatial = 1;
    int64_t expect[TENSOR_MAX_DIMS];
    expect[0] = input->sizes[0];
    for (int d = 2; d < input->ndim; d++) {
        expect[d - 1] = input->sizes[d];
        *spatial *= input->sizes[d];
    }
    if (target->ndim != input->ndim - 1 ||
        memcmp(target->sizes, expect, sizeof(int64_t) * (size_t)target->ndim) != 0) {
        if (input->ndim == 2)
            tensor_set_error("0D or 1D target tensor expected, multi-target not supported");
        else
            tensor_set_error("Expected target size %s, got %s",
                             tensor_format_shape(input->ndim - 1, expect, ib, sizeof ib),
                             tensor_format_shape(target->ndim, target->sizes, tb, sizeof tb));
        return false;
    }
    return true;
}

Tensor *tensor_nll_loss(const Tensor *input, const Tensor *target, const Tensor *weight,
                        int64_t reduction, int64_t ignore_index)
{
    int64_t batch, classes, spatial;
    if (!check_reduction(reduction) || !nll_geometry(input, target, &batch, &classes, &spatial) ||
        !check_class_weight(weight, classes))
        return NULL;
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("nll_loss_out_frame", input->dtype);
        return NULL;
    }
    Tensor *out = reduction == REDUCTION_NONE ? tensor_empty(input->dtype, target->ndim, target->sizes)
                                              : tensor_empty(input->dtype, 0, NULL);
    double *x = kern_read_all_f64(input);
    int64_t *t = kern_read_all_i64(target);
    double *w = weight ? kern_read_all_f64(weight) : NULL;
    double *losses = kern_malloc((size_t)(batch * spatial), sizeof *losses);
    bool ok = out && x && t && (!weight || w) && losses;
    double total = 0, total_weight = 0;
    for (int64_t b = 0; ok && b < batch; b++)
        for (int64_t p = 0; p < spatial; p++) {
            int64_t k = b * spatial + p, cls = t[k];
            losses[k] = 0;
            if (cls == ignore_index)
                continue;
            if (cls < 0 || cls >= classes) {
                tensor_set_error("Target %" PRId64 " is out of bounds.", cls);
                ok = false;
                break;
            }
            double wc = w ? w[cls] : 1.0;
            losses[k] = -x[(b * classes + cls) * spatial + p] * wc;
            total += losses[k];
            total_weight += wc;
        }
    if (ok) {
        if (reduction == REDUCTION_NONE)
            kern_write_all_f64(out, losses);
        else
            tensor_write_f64(out, out->offset, reduction == REDUCTION_MEAN ? total / total_weight : total);
    }
    free(x);
    free(t);
    free(w);
    free(losses);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* The class-weight vector shaped to broadcast along class_dim of an
 * ndim-dimensional input. */
static Tensor *class_weight_view(Scratch *s, const Tensor *weight, int ndim, int class_dim)
{
    int64_t shape[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++)
        shape[d] = d == class_dim ? weight->sizes[0] : 1;
    return scratch_keep(s, tensor_reshape((Tensor *)weight, ndim, shape));
}

/* Class probabilities: -(log_softmax(input) * target [* weight]) summed
 * over the classes, the mean dividing by the number of samples. */
static Tensor *cross_entropy_prob_target(Scratch *s, const Tensor *logp, const Tensor *target_,
                                         const Tensor *weight, int64_t reduction, double label_smoothing,
                                         int class_dim, int64_t classes)
{
    const Tensor *target = target_;
    if (label_smoothing > 0) {
        Tensor *scaled = scratch_keep(s, tensor_binary(BIN_MUL, target_, scratch_number(s, 1 - label_smoothing)));
        if (!scaled)
            return NULL;
        target = scratch_keep(s, tensor_add(scaled, scratch_number(s, label_smoothing / (double)classes), 1.0));
        if (!target)
            return NULL;
    }
    Tensor *prod = scratch_keep(s, tensor_binary(BIN_MUL, logp, target));
    if (prod && weight) {
        Tensor *wv = class_weight_view(s, weight, logp->ndim, class_dim);
        prod = wv ? scratch_keep(s, tensor_binary(BIN_MUL, prod, wv)) : NULL;
    }
    if (!prod)
        return NULL;
    if (reduction == REDUCTION_NONE) {
        int64_t dim = class_dim;
        Tensor *sum = scratch_keep(s, tensor_sum(prod, &dim, 1, false, -1));
        return sum ? scratch_keep(s, tensor_unary(UN_NEG, sum, 0, 0)) : NULL;
    }
    Tensor *sum = scratch_keep(s, tensor_sum(prod, NULL, 0, false, -1));
    Tensor *neg = sum ? scratch_keep(s, tensor_unary(UN_NEG, sum, 0, 0)) : NULL;
    if (!neg || reduction == REDUCTION_SUM)
        return neg;
    int64_t n = tensor_numel(logp);
    if (n == 0)
        return scratch_keep(s, tensor_full(neg->dtype, 0, NULL, NAN));
    return scratch_keep(s, tensor_binary(BIN_DIV, neg, scratch_keep(s, tensor_wrapped_int(n / classes))));
}

/* Class indices with label smoothing: (1 - ls) * nll + ls / C * smooth,
 * smooth being -sum over classes of log_softmax [* weight], zero where the
 * target is ignored, its mean normalized as nll's is. */
static Tensor *cross_entropy_label_smoothing(Scratch *s, const Tensor *logp, const Tensor *target,
                                             const Tensor *weight, int64_t reduction, int64_t ignore_index,
                                             double label_smoothing, int class_dim, int64_t classes)
{
    Tensor *nll = scratch_keep(s, tensor_nll_loss(logp, target, weight, reduction, ignore_index));
    Tensor *ignore_mask = nll ? scratch_keep(s, tensor_binary(BIN_EQ, target, scratch_keep(s, tensor_wrapped_int(ignore_index))))
                              : NULL;
    if (!ignore_mask)
        return NULL;
    const Tensor *terms = logp;
    if (weight) {
        Tensor *wv = class_weight_view(s, weight, logp->ndim, class_dim);
        terms = wv ? scratch_keep(s, tensor_binary(BIN_MUL, logp, wv)) : NULL;
        if (!terms)
            return NULL;
    }
    int64_t dim = class_dim;
    Tensor *sum = scratch_keep(s, tensor_sum(terms, &dim, 1, false, -1));
    Tensor *smooth = sum ? scratch_keep(s, tensor_unary(UN_NEG, sum, 0, 0)) : NULL;
    if (!smooth || !tensor_masked_fill_(smooth, ignore_mask, scratch_number(s, 0.0)))
        return NULL;
    Tensor *ret = NULL;
    if (reduction == REDUCTION_NONE) {
        ret = smooth;
    } else {
        Tensor *total = scratch_keep(s, tensor_sum(smooth, NULL, 0, false, -1));
        if (!total)
            return NULL;
        if (reduction == REDUCTION_SUM) {
            ret = total;
        } else {
            Tensor *keep_mask = scratch_keep(s, tensor_unary(UN_LOGICAL_NOT, ignore_mask, 0, 0));
            Tensor *denom = NULL;
            if (keep_mask && weight) {
                Tensor *kept = scratch_keep(s, tensor_masked_select(target, keep_mask));
                Tensor *wsel = kept ? scratch_keep(s, tensor_index_select(weight, 0, kept)) : NULL;
                denom = wsel ? scratch_keep(s, tensor_sum(wsel, NULL, 0, false, -1)) : NULL;
            } else if (keep_mask) {
                denom = scratch_keep(s, tensor_sum(keep_mask, NULL, 0, false, -1));
            }
            ret = denom ? scratch_keep(s, tensor_binary(BIN_DIV, total, denom)) : NULL;
        }
    }
    if (!ret)
        return NULL;
    Tensor *a = scratch_keep(s, tensor_binary(BIN_MUL, scratch_number(s, 1 - label_smoothing), nll));
    Tensor *b = a ? scratch_keep(s, tensor_binary(BIN_MUL, ret, scratch_number(s, label_smoothing / (double)classes))) : NULL;
    return b ? scratch_keep(s, tensor_add(a, b, 1.0)) : NULL;
}

Tensor *tensor_cross_entropy_loss(const Tensor *input, const Tensor *target, const Tensor *weight,
                                  int64_t reduction, int64_t ignore_index, double label_smoothing)
{
    if (!check_reduction(reduction))
        return NULL;
    int class_dim = input->ndim == 1 ? 0 : 1;
    Scratch s = {0};
    Tensor *logp = scratch_keep(&s, tensor_log_softmax(input, class_dim, -1));
    if (!logp)
        return scratch_finish(&s, NULL);
    int64_t classes = input->sizes[class_dim];
    Tensor *r;
    if (tensor_same_shape(input, target)) {
        if (!dtype_is_float(target->dtype)) {
            tensor_set_error("Expected floating point type for target with class probabilities, got %s",
                             dtype_ts_name(target->dtype));
            return scratch_finish(&s, NULL);
        }
        if (ignore_index >= 0) {
            tensor_set_error("ignore_index is not supported for floating point target");
            return scratch_finish(&s, NULL);
        }
        if (label_smoothing > 1.0) {
            tensor_set_error("label_smoothing must be between 0.0 and 1.0. Got: %g", label_smoothing);
            return scratch_finish(&s, NULL);
        }
        if (!check_class_weight(weight, classes))
            return scratch_finish(&s, NULL);
        r = cross_entropy_prob_target(&s, logp, target, weight, reduction, label_smoothing, class_dim, classes);
    } else if (label_smoothing > 0.0) {
        if (label_smoothing > 1.0) {
            tensor_set_error("label_smoothing must be between 0.0 and 1.0. Got: %g", label_smoothing);
            return scratch_finish(&s, NULL);
        }
        r = cross_entropy_label_smoothing(&s, logp, target, weight, reduction, ignore_index, label_smoothing,
                                          class_dim, classes);
    } else {
        r = scratch_keep(&s, tensor_nll_loss(logp, target, weight, reduction, ignore_index));
    }
    return scratch_finish(&s, r);
}

/* ---------------------------------------------------------------- margin and embedding losses */

Tensor *tensor_margin_ranking_loss(const Tensor *input1, const Tensor *input2, const Tensor *target,
                                   double margin, int64_t reduction)
{
    /* ATen: (-target * (input1 - input2) + margin).clamp_min_(0) */
    if (!check_reduction(reduction))
        return NULL;
    Scratch s = {0};
    Tensor *neg = scratch_keep(&s, tensor_unary(UN_NEG, target, 0, 0));
    Tensor *diff = neg ? scratch_keep(&s, tensor_sub(input1, input2, 1.0)) : NULL;
    Tensor *prod = diff ? scratch_keep(&s, tensor_binary(BIN_MUL, neg, diff)) : NULL;
    Tensor *shifted = prod ? scratch_keep(&s, tensor_add(prod, scratch_number(&s, margin), 1.0)) : NULL;
    Tensor *out = shifted ? scratch_keep(&s, tensor_clamp(shifted, scratch_keep(&s, tensor_wrapped_int(0)), NULL)) : NULL;
    Tensor *r = out ? scratch_keep(&s, reduce_loss(out, reduction)) : NULL;
    return scratch_finish(&s, r);
}

Tensor *tensor_hinge_embedding_loss(const Tensor *input, const Tensor *target, double margin,
                                    int64_t reduction)
{
    /* ATen: where(target != 1, (margin - input).clamp_min_(0), 0)
     *     + where(target != -1, input, 0) */
    if (!check_reduction(reduction))
        return NULL;
    Scratch s = {0};
    Tensor *zeros = scratch_keep(&s, tensor_zeros(input->dtype, input->ndim, input->sizes));
    Tensor *gap = zeros ? scratch_keep(&s, tensor_sub(scratch_number(&s, margin), input, 1.0)) : NULL;
    Tensor *clamped = gap ? scratch_keep(&s, tensor_clamp(gap, scratch_keep(&s, tensor_wrapped_int(0)), NULL)) : NULL;
    Tensor *not_pos = clamped ? scratch_keep(&s, tensor_binary(BIN_NE, target, scratch_keep(&s, tensor_wrapped_int(1)))) : NULL;
    Tensor *not_neg = not_pos ? scratch_keep(&s, tensor_binary(BIN_NE, target, scratch_keep(&s, tensor_wrapped_int(-1)))) : NULL;
    Tensor *out_margin = not_neg ? scratch_keep(&s, tensor_where(not_pos, clamped, zeros)) : NULL;
    Tensor *out_self = out_margin ? scratch_keep(&s, tensor_where(not_neg, input, zeros)) : NULL;
    Tensor *out = out_self ? scratch_keep(&s, tensor_add(out_margin, out_self, 1.0)) : NULL;
    Tensor *r = out ? scratch_keep(&s, reduce_loss(out, reduction)) : NULL;
    return scratch_finish(&s, r);
}

Tensor *tensor_soft_margin_loss(const Tensor *input, const Tensor *target, int64_t reduction)
{
    /* ATen: log1p(exp(-input * target)) */
    if (!check_reduction(reduction))
        return NULL;
    Scratch s = {0};
    Tensor *neg = scratch_keep(&s, tensor_unary(UN_NEG, input, 0, 0));
    Tensor *prod = neg ? scratch_keep(&s, tensor_binary(BIN_MUL, neg, target)) : NULL;
    Tensor *e = prod ? scratch_keep(&s, tensor_unary(UN_EXP, prod, 0, 0)) : NULL;
    Tensor *out = e ? scratch_keep(&s, tensor_unary(UN_LOG1P, e, 0, 0)) : NULL;
    Tensor *r = out ? scratch_keep(&s, reduce_loss(out, reduction)) : NULL;
    return scratch_finish(&s, r);
}

/* input (C) or (N, C) (a 0-d input is one class); target the class of
 * each sample. Per sample: sum over the other classes c of
 * max(0, margin - x[y] + x[c])^p * weight[y], divided by C. */
Tensor *tensor_multi_margin_loss(const Tensor *input, const Tensor *target, double p, double margin,
                                 const Tensor *weight, int64_t reduction)
{
    char ib[TENSOR_SHAPE_BUF];
    if (!check_reduction(reduction))
        return NULL;
    if (p != 1 && p != 2) {
        tensor_set_error("only p == 1 and p == 2 supported");
        return NULL;
    }
    if (!(input->ndim <= 2 && tensor_numel(input) > 0) && !(input->ndim == 2 && input->sizes[1] != 0)) {
        tensor_set_error("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s",
                         tensor_format_shape(input->ndim, input->sizes, ib, sizeof ib));
        return NULL;
    }
    int64_t frames = input->ndim <= 1 ? 1 : input->sizes[0];
    int64_t dim = input->ndim == 0 ? 1 : input->sizes[input->ndim - 1];
    if (!(target->ndim <= 1 && tensor_numel(target) == frames)) {
        tensor_set_error("inconsistent target size, expected %" PRId64 " but got %s", frames,
                         tensor_format_shape(target->ndim, target->sizes, ib, sizeof ib));
        return NULL;
    }
    if (weight && !(weight->ndim <= 1 && tensor_numel(weight) == dim)) {
        tensor_set_error("inconsistent weight size, expected %" PRId64 " but got %s", dim,
                         tensor_format_shape(weight->ndim, weight->sizes, ib, sizeof ib));
        return NULL;
    }
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("multi_margin_loss_cpu_kernel", input->dtype);
        return NULL;
    }
    bool per_sample = reduction == REDUCTION_NONE && target->ndim > 0;
    int64_t one = frames;
    Tensor *out = tensor_empty(input->dtype, per_sample ? 1 : 0, &one);
    double *x = kern_read_all_f64(input);
    int64_t *t = kern_read_all_i64(target);
    double *w = weight ? kern_read_all_f64(weight) : NULL;
    double *losses = kern_malloc((size_t)frames, sizeof *losses);
    bool ok = out && x && t && (!weight || w) && losses;
    double total = 0;
    for (int64_t n = 0; ok && n < frames; n++) {
        int64_t y = t[n];
        if (y < 0 || y >= dim) {
            tensor_set_error("target out of range");
            ok = false;
            break;
        }
        const double *row = x + n * dim;
        double sum = 0;
        for (int64_t c = 0; c < dim; c++) {
            if (c == y)
                continue;
            double z = margin - row[y] + row[c];
            if (z > 0) {
                double h = p == 1 ? z : z * z;
                sum += w ? h * w[y] : h;
            }
        }
        losses[n] = sum / (double)dim;
        total += losses[n];
    }
    if (ok) {
        if (per_sample)
            kern_write_all_f64(out, losses);
        else
            tensor_write_f64(out, out->offset, reduction == REDUCTION_MEAN ? total / (double)frames : total);
    }
    free(x);
    free(t);
    free(w);
    free(losses);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* input (C) or (N, C); target the same shape, each row's classes listed
 * until the first -1. Per sample: sum over its target classes j and every
 * non-target class c of max(0, 1 - (x[j] - x[c])), divided by C. */
Tensor *tensor_multilabel_margin_loss(const Tensor *input, const Tensor *target, int64_t reduction)
{
    char tb[TENSOR_SHAPE_BUF];
    if (!check_reduction(reduction))
        return NULL;
    int64_t frames, dim;
    bool valid;
    if (input->ndim <= 1) {
        frames = 1;
        dim = input->ndim == 0 ? 1 : input->sizes[0];
        valid = target->ndim <= 1 && tensor_numel(target) == dim;
    } else {
        frames = input->sizes[0];
        dim = input->sizes[1];
        valid = input->ndim == 2 && target->ndim == 2 && target->sizes[0] == frames && target->sizes[1] == dim;
    }
    if (!valid || tensor_numel(input) == 0) {
        tensor_set_error("inconsistent size %s for target",
                         tensor_format_shape(target->ndim, target->sizes, tb, sizeof tb));
        return NULL;
    }
    if (target->dtype != DT_I64) {
        tensor_set_error("expected scalar type Long but found %s", dtype_ts_name(target->dtype));
        return NULL;
    }
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("multilabel_margin_loss_forward_out_frame", input->dtype);
        return NULL;
    }
    bool per_sample = reduction == REDUCTION_NONE && target->ndim > 1;
    Tensor *out = tensor_empty(input->dtype, per_sample ? 1 : 0, &frames);
    double *x = kern_read_all_f64(input);
    int64_t *t = kern_read_all_i64(target);
    double *losses = kern_malloc((size_t)frames, sizeof *losses);
    bool *is_target = kern_malloc((size_t)dim, sizeof *is_target);
    bool ok = out && x && t && losses && is_target;
    double total = 0;
    for (int64_t n = 0; ok && n < frames; n++) {
        const double *row = x + n * dim;
        const int64_t *labels = t + n * dim;
        memset(is_target, 0, sizeof *is_target * (size_t)dim);
        for (int64_t j = 0; j < dim && labels[j] >= 0; j++) {
            if (labels[j] >= dim) {
                tensor_set_error("target out of range");
                ok = false;
                break;
            }
            is_target[labels[j]] = true;
        }
        double sum = 0;
        for (int64_t j = 0; ok && j < dim && labels[j] >= 0; j++) {
            double xt = row[labels[j]];
            for (int64_t c = 0; c < dim; c++) {
                if (is_target[c])
                    continue;
                double z = 1 - xt + row[c];
                if (z > 0)
                    sum += z;
            }
        }
        losses[n] = sum / (double)dim;
        total += losses[n];
    }
    if (ok) {
        if (per_sample)
            kern_write_all_f64(out, losses);
        else
            tensor_write_f64(out, out->offset, reduction == REDUCTION_MEAN ? total / (double)frames : total);
    }
    free(x);
    free(t);
    free(losses);
    free(is_target);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|. */
static double log_sigmoid_elem(const double *v, const double *params)
{
    (void)params;
    return fmin(v[0], 0.0) - log1p(exp(-fabs(v[0])));
}

Tensor *tensor_log_sigmoid(const Tensor *input)
{
    if (!dtype_is_float(input->dtype)) {
        tensor_error_not_implemented("log_sigmoid_forward", input->dtype);
        return NULL;
    }
    const Tensor *ins[1] = {input};
    return loss_map(ins, 1, input->dtype, log_sigmoid_elem, NULL);
}

Tensor *tensor_cosine_embedding_loss(const Tensor *input1, const Tensor *input2, const Tensor *target,
                                     double margin, int64_t reduction)
{
    char ab[TENSOR_SHAPE_BUF], bb[TENSOR_SHAPE_BUF];
    if (!check_reduction(reduction))
        return NULL;
    int64_t targ_dim = target->ndim;
    if (targ_dim != 0 && targ_dim != 1) {
        tensor_set_error("0D or 1D target tensor expected, multi-target not supported");
        return NULL;
    }
    if (input1->ndim != targ_dim + 1 || input2->ndim != targ_dim + 1) {
        tensor_set_error("%s target tensor expects %s input tensors, but found inputs with sizes %s and %s.",
                         targ_dim ? "1D" : "0D", targ_dim ? "2D" : "1D",
                         tensor_format_shape(input1->ndim, input1->sizes, ab, sizeof ab),
                         tensor_format_shape(input2->ndim, input2->sizes, bb, sizeof bb));
        return NULL;
    }
    /* ATen: cos = sum(x1 * x2) / sqrt((sum(x1^2) + 1e-12) * (sum(x2^2) + 1e-12));
     * loss = where(target == 1, 1 - cos, 0) + where(target == -1, (cos - margin).clamp_min_(0), 0) */
    const double epsilon = 1e-12;
    Scratch s = {0};
    Tensor *p12 = scratch_keep(&s, tensor_binary(BIN_MUL, input1, input2));
    Tensor *p11 = p12 ? scratch_keep(&s, tensor_binary(BIN_MUL, input1, input1)) : NULL;
    Tensor *p22 = p11 ? scratch_keep(&s, tensor_binary(BIN_MUL, input2, input2)) : NULL;
    Tensor *prod_sum = p22 ? scratch_keep(&s, tensor_sum(p12, &targ_dim, 1, false, -1)) : NULL;
    Tensor *s11 = prod_sum ? scratch_keep(&s, tensor_sum(p11, &targ_dim, 1, false, -1)) : NULL;
    Tensor *s22 = s11 ? scratch_keep(&s, tensor_sum(p22, &targ_dim, 1, false, -1)) : NULL;
    Tensor *mag1 = s22 ? scratch_keep(&s, tensor_add(s11, scratch_number(&s, epsilon), 1.0)) : NULL;
    Tensor *mag2 = mag1 ? scratch_keep(&s, tensor_add(s22, scratch_number(&s, epsilon), 1.0)) : NULL;
    Tensor *mags = mag2 ? scratch_keep(&s, tensor_binary(BIN_MUL, mag1, mag2)) : NULL;
    Tensor *denom = mags ? scratch_keep(&s, tensor_unary(UN_SQRT, mags, 0, 0)) : NULL;
    Tensor *cos = denom ? scratch_keep(&s, tensor_binary(BIN_DIV, prod_sum, denom)) : NULL;
    Tensor *zeros = cos ? scratch_keep(&s, tensor_zeros(cos->dtype, cos->ndim, cos->sizes)) : NULL;
    Tensor *pos = zeros ? scratch_keep(&s, tensor_sub(scratch_number(&s, 1.0), cos, 1.0)) : NULL;
    Tensor *shifted = pos ? scratch_keep(&s, tensor_sub(cos, scratch_number(&s, margin), 1.0)) : NULL;
    Tensor *neg = shifted ? scratch_keep(&s, tensor_clamp(shifted, scratch_keep(&s, tensor_wrapped_int(0)), NULL)) : NULL;
    Tensor *is_pos = neg ? scratch_keep(&s, tensor_binary(BIN_EQ, target, scratch_keep(&s, tensor_wrapped_int(1)))) : NULL;
    Tensor *is_neg = is_pos ? scratch_keep(&s, tensor_binary(BIN_EQ, target, scratch_keep(&s, tensor_wrapped_int(-1)))) : NULL;
    Tensor *out_pos = is_neg ? scratch_keep(&s, tensor_where(is_pos, pos, zeros)) : NULL;
    Tensor *out_neg = out_pos ? scratch_keep(&s, tensor_where(is_neg, neg, zeros)) : NULL;
    Tensor *out = out_neg ? scratch_keep(&s, tensor_add(out_pos, out_neg, 1.0)) : NULL;
    Tensor *r = out ? scratch_keep(&s, reduce_loss(out, reduction)) : NULL;
    return scratch_finish(&s, r);
}

Tensor *tensor_triplet_margin_loss(const Tensor *anchor, const Tensor *positive, const Tensor *negative,
                                   double margin, double p, double eps, bool swap, int64_t reduction)
{
    if (!check_reduction(reduction))
        return NULL;
    if (anchor->ndim != positive->ndim || anchor->ndim != negative->ndim) {
        tensor_set_error("The anchor, positive, and negative tensors are expected to have the same number of "
                         "dimensions, but got: anchor %dD, positive %dD, and negative %dD inputs",
                         anchor->ndim, positive->ndim, negative->ndim);
        return NULL;
    }
    /* ATen: clamp_min(margin + d(a, p) - d(a, n), 0), d(a, n) replaced by
     * min(d(a, n), d(p, n)) with swap. */
    Scratch s = {0};
    Tensor *dist_pos = scratch_keep(&s, tensor_pairwise_distance(anchor, positive, p, eps, false));
    Tensor *dist_neg = dist_pos ? scratch_keep(&s, tensor_pairwise_distance(anchor, negative, p, eps, false)) : NULL;
    if (dist_neg && swap) {
        Tensor *dist_swap = scratch_keep(&s, tensor_pairwise_distance(positive, negative, p, eps, false));
        dist_neg = dist_swap ? scratch_keep(&s, tensor_binary(BIN_MINIMUM, dist_neg, dist_swap)) : NULL;
    }
    Tensor *sum = dist_neg ? scratch_keep(&s, tensor_add(scratch_number(&s, margin), dist_pos, 1.0)) : NULL;
    Tensor *gap = sum ? scratch_keep(&s, tensor_sub(sum, dist_neg, 1.0)) : NULL;
    Tensor *out = gap ? scratch_keep(&s, tensor_clamp(gap, scratch_keep(&s, tensor_wrapped_int(0)), NULL)) : NULL;
    Tensor *r = out ? scratch_keep(&s, reduce_loss(out, reduction)) : NULL;
    return scratch_finish(&s, r);
}

Tensor *tensor_poisson_nll_loss(const Tensor *input, const Tensor *target, bool log_input, bool full,
                                double eps, int64_t reduction)
{
    if (!check_reduction(reduction))
        return NULL;
    Scratch s = {0};
    Tensor *loss;
    if (log_input) {
        /* exp(input) - target * input */
        Tensor *e = scratch_keep(&s, tensor_unary(UN_EXP, input, 0, 0));
        Tensor *ti = e ? scratch_keep(&s, tensor_binary(BIN_MUL, target, input)) : NULL;
        loss = ti ? scratch_keep(&s, tensor_sub(e, ti, 1.0)) : NULL;
    } else {
        /* input - target * log(input + eps) */
        Tensor *shifted = scratch_keep(&s, tensor_add(input, scratch_number(&s, eps), 1.0));
        Tensor *lg = shifted ? scratch_keep(&s, tensor_unary(UN_LOG, shifted, 0, 0)) : NULL;
        Tensor *tl = lg ? scratch_keep(&s, tensor_binary(BIN_MUL, target, lg)) : NULL;
        loss = tl ? scratch_keep(&s, tensor_sub(input, tl, 1.0)) : NULL;
    }
    if (loss && full) {
        /* Stirling's term target * log(target) - target + 0.5 * log(2 pi target),
         * zero where target <= 1. */
        Tensor *lt = scratch_keep(&s, tensor_unary(UN_LOG, target, 0, 0));
        Tensor *tlt = lt ? scratch_keep(&s, tensor_binary(BIN_MUL, target, lt)) : NULL;
        Tensor *a = tlt ? scratch_keep(&s, tensor_sub(tlt, target, 1.0)) : NULL;
        Tensor *scaled = a ? scratch_keep(&s, tensor_binary(BIN_MUL, scratch_number(&s, 2 * M_PI), target)) : NULL;
        Tensor *ls = scaled ? scratch_keep(&s, tensor_unary(UN_LOG, scaled, 0, 0)) : NULL;
        Tensor *half = ls ? scratch_keep(&s, tensor_binary(BIN_MUL, scratch_number(&s, 0.5), ls)) : NULL;
        Tensor *stirling = half ? scratch_keep(&s, tensor_add(a, half, 1.0)) : NULL;
        Tensor *small = stirling ? scratch_keep(&s, tensor_binary(BIN_LE, target, scratch_keep(&s, tensor_wrapped_int(1)))) : NULL;
        if (!small || !tensor_masked_fill_(stirling, small, scratch_number(&s, 0.0)))
            loss = NULL;
        else
            loss = scratch_keep(&s, tensor_add(loss, stirling, 1.0));
    }
    Tensor *r = loss ? scratch_keep(&s, reduce_loss(loss, reduction)) : NULL;
    return scratch_finish(&s, r);
}

/* ---------------------------------------------------------------- ctc */

/* log(exp(a) + exp(b) + exp(c)) with -inf terms allowed. */
static double log_sum3(double a, double b, double c)
{
    double m = fmax(a, fmax(b, c));
    if (m == -INFINITY)
        return -INFINITY;
    return log(exp(a - m) + exp(b - m) + exp(c - m)) + m;
}

/* The negative log likelihood of one sample by the alpha recursion of
 * Graves et al. (2006) in log space, over the blank-extended target
 * l' = (blank, l1, blank, l2, ..., blank). lp(t, c) is log_probs[t][b][c]. */
static double ctc_sample_nll(const double *lp, int64_t batch, int64_t classes, int64_t b, int64_t input_length,
                             const int64_t *labels, int64_t target_length, int64_t blank, double *alpha)
{
    if (input_length == 0)
        return target_length == 0 ? 0.0 : INFINITY;
    int64_t ext = 2 * target_length + 1;
#define LP(t, c) lp[((t) * batch + b) * classes + (c)]
#define PRIME(s) ((s) % 2 == 0 ? blank : labels[(s) / 2])
    for (int64_t s = 0; s < ext; s++)
        alpha[s] = -INFINITY;
    alpha[0] = LP(0, blank);
    if (target_length > 0)
        alpha[1] = LP(0, labels[0]);
    for (int64_t t = 1; t < input_length; t++) {
        /* alpha[s] depends on alpha[s], alpha[s-1] and alpha[s-2] of step
         * t-1: updating from the back keeps those unchanged. */
        for (int64_t s = ext - 1; s >= 0; s--) {
            int64_t cur = PRIME(s);
            double a1 = alpha[s];
            double a2 = s > 0 ? alpha[s - 1] : -INFINITY;
            double a3 = s > 1 && PRIME(s - 2) != cur ? alpha[s - 2] : -INFINITY;
            alpha[s] = log_sum3(a1, a2, a3) + LP(t, cur);
        }
    }
#undef LP
#undef PRIME
    double l1 = alpha[ext - 1], l2 = target_length > 0 ? alpha[ext - 2] : -INFINITY;
    return -log_sum3(l1, l2, -INFINITY);
}

Tensor *tensor_ctc_loss(const Tensor *log_probs, const Tensor *targets, const int64_t *input_lengths,
                        int n_input_lengths, const int64_t *target_lengths, int n_target_lengths,
                        int64_t blank, int64_t reduction, bool zero_infinity)
{
    if (!check_reduction(reduction))
        return NULL;
    bool batched = log_probs->ndim == 3;
    if (log_probs->ndim != 3 && log_probs->ndim != 2) {
        tensor_set_error("Expected tensor to have 3 dimension(s), but got %d for argument #1 'log_probs' "
                         "(while checking arguments for ctc_loss_cpu)", log_probs->ndim);
        return NULL;
    }
    if (!dtype_is_float(log_probs->dtype)) {
        tensor_error_not_implemented("ctc_loss_cpu", log_probs->dtype);
        return NULL;
    }
    if (targets->dtype != DT_I64 && targets->dtype != DT_I32) {
        tensor_set_error("Expected tensor for argument #2 'targets' to have one of the following scalar types: "
                         "Long, Int; but got %s instead (while checking arguments for ctc_loss_cpu)",
                         dtype_ts_name(targets->dtype));
        return NULL;
    }
    int64_t T = log_probs->sizes[0];
    int64_t batch = batched ? log_probs->sizes[1] : 1;
    int64_t classes = log_probs->sizes[batched ? 2 : 1];
    /* An unbatched call is a batch of one with a padded target row. */
    bool concatenated = batched && targets->ndim == 1;
    if (targets->ndim < 1 || targets->ndim > (batched ? 2 : 1)) {
        tensor_set_error("Expected %dD targets, but got %dD", batched ? 2 : 1, targets->ndim);
        return NULL;
    }
    if (!(0 <= blank && blank < classes)) {
        tensor_set_error("blank must be in label range");
        return NULL;
    }
    if (n_input_lengths != batch) {
        tensor_set_error("input_lengths must be of size batch_size");
        return NULL;
    }
    if (n_target_lengths != batch) {
        tensor_set_error("target_lengths must be of size batch_size");
        return NULL;
    }
    int64_t *offsets = kern_malloc((size_t)batch + 1, sizeof *offsets);
    if (!offsets)
        return NULL;
    int64_t pos = 0, max_target = 0, row = targets->sizes[targets->ndim - 1];
    for (int64_t b = 0; b < batch; b++) {
        if (target_lengths[b] < 0 || input_lengths[b] < 0) {
            free(offsets);
            tensor_set_error("ctc_loss: lengths must be non-negative");
            return NULL;
        }
        offsets[b] = concatenated ? pos : b * row;
        pos += target_lengths[b];
        if (target_lengths[b] > max_target)
            max_target = target_lengths[b];
    }
    if (concatenated ? targets->sizes[0] != pos : (batched && targets->sizes[0] != batch) || row < max_target) {
        free(offsets);
        if (concatenated || (batched && targets->sizes[0] != batch))
            tensor_set_error("Expected tensor to have size %" PRId64 " at dimension 0, but got size %" PRId64
                             " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)",
                             concatenated ? pos : batch, targets->sizes[0]);
        else
            tensor_set_error("Expected tensor to have size at least %" PRId64 " at dimension 1, but got size %"
                             PRId64 " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)",
                             max_target, row);
        return NULL;
    }
    for (int64_t b = 0; b < batch; b++)
        if (input_lengths[b] > T) {
            free(offsets);
            tensor_set_error("Expected input_lengths to have value at most %" PRId64 ", but got value %" PRId64
                             " (while checking arguments for ctc_loss_cpu)", T, input_lengths[b]);
            return NULL;
        }
    double *lp = kern_read_all_f64(log_probs);
    int64_t *labels = kern_read_all_i64(targets);
    double *alpha = kern_malloc((size_t)(2 * max_target + 1), sizeof *alpha);
    double *nll = kern_malloc((size_t)batch, sizeof *nll);
    Tensor *res = tensor_empty(log_probs->dtype, batched ? 1 : 0, &batch);
    bool ok = lp && labels && alpha && nll && res;
    for (int64_t b = 0; ok && b < batch; b++) {
        const int64_t *l = labels + offsets[b];
        for (int64_t j = 0; j < target_lengths[b]; j++)
            if (l[j] < 0 || l[j] >= classes) {
                tensor_set_error("ctc_loss: target index %" PRId64 " is out of bounds", l[j]);
                ok = false;
            }
        if (!ok)
            break;
        nll[b] = ctc_sample_nll(lp, batch, classes, b, input_lengths[b], l, target_lengths[b], blank, alpha);
        if (zero_infinity && nll[b] == INFINITY)
            nll[b] = 0;
    }
    if (ok)
        kern_write_all_f64(res, nll);
    free(offsets);
    free(lp);
    free(labels);
    free(alpha);
    free(nll);
    if (!ok) {
        tensor_release(res);
        return NULL;
    }
    if (reduction == REDUCTION_NONE)
        return res;
    if (reduction == REDUCTION_SUM) {
        Tensor *r = tensor_sum(res, NULL, 0, false, -1);
        tensor_release(res);
        return r;
    }
    /* mean: (loss / target_lengths.clamp_min(1)).mean() */
    Scratch s = {0};
    scratch_keep(&s, res);
    Tensor *lengths = scratch_keep(&s, tensor_empty(DT_I64, 1, &batch));
    if (lengths)
        for (int64_t b = 0; b < batch; b++)
            tensor_write_i64(lengths, b, target_lengths[b] > 1 ? target_lengths[b] : 1);
    Tensor *per = lengths ? scratch_keep(&s, tensor_binary(BIN_DIV, res, lengths)) : NULL;
    Tensor *r = per ? scratch_keep(&s, tensor_mean(per, NULL, 0, false, -1)) : NULL;
    return scratch_finish(&s, r);
}
