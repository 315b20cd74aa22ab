/* test_passes — the TensorSSA passes on small hand-written graphs.
 *
 * Each test parses a graph, runs tssa_functionalize (or one pass) and checks
 * counts derived by hand from the graph, written next to each test: how many
 * loop-carried values and If results block propagation must add, which
 * writes must stay imperative and why, which re-reads the region test may
 * skip, what DCE, CSE and constant folding must remove. Semantics (same
 * results as PyTorch) are checked by the corpus runs (tssa-conform --mode=tssa).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/functionalize.h"
#include "tssa/io.h"
#include "tssa/ir.h"

static IrGraph *parse(const char *text)
{
    IrGraph *g = ir_parse(text, strlen(text), "<test>", stderr);
    if (!g) {
        printf("FAIL: test graph does not parse\n");
        exit(1);
    }
    return g;
}

typedef struct Count {
    const char *kind;
    int n;
} Count;

static void count_kind(IrNode *n, void *ctx)
{
    Count *c = ctx;
    if (!strcmp(n->kind, c->kind))
        c->n++;
}

static int count(IrGraph *g, const char *kind)
{
    Count c = {kind, 0};
    ir_walk(g->top, count_kind, &c);
    return c.n;
}

static bool functionalize(IrGraph *g, bool disjoint, bool fewer, TssaReport *r)
{
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.verify = true;
    opt.inputs_disjoint = disjoint;
    opt.fewer_copies = fewer;
    bool ok = tssa_functionalize(g, &opt, r, stderr);
    return ok && ir_verify(g, stderr);
}

/* FuncTs README loop: b is written in the loop, so it becomes one carried
 * value; the read b[i] and the write b[i] = ... become one access and one
 * assign; the copy_ goes. */
static void test_readme_loop(void)
{
    IrGraph *g = parse(
        "graph(%a.1 : Tensor, %b.1 : Tensor, %n.1 : int):\n"
        "  %28 : bool = prim::Constant[value=0]()\n"
        "  %18 : int = prim::Constant[value=0]()\n"
        "  %12 : bool = prim::Constant[value=1]()\n"
        "  %7 : NoneType = prim::Constant()\n"
        "  %20 : int = prim::Constant[value=1]()\n"
        "  %b.5 : Tensor = aten::clone(%b.1, %7)\n"
        "   = prim::Loop(%n.1, %12)\n"
        "    block0(%i.1 : int):\n"
        "      %19 : Tensor = aten::select(%b.5, %18, %i.1)\n"
        "      %22 : Tensor = aten::add(%19, %20, %20)\n"
        "      %27 : Tensor = aten::select(%b.5, %18, %i.1)\n"
        "      %29 : Tensor = aten::copy_(%27, %22, %28)\n"
        "      -> (%12)\n"
        "  return (%b.5)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, false, true, &r), "functionalize failed");
    CHECK_MSG(r.loop_carried_added == 1, "carried %zu", r.loop_carried_added);
    CHECK_MSG(r.mutations_after == 0 && r.updates_left == 0, "writes %zu updates %zu",
              r.mutations_after, r.updates_left);
    CHECK_MSG(count(g, "immut::select") == 1 && count(g, "immut::select_rev") == 1, "accesses");
    CHECK_MSG(count(g, "aten::copy_") == 0 && count(g, "aten::select") == 0, "views left");
    ir_graph_free(g);
}

/* A write two loops and an If deep into a tensor made outside: the If gets
 * one result, each loop one carried value. */
static void test_nested_blocks(void)
{
    IrGraph *g = parse(
        "graph(%x : Tensor, %n : int):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %y : Tensor = aten::clone(%x, %none)\n"
        "   = prim::Loop(%n, %t)\n"
        "    block0(%i : int):\n"
        "       = prim::Loop(%n, %t)\n"
        "        block0(%j : int):\n"
        "          %c : bool = aten::eq(%j, %zero)\n"
        "           = prim::If(%c)\n"
        "            block0():\n"
        "              %r : Tensor = aten::select(%y, %zero, %i)\n"
        "              %w : Tensor = aten::add_(%r, %one, %one)\n"
        "              -> ()\n"
        "            block1():\n"
        "              -> ()\n"
        "          -> (%t)\n"
        "      -> (%t)\n"
        "  return (%y)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, false, true, &r), "functionalize failed");
    CHECK_MSG(r.if_outputs_added == 1, "if outputs %zu", r.if_outputs_added);
    CHECK_MSG(r.loop_carried_added == 2, "carried %zu", r.loop_carried_added);
    CHECK_MSG(r.mutations_after == 0 && r.imperative_mutations == 0, "writes left %zu",
              r.mutations_after);
    ir_graph_free(g);
}

static const char *two_inputs =
    "graph(%x : Tensor, %y : Tensor):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %w : Tensor = aten::add_(%x, %one, %one)\n"
    "  %s : Tensor = aten::mul(%x, %y)\n"
    "  return (%s)\n";

/* x is written, then y is read: if the two inputs share storage the read
 * sees the write, so without knowing the bindings the write stays, with a
 * comment; with disjoint inputs it goes. */
static void test_inputs_may_alias(void)
{
    IrGraph *g = parse(two_inputs);
    TssaReport r;
    CHECK_MSG(functionalize(g, false, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1 && r.mutations_after == 1, "imperative %zu",
              r.imperative_mutations);
    CHECK_MSG(count(g, "aten::add_") == 1, "add_ gone");
    ir_graph_free(g);

    g = parse(two_inputs);
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 0 && r.mutations_after == 0, "imperative %zu",
              r.imperative_mutations);
    ir_graph_free(g);
}

/* y is read only before x is written: aliasing cannot be observed. */
static void test_inputs_read_before(void)
{
    IrGraph *g = parse(
        "graph(%x : Tensor, %y : Tensor):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %s : Tensor = aten::mul(%x, %y)\n"
        "  %w : Tensor = aten::add_(%x, %s, %one)\n"
        "  return (%x)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, false, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 0 && r.mutations_after == 0, "imperative %zu",
              r.imperative_mutations);
    ir_graph_free(g);
}

static const char *rows =
    "graph(%x : Tensor):\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %five : float = prim::Constant[value=5.]()\n"
    "  %y : Tensor = aten::clone(%x, %none)\n"
    "  %a : Tensor = aten::select(%y, %zero, %zero)\n"
    "  %b : Tensor = aten::select(%y, %zero, %one)\n"
    "  %w : Tensor = aten::fill_(%b, %five)\n"
    "  %t : (Tensor, Tensor) = prim::TupleConstruct(%a, %b)\n"
    "  return (%t)\n";

/* y[1] is written; a = y[0] is live but disjoint, so with fewer copies only
 * b is re-read; without, both are. */
static void test_disjoint_regions(void)
{
    IrGraph *g = parse(rows);
    TssaReport r;
    CHECK_MSG(functionalize(g, false, true, &r), "functionalize failed");
    CHECK_MSG(r.rereads_skipped == 1, "skipped %zu", r.rereads_skipped);
    ir_graph_free(g);
    g = parse(rows);
    CHECK_MSG(functionalize(g, false, false, &r), "functionalize failed");
    CHECK_MSG(r.rereads_skipped == 0, "skipped %zu", r.rereads_skipped);
    ir_graph_free(g);
}

/* y is x or z (both made outside the If); writing y writes one of them, and
 * x is read afterwards: only may-alias is known, so the write stays. */
static void test_merge_write(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor, %z.1 : Tensor, %c : bool):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %x : Tensor = aten::clone(%x.1, %none)\n"
        "  %z : Tensor = aten::clone(%z.1, %none)\n"
        "  %y : Tensor = prim::If(%c)\n"
        "    block0():\n"
        "      -> (%x)\n"
        "    block1():\n"
        "      -> (%z)\n"
        "  %w : Tensor = aten::add_(%y, %one, %one)\n"
        "  %t : (Tensor, Tensor) = prim::TupleConstruct(%x, %y)\n"
        "  return (%t)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1, "imperative %zu", r.imperative_mutations);
    ir_graph_free(g);
}

/* a and b are two allocations that an If merges after a is written (as a
 * loop carrying zeros or a column of another tensor joins them): b is read
 * after the write, but no allocation shares another's storage, and y is
 * made after the write, so the write is rewritten (none stays). */
static void test_fresh_roots_disjoint(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor, %c : bool):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::clone(%x.1, %none)\n"
        "  %b : Tensor = aten::clone(%x.1, %none)\n"
        "  %w : Tensor = aten::add_(%a, %one, %one)\n"
        "  %y : Tensor = prim::If(%c)\n"
        "    block0():\n"
        "      -> (%a)\n"
        "    block1():\n"
        "      -> (%b)\n"
        "  %t : (Tensor, Tensor) = prim::TupleConstruct(%b, %y)\n"
        "  return (%t)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 0 && count(g, "aten::add_") == 0, "imperative %zu",
              r.imperative_mutations);
    ir_graph_free(g);
}

/* A tensor stored in a list that is read later, then written: the list's
 * slot holds the written tensor, so the write sets it too (object_names.c:
 * the list is built here, its slot 0 is %x's), and the element read back
 * is the new version. */
static void test_list_escape(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %x : Tensor = aten::clone(%x.1, %none)\n"
        "  %l : Tensor[] = prim::ListConstruct(%x)\n"
        "  %w : Tensor = aten::add_(%x, %one, %one)\n"
        "  %e : Tensor = aten::__getitem__(%l, %zero)\n"
        "  return (%e)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 0 && count(g, "aten::add_") == 0, "imperative %zu",
              r.imperative_mutations);
    ir_graph_free(g);
}

/* The same, but the list is a graph input: it may hold the tensor under
 * names nobody here sees, so the write stays in place. */
static void test_list_escape_input_list(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor, %l : Tensor[]):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %x : Tensor = aten::clone(%x.1, %none)\n"
        "  %a : Tensor[] = aten::append(%l, %x)\n"
        "  %w : Tensor = aten::add_(%x, %one, %one)\n"
        "  %e : Tensor = aten::__getitem__(%l, %zero)\n"
        "  return (%e)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1, "imperative %zu", r.imperative_mutations);
    ir_graph_free(g);
}

/* object_names.c must refuse where the program does not decide the names:
 * a list set at a run-time index (which slot now holds %x is not known),
 * and a loop with a run-time trip count carrying a name that is %x's
 * element only from the second iteration on. Each keeps its write. */
static void test_names_undecided(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor, %j : int):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %x : Tensor = aten::clone(%x.1, %none)\n"
        "  %y : Tensor = aten::clone(%x.1, %none)\n"
        "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
        "  %s : Tensor[] = aten::_set_item(%l, %j, %x)\n"
        "  %w : Tensor = aten::add_(%x, %one, %one)\n"
        "  %e : Tensor = aten::__getitem__(%l, %one)\n"
        "  return (%e)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1, "run-time set: imperative %zu", r.imperative_mutations);
    ir_graph_free(g);

    g = parse(
        "graph(%x.1 : Tensor, %n : int):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %true : bool = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::clone(%x.1, %none)\n"
        "  %p0 : Tensor = aten::clone(%x.1, %none)\n"
        "  %l : Tensor[] = prim::ListConstruct(%a)\n"
        "  %acc0 : Tensor = aten::clone(%x.1, %none)\n"
        "  %acc : Tensor, %prev : Tensor = prim::Loop(%n, %true, %acc0, %p0)\n"
        "    block0(%k : int, %acc1 : Tensor, %prev1 : Tensor):\n"
        "      %cur : Tensor = aten::__getitem__(%l, %zero)\n"
        "      %w : Tensor = aten::add_(%cur, %one, %one)\n"
        "      %acc2 : Tensor = aten::add(%acc1, %prev1, %one)\n"
        "      -> (%true, %acc2, %cur)\n"
        "  return (%acc)\n");
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1, "run-time trip count: imperative %zu", r.imperative_mutations);
    ir_graph_free(g);

    /* l2.extend(l) copies l's items into a list not followed (it returns
     * nothing): %x is then also in %l2, whose slot no set reaches. */
    g = parse(
        "graph(%x.1 : Tensor):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %x : Tensor = aten::clone(%x.1, %none)\n"
        "  %l : Tensor[] = prim::ListConstruct(%x)\n"
        "  %l2 : Tensor[] = prim::ListConstruct()\n"
        "   = aten::extend(%l2, %l)\n"
        "  %w : Tensor = aten::add_(%x, %one, %one)\n"
        "  %e : Tensor = aten::__getitem__(%l2, %zero)\n"
        "  %f : Tensor = aten::__getitem__(%l, %zero)\n"
        "  %t : (Tensor, Tensor) = prim::TupleConstruct(%e, %f)\n"
        "  return (%t)\n");
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 1, "extend: imperative %zu", r.imperative_mutations);
    ir_graph_free(g);
}

/* The same loop with a known trip count: %prev1 is the element from the
 * second iteration on, and gets prim::If(k == 0){prev1}{new}. */
static void test_names_after_first(void)
{
    IrGraph *g = parse(
        "graph(%x.1 : Tensor):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %three : int = prim::Constant[value=3]()\n"
        "  %true : bool = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::clone(%x.1, %none)\n"
        "  %p0 : Tensor = aten::clone(%x.1, %none)\n"
        "  %l : Tensor[] = prim::ListConstruct(%a)\n"
        "  %acc0 : Tensor = aten::clone(%x.1, %none)\n"
        "  %acc : Tensor, %prev : Tensor = prim::Loop(%three, %true, %acc0, %p0)\n"
        "    block0(%k : int, %acc1 : Tensor, %prev1 : Tensor):\n"
        "      %cur : Tensor = aten::__getitem__(%l, %zero)\n"
        "      %w : Tensor = aten::add_(%cur, %one, %one)\n"
        "      %acc2 : Tensor = aten::add(%acc1, %prev1, %one)\n"
        "      -> (%true, %acc2, %cur)\n"
        "  return (%acc)\n");
    TssaReport r;
    CHECK_MSG(functionalize(g, true, true, &r), "functionalize failed");
    CHECK_MSG(r.imperative_mutations == 0 && count(g, "aten::add_") == 0 && count(g, "prim::If") == 1,
              "imperative %zu, %d If", r.imperative_mutations, count(g, "prim::If"));
    ir_graph_free(g);
}

/* DCE: the loop's second carried value and the If's result are unused. */
static void test_dce(void)
{
    IrGraph *g = parse(
        "graph(%x : Tensor, %n : int, %c : bool):\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %a : Tensor, %b : Tensor = prim::Loop(%n, %t, %x, %x)\n"
        "    block0(%i : int, %p : Tensor, %q : Tensor):\n"
        "      %p2 : Tensor = aten::add(%p, %one, %one)\n"
        "      %q2 : Tensor = aten::mul(%q, %q)\n"
        "      -> (%t, %p2, %q2)\n"
        "  %u : Tensor = prim::If(%c)\n"
        "    block0():\n"
        "      -> (%a)\n"
        "    block1():\n"
        "      -> (%b)\n"
        "  %dead : Tensor = aten::neg(%x)\n"
        "  return (%a)\n");
    size_t removed = tssa_dce(g);
    /* the If, neg, and mul (the dead slot's body) */
    CHECK_MSG(removed == 3, "removed %zu", removed);
    CHECK_MSG(count(g, "aten::mul") == 0 && count(g, "prim::If") == 0, "dead code left");
    CHECK_MSG(ir_verify(g, stderr), "broken graph");
    IrNode *loop = ir_block_first(g->top);
    while (loop->op != OP_PRIM_LOOP)
        loop = loop->next;
    CHECK_MSG(loop->noutputs == 1 && loop->ninputs == 3, "loop has %d outputs %d inputs",
              loop->noutputs, loop->ninputs);
    ir_graph_free(g);
}

/* CSE: a repeat in the same block goes, one in a sibling branch stays (no
 * dominance), one in a nested block is replaced by the outer one. */
static void test_cse(void)
{
    IrGraph *g = parse(
        "graph(%x : Tensor, %c : bool):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::mul(%x, %x)\n"
        "  %b : Tensor = aten::mul(%x, %x)\n"
        "  %u : Tensor = prim::If(%c)\n"
        "    block0():\n"
        "      %d : Tensor = aten::neg(%a)\n"
        "      %e : Tensor = aten::mul(%x, %x)\n"
        "      %f : Tensor = aten::add(%d, %e, %one)\n"
        "      -> (%f)\n"
        "    block1():\n"
        "      %g : Tensor = aten::neg(%a)\n"
        "      -> (%g)\n"
        "  %h : Tensor = aten::add(%b, %u, %one)\n"
        "  return (%h)\n");
    size_t removed = tssa_cse(g);
    CHECK_MSG(removed == 2, "removed %zu", removed);
    CHECK_MSG(count(g, "aten::mul") == 1 && count(g, "aten::neg") == 2, "mul %d neg %d",
              count(g, "aten::mul"), count(g, "aten::neg"));
    CHECK_MSG(ir_verify(g, stderr), "broken graph");
    ir_graph_free(g);
}

/* Constant folding of `training` from the weights' metadata removes the
 * batch-norm bookkeeping branch and its write to a module buffer. */
static void test_training_folded(void)
{
    const char *text =
        "graph(%self : __torch__.M, %x : Tensor):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %bn : __torch__.BN = prim::GetAttr[name=\"bn\"](%self)\n"
        "  %training : bool = prim::GetAttr[name=\"training\"](%bn)\n"
        "   = prim::If(%training)\n"
        "    block0():\n"
        "      %nbt : Tensor = prim::GetAttr[name=\"num_batches_tracked\"](%bn)\n"
        "      %w : Tensor = aten::add_(%nbt, %one, %one)\n"
        "      -> ()\n"
        "    block1():\n"
        "      -> ()\n"
        "  %y : Tensor = aten::relu(%x)\n"
        "  return (%y)\n";
    static const char header[] = "{\"__metadata__\":{\"bn.training\":\"false\"}}";
    unsigned char blob[8 + sizeof header];
    uint64_t len = sizeof header - 1;
    for (int i = 0; i < 8; i++)
        blob[i] = (unsigned char)(len >> (8 * i));
    memcpy(blob + 8, header, len);
    Safetensors *st = safetensors_parse(blob, 8 + len, "<test>", stderr);
    CHECK_MSG(st != NULL, "metadata-only safetensors refused");

    IrGraph *g = parse(text);
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.verify = true;
    opt.weights = st;
    TssaReport r;
    CHECK_MSG(tssa_functionalize(g, &opt, &r, stderr), "functionalize failed");
    CHECK_MSG(count(g, "prim::If") == 0 && count(g, "aten::add_") == 0, "branch left");
    CHECK_MSG(r.mutations_before == 1 && r.mutations_after == 0, "writes %zu -> %zu",
              r.mutations_before, r.mutations_after);
    ir_graph_free(g);

    /* Unknown module state: the branch stays, its write is functionalized
     * (the buffer is not read again). */
    g = parse(text);
    opt.weights = NULL;
    CHECK_MSG(tssa_functionalize(g, &opt, &r, stderr), "functionalize failed");
    CHECK_MSG(count(g, "aten::add_") == 0 && r.imperative_mutations == 0, "write left");
    ir_graph_free(g);
    safetensors_close(st);
}

/* Scalar folding and If on a constant; `x is None` for a Tensor is false. */
static void test_constant_fold(void)
{
    IrGraph *g = parse(
        "graph(%x : Tensor):\n"
        "  %two : int = prim::Constant[value=2]()\n"
        "  %three : int = prim::Constant[value=3]()\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %s : int = aten::add(%two, %three)\n"
        "  %c : bool = aten::gt(%s, %three)\n"
        "  %isn : bool = aten::__is__(%x, %none)\n"
        "  %k : bool = aten::__not__(%isn)\n"
        "  %both : bool = aten::__and__(%c, %k)\n"
        "  %y : Tensor = prim::If(%both)\n"
        "    block0():\n"
        "      %p : Tensor = aten::mul(%x, %s)\n"
        "      -> (%p)\n"
        "    block1():\n"
        "      %q : Tensor = aten::neg(%x)\n"
        "      -> (%q)\n"
        "  return (%y)\n");
    tssa_constant_fold(g, NULL);
    tssa_dce(g);
    CHECK_MSG(count(g, "prim::If") == 0 && count(g, "aten::neg") == 0 && count(g, "aten::mul") == 1,
              "If not folded");
    CHECK_MSG(ir_verify(g, stderr), "broken graph");
    ir_graph_free(g);
}

int main(void)
{
    test_readme_loop();
    test_nested_blocks();
    test_inputs_may_alias();
    test_inputs_read_before();
    test_disjoint_regions();
    test_merge_write();
    test_fresh_roots_disjoint();
    test_list_escape();
    test_list_escape_input_list();
    test_names_undecided();
    test_names_after_first();
    test_dce();
    test_cse();
    test_training_folded();
    test_constant_fold();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "ok", test_failures);
    return test_failures ? 1 : 0;
}
