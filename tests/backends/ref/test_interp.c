/* test_interp.c — the reference interpreter through backend_ref_run:
 * aliasing of views and in-place ops, control flow (while-style loops with
 * a condition, for loops, If), list mutation, constants, TorchScript's scalar
 * arithmetic, and the located error messages. Every expected value is
 * derived by hand in the comment beside it (Python's and TorchScript's rules
 * for // and % on negative operands were checked against torch 1.13).
 */
#include "backends/ref/ref_test_util.h"
#include "tssa/value.h"

/* x[1] += 1 through a select view: x itself changes (the caller's tensor),
 * the result of add_ is the view, and returning x returns the same tensor. */
static void test_view_inplace_aliasing(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %v : Tensor = aten::select(%x.1, %0, %1)\n"
        "  %w : Tensor = aten::add_(%v, %1, %1)\n"
        "  return (%x.1, %w)\n");
    if (!g)
        return;
    int64_t sizes[2] = {2, 2};
    Tensor *x = tensor_zeros(DT_F32, 2, sizes);
    RtValue *in = rt_tensor(x);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    CHECK(r.noutputs == 2);
    if (r.status == 0) {
        /* x = [[0, 0], [1, 1]] */
        CHECK(tensor_equals(x, 4, (double[]){0, 0, 1, 1}));
        CHECK(r.outputs[0]->u.t == x);
        CHECK(r.outputs[1]->u.t->storage == x->storage);
        CHECK(r.outputs[1]->u.t->offset == 2);
    }
    run_result_free(&r);
    rt_release(in);
    tensor_release(x);
    ir_graph_free(g);
}

/* A write through one view is seen through another view of the same base,
 * and through the base: v = x[0:2]; u = x[1]; v.mul_(2) doubles x[0], x[1]. */
static void test_views_share_storage(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %v : Tensor = aten::slice(%x.1, %0, %0, %2, %1)\n"
        "  %u : Tensor = aten::select(%x.1, %0, %1)\n"
        "  %m : Tensor = aten::mul_(%v, %2)\n"
        "  %c : Tensor = aten::clone(%u, %0)\n"
        "  return (%c, %x.1)\n");
    if (!g)
        return;
    Tensor *x = vector_f32(3, (double[]){1, 2, 3});
    RtValue *in = rt_tensor(x);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        CHECK(tensor_equals(r.outputs[0]->u.t, 1, (double[]){4})); /* x[1] = 2 * 2 */
        CHECK(tensor_equals(x, 3, (double[]){2, 4, 3}));
    }
    run_result_free(&r);
    rt_release(in);
    tensor_release(x);
    ir_graph_free(g);
}

/* while i < n: l.append(i); i += 1  (trip count INT64_MAX, a condition). */
static const char *while_graph =
    "graph(%n.1 : int):\n"
    "  %max : int = prim::Constant[value=9223372036854775807]()\n"
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %l : int[] = prim::ListConstruct()\n"
    "  %c0 : bool = aten::lt(%0, %n.1)\n"
    "  %i : int = prim::Loop(%max, %c0, %0)\n"
    "    block0(%it : int, %i.2 : int):\n"
    "      %a : int[] = aten::append(%l, %i.2)\n"
    "      %i.3 : int = aten::add(%i.2, %1)\n"
    "      %c : bool = aten::lt(%i.3, %n.1)\n"
    "      -> (%c, %i.3)\n"
    "  return (%i, %l)\n";

static void test_while_loop(int64_t n)
{
    IrGraph *g = parse_graph(while_graph);
    if (!g)
        return;
    RtValue *in = rt_int(n);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        int64_t expect = n > 0 ? n : 0; /* the loop counts i up to n */
        CHECK(r.outputs[0]->kind == RT_INT && r.outputs[0]->u.i == expect);
        CHECK(r.outputs[1]->kind == RT_LIST && r.outputs[1]->u.list.n == expect);
        for (int k = 0; k < r.outputs[1]->u.list.n; k++)
            CHECK(r.outputs[1]->u.list.items[k]->u.i == k);
    }
    run_result_free(&r);
    rt_release(in);
    ir_graph_free(g);
}

/* for j in range(2, n, 2): acc = acc * j  -> with n = 7: 1 * 2 * 4 * 6 = 48 */
static void test_for_range_loop(void)
{
    IrGraph *g = parse_graph(
        "graph(%n.1 : int):\n"
        "  %true : bool = prim::Constant[value=1]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %len : int = aten::__range_length(%2, %n.1, %2)\n"
        "  %acc : int = prim::Loop(%len, %true, %1)\n"
        "    block0(%k : int, %acc.2 : int):\n"
        "      %j : int = aten::__derive_index(%k, %2, %2)\n"
        "      %acc.3 : int = aten::mul(%acc.2, %j)\n"
        "      -> (%true, %acc.3)\n"
        "  return (%acc, %len)\n");
    if (!g)
        return;
    RtValue *in = rt_int(7);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        CHECK(r.outputs[0]->u.i == 48);
        CHECK(r.outputs[1]->u.i == 3); /* 2, 4, 6 */
    }
    run_result_free(&r);
    rt_release(in);
    ir_graph_free(g);
}

/* if x < 0: raise; the message names the raising line of the source. */
static void test_raise_exception(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : int):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %msg : str = prim::Constant[value=\"negative input\"]()\n"
        "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
        "  %c : bool = aten::lt(%x.1, %0) # prog.py:3:7\n"
        "   = prim::If(%c) # prog.py:3:4\n"
        "    block0():\n"
        "       = prim::RaiseException(%msg, %cls) # prog.py:4:8\n"
        "      -> ()\n"
        "    block1():\n"
        "      -> ()\n"
        "  return (%x.1)\n");
    if (!g)
        return;
    RtValue *ok_in = rt_int(5), *bad_in = rt_int(-1);
    RunResult ok = run_graph(g, &ok_in, 1, NULL);
    CHECK(ok.status == 0 && ok.outputs[0]->u.i == 5);
    RunResult bad = run_graph(g, &bad_in, 1, NULL);
    CHECK(bad.status == 1);
    CHECK(bad.noutputs == 0 && bad.outputs == NULL);
    CHECK(bad.err &&
          strcmp(bad.err, "prog.py:4: error: prim::RaiseException: negative input\n") == 0);
    run_result_free(&ok);
    run_result_free(&bad);
    rt_release(ok_in);
    rt_release(bad_in);
    ir_graph_free(g);
}

/* An op the ref backend does not know: named with its source line, or with
 * the graph file's line when the node has no source comment. */
static void test_unsupported_op(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %y : Tensor = aten::frobnicate(%x.1) # model.py:7:2\n"
        "  return (%y)\n");
    IrGraph *h = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %y : Tensor = aten::frobnicate(%x.1)\n"
        "  return (%y)\n");
    if (!g || !h) {
        ir_graph_free(g);
        ir_graph_free(h);
        return;
    }
    Tensor *x = vector_f32(1, (double[]){1});
    RtValue *in = rt_tensor(x);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 1);
    CHECK(r.err &&
          strcmp(r.err,
                 "model.py:7: error: aten::frobnicate: unknown op 'aten::frobnicate': the op table "
                 "does not list it, so it cannot be run (reached at run time, called as "
                 "aten::frobnicate(Tensor))\n") ==
              0);
    RunResult s = run_graph(h, &in, 1, NULL);
    CHECK(s.status == 1);
    CHECK_CONTAINS(s.err,
                   "test.ir:2: error: aten::frobnicate: unknown op 'aten::frobnicate'");
    run_result_free(&r);
    run_result_free(&s);
    rt_release(in);
    tensor_release(x);
    ir_graph_free(g);
    ir_graph_free(h);
}

/* A kernel's own message is reported with the node: shapes (2) and (3). */
static void test_kernel_error(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor, %y.1 : Tensor):\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %z : Tensor = aten::add(%x.1, %y.1, %1) # f.py:2:9\n"
        "  return (%z)\n");
    if (!g)
        return;
    Tensor *x = vector_f32(2, (double[]){1, 2}), *y = vector_f32(3, (double[]){1, 2, 3});
    RtValue *in[2] = {rt_tensor(x), rt_tensor(y)};
    RunResult r = run_graph(g, in, 2, NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err, "f.py:2: error: aten::add: ");
    run_result_free(&r);
    rt_release(in[0]);
    rt_release(in[1]);
    tensor_release(x);
    tensor_release(y);
    ir_graph_free(g);
}

/* TorchScript's int and float arithmetic (hand-derived):
 *   -7 // 2 = -4,  -7 % 2 = 1,  7 % -2 = -1,  7 / 2 = 3.5
 *   -7.5 // 2. = -4.,  -7.5 % 2. = 0.5,  2 ** 3 = 8. (a float)
 *   "{} and {}".format(3, 2.) = "3 and 2.",  round(2.5) = 2. (half to even) */
static void test_scalar_arithmetic(void)
{
    IrGraph *g = parse_graph(
        "graph(%a.1 : int, %f.1 : float):\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %m2 : int = prim::Constant[value=-2]()\n"
        "  %7 : int = prim::Constant[value=7]()\n"
        "  %twof : float = prim::Constant[value=2.]()\n"
        "  %3 : int = prim::Constant[value=3]()\n"
        "  %twohalf : float = prim::Constant[value=2.5]()\n"
        "  %fmt : str = prim::Constant[value=\"{} and {}\"]()\n"
        "  %q : int = aten::floordiv(%a.1, %2)\n"
        "  %r : int = aten::remainder(%a.1, %2)\n"
        "  %r2 : int = aten::remainder(%7, %m2)\n"
        "  %d : float = aten::div(%7, %2)\n"
        "  %fq : float = aten::floordiv(%f.1, %twof)\n"
        "  %fr : float = aten::remainder(%f.1, %twof)\n"
        "  %p : float = aten::pow(%2, %3)\n"
        "  %s : str = aten::format(%fmt, %3, %twof)\n"
        "  %rd : float = aten::round(%twohalf)\n"
        "  return (%q, %r, %r2, %d, %fq, %fr, %p, %s, %rd)\n");
    if (!g)
        return;
    RtValue *in[2] = {rt_int(-7), rt_float(-7.5)};
    RunResult r = run_graph(g, in, 2, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        RtValue **o = r.outputs;
        CHECK(o[0]->kind == RT_INT && o[0]->u.i == -4);
        CHECK(o[1]->kind == RT_INT && o[1]->u.i == 1);
        CHECK(o[2]->kind == RT_INT && o[2]->u.i == -1);
        CHECK(o[3]->kind == RT_FLOAT && o[3]->u.f == 3.5);
        CHECK(o[4]->kind == RT_FLOAT && o[4]->u.f == -4.0);
        CHECK(o[5]->kind == RT_FLOAT && o[5]->u.f == 0.5);
        CHECK(o[6]->kind == RT_FLOAT && o[6]->u.f == 8.0);
        CHECK(o[7]->kind == RT_STR && strcmp(o[7]->u.s, "3 and 2.") == 0);
        CHECK(o[8]->kind == RT_FLOAT && o[8]->u.f == 2.0);
    } else {
        fprintf(stderr, "%s", r.err);
    }
    run_result_free(&r);
    rt_release(in[0]);
    rt_release(in[1]);
    ir_graph_free(g);
}

/* Integer division by zero is Python's ZeroDivisionError, not a crash. */
static void test_zero_division(void)
{
    IrGraph *g = parse_graph(
        "graph(%a.1 : int, %b.1 : int):\n"
        "  %q : int = aten::floordiv(%a.1, %b.1) # z.py:1:1\n"
        "  return (%q)\n");
    if (!g)
        return;
    RtValue *in[2] = {rt_int(1), rt_int(0)};
    RunResult r = run_graph(g, in, 2, NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err, "z.py:1: error: aten::floordiv: ZeroDivisionError");
    run_result_free(&r);
    rt_release(in[0]);
    rt_release(in[1]);
    ir_graph_free(g);
}

/* Lists: negative indexing, slicing, concatenation, len, `in`. With
 * l = [10, 20, 30]: l[-1] = 30, l[1:] = [20, 30], l + [40] has 4 items,
 * 20 in l, l[::-1] = [30, 20, 10], l[-2:] = [20, 30]; "abc"[1:] = "bc". */
static void test_lists(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : int):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %m1 : int = prim::Constant[value=-1]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %10 : int = prim::Constant[value=10]()\n"
        "  %20 : int = prim::Constant[value=20]()\n"
        "  %30 : int = prim::Constant[value=30]()\n"
        "  %40 : int = prim::Constant[value=40]()\n"
        "  %l : int[] = prim::ListConstruct(%10, %20, %30)\n"
        "  %last : int = aten::__getitem__(%l, %m1)\n"
        "  %tail : int[] = aten::slice(%l, %1, %none, %1)\n"
        "  %one : int[] = prim::ListConstruct(%40)\n"
        "  %cat : int[] = aten::add(%l, %one)\n"
        "  %n : int = aten::len(%cat)\n"
        "  %has : bool = aten::__contains__(%l, %20)\n"
        "  %e : int[] = prim::Constant[value=annotate(List[int], [])]()\n"
        "  %ne : int = aten::len(%e)\n"
        "  %rev : int[] = aten::slice(%l, %none, %none, %m1)\n"
        "  %abc : str = prim::Constant[value=\"abc\"]()\n"
        "  %bc : str = aten::slice(%abc, %1, %none, %1)\n"
        "  %m2 : int = prim::Constant[value=-2]()\n"
        "  %last2 : int[] = aten::slice(%l, %m2, %none, %1)\n"
        "  return (%last, %tail, %n, %has, %ne, %rev, %bc, %last2)\n");
    if (!g)
        return;
    RtValue *in = rt_int(0);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        CHECK(r.outputs[0]->u.i == 30);
        CHECK(r.outputs[1]->u.list.n == 2 && r.outputs[1]->u.list.items[0]->u.i == 20 &&
              r.outputs[1]->u.list.items[1]->u.i == 30);
        CHECK(r.outputs[2]->u.i == 4);
        CHECK(r.outputs[3]->kind == RT_BOOL && r.outputs[3]->u.i == 1);
        CHECK(r.outputs[4]->u.i == 0);
        const RtValue *rev = r.outputs[5], *last2 = r.outputs[7];
        CHECK(rev->u.list.n == 3 && rev->u.list.items[0]->u.i == 30 &&
              rev->u.list.items[2]->u.i == 10);
        CHECK(strcmp(r.outputs[6]->u.s, "bc") == 0);
        CHECK(last2->u.list.n == 2 && last2->u.list.items[0]->u.i == 20);
    } else {
        fprintf(stderr, "%s", r.err);
    }
    run_result_free(&r);
    rt_release(in);
    ir_graph_free(g);
}

/* List mutation (shared by every holder of the list):
 *   l = [0, 1]; l[-1] = 5 -> [0, 5]; l.extend([1]) -> [0, 5, 1];
 *   l.insert(0, x) -> [x, 0, 5, 1]; l.pop(-1) = 1 -> [x, 0, 5]; abs(-1) = 1 */
static void test_list_mutation(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : int):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %5 : int = prim::Constant[value=5]()\n"
        "  %m1 : int = prim::Constant[value=-1]()\n"
        "  %l : int[] = prim::ListConstruct(%0, %1)\n"
        "  %a : int[] = aten::_set_item(%l, %m1, %5)\n"
        "  %e : int[] = prim::ListConstruct(%1)\n"
        "   = aten::extend(%l, %e)\n"
        "   = aten::insert(%l, %0, %x.1)\n"
        "  %p : int = aten::pop(%l, %m1)\n"
        "  %ab : int = prim::abs(%m1)\n"
        "  return (%l, %p, %ab)\n");
    if (!g)
        return;
    RtValue *in = rt_int(9);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        const RtValue *l = r.outputs[0];
        CHECK(l->u.list.n == 3 && l->u.list.items[0]->u.i == 9 && l->u.list.items[1]->u.i == 0 &&
              l->u.list.items[2]->u.i == 5);
        CHECK(r.outputs[1]->u.i == 1);
        CHECK(r.outputs[2]->u.i == 1);
    } else {
        fprintf(stderr, "%s", r.err);
    }
    run_result_free(&r);
    rt_release(in);
    ir_graph_free(g);
}

/* Ops that PyTorch answers with self itself: contiguous() of a contiguous
 * tensor, to() the same dtype, dropout in eval mode. */
static void test_identity_results(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %6 : int = prim::Constant[value=6]()\n"
        "  %false : bool = prim::Constant[value=0]()\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %p : float = prim::Constant[value=0.5]()\n"
        "  %a : Tensor = aten::contiguous(%x.1, %0)\n"
        "  %b : Tensor = aten::to(%x.1, %6, %false, %false, %none)\n"
        "  %c : Tensor = aten::dropout(%x.1, %p, %false)\n"
        "  %is : bool = aten::__is__(%b, %x.1)\n"
        "  return (%a, %b, %c, %is)\n");
    if (!g)
        return;
    Tensor *x = vector_f32(2, (double[]){1, 2});
    RtValue *in = rt_tensor(x);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        CHECK(r.outputs[0]->u.t == x);
        CHECK(r.outputs[1]->u.t == x);
        CHECK(r.outputs[2]->u.t == x);
        CHECK(r.outputs[3]->kind == RT_BOOL && r.outputs[3]->u.i == 1);
    }
    run_result_free(&r);
    rt_release(in);
    tensor_release(x);
    ir_graph_free(g);
}

/* An in-place op without a kernel of its own (lerp_) runs as lerp followed
 * by a copy into self: x = [0, 2], y = [2, 4], w = 0.5 -> x = [1, 3]. */
static void test_inplace_via_functional(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor, %y.1 : Tensor):\n"
        "  %w : float = prim::Constant[value=0.5]()\n"
        "  %z : Tensor = aten::lerp_(%x.1, %y.1, %w)\n"
        "  %same : bool = aten::__is__(%z, %x.1)\n"
        "  return (%same)\n");
    if (!g)
        return;
    Tensor *x = vector_f32(2, (double[]){0, 2}), *y = vector_f32(2, (double[]){2, 4});
    RtValue *in[2] = {rt_tensor(x), rt_tensor(y)};
    RunResult r = run_graph(g, in, 2, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        CHECK(tensor_equals(x, 2, (double[]){1, 3}));
        CHECK(r.outputs[0]->u.i == 1);
    } else {
        fprintf(stderr, "%s", r.err);
    }
    run_result_free(&r);
    rt_release(in[0]);
    rt_release(in[1]);
    tensor_release(x);
    tensor_release(y);
    ir_graph_free(g);
}

/* Python's str() of values as TorchScript spells them. */
static void test_str(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : float):\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %tu : (int, float) = prim::TupleConstruct(%1, %x.1)\n"
        "  %l : bool[] = prim::ListConstruct(%t)\n"
        "  %s0 : str = aten::str(%x.1)\n"
        "  %s1 : str = aten::str(%tu)\n"
        "  %s2 : str = aten::str(%l)\n"
        "  return (%s0, %s1, %s2)\n");
    if (!g)
        return;
    RtValue *in = rt_float(0.1);
    RunResult r = run_graph(g, &in, 1, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        /* 17 significant digits: 0.10000000000000001 */
        CHECK(strcmp(r.outputs[0]->u.s, "0.10000000000000001") == 0);
        CHECK(strcmp(r.outputs[1]->u.s, "(1, 0.10000000000000001)") == 0);
        CHECK(strcmp(r.outputs[2]->u.s, "[True]") == 0);
    }
    run_result_free(&r);
    rt_release(in);
    ir_graph_free(g);
}

/* aten::_convolution with transposed=True, as traced ConvTranspose1d
 * graphs have it. By hand: x = [1, 2], w = [10, 100], stride 2,
 * output_padding 1: out[2i + j] += x[i] w[j], length (2-1)*2 + (2-1) + 1 + 1
 * = 5, so [10, 100, 20, 200, 0]. */
static void test_transposed_convolution(void)
{
    IrGraph *g = parse_graph(
        "graph(%x.1 : Tensor, %w.1 : Tensor):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %false : bool = prim::Constant[value=0]()\n"
        "  %true : bool = prim::Constant[value=1]()\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %shape : int[] = prim::ListConstruct(%1, %1, %2)\n"
        "  %s : int[] = prim::ListConstruct(%2)\n"
        "  %p : int[] = prim::ListConstruct(%0)\n"
        "  %d : int[] = prim::ListConstruct(%1)\n"
        "  %op : int[] = prim::ListConstruct(%1)\n"
        "  %x : Tensor = aten::reshape(%x.1, %shape)\n"
        "  %w : Tensor = aten::reshape(%w.1, %shape)\n"
        "  %y : Tensor = aten::_convolution(%x, %w, %none, %s, %p, %d, %true, %op, %1, %false, %false, %true, %true)\n"
        "  return (%y)\n");
    if (!g)
        return;
    RtValue *in[2] = {rt_tensor_take(vector_f32(2, (double[]){1, 2})),
                      rt_tensor_take(vector_f32(2, (double[]){10, 100}))};
    RunResult r = run_graph(g, in, 2, NULL);
    CHECK(r.status == 0);
    if (r.status == 0) {
        const Tensor *y = r.outputs[0]->u.t;
        CHECK(y->ndim == 3 && y->sizes[2] == 5);
        CHECK(tensor_equals(y, 5, (double[]){10, 100, 20, 200, 0}));
    }
    run_result_free(&r);
    rt_release(in[0]);
    rt_release(in[1]);
    ir_graph_free(g);
}

int main(void)
{
    test_view_inplace_aliasing();
    test_views_share_storage();
    test_while_loop(3);
    test_while_loop(0);
    test_for_range_loop();
    test_raise_exception();
    test_unsupported_op();
    test_kernel_error();
    test_scalar_arithmetic();
    test_zero_division();
    test_lists();
    test_list_mutation();
    test_identity_results();
    test_inplace_via_functional();
    test_str();
    test_transposed_convolution();
    return test_report("ref_interp");
}
