/* test_torch_cases.c — the tensor library against PyTorch, case by case.
 *
 * Every case in torch_expected_*.h was run through PyTorch 1.13 by
 * gen_expected.py: unary, binary, where/clamp/lerp (out of place and in
 * place, on contiguous, permuted and strided inputs, with Python numbers),
 * result_type for every dtype pair and rank, the view ops (geometry, aliasing,
 * errors) and the range constructors. Here each case runs through the C API
 * and must give PyTorch's dtype, shape, values, result layout (strides and
 * storage offset) and, where PyTorch raises, its exact message.
 */
#include "tensor/torch_expected_binary_arith.h"
#include "tensor/torch_expected_binary_compare.h"
#include "tensor/torch_expected_shapes.h"
#include "tensor/torch_expected_unary.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void run_unary(void)
{
    for (int c = 0; c < COUNT(unary_cases); c++) {
        const UnaryCase *k = &unary_cases[c];
        Tensor *in = test_make_tensor(&k->in);
        CHECK_MSG(in != NULL, "%s: building the input: %s", k->label, tensor_last_error());
        if (!in)
            continue;
        tensor_clear_error();
        if (unary_case_inplace[c]) {
            bool ok = tensor_unary_(k->op, in, k->p0, k->p1);
            if (k->error)
                test_check_error(k->label, !ok, k->error);
            else if (ok)
                test_check_result(k->label, in, &k->expected, true);
            else
                CHECK_MSG(ok, "%s: %s", k->label, tensor_last_error());
        } else {
            Tensor *out = tensor_unary(k->op, in, k->p0, k->p1);
            if (k->error)
                test_check_error(k->label, out == NULL, k->error);
            else if (out)
                test_check_result(k->label, out, &k->expected, true);
            else
                CHECK_MSG(out != NULL, "%s: %s", k->label, tensor_last_error());
            tensor_release(out);
        }
        tensor_release(in);
    }
}

static void run_binary(const BinaryCase *cases, int ncases)
{
    for (int c = 0; c < ncases; c++) {
        const BinaryCase *k = &cases[c];
        Tensor *a = test_make_tensor(&k->a), *b = test_make_tensor(&k->b);
        CHECK_MSG(a && b, "%s: building the inputs: %s", k->label, tensor_last_error());
        if (a && b) {
            tensor_clear_error();
            if (k->inplace) {
                bool ok = k->op == BIN_ADD ? tensor_add_(a, b, k->alpha)
                        : k->op == BIN_SUB ? tensor_sub_(a, b, k->alpha)
                                           : tensor_binary_(k->op, a, b);
                if (k->error)
                    test_check_error(k->label, !ok, k->error);
                else if (ok)
                    test_check_result(k->label, a, &k->expected, true);
                else
                    CHECK_MSG(ok, "%s: %s", k->label, tensor_last_error());
            } else {
                Tensor *out = k->op == BIN_ADD ? tensor_add(a, b, k->alpha)
                            : k->op == BIN_SUB ? tensor_sub(a, b, k->alpha)
                                               : tensor_binary(k->op, a, b);
                if (k->error)
                    test_check_error(k->label, out == NULL, k->error);
                else if (out)
                    test_check_result(k->label, out, &k->expected, true);
                else
                    CHECK_MSG(out != NULL, "%s: %s", k->label, tensor_last_error());
                tensor_release(out);
            }
        }
        tensor_release(a);
        tensor_release(b);
    }
}

static void run_ternary(void)
{
    for (int c = 0; c < COUNT(ternary_cases); c++) {
        const TernaryCase *k = &ternary_cases[c];
        Tensor *in[3];
        for (int j = 0; j < 3; j++)
            in[j] = test_make_tensor(&k->in[j]);
        tensor_clear_error();
        Tensor *out = NULL;
        bool ok;
        if (k->kind == T_CLAMP && k->inplace) {
            ok = tensor_clamp_(in[0], in[1], in[2]);
            out = ok ? tensor_retain(in[0]) : NULL;
        } else {
            out = k->kind == T_WHERE ? tensor_where(in[0], in[1], in[2])
                : k->kind == T_CLAMP ? tensor_clamp(in[0], in[1], in[2])
                                     : tensor_lerp(in[0], in[1], in[2]);
            ok = out != NULL;
        }
        if (k->error)
            test_check_error(k->label, !ok, k->error);
        else if (ok)
            test_check_result(k->label, out, &k->expected, true);
        else
            CHECK_MSG(ok, "%s: %s", k->label, tensor_last_error());
        tensor_release(out);
        for (int j = 0; j < 3; j++)
            tensor_release(in[j]);
    }
}

static Tensor *promotion_operand(TensorDType dt, int dims, bool wrapped)
{
    if (wrapped)
        return dt == DT_I64 ? tensor_wrapped_int(2)
             : dt == DT_F64 ? tensor_wrapped_float(2.5)
                            : tensor_wrapped_bool(true);
    int64_t two = 2;
    return tensor_zeros(dt, dims, &two);
}

static void run_promotion(void)
{
    for (int c = 0; c < COUNT(promotion_cases); c++) {
        const PromotionCase *k = &promotion_cases[c];
        Tensor *a = promotion_operand(k->a, k->a_dims, k->a_wrapped);
        Tensor *b = promotion_operand(k->b, k->b_dims, k->b_wrapped);
        const Tensor *pair[2] = {a, b};
        TensorDType got = tensor_result_type(pair, 2);
        CHECK_MSG(got == k->expected, "result_type(%s%s%s, %s%s%s) is %s, PyTorch %s",
                  dtype_name(k->a), k->a_dims ? "[2]" : "", k->a_wrapped ? " number" : "",
                  dtype_name(k->b), k->b_dims ? "[2]" : "", k->b_wrapped ? " number" : "",
                  dtype_name(got), dtype_name(k->expected));
        tensor_release(a);
        tensor_release(b);
    }
}

/* Runs one view op; returns a malloc'd list of results (count in *n). */
static Tensor **run_view_op(const ViewCase *k, Tensor *x, int *n)
{
    const int64_t *a = k->args;
    Tensor *single = NULL;
    *n = 1;
    switch (k->op) {
    case V_SELECT: single = tensor_select(x, a[0], a[1]); break;
    case V_SLICE: single = tensor_slice(x, a[0], a[1], a[2], a[3]); break;
    case V_NARROW: single = tensor_narrow(x, a[0], a[1], a[2]); break;
    case V_VIEW: single = tensor_view(x, k->nargs, a); break;
    case V_RESHAPE: single = tensor_reshape(x, k->nargs, a); break;
    case V_SQUEEZE: single = tensor_squeeze(x); break;
    case V_SQUEEZE_DIM: single = tensor_squeeze_dim(x, a[0]); break;
    case V_UNSQUEEZE: single = tensor_unsqueeze(x, a[0]); break;
    case V_EXPAND: single = tensor_expand(x, k->nargs, a); break;
    case V_PERMUTE: single = tensor_permute(x, k->nargs, a); break;
    case V_TRANSPOSE: single = tensor_transpose(x, a[0], a[1]); break;
    case V_T: single = tensor_t(x); break;
    case V_DIAGONAL: single = tensor_diagonal(x, a[0], a[1], a[2]); break;
    case V_FLATTEN: single = tensor_flatten(x, a[0], a[1]); break;
    case V_UNFLATTEN: single = tensor_unflatten(x, a[0], k->nargs - 1, a + 1); break;
    case V_MOVEDIM: single = tensor_movedim(x, a[0], a[1]); break;
    case V_CHUNK: return tensor_chunk(x, a[0], a[1], n);
    case V_SPLIT: return tensor_split(x, a[0], a[1], n);
    case V_SPLIT_SIZES: return tensor_split_sizes(x, k->nargs - 1, a + 1, a[0], n);
    case V_UNBIND: return tensor_unbind(x, a[0], n);
    }
    if (!single)
        return NULL;
    Tensor **list = malloc(sizeof *list);
    list[0] = single;
    return list;
}

static void run_views(void)
{
    for (int c = 0; c < COUNT(view_cases); c++) {
        const ViewCase *k = &view_cases[c];
        Tensor *x = test_make_tensor(&k->in);
        CHECK_MSG(x != NULL, "%s: building the input: %s", k->label, tensor_last_error());
        if (!x)
            continue;
        tensor_clear_error();
        int n = 0;
        Tensor **outs = run_view_op(k, x, &n);
        if (k->error) {
            test_check_error(k->label, outs == NULL, k->error);
        } else if (!outs) {
            CHECK_MSG(outs != NULL, "%s: %s", k->label, tensor_last_error());
        } else {
            CHECK_MSG(n == k->nresults, "%s: %d results, PyTorch %d", k->label, n, k->nresults);
            for (int j = 0; j < n && j < k->nresults; j++) {
                char label[200];
                snprintf(label, sizeof label, "%s [%d]", k->label, j);
                /* A copy (reshape of a non-viewable layout) is laid out
                 * contiguously in both; its offset is 0 in its own storage. */
                test_check_result(label, outs[j], &k->results[j], true);
                CHECK_MSG((outs[j]->storage == x->storage) == k->aliases[j],
                          "%s: aliases the input: %d, PyTorch %d", label,
                          outs[j]->storage == x->storage, k->aliases[j]);
            }
        }
        for (int j = 0; outs && j < n; j++)
            tensor_release(outs[j]);
        free(outs);
        tensor_release(x);
    }
}

static void run_creation(void)
{
    for (int c = 0; c < COUNT(creation_cases); c++) {
        const CreationCase *k = &creation_cases[c];
        tensor_clear_error();
        Tensor *t = k->kind == C_ARANGE ? tensor_arange(k->args[0], k->args[1], k->args[2], k->dtype)
                  : k->kind == C_LINSPACE
                      ? tensor_linspace(k->args[0], k->args[1], (int64_t)k->args[2], k->dtype)
                      : tensor_eye((int64_t)k->args[0], (int64_t)k->args[1], k->dtype);
        if (k->error)
            test_check_error(k->label, t == NULL, k->error);
        else if (t)
            test_check_result(k->label, t, &k->expected, true);
        else
            CHECK_MSG(t != NULL, "%s: %s", k->label, tensor_last_error());
        tensor_release(t);
    }
}

int main(void)
{
    run_unary();
    run_binary(binary_arith_cases, COUNT(binary_arith_cases));
    run_binary(binary_compare_cases, COUNT(binary_compare_cases));
    run_ternary();
    run_promotion();
    run_views();
    run_creation();
    if (test_failures)
        return test_report("tensor_core_torch");
    printf("all PyTorch cases pass (%d unary, %d binary, %d where/clamp/lerp, %d promotion, "
           "%d view, %d creation)\n", COUNT(unary_cases), COUNT(binary_arith_cases) + COUNT(binary_compare_cases),
           COUNT(ternary_cases), COUNT(promotion_cases), COUNT(view_cases),
           COUNT(creation_cases));
    return 0;
}
