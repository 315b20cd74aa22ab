/* test_shape.c — cat, stack, repeat, flip, roll, tril, triu, constant_pad
 * (tensor/shape.c) against PyTorch (tensor/data/kernels_shape.txt,
 * gen_shape in gen_kernels_expected.py). */
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

#define LIST(...) ((Tensor *const[]){__VA_ARGS__}), ((int)(sizeof((Tensor *[]){__VA_ARGS__}) / sizeof(Tensor *)))

static Tensor *a, *b, *c, *li, *bo, *e0, *e0i, *x, *xi, *s, *si, *at, *xt;

static void test_cat_stack(void)
{
    Tensor *a1 = fx_keep(tensor_slice(a, 0, 0, 1, 1));
    fx_check("cat.d0", tensor_cat(LIST(a, b, c), 0));
    fx_check("cat.d1", tensor_cat(LIST(a, b), 1));
    fx_check("cat.neg", tensor_cat(LIST(a, b), -1));
    fx_check("cat.promote", tensor_cat(LIST(li, bo, a1), 0));
    fx_check("cat.int_bool", tensor_cat(LIST(li, bo), 1));
    fx_check("cat.legacy", tensor_cat(LIST(a, e0, b), 1));
    fx_check("cat.legacy_only", tensor_cat(LIST(e0, e0i), 0));
    fx_check("cat.t", tensor_cat(LIST(at, c), 1));
    fx_check_error("cat.err_empty_list", tensor_cat(NULL, 0, 0));
    fx_check_error("cat.err_0d", tensor_cat(LIST(s, s), 0));
    fx_check_error("cat.err_ndim", tensor_cat(LIST(a, x), 0));
    fx_check_error("cat.err_size", tensor_cat(LIST(a, c), 1));
    fx_check_error("cat.err_size2", tensor_cat(LIST(a, b, c), 1));
    fx_check_error("cat.err_dim", tensor_cat(LIST(a, b), 2));

    fx_check("stack.d0", tensor_stack(LIST(a, b), 0));
    fx_check("stack.d2", tensor_stack(LIST(a, b), 2));
    fx_check("stack.neg", tensor_stack(LIST(a, b, a), -2));
    fx_check("stack.scalars", tensor_stack(LIST(s, si), 0));
    fx_check("stack.t", tensor_stack(LIST(at, fx_keep(tensor_t(b))), 1));
    fx_check_error("stack.err_size", tensor_stack(LIST(a, c), 0));
    fx_check_error("stack.err_empty", tensor_stack(NULL, 0, 0));
    fx_check_error("stack.err_dim", tensor_stack(LIST(a, b), 3));
}

static void test_remaps(void)
{
    fx_check("repeat.basic", tensor_repeat(a, SHAPE(2, 1)));
    fx_check("repeat.extra", tensor_repeat(a, SHAPE(2, 1, 3)));
    fx_check("repeat.zero", tensor_repeat(a, SHAPE(0, 2)));
    fx_check("repeat.t", tensor_repeat(at, SHAPE(1, 2)));
    fx_check("repeat.scalar", tensor_repeat(s, SHAPE(3)));
    fx_check_error("repeat.err_few", tensor_repeat(a, SHAPE(2)));
    fx_check_error("repeat.err_neg", tensor_repeat(a, SHAPE(2, -1)));

    fx_check("flip.d0", tensor_flip(x, SHAPE(0)));
    fx_check("flip.d02", tensor_flip(x, SHAPE(0, 2)));
    fx_check("flip.neg", tensor_flip(x, SHAPE(-1)));
    fx_check("flip.none", tensor_flip(x, 0, NULL));
    fx_check("flip.t", tensor_flip(xt, SHAPE(1, 0)));
    fx_check("flip.int", tensor_flip(xi, SHAPE(1)));
    fx_check_error("flip.err_dup", tensor_flip(x, SHAPE(0, -3)));
    fx_check_error("flip.err_range", tensor_flip(x, SHAPE(3)));

    Tensor *e03 = fx_keep(tensor_zeros(DT_F32, 2, I64S(0, 3)));
    fx_check("roll.flat", tensor_roll(x, SHAPE(1), 0, NULL));
    fx_check("roll.flat_neg", tensor_roll(x, SHAPE(-7), 0, NULL));
    fx_check("roll.dims", tensor_roll(x, SHAPE(1, 2), SHAPE(0, 1)));
    fx_check("roll.same_dim", tensor_roll(x, SHAPE(1, 2), SHAPE(2, 2)));
    fx_check("roll.neg_big", tensor_roll(x, SHAPE(-5), SHAPE(-1)));
    fx_check("roll.t", tensor_roll(xt, SHAPE(1), SHAPE(0)));
    fx_check("roll.empty", tensor_roll(e03, SHAPE(1), SHAPE(1)));
    fx_check("roll.scalar", tensor_roll(s, SHAPE(3), 0, NULL));
    fx_check_error("roll.err_align", tensor_roll(x, SHAPE(1, 2), SHAPE(0)));
    fx_check_error("roll.err_align_flat", tensor_roll(x, SHAPE(1, 2), 0, NULL));
    fx_check_error("roll.err_scalar_dim", tensor_roll(s, SHAPE(1), SHAPE(0)));
}

static void test_triangles_and_pad(void)
{
    fx_check("tril.d0", tensor_tril(c, 0));
    fx_check("tril.up1", tensor_tril(x, 1));
    fx_check("tril.down1", tensor_tril(xi, -1));
    fx_check("tril.t", tensor_tril(fx_keep(tensor_transpose(x, 1, 2)), 0));
    fx_check("tril.big", tensor_tril(xi, 10));
    fx_check("triu.d0", tensor_triu(c, 0));
    fx_check("triu.up1", tensor_triu(xi, 1));
    fx_check("triu.down2", tensor_triu(x, -2));
    fx_check_error("tril.err_1d", tensor_tril(fx_keep(tensor_select(fx_keep(tensor_select(x, 0, 0)), 0, 0)), 0));

    Tensor *e02 = fx_keep(tensor_zeros(DT_F32, 2, I64S(0, 2)));
    fx_check("pad.last", tensor_constant_pad(a, SHAPE(1, 2), 0));
    fx_check("pad.two", tensor_constant_pad(a, SHAPE(1, 1, 2, 0), 0.5));
    fx_check("pad.crop", tensor_constant_pad(a, SHAPE(-1, 0), 0));
    fx_check("pad.crop_zero", tensor_constant_pad(c, SHAPE(-1, -2), 0));
    fx_check("pad.mixed", tensor_constant_pad(x, SHAPE(-1, 2, 1, -1), -3));
    fx_check("pad.int", tensor_constant_pad(xi, SHAPE(1, 1), 2.7));
    fx_check("pad.bool", tensor_constant_pad(bo, SHAPE(0, 2), 0.5));
    fx_check("pad.all3", tensor_constant_pad(x, SHAPE(1, 0, 0, 1, 1, 1), 0));
    fx_check("pad.empty", tensor_constant_pad(e02, SHAPE(1, 1, 1, 1), 4));
    fx_check("pad.t", tensor_constant_pad(at, SHAPE(0, 1, 1, 0), 9));
    fx_check("pad.scalar", tensor_constant_pad(s, 0, NULL, 0));
    fx_check_error("pad.err_odd", tensor_constant_pad(a, SHAPE(1, 2, 3), 0));
    fx_check_error("pad.err_long", tensor_constant_pad(a, SHAPE(1, 2, 3, 4, 5, 6), 0));
    fx_check_error("pad.err_crop", tensor_constant_pad(c, SHAPE(-2, -2), 0));
    fx_check_error("pad.err_crop_far", tensor_constant_pad(c, SHAPE(-5, 0), 0));
}

/* Hand-derived: hostile sizes give an empty result or a clean error. */
static void test_hostile_sizes(void)
{
    Tensor *r = tensor_repeat(a, SHAPE(0, 1000000000000000));
    fx_expect(r && r->ndim == 2 && r->sizes[0] == 0 && r->sizes[1] == 3000000000000000,
              "repeat by (0, 1e15) is an empty (0, 3e15) tensor, as in PyTorch");
    tensor_release(r);
    r = tensor_repeat(a, SHAPE(INT64_MAX, 2));
    fx_expect(r == NULL, "repeat whose size overflows int64 fails cleanly");
    r = tensor_constant_pad(a, SHAPE(INT64_MAX / 2, INT64_MAX / 2), 0);
    fx_expect(r == NULL, "constant_pad whose size overflows fails cleanly");
    r = tensor_roll(x, SHAPE(INT64_MIN), 0, NULL);
    fx_expect(r != NULL, "roll by INT64_MIN works");
    tensor_release(r);
    r = tensor_tril(x, INT64_MIN);
    fx_expect(r != NULL && tensor_get_flat(r, 0) == 0, "tril with diagonal INT64_MIN zeroes everything");
    tensor_release(r);
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_shape.txt"))
        return 1;
    a = fx_in("a.in");
    b = fx_in("b.in");
    c = fx_in("c.in");
    li = fx_in("li.in");
    bo = fx_in("bo.in");
    e0 = fx_in("e0.in");
    e0i = fx_in("e0i.in");
    x = fx_in("x.in");
    xi = fx_in("xi.in");
    s = fx_in("s.in");
    si = fx_in("si.in");
    at = fx_keep(tensor_t(a));
    xt = fx_keep(tensor_transpose(x, 0, 2));
    test_cat_stack();
    test_remaps();
    test_triangles_and_pad();
    test_hostile_sizes();
    return fx_finish();
}
