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
    [OP_PRIM_ISINSTANCE] = eval_op_isinstance,
    [OP_TSSA_INPLACE_CHECK] = eval_op_inplace_check,
    [OP_PRIM_CREATEOBJECT] = eval_op_create_object,
    [OP_PRIM_SETATTR] = eval_op_setattr,
    [OP_PRIM_ENTER] = eval_op_enter,
    [OP_PRIM_EXIT] = eval_op_exit,
    [OP_ATEN_JOIN] = eval_op_join,
    [OP_ATEN_REPLACE] = eval_op_replace,
    [OP_ATEN_STRIP] = eval_op_strip,
    [OP_ATEN_LSTRIP] = eval_op_lstrip,
    [OP_ATEN_RSTRIP] = eval_op_rstrip,
    [OP_ATEN_LOWER] = eval_op_lower,
    [OP_ATEN_UPPER] = eval_op_upper,
    [OP_ATEN_STARTSWITH] = eval_op_startswith,
    [OP_ATEN_ENDSWITH] = eval_op_endswith,
    [OP_ATEN_FIND] = eval_op_find,
    [OP_ATEN_ORD] = eval_op_ord,
    [OP_ATEN_CHR] = eval_op_chr,
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
    [OP_ATEN_DIGAMMA] = eval_op_digamma,
    [OP_ATEN_DIGAMMA_] = eval_op_digamma_,
    [OP_ATEN_ERFINV] = eval_op_erfinv,
    [OP_ATEN_ERFINV_] = eval_op_erfinv_,
    [OP_ATEN_I0] = eval_op_i0,
    [OP_ATEN_I0_] = eval_op_i0_,
    [OP_ATEN_SPECIAL_ENTR] = eval_op_special_entr,
    [OP_ATEN_SPECIAL_ERFCX] = eval_op_special_erfcx,
    [OP_ATEN_SPECIAL_NDTR] = eval_op_special_ndtr,
    [OP_ATEN_SPECIAL_NDTRI] = eval_op_special_ndtri,
    [OP_ATEN_SPECIAL_LOG_NDTR] = eval_op_special_log_ndtr,
    [OP_ATEN_SPECIAL_I0E] = eval_op_special_i0e,
    [OP_ATEN_SPECIAL_I1] = eval_op_special_i1,
    [OP_ATEN_SPECIAL_I1E] = eval_op_special_i1e,
    [OP_ATEN_SPECIAL_AIRY_AI] = eval_op_special_airy_ai,
    [OP_ATEN_SPECIAL_BESSEL_J0] = eval_op_special_bessel_j0,
    [OP_ATEN_SPECIAL_BESSEL_J1] = eval_op_special_bessel_j1,
    [OP_ATEN_SPECIAL_BESSEL_Y0] = eval_op_special_bessel_y0,
    [OP_ATEN_SPECIAL_BESSEL_Y1] = eval_op_special_bessel_y1,
    [OP_ATEN_SPECIAL_MODIFIED_BESSEL_I0] = eval_op_special_modified_bessel_i0,
    [OP_ATEN_SPECIAL_MODIFIED_BESSEL_I1] = eval_op_special_modified_bessel_i1,
    [OP_ATEN_SPECIAL_MODIFIED_BESSEL_K0] = eval_op_special_modified_bessel_k0,
    [OP_ATEN_SPECIAL_MODIFIED_BESSEL_K1] = eval_op_special_modified_bessel_k1,
    [OP_ATEN_SPECIAL_SCALED_MODIFIED_BESSEL_K0] = eval_op_special_scaled_modified_bessel_k0,
    [OP_ATEN_SPECIAL_SCALED_MODIFIED_BESSEL_K1] = eval_op_special_scaled_modified_bessel_k1,
    [OP_ATEN_SPECIAL_SPHERICAL_BESSEL_J0] = eval_op_special_spherical_bessel_j0,
    [OP_ATEN_XLOGY] = eval_op_xlogy,
    [OP_ATEN_XLOGY_] = eval_op_xlogy_,
    [OP_ATEN_IGAMMA] = eval_op_igamma,
    [OP_ATEN_IGAMMA_] = eval_op_igamma_,
    [OP_ATEN_IGAMMAC] = eval_op_igammac,
    [OP_ATEN_IGAMMAC_] = eval_op_igammac_,
    [OP_ATEN_SPECIAL_XLOG1PY] = eval_op_special_xlog1py,
    [OP_ATEN_SPECIAL_ZETA] = eval_op_special_zeta,
    [OP_ATEN_SPECIAL_CHEBYSHEV_POLYNOMIAL_T] = eval_op_special_chebyshev_polynomial_t,
    [OP_ATEN_SPECIAL_CHEBYSHEV_POLYNOMIAL_U] = eval_op_special_chebyshev_polynomial_u,
    [OP_ATEN_SPECIAL_CHEBYSHEV_POLYNOMIAL_V] = eval_op_special_chebyshev_polynomial_v,
    [OP_ATEN_SPECIAL_CHEBYSHEV_POLYNOMIAL_W] = eval_op_special_chebyshev_polynomial_w,
    [OP_ATEN_SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_T] = eval_op_special_shifted_chebyshev_polynomial_t,
    [OP_ATEN_SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_U] = eval_op_special_shifted_chebyshev_polynomial_u,
    [OP_ATEN_SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_V] = eval_op_special_shifted_chebyshev_polynomial_v,
    [OP_ATEN_SPECIAL_SHIFTED_CHEBYSHEV_POLYNOMIAL_W] = eval_op_special_shifted_chebyshev_polynomial_w,
    [OP_ATEN_SPECIAL_HERMITE_POLYNOMIAL_H] = eval_op_special_hermite_polynomial_h,
    [OP_ATEN_SPECIAL_HERMITE_POLYNOMIAL_HE] = eval_op_special_hermite_polynomial_he,
    [OP_ATEN_SPECIAL_LAGUERRE_POLYNOMIAL_L] = eval_op_special_laguerre_polynomial_l,
    [OP_ATEN_SPECIAL_LEGENDRE_POLYNOMIAL_P] = eval_op_special_legendre_polynomial_p,
    [OP_ATEN_POLYGAMMA] = eval_op_polygamma,
    [OP_ATEN_POLYGAMMA_] = eval_op_polygamma_,
    [OP_ATEN_MVLGAMMA] = eval_op_mvlgamma,
    [OP_ATEN_MVLGAMMA_] = eval_op_mvlgamma_,
    /* (end of family special) */

    /* family math */
    [OP_ATEN_ISNAN] = eval_op_isnan,
    [OP_ATEN_ISINF] = eval_op_isinf,
    [OP_ATEN_ISFINITE] = eval_op_isfinite,
    [OP_ATEN_ISPOSINF] = eval_op_isposinf,
    [OP_ATEN_ISNEGINF] = eval_op_isneginf,
    [OP_ATEN_ISREAL] = eval_op_isreal,
    [OP_ATEN_SIGNBIT] = eval_op_signbit,
    [OP_ATEN_ISCLOSE] = eval_op_isclose,
    [OP_ATEN_ALLCLOSE] = eval_op_allclose,
    [OP_ATEN_EQUAL] = eval_op_equal,
    [OP_ATEN_NAN_TO_NUM] = eval_op_nan_to_num,
    [OP_ATEN_SGN] = eval_op_sgn,
    [OP_ATEN_SQUARE] = eval_op_square,
    [OP_ATEN_SQUARE_] = eval_op_square_,
    [OP_ATEN_FRAC] = eval_op_frac,
    [OP_ATEN_LOGIT] = eval_op_logit,
    [OP_ATEN_COPYSIGN] = eval_op_copysign,
    [OP_ATEN_HEAVISIDE] = eval_op_heaviside,
    [OP_ATEN_HYPOT] = eval_op_hypot,
    [OP_ATEN_LOGADDEXP] = eval_op_logaddexp,
    [OP_ATEN_LOGADDEXP2] = eval_op_logaddexp2,
    [OP_ATEN_NEXTAFTER] = eval_op_nextafter,
    [OP_ATEN_LDEXP] = eval_op_ldexp,
    [OP_ATEN_FLOAT_POWER] = eval_op_float_power,
    [OP_ATEN_FLOAT_POWER_] = eval_op_float_power_,
    [OP_ATEN_FMAX] = eval_op_fmax,
    [OP_ATEN_FMIN] = eval_op_fmin,
    [OP_ATEN_GCD] = eval_op_gcd,
    [OP_ATEN_LCM] = eval_op_lcm,
    [OP_ATEN_BITWISE_LEFT_SHIFT] = eval_op_bitwise_left_shift,
    [OP_ATEN_BITWISE_RIGHT_SHIFT] = eval_op_bitwise_right_shift,
    [OP_ATEN_LSHIFT] = eval_op_bitwise_left_shift,
    [OP_ATEN_RSHIFT] = eval_op_bitwise_right_shift,
    [OP_ATEN_FREXP] = eval_op_frexp,
    [OP_ATEN_ANGLE] = eval_op_angle,
    [OP_ATEN_POSITIVE] = eval_op_positive,
    [OP_ATEN_CONJ] = eval_op_real_identity,
    [OP_ATEN_RESOLVE_CONJ] = eval_op_real_identity,
    [OP_ATEN_RESOLVE_NEG] = eval_op_real_identity,
    [OP_ATEN_REAL] = eval_op_real_identity,
    [OP_ATEN_CONJ_PHYSICAL] = eval_op_real_identity,
    [OP_ATEN_CONJ_PHYSICAL_] = eval_op_real_identity,
    [OP_ATEN_CELU] = eval_op_celu,
    [OP_ATEN_SELU] = eval_op_selu,
    [OP_ATEN_MISH] = eval_op_mish,
    [OP_ATEN_SOFTSHRINK] = eval_op_softshrink,
    [OP_ATEN_HARDSHRINK] = eval_op_hardshrink,
    [OP_ATEN_THRESHOLD] = eval_op_threshold,
    [OP_ATEN_GLU] = eval_op_glu,
    [OP_ATEN_PRELU] = eval_op_prelu,
    [OP_ATEN_ADDCMUL] = eval_op_addcmul,
    [OP_ATEN_ADDCDIV] = eval_op_addcdiv,
    /* (end of family math) */

    /* family pool_norm */
    [OP_ATEN_MAX_POOL1D] = eval_op_max_pool1d,
    [OP_ATEN_MAX_POOL3D] = eval_op_max_pool3d,
    [OP_ATEN_MAX_POOL1D_WITH_INDICES] = eval_op_max_pool1d_with_indices,
    [OP_ATEN_MAX_POOL2D_WITH_INDICES] = eval_op_max_pool2d_with_indices,
    [OP_ATEN_MAX_POOL3D_WITH_INDICES] = eval_op_max_pool3d_with_indices,
    [OP_ATEN_AVG_POOL1D] = eval_op_avg_pool1d,
    [OP_ATEN_AVG_POOL3D] = eval_op_avg_pool3d,
    [OP_ATEN_ADAPTIVE_AVG_POOL1D] = eval_op_adaptive_avg_pool1d,
    [OP_ATEN_ADAPTIVE_AVG_POOL3D] = eval_op_adaptive_avg_pool3d,
    [OP_ATEN_ADAPTIVE_MAX_POOL1D] = eval_op_adaptive_max_pool1d,
    [OP_ATEN_ADAPTIVE_MAX_POOL2D] = eval_op_adaptive_max_pool2d,
    [OP_ATEN_ADAPTIVE_MAX_POOL3D] = eval_op_adaptive_max_pool3d,
    [OP_ATEN_MAX_UNPOOL2D] = eval_op_max_unpool2d,
    [OP_ATEN_MAX_UNPOOL3D] = eval_op_max_unpool3d,
    [OP_ATEN_INSTANCE_NORM] = eval_op_instance_norm,
    [OP_ATEN_NATIVE_BATCH_NORM] = eval_op_native_batch_norm,
    [OP_ATEN_NATIVE_LAYER_NORM] = eval_op_native_layer_norm,
    /* (end of family pool_norm) */

    /* family resample */
    [OP_ATEN_CONV_TRANSPOSE1D] = eval_op_conv_transpose1d,
    [OP_ATEN_CONV_TRANSPOSE2D] = eval_op_conv_transpose2d,
    [OP_ATEN_CONV_TRANSPOSE3D] = eval_op_conv_transpose3d,
    [OP_ATEN_IM2COL] = eval_op_im2col,
    [OP_ATEN_COL2IM] = eval_op_col2im,
    [OP_ATEN_PIXEL_SHUFFLE] = eval_op_pixel_shuffle,
    [OP_ATEN_PIXEL_UNSHUFFLE] = eval_op_pixel_unshuffle,
    [OP_ATEN_UPSAMPLE_NEAREST1D] = eval_op_upsample_nearest1d,
    [OP_ATEN_UPSAMPLE_NEAREST2D] = eval_op_upsample_nearest2d,
    [OP_ATEN_UPSAMPLE_NEAREST3D] = eval_op_upsample_nearest3d,
    [OP_ATEN_UPSAMPLE_NEAREST_EXACT1D] = eval_op_upsample_nearest_exact1d,
    [OP_ATEN_UPSAMPLE_NEAREST_EXACT2D] = eval_op_upsample_nearest_exact2d,
    [OP_ATEN_UPSAMPLE_NEAREST_EXACT3D] = eval_op_upsample_nearest_exact3d,
    [OP_ATEN_UPSAMPLE_LINEAR1D] = eval_op_upsample_linear1d,
    [OP_ATEN_UPSAMPLE_BILINEAR2D] = eval_op_upsample_bilinear2d,
    [OP_ATEN_UPSAMPLE_BICUBIC2D] = eval_op_upsample_bicubic2d,
    [OP_ATEN_UPSAMPLE_TRILINEAR3D] = eval_op_upsample_trilinear3d,
    [OP_ATEN_GRID_SAMPLER] = eval_op_grid_sampler,
    [OP_ATEN_EMBEDDING_BAG] = eval_op_embedding_bag,
    [OP_ATEN_UPSAMPLE_BILINEAR2D_AA] = eval_op_upsample_bilinear2d_aa,
    [OP_ATEN_UPSAMPLE_BICUBIC2D_AA] = eval_op_upsample_bicubic2d_aa,
    /* (end of family resample) */

    /* family loss */
    [OP_ATEN_BROADCAST_TENSORS] = eval_op_broadcast_tensors,
    [OP_ATEN_INFER_SIZE] = eval_op_infer_size,
    [OP_ATEN_L1_LOSS] = eval_op_l1_loss,
    [OP_ATEN_MSE_LOSS] = eval_op_mse_loss,
    [OP_ATEN_SMOOTH_L1_LOSS] = eval_op_smooth_l1_loss,
    [OP_ATEN_HUBER_LOSS] = eval_op_huber_loss,
    [OP_ATEN_KL_DIV] = eval_op_kl_div,
    [OP_ATEN_BINARY_CROSS_ENTROPY] = eval_op_binary_cross_entropy,
    [OP_ATEN_BINARY_CROSS_ENTROPY_WITH_LOGITS] = eval_op_binary_cross_entropy_with_logits,
    [OP_ATEN_NLL_LOSS_ND] = eval_op_nll_loss_nd,
    [OP_ATEN_NLL_LOSS] = eval_op_nll_loss,
    [OP_ATEN_NLL_LOSS2D] = eval_op_nll_loss2d,
    [OP_ATEN_CROSS_ENTROPY_LOSS] = eval_op_cross_entropy_loss,
    [OP_ATEN_MARGIN_RANKING_LOSS] = eval_op_margin_ranking_loss,
    [OP_ATEN_HINGE_EMBEDDING_LOSS] = eval_op_hinge_embedding_loss,
    [OP_ATEN_SOFT_MARGIN_LOSS] = eval_op_soft_margin_loss,
    [OP_ATEN_MULTI_MARGIN_LOSS] = eval_op_multi_margin_loss,
    [OP_ATEN_MULTILABEL_MARGIN_LOSS] = eval_op_multilabel_margin_loss,
    [OP_ATEN_LOG_SIGMOID] = eval_op_log_sigmoid,
    [OP_ATEN_COSINE_EMBEDDING_LOSS] = eval_op_cosine_embedding_loss,
    [OP_ATEN_TRIPLET_MARGIN_LOSS] = eval_op_triplet_margin_loss,
    [OP_ATEN_POISSON_NLL_LOSS] = eval_op_poisson_nll_loss,
    [OP_ATEN_CTC_LOSS] = eval_op_ctc_loss,
    [OP_ATEN_COSINE_SIMILARITY] = eval_op_cosine_similarity,
    [OP_ATEN_PAIRWISE_DISTANCE] = eval_op_pairwise_distance,
    [OP_ATEN_PDIST] = eval_op_pdist,
    [OP_ATEN_CDIST] = eval_op_cdist,
    [OP_ATEN_DIST] = eval_op_dist,
    [OP_ATEN_ONE_HOT] = eval_op_one_hot,
    [OP_ATEN_BILINEAR] = eval_op_bilinear,
    /* (end of family loss) */

    /* family linalg_extra */
    [OP_ATEN_MT] = eval_op_mT,
    [OP_ATEN_MH] = eval_op_mH,
    [OP_ATEN_MATRIX_H] = eval_op_matrix_H,
    [OP_ATEN_TRACE] = eval_op_trace,
    [OP_ATEN_MV] = eval_op_mv,
    [OP_ATEN_ADDMV] = eval_op_addmv,
    [OP_ATEN_ADDR] = eval_op_addr,
    [OP_ATEN_BADDBMM] = eval_op_baddbmm,
    [OP_ATEN_ADDBMM] = eval_op_addbmm,
    [OP_ATEN_INNER] = eval_op_inner,
    [OP_ATEN_VDOT] = eval_op_vdot,
    [OP_ATEN_LINALG_VECDOT] = eval_op_linalg_vecdot,
    [OP_ATEN_KRON] = eval_op_kron,
    [OP_ATEN_TENSORDOT] = eval_op_tensordot,
    [OP_ATEN_CROSS] = eval_op_cross,
    [OP_ATEN_LINALG_CROSS] = eval_op_linalg_cross,
    [OP_ATEN_BLOCK_DIAG] = eval_op_block_diag,
    [OP_ATEN_LINALG_MULTI_DOT] = eval_op_linalg_multi_dot,
    [OP_ATEN_CHAIN_MATMUL] = eval_op_chain_matmul,
    [OP_ATEN_LINALG_MATRIX_POWER] = eval_op_linalg_matrix_power,
    [OP_ATEN_LINALG_VANDER] = eval_op_linalg_vander,
    [OP_ATEN_LINALG_VECTOR_NORM] = eval_op_linalg_vector_norm,
    [OP_ATEN_LINALG_MATRIX_NORM] = eval_op_linalg_matrix_norm,
    [OP_ATEN_LINALG_NORM] = eval_op_linalg_norm,
    [OP_ATEN_FROBENIUS_NORM] = eval_op_frobenius_norm,
    [OP_ATEN_NUCLEAR_NORM] = eval_op_nuclear_norm,
    [OP_ATEN_RENORM] = eval_op_renorm,
    [OP_ATEN_COV] = eval_op_cov,
    [OP_ATEN_CORRCOEF] = eval_op_corrcoef,
    [OP_ATEN_LINALG_SVD] = eval_op_linalg_svd,
    [OP_ATEN_SVD] = eval_op_svd,
    [OP_ATEN_LINALG_SVDVALS] = eval_op_linalg_svdvals,
    [OP_ATEN_LINALG_PINV] = eval_op_linalg_pinv,
    [OP_ATEN_PINVERSE] = eval_op_pinverse,
    [OP_ATEN_LINALG_MATRIX_RANK] = eval_op_linalg_matrix_rank,
    [OP_ATEN_LINALG_EIGVALSH] = eval_op_linalg_eigvalsh,
    [OP_ATEN_SYMEIG] = eval_op_symeig,
    [OP_ATEN_LINALG_COND] = eval_op_linalg_cond,
    [OP_ATEN_LINALG_LSTSQ] = eval_op_linalg_lstsq,
    [OP_ATEN_LINALG_LU_FACTOR_EX] = eval_op_linalg_lu_factor_ex,
    [OP_ATEN_LINALG_LU_FACTOR] = eval_op_linalg_lu_factor,
    [OP_ATEN__LU_WITH_INFO] = eval_op__lu_with_info,
    [OP_ATEN_LINALG_LU] = eval_op_linalg_lu,
    [OP_ATEN_LU_UNPACK] = eval_op_lu_unpack,
    [OP_ATEN_LINALG_LU_SOLVE] = eval_op_linalg_lu_solve,
    [OP_ATEN_LU_SOLVE] = eval_op_lu_solve,
    [OP_ATEN_LINALG_INV_EX] = eval_op_linalg_inv_ex,
    [OP_ATEN_LINALG_SOLVE_EX] = eval_op_linalg_solve_ex,
    [OP_ATEN_LINALG_SOLVE_TRIANGULAR] = eval_op_linalg_solve_triangular,
    [OP_ATEN_TRIANGULAR_SOLVE] = eval_op_triangular_solve,
    [OP_ATEN_GEQRF] = eval_op_geqrf,
    [OP_ATEN_LINALG_HOUSEHOLDER_PRODUCT] = eval_op_linalg_householder_product,
    [OP_ATEN_ORMQR] = eval_op_ormqr,
    [OP_ATEN_QR] = eval_op_qr,
    [OP_ATEN_LINALG_LDL_FACTOR_EX] = eval_op_linalg_ldl_factor_ex,
    [OP_ATEN_LINALG_LDL_FACTOR] = eval_op_linalg_ldl_factor,
    [OP_ATEN_LINALG_LDL_SOLVE] = eval_op_linalg_ldl_solve,
    [OP_ATEN_LINALG_CHOLESKY_EX] = eval_op_linalg_cholesky_ex,
    [OP_ATEN_CHOLESKY] = eval_op_cholesky,
    [OP_ATEN_CHOLESKY_INVERSE] = eval_op_cholesky_inverse,
    [OP_ATEN_LINALG_MATRIX_EXP] = eval_op_linalg_matrix_exp,
    [OP_ATEN_MATRIX_EXP] = eval_op_linalg_matrix_exp,
    [OP_ATEN_LINALG_TENSORINV] = eval_op_linalg_tensorinv,
    [OP_ATEN_LINALG_TENSORSOLVE] = eval_op_linalg_tensorsolve,
    /* (end of family linalg_extra) */

    /* family stats */
    [OP_ATEN_MSORT] = eval_op_msort,
    [OP_ATEN_KTHVALUE] = eval_op_kthvalue,
    [OP_ATEN_MEDIAN] = eval_op_median,
    [OP_ATEN_NANMEDIAN] = eval_op_nanmedian,
    [OP_ATEN_MODE] = eval_op_mode,
    /* (end of family stats) */

    /* family shape_index */
    [OP_ATEN_SCATTER_REDUCE] = eval_op_scatter_reduce,
    [OP_ATEN_INDEX_REDUCE] = eval_op_index_reduce,
    [OP_ATEN_INDEX_COPY] = eval_op_index_copy,
    [OP_ATEN_INDEX_FILL] = eval_op_index_fill,
    [OP_ATEN_MASKED_SCATTER] = eval_op_masked_scatter,
    [OP_ATEN_PUT] = eval_op_put,
    [OP_ATEN_TAKE] = eval_op_take,
    [OP_ATEN_TAKE_ALONG_DIM] = eval_op_take_along_dim,
    [OP_ATEN_REPEAT_INTERLEAVE] = eval_op_repeat_interleave,
    [OP_ATEN_TRIL_INDICES] = eval_op_tril_indices,
    [OP_ATEN_TRIU_INDICES] = eval_op_triu_indices,
    [OP_ATEN_COMBINATIONS] = eval_op_combinations,
    [OP_ATEN_CARTESIAN_PROD] = eval_op_cartesian_prod,
    [OP_ATEN_ARGWHERE] = eval_op_argwhere,
    [OP_ATEN_TENSOR_SPLIT] = eval_op_tensor_split,
    [OP_ATEN_HSPLIT] = eval_op_hsplit,
    [OP_ATEN_VSPLIT] = eval_op_vsplit,
    [OP_ATEN_DSPLIT] = eval_op_dsplit,
    [OP_ATEN_UNFOLD] = eval_op_unfold,
    [OP_ATEN_AS_STRIDED] = eval_op_as_strided,
    [OP_ATEN_BROADCAST_TO] = eval_op_broadcast_to,
    [OP_ATEN_RAVEL] = eval_op_ravel,
    [OP_ATEN_ATLEAST_1D] = eval_op_atleast_1d,
    [OP_ATEN_ATLEAST_2D] = eval_op_atleast_2d,
    [OP_ATEN_ATLEAST_3D] = eval_op_atleast_3d,
    [OP_ATEN_AS_STRIDED_SCATTER] = eval_op_as_strided_scatter,
    [OP_ATEN_SELECT_SCATTER] = eval_op_select_scatter,
    [OP_ATEN_SLICE_SCATTER] = eval_op_slice_scatter,
    [OP_ATEN_DIAGONAL_SCATTER] = eval_op_diagonal_scatter,
    [OP_ATEN_HSTACK] = eval_op_hstack,
    [OP_ATEN_VSTACK] = eval_op_vstack,
    [OP_ATEN_DSTACK] = eval_op_dstack,
    [OP_ATEN_COLUMN_STACK] = eval_op_column_stack,
    [OP_ATEN_TILE] = eval_op_tile,
    [OP_ATEN_ROT90] = eval_op_rot90,
    [OP_ATEN_FLIPLR] = eval_op_fliplr,
    [OP_ATEN_FLIPUD] = eval_op_flipud,
    [OP_ATEN_FFT_FFTSHIFT] = eval_op_fft_fftshift,
    [OP_ATEN_FFT_IFFTSHIFT] = eval_op_fft_ifftshift,
    [OP_ATEN_NARROW_COPY] = eval_op_narrow_copy,
    [OP_ATEN_SUM_TO_SIZE] = eval_op_sum_to_size,
    [OP_ATEN_DIAGFLAT] = eval_op_diagflat,
    [OP_ATEN_RESIZE_] = eval_op_resize_,
    [OP_ATEN_RESIZE_AS_] = eval_op_resize_as_,
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

/* PyTorch's checks of an in-place op's result r against self: it must have
 * self's shape (an in-place op cannot broadcast self) and a dtype castable
 * to self's. */
static bool check_inplace_result(EvalCall *c, const Tensor *r, const Tensor *self)
{
    if (!tensor_same_shape(r, self)) {
        TextBuf want = {0}, got = {0};
        format_shape(&want, self);
        format_shape(&got, r);
        eval_fail(c, "output with shape %s doesn't match the broadcast shape %s", textbuf_cstr(&want),
                  textbuf_cstr(&got));
        textbuf_release(&want);
        textbuf_release(&got);
        return false;
    }
    if (!can_cast(r->dtype, self->dtype))
        return eval_fail(c, "result type %s can't be cast to the desired output type %s",
                         dtype_ts_name(r->dtype), dtype_ts_name(self->dtype));
    return true;
}

/* tssa::inplace_check(Tensor result, Tensor self) -> result: what TensorSSA
 * leaves of an elementwise in-place op's checks once the op has become its
 * out-of-place twin and a copy (functionalize/inplace_to_functional.c). */
bool eval_op_inplace_check(EvalCall *c)
{
    Tensor *r, *self;
    return eval_nargs(c, 2, 2) && eval_arg_tensor(c, 0, &r) && eval_arg_tensor(c, 1, &self) &&
           check_inplace_result(c, r, self) && eval_out_arg(c, 0, 0);
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
        ok = check_inplace_result(c, r, self);
        if (ok && r != self && !tensor_copy_(self, r))
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
