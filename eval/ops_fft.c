/* ops_fft.c — bindings of the real-output Fourier transforms (tensor/fft.c):
 * fft_irfft/irfft2/irfftn and fft_hfft/hfft2/hfftn.
 *
 * Their inputs are real tensors (tssa-stream has no complex dtype), which
 * PyTorch reads as complex signals with zero imaginary parts.
 */
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"

/* fft_irfft/fft_hfft(Tensor self, int? n=None, int dim=-1, str? norm=None) */
static bool fft_c2r_1d(EvalCall *c, bool hermitian)
{
    Tensor *self;
    int64_t n = 0, dim = -1;
    bool has_n = false;
    const char *norm = NULL;
    return eval_nargs(c, 1, 4) && eval_arg_tensor(c, 0, &self) &&
           (c->nargs < 2 || eval_arg_int_opt(c, 1, &n, &has_n)) && (c->nargs < 3 || eval_arg_int(c, 2, &dim)) &&
           (c->nargs < 4 || eval_arg_str_opt(c, 3, &norm)) &&
           eval_out_tensor(c, 0, tensor_fft_c2r_1d(self, n, has_n, dim, norm, hermitian));
}
bool eval_op_fft_irfft(EvalCall *c) { return fft_c2r_1d(c, false); }
bool eval_op_fft_hfft(EvalCall *c) { return fft_c2r_1d(c, true); }

/* fft_irfftn/fft_hfftn(Tensor self, int[1]? s=None, int[1]? dim=None, str? norm=None)
 * fft_irfft2/fft_hfft2(Tensor self, int[1]? s=None, int[1] dim=[-2,-1], str? norm=None) */
static bool fft_c2r_nd(EvalCall *c, const char *fname, bool two_dims, bool hermitian)
{
    Tensor *self;
    int64_t s[TENSOR_MAX_DIMS], dims[TENSOR_MAX_DIMS] = {-2, -1};
    int ns = 0, nd = two_dims ? 2 : 0;
    bool has_s = false, has_dims = two_dims;
    const char *norm = NULL;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) ||
        !(c->nargs < 2 || eval_arg_ints_opt(c, 1, s, TENSOR_MAX_DIMS, &ns, &has_s)) ||
        !(c->nargs < 4 || eval_arg_str_opt(c, 3, &norm)))
        return false;
    if (c->nargs >= 3) {
        if (two_dims ? !eval_arg_ints(c, 2, dims, TENSOR_MAX_DIMS, &nd)
                     : !eval_arg_ints_opt(c, 2, dims, TENSOR_MAX_DIMS, &nd, &has_dims))
            return false;
    }
    return eval_out_tensor(c, 0, tensor_fft_c2r_nd(self, fname, s, ns, has_s, dims, nd, has_dims, norm, hermitian));
}
bool eval_op_fft_irfft2(EvalCall *c) { return fft_c2r_nd(c, "irfftn", true, false); }
bool eval_op_fft_irfftn(EvalCall *c) { return fft_c2r_nd(c, "irfftn", false, false); }
bool eval_op_fft_hfft2(EvalCall *c) { return fft_c2r_nd(c, "hfftn", true, true); }
bool eval_op_fft_hfftn(EvalCall *c) { return fft_c2r_nd(c, "hfftn", false, true); }
