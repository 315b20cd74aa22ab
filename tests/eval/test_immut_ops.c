/* test_immut_ops — every immut:: access/assign pair of the ref backend
 * (eval/ops_immut.c) against PyTorch.
 *
 * eval/immut_cases.txt lists the cases (random shapes, negative dims and
 * indices, slice steps, broadcasting, number and other-dtype sources) and
 * eval/immut_cases.safetensors holds their tensors and expected results,
 * both made by gen_immut_cases.py with PyTorch. Each case calls the access
 * op (root, args...) and the assign op (root, src, args...) through their
 * ref bindings and compares dtype, shape and every element exactly (the
 * ops only move and cast data). It also checks that neither result shares
 * storage with the root, and that the root is left unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/ops_immut.h"
#include "test_util.h"
#include "tssa/io.h"
#include "tssa/ir.h"
#include "tssa/value.h"

static const Safetensors *cases;
static Tensor *named(const char *name)
{
    Tensor *t = safetensors_get(cases, name);
    if (!t) {
        fprintf(stderr, "missing tensor %s in immut_cases.safetensors\n", name);
        exit(1);
    }
    return t;
}

/* A command-line-like token as a runtime value (see immut_cases.txt). */
static RtValue *token_value(const char *tok)
{
    if (!strcmp(tok, "n"))
        return rt_none();
    if (!strncmp(tok, "i:", 2))
        return rt_int(strtoll(tok + 2, NULL, 10));
    if (!strncmp(tok, "b:", 2))
        return rt_bool(tok[2] == '1');
    if (!strncmp(tok, "f:", 2))
        return rt_float(strtod(tok + 2, NULL));
    if (!strncmp(tok, "t:", 2)) {
        Tensor *t = named(tok + 2);
        RtValue *v = rt_tensor(t);
        tensor_release(t);
        return v;
    }
    if (!strncmp(tok, "l:", 2) || !strncmp(tok, "T:", 2)) {
        RtValue *list = rt_list(RT_LIST, 0, NULL);
        char buf[512];
        snprintf(buf, sizeof buf, "%s", tok + 2);
        for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            char inner[300];
            if (tok[0] == 'l')
                snprintf(inner, sizeof inner, "i:%s", p);
            else
                snprintf(inner, sizeof inner, strcmp(p, "n") ? "t:%s" : "n", p);
            RtValue *item = token_value(inner);
            rt_list_append(list, item);
            rt_release(item);
        }
        return list;
    }
    fprintf(stderr, "bad token '%s'\n", tok);
    exit(1);
}

static bool same_tensor(const Tensor *want, const Tensor *got)
{
    if (want->dtype != got->dtype || !tensor_same_shape(want, got))
        return false;
    for (int64_t i = 0; i < tensor_numel(want); i++) {
        if (dtype_is_float(want->dtype)) {
            double a = tensor_get_flat(want, i), b = tensor_get_flat(got, i);
            if (a != b && !(a != a && b != b))
                return false;
        } else if (tensor_get_flat_int(want, i) != tensor_get_flat_int(got, i)) {
            return false;
        }
    }
    return true;
}

/* Runs op on args through its ref binding; the result, or NULL. */
static Tensor *run_op(IrGraph *g, OpId op, RtValue **args, int nargs, char **message)
{
    EvalRun run;
    memset(&run, 0, sizeof run);
    run.graph = g;
    IrNode *node = ir_node_new_op(g, op);
    ir_node_add_output(node, ir_type_tensor(g), NULL);
    RtValue *out = NULL;
    EvalCall call = {&run, node, args, nargs, &out, 1, 0};
    EvalOpFn fn = eval_immut_binding(op);
    Tensor *t = NULL;
    if (fn && fn(&call) && out && out->kind == RT_TENSOR)
        t = tensor_retain(out->u.t);
    rt_release(out);
    *message = run.message;
    return t;
}

static void check(const char *name, const char *what, IrGraph *g, OpId op, RtValue **args,
                  int nargs, const Tensor *root_before)
{
    char key[256], *message = NULL;
    snprintf(key, sizeof key, "%s.%s", name, what);
    Tensor *want = named(key);
    Tensor *got = run_op(g, op, args, nargs, &message);
    const Tensor *root = args[0]->u.t;
    if (!got) {
        printf("FAIL %s %s: %s failed: %s\n", name, what, op_info(op)->name,
               message ? message : "(no message)");
        test_failures++;
    } else if (!same_tensor(want, got)) {
        printf("FAIL %s %s: %s gives a different result\n", name, what, op_info(op)->name);
        test_failures++;
    } else if (got->storage == root->storage) {
        printf("FAIL %s %s: the result shares the root's storage\n", name, what);
        test_failures++;
    } else if (!same_tensor(root_before, root)) {
        printf("FAIL %s %s: the root was modified\n", name, what);
        test_failures++;
    }
    free(message);
    tensor_release(got);
    tensor_release(want);
}

static OpId assign_twin(OpId access)
{
    const char *name = op_info(access)->name;
    char buf[128];
    snprintf(buf, sizeof buf, "%s_rev", name);
    return op_lookup(buf);
}

int main(void)
{
    Safetensors *st = safetensors_open("eval/immut_cases.safetensors", stderr);
    FILE *f = fopen("eval/immut_cases.txt", "r");
    if (!st || !f) {
        fprintf(stderr, "cannot open the immut cases (run from tests/)\n");
        return 1;
    }
    cases = st;
    IrGraph *g = ir_graph_new();
    char line[2048];
    int ncases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *tokens[64];
        int n = 0;
        for (char *save = NULL, *p = strtok_r(line, " \n", &save); p && n < 64;
             p = strtok_r(NULL, " \n", &save))
            tokens[n++] = p;
        if (n < 4 || strncmp(tokens[2], "root=", 5) || strncmp(tokens[3], "src=", 4)) {
            fprintf(stderr, "bad case line: %s\n", tokens[0]);
            return 1;
        }
        const char *name = tokens[0];
        OpId op = op_lookup(tokens[1]);
        if (op == OP_UNKNOWN || !eval_immut_binding(op)) {
            printf("FAIL %s: %s has no ref binding\n", name, tokens[1]);
            test_failures++;
            continue;
        }
        RtValue *root = token_value(tokens[2] + 5);
        RtValue *src = token_value(tokens[3] + 4);
        Tensor *root_before = tensor_clone(root->u.t);
        RtValue *args[66];
        int nextra = n - 4;
        if (op == OP_IMMUT_ASSIGN) {
            args[0] = root;
            args[1] = src;
            check(name, "assign", g, op, args, 2, root_before);
        } else {
            args[0] = root;
            for (int i = 0; i < nextra; i++)
                args[1 + i] = token_value(tokens[4 + i]);
            check(name, "access", g, op, args, 1 + nextra, root_before);
            RtValue *rev_args[66];
            rev_args[0] = root;
            rev_args[1] = src;
            for (int i = 0; i < nextra; i++)
                rev_args[2 + i] = args[1 + i];
            check(name, "assign", g, assign_twin(op), rev_args, 2 + nextra, root_before);
            for (int i = 0; i < nextra; i++)
                rt_release(args[1 + i]);
        }
        tensor_release(root_before);
        rt_release(root);
        rt_release(src);
        ncases++;
    }
    fclose(f);
    ir_graph_free(g);
    safetensors_close(st);
    printf("%d immut cases, %d failures\n", ncases, test_failures);
    return test_failures ? 1 : (ncases > 0 ? 0 : 1);
}
