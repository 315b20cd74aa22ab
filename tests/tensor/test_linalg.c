/* test_linalg.c — mm, bmm, matmul, addmm, linear, dot, outer
 * (tensor/linalg.c) against PyTorch (tensor/data/kernels_linalg.txt,
 * gen_linalg in gen_kernels_expected.py). */
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

static Tensor *a, *b, *ad, *bd, *ai, *bi, *ai32, *bi32, *v3, *v4, *v2, *vi3, *ba, *bb, *b4, *x45, *w53, *bias5,
    *x223, *e20, *e03, *nan24, *bools, *f24, *cols;

static Tensor *T(Tensor *t)
{
    return fx_keep(tensor_t(t));
}

static Tensor *transposed(Tensor *t, int64_t d0, int64_t d1)
{
    return fx_keep(tensor_transpose(t, d0, d1));
}

static void test_mm_bmm(void)
{
    Tensor *a_cols = fx_keep(tensor_slice(a, 1, 0, INT64_MAX, 2));
    Tensor *b_rows = fx_keep(tensor_slice(fx_keep(tensor_slice(b, 0, 0, INT64_MAX, 2)), 1, 1, INT64_MAX, 1));
    fx_check("mm.basic", tensor_mm(a, b));
    fx_check("mm.transposed", tensor_mm(T(b), T(a)));
    fx_check("mm.sliced", tensor_mm(a_cols, b_rows));
    fx_check("mm.f64", tensor_mm(ad, bd));
    fx_check("mm.int", tensor_mm(ai, bi));
    fx_check("mm.int32", tensor_mm(ai32, bi32));
    fx_check("mm.empty_k", tensor_mm(e20, e03));
    fx_check("mm.empty_m", tensor_mm(e03, b));
    fx_check_error("mm.err_shape", tensor_mm(a, x45));
    fx_check_error("mm.err_1d", tensor_mm(a, v3));
    fx_check_error("mm.err_self_1d", tensor_mm(v3, a));
    fx_check_error("mm.err_dtype", tensor_mm(a, bd));
    fx_check_error("mm.err_bool", tensor_mm(bools, T(bools)));

    fx_check("bmm.basic", tensor_bmm(ba, bb));
    fx_check("bmm.transposed", tensor_bmm(transposed(bb, 1, 2), transposed(ba, 1, 2)));
    fx_check_error("bmm.err_2d", tensor_bmm(a, a));
    fx_check_error("bmm.err_batch", tensor_bmm(ba, fx_keep(tensor_select(b4, 0, 0))));
    fx_check_error("bmm.err_inner", tensor_bmm(ba, ba));
}

static void test_matmul(void)
{
    Tensor *at2 = fx_keep(tensor_slice(T(a), 0, 0, 2, 1));
    fx_check("matmul.dot", tensor_matmul(v3, v3));
    fx_check("matmul.mv", tensor_matmul(a, v3));
    fx_check("matmul.vm", tensor_matmul(v3, b));
    fx_check("matmul.mm", tensor_matmul(a, b));
    fx_check("matmul.3d_1d", tensor_matmul(ba, v3));
    fx_check("matmul.1d_3d", tensor_matmul(v3, bb));
    fx_check("matmul.3d_2d", tensor_matmul(ba, b));
    fx_check("matmul.2d_3d", tensor_matmul(at2, ba));
    fx_check("matmul.bcast", tensor_matmul(b4, bb));
    fx_check("matmul.int", tensor_matmul(ai, vi3));
    fx_check("matmul.transposed", tensor_matmul(transposed(bb, -1, -2), transposed(ba, -1, -2)));
    fx_check("matmul.2d_cols", tensor_matmul(a, cols));
    fx_check("matmul.2d_cols_strided", tensor_matmul(a, transposed(cols, 0, 1)));
    fx_check_error("matmul.err_0d", tensor_matmul(fx_keep(tensor_scalar(DT_F32, 1)), a));
    fx_check_error("matmul.err_dot", tensor_matmul(v3, v4));
    fx_check_error("matmul.err_mv", tensor_matmul(a, v4));
    fx_check_error("matmul.err_vm", tensor_matmul(v4, a));
    fx_check_error("matmul.err_batched", tensor_matmul(ba, ba));
    fx_check_error("matmul.err_bcast", tensor_matmul(ba, fx_keep(tensor_zeros(DT_F32, 3, I64S(3, 3, 4)))));
    fx_check_error("matmul.err_3d_1d", tensor_matmul(ba, v4));
    fx_check_error("matmul.err_1d_3d", tensor_matmul(v4, ba));
    fx_check_error("matmul.err_3d_2d", tensor_matmul(ba, x45));
    fx_check_error("matmul.err_2d_3d", tensor_matmul(x45, ba));
    fx_check_error("matmul.err_dtype", tensor_matmul(a, bd));
}

static void test_addmm_linear(void)
{
    Tensor *bi0 = fx_keep(tensor_select(bi, 0, 0));
    fx_check("addmm.bcast", tensor_addmm(v4, a, b, 0.5, 2));
    fx_check("addmm.full", tensor_addmm(f24, a, b, 1, 1));
    fx_check("addmm.beta0", tensor_addmm(nan24, a, b, 0, 1));
    fx_check("addmm.int", tensor_addmm(bi0, ai, bi, 2, 3));
    fx_check_error("addmm.err_expand", tensor_addmm(v3, a, b, 1, 1));
    fx_check_error("addmm.err_dtype", tensor_addmm(fx_keep(tensor_to_dtype(v4, DT_F64)), a, b, 1, 1));
    fx_check_error("addmm.err_shape", tensor_addmm(v4, a, x45, 1, 1));

    fx_check("linear.2d", tensor_linear(a, w53, bias5));
    fx_check("linear.3d", tensor_linear(x223, w53, bias5));
    fx_check("linear.3d_t", tensor_linear(transposed(x223, 0, 1), w53, bias5));
    fx_check("linear.1d", tensor_linear(v3, w53, bias5));
    fx_check("linear.nobias", tensor_linear(x223, w53, NULL));
    fx_check("linear.w1d", tensor_linear(a, v3, NULL));
    fx_check("linear.int", tensor_linear(ai, T(bi), NULL));
    fx_check_error("linear.err_2d", tensor_linear(a, x45, NULL));
    fx_check_error("linear.err_3d", tensor_linear(x223, x45, NULL));
    fx_check_error("linear.err_bias", tensor_linear(a, w53, v4));
}

static void test_dot_outer(void)
{
    Tensor *b1 = fx_keep(tensor_select(b, 1, 1)), *b3 = fx_keep(tensor_select(b, 1, 3));
    fx_check("dot.basic", tensor_dot(v3, v3));
    fx_check("dot.int", tensor_dot(vi3, vi3));
    fx_check("dot.strided", tensor_dot(b1, b3));
    fx_check_error("dot.err_2d", tensor_dot(a, a));
    fx_check_error("dot.err_size", tensor_dot(v3, v4));
    fx_check_error("dot.err_dtype", tensor_dot(v3, fx_keep(tensor_to_dtype(v3, DT_F64))));
    Tensor *brow = fx_keep(tensor_select(bools, 0, 0));
    fx_check_error("dot.err_bool", tensor_dot(brow, brow));

    fx_check("outer.basic", tensor_outer(v3, v4));
    fx_check("outer.promote", tensor_outer(vi3, v2));
    fx_check_error("outer.err_2d", tensor_outer(a, v3));
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_linalg.txt"))
        return 1;
    a = fx_in("a.in");
    b = fx_in("b.in");
    ad = fx_in("ad.in");
    bd = fx_in("bd.in");
    ai = fx_in("ai.in");
    bi = fx_in("bi.in");
    ai32 = fx_in("ai32.in");
    bi32 = fx_in("bi32.in");
    v3 = fx_in("v3.in");
    v4 = fx_in("v4.in");
    v2 = fx_in("v2.in");
    vi3 = fx_in("vi3.in");
    ba = fx_in("ba.in");
    bb = fx_in("bb.in");
    b4 = fx_in("b4.in");
    x45 = fx_in("x45.in");
    w53 = fx_in("w53.in");
    bias5 = fx_in("bias5.in");
    x223 = fx_in("x223.in");
    e20 = fx_in("e20.in");
    e03 = fx_in("e03.in");
    nan24 = fx_in("nan24.in");
    bools = fx_in("bools.in");
    f24 = fx_in("f24.in");
    cols = fx_in("cols.in");
    test_mm_bmm();
    test_matmul();
    test_addmm_linear();
    test_dot_outer();
    return fx_finish();
}
