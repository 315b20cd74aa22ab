/* test_decompose.c — ir_expand_decompositions (frontend/decompose.c): a
 * composite op becomes its definition's nodes, inlined where it stood, its
 * outputs the definition's results (a two-output op takes the elements of
 * the tuple the definition returns, by a prim::TupleUnpack), the inlined
 * nodes carry its source position, and a node whose arguments do not fit
 * its definition is left as it is. The numbers the definitions compute are
 * checked against PyTorch by frontend/gen_decompositions.py and the corpus
 * cases nn_transformer*, nn_multihead_attention.
 */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"

static char *printed(IrGraph *g)
{
    FILE *f = test_capture_open();
    ir_print(f, g);
    return test_capture_close(f, NULL);
}

/* The nodes of kind `kind` anywhere in b. */
static int count_kind(const IrBlock *b, const char *kind)
{
    int n = 0;
    IR_FOREACH_NODE(x, b) {
        n += strcmp(x->kind, kind) == 0;
        for (int i = 0; i < x->nblocks; i++)
            n += count_kind(x->blocks[i], kind);
    }
    return n;
}

static const char *MHA =
    "graph(%x : Tensor, %w : Tensor, %b : Tensor, %pw : Tensor, %pb : Tensor, %m : Tensor?):\n"
    "  %d : int = prim::Constant[value=8]()\n"
    "  %h : int = prim::Constant[value=2]()\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %k : int = prim::Constant[value=1]()\n"
    "  %o : Tensor, %a : Tensor = aten::_native_multi_head_attention(%x, %x, %x, %d, %h, %w, %b, %pw, %pb, %m, %t, %t, %k) # model.py:7:12\n"
    "  %r : (Tensor, Tensor) = prim::TupleConstruct(%o, %a)\n"
    "  return (%r)\n";

static void test_two_outputs(void)
{
    IrGraph *g = ir_parse(MHA, strlen(MHA), "mha.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(ir_expand_decompositions(g, stderr) == 1);
    CHECK(ir_verify(g, stderr));
    CHECK(count_kind(g->top, "aten::_native_multi_head_attention") == 0);
    CHECK(count_kind(g->top, "aten::softmax") == 1);
    CHECK(count_kind(g->top, "aten::linear") >= 2);
    CHECK(count_kind(g->top, "prim::TupleUnpack") == 1);
    /* the tuple returned is made of the unpacked results */
    const IrNode *tuple = ir_block_return(g->top, 0)->def;
    CHECK(tuple && tuple->op == OP_PRIM_TUPLECONSTRUCT && tuple->inputs[0]->def &&
          tuple->inputs[0]->def->op == OP_PRIM_TUPLEUNPACK);
    IR_FOREACH_NODE(x, g->top)
        if (x->op == OP_ATEN_SOFTMAX)
            CHECK_MSG(x->line == 6 && x->comment && strstr(x->comment, "model.py:7:12"),
                      "inlined node at line %d (%s)", x->line, x->comment ? x->comment : "no comment");
    char *text = printed(g);
    CHECK_CONTAINS(text, "Mask shape should match input shape");
    free(text);
    CHECK(ir_expand_decompositions(g, stderr) == 0);    /* nothing left to expand */
    ir_graph_free(g);
}

/* One argument short of the schema: left for the op check to report. */
static void test_arguments_that_do_not_fit(void)
{
    const char *text =
        "graph(%x : Tensor, %w : Tensor):\n"
        "  %d : int = prim::Constant[value=8]()\n"
        "  %o : Tensor, %a : Tensor = aten::_native_multi_head_attention(%x, %x, %x, %d, %d, %w, %w, %w, %w)\n"
        "  return (%o)\n";
    IrGraph *g = ir_parse(text, strlen(text), "short.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(ir_expand_decompositions(g, stderr) == 0);
    CHECK(count_kind(g->top, "aten::_native_multi_head_attention") == 1);
    ir_graph_free(g);
}

/* Inside a branch, as nn.MultiheadAttention's fast path calls it. */
static void test_in_a_branch(void)
{
    const char *text =
        "graph(%c : bool, %src : Tensor, %w : Tensor, %b : Tensor, %eps : float):\n"
        "  %d : int = prim::Constant[value=8]()\n"
        "  %h : int = prim::Constant[value=2]()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %r : Tensor = prim::If(%c)\n"
        "    block0():\n"
        "      %y : Tensor = aten::_transformer_encoder_layer_fwd(%src, %d, %h, %w, %b, %w, %b, %f, %f, %eps, %b, %b, %b, %b, %w, %b, %w, %b, %none, %none)\n"
        "      -> (%y)\n"
        "    block1():\n"
        "      -> (%src)\n"
        "  return (%r)\n";
    IrGraph *g = ir_parse(text, strlen(text), "layer.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(ir_expand_decompositions(g, stderr) == 1);
    CHECK(ir_verify(g, stderr));
    CHECK(count_kind(g->top, "aten::_transformer_encoder_layer_fwd") == 0);
    CHECK(count_kind(g->top, "aten::layer_norm") == 4);   /* norm_first and not, each twice */
    ir_graph_free(g);
}

int main(void)
{
    test_two_outputs();
    test_arguments_that_do_not_fit();
    test_in_a_branch();
    return test_report("decompose");
}
