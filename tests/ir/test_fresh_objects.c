/* test_fresh_objects.c — ir_replace_fresh_objects (ir/fresh_objects.c):
 * objects the program creates and uses only by attribute become their
 * attributes' values, each read taking the last write of its name before
 * it; objects that escape, are written in a nested block or read before
 * any write are left exactly as they were. Graphs are written by hand in
 * the shape TorchScript's inliner gives (`b = C(...)` then `b.method()`).
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"

/* The graph after the pass, printed; *replaced gets the pass's count. */
static char *after_pass(const char *text, int *replaced)
{
    IrGraph *g = ir_parse(text, strlen(text), "fresh.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return NULL;
    *replaced = ir_replace_fresh_objects(g);
    CHECK(ir_verify(g, stderr));
    FILE *f = test_capture_open();
    ir_print(f, g);
    char *out = test_capture_close(f, NULL);
    ir_graph_free(g);
    return out;
}

/* Reads see the last write before them, in nested blocks too. */
static void test_reaching_writes(void)
{
    const char *text =
        "graph(%a : int, %b : int, %c : bool):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %r : int = prim::If(%c)\n"
        "    block0():\n"
        "      %k1 : int = prim::GetAttr[name=\"k\"](%o)\n"
        "      -> (%k1)\n"
        "    block1():\n"
        "      -> (%b)\n"
        "   = prim::SetAttr[name=\"k\"](%o, %b)\n"
        "  %k2 : int = prim::GetAttr[name=\"k\"](%o)\n"
        "  %s : int = aten::add(%r, %k2)\n"
        "  return (%s)\n";
    int replaced = -1;
    char *out = after_pass(text, &replaced);
    CHECK(replaced == 1);
    CHECK(out && !strstr(out, "prim::CreateObject") && !strstr(out, "Attr["));
    CHECK_CONTAINS(out, "-> (%a)");
    CHECK_CONTAINS(out, "aten::add(%r, %b)");
    free(out);
}

/* An object held by another goes once its holder has. */
static void test_nested_objects(void)
{
    const char *text =
        "graph(%a : float):\n"
        "  %in : __torch__.Inner = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"x\"](%in, %a)\n"
        "  %out : __torch__.Outer = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"inner\"](%out, %in)\n"
        "  %got : __torch__.Inner = prim::GetAttr[name=\"inner\"](%out)\n"
        "  %x : float = prim::GetAttr[name=\"x\"](%got)\n"
        "  return (%x)\n";
    int replaced = -1;
    char *out = after_pass(text, &replaced);
    CHECK(replaced == 2);
    CHECK(out && !strstr(out, "prim::CreateObject"));
    CHECK_CONTAINS(out, "return (%a)");
    free(out);
}

/* Left alone: the precondition fails, the graph prints as it was read. */
static void check_untouched(const char *what, const char *text)
{
    int replaced = -1;
    char *out = after_pass(text, &replaced);
    CHECK_MSG(replaced == 0, "%s: %d objects replaced", what, replaced);
    CHECK_MSG(out && strstr(out, "prim::CreateObject"), "%s: the object went", what);
    free(out);
}

static void test_objects_left_alone(void)
{
    check_untouched("returned",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  return (%o)\n");
    check_untouched("written in a nested block",
        "graph(%a : int, %c : bool):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "   = prim::If(%c)\n"
        "    block0():\n"
        "       = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "      -> ()\n"
        "    block1():\n"
        "      -> ()\n"
        "  %k : int = prim::GetAttr[name=\"k\"](%o)\n"
        "  return (%k)\n");
    check_untouched("read before any write",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "  %k : int = prim::GetAttr[name=\"k\"](%o)\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  return (%k)\n");
    check_untouched("a grad-mode scope",
        "graph(%x : Tensor):\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %g : __torch__.torch.autograd.grad_mode.no_grad = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"prev\"](%g, %f)\n"
        "  %e : NoneType = prim::Enter(%g)\n"
        "  %y : Tensor = aten::relu(%x)\n"
        "  %z : Tensor = prim::Exit(%g)\n"
        "  return (%y)\n");
}

int main(void)
{
    test_reaching_writes();
    test_nested_objects();
    test_objects_left_alone();
    return test_report("fresh_objects");
}
