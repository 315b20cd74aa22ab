/* test_reshape_decide — functionalize/reshape_decide.c against PyTorch.
 *
 * Bound inputs: every case of reshape_cases.inc (gen_reshape_cases.py ran
 * PyTorch on it) is a graph that makes views of %x (transpose, slices with
 * a step, expand, permute, select, narrow, diagonal, as_strided, size-1 and
 * empty dims) and then reshape, flatten, ravel or contiguous. With %x bound
 * to a row-major tensor of the case's sizes, the pass must decide what
 * PyTorch did: a view (aten::view of the chain, or the chain itself for
 * contiguous()) or a copy (aten::clone first). The decided graph is then
 * run on the reference evaluator: it must run (aten::view fails where
 * strides do not allow the shape), and its result must share the input's
 * storage exactly when PyTorch's did.
 *
 * Unbound inputs: only contiguity is known, so only what keeps the input
 * row-major whatever the sizes is decided (expectations by hand below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "test_util.h"
#include "tssa/eval.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/tensor.h"
#include "tssa/value.h"

typedef struct Case {
    const char *name;
    const char *graph;
    int ndim;
    int64_t sizes[4];
    const char *pytorch;     /* "view" or "copy" */
} Case;

static const Case cases[] = {
#include "functionalize/reshape_cases.inc"
};

static IrGraph *parse(const char *name, const char *text)
{
    IrGraph *g = ir_parse(text, strlen(text), name, stderr);
    if (!g) {
        printf("FAIL: %s: the graph does not parse\n", name);
        exit(1);
    }
    return g;
}

static bool reshape_like(OpId op)
{
    return op == OP_ATEN_RESHAPE || op == OP_ATEN_FLATTEN || op == OP_ATEN_RAVEL ||
           op == OP_ATEN_CONTIGUOUS || op == OP_ATEN_RESHAPE_AS;
}

/* What the pass made of the graph's result: "view", "copy" or "undecided". */
static const char *decision(IrGraph *g)
{
    const IrNode *def = ir_block_return(g->top, 0)->def;
    if (reshape_like(def->op))
        return "undecided";
    if (def->op == OP_ATEN_CLONE)
        return "copy";
    if ((def->op == OP_ATEN_VIEW || def->op == OP_ATEN_VIEW_AS) &&
        def->inputs[0]->def->op == OP_ATEN_CLONE)
        return "copy";
    return "view";
}

static void test_bound(const Case *c)
{
    IrGraph *g = parse(c->name, c->graph);
    Tensor *t = tensor_zeros(DT_F32, c->ndim, c->sizes);
    RtValue *input = rt_tensor_take(t);
    RtValue *inputs[1] = {input};
    TssaOptions opt;
    tssa_options_default(&opt);
    opt.inputs = inputs;
    opt.ninputs = 1;
    tssa_decide_reshapes(g, &opt);
    CHECK_MSG(ir_verify(g, stderr), "%s: the graph is broken", c->name);
    const char *got = decision(g);
    CHECK_MSG(strcmp(got, c->pytorch) == 0, "%s: decided %s, PyTorch makes a %s", c->name, got,
              c->pytorch);

    NodeExec *x = node_exec_new(g, NULL, stderr);
    node_exec_set(x, ir_block_param(g->top, 0), rt_retain(input));
    bool ran = node_exec_block(x, g->top);
    CHECK_MSG(ran, "%s: the decided graph does not run", c->name);
    if (ran) {
        const RtValue *out = node_exec_get(x, ir_block_return(g->top, 0));
        bool shares = out && out->kind == RT_TENSOR && out->u.t->storage == t->storage;
        CHECK_MSG(shares == (strcmp(c->pytorch, "view") == 0),
                  "%s: the result %s the input's storage, PyTorch's %s", c->name,
                  shares ? "shares" : "does not share", c->pytorch);
    }
    node_exec_free(x);
    rt_release(input);
    ir_graph_free(g);
}

/* Unbound: graph inputs are row-major (every input path loads them so),
 * sizes unknown. */
typedef struct HandCase {
    const char *name;       /* a case of reshape_cases.inc, or NULL with graph */
    const char *graph;
    const char *expected;
} HandCase;

static const HandCase unbound[] = {
    /* reshape of the input itself: row-major memory views any shape */
    {"contiguous_reshape", NULL, "view"},
    /* flatten(0, -1) is view(-1) whatever the rank */
    {"flatten_all", NULL, "view"},
    /* select, and slice with step 1, along dim 0 keep rows whole */
    {"select_outer", NULL, "view"},
    {"slice_dim0_flat", NULL, "view"},
    {"ravel_select", NULL, "view"},
    {"contiguous_select", NULL, "view"},
    {"unsqueeze_flat", NULL, "view"},
    /* transpose, a step, an inner select, expand: it depends on the sizes
     * (t of a (1, n) input is still a view), which are not known */
    {"t_reshape_flat", NULL, "undecided"},
    {"t_of_row_reshape", NULL, "undecided"},
    {"slice_step_dim0_flat", NULL, "undecided"},
    {"select_inner", NULL, "undecided"},
    {"expand_flat", NULL, "undecided"},
    {"contiguous_t", NULL, "undecided"},
    {"flatten_transposed_kept", NULL, "undecided"},
    /* an elementwise result of row-major operands is row-major */
    {"elementwise_reshape",
     "graph(%x : Tensor):\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %a : Tensor = aten::add(%x, %x, %one)\n"
     "  %m : int = prim::Constant[value=-1]()\n"
     "  %s : int[] = prim::ListConstruct(%m)\n"
     "  %y : Tensor = aten::reshape(%a, %s)\n"
     "  return (%y)\n",
     "view"},
    /* ... but not of a transposed operand: PyTorch lays it out transposed */
    {"elementwise_of_t_reshape",
     "graph(%x : Tensor):\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %t : Tensor = aten::t(%x)\n"
     "  %a : Tensor = aten::add(%t, %one, %one)\n"
     "  %m : int = prim::Constant[value=-1]()\n"
     "  %s : int[] = prim::ListConstruct(%m)\n"
     "  %y : Tensor = aten::reshape(%a, %s)\n"
     "  return (%y)\n",
     "undecided"},
    /* a loop-carried value: its layout is whatever the body made */
    {"loop_carried_reshape",
     "graph(%x : Tensor, %n : int):\n"
     "  %true : bool = prim::Constant[value=1]()\n"
     "  %c : Tensor = prim::Loop(%n, %true, %x)\n"
     "    block0(%i : int, %acc : Tensor):\n"
     "      %t : Tensor = aten::t(%acc)\n"
     "      -> (%true, %t)\n"
     "  %m : int = prim::Constant[value=-1]()\n"
     "  %s : int[] = prim::ListConstruct(%m)\n"
     "  %y : Tensor = aten::reshape(%c, %s)\n"
     "  return (%y)\n",
     "undecided"},
    /* an in-place shape change left in the graph: no layout is trusted */
    {"metadata_inplace_left",
     "graph(%x : Tensor):\n"
     "  %r : Tensor = aten::t_(%x)\n"
     "  %m : int = prim::Constant[value=-1]()\n"
     "  %s : int[] = prim::ListConstruct(%m)\n"
     "  %y : Tensor = aten::reshape(%x, %s)\n"
     "  return (%y)\n",
     "undecided"},
};

static const Case *find_case(const char *name)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    return NULL;
}

static void test_unbound(const HandCase *h)
{
    const Case *c = h->graph ? NULL : find_case(h->name);
    if (!h->graph && !c) {
        CHECK_MSG(false, "%s: no such case in reshape_cases.inc", h->name);
        return;
    }
    IrGraph *g = parse(h->name, h->graph ? h->graph : c->graph);
    TssaOptions opt;
    tssa_options_default(&opt);
    tssa_decide_reshapes(g, &opt);
    CHECK_MSG(ir_verify(g, stderr), "%s: the graph is broken", h->name);
    const char *got = decision(g);
    CHECK_MSG(strcmp(got, h->expected) == 0, "%s (unbound): decided %s, expected %s", h->name, got,
              h->expected);
    ir_graph_free(g);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        test_bound(&cases[i]);
    for (size_t i = 0; i < sizeof unbound / sizeof *unbound; i++)
        test_unbound(&unbound[i]);
    printf("%zu bound cases, %zu unbound cases, %d failures\n", sizeof cases / sizeof *cases,
           sizeof unbound / sizeof *unbound, test_failures);
    return test_failures ? 1 : 0;
}
