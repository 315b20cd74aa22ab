/* ref_ops.h — the op bindings of the reference interpreter, one group per
 * file. Each takes a RefCall (ref.h) and returns false after recording what
 * went wrong. dispatch.c maps OpIds to them; the ref_* helpers at the end
 * of the scalar group serve several families (the same op name is a tensor
 * op or a Python builtin depending on its arguments).
 */
#ifndef TSSA_REF_OPS_H
#define TSSA_REF_OPS_H

#include "backends/ref/ref.h"

/* module.c */
bool ref_op_getattr(RefCall *c);

/* ops_convert.c */
bool ref_op_to(RefCall *c); bool ref_op_type_as(RefCall *c); bool ref_op_cast_float(RefCall *c);
bool ref_op_cast_double(RefCall *c); bool ref_op_cast_long(RefCall *c);
bool ref_op_cast_int(RefCall *c); bool ref_op_cast_bool(RefCall *c);

/* ops_creation.c */
bool ref_op_zeros(RefCall *c); bool ref_op_ones(RefCall *c); bool ref_op_empty(RefCall *c);
bool ref_op_full(RefCall *c); bool ref_op_zeros_like(RefCall *c);
bool ref_op_ones_like(RefCall *c); bool ref_op_empty_like(RefCall *c);
bool ref_op_full_like(RefCall *c); bool ref_op_new_zeros(RefCall *c);
bool ref_op_new_ones(RefCall *c); bool ref_op_new_empty(RefCall *c);
bool ref_op_new_full(RefCall *c); bool ref_op_arange(RefCall *c); bool ref_op_linspace(RefCall *c);
bool ref_op_eye(RefCall *c); bool ref_op_tensor(RefCall *c); bool ref_op_as_tensor(RefCall *c);
bool ref_op_scalar_tensor(RefCall *c); bool ref_op_meshgrid(RefCall *c);

/* ops_elementwise.c */
bool ref_op_invert(RefCall *c); bool ref_op_log(RefCall *c); bool ref_op_log_(RefCall *c);
bool ref_op_round(RefCall *c); bool ref_op_round_(RefCall *c); bool ref_op_leaky_relu(RefCall *c);
bool ref_op_leaky_relu_(RefCall *c); bool ref_op_elu(RefCall *c); bool ref_op_elu_(RefCall *c);
bool ref_op_softplus(RefCall *c); bool ref_op_hardtanh(RefCall *c);
bool ref_op_hardtanh_(RefCall *c); bool ref_op_gelu(RefCall *c); bool ref_op_gelu_(RefCall *c);
bool ref_op_iand(RefCall *c); bool ref_op_ior(RefCall *c); bool ref_op_add(RefCall *c);
bool ref_op_add_(RefCall *c); bool ref_op_sub(RefCall *c); bool ref_op_sub_(RefCall *c);
bool ref_op_rsub(RefCall *c); bool ref_op_div(RefCall *c); bool ref_op_div_(RefCall *c);
bool ref_op_where(RefCall *c); bool ref_op_clamp(RefCall *c); bool ref_op_clamp_(RefCall *c);
bool ref_op_clamp_min(RefCall *c); bool ref_op_clamp_min_(RefCall *c);
bool ref_op_clamp_max(RefCall *c); bool ref_op_clamp_max_(RefCall *c);
bool ref_op_lerp(RefCall *c); bool ref_op_neg(RefCall *c); bool ref_op_neg_(RefCall *c);
bool ref_op_abs(RefCall *c); bool ref_op_abs_(RefCall *c); bool ref_op_exp(RefCall *c);
bool ref_op_exp_(RefCall *c); bool ref_op_log2(RefCall *c); bool ref_op_log2_(RefCall *c);
bool ref_op_log1p(RefCall *c); bool ref_op_log1p_(RefCall *c); bool ref_op_expm1(RefCall *c);
bool ref_op_expm1_(RefCall *c); bool ref_op_sqrt(RefCall *c); bool ref_op_sqrt_(RefCall *c);
bool ref_op_rsqrt(RefCall *c); bool ref_op_rsqrt_(RefCall *c); bool ref_op_sin(RefCall *c);
bool ref_op_sin_(RefCall *c); bool ref_op_cos(RefCall *c); bool ref_op_cos_(RefCall *c);
bool ref_op_tan(RefCall *c); bool ref_op_tan_(RefCall *c); bool ref_op_tanh(RefCall *c);
bool ref_op_tanh_(RefCall *c); bool ref_op_erf(RefCall *c); bool ref_op_erf_(RefCall *c);
bool ref_op_sigmoid(RefCall *c); bool ref_op_sigmoid_(RefCall *c); bool ref_op_relu(RefCall *c);
bool ref_op_relu_(RefCall *c); bool ref_op_relu6(RefCall *c); bool ref_op_relu6_(RefCall *c);
bool ref_op_silu(RefCall *c); bool ref_op_silu_(RefCall *c); bool ref_op_hardsigmoid(RefCall *c);
bool ref_op_hardsigmoid_(RefCall *c); bool ref_op_hardswish(RefCall *c);
bool ref_op_hardswish_(RefCall *c); bool ref_op_floor(RefCall *c); bool ref_op_floor_(RefCall *c);
bool ref_op_ceil(RefCall *c); bool ref_op_ceil_(RefCall *c); bool ref_op_trunc(RefCall *c);
bool ref_op_trunc_(RefCall *c); bool ref_op_sign(RefCall *c); bool ref_op_sign_(RefCall *c);
bool ref_op_reciprocal(RefCall *c); bool ref_op_reciprocal_(RefCall *c);
bool ref_op_logical_not(RefCall *c); bool ref_op_logical_not_(RefCall *c);
bool ref_op_bitwise_not(RefCall *c); bool ref_op_bitwise_not_(RefCall *c);
bool ref_op_mul(RefCall *c); bool ref_op_mul_(RefCall *c); bool ref_op_floor_divide(RefCall *c);
bool ref_op_floor_divide_(RefCall *c); bool ref_op_remainder(RefCall *c);
bool ref_op_remainder_(RefCall *c); bool ref_op_fmod(RefCall *c); bool ref_op_fmod_(RefCall *c);
bool ref_op_pow(RefCall *c); bool ref_op_pow_(RefCall *c); bool ref_op_maximum(RefCall *c);
bool ref_op_minimum(RefCall *c); bool ref_op_atan2(RefCall *c); bool ref_op_eq(RefCall *c);
bool ref_op_eq_(RefCall *c); bool ref_op_ne(RefCall *c); bool ref_op_ne_(RefCall *c);
bool ref_op_lt(RefCall *c); bool ref_op_lt_(RefCall *c); bool ref_op_le(RefCall *c);
bool ref_op_le_(RefCall *c); bool ref_op_gt(RefCall *c); bool ref_op_gt_(RefCall *c);
bool ref_op_ge(RefCall *c); bool ref_op_ge_(RefCall *c); bool ref_op_logical_and(RefCall *c);
bool ref_op_logical_and_(RefCall *c); bool ref_op_logical_or(RefCall *c);
bool ref_op_logical_or_(RefCall *c); bool ref_op_logical_xor(RefCall *c);
bool ref_op_logical_xor_(RefCall *c); bool ref_op_bitwise_and(RefCall *c);
bool ref_op_bitwise_and_(RefCall *c); bool ref_op_bitwise_or(RefCall *c);
bool ref_op_bitwise_or_(RefCall *c); bool ref_op_bitwise_xor(RefCall *c);
bool ref_op_bitwise_xor_(RefCall *c); bool ref_op_and(RefCall *c); bool ref_op_or(RefCall *c);
bool ref_op_xor(RefCall *c);

/* ops_index.c */
bool ref_op_index(RefCall *c); bool ref_op_index_put(RefCall *c);
bool ref_op_index_put_(RefCall *c); bool ref_op_index_select(RefCall *c);
bool ref_op_masked_select(RefCall *c); bool ref_op_gather(RefCall *c);
bool ref_op_masked_fill(RefCall *c); bool ref_op_masked_fill_(RefCall *c);
bool ref_op_scatter(RefCall *c); bool ref_op_scatter_(RefCall *c); bool ref_op_copy_(RefCall *c);
bool ref_op_clone(RefCall *c); bool ref_op_fill_(RefCall *c); bool ref_op_zero_(RefCall *c);

/* ops_nn.c */
bool ref_op_mm(RefCall *c); bool ref_op_bmm(RefCall *c); bool ref_op_matmul(RefCall *c);
bool ref_op_dot(RefCall *c); bool ref_op_outer(RefCall *c); bool ref_op_addmm(RefCall *c);
bool ref_op_linear(RefCall *c); bool ref_op_conv2d(RefCall *c); bool ref_op_conv1d(RefCall *c);
bool ref_op_convolution(RefCall *c); bool ref_op_batch_norm(RefCall *c);
bool ref_op_layer_norm(RefCall *c); bool ref_op_group_norm(RefCall *c);
bool ref_op_max_pool2d(RefCall *c); bool ref_op_avg_pool2d(RefCall *c);
bool ref_op_adaptive_avg_pool2d(RefCall *c); bool ref_op_embedding(RefCall *c);
bool ref_op_dropout(RefCall *c); bool ref_op_cat(RefCall *c); bool ref_op_stack(RefCall *c);
bool ref_op_repeat(RefCall *c); bool ref_op_flip(RefCall *c); bool ref_op_roll(RefCall *c);
bool ref_op_tril(RefCall *c); bool ref_op_triu(RefCall *c);
bool ref_op_constant_pad_nd(RefCall *c); bool ref_op_pad(RefCall *c);
bool ref_op_lstm_cell(RefCall *c); bool ref_op_gru_cell(RefCall *c);
bool ref_op_rnn_tanh_cell(RefCall *c);

/* ops_reduce.c */
bool ref_op_sum(RefCall *c); bool ref_op_mean(RefCall *c); bool ref_op_prod(RefCall *c);
bool ref_op_max(RefCall *c); bool ref_op_min(RefCall *c); bool ref_op_argmax(RefCall *c);
bool ref_op_argmin(RefCall *c); bool ref_op_amax(RefCall *c); bool ref_op_amin(RefCall *c);
bool ref_op_softmax(RefCall *c); bool ref_op_log_softmax(RefCall *c);
bool ref_op_cumsum(RefCall *c); bool ref_op_cumprod(RefCall *c); bool ref_op_all(RefCall *c);
bool ref_op_any(RefCall *c); bool ref_op_topk(RefCall *c); bool ref_op_sort(RefCall *c);
bool ref_op_argsort(RefCall *c); bool ref_op_nonzero(RefCall *c); bool ref_op_norm(RefCall *c);
bool ref_op_var(RefCall *c); bool ref_op_std(RefCall *c); bool ref_op_logsumexp(RefCall *c);

/* ops_view.c */
bool ref_op_select(RefCall *c); bool ref_op_slice(RefCall *c); bool ref_op_narrow(RefCall *c);
bool ref_op_view(RefCall *c); bool ref_op_view_as(RefCall *c); bool ref_op_reshape(RefCall *c);
bool ref_op_reshape_as(RefCall *c); bool ref_op_squeeze(RefCall *c);
bool ref_op_unsqueeze(RefCall *c); bool ref_op_expand(RefCall *c);
bool ref_op_expand_as(RefCall *c); bool ref_op_permute(RefCall *c);
bool ref_op_transpose(RefCall *c); bool ref_op_t(RefCall *c); bool ref_op_numpy_t(RefCall *c);
bool ref_op_movedim(RefCall *c); bool ref_op_contiguous(RefCall *c);
bool ref_op_flatten(RefCall *c); bool ref_op_unflatten(RefCall *c);
bool ref_op_diagonal(RefCall *c); bool ref_op_alias(RefCall *c); bool ref_op_chunk(RefCall *c);
bool ref_op_split(RefCall *c); bool ref_op_split_with_sizes(RefCall *c);
bool ref_op_unbind(RefCall *c);

/* scalar_ops.c */
bool ref_scalar_op(RefCall *c); bool ref_op_floordiv(RefCall *c);
bool ref_op_list_construct(RefCall *c); bool ref_op_tuple_construct(RefCall *c);
bool ref_op_list_unpack(RefCall *c); bool ref_op_tuple_unpack(RefCall *c);
bool ref_op_tuple_index(RefCall *c); bool ref_op_getitem(RefCall *c);
bool ref_sequence_slice(RefCall *c); bool ref_op_len(RefCall *c); bool ref_op_append(RefCall *c);
bool ref_op_set_item(RefCall *c); bool ref_op_extend(RefCall *c); bool ref_op_insert(RefCall *c);
bool ref_op_pop(RefCall *c); bool ref_op_list(RefCall *c); bool ref_op_contains(RefCall *c);
bool ref_list_index_of(RefCall *c);
bool ref_list_reduce(RefCall *c); bool ref_op_prim_min(RefCall *c);
bool ref_op_prim_max(RefCall *c); bool ref_op_prim_abs(RefCall *c); bool ref_op_is(RefCall *c);
bool ref_op_isnot(RefCall *c); bool ref_op_not(RefCall *c); bool ref_op_int(RefCall *c);
bool ref_op_float_scalar(RefCall *c); bool ref_op_bool_scalar(RefCall *c);
bool ref_op_scalar_implicit(RefCall *c); bool ref_op_int_implicit(RefCall *c);
bool ref_op_float_implicit(RefCall *c); bool ref_op_item(RefCall *c);
bool ref_op_num_to_tensor(RefCall *c); bool ref_op_size(RefCall *c); bool ref_op_shape(RefCall *c);
bool ref_op_dim(RefCall *c); bool ref_op_numel(RefCall *c); bool ref_op_dtype(RefCall *c);
bool ref_op_device(RefCall *c); bool ref_op_layout(RefCall *c);
bool ref_op_false_query(RefCall *c); bool ref_op_unchecked_cast(RefCall *c);
bool ref_op_data(RefCall *c); bool ref_op_uninitialized(RefCall *c); bool ref_op_str(RefCall *c);
bool ref_op_format(RefCall *c); bool ref_op_print(RefCall *c); bool ref_op_warn(RefCall *c);
bool ref_op_raise_exception(RefCall *c); bool ref_op_range_length(RefCall *c);
bool ref_op_derive_index(RefCall *c);

#endif
