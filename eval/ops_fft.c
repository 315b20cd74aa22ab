/* ops_fft.c — bindings of the real-output Fourier transforms (tensor/fft.c):
 * fft_irfft/irfft2/irfftn, fft_hfft/hfft2/hfftn, stft and istft.
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

/* stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
 *      bool normalized=False, bool? onesided=None, bool? return_complex=None)
 * A real signal and window give a real (..., 2) result unless return_complex=True. */
bool eval_op_stft(EvalCall *c)
{
    Tensor *self, *window = NULL;
    int64_t n_fft, hop = 0, win = 0;
    bool has_hop = false, has_win = false, normalized = false, onesided = true, has_onesided = false;
    bool return_complex = false, has_return_complex = false;
    if (!eval_nargs(c, 2, 8) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &n_fft) ||
        !(c->nargs < 3 || eval_arg_int_opt(c, 2, &hop, &has_hop)) ||
        !(c->nargs < 4 || eval_arg_int_opt(c, 3, &win, &has_win)) ||
        !(c->nargs < 5 || eval_arg_tensor_opt(c, 4, &window)) ||
        !(c->nargs < 6 || eval_arg_bool(c, 5, &normalized)) ||
        !(c->nargs < 7 || eval_arg_bool_opt(c, 6, &onesided, &has_onesided)) ||
        !(c->nargs < 8 || eval_arg_bool_opt(c, 7, &return_complex, &has_return_complex)))
        return false;
    if (!has_onesided)
        onesided = true;
    if (has_return_complex && return_complex)
        return eval_fail(c, "aten::stft with return_complex=True (a complex result) is not implemented");
    return eval_out_tensor(c, 0, tensor_stft(self, n_fft, hop, has_hop, win, has_win, window, normalized, onesided));
}

/* istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
 *       bool center=True, bool normalized=False, bool? onesided=None, int? length=None,
 *       bool return_complex=False)
 * self is the real (..., 2) form of a complex spectrogram. */
bool eval_op_istft(EvalCall *c)
{
    Tensor *self, *window = NULL;
    int64_t n_fft, hop = 0, win = 0, length = 0;
    bool has_hop = false, has_win = false, center = true, normalized = false, onesided = false;
    bool has_onesided = false, has_length = false, return_complex = false;
    if (!eval_nargs(c, 2, 10) || !eval_arg_tensor(c, 0, &self) || !eval_arg_int(c, 1, &n_fft) ||
        !(c->nargs < 3 || eval_arg_int_opt(c, 2, &hop, &has_hop)) ||
        !(c->nargs < 4 || eval_arg_int_opt(c, 3, &win, &has_win)) ||
        !(c->nargs < 5 || eval_arg_tensor_opt(c, 4, &window)) ||
        !(c->nargs < 6 || eval_arg_bool(c, 5, &center)) ||
        !(c->nargs < 7 || eval_arg_bool(c, 6, &normalized)) ||
        !(c->nargs < 8 || eval_arg_bool_opt(c, 7, &onesided, &has_onesided)) ||
        !(c->nargs < 9 || eval_arg_int_opt(c, 8, &length, &has_length)) ||
        !(c->nargs < 10 || eval_arg_bool(c, 9, &return_complex)))
        return false;
    if (return_complex)
        return eval_fail(c, "aten::istft with return_complex=True (a complex result) is not implemented");
    return eval_out_tensor(c, 0, tensor_istft(self, n_fft, hop, has_hop, win, has_win, window, center, normalized,
                                              onesided, has_onesided, length, has_length));
}
