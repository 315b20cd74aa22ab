/* ops_linalg.c — the bindings of the factorizations and solves
 * (tensor/lapack.c, through LAPACK) and of torch.diag.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* linalg_cholesky(Tensor self, bool upper=False) */
bool eval_op_linalg_cholesky(EvalCall *c)
{
    Tensor *a;
    bool upper = false, present;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &a) &&
           (c->nargs < 2 || eval_arg_bool_opt(c, 1, &upper, &present)) &&
           eval_out_tensor(c, 0, tensor_linalg_cholesky(a, upper));
}

/* cholesky_solve(Tensor self, Tensor input2, bool upper=False) */
bool eval_op_cholesky_solve(EvalCall *c)
{
    Tensor *b, *l;
    bool upper = false, present;
    return eval_nargs(c, 2, 3) && eval_arg_tensor(c, 0, &b) && eval_arg_tensor(c, 1, &l) &&
           (c->nargs < 3 || eval_arg_bool_opt(c, 2, &upper, &present)) &&
           eval_out_tensor(c, 0, tensor_cholesky_solve(b, l, upper));
}

/* linalg_solve(Tensor A, Tensor B, *, bool left=True) */
bool eval_op_linalg_solve(EvalCall *c)
{
    Tensor *a, *b;
    bool left = true, present;
    if (!eval_nargs(c, 2, 3) || !eval_arg_tensor(c, 0, &a) || !eval_arg_tensor(c, 1, &b) ||
        (c->nargs == 3 && !eval_arg_bool_opt(c, 2, &left, &present)))
        return false;
    if (!left)
        return eval_fail(c, "linalg.solve with left=False (X A = B) is not implemented");
    return eval_out_tensor(c, 0, tensor_linalg_solve(a, b));
}

bool eval_op_linalg_inv(EvalCall *c)
{
    Tensor *a;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &a) && eval_out_tensor(c, 0, tensor_linalg_inv(a));
}

bool eval_op_linalg_det(EvalCall *c)
{
    Tensor *a;
    return eval_nargs(c, 1, 1) && eval_arg_tensor(c, 0, &a) && eval_out_tensor(c, 0, tensor_linalg_det(a));
}

/* linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet) */
bool eval_op_linalg_slogdet(EvalCall *c)
{
    Tensor *a, *sign, *logabs;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &a))
        return false;
    if (!tensor_linalg_slogdet(a, &sign, &logabs))
        return eval_fail_kernel(c, "slogdet failed");
    return eval_out_tensors(c, (Tensor *[]){sign, logabs}, 2);
}

/* logdet(Tensor self): log(det), NaN for a negative determinant (PyTorch). */
bool eval_op_logdet(EvalCall *c)
{
    Tensor *a, *sign, *logabs;
    if (!eval_nargs(c, 1, 1) || !eval_arg_tensor(c, 0, &a))
        return false;
    if (!tensor_linalg_slogdet(a, &sign, &logabs))
        return eval_fail_kernel(c, "logdet failed");
    for (int64_t i = 0; i < tensor_numel(logabs); i++)
        if (tensor_get_flat(sign, i) < 0)
            tensor_set_flat(logabs, i, NAN);
    tensor_release(sign);
    return eval_out_tensor(c, 0, logabs);
}

/* diag(Tensor self, int diagonal=0) */
bool eval_op_diag(EvalCall *c)
{
    Tensor *t;
    int64_t offset = 0;
    return eval_nargs(c, 1, 2) && eval_arg_tensor(c, 0, &t) &&
           (c->nargs < 2 || eval_arg_int(c, 1, &offset)) &&
           eval_out_tensor(c, 0, tensor_diag(t, offset));
}

/* einsum(str equation, Tensor[] tensors, *, int[]? path=None) */
bool eval_op_einsum(EvalCall *c)
{
    const char *equation;
    Tensor **ts;
    int n;
    if (!eval_nargs(c, 2, 3) || !eval_arg_str(c, 0, &equation) ||
        !eval_arg_tensor_list(c, 1, false, &ts, &n))
        return false;
    if (c->nargs == 3 && !eval_is_none(c, 2)) {
        free(ts);
        return eval_fail(c, "einsum with a contraction path is not implemented");
    }
    bool ok = eval_out_tensor(c, 0, tensor_einsum(equation, ts, n));
    free(ts);
    return ok;
}

/* linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R) */
bool eval_op_linalg_qr(EvalCall *c)
{
    Tensor *a, *q, *r;
    const char *mode = "reduced";
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs == 2 && !eval_arg_str(c, 1, &mode)))
        return false;
    if (!tensor_linalg_qr(a, mode, &q, &r))
        return eval_fail_kernel(c, "linalg.qr failed");
    return eval_out_tensors(c, (Tensor *[]){q, r}, 2);
}

/* linalg_eigh(Tensor self, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors) */
bool eval_op_linalg_eigh(EvalCall *c)
{
    Tensor *a, *w, *v;
    const char *uplo = "L";
    if (!eval_nargs(c, 1, 2) || !eval_arg_tensor(c, 0, &a) || (c->nargs == 2 && !eval_arg_str(c, 1, &uplo)))
        return false;
    if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0)
        return eval_fail(c, "Expected UPLO argument to be 'L' or 'U', but got %s", uplo);
    if (!tensor_linalg_eigh(a, uplo[0] == 'U', &w, &v))
        return eval_fail_kernel(c, "linalg.eigh failed");
    return eval_out_tensors(c, (Tensor *[]){w, v}, 2);
}

/* diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) */
bool eval_op_diag_embed(EvalCall *c)
{
    Tensor *t;
    int64_t offset = 0, dim1 = -2, dim2 = -1;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &t) || (c->nargs > 1 && !eval_arg_int(c, 1, &offset)) ||
        (c->nargs > 2 && !eval_arg_int(c, 2, &dim1)) || (c->nargs > 3 && !eval_arg_int(c, 3, &dim2)))
        return false;
    int nd = t->ndim + 1;
    if ((dim1 + nd) % nd != nd - 2 || (dim2 + nd) % nd != nd - 1)
        return eval_fail(c, "diag_embed with dims other than the last two is not implemented");
    return eval_out_tensor(c, 0, tensor_diag_embed(t, offset));
}
