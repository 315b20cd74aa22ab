/* fft.c — discrete Fourier transforms whose results are real, through FFTW:
 * fft.irfft/irfft2/irfftn, fft.hfft/hfft2/hfftn, stft (real output, the
 * (..., 2) layout of return_complex=False) and istft (real output).
 *
 * tssa-stream has no complex dtype, so every input here is real. PyTorch
 * treats a real input of a complex-to-real transform as complex with a zero
 * imaginary part, and the (re, im) pairs of an stft/istft tensor live in its
 * last dim of size 2. The complex intermediates stay inside this file, in
 * FFTW's own buffers.
 *
 * Everything is computed in double precision (FFTW's fftw_* routines) and
 * rounded once to the result dtype, float32 or float64 (integer and bool
 * inputs give float32, as in PyTorch). PyTorch computes float32 in single
 * precision (pocketfft); the two agree to float32 rounding.
 *
 * Plans are made with FFTW_ESTIMATE (no timing runs, so results do not
 * depend on what the planner measured) and destroyed after one use. FFTW's
 * planner is not thread-safe: tssa-stream runs its kernels on one thread
 * today; a kernel run from several threads at once would need a lock
 * around plan creation and destruction.
 *
 * Argument checking and messages follow PyTorch 1.13 (aten/src/ATen/native/
 * SpectralOps.cpp: canonicalize_fft_c2r_shape_and_dim_args, fft_c2r, stft,
 * istft).
 */
#include <fftw3.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/tensor_impl.h"

/* How a transform's result is scaled: not at all, by 1/sqrt(N) or by 1/N,
 * N the product of the signal sizes of the transformed dims. */
typedef enum FftScale { FFT_SCALE_NONE, FFT_SCALE_BY_ROOT_N, FFT_SCALE_BY_N } FftScale;

/* PyTorch's norm_from_string: "backward" (or None) scales the inverse
 * transform, "forward" the forward one, "ortho" both by 1/sqrt(N). */
static bool fft_scale_from_norm(const char *norm, bool forward, FftScale *scale)
{
    if (!norm || strcmp(norm, "backward") == 0)
        *scale = forward ? FFT_SCALE_NONE : FFT_SCALE_BY_N;
    else if (strcmp(norm, "forward") == 0)
        *scale = forward ? FFT_SCALE_BY_N : FFT_SCALE_NONE;
    else if (strcmp(norm, "ortho") == 0)
        *scale = FFT_SCALE_BY_ROOT_N;
    else {
        tensor_set_error("Invalid normalization mode: \"%s\"", norm);
        return false;
    }
    return true;
}

static double fft_scale_factor(FftScale scale, double n)
{
    switch (scale) {
    case FFT_SCALE_BY_N: return 1.0 / n;
    case FFT_SCALE_BY_ROOT_N: return 1.0 / sqrt(n);
    default: return 1.0;
    }
}

/* The sizes of the dims before and after dim of a row-major shape. */
static void fft_outer_inner(int ndim, const int64_t *sizes, int dim, int64_t *outer, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < dim; d++)
        *outer *= sizes[d];
    for (int d = dim + 1; d < ndim; d++)
        *inner *= sizes[d];
}

static bool fft_plan_failed(void)
{
    tensor_set_error("fft: FFTW could not plan the transform");
    return false;
}

/* In-place complex-to-complex transforms of buf (row-major, `sizes`) along
 * dim; sign is FFTW_FORWARD (exponent -1) or FFTW_BACKWARD (+1), unscaled. */
static bool fft_c2c_along(fftw_complex *buf, int ndim, const int64_t *sizes, int dim, int sign)
{
    int64_t outer, inner, n = sizes[dim];
    fft_outer_inner(ndim, sizes, dim, &outer, &inner);
    fftw_iodim64 len = {.n = n, .is = inner, .os = inner};
    fftw_iodim64 loops[2] = {{.n = outer, .is = n * inner, .os = n * inner}, {.n = inner, .is = 1, .os = 1}};
    fftw_plan plan = fftw_plan_guru64_dft(1, &len, 2, loops, buf, buf, sign, FFTW_ESTIMATE);
    if (!plan)
        return fft_plan_failed();
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    return true;
}

/* Complex-to-real (inverse, exponent +1, unscaled) transforms along dim:
 * in has sizes[dim] = n/2 + 1 (the non-redundant half of a Hermitian
 * signal; FFTW, like pocketfft, ignores the imaginary parts that Hermitian
 * symmetry says are zero), out the same sizes with n at dim. FFTW may
 * overwrite in. */
static bool fft_c2r_along(fftw_complex *in, double *out, int ndim, const int64_t *in_sizes, int dim, int64_t n)
{
    int64_t outer, inner, half = in_sizes[dim];
    fft_outer_inner(ndim, in_sizes, dim, &outer, &inner);
    fftw_iodim64 len = {.n = n, .is = inner, .os = inner};
    fftw_iodim64 loops[2] = {{.n = outer, .is = half * inner, .os = n * inner}, {.n = inner, .is = 1, .os = 1}};
    fftw_plan plan = fftw_plan_guru64_dft_c2r(1, &len, 2, loops, in, out, FFTW_ESTIMATE);
    if (!plan)
        return fft_plan_failed();
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    return true;
}

/* Real-to-complex (forward, exponent -1, unscaled) transforms of the rows
 * of in (rows x n): out gets the n/2 + 1 non-redundant bins of each row. */
static bool fft_r2c_rows(double *in, fftw_complex *out, int64_t rows, int64_t n)
{
    fftw_iodim64 len = {.n = n, .is = 1, .os = 1};
    fftw_iodim64 loop = {.n = rows, .is = n, .os = n / 2 + 1};
    fftw_plan plan = fftw_plan_guru64_dft_r2c(1, &len, 1, &loop, in, out, FFTW_ESTIMATE);
    if (!plan)
        return fft_plan_failed();
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    return true;
}

static TensorDType fft_real_result_dtype(TensorDType dt)
{
    return dt == DT_F64 ? DT_F64 : DT_F32;
}

/* ---------------------------------------------------------------- irfft, hfft */

/* The complex-to-real transform of PyTorch's _fft_c2r after resize_fft_input:
 * self (real, imaginary parts zero) zero-padded or cut to `shape` at dims
 * (shape's last entry is last_size/2 + 1), complex-to-complex transforms
 * along all dims but the last (forward for hfft, inverse for irfft), the
 * conjugate for hfft, then the complex-to-real transform of the last dim
 * giving last_size points, scaled by `scale`. */
static Tensor *fft_c2r_transform(const Tensor *self, int nd, const int *dims, const int64_t *shape,
                                 int64_t last_size, FftScale scale, bool hermitian)
{
    int ndim = self->ndim;
    int64_t in_sizes[TENSOR_MAX_DIMS], out_sizes[TENSOR_MAX_DIMS];
    memcpy(in_sizes, self->sizes, sizeof(int64_t) * (size_t)ndim);
    for (int i = 0; i < nd; i++)
        in_sizes[dims[i]] = shape[i];
    memcpy(out_sizes, in_sizes, sizeof(int64_t) * (size_t)ndim);
    int last = dims[nd - 1];
    out_sizes[last] = last_size;
    Tensor *out = tensor_empty(fft_real_result_dtype(self->dtype), ndim, out_sizes);
    if (!out)
        return NULL;
    int64_t in_numel = 1, out_numel = tensor_numel(out);
    for (int d = 0; d < ndim; d++)
        in_numel *= in_sizes[d];
    if (out_numel == 0)
        return out;

    double *src = kern_read_all_f64(self);
    fftw_complex *buf = fftw_alloc_complex((size_t)in_numel);
    double *res = fftw_alloc_real((size_t)out_numel);
    bool ok = src && buf && res;
    if (ok) {
        /* The resized input: each element of in_sizes is self's element at
         * the same index where self has one, else zero (padding). */
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        int64_t src_strides[TENSOR_MAX_DIMS];
        tensor_contiguous_strides(ndim, self->sizes, src_strides);
        for (int64_t i = 0; i < in_numel; i++) {
            bool inside = true;
            int64_t off = 0;
            for (int d = 0; d < ndim; d++) {
                inside = inside && idx[d] < self->sizes[d];
                off += idx[d] * src_strides[d];
            }
            buf[i][0] = inside ? src[off] : 0.0;
            buf[i][1] = 0.0;
            for (int d = ndim - 1; d >= 0; d--) {
                if (++idx[d] < in_sizes[d])
                    break;
                idx[d] = 0;
            }
        }
        int sign = hermitian ? FFTW_FORWARD : FFTW_BACKWARD;
        for (int i = 0; ok && i < nd - 1; i++)
            ok = fft_c2c_along(buf, ndim, in_sizes, dims[i], sign);
        if (ok && hermitian)
            for (int64_t i = 0; i < in_numel; i++)
                buf[i][1] = -buf[i][1];
        ok = ok && fft_c2r_along(buf, res, ndim, in_sizes, last, last_size);
    }
    if (ok) {
        double signal_size = (double)last_size;
        for (int i = 0; i < nd - 1; i++)
            signal_size *= (double)shape[i];
        double factor = fft_scale_factor(scale, signal_size);
        for (int64_t i = 0; i < out_numel; i++)
            res[i] *= factor;
        kern_write_all_f64(out, res);
    } else if (!(src && buf && res)) {
        tensor_set_error("fft: out of memory");
    }
    free(src);
    fftw_free(buf);
    fftw_free(res);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

static bool fft_check_points(int64_t n)
{
    if (n < 1) {
        tensor_set_error("Invalid number of data points (%" PRId64 ") specified", n);
        return false;
    }
    return true;
}

Tensor *tensor_fft_c2r_1d(const Tensor *self, int64_t n, bool has_n, int64_t dim, const char *norm, bool hermitian)
{
    int d = tensor_wrap_dim(dim, self->ndim);
    if (d < 0)
        return NULL;
    /* A 0-d input has no dim to transform: PyTorch sees 0 points there. */
    int64_t m = self->ndim > 0 ? self->sizes[d] : 0;
    if (!has_n)
        n = 2 * (m - 1);
    FftScale scale;
    if (!fft_check_points(n) || !fft_scale_from_norm(norm, hermitian, &scale))
        return NULL;
    int64_t half = has_n ? n / 2 + 1 : m;
    return fft_c2r_transform(self, 1, &d, &half, n, scale, hermitian);
}

Tensor *tensor_fft_c2r_nd(const Tensor *self, const char *fname, const int64_t *s, int ns, bool has_s,
                          const int64_t *dims, int nd, bool has_dims, const char *norm, bool hermitian)
{
    int ndim = self->ndim;
    int wrapped[TENSOR_MAX_DIMS];
    int64_t shape[TENSOR_MAX_DIMS];
    int count = 0;
    if (has_dims) {
        if (nd > TENSOR_MAX_DIMS) {
            tensor_set_error("FFT dims must be unique");
            return NULL;
        }
        for (int i = 0; i < nd; i++) {
            /* maybe_wrap_dim without wrap_scalars: a 0-d tensor has no dims */
            if (ndim == 0 || dims[i] < -ndim || dims[i] >= ndim) {
                tensor_set_error("Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")",
                                 -ndim, ndim - 1, dims[i]);
                return NULL;
            }
            wrapped[i] = (int)(dims[i] < 0 ? dims[i] + ndim : dims[i]);
            for (int j = 0; j < i; j++)
                if (wrapped[j] == wrapped[i]) {
                    tensor_set_error("FFT dims must be unique");
                    return NULL;
                }
        }
        count = nd;
    }
    if (has_s) {
        if (has_dims && nd != ns) {
            tensor_set_error("When given, dim and shape arguments must have the same length");
            return NULL;
        }
        if (ns > ndim) {
            tensor_set_error("Got shape with %d values but input tensor only has %d dimensions.", ns, ndim);
            return NULL;
        }
        count = ns;
        for (int i = 0; i < ns; i++) {
            if (!has_dims)
                wrapped[i] = ndim - ns + i;
            shape[i] = s[i] == -1 ? self->sizes[wrapped[i]] : s[i];
        }
    } else if (!has_dims) {
        count = ndim;
        for (int i = 0; i < ndim; i++) {
            wrapped[i] = i;
            shape[i] = self->sizes[i];
        }
    } else {
        for (int i = 0; i < nd; i++)
            shape[i] = self->sizes[wrapped[i]];
    }
    for (int i = 0; i < count; i++)
        if (!fft_check_points(shape[i]))
            return NULL;
    if (count == 0) {
        tensor_set_error("%s must transform at least one axis", fname);
        return NULL;
    }
    int64_t last_size = (!has_s || s[ns - 1] == -1) ? 2 * (self->sizes[wrapped[count - 1]] - 1) : shape[count - 1];
    FftScale scale;
    if (!fft_check_points(last_size) || !fft_scale_from_norm(norm, hermitian, &scale))
        return NULL;
    shape[count - 1] = last_size / 2 + 1;
    return fft_c2r_transform(self, count, wrapped, shape, last_size, scale, hermitian);
}

/* ---------------------------------------------------------------- stft, istft */

/* The window of n_fft points both transforms use: `window` (or ones) of
 * win_length points centered between zeros. NULL with an error on failure. */
static double *fft_centered_window(const Tensor *window, int64_t win_length, int64_t n_fft)
{
    double *w = calloc((size_t)n_fft, sizeof *w);
    double *given = window ? kern_read_all_f64(window) : NULL;
    if (!w || (window && !given)) {
        free(w);
        free(given);
        tensor_set_error("fft: out of memory");
        return NULL;
    }
    int64_t left = (n_fft - win_length) / 2;
    for (int64_t i = 0; i < win_length; i++)
        w[left + i] = given ? given[i] : 1.0;
    free(given);
    return w;
}

static bool fft_window_dtype(const Tensor *self, const Tensor *window, const char *who, TensorDType *dt)
{
    if (!dtype_is_float(self->dtype)) {
        tensor_set_error("%s: expected a tensor of floating point or complex values", who);
        return false;
    }
    /* the result has the dtype of signal times window (a float, as self is) */
    *dt = window ? dtype_promote(self->dtype, window->dtype) : self->dtype;
    return true;
}

static bool stft_check_window(const Tensor *window, int64_t win_length)
{
    if (window && (window->ndim != 1 || window->sizes[0] != win_length)) {
        char shape[128];
        tensor_format_shape(window->ndim, window->sizes, shape, sizeof shape);
        tensor_set_error("stft: expected a 1D window tensor of size equal to win_length=%" PRId64
                         ", but got window with size %s", win_length, shape);
        return false;
    }
    return true;
}

Tensor *tensor_stft(const Tensor *self, int64_t n_fft, int64_t hop_length, bool has_hop, int64_t win_length,
                    bool has_win, const Tensor *window, bool normalized, bool onesided)
{
    if (!has_hop)
        hop_length = n_fft >> 2;
    if (!has_win)
        win_length = n_fft;
    TensorDType dt;
    if (!fft_window_dtype(self, window, "stft", &dt))
        return NULL;
    if (self->ndim < 1 || self->ndim > 2) {
        tensor_set_error("stft: expected a 1D or 2D tensor");
        return NULL;
    }
    int64_t batch = self->ndim == 2 ? self->sizes[0] : 1, len = self->sizes[self->ndim - 1];
    if (n_fft <= 0 || n_fft > len) {
        tensor_set_error("stft: expected 0 < n_fft < %" PRId64 ", but got n_fft=%" PRId64, len, n_fft);
        return NULL;
    }
    if (hop_length <= 0) {
        tensor_set_error("stft: expected hop_length > 0, but got hop_length=%" PRId64, hop_length);
        return NULL;
    }
    if (win_length <= 0 || win_length > n_fft) {
        tensor_set_error("stft: expected 0 < win_length <= n_fft, but got win_length=%" PRId64, win_length);
        return NULL;
    }
    if (!stft_check_window(window, win_length))
        return NULL;
    int64_t frames = 1 + (len - n_fft) / hop_length, half = n_fft / 2 + 1;
    int64_t bins = onesided ? half : n_fft;
    /* (batch, bins, frames, 2): the frequency-major layout of PyTorch's
     * transposed result, (re, im) last */
    int64_t out_sizes[4] = {batch, bins, frames, 2};
    Tensor *out = self->ndim == 2 ? tensor_empty(dt, 4, out_sizes) : tensor_empty(dt, 3, out_sizes + 1);
    if (!out)
        return NULL;
    int64_t rows = batch * frames;
    double *src = kern_read_all_f64(self);
    double *w = fft_centered_window(window, win_length, n_fft);
    double *segs = fftw_alloc_real((size_t)(rows * n_fft));
    fftw_complex *spec = fftw_alloc_complex((size_t)(rows * half));
    double *res = malloc(sizeof(double) * (size_t)(batch * bins * frames * 2));
    bool ok = src && w && segs && spec && res;
    if (!ok && w)
        tensor_set_error("fft: out of memory");
    if (ok) {
        for (int64_t b = 0; b < batch; b++)
            for (int64_t f = 0; f < frames; f++)
                for (int64_t i = 0; i < n_fft; i++)
                    segs[(b * frames + f) * n_fft + i] = src[b * len + f * hop_length + i] * w[i];
        ok = fft_r2c_rows(segs, spec, rows, n_fft);
    }
    if (ok) {
        double factor = normalized ? 1.0 / sqrt((double)n_fft) : 1.0;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t k = 0; k < bins; k++)
                for (int64_t f = 0; f < frames; f++) {
                    /* bins past n/2 of a real signal's spectrum are the
                     * conjugates of their mirror bins */
                    const double *z = spec[(b * frames + f) * half + (k < half ? k : n_fft - k)];
                    double *o = res + ((b * bins + k) * frames + f) * 2;
                    o[0] = z[0] * factor;
                    o[1] = (k < half ? z[1] : -z[1]) * factor;
                }
        kern_write_all_f64(out, res);
    }
    free(src);
    free(w);
    fftw_free(segs);
    fftw_free(spec);
    free(res);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_istft(const Tensor *self, int64_t n_fft, int64_t hop_length, bool has_hop, int64_t win_length,
                     bool has_win, const Tensor *window, bool center, bool normalized, bool onesided,
                     bool has_onesided, int64_t length, bool has_length)
{
    if (!has_hop)
        hop_length = n_fft >> 2;
    if (!has_win)
        win_length = n_fft;
    TensorDType dt;
    if (!fft_window_dtype(self, window, "istft", &dt))
        return NULL;
    /* PyTorch reads the frame and bin counts (dims -2 and -3) first */
    if (self->ndim < 3) {
        int64_t n = self->ndim > 0 ? self->ndim : 1;
        tensor_set_error("Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                         "], but got %d)", -n, n - 1, self->ndim < 2 ? -2 : -3);
        return NULL;
    }
    if (tensor_numel(self) == 0) {
        tensor_set_error("istft: input tensor cannot be empty.");
        return NULL;
    }
    if (self->ndim != 3 && self->ndim != 4) {
        tensor_set_error("istft: expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of "
                         "complex, but got %d", self->ndim);
        return NULL;
    }
    if (self->sizes[self->ndim - 1] != 2) {
        tensor_set_error("istft: expected the last dimension to be 2 (corresponding to real and imaginary "
                         "parts), but got %" PRId64, self->sizes[self->ndim - 1]);
        return NULL;
    }
    int64_t batch = self->ndim == 4 ? self->sizes[0] : 1;
    int64_t fft_size = self->sizes[self->ndim - 3], frames = self->sizes[self->ndim - 2];
    if (!has_onesided)
        onesided = fft_size != n_fft;
    int64_t half = n_fft / 2 + 1;
    /* ("onsided" is PyTorch 1.13's spelling in these two messages) */
    if (onesided && fft_size != half) {
        tensor_set_error("istft: expected the frequency dimension (3rd to the last) of the input tensor to "
                         "match n_fft / 2 + 1 when onsided=True, but got %" PRId64, fft_size);
        return NULL;
    }
    if (!onesided && fft_size != n_fft) {
        tensor_set_error("istft: expected the frequency dimension (3rd to the last) of the input tensor to "
                         "match n_fft when onsided=False, but got %" PRId64, fft_size);
        return NULL;
    }
    if (!(0 < hop_length && hop_length <= win_length)) {
        tensor_set_error("istft: expected 0 < hop_length <= win_length");
        return NULL;
    }
    if (!(0 < win_length && win_length <= n_fft)) {
        tensor_set_error("istft: expected 0 < win_length <= n_fft");
        return NULL;
    }
    if (window && (window->ndim != 1 || window->sizes[0] != win_length)) {
        tensor_set_error("istft: Invalid window shape. window has to be 1D and length of `win_length`");
        return NULL;
    }

    /* The overlap-added signal before trimming, and PyTorch's trim: from
     * n_fft/2 when centered, to start + length, or n_fft/2 before the end
     * when centered, or the end (a slice: clamped to the signal). */
    int64_t signal_len = n_fft + hop_length * (frames - 1);
    int64_t start = center ? n_fft / 2 : 0;
    int64_t end = has_length ? start + length : (center ? -(n_fft / 2) : signal_len);
    int64_t stop = end < 0 ? end + signal_len : end;
    if (stop > signal_len)
        stop = signal_len;
    if (stop < start)
        stop = start;
    int64_t kept = stop - start, padded = end > signal_len ? end - signal_len : 0;
    int64_t out_len = kept + padded;
    int64_t out_sizes[2] = {batch, out_len};
    Tensor *out = self->ndim == 4 ? tensor_empty(dt, 2, out_sizes) : tensor_empty(dt, 1, out_sizes + 1);
    if (!out)
        return NULL;

    int64_t rows = batch * frames;
    double *src = kern_read_all_f64(self);
    double *w = fft_centered_window(window, win_length, n_fft);
    fftw_complex *spec = fftw_alloc_complex((size_t)(rows * half));
    double *segs = fftw_alloc_real((size_t)(rows * n_fft));
    double *signal = calloc((size_t)(batch * signal_len), sizeof *signal);
    double *envelope = calloc((size_t)signal_len, sizeof *envelope);
    double *res = calloc((size_t)(batch * out_len) + 1, sizeof *res);
    bool ok = src && w && spec && segs && signal && envelope && res;
    if (!ok && w)
        tensor_set_error("fft: out of memory");
    if (ok) {
        /* frame f of batch b: its first n_fft/2 + 1 bins (a two-sided
         * spectrum is cut to them, as PyTorch does) */
        for (int64_t b = 0; b < batch; b++)
            for (int64_t f = 0; f < frames; f++)
                for (int64_t k = 0; k < half; k++) {
                    const double *z = src + ((b * fft_size + k) * frames + f) * 2;
                    spec[(b * frames + f) * half + k][0] = z[0];
                    spec[(b * frames + f) * half + k][1] = z[1];
                }
        int64_t unit[3] = {rows, half, 1};
        ok = fft_c2r_along(spec, segs, 3, unit, 1, n_fft);
    }
    if (ok) {
        double factor = normalized ? 1.0 / sqrt((double)n_fft) : 1.0 / (double)n_fft;
        for (int64_t b = 0; b < batch; b++)
            for (int64_t f = 0; f < frames; f++)
                for (int64_t i = 0; i < n_fft; i++)
                    signal[b * signal_len + f * hop_length + i] += segs[(b * frames + f) * n_fft + i] * factor * w[i];
        for (int64_t f = 0; f < frames; f++)
            for (int64_t i = 0; i < n_fft; i++)
                envelope[f * hop_length + i] += w[i] * w[i];
        if (kept == 0) {
            /* PyTorch takes the minimum of the trimmed envelope, which fails when it is empty */
            tensor_set_error("min(): Expected reduction dim to be specified for input.numel() == 0. "
                             "Specify the reduction dim with the 'dim' argument.");
            ok = false;
        }
        double lowest = INFINITY;
        for (int64_t t = start; t < stop; t++)
            lowest = fmin(lowest, fabs(envelope[t]));
        if (lowest < 1e-11) {
            tensor_set_error("istft: window overlap add min: %g", lowest);
            ok = false;
        }
    }
    if (ok) {
        for (int64_t b = 0; b < batch; b++)
            for (int64_t t = 0; t < kept; t++)
                res[b * out_len + t] = signal[b * signal_len + start + t] / envelope[start + t];
        kern_write_all_f64(out, res);
    }
    free(src);
    free(w);
    fftw_free(spec);
    fftw_free(segs);
    free(signal);
    free(envelope);
    free(res);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}
