/* dispatch.c — the table from OpId to binding, and the generic in-place
 * rule.
 *
 * The table is indexed by OpId (designated initializers), so finding a
 * node's binding is one array read and the list below is the complete
 * answer to "which ops does the ref backend run". prim::If, prim::Loop and
 * prim::Constant are not here: the interpreter runs them itself. TensorSSA's
 * immut:: ops (access and assign classes) have their own table in
 * ops_immut.c, built on the view bindings.
 *
 * An in-place op without a binding of its own (aten::lerp_) runs as its
 * functional variant followed by a copy into self, with PyTorch's checks:
 * the result must have self's shape (an in-place op cannot broadcast self)
 * and its dtype must be castable to self's (no float into an int tensor, no
 * number into a bool tensor). The result is self itself.
 */
#include "backends/ref/ops_immut.h"
#include "backends/ref/ref.h"
#include "backends/ref/ref_ops.h"

static const RefOpFn bindings[OP_COUNT] = {
    /* control that is a plain call */
    [OP_PRIM_RAISEEXCEPTION] = ref_op_raise_exception,

    /* scalars, containers, modules */
    [OP_PRIM_GETATTR] = ref_op_getattr,
    [OP_PRIM_LISTCONSTRUCT] = ref_op_list_construct,
    [OP_PRIM_LISTUNPACK] = ref_op_list_unpack,
    [OP_PRIM_TUPLECONSTRUCT] = ref_op_tuple_construct,
    [OP_PRIM_TUPLEUNPACK] = ref_op_tuple_unpack,
    [OP_PRIM_TUPLEINDEX] = ref_op_tuple_index,
    [OP_PRIM_NUMTOTENSOR] = ref_op_num_to_tensor,
    [OP_PRIM_DTYPE] = ref_op_dtype,
    [OP_PRIM_DEVICE] = ref_op_device,
    [OP_PRIM_LAYOUT] = ref_op_layout,
    [OP_PRIM_REQUIRES_GRAD] = ref_op_false_query,
    [OP_PRIM_IS_CUDA] = ref_op_false_query,
    [OP_PRIM_SHAPE] = ref_op_shape,
    [OP_PRIM_UNCHECKED_CAST] = ref_op_unchecked_cast,
    [OP_PRIM_UNINITIALIZED] = ref_op_uninitialized,
    [OP_PRIM_PRINT] = ref_op_print,
    [OP_PRIM_MIN] = ref_op_prim_min,
    [OP_PRIM_MAX] = ref_op_prim_max,
    [OP_PRIM_DATA] = ref_op_data,
    [OP_ATEN_INT] = ref_op_int,
    [OP_ATEN_FLOAT_SCALAR] = ref_op_float_scalar,
    [OP_ATEN_BOOL_SCALAR] = ref_op_bool_scalar,
    [OP_ATEN_SCALARIMPLICIT] = ref_op_scalar_implicit,
    [OP_ATEN_INTIMPLICIT] = ref_op_int_implicit,
    [OP_ATEN_FLOATIMPLICIT] = ref_op_float_implicit,
    [OP_ATEN_ITEM] = ref_op_item,
    [OP_ATEN_LEN] = ref_op_len,
    [OP_ATEN_GETITEM] = ref_op_getitem,
    [OP_ATEN_SIZE] = ref_op_size,
    [OP_ATEN_DIM] = ref_op_dim,
    [OP_ATEN_NUMEL] = ref_op_numel,
    [OP_ATEN_FORMAT] = ref_op_format,
    [OP_ATEN_STR] = ref_op_str,
    [OP_ATEN_APPEND] = ref_op_append,
    [OP_ATEN_LIST] = ref_op_list,
    [OP_ATEN_FLOORDIV] = ref_op_floordiv,
    [OP_ATEN_IS] = ref_op_is,
    [OP_ATEN_ISNOT] = ref_op_isnot,
    [OP_ATEN_NOT] = ref_op_not,
    [OP_ATEN_CONTAINS] = ref_op_contains,
    [OP_ATEN_RANGE_LENGTH] = ref_op_range_length,
    [OP_ATEN_DERIVE_INDEX] = ref_op_derive_index,
    [OP_ATEN_WARN] = ref_op_warn,
    [OP_PRIM_ABS] = ref_op_prim_abs,
    [OP_ATEN_SET_ITEM] = ref_op_set_item,
    [OP_ATEN_EXTEND] = ref_op_extend,
    [OP_ATEN_INSERT] = ref_op_insert,
    [OP_ATEN_POP] = ref_op_pop,

    /* creation */
    [OP_ATEN_ZEROS] = ref_op_zeros,
    [OP_ATEN_ONES] = ref_op_ones,
    [OP_ATEN_FULL] = ref_op_full,
    [OP_ATEN_EMPTY] = ref_op_empty,
    [OP_ATEN_ARANGE] = ref_op_arange,
    [OP_ATEN_LINSPACE] = ref_op_linspace,
    [OP_ATEN_ZEROS_LIKE] = ref_op_zeros_like,
    [OP_ATEN_ONES_LIKE] = ref_op_ones_like,
    [OP_ATEN_FULL_LIKE] = ref_op_full_like,
    [OP_ATEN_EMPTY_LIKE] = ref_op_empty_like,
    [OP_ATEN_NEW_ZEROS] = ref_op_new_zeros,
    [OP_ATEN_NEW_ONES] = ref_op_new_ones,
    [OP_ATEN_NEW_FULL] = ref_op_new_full,
    [OP_ATEN_NEW_EMPTY] = ref_op_new_empty,
    [OP_ATEN_TENSOR] = ref_op_tensor,
    [OP_ATEN_AS_TENSOR] = ref_op_as_tensor,
    [OP_ATEN_SCALAR_TENSOR] = ref_op_scalar_tensor,
    [OP_ATEN_MESHGRID] = ref_op_meshgrid,
    [OP_ATEN_EYE] = ref_op_eye,

    /* views */
    [OP_ATEN_SELECT] = ref_op_select,
    [OP_ATEN_SLICE] = ref_op_slice,
    [OP_ATEN_VIEW] = ref_op_view,
    [OP_ATEN_VIEW_AS] = ref_op_view_as,
    [OP_ATEN_RESHAPE] = ref_op_reshape,
    [OP_ATEN_RESHAPE_AS] = ref_op_reshape_as,
    [OP_ATEN_SQUEEZE] = ref_op_squeeze,
    [OP_ATEN_UNSQUEEZE] = ref_op_unsqueeze,
    [OP_ATEN_EXPAND] = ref_op_expand,
    [OP_ATEN_EXPAND_AS] = ref_op_expand_as,
    [OP_ATEN_PERMUTE] = ref_op_permute,
    [OP_ATEN_TRANSPOSE] = ref_op_transpose,
    [OP_ATEN_T] = ref_op_t,
    [OP_ATEN_NUMPY_T] = ref_op_numpy_t,
    [OP_ATEN_MOVEDIM] = ref_op_movedim,
    [OP_ATEN_CONTIGUOUS] = ref_op_contiguous,
    [OP_ATEN_FLATTEN] = ref_op_flatten,
    [OP_ATEN_UNFLATTEN] = ref_op_unflatten,
    [OP_ATEN_NARROW] = ref_op_narrow,
    [OP_ATEN_DIAGONAL] = ref_op_diagonal,
    [OP_ATEN_ALIAS] = ref_op_alias,
    [OP_ATEN_DETACH] = ref_op_alias,
    [OP_ATEN_CHUNK] = ref_op_chunk,
    [OP_ATEN_SPLIT] = ref_op_split,
    [OP_ATEN_SPLIT_WITH_SIZES] = ref_op_split_with_sizes,
    [OP_ATEN_UNBIND] = ref_op_unbind,

    /* indexing */
    [OP_ATEN_INDEX] = ref_op_index,
    [OP_ATEN_INDEX_SELECT] = ref_op_index_select,
    [OP_ATEN_MASKED_SELECT] = ref_op_masked_select,
    [OP_ATEN_GATHER] = ref_op_gather,
    [OP_ATEN_INDEX_PUT] = ref_op_index_put,
    [OP_ATEN_INDEX_PUT_] = ref_op_index_put_,
    [OP_ATEN_MASKED_FILL] = ref_op_masked_fill,
    [OP_ATEN_MASKED_FILL_] = ref_op_masked_fill_,
    [OP_ATEN_SCATTER] = ref_op_scatter,
    [OP_ATEN_SCATTER_] = ref_op_scatter_,

    /* copies and fills */
    [OP_ATEN_COPY_] = ref_op_copy_,
    [OP_ATEN_CLONE] = ref_op_clone,
    [OP_ATEN_FILL_] = ref_op_fill_,
    [OP_ATEN_ZERO_] = ref_op_zero_,

    /* elementwise arithmetic */
    [OP_ATEN_ADD] = ref_op_add,
    [OP_ATEN_ADD_] = ref_op_add_,
    [OP_ATEN_SUB] = ref_op_sub,
    [OP_ATEN_SUB_] = ref_op_sub_,
    [OP_ATEN_RSUB] = ref_op_rsub,
    [OP_ATEN_MUL] = ref_op_mul,
    [OP_ATEN_MUL_] = ref_op_mul_,
    [OP_ATEN_DIV] = ref_op_div,
    [OP_ATEN_DIV_] = ref_op_div_,
    [OP_ATEN_FLOOR_DIVIDE] = ref_op_floor_divide,
    [OP_ATEN_FLOOR_DIVIDE_] = ref_op_floor_divide_,
    [OP_ATEN_REMAINDER] = ref_op_remainder,
    [OP_ATEN_REMAINDER_] = ref_op_remainder_,
    [OP_ATEN_FMOD] = ref_op_fmod,
    [OP_ATEN_FMOD_] = ref_op_fmod_,
    [OP_ATEN_POW] = ref_op_pow,
    [OP_ATEN_POW_] = ref_op_pow_,
    [OP_ATEN_MAXIMUM] = ref_op_maximum,
    [OP_ATEN_MINIMUM] = ref_op_minimum,
    [OP_ATEN_ATAN2] = ref_op_atan2,
    [OP_ATEN_LERP] = ref_op_lerp,

    /* elementwise math */
    [OP_ATEN_NEG] = ref_op_neg,
    [OP_ATEN_NEG_] = ref_op_neg_,
    [OP_ATEN_ABS] = ref_op_abs,
    [OP_ATEN_ABS_] = ref_op_abs_,
    [OP_ATEN_EXP] = ref_op_exp,
    [OP_ATEN_EXP_] = ref_op_exp_,
    [OP_ATEN_LOG] = ref_op_log,
    [OP_ATEN_LOG_] = ref_op_log_,
    [OP_ATEN_LOG2] = ref_op_log2,
    [OP_ATEN_LOG2_] = ref_op_log2_,
    [OP_ATEN_LOG1P] = ref_op_log1p,
    [OP_ATEN_LOG1P_] = ref_op_log1p_,
    [OP_ATEN_EXPM1] = ref_op_expm1,
    [OP_ATEN_EXPM1_] = ref_op_expm1_,
    [OP_ATEN_SQRT] = ref_op_sqrt,
    [OP_ATEN_SQRT_] = ref_op_sqrt_,
    [OP_ATEN_RSQRT] = ref_op_rsqrt,
    [OP_ATEN_RSQRT_] = ref_op_rsqrt_,
    [OP_ATEN_SIN] = ref_op_sin,
    [OP_ATEN_SIN_] = ref_op_sin_,
    [OP_ATEN_COS] = ref_op_cos,
    [OP_ATEN_COS_] = ref_op_cos_,
    [OP_ATEN_TAN] = ref_op_tan,
    [OP_ATEN_TAN_] = ref_op_tan_,
    [OP_ATEN_TANH] = ref_op_tanh,
    [OP_ATEN_TANH_] = ref_op_tanh_,
    [OP_ATEN_ERF] = ref_op_erf,
    [OP_ATEN_ERF_] = ref_op_erf_,
    [OP_ATEN_FLOOR] = ref_op_floor,
    [OP_ATEN_FLOOR_] = ref_op_floor_,
    [OP_ATEN_CEIL] = ref_op_ceil,
    [OP_ATEN_CEIL_] = ref_op_ceil_,
    [OP_ATEN_ROUND] = ref_op_round,
    [OP_ATEN_ROUND_] = ref_op_round_,
    [OP_ATEN_TRUNC] = ref_op_trunc,
    [OP_ATEN_TRUNC_] = ref_op_trunc_,
    [OP_ATEN_SIGN] = ref_op_sign,
    [OP_ATEN_SIGN_] = ref_op_sign_,
    [OP_ATEN_RECIPROCAL] = ref_op_reciprocal,
    [OP_ATEN_RECIPROCAL_] = ref_op_reciprocal_,

    /* activations */
    [OP_ATEN_SIGMOID] = ref_op_sigmoid,
    [OP_ATEN_SIGMOID_] = ref_op_sigmoid_,
    [OP_ATEN_RELU] = ref_op_relu,
    [OP_ATEN_RELU_] = ref_op_relu_,
    [OP_ATEN_RELU6] = ref_op_relu6,
    [OP_ATEN_RELU6_] = ref_op_relu6_,
    [OP_ATEN_LEAKY_RELU] = ref_op_leaky_relu,
    [OP_ATEN_LEAKY_RELU_] = ref_op_leaky_relu_,
    [OP_ATEN_HARDTANH] = ref_op_hardtanh,
    [OP_ATEN_HARDTANH_] = ref_op_hardtanh_,
    [OP_ATEN_GELU] = ref_op_gelu,
    [OP_ATEN_GELU_] = ref_op_gelu_,
    [OP_ATEN_SILU] = ref_op_silu,
    [OP_ATEN_SILU_] = ref_op_silu_,
    [OP_ATEN_ELU] = ref_op_elu,
    [OP_ATEN_ELU_] = ref_op_elu_,
    [OP_ATEN_SOFTPLUS] = ref_op_softplus,
    [OP_ATEN_HARDSIGMOID] = ref_op_hardsigmoid,
    [OP_ATEN_HARDSIGMOID_] = ref_op_hardsigmoid_,
    [OP_ATEN_HARDSWISH] = ref_op_hardswish,
    [OP_ATEN_HARDSWISH_] = ref_op_hardswish_,
    [OP_ATEN_CLAMP] = ref_op_clamp,
    [OP_ATEN_CLAMP_] = ref_op_clamp_,
    [OP_ATEN_CLAMP_MIN] = ref_op_clamp_min,
    [OP_ATEN_CLAMP_MIN_] = ref_op_clamp_min_,
    [OP_ATEN_CLAMP_MAX] = ref_op_clamp_max,
    [OP_ATEN_CLAMP_MAX_] = ref_op_clamp_max_,
    [OP_ATEN_WHERE] = ref_op_where,

    /* comparisons and logic */
    [OP_ATEN_EQ] = ref_op_eq,
    [OP_ATEN_EQ_] = ref_op_eq_,
    [OP_ATEN_NE] = ref_op_ne,
    [OP_ATEN_NE_] = ref_op_ne_,
    [OP_ATEN_LT] = ref_op_lt,
    [OP_ATEN_LT_] = ref_op_lt_,
    [OP_ATEN_LE] = ref_op_le,
    [OP_ATEN_LE_] = ref_op_le_,
    [OP_ATEN_GT] = ref_op_gt,
    [OP_ATEN_GT_] = ref_op_gt_,
    [OP_ATEN_GE] = ref_op_ge,
    [OP_ATEN_GE_] = ref_op_ge_,
    [OP_ATEN_LOGICAL_AND] = ref_op_logical_and,
    [OP_ATEN_LOGICAL_AND_] = ref_op_logical_and_,
    [OP_ATEN_LOGICAL_OR] = ref_op_logical_or,
    [OP_ATEN_LOGICAL_OR_] = ref_op_logical_or_,
    [OP_ATEN_LOGICAL_NOT] = ref_op_logical_not,
    [OP_ATEN_LOGICAL_NOT_] = ref_op_logical_not_,
    [OP_ATEN_LOGICAL_XOR] = ref_op_logical_xor,
    [OP_ATEN_LOGICAL_XOR_] = ref_op_logical_xor_,
    [OP_ATEN_BITWISE_AND] = ref_op_bitwise_and,
    [OP_ATEN_BITWISE_AND_] = ref_op_bitwise_and_,
    [OP_ATEN_BITWISE_OR] = ref_op_bitwise_or,
    [OP_ATEN_BITWISE_OR_] = ref_op_bitwise_or_,
    [OP_ATEN_BITWISE_NOT] = ref_op_bitwise_not,
    [OP_ATEN_BITWISE_NOT_] = ref_op_bitwise_not_,
    [OP_ATEN_BITWISE_XOR] = ref_op_bitwise_xor,
    [OP_ATEN_BITWISE_XOR_] = ref_op_bitwise_xor_,
    [OP_ATEN_AND] = ref_op_and,
    [OP_ATEN_OR] = ref_op_or,
    [OP_ATEN_XOR] = ref_op_xor,
    [OP_ATEN_INVERT] = ref_op_invert,
    [OP_ATEN_IAND] = ref_op_iand,
    [OP_ATEN_IOR] = ref_op_ior,

    /* dtype conversions */
    [OP_ATEN_TO] = ref_op_to,
    [OP_ATEN_TYPE_AS] = ref_op_type_as,
    [OP_ATEN_FLOAT] = ref_op_cast_float,
    [OP_ATEN_DOUBLE] = ref_op_cast_double,
    [OP_ATEN_LONG] = ref_op_cast_long,
    [OP_ATEN_INT_CAST] = ref_op_cast_int,
    [OP_ATEN_BOOL] = ref_op_cast_bool,

    /* reductions */
    [OP_ATEN_SUM] = ref_op_sum,
    [OP_ATEN_MEAN] = ref_op_mean,
    [OP_ATEN_PROD] = ref_op_prod,
    [OP_ATEN_MAX] = ref_op_max,
    [OP_ATEN_MIN] = ref_op_min,
    [OP_ATEN_ARGMAX] = ref_op_argmax,
    [OP_ATEN_ARGMIN] = ref_op_argmin,
    [OP_ATEN_AMAX] = ref_op_amax,
    [OP_ATEN_AMIN] = ref_op_amin,
    [OP_ATEN_SOFTMAX] = ref_op_softmax,
    [OP_ATEN_LOG_SOFTMAX] = ref_op_log_softmax,
    [OP_ATEN_CUMSUM] = ref_op_cumsum,
    [OP_ATEN_CUMPROD] = ref_op_cumprod,
    [OP_ATEN_ALL] = ref_op_all,
    [OP_ATEN_ANY] = ref_op_any,
    [OP_ATEN_TOPK] = ref_op_topk,
    [OP_ATEN_SORT] = ref_op_sort,
    [OP_ATEN_ARGSORT] = ref_op_argsort,
    [OP_ATEN_NONZERO] = ref_op_nonzero,
    [OP_ATEN_NORM] = ref_op_norm,
    [OP_ATEN_VAR] = ref_op_var,
    [OP_ATEN_STD] = ref_op_std,
    [OP_ATEN_LOGSUMEXP] = ref_op_logsumexp,

    /* linear algebra and nn */
    [OP_ATEN_MM] = ref_op_mm,
    [OP_ATEN_BMM] = ref_op_bmm,
    [OP_ATEN_MATMUL] = ref_op_matmul,
    [OP_ATEN_ADDMM] = ref_op_addmm,
    [OP_ATEN_LINEAR] = ref_op_linear,
    [OP_ATEN_DOT] = ref_op_dot,
    [OP_ATEN_OUTER] = ref_op_outer,
    [OP_ATEN_CONV2D] = ref_op_conv2d,
    [OP_ATEN_CONV1D] = ref_op_conv1d,
    [OP_ATEN_CONVOLUTION] = ref_op_convolution,
    [OP_ATEN_BATCH_NORM] = ref_op_batch_norm,
    [OP_ATEN_LAYER_NORM] = ref_op_layer_norm,
    [OP_ATEN_GROUP_NORM] = ref_op_group_norm,
    [OP_ATEN_MAX_POOL2D] = ref_op_max_pool2d,
    [OP_ATEN_AVG_POOL2D] = ref_op_avg_pool2d,
    [OP_ATEN_ADAPTIVE_AVG_POOL2D] = ref_op_adaptive_avg_pool2d,
    [OP_ATEN_EMBEDDING] = ref_op_embedding,
    [OP_ATEN_DROPOUT] = ref_op_dropout,
    [OP_ATEN_CAT] = ref_op_cat,
    [OP_ATEN_STACK] = ref_op_stack,
    [OP_ATEN_REPEAT] = ref_op_repeat,
    [OP_ATEN_FLIP] = ref_op_flip,
    [OP_ATEN_ROLL] = ref_op_roll,
    [OP_ATEN_TRIL] = ref_op_tril,
    [OP_ATEN_TRIU] = ref_op_triu,
    [OP_ATEN_CONSTANT_PAD_ND] = ref_op_constant_pad_nd,
    [OP_ATEN_PAD] = ref_op_pad,
    [OP_ATEN_LSTM_CELL] = ref_op_lstm_cell,
    [OP_ATEN_GRU_CELL] = ref_op_gru_cell,
    [OP_ATEN_RNN_TANH_CELL] = ref_op_rnn_tanh_cell,
};

RefOpFn ref_binding(OpId op)
{
    return op > OP_UNKNOWN && op < OP_COUNT ? bindings[op] : NULL;
}

/* PyTorch's canCast: no floating value into an integral or bool tensor, no
 * non-bool value into a bool tensor. */
static bool can_cast(TensorDType from, TensorDType to)
{
    if (dtype_is_float(from) && !dtype_is_float(to))
        return false;
    if (from != DT_BOOL && to == DT_BOOL)
        return false;
    return true;
}

static void format_shape(StrBuf *sb, const Tensor *t)
{
    sb_puts(sb, "[");
    for (int d = 0; d < t->ndim; d++)
        sb_printf(sb, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    sb_puts(sb, "]");
}

/* self.op_(...) as self.copy_(op(self, ...)), returning self. */
static bool inplace_via_functional(RefCall *c, RefOpFn functional)
{
    Tensor *self;
    if (!ref_arg_tensor(c, 0, &self))
        return false;
    if (c->nouts != 1)
        return ref_fail(c, "an in-place op has one result, the node has %d", c->nouts);
    RtValue *result = NULL;
    RefCall inner = *c;
    inner.outs = &result;
    inner.nouts = 1;
    bool ok = functional(&inner);
    if (ok && (!result || result->kind != RT_TENSOR))
        ok = ref_fail(c, "the functional variant did not produce a tensor");
    if (ok) {
        Tensor *r = result->u.t;
        if (!tensor_same_shape(r, self)) {
            StrBuf want = {0}, got = {0};
            format_shape(&want, self);
            format_shape(&got, r);
            ok = ref_fail(c, "output with shape %s doesn't match the broadcast shape %s", want.s,
                          got.s);
            sb_free(&want);
            sb_free(&got);
        } else if (!can_cast(r->dtype, self->dtype))
            ok = ref_fail(c, "result type %s can't be cast to the desired output type %s",
                          dtype_ts_name(r->dtype), dtype_ts_name(self->dtype));
        else if (r != self && !tensor_copy_(self, r))
            ok = ref_fail_kernel(c, "copy into self failed");
    }
    rt_release(result);
    return ok && ref_out_arg(c, 0, 0);
}

bool ref_dispatch(RefCall *c)
{
    OpId op = c->node->op;
    RefOpFn fn = ref_binding(op);
    if (!fn && op > OP_UNKNOWN && op < OP_COUNT &&
        (op_info(op)->cls == OPC_ACCESS || op_info(op)->cls == OPC_ASSIGN))
        fn = ref_immut_binding(op);
    if (fn)
        return fn(c);
    if (op > OP_UNKNOWN && op < OP_COUNT && op_is_inplace(op) && op_info(op)->mutates == 0) {
        RefOpFn functional = ref_binding(op_functional_variant(op));
        if (functional)
            return inplace_via_functional(c, functional);
    }
    return ref_fail(c, "op not supported by the ref backend");
}
