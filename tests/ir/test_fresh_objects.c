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

/* Records: objects kept in a list (torchaudio's forced-alignment path of
 * Points) become tuples of their attributes, in the order of the first
 * object's writes; reads become tuple elements, and every type naming the
 * class names the tuple. */
static void test_records_in_lists(void)
{
    const char *text =
        "graph(%a : int, %b : float, %n : int):\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %p0 : __torch__.P = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"i\"](%p0, %a)\n"
        "   = prim::SetAttr[name=\"s\"](%p0, %b)\n"
        "  %path : __torch__.P[] = prim::ListConstruct(%p0)\n"
        "   = prim::Loop(%n, %t)\n"
        "    block0(%k : int):\n"
        "      %p : __torch__.P = prim::CreateObject()\n"
        "       = prim::SetAttr[name=\"s\"](%p, %b)\n"
        "       = prim::SetAttr[name=\"i\"](%p, %k)\n"
        "      %l : __torch__.P[] = aten::append(%path, %p)\n"
        "      -> (%t)\n"
        "  %last : __torch__.P = aten::__getitem__(%path, %n)\n"
        "  %first : __torch__.P = aten::__getitem__(%path, %zero)\n"
        "  %i : int = prim::GetAttr[name=\"i\"](%last)\n"
        "  %s : float = prim::GetAttr[name=\"s\"](%first)\n"
        "  return (%i, %s)\n";
    int replaced = -1;
    char *out = after_pass(text, &replaced);
    CHECK(replaced == 2);
    CHECK(out && !strstr(out, "prim::CreateObject") && !strstr(out, "Attr[") &&
          !strstr(out, "__torch__.P"));
    CHECK_CONTAINS(out, "(int, float)[] = prim::ListConstruct");
    CHECK_CONTAINS(out, "prim::TupleConstruct(%a, %b)");
    CHECK_CONTAINS(out, "prim::TupleConstruct(%k, %b)");  /* field order: the first object's */
    CHECK_CONTAINS(out, "prim::TupleUnpack(%last)");
    free(out);
}

static void test_records_left_alone(void)
{
    check_untouched("written after it is stored",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %l : __torch__.C[] = prim::ListConstruct(%o)\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %z : int = prim::Constant[value=0]()\n"
        "  %e : __torch__.C = aten::__getitem__(%l, %z)\n"
        "  %k : int = prim::GetAttr[name=\"k\"](%e)\n"
        "  return (%k)\n");
    check_untouched("written through a list element",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %l : __torch__.C[] = prim::ListConstruct(%o)\n"
        "  %z : int = prim::Constant[value=0]()\n"
        "  %e : __torch__.C = aten::__getitem__(%l, %z)\n"
        "   = prim::SetAttr[name=\"k\"](%e, %a)\n"
        "  %k : int = prim::GetAttr[name=\"k\"](%o)\n"
        "  return (%k)\n");
    check_untouched("compared by identity",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %l : __torch__.C[] = prim::ListConstruct(%o)\n"
        "  %z : int = prim::Constant[value=0]()\n"
        "  %e : __torch__.C = aten::__getitem__(%l, %z)\n"
        "  %same : bool = aten::__is__(%e, %o)\n"
        "  return (%same)\n");
    check_untouched("returned in a list",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %l : __torch__.C[] = prim::ListConstruct(%o)\n"
        "  return (%l)\n");
    check_untouched("objects setting different attributes",
        "graph(%a : int):\n"
        "  %o : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"k\"](%o, %a)\n"
        "  %p : __torch__.C = prim::CreateObject()\n"
        "   = prim::SetAttr[name=\"j\"](%p, %a)\n"
        "  %l : __torch__.C[] = prim::ListConstruct(%o, %p)\n"
        "  %z : int = prim::Constant[value=0]()\n"
        "  %e : __torch__.C = aten::__getitem__(%l, %z)\n"
        "  %k : int = prim::GetAttr[name=\"k\"](%e)\n"
        "  return (%k)\n");
}

int main(void)
{
    test_reaching_writes();
    test_nested_objects();
    test_objects_left_alone();
    test_records_in_lists();
    test_records_left_alone();
    return test_report("fresh_objects");
}
