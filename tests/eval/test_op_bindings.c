/* test_op_bindings.c — the op table's eval column (include/tssa/ops.h)
 * against what the reference backend can run.
 *
 * Every row either names a binding, or is NOEVAL for one of the reasons the
 * table's header lists: the interpreter runs the op itself (eval/interp.c:
 * Param and Return are a block's edges, If, Loop, Constant and FusionGroup
 * its own cases), no backend ever meets it (tssa::update, removed by
 * TensorSSA before a run), it is an immut:: op with a binding in
 * ops_immut.c's table, or it is an in-place op whose functional variant has
 * a binding (dispatch.c's generic in-place rule). A NOEVAL row outside
 * these is an op the table lists, that the corpus may use, and that the ref
 * backend would refuse: this program fails naming it. So does an op with a
 * kernel template (KERNEL_TEMPLATES) but no binding.
 *
 * With --list it prints the binding every bound row names, one per line:
 * tests/eval/op_bindings.sh compares that list with the eval_op_* functions
 * the library defines, so a binding no row names fails too.
 */
#include <stdio.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "eval/ops_immut.h"
#include "test_util.h"

/* The binding name each row gives, as text ("eval_op_add"), or NULL. */
#define BINDING_NAME(id, name, cls, mut, alias, eval) EVAL_IF_BOUND(eval, [OP_##id] = "eval_op_" #eval,)
static const char *const binding_names[OP_COUNT] = {TSSA_OPS(BINDING_NAME)};
#undef BINDING_NAME

/* Ops the interpreter runs itself or that never reach a backend. */
static bool run_without_binding(OpId op)
{
    switch (op) {
    case OP_PRIM_PARAM:
    case OP_PRIM_RETURN:
    case OP_PRIM_IF:
    case OP_PRIM_LOOP:
    case OP_PRIM_CONSTANT:
    case OP_TSSA_FUSION_GROUP:
    case OP_TSSA_UPDATE:
        return true;
    default:
        return false;
    }
}

static bool runs_through_immut_table(OpId op)
{
    OpClass cls = op_info(op)->cls;
    return (cls == OPC_ACCESS || cls == OPC_ASSIGN) && eval_immut_binding(op) != NULL;
}

static bool runs_as_functional_and_copy(OpId op)
{
    return op_info(op)->mutates == 0 && eval_binding(op_functional_variant(op)) != NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int op = OP_UNKNOWN + 1; op < OP_COUNT; op++)
            if (binding_names[op])
                printf("%s\n", binding_names[op]);
        return 0;
    }
    int bound = 0;
    for (int op = OP_UNKNOWN + 1; op < OP_COUNT; op++) {
        OpId id = (OpId)op;
        const char *name = op_info(id)->name;
        /* The generated dispatch table and the row's column agree. */
        CHECK_MSG((eval_binding(id) != NULL) == (binding_names[op] != NULL), "%s: dispatch entry %s, row %s",
                  name, eval_binding(id) ? "set" : "empty", binding_names[op] ? binding_names[op] : "NOEVAL");
        if (eval_binding(id)) {
            bound++;
            continue;
        }
        CHECK_MSG(run_without_binding(id) || runs_through_immut_table(id) || runs_as_functional_and_copy(id),
                  "%s: its row in include/tssa/ops.h is NOEVAL, yet the interpreter does not run it, it is "
                  "no immut:: op and no in-place op with a bound functional variant: name its binding",
                  name);
    }
    /* An op generated kernels compute inline (a KERNEL_TEMPLATES row) is
     * one the ref backend runs too: the fused backends are checked against
     * it. */
    for (int op = OP_UNKNOWN + 1; op < OP_COUNT; op++)
        CHECK_MSG(!op_template(op) || eval_binding((OpId)op), "%s has a kernel template but no binding",
                  op_info((OpId)op)->name);
    /* The reasons above are not blanket passes: each excused op class is small. */
    CHECK_MSG(bound > 600, "only %d ops have a binding", bound);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
