/* test_index.c — advanced indexing, index_put_, index_select, masked_select,
 * gather, masked_fill_, scatter_ (tensor/index.c) against PyTorch
 * (tensor/data/kernels_index.txt, gen_index in gen_kernels_expected.py),
 * plus hand-derived checks of the documented deviation (index_put_ casts
 * values to self's dtype where PyTorch requires equal dtypes). */
#include <math.h>
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

static Tensor *x, *xi, *i3, *i22, *ia, *ib, *i21, *i3b, *m234, *m3, *m23, *m2, *u3, *empty_i, *i5, *in5, *fidx,
    *i32, *m4, *it, *xt;

#define IDX(...) ((Tensor *const[]){__VA_ARGS__}), NI_T(__VA_ARGS__)
#define NI_T(...) ((int)(sizeof((Tensor *[]){__VA_ARGS__}) / sizeof(Tensor *)))

static void test_index(void)
{
    Tensor *yes = fx_keep(tensor_scalar(DT_BOOL, 1)), *no = fx_keep(tensor_scalar(DT_BOOL, 0));
    Tensor *i3b_2 = fx_keep(tensor_slice(i3b, 0, 0, 2, 1));
    fx_check("index.long0", tensor_index(x, IDX(i3)));
    fx_check("index.slice_then_2d", tensor_index(x, IDX(NULL, i22)));
    fx_check("index.separated", tensor_index(x, IDX(ia, NULL, ib)));
    fx_check("index.adjacent_bcast", tensor_index(x, IDX(NULL, i21, i3b)));
    fx_check("index.mask_full", tensor_index(x, IDX(m234)));
    fx_check("index.mask_dim1", tensor_index(x, IDX(NULL, m3)));
    fx_check("index.mask_2d", tensor_index(x, IDX(m23)));
    fx_check("index.mask_and_long", tensor_index(x, IDX(m2, ia)));
    fx_check("index.u8_mask", tensor_index(x, IDX(NULL, u3)));
    fx_check("index.empty", tensor_index(x, IDX(empty_i)));
    fx_check("index.t_self", tensor_index(xt, IDX(i3b)));
    fx_check("index.t_index", tensor_index(xi, IDX(fx_keep(tensor_t(it)))));
    fx_check("index.last_dim", tensor_index(x, IDX(NULL, NULL, i3)));
    fx_check("index.bool_scalar", tensor_index(x, IDX(yes)));
    fx_check("index.bool_scalar_false", tensor_index(x, IDX(no)));
    fx_check("index.int", tensor_index(xi, IDX(ia, i3b_2)));
    fx_check_error("index.err_oob", tensor_index(x, IDX(i5)));
    fx_check_error("index.err_oob_neg", tensor_index(x, IDX(in5)));
    fx_check_error("index.err_too_many", tensor_index(x, IDX(ia, ia, ia, ia)));
    fx_check_error("index.err_mask_shape", tensor_index(x, IDX(m3)));
    fx_check_error("index.err_mask_shape2", tensor_index(x, IDX(NULL, m4)));
    fx_check_error("index.err_float", tensor_index(x, IDX(fidx)));
    fx_check_error("index.err_int32", tensor_index(x, IDX(i32)));
    fx_check_error("index.err_bcast", tensor_index(x, IDX(ia, i3)));
    /* no index tensors at all: a copy of self */
    Tensor *copy = tensor_index(x, NULL, 0);
    fx_expect(copy && copy->storage != x->storage && tensor_same_shape(copy, x) &&
                  tensor_get_flat(copy, 5) == tensor_get_flat(x, 5),
              "index with no indices copies self");
    tensor_release(copy);
}

static void test_index_put(void)
{
    Tensor *v0 = fx_in("v0.in"), *v34 = fx_in("v34.in"), *v4 = fx_in("v4.in"), *v23 = fx_in("v23.in");
    Tensor *vacc = fx_in("vacc.in"), *iacc = fx_in("iacc.in"), *vi = fx_in("vi.in");
    Tensor *t;
    t = tensor_clone(x);
    fx_check_inplace("index_put.scalar", tensor_index_put_(t, IDX(i3), v0, false), t);
    t = tensor_clone(x);
    fx_check_inplace("index_put.bcast", tensor_index_put_(t, IDX(ia), v34, false), t);
    t = tensor_clone(x);
    fx_check_inplace("index_put.bcast_row", tensor_index_put_(t, IDX(NULL, i3), v4, false), t);
    t = tensor_clone(x);
    fx_check_inplace("index_put.separated", tensor_index_put_(t, IDX(ia, NULL, ib), v23, false), t);
    t = tensor_zeros(DT_F32, 1, I64S(5));
    fx_check_inplace("index_put.accumulate", tensor_index_put_(t, IDX(iacc), vacc, true), t);
    t = tensor_clone(x);
    fx_check_inplace("index_put.mask", tensor_index_put_(t, IDX(m234), v0, false), t);
    t = tensor_clone(xi);
    fx_check_inplace("index_put.int_accum", tensor_index_put_(t, IDX(i3, i3b), vi, true), t);
    t = tensor_clone(x);
    Tensor *view = tensor_transpose(t, 0, 2);
    bool ok = view && tensor_index_put_(view, IDX(i3b), v0, false);
    tensor_release(view);
    fx_check_inplace("index_put.view", ok, t);
    t = fx_keep(tensor_clone(x));
    fx_check_error_bool("index_put.err_shape", tensor_index_put_(t, IDX(ia), v23, false));
    fx_check_error_bool("index_put.err_oob", tensor_index_put_(t, IDX(i5), v0, false));

    /* Hand-derived (deviation): values are cast to self's dtype. */
    t = tensor_zeros(DT_F32, 1, I64S(3));
    Tensor *seven = fx_keep(tensor_scalar_int(DT_I64, 7));
    ok = tensor_index_put_(t, IDX(fx_keep(tensor_full(DT_I64, 1, I64S(1), 1))), seven, false);
    fx_expect(ok, "index_put_ accepts int64 values for a float32 tensor");
    fx_check_values("index_put_ casts values", t, DT_F32, 1, I64S(3), (const double[]){0, 7, 0});
    /* values aliasing self: x[[1, 0]] = x[[0, 1]] swaps rows through a copy */
    t = tensor_full(DT_F32, 1, I64S(2), 0);
    tensor_set_flat(t, 0, 1);
    tensor_set_flat(t, 1, 2);
    Tensor *rev = fx_keep(tensor_flip(ia, 1, I64S(0)));
    ok = tensor_index_put_(t, IDX(rev), t, false);
    fx_check_values("index_put_ with values aliasing self", t, DT_F32, 1, I64S(2), (const double[]){2, 1});
}

static void test_select_family(void)
{
    Tensor *isel = fx_in("isel.in");
    Tensor *two = fx_keep(tensor_scalar_int(DT_I64, 2)), *zero = fx_keep(tensor_scalar_int(DT_I64, 0));
    Tensor *five = fx_keep(tensor_scalar(DT_F32, 5)), *zeros2 = fx_keep(tensor_zeros(DT_I64, 1, I64S(2)));
    fx_check("index_select.d1", tensor_index_select(x, 1, isel));
    fx_check("index_select.last", tensor_index_select(x, -1, i3b));
    fx_check("index_select.int32", tensor_index_select(xi, 0, i32));
    fx_check("index_select.scalar_idx", tensor_index_select(xi, 1, two));
    fx_check("index_select.t", tensor_index_select(xt, 0, i3b));
    fx_check("index_select.empty", tensor_index_select(x, 0, empty_i));
    fx_check("index_select.scalar_self", tensor_index_select(five, 0, zeros2));
    fx_check_error("index_select.err_float", tensor_index_select(x, 0, fidx));
    fx_check_error("index_select.err_oob", tensor_index_select(x, 0, i5));
    fx_check_error("index_select.err_neg", tensor_index_select(x, 0, in5));
    fx_check_error("index_select.err_2d", tensor_index_select(x, 0, i22));

    Tensor *v4 = fx_in("v4.in");
    fx_check("masked_select.bcast", tensor_masked_select(x, fx_keep(tensor_select(m234, 0, 0))));
    fx_check("masked_select.both", tensor_masked_select(v4, fx_keep(tensor_slice(m23, 1, 0, 1, 1))));
    fx_check("masked_select.u8",
             tensor_masked_select(fx_keep(tensor_select(fx_keep(tensor_select(x, 0, 0)), 1, 0)), u3));
    fx_check("masked_select.t", tensor_masked_select(xt, fx_keep(tensor_transpose(m234, 0, 2))));
    fx_check_error("masked_select.err_long", tensor_masked_select(x, ia));
    fx_check_error("masked_select.err_shape", tensor_masked_select(x, m2));

    Tensor *g232 = fx_in("g232.in"), *g122 = fx_in("g122.in"), *g122p1 = fx_in("g122p1.in");
    Tensor *gm = fx_in("gm.in"), *g232p1 = fx_in("g232p1.in"), *g311 = fx_in("g311.in");
    fx_check("gather.last", tensor_gather(x, 2, g232));
    fx_check("gather.d0_small", tensor_gather(x, 0, g122));
    fx_check("gather.neg_dim", tensor_gather(x, -2, g122p1));
    fx_check("gather.t", tensor_gather(xt, 1, fx_keep(tensor_transpose(gm, 0, 2))));
    fx_check("gather.scalar", tensor_gather(five, 0, zero));
    fx_check_error("gather.err_oob", tensor_gather(x, 2, g232p1));
    fx_check_error("gather.err_int32", tensor_gather(x, 2, fx_keep(tensor_to_dtype(g232, DT_I32))));
    fx_check_error("gather.err_ndim", tensor_gather(x, 2, i3));
    fx_check_error("gather.err_size", tensor_gather(x, 2, g311));
}

static void test_masked_fill(void)
{
    Tensor *v0 = fx_in("v0.in"), *v4 = fx_in("v4.in");
    Tensor *t;
    t = tensor_clone(x);
    fx_check_inplace("masked_fill.basic", tensor_masked_fill_(t, m234, v0), t);
    t = tensor_clone(x);
    fx_check_inplace("masked_fill.bcast", tensor_masked_fill_(t, m4, fx_keep(tensor_scalar(DT_F32, -1))), t);
    t = tensor_clone(xi);
    fx_check_inplace("masked_fill.int_from_float", tensor_masked_fill_(t, m4, fx_keep(tensor_scalar(DT_F32, 2.7))),
                     t);
    t = tensor_clone(x);
    fx_check_inplace("masked_fill.nan", tensor_masked_fill_(t, m4, fx_keep(tensor_scalar(DT_F32, NAN))), t);
    t = tensor_clone(m234);
    fx_check_inplace("masked_fill.bool", tensor_masked_fill_(t, m4, fx_keep(tensor_scalar_int(DT_I64, 0))), t);
    t = tensor_clone(x);
    Tensor *view = tensor_transpose(t, 0, 2);
    bool ok = view && tensor_masked_fill_(view, m2, fx_keep(tensor_scalar(DT_F32, 9)));
    tensor_release(view);
    fx_check_inplace("masked_fill.view", ok, t);
    t = fx_keep(tensor_clone(x));
    fx_check_error_bool("masked_fill.err_value_dim", tensor_masked_fill_(t, m234, v4));
    Tensor *z4 = fx_keep(tensor_zeros(DT_F32, 1, I64S(4)));
    fx_check_error_bool("masked_fill.err_bcast",
                        tensor_masked_fill_(z4, fx_keep(tensor_select(m234, 0, 0)), fx_keep(tensor_wrapped_float(1))));
    Tensor *ti = fx_keep(tensor_clone(xi));
    fx_check_error_bool("masked_fill.err_nan_int", tensor_masked_fill_(ti, m4, fx_keep(tensor_scalar(DT_F32, NAN))));
    Tensor *tu = fx_keep(tensor_zeros(DT_U8, 1, I64S(3)));
    fx_check_error_bool("masked_fill.err_u8", tensor_masked_fill_(tu, m3, fx_keep(tensor_scalar_int(DT_I64, 300))));

    /* Hand-derived: a mask aliasing self is read before any write. */
    t = tensor_full(DT_BOOL, 1, I64S(3), 1);
    tensor_set_flat_int(t, 1, 0);
    ok = tensor_masked_fill_(t, t, fx_keep(tensor_wrapped_bool(false)));
    fx_check_values("masked_fill_ with mask aliasing self", t, DT_BOOL, 1, I64S(3), (const double[]){0, 0, 0});
}

static void test_scatter(void)
{
    Tensor *s32 = fx_in("s32.in"), *src = fx_in("src.in"), *d12 = fx_in("d12.in");
    Tensor *t;
    t = tensor_zeros(DT_F32, 2, I64S(3, 5));
    fx_check_inplace("scatter.d1", tensor_scatter_(t, 1, s32, src, NULL), t);
    t = tensor_zeros(DT_F32, 2, I64S(3, 5));
    fx_check_inplace("scatter.d0", tensor_scatter_(t, 0, d12, src, NULL), t);
    t = tensor_full(DT_F32, 2, I64S(3, 5), 1);
    fx_check_inplace("scatter.add", tensor_scatter_(t, 1, s32, src, "add"), t);
    t = tensor_full(DT_F32, 2, I64S(3, 5), 2);
    fx_check_inplace("scatter.multiply", tensor_scatter_(t, 1, s32, src, "multiply"), t);
    t = tensor_zeros(DT_I64, 2, I64S(3, 5));
    fx_check_inplace("scatter.value_int", tensor_scatter_(t, 1, s32, fx_keep(tensor_wrapped_float(2.5)), NULL), t);
    t = tensor_clone(xi);
    fx_check_inplace("scatter.int_add", tensor_scatter_(t, 0, d12, xi, "add"), t);
    t = tensor_zeros(DT_F32, 2, I64S(5, 3));
    Tensor *view = tensor_t(t);
    bool ok = view && tensor_scatter_(view, 1, s32, src, NULL);
    tensor_release(view);
    fx_check_inplace("scatter.view", ok, t);
    Tensor *z34 = fx_keep(tensor_zeros(DT_F32, 2, I64S(3, 4))), *z35 = fx_keep(tensor_zeros(DT_F32, 2, I64S(3, 5)));
    fx_check_error_bool("scatter.err_oob", tensor_scatter_(z34, 1, s32, src, NULL));
    fx_check_error_bool("scatter.err_dtype", tensor_scatter_(z35, 1, s32, fx_keep(tensor_to_dtype(src, DT_F64)), NULL));
    fx_check_error_bool("scatter.err_reduce", tensor_scatter_(z35, 1, s32, src, "max"));
    fx_check_error_bool("scatter.err_size", tensor_scatter_(z35, 1, s32, fx_keep(tensor_slice(src, 1, 0, 1, 1)), NULL));
    fx_check_error_bool("scatter.err_int32", tensor_scatter_(z35, 1, fx_keep(tensor_to_dtype(s32, DT_I32)), src, NULL));
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_index.txt"))
        return 1;
    x = fx_in("x.in");
    xi = fx_in("xi.in");
    i3 = fx_in("i3.in");
    i22 = fx_in("i22.in");
    ia = fx_in("ia.in");
    ib = fx_in("ib.in");
    i21 = fx_in("i21.in");
    i3b = fx_in("i3b.in");
    m234 = fx_in("m234.in");
    m3 = fx_in("m3.in");
    m23 = fx_in("m23.in");
    m2 = fx_in("m2.in");
    u3 = fx_in("u3.in");
    empty_i = fx_in("empty_i.in");
    i5 = fx_in("i5.in");
    in5 = fx_in("in5.in");
    fidx = fx_in("fidx.in");
    i32 = fx_in("i32.in");
    m4 = fx_in("m4.in");
    it = fx_in("it.in");
    xt = fx_keep(tensor_transpose(x, 0, 2));
    test_index();
    test_index_put();
    test_select_family();
    test_masked_fill();
    test_scatter();
    return fx_finish();
}
