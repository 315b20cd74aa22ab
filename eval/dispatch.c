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
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "eval/ops_immut.h"

static const EvalOpFn bindings[OP_COUNT] = {
    /* control that is a plain call */
    [OP_PRIM_RAISEEXCEPTION] = eval_op_raise_exception,

    /* scalars, containers, modules */
    [OP_PRIM_GETATTR] = eval_op_getattr,
    [OP_PRIM_LISTCONSTRUCT] = eval_op_list_construct,
    [OP_PRIM_LISTUNPACK] = eval_op_list_unpack,
    [OP_PRIM_TUPLECONSTRUCT] = eval_op_tuple_construct,
    [OP_PRIM_TUPLEUNPACK] = eval_op_tuple_unpack,
    [OP_PRIM_TUPLEINDEX] = eval_op_tuple_index,
    [OP_PRIM_NUMTOTENSOR] = eval_op_num_to_tensor,
    [OP_PRIM_DTYPE] = eval_op_dtype,
    [OP_PRIM_DEVICE] = eval_op_device,
    [OP_PRIM_LAYOUT] = eval_op_layout,
    [OP_PRIM_REQUIRES_GRAD] = eval_op_false_query,
    [OP_PRIM_IS_CUDA] = eval_op_false_query,
    [OP_PRIM_SHAPE] = eval_op_shape,
    [OP_PRIM_UNCHECKED_CAST] = eval_op_unchecked_cast,
    [OP_PRIM_UNINITIALIZED] = eval_op_uninitialized,
    [OP_PRIM_PRINT] = eval_op_print,
    [OP_PRIM_MIN] = eval_op_prim_min,
    [OP_PRIM_MAX] = eval_op_prim_max,
    [OP_PRIM_DATA] = eval_op_data,
    [OP_ATEN_INT] = eval_op_int,
    [OP_ATEN_FLOAT_SCALAR] = eval_op_float_scalar,
    [OP_ATEN_BOOL_SCALAR] = eval_op_bool_scalar,
    [OP_ATEN_SCALARIMPLICIT] = eval_op_scalar_implicit,
    [OP_ATEN_INTIMPLICIT] = eval_op_int_implicit,
    [OP_ATEN_FLOATIMPLICIT] = eval_op_float_implicit,
    [OP_ATEN_ITEM] = eval_op_item,
    [OP_ATEN_LEN] = eval_op_len,
    [OP_ATEN_GETITEM] = eval_op_getitem,
    [OP_ATEN_SIZE] = eval_op_size,
    [OP_ATEN_DIM] = eval_op_dim,
    [OP_ATEN_NUMEL] = eval_op_numel,
    [OP_ATEN_FORMAT] = eval_op_format,
    [OP_ATEN_STR] = eval_op_str,
    [OP_ATEN_APPEND] = eval_op_append,
    [OP_ATEN_LIST] = eval_op_list,
    [OP_ATEN_FLOORDIV] = eval_op_floordiv,
    [OP_ATEN_IS] = eval_op_is,
    [OP_ATEN_ISNOT] = eval_op_isnot,
    [OP_ATEN_NOT] = eval_op_not,
    [OP_ATEN_CONTAINS] = eval_op_contains,
    [OP_ATEN_RANGE_LENGTH] = eval_op_range_length,
    [OP_ATEN_DERIVE_INDEX] = eval_op_derive_index,
    [OP_ATEN_WARN] = eval_op_warn,
    [OP_PRIM_ABS] = eval_op_prim_abs,
    [OP_ATEN_SET_ITEM] = eval_op_set_item,
    [OP_ATEN_EXTEND] = eval_op_extend,
    [OP_ATEN_INSERT] = eval_op_insert,
    [OP_ATEN_POP] = eval_op_pop,
    [OP_ATEN_REVERSE] = eval_op_reverse,
    [OP_ATEN_REMOVE] = eval_op_remove,
    [OP_PRIM_DICTCONSTRUCT] = eval_op_dict_construct,
    [OP_ATEN_KEYS] = eval_op_keys,
    [OP_ATEN_VALUES] = eval_op_values,
    [OP_ATEN_ITEMS] = eval_op_items,
    [OP_ATEN_GET] = eval_op_get,
    [OP_ATEN_SETDEFAULT] = eval_op_setdefault,
    [OP_ATEN_COUNT] = eval_op_count,
    [OP_ATEN_CLEAR] = eval_op_clear,
    [OP_ATEN_SCATTER_ADD] = eval_op_scatter_add,
    [OP_ATEN_SCATTER_ADD_] = eval_op_scatter_add_,
    [OP_ATEN_INDEX_ADD] = eval_op_index_add,
    [OP_ATEN_INDEX_ADD_] = eval_op_index_add_,
    [OP_ATEN_BINCOUNT] = eval_op_bincount,
    [OP_ATEN_SEARCHSORTED] = eval_op_searchsorted,
    [OP_ATEN_IS_FLOATING_POINT] = eval_op_is_floating_point,

    /* creation */
    [OP_ATEN_ZEROS] = eval_op_zeros,
    [OP_ATEN_ONES] = eval_op_ones,
    [OP_ATEN_FULL] = eval_op_full,
    [OP_ATEN_EMPTY] = eval_op_empty,
    [OP_ATEN_ARANGE] = eval_op_arange,
    [OP_ATEN_LINSPACE] = eval_op_linspace,
    [OP_ATEN_ZEROS_LIKE] = eval_op_zeros_like,
    [OP_ATEN_ONES_LIKE] = eval_op_ones_like,
    [OP_ATEN_FULL_LIKE] = eval_op_full_like,
    [OP_ATEN_EMPTY_LIKE] = eval_op_empty_like,
    [OP_ATEN_NEW_ZEROS] = eval_op_new_zeros,
    [OP_ATEN_NEW_ONES] = eval_op_new_ones,
    [OP_ATEN_NEW_FULL] = eval_op_new_full,
    [OP_ATEN_NEW_EMPTY] = eval_op_new_empty,
    [OP_ATEN_TENSOR] = eval_op_tensor,
    [OP_ATEN_AS_TENSOR] = eval_op_as_tensor,
    [OP_ATEN_SCALAR_TENSOR] = eval_op_scalar_tensor,
    [OP_ATEN_MESHGRID] = eval_op_meshgrid,
    [OP_ATEN_EYE] = eval_op_eye,

    /* views */
    [OP_ATEN_SELECT] = eval_op_select,
    [OP_ATEN_SLICE] = eval_op_slice,
    [OP_ATEN_VIEW] = eval_op_view,
    [OP_ATEN_VIEW_AS] = eval_op_view_as,
    [OP_ATEN_RESHAPE] = eval_op_reshape,
    [OP_ATEN_RESHAPE_AS] = eval_op_reshape_as,
    [OP_ATEN_SQUEEZE] = eval_op_squeeze,
    [OP_ATEN_UNSQUEEZE] = eval_op_unsqueeze,
    [OP_ATEN_EXPAND] = eval_op_expand,
    [OP_ATEN_EXPAND_AS] = eval_op_expand_as,
    [OP_ATEN_PERMUTE] = eval_op_permute,
    [OP_ATEN_TRANSPOSE] = eval_op_transpose,
    [OP_ATEN_T] = eval_op_t,
    [OP_ATEN_NUMPY_T] = eval_op_numpy_t,
    [OP_ATEN_MOVEDIM] = eval_op_movedim,
    [OP_ATEN_CONTIGUOUS] = eval_op_contiguous,
    [OP_ATEN_FLATTEN] = eval_op_flatten,
    [OP_ATEN_UNFLATTEN] = eval_op_unflatten,
    [OP_ATEN_NARROW] = eval_op_narrow,
    [OP_ATEN_DIAGONAL] = eval_op_diagonal,
    [OP_ATEN_ALIAS] = eval_op_alias,
    [OP_ATEN_DETACH] = eval_op_alias,
    [OP_ATEN_CHUNK] = eval_op_chunk,
    [OP_ATEN_SPLIT] = eval_op_split,
    [OP_ATEN_SPLIT_WITH_SIZES] = eval_op_split_with_sizes,
    [OP_ATEN_UNBIND] = eval_op_unbind,

    /* indexing */
    [OP_ATEN_INDEX] = eval_op_index,
    [OP_ATEN_INDEX_SELECT] = eval_op_index_select,
    [OP_ATEN_MASKED_SELECT] = eval_op_masked_select,
    [OP_ATEN_GATHER] = eval_op_gather,
    [OP_ATEN_INDEX_PUT] = eval_op_index_put,
    [OP_ATEN_INDEX_PUT_] = eval_op_index_put_,
    [OP_ATEN_MASKED_FILL] = eval_op_masked_fill,
    [OP_ATEN_MASKED_FILL_] = eval_op_masked_fill_,
    [OP_ATEN_SCATTER] = eval_op_scatter,
    [OP_ATEN_SCATTER_] = eval_op_scatter_,

    /* copies and fills */
    [OP_ATEN_COPY_] = eval_op_copy_,
    [OP_ATEN_CLONE] = eval_op_clone,
    [OP_ATEN_FILL_] = eval_op_fill_,
    [OP_ATEN_ZERO_] = eval_op_zero_,

    /* elementwise arithmetic */
    [OP_ATEN_ADD] = eval_op_add,
    [OP_ATEN_ADD_] = eval_op_add_,
    [OP_ATEN_SUB] = eval_op_sub,
    [OP_ATEN_SUB_] = eval_op_sub_,
    [OP_ATEN_RSUB] = eval_op_rsub,
    [OP_ATEN_MUL] = eval_op_mul,
    [OP_ATEN_MUL_] = eval_op_mul_,
    [OP_ATEN_DIV] = eval_op_div,
    [OP_ATEN_DIV_] = eval_op_div_,
    [OP_ATEN_FLOOR_DIVIDE] = eval_op_floor_divide,
    [OP_ATEN_FLOOR_DIVIDE_] = eval_op_floor_divide_,
    [OP_ATEN_REMAINDER] = eval_op_remainder,
    [OP_ATEN_REMAINDER_] = eval_op_remainder_,
    [OP_ATEN_FMOD] = eval_op_fmod,
    [OP_ATEN_FMOD_] = eval_op_fmod_,
    [OP_ATEN_POW] = eval_op_pow,
    [OP_ATEN_POW_] = eval_op_pow_,
    [OP_ATEN_MAXIMUM] = eval_op_maximum,
    [OP_ATEN_MINIMUM] = eval_op_minimum,
    [OP_ATEN_ATAN2] = eval_op_atan2,
    [OP_ATEN_LERP] = eval_op_lerp,

    /* elementwise math */
    [OP_ATEN_NEG] = eval_op_neg,
    [OP_ATEN_NEG_] = eval_op_neg_,
    [OP_ATEN_ABS] = eval_op_abs,
    [OP_ATEN_ABS_] = eval_op_abs_,
    [OP_ATEN_EXP] = eval_op_exp,
    [OP_ATEN_EXP_] = eval_op_exp_,
    [OP_ATEN_LOG] = eval_op_log,
    [OP_ATEN_LOG_] = eval_op_log_,
    [OP_ATEN_LOG2] = eval_op_log2,
    [OP_ATEN_LOG2_] = eval_op_log2_,
    [OP_ATEN_LOG1P] = eval_op_log1p,
    [OP_ATEN_LOG1P_] = eval_op_log1p_,
    [OP_ATEN_EXPM1] = eval_op_expm1,
    [OP_ATEN_EXPM1_] = eval_op_expm1_,
    [OP_ATEN_SQRT] = eval_op_sqrt,
    [OP_ATEN_SQRT_] = eval_op_sqrt_,
    [OP_ATEN_RSQRT] = eval_op_rsqrt,
    [OP_ATEN_RSQRT_] = eval_op_rsqrt_,
    [OP_ATEN_SIN] = eval_op_sin,
    [OP_ATEN_ACOS] = eval_op_acos,
    [OP_ATEN_ACOS_] = eval_op_acos_,
    [OP_ATEN_ASIN] = eval_op_asin,
    [OP_ATEN_ASIN_] = eval_op_asin_,
    [OP_ATEN_ATAN] = eval_op_atan,
    [OP_ATEN_ATAN_] = eval_op_atan_,
    [OP_ATEN_SINH] = eval_op_sinh,
    [OP_ATEN_SINH_] = eval_op_sinh_,
    [OP_ATEN_COSH] = eval_op_cosh,
    [OP_ATEN_COSH_] = eval_op_cosh_,
    [OP_ATEN_ASINH] = eval_op_asinh,
    [OP_ATEN_ASINH_] = eval_op_asinh_,
    [OP_ATEN_ACOSH] = eval_op_acosh,
    [OP_ATEN_ACOSH_] = eval_op_acosh_,
    [OP_ATEN_ATANH] = eval_op_atanh,
    [OP_ATEN_ATANH_] = eval_op_atanh_,
    [OP_ATEN_ERFC] = eval_op_erfc,
    [OP_ATEN_ERFC_] = eval_op_erfc_,
    [OP_ATEN_EXP2] = eval_op_exp2,
    [OP_ATEN_EXP2_] = eval_op_exp2_,
    [OP_ATEN_LOG10] = eval_op_log10,
    [OP_ATEN_LOG10_] = eval_op_log10_,
    [OP_ATEN_LGAMMA] = eval_op_lgamma,
    [OP_ATEN_LGAMMA_] = eval_op_lgamma_,
    [OP_ATEN_DEG2RAD] = eval_op_deg2rad,
    [OP_ATEN_DEG2RAD_] = eval_op_deg2rad_,
    [OP_ATEN_RAD2DEG] = eval_op_rad2deg,
    [OP_ATEN_RAD2DEG_] = eval_op_rad2deg_,
    [OP_ATEN_SINC] = eval_op_sinc,
    [OP_ATEN_SINC_] = eval_op_sinc_,
    [OP_ATEN_SIN_] = eval_op_sin_,
    [OP_ATEN_COS] = eval_op_cos,
    [OP_ATEN_COS_] = eval_op_cos_,
    [OP_ATEN_TAN] = eval_op_tan,
    [OP_ATEN_TAN_] = eval_op_tan_,
    [OP_ATEN_TANH] = eval_op_tanh,
    [OP_ATEN_TANH_] = eval_op_tanh_,
    [OP_ATEN_ERF] = eval_op_erf,
    [OP_ATEN_ERF_] = eval_op_erf_,
    [OP_ATEN_FLOOR] = eval_op_floor,
    [OP_ATEN_FLOOR_] = eval_op_floor_,
    [OP_ATEN_CEIL] = eval_op_ceil,
    [OP_ATEN_CEIL_] = eval_op_ceil_,
    [OP_ATEN_ROUND] = eval_op_round,
    [OP_ATEN_ROUND_] = eval_op_round_,
    [OP_ATEN_TRUNC] = eval_op_trunc,
    [OP_ATEN_TRUNC_] = eval_op_trunc_,
    [OP_ATEN_SIGN] = eval_op_sign,
    [OP_ATEN_SIGN_] = eval_op_sign_,
    [OP_ATEN_RECIPROCAL] = eval_op_reciprocal,
    [OP_ATEN_RECIPROCAL_] = eval_op_reciprocal_,

    /* activations */
    [OP_ATEN_SIGMOID] = eval_op_sigmoid,
    [OP_ATEN_SIGMOID_] = eval_op_sigmoid_,
    [OP_ATEN_RELU] = eval_op_relu,
    [OP_ATEN_RELU_] = eval_op_relu_,
    [OP_ATEN_RELU6] = eval_op_relu6,
    [OP_ATEN_RELU6_] = eval_op_relu6_,
    [OP_ATEN_LEAKY_RELU] = eval_op_leaky_relu,
    [OP_ATEN_LEAKY_RELU_] = eval_op_leaky_relu_,
    [OP_ATEN_HARDTANH] = eval_op_hardtanh,
    [OP_ATEN_HARDTANH_] = eval_op_hardtanh_,
    [OP_ATEN_GELU] = eval_op_gelu,
    [OP_ATEN_GELU_] = eval_op_gelu_,
    [OP_ATEN_SILU] = eval_op_silu,
    [OP_ATEN_SILU_] = eval_op_silu_,
    [OP_ATEN_ELU] = eval_op_elu,
    [OP_ATEN_ELU_] = eval_op_elu_,
    [OP_ATEN_SOFTPLUS] = eval_op_softplus,
    [OP_ATEN_HARDSIGMOID] = eval_op_hardsigmoid,
    [OP_ATEN_HARDSIGMOID_] = eval_op_hardsigmoid_,
    [OP_ATEN_HARDSWISH] = eval_op_hardswish,
    [OP_ATEN_HARDSWISH_] = eval_op_hardswish_,
    [OP_ATEN_CLAMP] = eval_op_clamp,
    [OP_ATEN_CLAMP_] = eval_op_clamp_,
    [OP_ATEN_CLAMP_MIN] = eval_op_clamp_min,
    [OP_ATEN_CLAMP_MIN_] = eval_op_clamp_min_,
    [OP_ATEN_CLAMP_MAX] = eval_op_clamp_max,
    [OP_ATEN_CLAMP_MAX_] = eval_op_clamp_max_,
    [OP_ATEN_WHERE] = eval_op_where,

    /* comparisons and logic */
    [OP_ATEN_EQ] = eval_op_eq,
    [OP_ATEN_EQ_] = eval_op_eq_,
    [OP_ATEN_NE] = eval_op_ne,
    [OP_ATEN_NE_] = eval_op_ne_,
    [OP_ATEN_LT] = eval_op_lt,
    [OP_ATEN_LT_] = eval_op_lt_,
    [OP_ATEN_LE] = eval_op_le,
    [OP_ATEN_LE_] = eval_op_le_,
    [OP_ATEN_GT] = eval_op_gt,
    [OP_ATEN_GT_] = eval_op_gt_,
    [OP_ATEN_GE] = eval_op_ge,
    [OP_ATEN_GE_] = eval_op_ge_,
    [OP_ATEN_LOGICAL_AND] = eval_op_logical_and,
    [OP_ATEN_LOGICAL_AND_] = eval_op_logical_and_,
    [OP_ATEN_LOGICAL_OR] = eval_op_logical_or,
    [OP_ATEN_LOGICAL_OR_] = eval_op_logical_or_,
    [OP_ATEN_LOGICAL_NOT] = eval_op_logical_not,
    [OP_ATEN_LOGICAL_NOT_] = eval_op_logical_not_,
    [OP_ATEN_LOGICAL_XOR] = eval_op_logical_xor,
    [OP_ATEN_LOGICAL_XOR_] = eval_op_logical_xor_,
    [OP_ATEN_BITWISE_AND] = eval_op_bitwise_and,
    [OP_ATEN_BITWISE_AND_] = eval_op_bitwise_and_,
    [OP_ATEN_BITWISE_OR] = eval_op_bitwise_or,
    [OP_ATEN_BITWISE_OR_] = eval_op_bitwise_or_,
    [OP_ATEN_BITWISE_NOT] = eval_op_bitwise_not,
    [OP_ATEN_BITWISE_NOT_] = eval_op_bitwise_not_,
    [OP_ATEN_BITWISE_XOR] = eval_op_bitwise_xor,
    [OP_ATEN_BITWISE_XOR_] = eval_op_bitwise_xor_,
    [OP_ATEN_AND] = eval_op_and,
    [OP_ATEN_OR] = eval_op_or,
    [OP_ATEN_XOR] = eval_op_xor,
    [OP_ATEN_INVERT] = eval_op_invert,
    [OP_ATEN_IAND] = eval_op_iand,
    [OP_ATEN_IOR] = eval_op_ior,

    /* dtype conversions */
    [OP_ATEN_TO] = eval_op_to,
    [OP_ATEN_TYPE_AS] = eval_op_type_as,
    [OP_ATEN_FLOAT] = eval_op_cast_float,
    [OP_ATEN_DOUBLE] = eval_op_cast_double,
    [OP_ATEN_LONG] = eval_op_cast_long,
    [OP_ATEN_INT_CAST] = eval_op_cast_int,
    [OP_ATEN_BOOL] = eval_op_cast_bool,

    /* reductions */
    [OP_ATEN_SUM] = eval_op_sum,
    [OP_ATEN_MEAN] = eval_op_mean,
    [OP_ATEN_PROD] = eval_op_prod,
    [OP_ATEN_MAX] = eval_op_max,
    [OP_ATEN_MIN] = eval_op_min,
    [OP_ATEN_ARGMAX] = eval_op_argmax,
    [OP_ATEN_ARGMIN] = eval_op_argmin,
    [OP_ATEN_AMAX] = eval_op_amax,
    [OP_ATEN_AMIN] = eval_op_amin,
    [OP_ATEN_SOFTMAX] = eval_op_softmax,
    [OP_ATEN_LOG_SOFTMAX] = eval_op_log_softmax,
    [OP_ATEN_CUMSUM] = eval_op_cumsum,
    [OP_ATEN_CUMPROD] = eval_op_cumprod,
    [OP_ATEN_ALL] = eval_op_all,
    [OP_ATEN_ANY] = eval_op_any,
    [OP_ATEN_TOPK] = eval_op_topk,
    [OP_ATEN_SORT] = eval_op_sort,
    [OP_ATEN_ARGSORT] = eval_op_argsort,
    [OP_ATEN_NONZERO] = eval_op_nonzero,
    [OP_ATEN_NORM] = eval_op_norm,
    [OP_ATEN_VAR] = eval_op_var,
    [OP_ATEN_STD] = eval_op_std,
    [OP_ATEN_LOGSUMEXP] = eval_op_logsumexp,

    /* family special */
    /* (end of family special) */

    /* family math */
    /* (end of family math) */

    /* family pool_norm */
    /* (end of family pool_norm) */

    /* family resample */
    /* (end of family resample) */

    /* family loss */
    /* (end of family loss) */

    /* family linalg_extra */
    /* (end of family linalg_extra) */

    /* family stats */
    [OP_ATEN_MSORT] = eval_op_msort,
    [OP_ATEN_KTHVALUE] = eval_op_kthvalue,
    [OP_ATEN_MEDIAN] = eval_op_median,
    [OP_ATEN_NANMEDIAN] = eval_op_nanmedian,
    [OP_ATEN_MODE] = eval_op_mode,
    [OP_ATEN_LOGSPACE] = eval_op_logspace,
    [OP_ATEN_CUMMAX] = eval_op_cummax,
    [OP_ATEN_CUMMIN] = eval_op_cummin,
    [OP_ATEN_LOGCUMSUMEXP] = eval_op_logcumsumexp,
    [OP_ATEN_NANSUM] = eval_op_nansum,
    [OP_ATEN_NANMEAN] = eval_op_nanmean,
    [OP_ATEN_COUNT_NONZERO] = eval_op_count_nonzero,
    [OP_ATEN_AMINMAX] = eval_op_aminmax,
    [OP_ATEN_VAR_MEAN] = eval_op_var_mean,
    [OP_ATEN_STD_MEAN] = eval_op_std_mean,
    [OP_ATEN_QUANTILE] = eval_op_quantile,
    [OP_ATEN_NANQUANTILE] = eval_op_nanquantile,
    [OP_ATEN_DIFF] = eval_op_diff,
    [OP_ATEN_TRAPEZOID] = eval_op_trapezoid,
    [OP_ATEN_TRAPZ] = eval_op_trapz,
    [OP_ATEN_CUMULATIVE_TRAPEZOID] = eval_op_cumulative_trapezoid,
    [OP_ATEN_BUCKETIZE] = eval_op_bucketize,
    [OP_ATEN_ISIN] = eval_op_isin,
    [OP_ATEN_HISTC] = eval_op_histc,
    [OP_ATEN_HISTOGRAM] = eval_op_histogram,
    [OP_ATEN_HISTOGRAMDD] = eval_op_histogramdd,
    [OP_ATEN_GRADIENT] = eval_op_gradient,
    [OP_ATEN_SEGMENT_REDUCE] = eval_op_segment_reduce,
    [OP_ATEN_UNIQUE2] = eval_op_unique2,
    [OP_ATEN_UNIQUE_DIM] = eval_op_unique_dim,
    /* (end of family stats) */

    /* family shape_index */
    /* (end of family shape_index) */

    /* linear algebra and nn */
    [OP_ATEN_MM] = eval_op_mm,
    [OP_ATEN_LINALG_CHOLESKY] = eval_op_linalg_cholesky,
    [OP_ATEN_CHOLESKY_SOLVE] = eval_op_cholesky_solve,
    [OP_ATEN_LINALG_SOLVE] = eval_op_linalg_solve,
    [OP_ATEN_LINALG_INV] = eval_op_linalg_inv,
    [OP_ATEN_LINALG_DET] = eval_op_linalg_det,
    [OP_ATEN_LINALG_SLOGDET] = eval_op_linalg_slogdet,
    [OP_ATEN_LOGDET] = eval_op_logdet,
    [OP_ATEN_DIAG] = eval_op_diag,
    [OP_ATEN_EINSUM] = eval_op_einsum,
    [OP_ATEN_LINALG_QR] = eval_op_linalg_qr,
    [OP_ATEN_LINALG_EIGH] = eval_op_linalg_eigh,
    [OP_ATEN_DIAG_EMBED] = eval_op_diag_embed,
    [OP_ATEN_UNIQUE_CONSECUTIVE] = eval_op_unique_consecutive,
    [OP_ATEN_BMM] = eval_op_bmm,
    [OP_ATEN_MATMUL] = eval_op_matmul,
    [OP_ATEN_ADDMM] = eval_op_addmm,
    [OP_ATEN_LINEAR] = eval_op_linear,
    [OP_ATEN_DOT] = eval_op_dot,
    [OP_ATEN_OUTER] = eval_op_outer,
    [OP_ATEN_CONV2D] = eval_op_conv2d,
    [OP_ATEN_CONV1D] = eval_op_conv1d,
    [OP_ATEN_CONVOLUTION] = eval_op_convolution,
    [OP_ATEN_BATCH_NORM] = eval_op_batch_norm,
    [OP_ATEN_LAYER_NORM] = eval_op_layer_norm,
    [OP_ATEN_GROUP_NORM] = eval_op_group_norm,
    [OP_ATEN_MAX_POOL2D] = eval_op_max_pool2d,
    [OP_ATEN_AVG_POOL2D] = eval_op_avg_pool2d,
    [OP_ATEN_ADAPTIVE_AVG_POOL2D] = eval_op_adaptive_avg_pool2d,
    [OP_ATEN_EMBEDDING] = eval_op_embedding,
    [OP_ATEN_DROPOUT] = eval_op_dropout,
    [OP_ATEN_CAT] = eval_op_cat,
    [OP_ATEN_STACK] = eval_op_stack,
    [OP_ATEN_REPEAT] = eval_op_repeat,
    [OP_ATEN_FLIP] = eval_op_flip,
    [OP_ATEN_ROLL] = eval_op_roll,
    [OP_ATEN_TRIL] = eval_op_tril,
    [OP_ATEN_TRIU] = eval_op_triu,
    [OP_ATEN_CONSTANT_PAD_ND] = eval_op_constant_pad_nd,
    [OP_ATEN_PAD] = eval_op_pad,
    [OP_ATEN_LSTM_CELL] = eval_op_lstm_cell,
    [OP_ATEN_GRU_CELL] = eval_op_gru_cell,
    [OP_ATEN_RNN_TANH_CELL] = eval_op_rnn_tanh_cell,
};

EvalOpFn eval_binding(OpId op)
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

static void format_shape(TextBuf *sb, const Tensor *t)
{
    textbuf_puts(sb, "[");
    for (int d = 0; d < t->ndim; d++)
        textbuf_printf(sb, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    textbuf_puts(sb, "]");
}

/* self.op_(...) as self.copy_(op(self, ...)), returning self. */
static bool inplace_via_functional(EvalCall *c, EvalOpFn functional)
{
    Tensor *self;
    if (!eval_arg_tensor(c, 0, &self))
        return false;
    if (c->nouts != 1)
        return eval_fail(c, "an in-place op has one result, the node has %d", c->nouts);
    RtValue *result = NULL;
    EvalCall inner = *c;
    inner.outs = &result;
    inner.nouts = 1;
    bool ok = functional(&inner);
    if (ok && (!result || result->kind != RT_TENSOR))
        ok = eval_fail(c, "the functional variant did not produce a tensor");
    if (ok) {
        Tensor *r = result->u.t;
        if (!tensor_same_shape(r, self)) {
            TextBuf want = {0}, got = {0};
            format_shape(&want, self);
            format_shape(&got, r);
            ok = eval_fail(c, "output with shape %s doesn't match the broadcast shape %s", textbuf_cstr(&want),
                          textbuf_cstr(&got));
            textbuf_release(&want);
            textbuf_release(&got);
        } else if (!can_cast(r->dtype, self->dtype))
            ok = eval_fail(c, "result type %s can't be cast to the desired output type %s",
                          dtype_ts_name(r->dtype), dtype_ts_name(self->dtype));
        else if (r != self && !tensor_copy_(self, r))
            ok = eval_fail_kernel(c, "copy into self failed");
    }
    rt_release(result);
    return ok && eval_out_arg(c, 0, 0);
}

bool eval_dispatch(EvalCall *c)
{
    OpId op = c->node->op;
    EvalOpFn fn = eval_binding(op);
    if (!fn && op > OP_UNKNOWN && op < OP_COUNT &&
        (op_info(op)->cls == OPC_ACCESS || op_info(op)->cls == OPC_ASSIGN))
        fn = eval_immut_binding(op);
    if (fn)
        return fn(c);
    if (op > OP_UNKNOWN && op < OP_COUNT && op_is_inplace(op) && op_info(op)->mutates == 0) {
        EvalOpFn functional = eval_binding(op_functional_variant(op));
        if (functional)
            return inplace_via_functional(c, functional);
    }
    return eval_fail_unimplemented(c);
}
