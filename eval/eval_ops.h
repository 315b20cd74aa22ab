/* eval_ops.h — the op bindings of the evaluator, one group per
 * file. Each takes a EvalCall (eval_internal.h) and returns false after recording what
 * went wrong. dispatch.c maps OpIds to them; the eval_* helpers at the end
 * of the scalar group serve several families (the same op name is a tensor
 * op or a Python builtin depending on its arguments).
 */
#ifndef TSSA_EVAL_OPS_H
#define TSSA_EVAL_OPS_H

#include "eval/eval_internal.h"

/* module.c */
bool eval_op_getattr(EvalCall *c);

/* ops_convert.c */
bool eval_op_to(EvalCall *c); bool eval_op_type_as(EvalCall *c); bool eval_op_cast_float(EvalCall *c);
bool eval_op_cast_double(EvalCall *c); bool eval_op_cast_long(EvalCall *c);
bool eval_op_cast_int(EvalCall *c); bool eval_op_cast_bool(EvalCall *c);

/* ops_creation.c */
bool eval_op_zeros(EvalCall *c); bool eval_op_ones(EvalCall *c); bool eval_op_empty(EvalCall *c);
bool eval_op_full(EvalCall *c); bool eval_op_zeros_like(EvalCall *c);
bool eval_op_ones_like(EvalCall *c); bool eval_op_empty_like(EvalCall *c);
bool eval_op_full_like(EvalCall *c); bool eval_op_new_zeros(EvalCall *c);
bool eval_op_new_ones(EvalCall *c); bool eval_op_new_empty(EvalCall *c);
bool eval_op_new_full(EvalCall *c); bool eval_op_arange(EvalCall *c); bool eval_op_linspace(EvalCall *c);
bool eval_op_eye(EvalCall *c); bool eval_op_tensor(EvalCall *c); bool eval_op_as_tensor(EvalCall *c);
bool eval_op_scalar_tensor(EvalCall *c); bool eval_op_meshgrid(EvalCall *c);

/* ops_elementwise.c */
bool eval_op_invert(EvalCall *c); bool eval_op_log(EvalCall *c); bool eval_op_log_(EvalCall *c);
bool eval_op_round(EvalCall *c); bool eval_op_round_(EvalCall *c); bool eval_op_leaky_relu(EvalCall *c);
bool eval_op_leaky_relu_(EvalCall *c); bool eval_op_elu(EvalCall *c); bool eval_op_elu_(EvalCall *c);
bool eval_op_softplus(EvalCall *c); bool eval_op_hardtanh(EvalCall *c);
bool eval_op_hardtanh_(EvalCall *c); bool eval_op_gelu(EvalCall *c); bool eval_op_gelu_(EvalCall *c);
bool eval_op_iand(EvalCall *c); bool eval_op_ior(EvalCall *c); bool eval_op_add(EvalCall *c);
bool eval_op_add_(EvalCall *c); bool eval_op_sub(EvalCall *c); bool eval_op_sub_(EvalCall *c);
bool eval_op_rsub(EvalCall *c); bool eval_op_div(EvalCall *c); bool eval_op_div_(EvalCall *c);
bool eval_op_where(EvalCall *c); bool eval_op_clamp(EvalCall *c); bool eval_op_clamp_(EvalCall *c);
bool eval_op_clamp_min(EvalCall *c); bool eval_op_clamp_min_(EvalCall *c);
bool eval_op_clamp_max(EvalCall *c); bool eval_op_clamp_max_(EvalCall *c);
bool eval_op_lerp(EvalCall *c); bool eval_op_neg(EvalCall *c); bool eval_op_neg_(EvalCall *c);
bool eval_op_abs(EvalCall *c); bool eval_op_abs_(EvalCall *c); bool eval_op_exp(EvalCall *c);
bool eval_op_exp_(EvalCall *c); bool eval_op_log2(EvalCall *c); bool eval_op_log2_(EvalCall *c);
bool eval_op_log1p(EvalCall *c); bool eval_op_log1p_(EvalCall *c); bool eval_op_expm1(EvalCall *c);
bool eval_op_expm1_(EvalCall *c); bool eval_op_sqrt(EvalCall *c); bool eval_op_sqrt_(EvalCall *c);
bool eval_op_rsqrt(EvalCall *c); bool eval_op_rsqrt_(EvalCall *c); bool eval_op_sin(EvalCall *c);
bool eval_op_acos(EvalCall *c); bool eval_op_acos_(EvalCall *c);
bool eval_op_asin(EvalCall *c); bool eval_op_asin_(EvalCall *c);
bool eval_op_atan(EvalCall *c); bool eval_op_atan_(EvalCall *c);
bool eval_op_sinh(EvalCall *c); bool eval_op_sinh_(EvalCall *c);
bool eval_op_cosh(EvalCall *c); bool eval_op_cosh_(EvalCall *c);
bool eval_op_asinh(EvalCall *c); bool eval_op_asinh_(EvalCall *c);
bool eval_op_acosh(EvalCall *c); bool eval_op_acosh_(EvalCall *c);
bool eval_op_atanh(EvalCall *c); bool eval_op_atanh_(EvalCall *c);
bool eval_op_erfc(EvalCall *c); bool eval_op_erfc_(EvalCall *c);
bool eval_op_exp2(EvalCall *c); bool eval_op_exp2_(EvalCall *c);
bool eval_op_log10(EvalCall *c); bool eval_op_log10_(EvalCall *c);
bool eval_op_lgamma(EvalCall *c); bool eval_op_lgamma_(EvalCall *c);
bool eval_op_deg2rad(EvalCall *c); bool eval_op_deg2rad_(EvalCall *c);
bool eval_op_rad2deg(EvalCall *c); bool eval_op_rad2deg_(EvalCall *c);
bool eval_op_sinc(EvalCall *c); bool eval_op_sinc_(EvalCall *c);
bool eval_op_sin_(EvalCall *c); bool eval_op_cos(EvalCall *c); bool eval_op_cos_(EvalCall *c);
bool eval_op_tan(EvalCall *c); bool eval_op_tan_(EvalCall *c); bool eval_op_tanh(EvalCall *c);
bool eval_op_tanh_(EvalCall *c); bool eval_op_erf(EvalCall *c); bool eval_op_erf_(EvalCall *c);
bool eval_op_sigmoid(EvalCall *c); bool eval_op_sigmoid_(EvalCall *c); bool eval_op_relu(EvalCall *c);
bool eval_op_relu_(EvalCall *c); bool eval_op_relu6(EvalCall *c); bool eval_op_relu6_(EvalCall *c);
bool eval_op_silu(EvalCall *c); bool eval_op_silu_(EvalCall *c); bool eval_op_hardsigmoid(EvalCall *c);
bool eval_op_hardsigmoid_(EvalCall *c); bool eval_op_hardswish(EvalCall *c);
bool eval_op_hardswish_(EvalCall *c); bool eval_op_floor(EvalCall *c); bool eval_op_floor_(EvalCall *c);
bool eval_op_ceil(EvalCall *c); bool eval_op_ceil_(EvalCall *c); bool eval_op_trunc(EvalCall *c);
bool eval_op_trunc_(EvalCall *c); bool eval_op_sign(EvalCall *c); bool eval_op_sign_(EvalCall *c);
bool eval_op_reciprocal(EvalCall *c); bool eval_op_reciprocal_(EvalCall *c);
bool eval_op_logical_not(EvalCall *c); bool eval_op_logical_not_(EvalCall *c);
bool eval_op_bitwise_not(EvalCall *c); bool eval_op_bitwise_not_(EvalCall *c);
bool eval_op_mul(EvalCall *c); bool eval_op_mul_(EvalCall *c); bool eval_op_floor_divide(EvalCall *c);
bool eval_op_floor_divide_(EvalCall *c); bool eval_op_remainder(EvalCall *c);
bool eval_op_remainder_(EvalCall *c); bool eval_op_fmod(EvalCall *c); bool eval_op_fmod_(EvalCall *c);
bool eval_op_pow(EvalCall *c); bool eval_op_pow_(EvalCall *c); bool eval_op_maximum(EvalCall *c);
bool eval_op_minimum(EvalCall *c); bool eval_op_atan2(EvalCall *c); bool eval_op_eq(EvalCall *c);
bool eval_op_eq_(EvalCall *c); bool eval_op_ne(EvalCall *c); bool eval_op_ne_(EvalCall *c);
bool eval_op_lt(EvalCall *c); bool eval_op_lt_(EvalCall *c); bool eval_op_le(EvalCall *c);
bool eval_op_le_(EvalCall *c); bool eval_op_gt(EvalCall *c); bool eval_op_gt_(EvalCall *c);
bool eval_op_ge(EvalCall *c); bool eval_op_ge_(EvalCall *c); bool eval_op_logical_and(EvalCall *c);
bool eval_op_logical_and_(EvalCall *c); bool eval_op_logical_or(EvalCall *c);
bool eval_op_logical_or_(EvalCall *c); bool eval_op_logical_xor(EvalCall *c);
bool eval_op_logical_xor_(EvalCall *c); bool eval_op_bitwise_and(EvalCall *c);
bool eval_op_bitwise_and_(EvalCall *c); bool eval_op_bitwise_or(EvalCall *c);
bool eval_op_bitwise_or_(EvalCall *c); bool eval_op_bitwise_xor(EvalCall *c);
bool eval_op_bitwise_xor_(EvalCall *c); bool eval_op_and(EvalCall *c); bool eval_op_or(EvalCall *c);
bool eval_op_xor(EvalCall *c);

/* ops_index.c */
bool eval_op_index(EvalCall *c); bool eval_op_index_put(EvalCall *c);
bool eval_op_index_put_(EvalCall *c); bool eval_op_index_select(EvalCall *c);
bool eval_op_masked_select(EvalCall *c); bool eval_op_gather(EvalCall *c);
bool eval_op_masked_fill(EvalCall *c); bool eval_op_masked_fill_(EvalCall *c);
bool eval_op_scatter(EvalCall *c); bool eval_op_scatter_(EvalCall *c); bool eval_op_copy_(EvalCall *c);
bool eval_op_clone(EvalCall *c); bool eval_op_fill_(EvalCall *c); bool eval_op_zero_(EvalCall *c);

/* ops_linalg.c */
bool eval_op_linalg_cholesky(EvalCall *c); bool eval_op_cholesky_solve(EvalCall *c);
bool eval_op_linalg_solve(EvalCall *c); bool eval_op_linalg_inv(EvalCall *c);
bool eval_op_linalg_det(EvalCall *c); bool eval_op_linalg_slogdet(EvalCall *c);
bool eval_op_logdet(EvalCall *c); bool eval_op_diag(EvalCall *c); bool eval_op_einsum(EvalCall *c);
bool eval_op_linalg_qr(EvalCall *c); bool eval_op_linalg_eigh(EvalCall *c); bool eval_op_diag_embed(EvalCall *c);

/* ops_dict.c */
bool eval_op_dict_construct(EvalCall *c); bool eval_op_keys(EvalCall *c);
bool eval_op_values(EvalCall *c); bool eval_op_items(EvalCall *c); bool eval_op_get(EvalCall *c);
bool eval_op_setdefault(EvalCall *c);
/* The dict forms of ops shared with lists (scalar_ops.c calls them). */
bool eval_dict_getitem(EvalCall *c); bool eval_dict_set_item(EvalCall *c);
bool eval_dict_pop(EvalCall *c); bool eval_dict_contains(EvalCall *c);
bool eval_dict_len(EvalCall *c); bool eval_dict_clear(EvalCall *c);

/* ops_index.c (additions) */
bool eval_op_scatter_add(EvalCall *c); bool eval_op_scatter_add_(EvalCall *c);
bool eval_op_index_add(EvalCall *c); bool eval_op_index_add_(EvalCall *c);
bool eval_op_bincount(EvalCall *c); bool eval_op_searchsorted(EvalCall *c);

/* ops_reduce.c (runs) */
bool eval_op_unique_consecutive(EvalCall *c);

/* ops_nn.c */
bool eval_op_mm(EvalCall *c); bool eval_op_bmm(EvalCall *c); bool eval_op_matmul(EvalCall *c);
bool eval_op_dot(EvalCall *c); bool eval_op_outer(EvalCall *c); bool eval_op_addmm(EvalCall *c);
bool eval_op_linear(EvalCall *c); bool eval_op_conv2d(EvalCall *c); bool eval_op_conv1d(EvalCall *c);
bool eval_op_convolution(EvalCall *c); bool eval_op_batch_norm(EvalCall *c);
bool eval_op_layer_norm(EvalCall *c); bool eval_op_group_norm(EvalCall *c);
bool eval_op_max_pool2d(EvalCall *c); bool eval_op_avg_pool2d(EvalCall *c);
bool eval_op_adaptive_avg_pool2d(EvalCall *c); bool eval_op_embedding(EvalCall *c);
bool eval_op_dropout(EvalCall *c); bool eval_op_cat(EvalCall *c); bool eval_op_stack(EvalCall *c);
bool eval_op_repeat(EvalCall *c); bool eval_op_flip(EvalCall *c); bool eval_op_roll(EvalCall *c);
bool eval_op_tril(EvalCall *c); bool eval_op_triu(EvalCall *c);
bool eval_op_constant_pad_nd(EvalCall *c); bool eval_op_pad(EvalCall *c);
bool eval_op_lstm_cell(EvalCall *c); bool eval_op_gru_cell(EvalCall *c);
bool eval_op_rnn_tanh_cell(EvalCall *c);

/* ops_reduce.c */
bool eval_op_sum(EvalCall *c); bool eval_op_mean(EvalCall *c); bool eval_op_prod(EvalCall *c);
bool eval_op_max(EvalCall *c); bool eval_op_min(EvalCall *c); bool eval_op_argmax(EvalCall *c);
bool eval_op_argmin(EvalCall *c); bool eval_op_amax(EvalCall *c); bool eval_op_amin(EvalCall *c);
bool eval_op_softmax(EvalCall *c); bool eval_op_log_softmax(EvalCall *c);
bool eval_op_cumsum(EvalCall *c); bool eval_op_cumprod(EvalCall *c); bool eval_op_all(EvalCall *c);
bool eval_op_any(EvalCall *c); bool eval_op_topk(EvalCall *c); bool eval_op_sort(EvalCall *c);
bool eval_op_argsort(EvalCall *c); bool eval_op_nonzero(EvalCall *c); bool eval_op_norm(EvalCall *c);
bool eval_op_var(EvalCall *c); bool eval_op_std(EvalCall *c); bool eval_op_logsumexp(EvalCall *c);

/* ops_view.c */
bool eval_op_select(EvalCall *c); bool eval_op_slice(EvalCall *c); bool eval_op_narrow(EvalCall *c);
bool eval_op_view(EvalCall *c); bool eval_op_view_as(EvalCall *c); bool eval_op_reshape(EvalCall *c);
bool eval_op_reshape_as(EvalCall *c); bool eval_op_squeeze(EvalCall *c);
bool eval_op_unsqueeze(EvalCall *c); bool eval_op_expand(EvalCall *c);
bool eval_op_expand_as(EvalCall *c); bool eval_op_permute(EvalCall *c);
bool eval_op_transpose(EvalCall *c); bool eval_op_t(EvalCall *c); bool eval_op_numpy_t(EvalCall *c);
bool eval_op_movedim(EvalCall *c); bool eval_op_contiguous(EvalCall *c);
bool eval_op_flatten(EvalCall *c); bool eval_op_unflatten(EvalCall *c);
bool eval_op_diagonal(EvalCall *c); bool eval_op_alias(EvalCall *c); bool eval_op_chunk(EvalCall *c);
bool eval_op_split(EvalCall *c); bool eval_op_split_with_sizes(EvalCall *c);
bool eval_op_unbind(EvalCall *c);

/* grad_scope.c */
bool eval_op_create_object(EvalCall *c); bool eval_op_setattr(EvalCall *c);
bool eval_op_enter(EvalCall *c); bool eval_op_exit(EvalCall *c);

/* dispatch.c */
bool eval_op_inplace_check(EvalCall *c);

/* type_query.c */
bool eval_op_isinstance(EvalCall *c);

/* ops_str.c */
bool eval_op_join(EvalCall *c); bool eval_op_replace(EvalCall *c); bool eval_op_strip(EvalCall *c);
bool eval_op_lstrip(EvalCall *c); bool eval_op_rstrip(EvalCall *c); bool eval_str_split(EvalCall *c);
bool eval_op_lower(EvalCall *c); bool eval_op_upper(EvalCall *c); bool eval_op_startswith(EvalCall *c);
bool eval_op_endswith(EvalCall *c); bool eval_op_find(EvalCall *c); bool eval_op_ord(EvalCall *c);
bool eval_op_chr(EvalCall *c);

/* scalar_ops.c */
bool eval_scalar_op(EvalCall *c); bool eval_op_floordiv(EvalCall *c);
bool eval_op_list_construct(EvalCall *c); bool eval_op_tuple_construct(EvalCall *c);
bool eval_op_list_unpack(EvalCall *c); bool eval_op_tuple_unpack(EvalCall *c);
bool eval_op_tuple_index(EvalCall *c); bool eval_op_getitem(EvalCall *c);
bool eval_sequence_slice(EvalCall *c); bool eval_op_len(EvalCall *c); bool eval_op_append(EvalCall *c);
bool eval_op_set_item(EvalCall *c); bool eval_op_list_set_item(EvalCall *c);
bool eval_op_extend(EvalCall *c); bool eval_op_insert(EvalCall *c);
bool eval_op_pop(EvalCall *c); bool eval_op_reverse(EvalCall *c); bool eval_op_remove(EvalCall *c);
bool eval_op_count(EvalCall *c); bool eval_op_clear(EvalCall *c);
bool eval_op_is_floating_point(EvalCall *c); bool eval_op_list(EvalCall *c); bool eval_op_contains(EvalCall *c);
bool eval_list_index_of(EvalCall *c);
bool eval_list_reduce(EvalCall *c); bool eval_op_prim_min(EvalCall *c);
bool eval_op_prim_max(EvalCall *c); bool eval_op_prim_abs(EvalCall *c); bool eval_op_is(EvalCall *c);
bool eval_op_isnot(EvalCall *c); bool eval_op_not(EvalCall *c); bool eval_op_int(EvalCall *c);
bool eval_op_float_scalar(EvalCall *c); bool eval_op_bool_scalar(EvalCall *c);
bool eval_op_scalar_implicit(EvalCall *c); bool eval_op_int_implicit(EvalCall *c);
bool eval_op_float_implicit(EvalCall *c); bool eval_op_item(EvalCall *c);
bool eval_op_num_to_tensor(EvalCall *c); bool eval_op_size(EvalCall *c); bool eval_op_shape(EvalCall *c);
bool eval_op_dim(EvalCall *c); bool eval_op_numel(EvalCall *c); bool eval_op_dtype(EvalCall *c);
bool eval_op_device(EvalCall *c); bool eval_op_layout(EvalCall *c);
bool eval_op_false_query(EvalCall *c); bool eval_op_unchecked_cast(EvalCall *c);
bool eval_op_data(EvalCall *c); bool eval_op_uninitialized(EvalCall *c); bool eval_op_str(EvalCall *c);
bool eval_op_format(EvalCall *c); bool eval_op_print(EvalCall *c); bool eval_op_warn(EvalCall *c);
bool eval_op_raise_exception(EvalCall *c); bool eval_op_range_length(EvalCall *c);
bool eval_op_derive_index(EvalCall *c);

/* family special: special functions: gamma family, Bessel, orthogonal polynomials, ndtr, zeta, erfinv */
bool eval_op_digamma(EvalCall *c);
bool eval_op_digamma_(EvalCall *c);
bool eval_op_erfinv(EvalCall *c);
bool eval_op_erfinv_(EvalCall *c);
bool eval_op_i0(EvalCall *c);
bool eval_op_i0_(EvalCall *c);
bool eval_op_special_entr(EvalCall *c);
bool eval_op_special_erfcx(EvalCall *c);
bool eval_op_special_ndtr(EvalCall *c);
bool eval_op_special_ndtri(EvalCall *c);
bool eval_op_special_log_ndtr(EvalCall *c);
bool eval_op_special_i0e(EvalCall *c);
bool eval_op_special_i1(EvalCall *c);
bool eval_op_special_i1e(EvalCall *c);
bool eval_op_special_airy_ai(EvalCall *c);
bool eval_op_special_bessel_j0(EvalCall *c);
bool eval_op_special_bessel_j1(EvalCall *c);
bool eval_op_special_bessel_y0(EvalCall *c);
bool eval_op_special_bessel_y1(EvalCall *c);
bool eval_op_special_modified_bessel_i0(EvalCall *c);
bool eval_op_special_modified_bessel_i1(EvalCall *c);
bool eval_op_special_modified_bessel_k0(EvalCall *c);
bool eval_op_special_modified_bessel_k1(EvalCall *c);
bool eval_op_special_scaled_modified_bessel_k0(EvalCall *c);
bool eval_op_special_scaled_modified_bessel_k1(EvalCall *c);
bool eval_op_special_spherical_bessel_j0(EvalCall *c);
bool eval_op_xlogy(EvalCall *c);
bool eval_op_xlogy_(EvalCall *c);
bool eval_op_igamma(EvalCall *c);
bool eval_op_igamma_(EvalCall *c);
bool eval_op_igammac(EvalCall *c);
bool eval_op_igammac_(EvalCall *c);
bool eval_op_special_xlog1py(EvalCall *c);
bool eval_op_special_zeta(EvalCall *c);
bool eval_op_special_chebyshev_polynomial_t(EvalCall *c);
bool eval_op_special_chebyshev_polynomial_u(EvalCall *c);
bool eval_op_special_chebyshev_polynomial_v(EvalCall *c);
bool eval_op_special_chebyshev_polynomial_w(EvalCall *c);
bool eval_op_special_shifted_chebyshev_polynomial_t(EvalCall *c);
bool eval_op_special_shifted_chebyshev_polynomial_u(EvalCall *c);
bool eval_op_special_shifted_chebyshev_polynomial_v(EvalCall *c);
bool eval_op_special_shifted_chebyshev_polynomial_w(EvalCall *c);
bool eval_op_special_hermite_polynomial_h(EvalCall *c);
bool eval_op_special_hermite_polynomial_he(EvalCall *c);
bool eval_op_special_laguerre_polynomial_l(EvalCall *c);
bool eval_op_special_legendre_polynomial_p(EvalCall *c);
bool eval_op_polygamma(EvalCall *c);
bool eval_op_polygamma_(EvalCall *c);
bool eval_op_mvlgamma(EvalCall *c);
bool eval_op_mvlgamma_(EvalCall *c);
/* (end of family special) */

/* family math: elementwise math, predicates and activations */
bool eval_op_isnan(EvalCall *c);
bool eval_op_isinf(EvalCall *c);
bool eval_op_isfinite(EvalCall *c);
bool eval_op_isposinf(EvalCall *c);
bool eval_op_isneginf(EvalCall *c);
bool eval_op_isreal(EvalCall *c);
bool eval_op_signbit(EvalCall *c);
bool eval_op_isclose(EvalCall *c);
bool eval_op_allclose(EvalCall *c);
bool eval_op_equal(EvalCall *c);
bool eval_op_nan_to_num(EvalCall *c);
bool eval_op_sgn(EvalCall *c);
bool eval_op_square(EvalCall *c);
bool eval_op_square_(EvalCall *c);
bool eval_op_real_identity(EvalCall *c);
bool eval_op_positive(EvalCall *c);
bool eval_op_frac(EvalCall *c);
bool eval_op_mish(EvalCall *c);
bool eval_op_logit(EvalCall *c);
bool eval_op_angle(EvalCall *c);
bool eval_op_softshrink(EvalCall *c);
bool eval_op_hardshrink(EvalCall *c);
bool eval_op_threshold(EvalCall *c);
bool eval_op_celu(EvalCall *c);
bool eval_op_selu(EvalCall *c);
bool eval_op_copysign(EvalCall *c);
bool eval_op_heaviside(EvalCall *c);
bool eval_op_hypot(EvalCall *c);
bool eval_op_logaddexp(EvalCall *c);
bool eval_op_logaddexp2(EvalCall *c);
bool eval_op_nextafter(EvalCall *c);
bool eval_op_fmax(EvalCall *c);
bool eval_op_fmin(EvalCall *c);
bool eval_op_lcm(EvalCall *c);
bool eval_op_gcd(EvalCall *c);
bool eval_op_bitwise_left_shift(EvalCall *c);
bool eval_op_bitwise_right_shift(EvalCall *c);
bool eval_op_ldexp(EvalCall *c);
bool eval_op_float_power(EvalCall *c);
bool eval_op_float_power_(EvalCall *c);
bool eval_op_frexp(EvalCall *c);
bool eval_op_glu(EvalCall *c);
bool eval_op_prelu(EvalCall *c);
bool eval_op_addcmul(EvalCall *c);
bool eval_op_addcdiv(EvalCall *c);
/* (end of family math) */

/* family pool_norm: pooling, unpooling, padding modes and normalization */
bool eval_op_max_pool1d(EvalCall *c);
bool eval_op_max_pool3d(EvalCall *c);
bool eval_op_max_pool1d_with_indices(EvalCall *c);
bool eval_op_max_pool2d_with_indices(EvalCall *c);
bool eval_op_max_pool3d_with_indices(EvalCall *c);
bool eval_op_avg_pool1d(EvalCall *c);
bool eval_op_avg_pool3d(EvalCall *c);
bool eval_op_adaptive_avg_pool1d(EvalCall *c);
bool eval_op_adaptive_avg_pool3d(EvalCall *c);
bool eval_op_adaptive_max_pool1d(EvalCall *c);
bool eval_op_adaptive_max_pool2d(EvalCall *c);
bool eval_op_adaptive_max_pool3d(EvalCall *c);
bool eval_op_max_unpool2d(EvalCall *c);
bool eval_op_max_unpool3d(EvalCall *c);
bool eval_op_instance_norm(EvalCall *c);
bool eval_op_native_batch_norm(EvalCall *c);
bool eval_op_native_layer_norm(EvalCall *c);
/* (end of family pool_norm) */

/* family resample: transposed convolution, interpolation, grid sampling, im2col, pixel shuffle, embedding_bag */
bool eval_op_conv_transpose1d(EvalCall *c);
bool eval_op_conv_transpose2d(EvalCall *c);
bool eval_op_conv_transpose3d(EvalCall *c);
bool eval_op_im2col(EvalCall *c);
bool eval_op_col2im(EvalCall *c);
bool eval_op_pixel_shuffle(EvalCall *c);
bool eval_op_pixel_unshuffle(EvalCall *c);
bool eval_op_upsample_nearest1d(EvalCall *c);
bool eval_op_upsample_nearest2d(EvalCall *c);
bool eval_op_upsample_nearest3d(EvalCall *c);
bool eval_op_upsample_nearest_exact1d(EvalCall *c);
bool eval_op_upsample_nearest_exact2d(EvalCall *c);
bool eval_op_upsample_nearest_exact3d(EvalCall *c);
bool eval_op_upsample_linear1d(EvalCall *c);
bool eval_op_upsample_bilinear2d(EvalCall *c);
bool eval_op_upsample_bicubic2d(EvalCall *c);
bool eval_op_upsample_trilinear3d(EvalCall *c);
bool eval_op_grid_sampler(EvalCall *c);
bool eval_op_embedding_bag(EvalCall *c);
bool eval_op_upsample_bilinear2d_aa(EvalCall *c);
bool eval_op_upsample_bicubic2d_aa(EvalCall *c);
/* (end of family resample) */

/* family loss: losses and distances */
bool eval_op_broadcast_tensors(EvalCall *c);
bool eval_op_infer_size(EvalCall *c);
bool eval_op_l1_loss(EvalCall *c);
bool eval_op_mse_loss(EvalCall *c);
bool eval_op_smooth_l1_loss(EvalCall *c);
bool eval_op_huber_loss(EvalCall *c);
bool eval_op_kl_div(EvalCall *c);
bool eval_op_binary_cross_entropy(EvalCall *c);
bool eval_op_binary_cross_entropy_with_logits(EvalCall *c);
bool eval_op_nll_loss_nd(EvalCall *c);
bool eval_op_nll_loss(EvalCall *c);
bool eval_op_nll_loss2d(EvalCall *c);
bool eval_op_cross_entropy_loss(EvalCall *c);
bool eval_op_margin_ranking_loss(EvalCall *c);
bool eval_op_hinge_embedding_loss(EvalCall *c);
bool eval_op_soft_margin_loss(EvalCall *c);
bool eval_op_multi_margin_loss(EvalCall *c);
bool eval_op_multilabel_margin_loss(EvalCall *c);
bool eval_op_log_sigmoid(EvalCall *c);
bool eval_op_cosine_embedding_loss(EvalCall *c);
bool eval_op_triplet_margin_loss(EvalCall *c);
bool eval_op_poisson_nll_loss(EvalCall *c);
bool eval_op_ctc_loss(EvalCall *c);
bool eval_op_cosine_similarity(EvalCall *c);
bool eval_op_pairwise_distance(EvalCall *c);
bool eval_op_pdist(EvalCall *c);
bool eval_op_cdist(EvalCall *c);
bool eval_op_dist(EvalCall *c);
bool eval_op_one_hot(EvalCall *c);
bool eval_op_bilinear(EvalCall *c);
/* (end of family loss) */

/* family linalg_extra: more linear algebra: SVD, LU, least squares, norms, products */
bool eval_op_mT(EvalCall *c);
bool eval_op_mH(EvalCall *c);
bool eval_op_matrix_H(EvalCall *c);
bool eval_op_trace(EvalCall *c);
bool eval_op_mv(EvalCall *c);
bool eval_op_addmv(EvalCall *c);
bool eval_op_addr(EvalCall *c);
bool eval_op_baddbmm(EvalCall *c);
bool eval_op_addbmm(EvalCall *c);
bool eval_op_inner(EvalCall *c);
bool eval_op_vdot(EvalCall *c);
bool eval_op_linalg_vecdot(EvalCall *c);
bool eval_op_kron(EvalCall *c);
bool eval_op_tensordot(EvalCall *c);
bool eval_op_cross(EvalCall *c);
bool eval_op_linalg_cross(EvalCall *c);
bool eval_op_block_diag(EvalCall *c);
bool eval_op_linalg_multi_dot(EvalCall *c);
bool eval_op_chain_matmul(EvalCall *c);
bool eval_op_linalg_matrix_power(EvalCall *c);
bool eval_op_linalg_vander(EvalCall *c);
bool eval_op_linalg_vector_norm(EvalCall *c);
bool eval_op_linalg_matrix_norm(EvalCall *c);
bool eval_op_linalg_norm(EvalCall *c);
bool eval_op_frobenius_norm(EvalCall *c);
bool eval_op_nuclear_norm(EvalCall *c);
bool eval_op_renorm(EvalCall *c);
bool eval_op_cov(EvalCall *c);
bool eval_op_corrcoef(EvalCall *c);
bool eval_op_linalg_svd(EvalCall *c);
bool eval_op_svd(EvalCall *c);
bool eval_op_linalg_svdvals(EvalCall *c);
bool eval_op_linalg_pinv(EvalCall *c);
bool eval_op_pinverse(EvalCall *c);
bool eval_op_linalg_matrix_rank(EvalCall *c);
bool eval_op_linalg_eigvalsh(EvalCall *c);
bool eval_op_symeig(EvalCall *c);
bool eval_op_linalg_cond(EvalCall *c);
bool eval_op_linalg_lstsq(EvalCall *c);
bool eval_op_linalg_lu_factor_ex(EvalCall *c);
bool eval_op_linalg_lu_factor(EvalCall *c);
bool eval_op__lu_with_info(EvalCall *c);
bool eval_op_linalg_lu(EvalCall *c);
bool eval_op_lu_unpack(EvalCall *c);
bool eval_op_linalg_lu_solve(EvalCall *c);
bool eval_op_lu_solve(EvalCall *c);
bool eval_op_linalg_inv_ex(EvalCall *c);
bool eval_op_linalg_solve_ex(EvalCall *c);
bool eval_op_linalg_solve_triangular(EvalCall *c);
bool eval_op_triangular_solve(EvalCall *c);
bool eval_op_geqrf(EvalCall *c);
bool eval_op_linalg_householder_product(EvalCall *c);
bool eval_op_ormqr(EvalCall *c);
bool eval_op_qr(EvalCall *c);
bool eval_op_linalg_ldl_factor_ex(EvalCall *c);
bool eval_op_linalg_ldl_factor(EvalCall *c);
bool eval_op_linalg_ldl_solve(EvalCall *c);
bool eval_op_linalg_cholesky_ex(EvalCall *c);
bool eval_op_cholesky(EvalCall *c);
bool eval_op_cholesky_inverse(EvalCall *c);
bool eval_op_linalg_matrix_exp(EvalCall *c);
bool eval_op_linalg_tensorinv(EvalCall *c);
bool eval_op_linalg_tensorsolve(EvalCall *c);
/* (end of family linalg_extra) */

/* family stats: order statistics, scans, histograms, sorting */
bool eval_op_msort(EvalCall *c);
bool eval_op_kthvalue(EvalCall *c);
bool eval_op_median(EvalCall *c);
bool eval_op_nanmedian(EvalCall *c);
bool eval_op_mode(EvalCall *c);
bool eval_op_logspace(EvalCall *c);
bool eval_op_cummax(EvalCall *c);
bool eval_op_cummin(EvalCall *c);
bool eval_op_logcumsumexp(EvalCall *c);
bool eval_op_nansum(EvalCall *c);
bool eval_op_nanmean(EvalCall *c);
bool eval_op_count_nonzero(EvalCall *c);
bool eval_op_aminmax(EvalCall *c);
bool eval_op_var_mean(EvalCall *c);
bool eval_op_std_mean(EvalCall *c);
bool eval_op_quantile(EvalCall *c);
bool eval_op_nanquantile(EvalCall *c);
bool eval_op_diff(EvalCall *c);
bool eval_op_trapezoid(EvalCall *c);
bool eval_op_trapz(EvalCall *c);
bool eval_op_cumulative_trapezoid(EvalCall *c);
bool eval_op_bucketize(EvalCall *c);
bool eval_op_isin(EvalCall *c);
bool eval_op_histc(EvalCall *c);
bool eval_op_histogram(EvalCall *c);
bool eval_op_histogramdd(EvalCall *c);
bool eval_op_gradient(EvalCall *c);
bool eval_op_segment_reduce(EvalCall *c);
bool eval_op_unique2(EvalCall *c);
bool eval_op_unique_dim(EvalCall *c);
/* (end of family stats) */

/* family shape_index: shape ops, scatter/index families, index creation */
bool eval_op_scatter_reduce(EvalCall *c); bool eval_op_index_reduce(EvalCall *c); bool eval_op_index_copy(EvalCall *c); bool eval_op_index_fill(EvalCall *c);
bool eval_op_masked_scatter(EvalCall *c); bool eval_op_put(EvalCall *c); bool eval_op_take(EvalCall *c); bool eval_op_take_along_dim(EvalCall *c);
bool eval_op_repeat_interleave(EvalCall *c); bool eval_op_tril_indices(EvalCall *c); bool eval_op_triu_indices(EvalCall *c); bool eval_op_combinations(EvalCall *c);
bool eval_op_cartesian_prod(EvalCall *c); bool eval_op_argwhere(EvalCall *c); bool eval_op_tensor_split(EvalCall *c); bool eval_op_hsplit(EvalCall *c);
bool eval_op_vsplit(EvalCall *c); bool eval_op_dsplit(EvalCall *c); bool eval_op_unfold(EvalCall *c); bool eval_op_as_strided(EvalCall *c);
bool eval_op_broadcast_to(EvalCall *c); bool eval_op_ravel(EvalCall *c); bool eval_op_atleast_1d(EvalCall *c); bool eval_op_atleast_2d(EvalCall *c);
bool eval_op_atleast_3d(EvalCall *c); bool eval_op_as_strided_scatter(EvalCall *c); bool eval_op_select_scatter(EvalCall *c); bool eval_op_slice_scatter(EvalCall *c);
bool eval_op_diagonal_scatter(EvalCall *c); bool eval_op_hstack(EvalCall *c); bool eval_op_vstack(EvalCall *c); bool eval_op_dstack(EvalCall *c);
bool eval_op_column_stack(EvalCall *c); bool eval_op_tile(EvalCall *c); bool eval_op_rot90(EvalCall *c); bool eval_op_fliplr(EvalCall *c);
bool eval_op_flipud(EvalCall *c); bool eval_op_fft_fftshift(EvalCall *c); bool eval_op_fft_ifftshift(EvalCall *c); bool eval_op_narrow_copy(EvalCall *c);
bool eval_op_sum_to_size(EvalCall *c); bool eval_op_diagflat(EvalCall *c); bool eval_op_resize_(EvalCall *c); bool eval_op_resize_as_(EvalCall *c);
/* (end of family shape_index) */

/* family fft: real-output Fourier transforms */
bool eval_op_fft_irfft(EvalCall *c); bool eval_op_fft_irfft2(EvalCall *c); bool eval_op_fft_irfftn(EvalCall *c);
bool eval_op_fft_hfft(EvalCall *c); bool eval_op_fft_hfft2(EvalCall *c); bool eval_op_fft_hfftn(EvalCall *c);
bool eval_op_stft(EvalCall *c); bool eval_op_istft(EvalCall *c);
/* (end of family fft) */

#endif
