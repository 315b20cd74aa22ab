/* ops_loss.c — bindings of the loss functions and distances (tensor/loss.c):
 * broadcast_tensors and _infer_size (which torch.nn.functional's losses
 * call before the loss itself), the losses, log_sigmoid, the distances,
 * one_hot and bilinear.
 *
 * Every binding reads its schema's arguments in order; trailing arguments
 * with defaults may be left out, as TorchScript leaves them out of a call
 * that does not give them. Reductions are the ints of _Reduction.get_enum
 * (0 none, 1 mean, 2 sum).
 */
#include <stdlib.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* ---------------------------------------------------------------- optional trailing arguments */

static bool opt_int(EvalCall *c, int i, int64_t *v)
{
    return c->nargs <= i || eval_arg_int(c, i, v);
}

static bool opt_double(EvalCall *c, int i, double *v)
{
    return c->nargs <= i || eval_arg_double(c, i, v);
}

static bool opt_bool(EvalCall *c, int i, bool *v)
{
    return c->nargs <= i || eval_arg_bool(c, i, v);
}

static bool opt_tensor(EvalCall *c, int i, Tensor **t)
{
    *t = NULL;
    return c->nargs <= i || eval_arg_tensor_opt(c, i, t);
}

/* ---------------------------------------------------------------- broadcasting */

/* broadcast_tensors(Tensor[] tensors) -> Tensor[]: views of the inputs. */
bool eval_op_broadcast_tensors(EvalCall *c)
{
    Tensor **ts;
    int n;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor_list(c, 0, false, &ts, &n))
        return false;
    Tensor **views = tensor_broadcast_tensors(ts, n);
    free(ts);
    if (!views)
        return eval_fail_kernel(c, "broadcast_tensors failed");
    return eval_out_tensor_list(c, views, n);
}

/* _infer_size(int[] a, int[] b) -> int[]: the broadcast shape. */
bool eval_op_infer_size(EvalCall *c)
{
    int64_t a[TENSOR_MAX_DIMS], b[TENSOR_MAX_DIMS], out[TENSOR_MAX_DIMS];
    int na, nb;
    if (!eval_nargs(c, 2, 2) || !eval_arg_ints(c, 0, a, TENSOR_MAX_DIMS, &na) ||
        !eval_arg_ints(c, 1, b, TENSOR_MAX_DIMS, &nb))
        return false;
    int n = tensor_broadcast_shape(na, a, nb, b, out);
    if (n < 0)
        return eval_fail_kernel(c, "_infer_size failed");
    RtValue *list = rt_list(RT_LIST, 0, NULL);
    for (int i = 0; i < n; i++) {
        RtValue *item = rt_int(out[i]);
        rt_list_append(list, item);
        rt_release(item);
    }
    return eval_out_value(c, 0, list);
}

/* ---------------------------------------------------------------- regression losses */

/* (Tensor self, Tensor target, int reduction=1, ...) */
static bool loss_pair_args(EvalCall *c, int hi, Tensor **self, Tensor **target, int64_t *reduction)
{
    *reduction = 1;
    return eval_nargs(c, 2, hi) && eval_arg_tensor(c, 0, self) && eval_arg_tensor(c, 1, target) &&
           opt_int(c, 2, reduction);
}

/* (Tensor self, Tensor target, int reduction=1) -> fn(self, target, reduction) */
typedef Tensor *(*PairLossFn)(const Tensor *, const Tensor *, int64_t);
static bool pair_loss(EvalCall *c, PairLossFn fn)
{
    Tensor *x, *t;
    int64_t reduction;
    return loss_pair_args(c, 3, &x, &t, &reduction) && eval_out_tensor(c, 0, fn(x, t, reduction));
}

bool eval_op_l1_loss(EvalCall *c) { return pair_loss(c, tensor_l1_loss); }
bool eval_op_mse_loss(EvalCall *c) { return pair_loss(c, tensor_mse_loss); }
bool eval_op_soft_margin_loss(EvalCall *c) { return pair_loss(c, tensor_soft_margin_loss); }
bool eval_op_multilabel_margin_loss(EvalCall *c) { return pair_loss(c, tensor_multilabel_margin_loss); }

/* smooth_l1_loss(self, target, int reduction=1, float beta=1.) */
bool eval_op_smooth_l1_loss(EvalCall *c)
{
    Tensor *x, *t;
    int64_t reduction;
    double beta = 1.0;
    return loss_pair_args(c, 4, &x, &t, &reduction) && opt_double(c, 3, &beta) &&
           eval_out_tensor(c, 0, tensor_smooth_l1_loss(x, t, reduction, beta));
}

/* huber_loss(self, target, int reduction=1, float delta=1.) */
bool eval_op_huber_loss(EvalCall *c)
{
    Tensor *x, *t;
    int64_t reduction;
    double delta = 1.0;
    return loss_pair_args(c, 4, &x, &t, &reduction) && opt_double(c, 3, &delta) &&
           eval_out_tensor(c, 0, tensor_huber_loss(x, t, reduction, delta));
}

/* kl_div(self, target, int reduction=1, *, bool log_target=False) */
bool eval_op_kl_div(EvalCall *c)
{
    Tensor *x, *t;
    int64_t reduction;
    bool log_target = false;
    return loss_pair_args(c, 4, &x, &t, &reduction) && opt_bool(c, 3, &log_target) &&
           eval_out_tensor(c, 0, tensor_kl_div(x, t, reduction, log_target));
}

/* ---------------------------------------------------------------- classification losses */

/* binary_cross_entropy(self, target, Tensor? weight=None, int reduction=1) */
bool eval_op_binary_cross_entropy(EvalCall *c)
{
    Tensor *x, *t, *w;
    int64_t reduction = 1;
    return eval_nargs(c, 2, 4) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &t) &&
           opt_tensor(c, 2, &w) && opt_int(c, 3, &reduction) &&
           eval_out_tensor(c, 0, tensor_binary_cross_entropy(x, t, w, reduction));
}

/* binary_cross_entropy_with_logits(self, target, Tensor? weight=None,
 * Tensor? pos_weight=None, int reduction=1) */
bool eval_op_binary_cross_entropy_with_logits(EvalCall *c)
{
    Tensor *x, *t, *w, *pw;
    int64_t reduction = 1;
    return eval_nargs(c, 2, 5) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &t) &&
           opt_tensor(c, 2, &w) && opt_tensor(c, 3, &pw) && opt_int(c, 4, &reduction) &&
           eval_out_tensor(c, 0, tensor_binary_cross_entropy_with_logits(x, t, w, pw, reduction));
}

/* (self, target, Tensor? weight=None, int reduction=1, int ignore_index=-100, ...) */
static bool nll_args(EvalCall *c, int hi, Tensor **x, Tensor **t, Tensor **w, int64_t *reduction,
                     int64_t *ignore_index)
{
    *reduction = 1;
    *ignore_index = -100;
    return eval_nargs(c, 2, hi) && eval_arg_tensor(c, 0, x) && eval_arg_tensor(c, 1, t) && opt_tensor(c, 2, w) &&
           opt_int(c, 3, reduction) && opt_int(c, 4, ignore_index);
}

/* nll_loss_nd: any input of at least one dim. */
bool eval_op_nll_loss_nd(EvalCall *c)
{
    Tensor *x, *t, *w;
    int64_t reduction, ignore_index;
    return nll_args(c, 5, &x, &t, &w, &reduction, &ignore_index) &&
           eval_out_tensor(c, 0, tensor_nll_loss(x, t, w, reduction, ignore_index));
}

/* nll_loss: input (C) or (N, C). */
bool eval_op_nll_loss(EvalCall *c)
{
    Tensor *x, *t, *w;
    int64_t reduction, ignore_index;
    if (!nll_args(c, 5, &x, &t, &w, &reduction, &ignore_index))
        return false;
    if (x->ndim < 1 || x->ndim > 2)
        return eval_fail(c, "input tensor should be 1D or 2D");
    if (t->ndim > 1)
        return eval_fail(c, "0D or 1D target tensor expected, multi-target not supported");
    return eval_out_tensor(c, 0, tensor_nll_loss(x, t, w, reduction, ignore_index));
}

/* nll_loss2d: input (N, C, H, W), target (N, H, W). */
bool eval_op_nll_loss2d(EvalCall *c)
{
    Tensor *x, *t, *w;
    int64_t reduction, ignore_index;
    if (!nll_args(c, 5, &x, &t, &w, &reduction, &ignore_index))
        return false;
    if (t->ndim != 3)
        return eval_fail(c, "only batches of spatial targets supported (3D tensors) but got targets of dimension: %d",
                         t->ndim);
    if (x->ndim != 4)
        return eval_fail(c, "only batches of spatial inputs supported (4D tensors), but got input of dimension: %d",
                         x->ndim);
    return eval_out_tensor(c, 0, tensor_nll_loss(x, t, w, reduction, ignore_index));
}

/* cross_entropy_loss(self, target, weight?, int reduction=1, int
 * ignore_index=-100, float label_smoothing=0.) */
bool eval_op_cross_entropy_loss(EvalCall *c)
{
    Tensor *x, *t, *w;
    int64_t reduction, ignore_index;
    double label_smoothing = 0.0;
    return nll_args(c, 6, &x, &t, &w, &reduction, &ignore_index) && opt_double(c, 5, &label_smoothing) &&
           eval_out_tensor(c, 0, tensor_cross_entropy_loss(x, t, w, reduction, ignore_index, label_smoothing));
}

/* multi_margin_loss(self, target, Scalar p=1, Scalar margin=1, Tensor?
 * weight=None, int reduction=1) */
bool eval_op_multi_margin_loss(EvalCall *c)
{
    Tensor *x, *t, *w;
    double p = 1, margin = 1;
    int64_t reduction = 1;
    return eval_nargs(c, 2, 6) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &t) && opt_double(c, 2, &p) &&
           opt_double(c, 3, &margin) && opt_tensor(c, 4, &w) && opt_int(c, 5, &reduction) &&
           eval_out_tensor(c, 0, tensor_multi_margin_loss(x, t, p, margin, w, reduction));
}

/* ---------------------------------------------------------------- margin and embedding losses */

/* margin_ranking_loss / cosine_embedding_loss(input1, input2, target,
 * float margin=0., int reduction=1) */
typedef Tensor *(*TripleMarginFn)(const Tensor *, const Tensor *, const Tensor *, double, int64_t);
static bool triple_margin_loss(EvalCall *c, TripleMarginFn fn)
{
    Tensor *a, *b, *t;
    double margin = 0;
    int64_t reduction = 1;
    return eval_nargs(c, 3, 5) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           eval_arg_tensor(c, 2, &t) && opt_double(c, 3, &margin) && opt_int(c, 4, &reduction) &&
           eval_out_tensor(c, 0, fn(a, b, t, margin, reduction));
}

bool eval_op_margin_ranking_loss(EvalCall *c) { return triple_margin_loss(c, tensor_margin_ranking_loss); }
bool eval_op_cosine_embedding_loss(EvalCall *c) { return triple_margin_loss(c, tensor_cosine_embedding_loss); }

/* hinge_embedding_loss(self, target, float margin=1., int reduction=1) */
bool eval_op_hinge_embedding_loss(EvalCall *c)
{
    Tensor *x, *t;
    double margin = 1.0;
    int64_t reduction = 1;
    return eval_nargs(c, 2, 4) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &t) &&
           opt_double(c, 2, &margin) && opt_int(c, 3, &reduction) &&
           eval_out_tensor(c, 0, tensor_hinge_embedding_loss(x, t, margin, reduction));
}

/* triplet_margin_loss(anchor, positive, negative, float margin=1., float
 * p=2., float eps=1e-06, bool swap=False, int reduction=1) */
bool eval_op_triplet_margin_loss(EvalCall *c)
{
    Tensor *a, *p, *n;
    double margin = 1.0, norm = 2.0, eps = 1e-6;
    bool swap = false;
    int64_t reduction = 1;
    return eval_nargs(c, 3, 8) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &p) &&
           eval_arg_tensor(c, 2, &n) && opt_double(c, 3, &margin) && opt_double(c, 4, &norm) &&
           opt_double(c, 5, &eps) && opt_bool(c, 6, &swap) && opt_int(c, 7, &reduction) &&
           eval_out_tensor(c, 0, tensor_triplet_margin_loss(a, p, n, margin, norm, eps, swap, reduction));
}

/* poisson_nll_loss(input, target, bool log_input, bool full, float eps, int reduction) */
bool eval_op_poisson_nll_loss(EvalCall *c)
{
    Tensor *x, *t;
    bool log_input, full;
    double eps;
    int64_t reduction;
    return eval_nargs(c, 6, 6) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &t) &&
           eval_arg_bool(c, 2, &log_input) && eval_arg_bool(c, 3, &full) && eval_arg_double(c, 4, &eps) &&
           eval_arg_int(c, 5, &reduction) &&
           eval_out_tensor(c, 0, tensor_poisson_nll_loss(x, t, log_input, full, eps, reduction));
}

/* log_sigmoid(Tensor self) */
bool eval_op_log_sigmoid(EvalCall *c)
{
    Tensor *x;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &x) && eval_out_tensor(c, 0, tensor_log_sigmoid(x));
}

/* ---------------------------------------------------------------- ctc */

/* The lengths argument i of ctc_loss: an int[] (ctc_loss.IntList) or an
 * integral tensor (ctc_loss.Tensor). A malloc'd array in *out. */
static bool ctc_lengths(EvalCall *c, int i, const char *name, int64_t **out, int *n)
{
    *out = NULL;
    if (eval_is_tensor(c, i)) {
        Tensor *t = c->args[i]->u.t;
        if (!dtype_is_integral(t->dtype))
            return eval_fail(c, "%s must be integral", name);
        if (t->ndim > 1)
            return eval_fail(c, "%s must be a 0-d or 1-d tensor, got %d dims", name, t->ndim);
        int64_t count = tensor_numel(t);
        *out = xcalloc((size_t)(count > 0 ? count : 1), sizeof **out);
        for (int64_t k = 0; k < count; k++)
            (*out)[k] = tensor_get_flat_int(t, k);
        *n = (int)count;
        return true;
    }
    RtValue *list;
    if (!eval_arg_list(c, i, &list))
        return false;
    *out = xcalloc((size_t)(list->u.list.n > 0 ? list->u.list.n : 1), sizeof **out);
    for (int k = 0; k < list->u.list.n; k++) {
        const RtValue *item = list->u.list.items[k];
        if (item->kind != RT_INT) {
            free(*out);
            *out = NULL;
            return eval_fail(c, "%s: item %d is a %s, expected int", name, k, rt_kind_name(item->kind));
        }
        (*out)[k] = item->u.i;
    }
    *n = list->u.list.n;
    return true;
}

/* ctc_loss(log_probs, targets, int[]|Tensor input_lengths, int[]|Tensor
 * target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) */
bool eval_op_ctc_loss(EvalCall *c)
{
    Tensor *lp, *targets;
    int64_t blank = 0, reduction = 1;
    bool zero_infinity = false;
    if (!eval_nargs(c, 4, 7) || !eval_arg_tensor(c, 0, &lp) || !eval_arg_tensor(c, 1, &targets) ||
        !opt_int(c, 4, &blank) || !opt_int(c, 5, &reduction) || !opt_bool(c, 6, &zero_infinity))
        return false;
    int64_t *in_len, *tg_len;
    int n_in, n_tg;
    if (!ctc_lengths(c, 2, "input_lengths", &in_len, &n_in))
        return false;
    if (!ctc_lengths(c, 3, "target_lengths", &tg_len, &n_tg)) {
        free(in_len);
        return false;
    }
    Tensor *r = tensor_ctc_loss(lp, targets, in_len, n_in, tg_len, n_tg, blank, reduction, zero_infinity);
    free(in_len);
    free(tg_len);
    return eval_out_tensor(c, 0, r);
}

/* ---------------------------------------------------------------- distances */

/* cosine_similarity(x1, x2, int dim=1, float eps=1e-08) */
bool eval_op_cosine_similarity(EvalCall *c)
{
    Tensor *a, *b;
    int64_t dim = 1;
    double eps = 1e-8;
    return eval_nargs(c, 2, 4) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) && opt_int(c, 2, &dim) &&
           opt_double(c, 3, &eps) && eval_out_tensor(c, 0, tensor_cosine_similarity(a, b, dim, eps));
}

/* pairwise_distance(x1, x2, float p=2., float eps=1e-06, bool keepdim=False) */
bool eval_op_pairwise_distance(EvalCall *c)
{
    Tensor *a, *b;
    double p = 2.0, eps = 1e-6;
    bool keepdim = false;
    return eval_nargs(c, 2, 5) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           opt_double(c, 2, &p) && opt_double(c, 3, &eps) && opt_bool(c, 4, &keepdim) &&
           eval_out_tensor(c, 0, tensor_pairwise_distance(a, b, p, eps, keepdim));
}

/* pdist(self, float p=2.) */
bool eval_op_pdist(EvalCall *c)
{
    Tensor *x;
    double p = 2.0;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &x) && opt_double(c, 1, &p) &&
           eval_out_tensor(c, 0, tensor_pdist(x, p));
}

/* cdist(x1, x2, float p=2., int? compute_mode=None) */
bool eval_op_cdist(EvalCall *c)
{
    Tensor *a, *b;
    double p = 2.0;
    int64_t mode = -1;
    bool present = false;
    return eval_nargs(c, 2, 4) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           opt_double(c, 2, &p) && (c->nargs <= 3 || eval_arg_int_opt(c, 3, &mode, &present)) &&
           eval_out_tensor(c, 0, tensor_cdist(a, b, p, present ? mode : -1));
}

/* dist(self, other, Scalar p=2) */
bool eval_op_dist(EvalCall *c)
{
    Tensor *a, *b;
    double p = 2.0;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           opt_double(c, 2, &p) && eval_out_tensor(c, 0, tensor_dist(a, b, p));
}

/* ---------------------------------------------------------------- one_hot, bilinear */

/* one_hot(self, int num_classes=-1) */
bool eval_op_one_hot(EvalCall *c)
{
    Tensor *x;
    int64_t classes = -1;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &x) && opt_int(c, 1, &classes) &&
           eval_out_tensor(c, 0, tensor_one_hot(x, classes));
}

/* bilinear(input1, input2, weight, Tensor? bias=None) */
bool eval_op_bilinear(EvalCall *c)
{
    Tensor *a, *b, *w, *bias;
    return eval_nargs(c, 3, 4) && eval_arg_tensor(c, 0, &a) && eval_arg_tensor(c, 1, &b) &&
           eval_arg_tensor(c, 2, &w) && opt_tensor(c, 3, &bias) &&
           eval_out_tensor(c, 0, tensor_bilinear(a, b, w, bias));
}
