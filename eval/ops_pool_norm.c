/* ops_pool_norm.c — bindings of the pools (max with and without indices,
 * average, adaptive average and max, over 1, 2 or 3 spatial dims), max
 * unpooling, and the normalizations that use batch statistics (batch_norm,
 * instance_norm, native_batch_norm, native_layer_norm).
 *
 * Running statistics. In training mode batch_norm, native_batch_norm and
 * instance_norm also update running_mean and running_var in place. The op
 * table records a single mutated input per op, so the passes could not see
 * those writes; the bindings leave them out, which is exact only when
 * nothing can read the tensors afterwards: they must be used by this node
 * alone and be fresh (a graph input, a constant or the result of an op that
 * allocates), not module state or a view of another tensor. Otherwise the
 * binding refuses the call.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "tssa/ir.h"

/* ---------------------------------------------------------------- pooling */

/* The leading arguments of a pool over nd dims, with 2 to hi arguments:
 * (Tensor self, int[nd] kernel_size, int[nd] stride=[], int[nd]
 * padding=0, ...); an absent or empty stride means stride = kernel_size. */
static bool pool_args(EvalCall *c, int nd, int hi, Tensor **x, int64_t *kernel, int64_t *stride, int64_t *padding)
{
    if (!eval_nargs(c, 2, hi) || !eval_arg_tensor(c, 0, x) || !eval_arg_ints_fixed(c, 1, kernel, nd))
        return false;
    for (int i = 0; i < nd; i++) {
        stride[i] = kernel[i];
        padding[i] = 0;
    }
    bool default_stride = c->nargs < 3 || (eval_kind(c, 2) == RT_LIST && c->args[2]->u.list.n == 0);
    return (default_stride || eval_arg_ints_fixed(c, 2, stride, nd)) &&
           (c->nargs < 4 || eval_arg_ints_fixed(c, 3, padding, nd));
}

/* max_poolNd[_with_indices](self, int[nd] kernel_size, int[nd] stride=[],
 * int[nd] padding=0, int[nd] dilation=1, bool ceil_mode=False) */
static bool max_pool(EvalCall *c, int nd, const char *kernel_name, bool with_indices)
{
    Tensor *x, *indices = NULL;
    int64_t kernel[3], stride[3], padding[3], dilation[3] = {1, 1, 1};
    bool ceil_mode = false;
    if (!pool_args(c, nd, 6, &x, kernel, stride, padding) ||
        (c->nargs > 4 && !eval_arg_ints_fixed(c, 4, dilation, nd)) ||
        (c->nargs > 5 && !eval_arg_bool(c, 5, &ceil_mode)))
        return false;
    Tensor *r = tensor_max_pool(x, nd, kernel, stride, padding, dilation, ceil_mode, kernel_name,
                                with_indices ? &indices : NULL);
    return eval_out_tensors(c, (Tensor *[]){r, indices}, with_indices ? 2 : 1);
}
bool eval_op_max_pool1d(EvalCall *c) { return max_pool(c, 1, "max_pool1d_impl", false); }
bool eval_op_max_pool2d(EvalCall *c) { return max_pool(c, 2, "max_pool2d", false); }
bool eval_op_max_pool3d(EvalCall *c) { return max_pool(c, 3, "max_pool3d_with_indices_cpu", false); }
bool eval_op_max_pool1d_with_indices(EvalCall *c) { return max_pool(c, 1, "max_pool2d", true); }
bool eval_op_max_pool2d_with_indices(EvalCall *c) { return max_pool(c, 2, "max_pool2d", true); }
bool eval_op_max_pool3d_with_indices(EvalCall *c) { return max_pool(c, 3, "max_pool3d_with_indices_cpu", true); }

/* avg_pool1d(self, int[1] kernel_size, int[1] stride=[], int[1] padding=0,
 * bool ceil_mode=False, bool count_include_pad=True); avg_pool2d/3d add
 * int? divisor_override=None, which divides every window whenever given
 * (negative too; zero is an error). */
static bool avg_pool(EvalCall *c, int nd)
{
    Tensor *x;
    int64_t kernel[3], stride[3], padding[3], divisor = 0;
    bool ceil_mode = false, count_include_pad = true, has_divisor = false;
    if (!pool_args(c, nd, nd == 1 ? 6 : 7, &x, kernel, stride, padding) ||
        (c->nargs > 4 && !eval_arg_bool(c, 4, &ceil_mode)) ||
        (c->nargs > 5 && !eval_arg_bool(c, 5, &count_include_pad)) ||
        (c->nargs > 6 && !eval_arg_int_opt(c, 6, &divisor, &has_divisor)))
        return false;
    return eval_out_tensor(c, 0, tensor_avg_pool(x, nd, kernel, stride, padding, ceil_mode, count_include_pad,
                                                 has_divisor, divisor));
}
bool eval_op_avg_pool1d(EvalCall *c) { return avg_pool(c, 1); }
bool eval_op_avg_pool2d(EvalCall *c) { return avg_pool(c, 2); }
bool eval_op_avg_pool3d(EvalCall *c) { return avg_pool(c, 3); }

/* adaptive_{avg,max}_poolNd(self, int[nd] output_size); the max pools
 * return (values, indices). */
static bool adaptive_pool(EvalCall *c, int nd, bool is_max)
{
    Tensor *x, *indices = NULL;
    int64_t size[3];
    if (!eval_nargs(c, 2, 2) || !eval_arg_tensor(c, 0, &x) || !eval_arg_ints_fixed(c, 1, size, nd))
        return false;
    if (!is_max)
        return eval_out_tensor(c, 0, tensor_adaptive_avg_pool(x, nd, size));
    Tensor *r = tensor_adaptive_max_pool(x, nd, size, &indices);
    return eval_out_tensors(c, (Tensor *[]){r, indices}, 2);
}
bool eval_op_adaptive_avg_pool1d(EvalCall *c) { return adaptive_pool(c, 1, false); }
bool eval_op_adaptive_avg_pool2d(EvalCall *c) { return adaptive_pool(c, 2, false); }
bool eval_op_adaptive_avg_pool3d(EvalCall *c) { return adaptive_pool(c, 3, false); }
bool eval_op_adaptive_max_pool1d(EvalCall *c) { return adaptive_pool(c, 1, true); }
bool eval_op_adaptive_max_pool2d(EvalCall *c) { return adaptive_pool(c, 2, true); }
bool eval_op_adaptive_max_pool3d(EvalCall *c) { return adaptive_pool(c, 3, true); }

/* ---------------------------------------------------------------- unpooling */

/* int[nd] argument i that must hold exactly nd values ("two elements
 * (height, width)" / "three elements (depth, height, width)"). */
static bool exact_ints(EvalCall *c, int i, int nd, const char *what, int64_t *buf)
{
    int n;
    int64_t tmp[TENSOR_MAX_DIMS];
    if (!eval_arg_ints(c, i, tmp, TENSOR_MAX_DIMS, &n))
        return false;
    if (n != nd)
        return eval_fail(c, "There should be exactly %s elements (%s) in %s, but got %d elements.",
                         nd == 2 ? "two" : "three", nd == 2 ? "height, width" : "depth, height, width", what, n);
    memcpy(buf, tmp, (size_t)nd * sizeof *buf);
    return true;
}

/* max_unpool2d(Tensor self, Tensor indices, int[2] output_size) */
bool eval_op_max_unpool2d(EvalCall *c)
{
    Tensor *x, *idx;
    int64_t size[2];
    return eval_nargs(c, 3, 3) && eval_arg_tensor(c, 0, &x) && eval_arg_tensor(c, 1, &idx) &&
           exact_ints(c, 2, 2, "output_size", size) && eval_out_tensor(c, 0, tensor_max_unpool(x, idx, 2, size));
}

/* max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3]
 * stride, int[3] padding): stride and padding are only checked. */
bool eval_op_max_unpool3d(EvalCall *c)
{
    Tensor *x, *idx;
    int64_t size[3], stride[3], padding[3];
    if (!eval_nargs(c, 5, 5) || !eval_arg_tensor(c, 0, &x) || !eval_arg_tensor(c, 1, &idx) ||
        !exact_ints(c, 2, 3, "output_size", size) || !exact_ints(c, 3, 3, "stride", stride) ||
        !exact_ints(c, 4, 3, "padding", padding))
        return false;
    if (stride[0] <= 0 || stride[1] <= 0 || stride[2] <= 0)
        return eval_fail(c, "strides should be greater than zero, but got stride: [%lld, %lld, %lld]",
                         (long long)stride[0], (long long)stride[1], (long long)stride[2]);
    return eval_out_tensor(c, 0, tensor_max_unpool(x, idx, 3, size));
}

/* ---------------------------------------------------------------- normalization */

/* Whether nothing but this node can read input i (see the file comment). */
static bool unobserved_elsewhere(EvalCall *c, int i)
{
    IrValue *v = c->node->inputs[i];
    IrNode *def = v->def;
    if (v->nuses != 1 || !def)
        return false;
    if (def == def->graph->top->param)
        return true;
    if (def->op <= OP_UNKNOWN || def->op >= OP_COUNT)
        return false;
    const OpInfo *info = op_info(def->op);
    return info->alias == ALIAS_NONE && info->mutates < 0 &&
           (info->cls == OPC_CONSTANT || info->cls == OPC_CREATION || info->cls == OPC_ELEMENTWISE ||
            info->cls == OPC_REDUCTION || info->cls == OPC_LINALG || info->cls == OPC_NN || info->cls == OPC_COPY ||
            info->cls == OPC_RANDOM);
}

/* Training mode with running statistics at inputs first and first + 1. */
static bool running_stats_skippable(EvalCall *c, int first, const char *op)
{
    for (int i = first; i < first + 2; i++)
        if (!eval_is_none(c, i) && !unobserved_elsewhere(c, i))
            return eval_fail(c, "%s with batch statistics updates %s in place; that is not implemented when the "
                                "graph may read it afterwards (module state, a view, or another use)",
                             op, i == first ? "running_mean" : "running_var");
    return true;
}

/* The arguments batch_norm, native_batch_norm and instance_norm share:
 * (input, weight?, bias?, running_mean?, running_var?, bool training,
 * float momentum, float eps, ...). */
typedef struct NormArgs {
    Tensor *x, *weight, *bias, *mean, *var;
    bool training;
    double eps;
} NormArgs;

static bool norm_args(EvalCall *c, int nargs, NormArgs *a)
{
    double momentum;
    return eval_nargs(c, nargs, nargs) && eval_arg_tensor(c, 0, &a->x) && eval_arg_tensor_opt(c, 1, &a->weight) &&
           eval_arg_tensor_opt(c, 2, &a->bias) && eval_arg_tensor_opt(c, 3, &a->mean) &&
           eval_arg_tensor_opt(c, 4, &a->var) && eval_arg_bool(c, 5, &a->training) &&
           eval_arg_double(c, 6, &momentum) && eval_arg_double(c, 7, &a->eps);
}

/* batch_norm of an empty input, as ATen: a copy of it times weight[0] plus
 * bias[0] (which must exist when given). */
static Tensor *empty_batch_norm(const NormArgs *a)
{
    Tensor *out = tensor_clone(a->x);
    Tensor *params[2] = {a->weight, a->bias};
    for (int k = 0; k < 2 && out; k++) {
        if (!params[k])
            continue;
        Tensor *first = tensor_select(params[k], 0, 0);
        Tensor *next = first ? tensor_binary(k == 0 ? BIN_MUL : BIN_ADD, out, first) : NULL;
        tensor_release(first);
        tensor_release(out);
        out = next;
    }
    return out;
}

/* batch_norm(input, weight?, bias?, running_mean?, running_var?, bool
 * training, float momentum, float eps, bool cudnn_enabled) */
bool eval_op_batch_norm(EvalCall *c)
{
    NormArgs a;
    if (!norm_args(c, 9, &a))
        return false;
    if (tensor_numel(a.x) == 0)
        return eval_out_tensor(c, 0, empty_batch_norm(&a));
    if (!a.training) {
        if (!a.mean || !a.var)
            return eval_fail(c, "running_%s must be defined in evaluation mode", a.mean ? "var" : "mean");
        return eval_out_tensor(c, 0, tensor_batch_norm(a.x, a.weight, a.bias, a.mean, a.var, a.eps));
    }
    return running_stats_skippable(c, 3, "batch_norm") &&
           eval_out_tensor(c, 0, tensor_batch_norm_train(a.x, a.weight, a.bias, a.eps, NULL, NULL));
}

/* native_batch_norm(input, weight?, bias?, running_mean?, running_var?,
 * bool training, float momentum, float eps) -> (out, save_mean,
 * save_invstd); in eval mode the saved statistics are empty. */
bool eval_op_native_batch_norm(EvalCall *c)
{
    NormArgs a;
    if (!norm_args(c, 8, &a))
        return false;
    if (a.training) {
        Tensor *mean = NULL, *invstd = NULL;
        if (!running_stats_skippable(c, 3, "native_batch_norm"))
            return false;
        Tensor *r = tensor_batch_norm_train(a.x, a.weight, a.bias, a.eps, &mean, &invstd);
        return eval_out_tensors(c, (Tensor *[]){r, mean, invstd}, 3);
    }
    if (!a.mean || !a.var)
        return eval_fail(c, "running_%s must be defined in evaluation mode", a.mean ? "var" : "mean");
    int64_t zero = 0;
    return eval_out_tensor(c, 0, tensor_batch_norm(a.x, a.weight, a.bias, a.mean, a.var, a.eps)) &&
           eval_out_tensor(c, 1, tensor_empty(a.x->dtype, 1, &zero)) &&
           eval_out_tensor(c, 2, tensor_empty(a.x->dtype, 1, &zero));
}

/* instance_norm(input, weight?, bias?, running_mean?, running_var?, bool
 * use_input_stats, float momentum, float eps, bool cudnn_enabled) */
bool eval_op_instance_norm(EvalCall *c)
{
    NormArgs a;
    if (!norm_args(c, 9, &a))
        return false;
    return (!a.training || running_stats_skippable(c, 3, "instance_norm")) &&
           eval_out_tensor(c, 0, tensor_instance_norm(a.x, a.weight, a.bias, a.mean, a.var, a.training, a.eps));
}

/* native_layer_norm(input, SymInt[] normalized_shape, weight?, bias?, float
 * eps) -> (out, mean, rstd) */
bool eval_op_native_layer_norm(EvalCall *c)
{
    Tensor *x, *weight, *bias, *mean = NULL, *rstd = NULL;
    int64_t shape[TENSOR_MAX_DIMS];
    int n;
    double eps;
    if (!eval_nargs(c, 5, 5) || !eval_arg_tensor(c, 0, &x) || !eval_arg_ints(c, 1, shape, TENSOR_MAX_DIMS, &n) ||
        !eval_arg_tensor_opt(c, 2, &weight) || !eval_arg_tensor_opt(c, 3, &bias) || !eval_arg_double(c, 4, &eps))
        return false;
    Tensor *r = tensor_native_layer_norm(x, n, shape, weight, bias, eps, &mean, &rstd);
    return eval_out_tensors(c, (Tensor *[]){r, mean, rstd}, 3);
}
