/* test_list_set_item.c — immut::list_set_item, TensorSSA's functional form
 * of `l[idx] = el` (eval/scalar_ops.c), on the ref backend.
 *
 * Expected values by hand from Python's rules, the ones aten::_set_item
 * follows: for l = [1, 2, 3], m = l.copy(); m[idx] = 7 gives m with item
 * idx (counted from the end when negative) replaced and l unchanged; an idx
 * outside -3..2 raises IndexError("list index out of range").
 */
#include "backends/ref/ref_test_util.h"

static void check_index(IrGraph *g, int64_t idx, const int64_t *want)
{
    RtValue *in = rt_int(idx);
    RunResult r = run_graph(g, &in, 1, NULL);
    if (!want) {
        CHECK_MSG(r.status == 1 && strstr(r.err, "list index out of range") &&
                      strstr(r.err, "immut::list_set_item"),
                  "idx %lld: status %d, message %s", (long long)idx, r.status, r.err);
    } else if (r.status != 0) {
        CHECK_MSG(false, "idx %lld: status %d: %s", (long long)idx, r.status, r.err);
    } else {
        const RtValue *l = r.outputs[0], *m = r.outputs[1];
        CHECK(l->kind == RT_LIST && l->u.list.n == 3 && m->kind == RT_LIST && m->u.list.n == 3);
        for (int i = 0; i < 3 && m->u.list.n == 3 && l->u.list.n == 3; i++) {
            CHECK_MSG(m->u.list.items[i]->u.i == want[i], "idx %lld: m[%d] = %lld", (long long)idx,
                      i, (long long)m->u.list.items[i]->u.i);
            CHECK_MSG(l->u.list.items[i]->u.i == i + 1, "idx %lld: l[%d] changed", (long long)idx, i);
        }
    }
    run_result_free(&r);
    rt_release(in);
}

int main(void)
{
    IrGraph *g = parse_graph(
        "graph(%idx : int):\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %3 : int = prim::Constant[value=3]()\n"
        "  %7 : int = prim::Constant[value=7]()\n"
        "  %l : int[] = prim::ListConstruct(%1, %2, %3)\n"
        "  %m : int[] = immut::list_set_item(%l, %idx, %7)\n"
        "  return (%l, %m)\n");
    if (!g)
        return 1;
    check_index(g, 0, (const int64_t[]){7, 2, 3});
    check_index(g, 2, (const int64_t[]){1, 2, 7});
    check_index(g, -1, (const int64_t[]){1, 2, 7});
    check_index(g, -3, (const int64_t[]){7, 2, 3});
    check_index(g, 3, NULL);
    check_index(g, -4, NULL);
    ir_graph_free(g);
    return test_report("list_set_item");
}
