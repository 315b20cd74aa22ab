/* test_sort.c — sort, argsort, topk, nonzero (tensor/sort.c)
 * against PyTorch (tensor/data/kernels_sort.txt, gen_sort in
 * gen_kernels_expected.py), plus hand-derived checks of the documented tie
 * order of topk. */
#include <stdint.h>

#include "tensor/kernel_fixtures.h"

static Tensor *x, *xn, *xn1, *xi, *xp, *xb, *e, *s, *z, *xt;

static void test_sort(void)
{
    Tensor *v, *i;
    bool ok;
    ok = tensor_sort(x, -1, false, true, &v, &i);
    fx_check_pair("sort.last", ok, v, i);
    ok = tensor_sort(x, 0, true, true, &v, &i);
    fx_check_pair("sort.d0_desc", ok, v, i);
    ok = tensor_sort(xn, -1, false, true, &v, &i);
    fx_check_pair("sort.nan", ok, v, i);
    ok = tensor_sort(xn, -1, true, true, &v, &i);
    fx_check_pair("sort.nan_desc", ok, v, i);
    ok = tensor_sort(xi, 1, false, true, &v, &i);
    fx_check_pair("sort.int_ties", ok, v, i);
    ok = tensor_sort(xi, 1, true, true, &v, &i);
    fx_check_pair("sort.int_ties_desc", ok, v, i);
    ok = tensor_sort(xt, 1, false, true, &v, &i);
    fx_check_pair("sort.t_d1", ok, v, i);
    ok = tensor_sort(s, 0, false, true, &v, &i);
    fx_check_pair("sort.scalar", ok, v, i);
    ok = tensor_sort(e, 0, false, true, &v, &i);
    fx_check_pair("sort.empty", ok, v, i);
    ok = tensor_sort(xb, -1, false, true, &v, &i);
    fx_check_pair("sort.bool", ok, v, i);
    ok = tensor_sort(x, 2, false, false, &v, &i);
    fx_check_error_bool("sort.err_range", ok);

    fx_check("argsort.d1", tensor_argsort(x, 1, false, false));
    fx_check("argsort.int_desc", tensor_argsort(xi, 0, true, true));
    fx_check("argsort.nan", tensor_argsort(xn, -1, false, true));
}

static void test_topk(void)
{
    Tensor *v, *i;
    bool ok;
    ok = tensor_topk(x, 2, 1, true, true, &v, &i);
    fx_check_pair("topk.largest", ok, v, i);
    ok = tensor_topk(x, 3, 0, false, true, &v, &i);
    fx_check_pair("topk.smallest_d0", ok, v, i);
    ok = tensor_topk(xn1, 3, -1, true, true, &v, &i);
    fx_check_pair("topk.nan", ok, v, i);
    ok = tensor_topk(xn1, 2, -1, false, true, &v, &i);
    fx_check_pair("topk.nan_smallest", ok, v, i);
    ok = tensor_topk(xp, 3, -1, true, true, &v, &i);
    fx_check_pair("topk.int", ok, v, i);
    ok = tensor_topk(xt, 1, -1, true, true, &v, &i);
    fx_check_pair("topk.t", ok, v, i);
    ok = tensor_topk(x, 0, -1, true, true, &v, &i);
    fx_check_pair("topk.k0", ok, v, i);
    ok = tensor_topk(xp, 5, -1, false, true, &v, &i);
    fx_check_pair("topk.all", ok, v, i);
    ok = tensor_topk(x, 6, -1, true, true, &v, &i);
    fx_check_error_bool("topk.err_k", ok);
    ok = tensor_topk(x, -1, -1, true, true, &v, &i);
    fx_check_error_bool("topk.err_neg", ok);
    ok = tensor_topk(xb, 1, -1, true, true, &v, &i);
    fx_check_error_bool("topk.err_bool", ok);

    /* Among equal values topk returns what PyTorch's CPU kernel returns
     * (libstdc++'s nth_element, then a sort of the first k - 1): from
     * torch 1.13, torch.topk(t, 2) gives indices [2, 4] and
     * torch.topk(t, 3, largest=False, sorted=False) gives [0, 3, 2]. */
    Tensor *ties = fx_keep(tensor_empty(DT_F32, 1, I64S(5)));
    const double tie_vals[5] = {1, 3, 3, 1, 3};
    for (int k = 0; k < 5; k++)
        tensor_set_flat(ties, k, tie_vals[k]);
    ok = tensor_topk(ties, 2, 0, true, true, &v, &i);
    fx_expect(ok, "topk of ties succeeds");
    if (ok) {
        fx_check_values("topk ties: values", v, DT_F32, 1, I64S(2), (const double[]){3, 3});
        fx_check_values("topk ties: PyTorch's order", i, DT_I64, 1, I64S(2), (const double[]){2, 4});
    }
    ok = tensor_topk(ties, 3, 0, false, false, &v, &i);
    fx_expect(ok, "topk smallest of ties succeeds");
    if (ok) {
        fx_check_values("topk smallest ties: values", v, DT_F32, 1, I64S(3), (const double[]){1, 1, 3});
        fx_check_values("topk smallest ties: indices", i, DT_I64, 1, I64S(3), (const double[]){0, 3, 2});
    }
}

static void test_nonzero(void)
{
    Tensor *zero = fx_keep(tensor_scalar(DT_F32, 0.0));
    fx_check("nonzero.int", tensor_nonzero(z));
    fx_check("nonzero.bool", tensor_nonzero(xb));
    fx_check("nonzero.nan", tensor_nonzero(xn1));
    fx_check("nonzero.t", tensor_nonzero(fx_keep(tensor_t(z))));
    fx_check("nonzero.scalar", tensor_nonzero(s));
    fx_check("nonzero.scalar_zero", tensor_nonzero(zero));
    fx_check("nonzero.empty", tensor_nonzero(e));
}

int main(void)
{
    if (!fx_open("tensor/data/kernels_sort.txt"))
        return 1;
    x = fx_in("x.in");
    xn = fx_in("xn.in");
    xn1 = fx_in("xn1.in");
    xi = fx_in("xi.in");
    xp = fx_in("xp.in");
    xb = fx_in("xb.in");
    e = fx_in("e.in");
    s = fx_in("s.in");
    z = fx_in("z.in");
    xt = fx_keep(tensor_t(x));
    test_sort();
    test_topk();
    test_nonzero();
    return fx_finish();
}
