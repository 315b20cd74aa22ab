/* test_nn.c — convolution, normalization, pooling and embedding
 * (tensor/nn.c) against PyTorch (tensor/data/kernels_nn.txt,
 * gen_nn in gen_kernels_expected.py). A NULL stride for a pool means
 * "stride = kernel", PyTorch's default. */
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

static const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0};

static Tensor *slice(Tensor *t, int64_t dim, int64_t start, int64_t end)
{
    return fx_keep(tensor_slice(t, dim, start, end, 1));
}

static Tensor *sel(Tensor *t, int64_t dim, int64_t index)
{
    return fx_keep(tensor_select(t, dim, index));
}

static Tensor *tr(Tensor *t, int64_t d0, int64_t d1)
{
    return fx_keep(tensor_transpose(t, d0, d1));
}

static void test_conv(void)
{
    Tensor *x = fx_in("x.in"), *w = fx_in("w.in"), *b = fx_in("b.in"), *wg = fx_in("wg.in"), *w1 = fx_in("w1.in");
    Tensor *xd = fx_in("xd.in"), *wd = fx_in("wd.in"), *xi = fx_in("xi.in"), *wi = fx_in("wi.in"), *bi = fx_in("bi.in");
    Tensor *w3 = fx_in("w3.in"), *x1 = fx_in("x1.in"), *k1 = fx_in("k1.in"), *k1g = fx_in("k1g.in");
    Tensor *b3 = fx_in("b3.in"), *xe = fx_in("xe.in");
    fx_check("conv2d.basic", tensor_conv2d(x, w, b, one2, zero2, one2, 1));
    fx_check("conv2d.stride_pad", tensor_conv2d(x, w, b, I64S(2, 2), one2, one2, 1));
    fx_check("conv2d.dilation", tensor_conv2d(x, w, NULL, one2, I64S(2, 2), I64S(2, 2), 1));
    fx_check("conv2d.groups", tensor_conv2d(x, wg, b, one2, zero2, one2, 2));
    fx_check("conv2d.unbatched", tensor_conv2d(sel(x, 0, 0), w, b, one2, one2, one2, 1));
    fx_check("conv2d.t_input", tensor_conv2d(tr(x, 2, 3), w, b, one2, zero2, one2, 1));
    fx_check("conv2d.asym", tensor_conv2d(x, w, b, I64S(2, 1), I64S(0, 1), one2, 1));
    fx_check("conv2d.f64", tensor_conv2d(xd, wd, NULL, one2, zero2, one2, 1));
    fx_check("conv2d.int", tensor_conv2d(xi, wi, bi, one2, zero2, one2, 1));
    fx_check("conv2d.1x1", tensor_conv2d(x, w1, NULL, one2, zero2, one2, 1));
    fx_check("conv2d.empty_batch", tensor_conv2d(xe, w, b, one2, zero2, one2, 1));
    fx_check_error("conv2d.err_channels", tensor_conv2d(x, w3, NULL, one2, zero2, one2, 1));
    fx_check_error("conv2d.err_kernel",
                   tensor_conv2d(slice(slice(x, 2, 0, 2), 3, 0, 2), w, NULL, one2, zero2, one2, 1));
    fx_check_error("conv2d.err_groups", tensor_conv2d(x, w3, NULL, one2, zero2, one2, 2));
    fx_check_error("conv2d.err_2d", tensor_conv2d(sel(sel(x, 0, 0), 0, 0), w, NULL, one2, zero2, one2, 1));
    fx_check_error("conv2d.err_bias", tensor_conv2d(x, w, b3, one2, zero2, one2, 1));
    fx_check_error("conv2d.err_bias_dtype",
                   tensor_conv2d(x, w, fx_keep(tensor_to_dtype(b, DT_F64)), one2, zero2, one2, 1));
    fx_check_error("conv2d.err_stride", tensor_conv2d(x, w, b, zero2, zero2, one2, 1));
    fx_check_error("conv2d.err_pad", tensor_conv2d(x, w, b, one2, I64S(-1, -1), one2, 1));
    fx_check_error("conv2d.err_dilation", tensor_conv2d(x, w, b, one2, zero2, zero2, 1));
    fx_check_error("conv2d.err_groups0", tensor_conv2d(x, w, b, one2, zero2, one2, 0));
    fx_check_error("conv2d.err_dtype", tensor_conv2d(x, wd, NULL, one2, zero2, one2, 1));

    fx_check("conv1d.basic", tensor_conv1d(x1, k1, b3, 1, 0, 1, 1));
    fx_check("conv1d.params", tensor_conv1d(x1, k1, b3, 2, 1, 2, 1));
    fx_check("conv1d.groups", tensor_conv1d(x1, k1g, NULL, 1, 0, 1, 2));
    fx_check("conv1d.unbatched", tensor_conv1d(sel(x1, 0, 1), k1, b3, 1, 0, 1, 1));
    fx_check_error("conv1d.err_channels", tensor_conv1d(x1, k1g, NULL, 1, 0, 1, 1));
    fx_check_error("conv1d.err_4d", tensor_conv1d(x, k1, NULL, 1, 0, 1, 1));
    fx_check_error("conv1d.err_kernel", tensor_conv1d(slice(x1, 2, 0, 2), k1, NULL, 1, 0, 1, 1));
}

static void test_norms(void)
{
    Tensor *x = fx_in("x.in");
    Tensor *xn = fx_in("xn.in"), *rm = fx_in("rm.in"), *rv = fx_in("rv.in"), *gw = fx_in("gw.in");
    Tensor *gb = fx_in("gb.in"), *r4 = fx_in("r4.in"), *xnd = fx_in("xnd.in"), *ones23i = fx_in("ones23i.in");
    Tensor *r4x2 = fx_in("r4x2.in");
    fx_check("batch_norm.full", tensor_batch_norm(xn, gw, gb, rm, rv, 1e-5));
    fx_check("batch_norm.noaffine", tensor_batch_norm(xn, NULL, NULL, rm, rv, 1e-3));
    fx_check("batch_norm.2d", tensor_batch_norm(sel(xn, 2, 0), gw, gb, rm, rv, 1e-5));
    fx_check("batch_norm.4d", tensor_batch_norm(slice(x, 1, 0, 3), gw, gb, rm, rv, 1e-5));
    fx_check("batch_norm.t", tensor_batch_norm(fx_keep(tensor_permute(xn, 3, I64S(2, 1, 0))), gw, gb, rm, rv, 1e-5));
    fx_check("batch_norm.f64", tensor_batch_norm(xnd, NULL, NULL, fx_keep(tensor_to_dtype(rm, DT_F64)),
                                                 fx_keep(tensor_to_dtype(rv, DT_F64)), 1e-5));
    fx_check_error("batch_norm.err_mean", tensor_batch_norm(xn, NULL, NULL, r4, rv, 1e-5));
    fx_check_error("batch_norm.err_weight", tensor_batch_norm(xn, r4, NULL, rm, rv, 1e-5));
    fx_check_error("batch_norm.err_int", tensor_batch_norm(ones23i, NULL, NULL, rm, rv, 1e-5));

    fx_check("layer_norm.last", tensor_layer_norm(xn, SHAPE(4), r4, r4x2, 1e-5));
    fx_check("layer_norm.two", tensor_layer_norm(xn, SHAPE(3, 4), NULL, NULL, 1e-5));
    fx_check("layer_norm.t", tensor_layer_norm(tr(xn, 0, 2), SHAPE(2), NULL, NULL, 1e-3));
    fx_check("layer_norm.f64", tensor_layer_norm(xnd, SHAPE(3), NULL, NULL, 1e-5));
    fx_check_error("layer_norm.err_shape", tensor_layer_norm(xn, SHAPE(3), NULL, NULL, 1e-5));
    fx_check_error("layer_norm.err_shape2", tensor_layer_norm(xn, SHAPE(2, 3, 4, 1), NULL, NULL, 1e-5));
    fx_check_error("layer_norm.err_weight", tensor_layer_norm(xn, SHAPE(4), rm, NULL, 1e-5));
    fx_check_error("layer_norm.err_empty", tensor_layer_norm(xn, 0, NULL, NULL, NULL, 1e-5));
    fx_check_error("layer_norm.err_int", tensor_layer_norm(ones23i, SHAPE(3), NULL, NULL, 1e-5));

    Tensor *xg = fx_in("xg.in"), *g6w = fx_in("g6w.in"), *g6b = fx_in("g6b.in"), *xgt = fx_in("xgt.in");
    fx_check("group_norm.affine", tensor_group_norm(xg, 3, g6w, g6b, 1e-5));
    fx_check("group_norm.per_channel", tensor_group_norm(xg, 6, NULL, NULL, 1e-3));
    fx_check("group_norm.4d", tensor_group_norm(x, 2, NULL, NULL, 1e-5));
    fx_check("group_norm.2d", tensor_group_norm(sel(xg, 2, 0), 2, g6w, g6b, 1e-5));
    fx_check("group_norm.t", tensor_group_norm(tr(xgt, 1, 2), 3, NULL, NULL, 1e-5));
    fx_check_error("group_norm.err_groups", tensor_group_norm(xg, 4, NULL, NULL, 1e-5));
    fx_check_error("group_norm.err_weight", tensor_group_norm(xg, 3, rm, NULL, 1e-5));
}

static void test_pools(void)
{
    Tensor *xp = fx_in("xp.in"), *xpn = fx_in("xpn.in"), *xpi = fx_in("xpi.in"), *xpd = fx_in("xpd.in");
    const int64_t k2[2] = {2, 2}, k3[2] = {3, 3}, s2[2] = {2, 2};
    Tensor *corner = slice(slice(xp, 2, 0, 2), 3, 0, 2);
    fx_check("max_pool2d.basic", tensor_max_pool2d(xp, k3, s2, one2, one2, false));
    fx_check("max_pool2d.default_stride", tensor_max_pool2d(xp, k2, NULL, zero2, one2, false));
    fx_check("max_pool2d.dilation", tensor_max_pool2d(xp, k2, one2, one2, I64S(2, 2), false));
    fx_check("max_pool2d.ceil", tensor_max_pool2d(xp, k3, s2, one2, one2, true));
    fx_check("max_pool2d.ceil_nopad", tensor_max_pool2d(xp, k2, s2, zero2, one2, true));
    fx_check("max_pool2d.nan", tensor_max_pool2d(xpn, k2, one2, zero2, one2, false));
    fx_check("max_pool2d.3d", tensor_max_pool2d(sel(xp, 0, 0), I64S(2, 3), I64S(1, 2), I64S(1, 0), one2, false));
    fx_check("max_pool2d.t", tensor_max_pool2d(tr(xp, 2, 3), k3, s2, zero2, one2, false));
    fx_check("max_pool2d.f64", tensor_max_pool2d(xpd, k2, NULL, zero2, one2, false));
    fx_check_error("max_pool2d.err_pad", tensor_max_pool2d(xp, k3, one2, I64S(2, 2), one2, false));
    fx_check_error("max_pool2d.err_small", tensor_max_pool2d(corner, k3, NULL, zero2, one2, false));
    fx_check_error("max_pool2d.err_int", tensor_max_pool2d(xpi, k2, NULL, zero2, one2, false));
    fx_check_error("max_pool2d.err_2d", tensor_max_pool2d(sel(sel(xp, 0, 0), 0, 0), k2, NULL, zero2, one2, false));
    fx_check_error("max_pool2d.err_stride", tensor_max_pool2d(xp, k2, zero2, zero2, one2, false));

    fx_check("avg_pool2d.pad_incl", tensor_avg_pool2d(xp, k3, s2, one2, false, true, 0));
    fx_check("avg_pool2d.pad_excl", tensor_avg_pool2d(xp, k3, s2, one2, false, false, 0));
    fx_check("avg_pool2d.ceil", tensor_avg_pool2d(xp, k3, s2, one2, true, true, 0));
    fx_check("avg_pool2d.ceil_excl", tensor_avg_pool2d(xp, k2, s2, one2, true, false, 0));
    fx_check("avg_pool2d.divisor", tensor_avg_pool2d(xp, k2, one2, zero2, false, true, 3));
    fx_check("avg_pool2d.default_stride", tensor_avg_pool2d(xp, k2, NULL, zero2, false, true, 0));
    fx_check("avg_pool2d.int", tensor_avg_pool2d(xpi, k2, s2, one2, false, true, 0));
    fx_check("avg_pool2d.3d_t", tensor_avg_pool2d(tr(sel(xp, 0, 1), 1, 2), I64S(3, 2), I64S(2, 1), zero2, false,
                                                  true, 0));
    fx_check_error("avg_pool2d.err_pad", tensor_avg_pool2d(xp, k3, one2, I64S(2, 2), false, true, 0));
    fx_check_error("avg_pool2d.err_small", tensor_avg_pool2d(corner, k3, NULL, zero2, false, true, 0));

    fx_check("adaptive_avg_pool2d.down", tensor_adaptive_avg_pool2d(xp, I64S(3, 2)));
    fx_check("adaptive_avg_pool2d.global", tensor_adaptive_avg_pool2d(xp, I64S(1, 1)));
    fx_check("adaptive_avg_pool2d.same", tensor_adaptive_avg_pool2d(xp, I64S(6, 7)));
    fx_check("adaptive_avg_pool2d.up", tensor_adaptive_avg_pool2d(xp, I64S(10, 8)));
    fx_check("adaptive_avg_pool2d.3d_t", tensor_adaptive_avg_pool2d(tr(sel(xp, 0, 0), 1, 2), I64S(4, 4)));
    fx_check("adaptive_avg_pool2d.zero", tensor_adaptive_avg_pool2d(xp, I64S(0, 2)));
    fx_check_error("adaptive_avg_pool2d.err_neg", tensor_adaptive_avg_pool2d(xp, I64S(-1, 2)));
    fx_check_error("adaptive_avg_pool2d.err_empty", tensor_adaptive_avg_pool2d(slice(xp, 2, 0, 0), I64S(2, 2)));
    fx_check_error("adaptive_avg_pool2d.err_int", tensor_adaptive_avg_pool2d(xpi, I64S(2, 2)));
}

static void test_embedding(void)
{
    Tensor *ew = fx_in("ew.in"), *eidx = fx_in("eidx.in"), *eidxp = fx_in("eidxp.in"), *eidxm = fx_in("eidxm.in");
    fx_check("embedding.basic", tensor_embedding(ew, eidx));
    fx_check("embedding.int32", tensor_embedding(ew, fx_keep(tensor_to_dtype(eidx, DT_I32))));
    fx_check("embedding.scalar", tensor_embedding(ew, fx_keep(tensor_scalar_int(DT_I64, 3))));
    fx_check("embedding.t", tensor_embedding(ew, fx_keep(tensor_t(eidx))));
    fx_check_error("embedding.err_oob", tensor_embedding(ew, eidxp));
    fx_check_error("embedding.err_neg", tensor_embedding(ew, eidxm));
    fx_check_error("embedding.err_float", tensor_embedding(ew, fx_keep(tensor_to_dtype(eidx, DT_F32))));
    fx_check_error("embedding.err_1d", tensor_embedding(sel(ew, 0, 0), eidx));
}

/* Hand-derived: hostile parameters give a clean error or an empty result. */
static void test_hostile_sizes(void)
{
    Tensor *x = fx_in("x.in"), *w = fx_in("w.in");
    const int64_t huge2[2] = {INT64_MAX / 2, INT64_MAX / 2};
    Tensor *r = tensor_conv2d(x, w, NULL, one2, huge2, one2, 1);
    fx_expect(r == NULL, "conv2d with padding near INT64_MAX fails cleanly");
    r = tensor_conv2d(x, w, NULL, one2, zero2, huge2, 1);
    fx_expect(r == NULL, "conv2d with dilation near INT64_MAX fails cleanly");
    r = tensor_max_pool2d(x, huge2, NULL, zero2, one2, false);
    fx_expect(r == NULL, "max_pool2d with a huge kernel fails cleanly");
    r = tensor_avg_pool2d(x, I64S(2, 2), I64S(INT64_MIN, 1), zero2, true, true, 0);
    fx_expect(r == NULL, "avg_pool2d with stride INT64_MIN fails cleanly");
    r = tensor_adaptive_avg_pool2d(x, I64S(0, INT64_MAX / 4));
    fx_expect(r && tensor_numel(r) == 0, "adaptive_avg_pool2d to (0, huge) is empty");
    tensor_release(r);
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_nn.txt"))
        return 1;
    test_conv();
    test_norms();
    test_pools();
    test_embedding();
    test_hostile_sizes();
    return fx_finish();
}
