/* test_ir_api.c — the IR core through its public API: building, names,
 * use lists, editing, program order, verification, the op table, types,
 * attributes and float printing. Every expected string below is written by
 * hand from TorchScript's printing rules (the float spellings were checked
 * against torch 1.13: 1e10 prints as 10000000000, 5e-324 as
 * 4.9406564584124654e-324, 1e100 as 1e+100, -0.0 as -0.).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"
#include "tssa/frontend.h"
#include "tssa/ir.h"
#include "tssa/tensor.h"

static char *graph_text(const IrGraph *g)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    ir_print(f, g);
    fclose(f);
    return out;
}

static void check_text(const IrGraph *g, const char *expected, int line)
{
    char *got = graph_text(g);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "FAIL line %d: printed graph differs\n--- expected\n%s--- got\n%s", line,
                expected, got);
        test_failures++;
    }
    free(got);
}

/* Runs ir_verify; returns whether it passed and the messages in *msg. */
static bool verify_capture(IrGraph *g, char **msg)
{
    size_t len;
    FILE *f = open_memstream(msg, &len);
    bool ok = ir_verify(g, f);
    fclose(f);
    return ok;
}

static IrNode *add_node(IrGraph *g, IrBlock *b, const char *kind, IrValue *in0, IrValue *in1,
                        const char *out_name)
{
    IrNode *n = ir_node_new(g, kind);
    if (in0)
        ir_node_add_input(n, in0);
    if (in1)
        ir_node_add_input(n, in1);
    ir_node_add_output(n, ir_type_tensor(g), out_name);
    ir_append(b, n);
    return n;
}

static void test_names(void)
{
    IrGraph *g = ir_graph_new();
    IrBlock *top = g->top;
    IrValue *x0 = ir_block_add_param(top, NULL, "x");
    IrValue *x1 = ir_block_add_param(top, NULL, "x");
    IrValue *x2 = ir_block_add_param(top, NULL, "x");
    IrValue *x3 = ir_block_add_param(top, NULL, "x.1");   /* taken: next suffix of x */
    CHECK(strcmp(x0->name, "x") == 0);
    CHECK(strcmp(x1->name, "x.1") == 0);
    CHECK(strcmp(x2->name, "x.2") == 0);
    CHECK(strcmp(x3->name, "x.3") == 0);
    IrValue *n1 = ir_block_add_param(top, NULL, NULL);
    IrValue *n2 = ir_block_add_param(top, NULL, NULL);
    CHECK(strcmp(n1->name, "1") == 0);
    CHECK(strcmp(n2->name, "2") == 0);
    IrValue *three = ir_block_add_param(top, NULL, "3");
    IrValue *n4 = ir_block_add_param(top, NULL, NULL);    /* 3 is taken: skip it */
    CHECK(strcmp(three->name, "3") == 0);
    CHECK(strcmp(n4->name, "4") == 0);
    CHECK(ir_graph_lookup(g, "x.1") == x1);
    CHECK(ir_graph_lookup(g, "x.9") == NULL);
    char buf[32];
    CHECK(strcmp(ir_value_base_name(x2, buf, sizeof buf), "x") == 0);
    CHECK(strcmp(ir_value_base_name(three, buf, sizeof buf), "3") == 0);
    IrValue *dotted = ir_block_add_param(top, NULL, "a.b.12");
    CHECK(strcmp(ir_value_base_name(dotted, buf, sizeof buf), "a.b") == 0);
    /* Renaming frees the old name and takes a unique new one. */
    ir_value_set_name(g, x1, "y");
    CHECK(strcmp(x1->name, "y") == 0);
    CHECK(ir_graph_lookup(g, "x.1") == NULL);
    CHECK(ir_graph_lookup(g, "y") == x1);
    ir_value_set_name(g, x2, "y");
    CHECK(strcmp(x2->name, "y.1") == 0);
    /* Destroying a node gives its outputs' names back. */
    IrNode *tmp = add_node(g, top, "aten::relu", x0, NULL, "tmp");
    CHECK(ir_graph_lookup(g, "tmp") == tmp->outputs[0]);
    ir_node_destroy(tmp);
    CHECK(ir_graph_lookup(g, "tmp") == NULL);
    IrNode *again = add_node(g, top, "aten::relu", x0, NULL, "tmp");
    CHECK(strcmp(again->outputs[0]->name, "tmp") == 0);
    CHECK(x0->nuses == 1);
    ir_block_add_return(top, again->outputs[0]);
    CHECK(ir_verify(g, stderr));
    /* Many values with one base name stay linear (suffix counter per base). */
    for (int i = 0; i < 20000; i++)
        ir_block_add_param(top, NULL, "v");
    CHECK(ir_graph_lookup(g, "v.19999") != NULL);
    ir_graph_free(g);
}

static void test_build_and_edit(void)
{
    IrGraph *g = ir_graph_new();
    IrBlock *top = g->top;
    IrValue *x = ir_block_add_param(top, ir_type_tensor(g), "x.1");
    IrNode *relu = add_node(g, top, "aten::relu", x, NULL, "a");
    IrNode *neg = add_node(g, top, "aten::neg", relu->outputs[0], NULL, "b");
    ir_block_add_return(top, neg->outputs[0]);
    CHECK(relu->op == OP_ATEN_RELU && neg->op == OP_ATEN_NEG);
    CHECK(ir_verify(g, stderr));
    check_text(g,
               "graph(%x.1 : Tensor):\n"
               "  %a : Tensor = aten::relu(%x.1)\n"
               "  %b : Tensor = aten::neg(%a)\n"
               "  return (%b)\n", __LINE__);

    /* replace-all-uses moves every use, then the node can go. */
    ir_replace_all_uses(relu->outputs[0], x);
    CHECK(relu->outputs[0]->nuses == 0);
    CHECK(x->nuses == 2);
    CHECK(neg->inputs[0] == x);
    ir_node_destroy(relu);
    CHECK(relu->dead);
    CHECK(x->nuses == 1 && x->uses[0].user == neg && x->uses[0].index == 0);
    CHECK(ir_verify(g, stderr));

    /* insert before / after, move. */
    IrNode *sin = ir_node_new(g, "aten::sin");
    ir_node_add_input(sin, x);
    ir_node_add_output(sin, NULL, "s");
    ir_insert_before(sin, neg);
    IrNode *cos = ir_node_new_op(g, OP_ATEN_COS);
    ir_node_add_input(cos, x);
    ir_node_add_output(cos, NULL, "c");
    ir_insert_after(cos, neg);
    CHECK(ir_node_is_before(sin, neg) && ir_node_is_before(neg, cos));
    CHECK(!ir_node_is_before(cos, sin));
    check_text(g,
               "graph(%x.1 : Tensor):\n"
               "  %s : Tensor = aten::sin(%x.1)\n"
               "  %b : Tensor = aten::neg(%x.1)\n"
               "  %c : Tensor = aten::cos(%x.1)\n"
               "  return (%b)\n", __LINE__);
    ir_move_before(cos, sin);
    ir_move_after(sin, neg);
    check_text(g,
               "graph(%x.1 : Tensor):\n"
               "  %c : Tensor = aten::cos(%x.1)\n"
               "  %b : Tensor = aten::neg(%x.1)\n"
               "  %s : Tensor = aten::sin(%x.1)\n"
               "  return (%b)\n", __LINE__);
    CHECK(ir_node_is_before(cos, sin));

    /* Inputs: set, remove (indices of later inputs shift, use lists follow). */
    IrNode *add = ir_node_new(g, "aten::add");
    ir_node_add_input(add, sin->outputs[0]);
    ir_node_add_input(add, cos->outputs[0]);
    ir_node_add_input(add, x);
    ir_node_add_output(add, NULL, "sum");
    ir_append(top, add);
    ir_node_remove_input(add, 0);
    CHECK(add->ninputs == 2 && add->inputs[0] == cos->outputs[0] && add->inputs[1] == x);
    CHECK(sin->outputs[0]->nuses == 0);
    ir_node_set_input(add, 1, neg->outputs[0]);
    CHECK(ir_verify(g, stderr));
    ir_block_remove_return(top, 0);
    ir_block_add_return(top, add->outputs[0]);
    ir_prepend(top, ir_node_new(g, "prim::Print"));
    ir_node_destroy(sin);
    CHECK(ir_verify(g, stderr));
    check_text(g,
               "graph(%x.1 : Tensor):\n"
               "   = prim::Print()\n"
               "  %c : Tensor = aten::cos(%x.1)\n"
               "  %b : Tensor = aten::neg(%x.1)\n"
               "  %sum : Tensor = aten::add(%c, %b)\n"
               "  return (%sum)\n", __LINE__);
    CHECK(ir_graph_count_nodes(g) == 4);
    ir_graph_free(g);
}

/* An If inside a Loop, built through the API, printed as torch would. */
static void test_blocks(void)
{
    IrGraph *g = ir_graph_new();
    IrBlock *top = g->top;
    IrValue *n = ir_block_add_param(top, ir_type_simple(g, TY_INT), "n");
    IrValue *x = ir_block_add_param(top, NULL, "x");
    IrNode *t = ir_node_new(g, "prim::Constant");
    ir_attr_set_int(t, "value", 1);
    IrValue *cond = ir_node_add_output(t, ir_type_simple(g, TY_BOOL), NULL);
    ir_append(top, t);
    IrNode *loop = ir_node_new(g, "prim::Loop");
    ir_node_add_input(loop, n);
    ir_node_add_input(loop, cond);
    ir_node_add_input(loop, x);
    IrBlock *body = ir_node_add_block(loop);
    IrValue *i = ir_block_add_param(body, ir_type_simple(g, TY_INT), "i");
    IrValue *acc = ir_block_add_param(body, NULL, "acc");
    ir_append(top, loop);
    IrNode *cmp = ir_node_new(g, "aten::gt");
    ir_node_add_input(cmp, i);
    ir_node_add_input(cmp, n);
    IrValue *big = ir_node_add_output(cmp, ir_type_simple(g, TY_BOOL), "big");
    ir_append(body, cmp);
    IrNode *ifn = ir_node_new(g, "prim::If");
    ir_node_add_input(ifn, big);
    IrBlock *then_b = ir_node_add_block(ifn);
    IrBlock *else_b = ir_node_add_block(ifn);
    ir_append(body, ifn);
    IrNode *dbl = add_node(g, then_b, "aten::add", acc, acc, "d");
    ir_block_add_return(then_b, dbl->outputs[0]);
    ir_block_add_return(else_b, acc);
    IrValue *next = ir_node_add_output(ifn, NULL, "acc.1");
    ir_block_add_return(body, cond);
    ir_block_add_return(body, next);
    IrValue *out = ir_node_add_output(loop, NULL, "out");
    ir_block_add_return(top, out);
    CHECK(ir_verify(g, stderr));
    check_text(g,
               "graph(%n : int,\n"
               "      %x : Tensor):\n"
               "  %1 : bool = prim::Constant[value=1]()\n"
               "  %out : Tensor = prim::Loop(%n, %1, %x)\n"
               "    block0(%i : int, %acc : Tensor):\n"
               "      %big : bool = aten::gt(%i, %n)\n"
               "      %acc.1 : Tensor = prim::If(%big)\n"
               "        block0():\n"
               "          %d : Tensor = aten::add(%acc, %acc)\n"
               "          -> (%d)\n"
               "        block1():\n"
               "          -> (%acc)\n"
               "      -> (%1, %acc.1)\n"
               "  return (%out)\n", __LINE__);

    /* Program order across blocks: a container comes before its contents,
     * contents come before what follows the container. */
    CHECK(ir_node_is_before(t, dbl));
    CHECK(ir_node_is_before(loop, dbl));
    CHECK(!ir_node_is_before(dbl, loop));
    CHECK(ir_node_is_before(dbl, body->ret));
    CHECK(ir_node_is_before(cmp, dbl));
    CHECK(!ir_node_is_before(dbl, cmp));
    CHECK(ir_node_is_before(dbl, top->ret));
    CHECK(ir_node_is_before(then_b->ret, else_b->ret));

    /* replace_uses_after: uses after `cmp` (including inside the If that
     * follows it) move to %x; the use by cmp itself and by the loop stay. */
    IrNode *early = add_node(g, body, "aten::neg", acc, NULL, "early");
    ir_move_before(early, cmp);
    ir_replace_uses_after(acc, x, cmp);
    CHECK(early->inputs[0] == acc);
    CHECK(dbl->inputs[0] == x && dbl->inputs[1] == x);
    CHECK(else_b->ret->inputs[0] == x);
    /* Users inside `after`'s own blocks are not after it. */
    ir_replace_uses_after(x, acc, ifn);
    CHECK(dbl->inputs[0] == x && else_b->ret->inputs[0] == x);
    ir_replace_uses_after(x, acc, t);
    CHECK(dbl->inputs[0] == acc && else_b->ret->inputs[0] == acc && loop->inputs[2] == acc);
    /* ...which makes the loop use its own block parameter: not dominated. */
    char *msg;
    CHECK(!verify_capture(g, &msg));
    CHECK(strstr(msg, "prim::Loop uses %acc where its definition does not reach") != NULL);
    free(msg);
    ir_node_set_input(loop, 2, x);
    ir_node_remove_input(early, 0);
    ir_node_add_input(early, x);
    CHECK(ir_verify(g, stderr));

    /* ir_walk is pre-order: constant, loop, gt, neg(early moved before gt), If, add. */
    ir_graph_free(g);
}

static void count_visit(IrNode *n, void *ctx)
{
    char *order = ctx;
    strcat(order, n->kind + 6);     /* drop "aten::" / "prim::" */
    strcat(order, " ");
}

static void test_walk(void)
{
    IrGraph *g = ir_graph_new();
    IrValue *c = ir_block_add_param(g->top, ir_type_simple(g, TY_BOOL), "c");
    IrValue *x = ir_block_add_param(g->top, NULL, "x");
    IrNode *ifn = ir_node_new(g, "prim::If");
    ir_node_add_input(ifn, c);
    IrBlock *b0 = ir_node_add_block(ifn), *b1 = ir_node_add_block(ifn);
    ir_append(g->top, ifn);
    add_node(g, b0, "aten::sin", x, NULL, NULL);
    add_node(g, b1, "aten::cos", x, NULL, NULL);
    add_node(g, g->top, "aten::tan", x, NULL, NULL);
    char order[256] = "";
    ir_walk(g->top, count_visit, order);
    CHECK(strcmp(order, "If sin cos tan ") == 0);
    CHECK(ir_graph_count_nodes(g) == 4);
    ir_graph_free(g);
}

static void test_verify_catches(void)
{
    /* Use before definition in the same block. */
    IrGraph *g = ir_graph_new();
    IrValue *x = ir_block_add_param(g->top, NULL, "x");
    IrNode *late = ir_node_new(g, "aten::relu");
    ir_node_add_input(late, x);
    IrValue *l = ir_node_add_output(late, NULL, "late");
    IrNode *early = add_node(g, g->top, "aten::neg", l, NULL, "early");
    ir_append(g->top, late);
    ir_block_add_return(g->top, early->outputs[0]);
    char *msg;
    CHECK(!verify_capture(g, &msg));
    CHECK(strstr(msg, "aten::neg uses %late where its definition does not reach") != NULL);
    free(msg);
    ir_move_before(late, early);
    CHECK(ir_verify(g, stderr));

    /* A node built with inputs but never inserted leaves a dangling use. */
    IrNode *stray = ir_node_new(g, "aten::sin");
    ir_node_add_input(stray, x);
    CHECK(!verify_capture(g, &msg));
    CHECK(strstr(msg, "%x has a use by aten::sin that is not in the graph") != NULL);
    free(msg);
    ir_node_remove_all_inputs(stray);
    CHECK(ir_verify(g, stderr));

    /* If with one block; Loop whose outputs do not match its carried values. */
    IrNode *ifn = ir_node_new(g, "prim::If");
    ir_node_add_input(ifn, x);
    ir_block_add_return(ir_node_add_block(ifn), x);
    ir_node_add_output(ifn, NULL, NULL);
    ir_append(g->top, ifn);
    CHECK(!verify_capture(g, &msg));
    CHECK(strstr(msg, "prim::If has 1 blocks, expected 2") != NULL);
    free(msg);
    ir_block_add_return(ir_node_add_block(ifn), x);
    CHECK(ir_verify(g, stderr));
    IrNode *loop = ir_node_new(g, "prim::Loop");
    ir_node_add_input(loop, x);
    ir_node_add_input(loop, x);
    ir_node_add_input(loop, x);
    IrBlock *body = ir_node_add_block(loop);
    ir_block_add_param(body, NULL, "it");
    ir_block_add_param(body, NULL, "carried");
    ir_block_add_return(body, x);
    ir_block_add_return(body, x);
    ir_append(g->top, loop);
    CHECK(!verify_capture(g, &msg));
    CHECK(strstr(msg, "prim::Loop carries 1 values but has 0 outputs") != NULL);
    free(msg);
    ir_node_add_output(loop, NULL, NULL);
    CHECK(ir_verify(g, stderr));
    ir_graph_free(g);
}

/* Order numbers stay consistent under heavy insertion at one spot, and cost
 * stays near-linear (relabelling is local, not the whole block each time). */
static void test_order_stress(void)
{
    IrGraph *g = ir_graph_new();
    IrValue *x = ir_block_add_param(g->top, NULL, "x");
    IrNode *first = add_node(g, g->top, "aten::relu", x, NULL, NULL);
    IrNode *last = add_node(g, g->top, "aten::relu", x, NULL, NULL);
    clock_t start = clock();
    enum { N = 200000 };
    for (int i = 0; i < N; i++) {
        IrNode *n = ir_node_new(g, "aten::neg");
        ir_node_add_input(n, x);
        if (i % 2)
            ir_insert_before(n, last);      /* always at the same spot */
        else
            ir_prepend(g->top, n);          /* always at the very front */
    }
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(ir_verify(g, stderr));            /* checks orders strictly increase */
    CHECK(ir_node_is_before(first, last));
    CHECK(x->nuses == N + 2);
    int in_order = 1;
    for (IrNode *n = ir_block_first(g->top); n->next != g->top->ret; n = n->next)
        in_order &= ir_node_is_before(n, n->next) && !ir_node_is_before(n->next, n);
    CHECK(in_order);
    if (seconds > 5.0) {
        fprintf(stderr, "FAIL: %d insertions at one spot took %.2f s\n", N, seconds);
        test_failures++;
    }
    /* Destroying all users of a value with many uses is linear too. */
    start = clock();
    IrNode *n = ir_block_first(g->top);
    while (n != g->top->ret) {
        IrNode *next = n->next;
        ir_node_destroy(n);
        n = next;
    }
    seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(x->nuses == 0);
    CHECK(seconds < 5.0);
    CHECK(ir_verify(g, stderr));
    ir_graph_free(g);
}

static void test_ops(void)
{
    CHECK(op_lookup("aten::add_") == OP_ATEN_ADD_);
    CHECK(op_lookup("aten::add") == OP_ATEN_ADD);
    CHECK(op_lookup("prim::If") == OP_PRIM_IF);
    CHECK(op_lookup("aten::definitely_not_an_op") == OP_UNKNOWN);
    CHECK(op_lookup("aten::ad") == OP_UNKNOWN);
    CHECK(op_lookup("") == OP_UNKNOWN);
    CHECK(op_functional_variant(OP_ATEN_ADD_) == OP_ATEN_ADD);
    CHECK(op_functional_variant(OP_ATEN_RELU_) == OP_ATEN_RELU);
    CHECK(op_functional_variant(OP_ATEN_MASKED_FILL_) == OP_ATEN_MASKED_FILL);
    CHECK(op_functional_variant(OP_ATEN_ADD) == OP_UNKNOWN);
    CHECK(op_functional_variant(OP_ATEN_COPY_) == OP_UNKNOWN);    /* no aten::copy listed */
    CHECK(op_is_inplace(OP_ATEN_MUL_) && !op_is_inplace(OP_ATEN_MUL));
    /* derived twins (ops_inplace.inc): the two kinds */
    CHECK(op_lookup("aten::squeeze_") == OP_ATEN_SQUEEZE_);
    CHECK(op_functional_variant(OP_ATEN_SQUEEZE_) == OP_ATEN_SQUEEZE);
    CHECK(op_inplace_is_metadata(OP_ATEN_SQUEEZE_) && op_inplace_is_metadata(OP_ATEN_T_) &&
          op_inplace_is_metadata(OP_ATEN_AS_STRIDED_));
    CHECK(op_functional_variant(OP_ATEN_TRIL_) == OP_ATEN_TRIL && !op_inplace_is_metadata(OP_ATEN_TRIL_));
    CHECK(op_info(OP_ATEN_CUMSUM_)->mutates == 0 && op_info(OP_ATEN_CUMSUM_)->alias == ALIAS_SELF);
    CHECK(!op_inplace_is_metadata(OP_ATEN_ADD_) && !op_inplace_is_metadata(OP_ATEN_SQUEEZE));
    CHECK(op_is_view(OP_ATEN_SELECT) && !op_is_view(OP_ATEN_ADD));
    for (int op = 1; op < OP_COUNT; op++) {
        if (op_lookup(op_table[op].name) != (OpId)op) {
            fprintf(stderr, "FAIL: op_lookup(\"%s\") does not give its own id\n",
                    op_table[op].name);
            test_failures++;
        }
    }
    /* Every op has an arity row (ir/gen_op_arity.py regenerates them when
     * an op is added); the counts below are PyTorch's schemas'. */
    for (int op = 1; op < OP_COUNT; op++) {
        const char *schema = NULL;
        op_min_args((OpId)op, false, &schema);
        if (!schema) {
            fprintf(stderr, "FAIL: %s has no row in ir/op_arity_table.inc (rerun ir/gen_op_arity.py)\n",
                    op_table[op].name);
            test_failures++;
        }
    }
    CHECK(op_min_args(OP_ATEN_MM, false, NULL) == 2);
    CHECK(op_min_args(OP_ATEN_SOFTMAX, false, NULL) == 2);      /* dtype has a default */
    CHECK(op_min_args(OP_ATEN_ADD, false, NULL) == 2);          /* alpha has a default */
    CHECK(op_min_args(OP_PRIM_LISTCONSTRUCT, false, NULL) == 0);
    CHECK(op_min_args(OP_IMMUT_SELECT_REV, false, NULL) == 4);  /* root, src, dim, index */
    CHECK(op_min_args(OP_UNKNOWN, false, NULL) == 0);
    CHECK(op_min_args(OP_ATEN_SELECT, false, NULL) == 2);    /* select(t[] list, int idx) */
    CHECK(op_min_args(OP_ATEN_SELECT, true, NULL) == 3);     /* select(Tensor self, int dim, int index) */
    IrGraph *g = ir_graph_new();
    IrNode *n = ir_node_new(g, "aten::sigmoid_");
    CHECK(n->op == OP_ATEN_SIGMOID_);
    CHECK(ir_node_new(g, "custom::thing")->op == OP_UNKNOWN);
    ir_graph_free(g);
}

static void check_double(double v, const char *expected)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    ir_print_double(f, v);
    fclose(f);
    if (strcmp(out, expected) != 0) {
        fprintf(stderr, "FAIL: ir_print_double gives \"%s\", expected \"%s\"\n", out, expected);
        test_failures++;
    }
    free(out);
}

static void test_doubles(void)
{
    check_double(2.0, "2.");
    check_double(-3.0, "-3.");
    check_double(0.0, "0.");
    check_double(-0.0, "-0.");
    check_double(0.5, "0.5");
    check_double(0.1, "0.10000000000000001");
    check_double(1e-5, "1.0000000000000001e-05");
    check_double(123456789.0, "123456789.");
    check_double(1e10, "10000000000");
    check_double(1e16, "10000000000000000");
    check_double(1e100, "1e+100");
    check_double(1e-300, "1e-300");
    check_double(5e-324, "4.9406564584124654e-324");
    check_double(INFINITY, "inf");
    check_double(-INFINITY, "-inf");
    check_double(NAN, "nan");
}

static void test_attrs_and_types(void)
{
    IrGraph *g = ir_graph_new();
    IrNode *n = ir_node_new(g, "prim::Thing");
    ir_attr_set_int(n, "i", -7);
    ir_attr_set_float(n, "f", 2.0);
    ir_attr_set_str(n, "s", "a\"b\\c\nd\te");
    int64_t ints[] = {1, -2, 3};
    double floats[] = {0.5, 1.0};
    ir_attr_set_ints(n, "is", ints, 3);
    ir_attr_set_floats(n, "fs", floats, 2);
    ir_attr_set_ints(n, "empty", NULL, 0);
    ir_attr_set_int(n, "i", 9);     /* replaces, keeps its place */
    CHECK(n->nattrs == 6);
    CHECK(ir_attr_find(n, "i")->u.i == 9);
    CHECK(ir_attr_find(n, "missing") == NULL);
    IrType *elems[2] = {ir_type_optional(g, ir_type_tensor(g)), ir_type_simple(g, TY_INT)};
    IrType *tuple = ir_type_tuple(g, 2, elems);
    ir_node_add_output(n, ir_type_list(g, tuple), "out");
    ir_append(g->top, n);
    ir_block_add_return(g->top, n->outputs[0]);
    check_text(g,
               "graph():\n"
               "  %out : (Tensor?, int)[] = prim::Thing[i=9, f=2., s=\"a\\\"b\\\\c\\nd\\te\", "
               "is=[1, -2, 3], fs=[0.5, 1.], empty=[]]()\n"
               "  return (%out)\n", __LINE__);
    IrType *elems2[2] = {ir_type_optional(g, ir_type_tensor(g)), ir_type_simple(g, TY_INT)};
    CHECK(ir_type_equal(tuple, ir_type_tuple(g, 2, elems2)));
    CHECK(!ir_type_equal(tuple, ir_type_tuple(g, 1, elems2)));
    CHECK(!ir_type_equal(ir_type_simple(g, TY_INT), ir_type_simple(g, TY_FLOAT)));
    CHECK(strcmp(ir_type_kind_name(TY_NONE), "NoneType") == 0);

    /* Parsed refined tensor types compare structurally. */
    const char *text = "graph(%a : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
                       "      %b : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
                       "      %c : Float(2, *, requires_grad=0, device=cpu),\n"
                       "      %d : Long(requires_grad=0, device=cpu),\n"
                       "      %e : Future(int),\n"
                       "      %f : Future[Tensor],\n"
                       "      %g : Dict(str, Tensor)?,\n"
                       "      %h : Tensor(*, 4),\n"
                       "      %i : Float,\n"
                       "      %j : RRef(int)):\n"
                       "  return (%a)\n";
    IrGraph *p = ir_parse(text, strlen(text), "types.ir", stderr);
    CHECK(p != NULL);
    if (p) {
        IrValue *a = ir_graph_lookup(p, "a"), *b = ir_graph_lookup(p, "b");
        IrValue *c = ir_graph_lookup(p, "c"), *d = ir_graph_lookup(p, "d");
        CHECK(ir_type_equal(a->type, b->type));
        CHECK(!ir_type_equal(a->type, c->type));
        CHECK(a->type->tensor.rank == 2 && a->type->tensor.sizes[1] == 3);
        CHECK(a->type->tensor.strides[0] == 3 && a->type->tensor.requires_grad == 0);
        CHECK(strcmp(a->type->tensor.device, "cpu") == 0);
        CHECK(a->type->tensor.dtype == DT_F32);
        CHECK(c->type->tensor.sizes[1] == -1 && c->type->tensor.strides == NULL);
        CHECK(d->type->tensor.rank == 0 && d->type->tensor.dtype == DT_I64);
        IrType *e = ir_graph_lookup(p, "e")->type, *f2 = ir_graph_lookup(p, "f")->type;
        CHECK(e->kind == TY_FUTURE && e->elems[0]->kind == TY_INT);
        CHECK(f2->kind == TY_FUTURE && f2->elems[0]->kind == TY_TENSOR);
        IrType *h = ir_graph_lookup(p, "g")->type;
        CHECK(h->kind == TY_OPTIONAL && h->elems[0]->kind == TY_DICT);
        CHECK(ir_graph_lookup(p, "j")->type->kind == TY_OTHER);
        check_text(p, text, __LINE__);
        ir_graph_free(p);
    }
    ir_graph_free(g);
}

/* Parsed attributes decode to values; odd spellings print back verbatim. */
static void test_parsed_attrs(void)
{
    const char *text =
        "graph():\n"
        "  %a : float = prim::Constant[value=1.0000000000000001e-05]()\n"
        "  %b : float = prim::Constant[value=1.5e3]()\n"
        "  %c : str = prim::Constant[value=\"q\\\"\\x41\\101\\n\"]()\n"
        "  %d : int[] = prim::Constant[value=[1, 2, -3]]()\n"
        "  %e : Tensor = prim::Constant[value={2.5}]()\n"
        "  %f : Tensor = prim::Constant[value= 1  2 [ CPULongType{2} ]]()\n"
        "  %g : (int, int) = prim::Constant[value=(1, 2)]()\n"
        "  %h : float = prim::Constant[value=-inf]()\n"
        "  %i : float = prim::Constant[value=10000000000]()\n"
        "  %j : str[] = prim::Constant[value=[\"x\", \"y\"]]()\n"
        "  %k : float[] = prim::Constant[value=[1, 2.5]]()\n"
        "  return (%a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k)\n";
    IrGraph *g = ir_parse(text, strlen(text), "attrs.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    IrAttr *a = ir_attr_find(ir_graph_lookup(g, "a")->def, "value");
    CHECK(a->kind == ATTR_FLOAT && a->u.f == 1e-5 && a->spelling == NULL);
    IrAttr *b = ir_attr_find(ir_graph_lookup(g, "b")->def, "value");
    CHECK(b->kind == ATTR_FLOAT && b->u.f == 1500.0 && strcmp(b->spelling, "1.5e3") == 0);
    IrAttr *c = ir_attr_find(ir_graph_lookup(g, "c")->def, "value");
    CHECK(c->kind == ATTR_STR && strcmp(c->u.s, "q\"AA\n") == 0);
    IrAttr *d = ir_attr_find(ir_graph_lookup(g, "d")->def, "value");
    CHECK(d->kind == ATTR_INTS && d->n == 3 && d->u.is[2] == -3);
    IrAttr *e = ir_attr_find(ir_graph_lookup(g, "e")->def, "value");
    CHECK(e->kind == ATTR_TENSOR && strcmp(e->u.t.text, "{2.5}") == 0);
    IrAttr *f = ir_attr_find(ir_graph_lookup(g, "f")->def, "value");
    CHECK(f->kind == ATTR_TENSOR && strcmp(f->u.t.text, " 1  2 [ CPULongType{2} ]") == 0);
    IrAttr *gg = ir_attr_find(ir_graph_lookup(g, "g")->def, "value");
    CHECK(gg->kind == ATTR_RAW && strcmp(gg->u.raw, "(1, 2)") == 0);
    IrAttr *h = ir_attr_find(ir_graph_lookup(g, "h")->def, "value");
    CHECK(h->kind == ATTR_FLOAT && isinf(h->u.f) && h->u.f < 0);
    IrAttr *i = ir_attr_find(ir_graph_lookup(g, "i")->def, "value");
    CHECK(i->kind == ATTR_FLOAT && i->u.f == 1e10);    /* float output: a float */
    IrAttr *j = ir_attr_find(ir_graph_lookup(g, "j")->def, "value");
    CHECK(j->kind == ATTR_STRS && j->n == 2 && strcmp(j->u.ss[1], "y") == 0);
    IrAttr *k = ir_attr_find(ir_graph_lookup(g, "k")->def, "value");
    CHECK(k->kind == ATTR_FLOATS && k->n == 2 && k->u.fs[0] == 1.0 && k->spelling != NULL);
    check_text(g, text, __LINE__);
    ir_graph_free(g);
}

/* Tensor constants of a frozen module (frontend/golden/frozen_consts.ir,
 * from programs/frozen_consts.py, whose values are restated here). */
static void test_tensor_constants(void)
{
    IrGraph *g = ir_parse_file("frontend/golden/frozen_consts.ir", stderr);
    CHECK(g != NULL);
    if (!g)
        return;
    struct { const char *name; TensorDType dt; int ndim; int64_t sizes[3]; double values[4]; } want[] = {
        {"self.offset", DT_F32, 1, {3}, {1.0, -2.0, 3.5}},
        {"self.flags", DT_BOOL, 1, {2}, {1, 0}},
        {"self.cube", DT_I64, 3, {2, 1, 2}, {1, 2, 3, 4}},
        {"self.tiny", DT_F32, 2, {2, 2}, {1e-5, 2e-5, 3e-5, 4e-5}},
        {"self.gain", DT_F32, 0, {0}, {2.5}},
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        IrValue *v = ir_graph_lookup(g, want[w].name);
        IrAttr *a = v ? ir_attr_find(v->def, "value") : NULL;
        const Tensor *t = a && a->kind == ATTR_TENSOR ? a->u.t.tensor : NULL;
        if (!t) {
            fprintf(stderr, "FAIL: no tensor data for %%%s\n", want[w].name);
            test_failures++;
            continue;
        }
        CHECK(t->dtype == want[w].dt && t->ndim == want[w].ndim);
        int64_t numel = 1;
        for (int d = 0; d < t->ndim && d < 3; d++) {
            CHECK(t->sizes[d] == want[w].sizes[d]);
            numel *= t->sizes[d];
        }
        for (int64_t i = 0; i < numel && i < 4; i++) {
            double got = tensor_get_flat(t, i);
            if (fabs(got - want[w].values[i]) > 1e-6 * fabs(want[w].values[i])) {
                fprintf(stderr, "FAIL: %%%s[%lld] = %g, expected %g\n", want[w].name,
                        (long long)i, got, want[w].values[i]);
                test_failures++;
            }
        }
    }
    IrAttr *weight = ir_attr_find(ir_graph_lookup(g, "self.weight")->def, "value");
    CHECK(weight->kind == ATTR_TENSOR && weight->u.t.tensor == NULL);   /* <Tensor> */
    ir_graph_free(g);
}

int main(void)
{
    test_names();
    test_build_and_edit();
    test_blocks();
    test_walk();
    test_verify_catches();
    test_order_stress();
    test_ops();
    test_doubles();
    test_attrs_and_types();
    test_parsed_attrs();
    test_tensor_constants();
    return test_report("frontend_ir_api");
}
