/* test_reduce.c — reductions (tensor/reduce.c) against PyTorch.
 * Expected values: tensor/data/kernels_reduce.txt, written by
 * gen_kernels_expected.py (gen_reduce); each call here mirrors one there. */
#include <math.h>
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

static Tensor *x, *xi, *xb, *xu, *xd, *xn, *xinf, *e, *s, *xt, *xs;

static void test_sum_mean_prod(void)
{
    fx_check("sum.all", tensor_sum(x, NO_DIMS, false, -1));
    fx_check("sum.neg_keep", tensor_sum(x, DIMS(-1, 0), true, -1));
    fx_check("sum.dim1", tensor_sum(x, DIMS(1), false, -1));
    fx_check("sum.t_dim0", tensor_sum(xt, DIMS(0), false, -1));
    fx_check("sum.s_last", tensor_sum(xs, DIMS(-1), false, -1));
    fx_check("sum.int_all", tensor_sum(xi, NO_DIMS, false, -1));
    fx_check("sum.int_dim1", tensor_sum(xi, DIMS(1), false, -1));
    fx_check("sum.bool_all", tensor_sum(xb, NO_DIMS, false, -1));
    fx_check("sum.bool_dim0", tensor_sum(xb, DIMS(0), false, -1));
    fx_check("sum.empty_dim0", tensor_sum(e, DIMS(0), false, -1));
    fx_check("sum.empty_all", tensor_sum(e, NO_DIMS, false, -1));
    fx_check("sum.f64_dtype", tensor_sum(x, DIMS(1), false, DT_F64));
    fx_check("sum.int_to_f32", tensor_sum(xi, DIMS(2), false, DT_F32));
    fx_check("sum.float_to_int", tensor_sum(x, DIMS(2), false, DT_I64));
    fx_check("sum.scalar", tensor_sum(s, DIMS(0), false, -1));
    fx_check("sum.scalar_neg", tensor_sum(s, DIMS(-1), true, -1));
    fx_check_error("sum.err_dup", tensor_sum(x, DIMS(0, 0), false, -1));
    fx_check_error("sum.err_dup_neg", tensor_sum(x, DIMS(0, -3), false, -1));
    fx_check_error("sum.err_range", tensor_sum(x, DIMS(3), false, -1));
    fx_check_error("sum.err_scalar_range", tensor_sum(s, DIMS(1), false, -1));

    fx_check("mean.keep12", tensor_mean(x, DIMS(1, 2), true, -1));
    fx_check("mean.t_last", tensor_mean(xt, DIMS(-1), false, -1));
    fx_check("mean.all", tensor_mean(x, NO_DIMS, false, -1));
    fx_check("mean.empty_all", tensor_mean(e, NO_DIMS, false, -1));
    fx_check("mean.empty_dim0", tensor_mean(e, DIMS(0), false, -1));
    fx_check("mean.int_dtype", tensor_mean(xi, DIMS(0), false, DT_F64));
    fx_check("mean.f64", tensor_mean(xd, DIMS(1), false, -1));
    fx_check_error("mean.err_int", tensor_mean(xi, NO_DIMS, false, -1));
    fx_check_error("mean.err_int_dtype", tensor_mean(x, NO_DIMS, false, DT_I64));

    Tensor *xi_row = fx_keep(tensor_slice(fx_keep(tensor_select(xi, 0, 0)), 0, 0, 2, 1));
    fx_check("prod.dim1", tensor_prod(x, DIMS(1), false, -1));
    fx_check("prod.int_all", tensor_prod(xi_row, NO_DIMS, false, -1));
    fx_check("prod.int_dim2", tensor_prod(xi, DIMS(2), false, -1));
    fx_check("prod.empty_all", tensor_prod(e, NO_DIMS, false, -1));
    fx_check("prod.bool_all", tensor_prod(xb, NO_DIMS, false, -1));
    fx_check("prod.f64_dtype", tensor_prod(x, DIMS(2), false, DT_F64));
}

static void test_extremes(void)
{
    fx_check("amax.keep02", tensor_amax(x, DIMS(0, 2), true));
    fx_check("amax.nan", tensor_amax(xn, DIMS(1), false));
    fx_check("amax.t_all", tensor_amax(xt, NO_DIMS, false));
    fx_check("amax.int", tensor_amax(xi, DIMS(1), false));
    fx_check("amax.bool", tensor_amax(xb, NO_DIMS, false));
    fx_check("amax.empty_dim1", tensor_amax(e, DIMS(1), false));
    fx_check("amin.dim0", tensor_amin(x, DIMS(0), false));
    fx_check("amin.nan", tensor_amin(xn, DIMS(1), false));
    fx_check("amin.int_all", tensor_amin(xi, NO_DIMS, false));
    fx_check_error("amax.err_empty", tensor_amax(e, DIMS(0), false));
    fx_check_error("amax.err_empty_all", tensor_amax(e, NO_DIMS, false));
    fx_check_error("amin.err_dup", tensor_amin(x, DIMS(1, -2), false));

    fx_check("max_all.x", tensor_max_all(x));
    fx_check("max_all.nan", tensor_max_all(xn));
    fx_check("max_all.int", tensor_max_all(xi));
    fx_check("max_all.bool", tensor_max_all(xb));
    fx_check("min_all.x", tensor_min_all(x));
    fx_check("min_all.nan", tensor_min_all(xn));
    fx_check_error("max_all.err_empty", tensor_max_all(e));
    fx_check_error("min_all.err_empty", tensor_min_all(e));

    Tensor *v, *i;
    bool ok;
    ok = tensor_max_dim(x, 1, false, &v, &i);
    fx_check_pair("max_dim.d1", ok, v, i);
    ok = tensor_max_dim(x, 1, true, &v, &i);
    fx_check_pair("max_dim.d1_keep", ok, v, i);
    ok = tensor_max_dim(xn, 1, false, &v, &i);
    fx_check_pair("max_dim.nan_ties", ok, v, i);
    ok = tensor_max_dim(xi, -1, false, &v, &i);
    fx_check_pair("max_dim.int_last", ok, v, i);
    ok = tensor_max_dim(xt, 0, false, &v, &i);
    fx_check_pair("max_dim.t_d0", ok, v, i);
    ok = tensor_max_dim(s, 0, false, &v, &i);
    fx_check_pair("max_dim.scalar", ok, v, i);
    ok = tensor_max_dim(e, 1, false, &v, &i);
    fx_check_pair("max_dim.empty_other", ok, v, i);
    ok = tensor_min_dim(xn, 1, false, &v, &i);
    fx_check_pair("min_dim.nan_ties", ok, v, i);
    ok = tensor_min_dim(x, 0, true, &v, &i);
    fx_check_pair("min_dim.d0_keep", ok, v, i);
    ok = tensor_max_dim(e, 0, false, &v, &i);
    fx_check_error_bool("max_dim.err_empty", ok);
    fx_expect(!ok && v == NULL && i == NULL, "max_dim on error leaves NULL outputs");
    ok = tensor_max_dim(x, 3, false, &v, &i);
    fx_check_error_bool("max_dim.err_range", ok);

    Tensor *xn_row = fx_keep(tensor_select(xn, 0, 1));
    fx_check("argmax.all", tensor_argmax(x, false, 0, false));
    fx_check("argmax.d1_keep", tensor_argmax(x, true, 1, true));
    fx_check("argmax.nan", tensor_argmax(xn, true, 1, false));
    fx_check("argmax.nan_all", tensor_argmax(xn, false, 0, false));
    fx_check("argmax.int_d0", tensor_argmax(xi, true, 0, false));
    fx_check("argmax.all_keep", tensor_argmax(x, false, 0, true));
    fx_check("argmax.t_d2", tensor_argmax(xt, true, 2, false));
    fx_check("argmin.all", tensor_argmin(x, false, 0, false));
    fx_check("argmin.nan", tensor_argmin(xn, true, 1, false));
    fx_check("argmin.ties", tensor_argmin(xn_row, false, 0, false));
    fx_check_error("argmax.err_empty", tensor_argmax(e, false, 0, false));
    fx_check_error("argmax.err_bool", tensor_argmax(xb, false, 0, false));
    fx_check_error("argmin.err_empty_dim", tensor_argmin(e, true, 0, false));
}

static void test_along_dim(void)
{
    fx_check("softmax.last", tensor_softmax(x, -1, -1));
    fx_check("softmax.d0", tensor_softmax(x, 0, -1));
    fx_check("softmax.t_d1", tensor_softmax(xt, 1, -1));
    fx_check("softmax.f64", tensor_softmax(xd, 1, -1));
    fx_check("softmax.dtype", tensor_softmax(x, 1, DT_F64));
    fx_check("softmax.int_dtype", tensor_softmax(xi, 1, DT_F32));
    fx_check("softmax.inf", tensor_softmax(xinf, 1, -1));
    fx_check("softmax.empty", tensor_softmax(e, 0, -1));
    fx_check("softmax.scalar", tensor_softmax(s, 0, -1));
    fx_check("log_softmax.last", tensor_log_softmax(x, -1, -1));
    fx_check("log_softmax.t_d0", tensor_log_softmax(xt, 0, -1));
    fx_check("log_softmax.inf", tensor_log_softmax(xinf, 1, -1));
    fx_check_error("softmax.err_int", tensor_softmax(xi, 0, -1));
    fx_check_error("softmax.err_int_last", tensor_softmax(xi, -1, -1));
    fx_check_error("log_softmax.err_int", tensor_log_softmax(xi, 1, -1));

    fx_check("logsumexp.d1", tensor_logsumexp(x, DIMS(1), false));
    fx_check("logsumexp.keep02", tensor_logsumexp(x, DIMS(0, 2), true));
    fx_check("logsumexp.int", tensor_logsumexp(xi, DIMS(1), false));
    fx_check("logsumexp.inf", tensor_logsumexp(xinf, DIMS(1), false));
    fx_check("logsumexp.empty", tensor_logsumexp(e, DIMS(0), false));
    fx_check("logsumexp.t_last", tensor_logsumexp(xt, DIMS(-1), false));

    fx_check("cumsum.d1", tensor_cumsum(x, 1, -1));
    fx_check("cumsum.t_d0", tensor_cumsum(xt, 0, -1));
    fx_check("cumsum.int_last", tensor_cumsum(xi, -1, -1));
    fx_check("cumsum.bool", tensor_cumsum(xb, 0, -1));
    fx_check("cumsum.f64", tensor_cumsum(x, 2, DT_F64));
    fx_check("cumsum.int_to_f32", tensor_cumsum(xi, 0, DT_F32));
    fx_check("cumsum.scalar", tensor_cumsum(s, 0, -1));
    fx_check("cumsum.empty", tensor_cumsum(e, 0, -1));
    fx_check("cumprod.d2", tensor_cumprod(x, 2, -1));
    fx_check("cumprod.int_d1", tensor_cumprod(xi, 1, -1));
    fx_check_error("cumsum.err_range", tensor_cumsum(x, -4, -1));
}

static void test_logical_and_moments(void)
{
    fx_check("all.bool", tensor_all(xb, false, 0, false));
    fx_check("any.bool", tensor_any(xb, false, 0, false));
    fx_check("all.bool_d1", tensor_all(xb, true, 1, false));
    fx_check("any.bool_d0_keep", tensor_any(xb, true, 0, true));
    fx_check("all.float", tensor_all(x, false, 0, false));
    fx_check("any.nan_d1", tensor_any(xn, true, 1, false));
    fx_check("all.int_d2", tensor_all(xi, true, 2, false));
    fx_check("all.u8", tensor_all(xu, false, 0, false));
    fx_check("any.u8_d1", tensor_any(xu, true, 1, false));
    fx_check("all.empty", tensor_all(e, false, 0, false));
    fx_check("any.empty", tensor_any(e, false, 0, false));
    fx_check("all.empty_d1", tensor_all(e, true, 1, false));

    fx_check("norm.p2", tensor_norm(x, 2, NO_DIMS, false));
    fx_check("norm.p1_d1", tensor_norm(x, 1, DIMS(1), false));
    fx_check("norm.inf_last", tensor_norm(x, INFINITY, DIMS(-1), false));
    fx_check("norm.ninf", tensor_norm(x, -INFINITY, NO_DIMS, false));
    fx_check("norm.p0", tensor_norm(x, 0, NO_DIMS, false));
    fx_check("norm.p3_keep", tensor_norm(x, 3, DIMS(0, 2), true));
    fx_check("norm.p05", tensor_norm(x, 0.5, NO_DIMS, false));
    fx_check("norm.t_d0", tensor_norm(xt, 2, DIMS(0), false));
    fx_check("norm.empty", tensor_norm(e, 2, NO_DIMS, false));
    fx_check("norm.f64", tensor_norm(xd, 2, DIMS(1), false));
    fx_check_error("norm.err_int", tensor_norm(xi, 2, NO_DIMS, false));
    fx_check_error("norm.err_dup", tensor_norm(x, 2, DIMS(0, 0), false));

    Tensor *s1 = fx_keep(tensor_view(s, 1, I64S(1)));
    Tensor *x3 = fx_keep(tensor_slice(fx_keep(tensor_select(fx_keep(tensor_select(x, 0, 0)), 0, 0)), 0, 0, 3, 1));
    fx_check("var.all", tensor_var(x, NO_DIMS, 1, false));
    fx_check("var.d1_pop", tensor_var(x, DIMS(1), 0, false));
    fx_check("var.keep02", tensor_var(x, DIMS(0, 2), 1, true));
    fx_check("var.t_d1", tensor_var(xt, DIMS(1), 1, false));
    fx_check("var.one", tensor_var(s1, NO_DIMS, 1, false));
    fx_check("var.corr2", tensor_var(x3, DIMS(0), 2, false));
    fx_check("var.corr5", tensor_var(x3, DIMS(0), 5, false));
    fx_check("var.empty", tensor_var(e, NO_DIMS, 1, false));
    fx_check("std.all", tensor_std(x, NO_DIMS, 1, false));
    fx_check("std.d2_pop", tensor_std(x, DIMS(2), 0, false));
    fx_check("std.f64", tensor_std(xd, DIMS(0), 1, false));
    fx_check_error("var.err_int", tensor_var(xi, NO_DIMS, 1, false));
    fx_check_error("std.err_int", tensor_std(xi, NO_DIMS, 1, false));
}

/* Hand-derived: int64 sums and products wrap like PyTorch's int64 arithmetic. */
static void test_int_wrap(void)
{
    Tensor *big = fx_keep(tensor_full(DT_I64, 1, I64S(2), 0));
    tensor_set_flat_int(big, 0, INT64_MAX);
    tensor_set_flat_int(big, 1, 1);
    fx_check_values("sum wraps at INT64_MAX", tensor_sum(big, NO_DIMS, false, -1), DT_I64, 0, NULL,
                    (const double[]){(double)INT64_MIN});
    Tensor *r = tensor_sum(big, NO_DIMS, false, -1);
    fx_expect(r && tensor_item_int(r) == INT64_MIN, "sum of {INT64_MAX, 1} is INT64_MIN exactly");
    tensor_release(r);
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_reduce.txt"))
        return 1;
    x = fx_in("x.in");
    xi = fx_in("xi.in");
    xb = fx_in("xb.in");
    xu = fx_in("xu.in");
    xd = fx_in("xd.in");
    xn = fx_in("xn.in");
    xinf = fx_in("xinf.in");
    e = fx_in("e.in");
    s = fx_in("s.in");
    xt = fx_keep(tensor_transpose(x, 0, 2));
    xs = fx_keep(tensor_slice(fx_keep(tensor_slice(x, 1, 0, INT64_MAX, 2)), 2, 1, INT64_MAX, 1));
    test_sum_mean_prod();
    test_extremes();
    test_along_dim();
    test_logical_and_moments();
    test_int_wrap();
    return fx_finish();
}
