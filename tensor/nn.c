/* nn.c — convolution, normalization and embedding with PyTorch's
 * (1.13, CPU) semantics and error messages.
 *
 * Convolution is im2col + GEMM: for every image and group the receptive
 * fields are unrolled into a (C/groups * kH * kW, oH * oW) matrix (zeros
 * where the window covers padding) and multiplied by the group's weight
 * rows, writing straight into the output. conv1d is conv2d on a view with a
 * height of 1; unbatched inputs are a batch of one. Integer dtypes work too
 * (PyTorch's slow CPU path accepts them) through kern_gemm's integer loops.
 *
 * Normalizations compute in double and round once to the input's dtype.
 * Pooling lives in pool.c.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- convolution */

typedef struct ConvGeom {
    int64_t n, c, h, w;            /* input (as 4-d) */
    int64_t o, kh, kw;             /* weight */
    int64_t sh, sw, ph, pw, dh, dw;
    int64_t oh, ow;
    int64_t groups;
} ConvGeom;

static bool conv_check(const Tensor *x, const Tensor *w, const Tensor *bias, int spatial, const int64_t *stride,
                       const int64_t *padding, const int64_t *dilation, int64_t groups, ConvGeom *g)
{
    char xb[TENSOR_SHAPE_BUF], wb[TENSOR_SHAPE_BUF], bb[TENSOR_SHAPE_BUF];
    if (x->ndim != spatial + 1 && x->ndim != spatial + 2) {
        tensor_set_error("Expected %dD (unbatched) or %dD (batched) input to conv%dd, but got input of size: %s",
                         spatial + 1, spatial + 2, spatial, tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    if (w->ndim != spatial + 2) {
        int64_t ones[2] = {1, 1};
        if (w->ndim < 3)
            tensor_set_error("weight should have at least three dimensions");
        else
            tensor_set_error("expected stride to be a single integer value or a list of %d values to match the "
                             "convolution dimensions, but got stride=%s", w->ndim - 2,
                             tensor_format_shape(spatial, ones, xb, sizeof xb));
        return false;
    }
    for (int i = 0; i < spatial; i++)
        if (dilation[i] <= 0) {
            tensor_set_error("non-positive dilation is not supported");
            return false;
        }
    if (groups <= 0) {
        tensor_set_error("non-positive groups is not supported");
        return false;
    }
    if (bias && bias->dtype != x->dtype) {
        tensor_set_error("Input type (%s) and bias type (%s) should be the same", kern_ctype_name(x->dtype),
                         kern_ctype_name(bias->dtype));
        return false;
    }
    for (int i = 0; i < spatial; i++) {
        if (padding[i] < 0) {
            tensor_set_error("negative padding is not supported");
            return false;
        }
        if (stride[i] <= 0) {
            tensor_set_error("non-positive stride is not supported");
            return false;
        }
    }
    /* the input as (N, C, H, W) */
    bool batched = x->ndim == spatial + 2;
    int64_t xs[4] = {1, 1, 1, 1};
    int k = 0;
    xs[k++] = batched ? x->sizes[0] : 1;
    for (int d = batched ? 1 : 0; d < x->ndim; d++) {
        xs[k++] = x->sizes[d];
        if (spatial == 1 && k == 2)
            xs[k++] = 1;
    }
    g->n = xs[0], g->c = xs[1], g->h = xs[2], g->w = xs[3];
    g->o = w->sizes[0];
    g->kh = spatial == 2 ? w->sizes[2] : 1;
    g->kw = w->sizes[spatial + 1];
    g->sh = spatial == 2 ? stride[0] : 1, g->sw = stride[spatial - 1];
    g->ph = spatial == 2 ? padding[0] : 0, g->pw = padding[spatial - 1];
    g->dh = spatial == 2 ? dilation[0] : 1, g->dw = dilation[spatial - 1];
    g->groups = groups;
    tensor_format_shape(w->ndim, w->sizes, wb, sizeof wb);
    if (g->o < groups) {
        tensor_set_error("Given groups=%" PRId64 ", expected weight to be at least %" PRId64
                         " at dimension 0, but got weight of size %s instead", groups, groups, wb);
        return false;
    }
    if (g->o % groups != 0) {
        tensor_set_error("Given groups=%" PRId64 ", expected weight to be divisible by %" PRId64
                         " at dimension 0, but got weight of size [%s] instead", groups, groups, wb);
        return false;
    }
    if (g->c != w->sizes[1] * groups) {
        int64_t shown[TENSOR_MAX_DIMS];
        shown[0] = batched ? x->sizes[0] : 1;
        memcpy(shown + 1, x->sizes + (batched ? 1 : 0), (size_t)(spatial + 1) * sizeof *shown);
        tensor_set_error("Given groups=%" PRId64 ", weight of size %s, expected input%s to have %" PRId64
                         " channels, but got %" PRId64 " channels instead", groups, wb,
                         tensor_format_shape(spatial + 2, shown, xb, sizeof xb), w->sizes[1] * groups, g->c);
        return false;
    }
    if (bias && (bias->ndim != 1 || bias->sizes[0] != g->o)) {
        tensor_set_error("Given weight of size %s, expected bias to be 1-dimensional with %" PRId64
                         " elements, but got bias of size %s instead", wb, g->o,
                         tensor_format_shape(bias->ndim, bias->sizes, bb, sizeof bb));
        return false;
    }
    int64_t padded_h, padded_w, ext_h, ext_w;
    if (!ckd_mul_i64(&padded_h, g->ph, 2) || !ckd_add_i64(&padded_h, padded_h, g->h) ||
        !ckd_mul_i64(&padded_w, g->pw, 2) || !ckd_add_i64(&padded_w, padded_w, g->w) ||
        !ckd_mul_i64(&ext_h, g->dh, g->kh - 1) || !ckd_add_i64(&ext_h, ext_h, 1) ||
        !ckd_mul_i64(&ext_w, g->dw, g->kw - 1) || !ckd_add_i64(&ext_w, ext_w, 1)) {
        tensor_set_error("conv%dd: padding or dilation too large (int64 overflow)", spatial);
        return false;
    }
    if (padded_h < ext_h || padded_w < ext_w) {
        if (spatial == 2)
            tensor_set_error("Calculated padded input size per channel: (%" PRId64 " x %" PRId64 "). Kernel size: (%"
                             PRId64 " x %" PRId64 "). Kernel size can't be greater than actual input size",
                             padded_h, padded_w, ext_h, ext_w);
        else
            tensor_set_error("Calculated padded input size per channel: (%" PRId64 "). Kernel size: (%" PRId64
                             "). Kernel size can't be greater than actual input size", padded_w, ext_w);
        return false;
    }
    if (w->dtype != x->dtype) {
        tensor_set_error("Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN tensor "
                         "and weight is a dense tensor", dtype_legacy_tensor_name(x->dtype), dtype_legacy_tensor_name(w->dtype));
        return false;
    }
    if (x->dtype == DT_BOOL) {
        tensor_set_error("\"slow_conv2d_cpu\" not implemented for 'Bool'");
        return false;
    }
    g->oh = (padded_h - ext_h) / g->sh + 1;
    g->ow = (padded_w - ext_w) / g->sw + 1;
    return true;
}

/* Unrolls image n, channels [c0, c0 + cg) of x (viewed through `xg`, the
 * input as 4-d) into col (cg * kh * kw, oh * ow), zero where the window
 * reads padding. With unit width stride in both the input and the
 * convolution, each output row is one run of the input row (a memcpy)
 * between zeros, instead of one copy per element (which was 85% of a
 * 16-channel 3x3 convolution's time). */
static void im2col(const Tensor *xg, const ConvGeom *g, int64_t n, int64_t c0, int64_t cg, Tensor *col)
{
    size_t es = dtype_size(xg->dtype);
    char *dst = tensor_data(col);
    const int64_t *st = xg->strides;
    bool rows_contiguous = st[3] == 1 && g->sw == 1;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++)
                for (int64_t oi = 0; oi < g->oh; oi++) {
                    int64_t ih = oi * g->sh - g->ph + ki * g->dh;
                    bool row_in = ih >= 0 && ih < g->h;
                    int64_t row_off = xg->offset + n * st[0] + (c0 + c) * st[1] + ih * st[2];
                    if (rows_contiguous || !row_in) {
                        /* iw = oj + shift is inside [0, w) for oj in [lo, hi) */
                        int64_t shift = kj * g->dw - g->pw;
                        int64_t lo = 0, hi = 0;
                        if (row_in) {
                            lo = shift < 0 ? (-shift < g->ow ? -shift : g->ow) : 0;
                            hi = g->w - shift < g->ow ? g->w - shift : g->ow;
                            if (hi < lo)
                                hi = lo;
                        }
                        memset(dst, 0, (size_t)lo * es);
                        if (hi > lo)
                            memcpy(dst + (size_t)lo * es, tensor_elem_ptr(xg, row_off + lo + shift),
                                   (size_t)(hi - lo) * es);
                        memset(dst + (size_t)hi * es, 0, (size_t)(g->ow - hi) * es);
                        dst += (size_t)g->ow * es;
                        continue;
                    }
                    if (es == 4) {
                        /* float32: constant-size copies the compiler makes
                         * moves (strided convolutions come here) */
                        static const char zero4[4];
                        for (int64_t oj = 0; oj < g->ow; oj++, dst += 4) {
                            int64_t iw = oj * g->sw - g->pw + kj * g->dw;
                            memcpy(dst, iw >= 0 && iw < g->w ? tensor_elem_ptr(xg, row_off + iw * st[3]) : zero4, 4);
                        }
                        continue;
                    }
                    for (int64_t oj = 0; oj < g->ow; oj++, dst += es) {
                        int64_t iw = oj * g->sw - g->pw + kj * g->dw;
                        if (row_in && iw >= 0 && iw < g->w)
                            memcpy(dst, tensor_elem_ptr(xg, row_off + iw * st[3]), es);
                        else
                            memset(dst, 0, es);
                    }
                }
}

/* out[:, o, ...] += bias[o] */
static void add_channel_bias(Tensor *out, const Tensor *bias, int64_t n, int64_t o, int64_t plane)
{
    if (out->dtype == DT_F32 && bias->dtype == DT_F32) {
        /* float32, the common case, as a typed loop: the general one below
         * goes through a double per element (a fifth of a small
         * convolution's time); the sum is the same float addition */
        float *ob = tensor_data(out);
        for (int64_t c = 0; c < o; c++) {
            float b = *(const float *)tensor_elem_ptr(bias, bias->offset + c * bias->strides[0]);
            for (int64_t i = 0; i < n; i++) {
                float *p = ob + (i * o + c) * plane;
                for (int64_t j = 0; j < plane; j++)
                    p[j] += b;
            }
        }
        return;
    }
    bool is_float = dtype_is_float(out->dtype);
    char *base = tensor_data(out);
    size_t es = dtype_size(out->dtype);
    for (int64_t c = 0; c < o; c++) {
        const void *bp = tensor_elem_ptr(bias, bias->offset + c * bias->strides[0]);
        double bf = tensor_load_f64(bias->dtype, bp);
        int64_t bi = tensor_load_i64(bias->dtype, bp);
        for (int64_t i = 0; i < n; i++) {
            char *p = base + (size_t)((i * o + c) * plane) * es;
            for (int64_t j = 0; j < plane; j++, p += es) {
                if (is_float)
                    tensor_store_f64(out->dtype, p, tensor_load_f64(out->dtype, p) + bf);
                else
                    tensor_store_i64(out->dtype, p, (int64_t)((uint64_t)tensor_load_i64(out->dtype, p) + (uint64_t)bi));
            }
        }
    }
}

/* Depthwise float32 convolution (one input and one output channel per
 * group, as torchaudio's compute_deltas and lfilter use): each output is
 * its window's dot product with the channel's kernel, summed in the order
 * im2col + GEMM would (kernel rows, then columns), without one im2col and
 * one single-row GEMM per channel. The loops run tap by tap over a whole
 * output row (each output still adds its taps in that order, from 0.0f,
 * skipping those in the padding), so the inner loop is a strided axpy the
 * compiler vectorizes; output by output it was 10x slower than PyTorch on
 * compute_deltas over 240 rows. wc is contiguous (O, 1, kh, kw). */
static void conv_depthwise_f32(const Tensor *xg, const Tensor *wc, const ConvGeom *g, Tensor *out)
{
    const float *xb = tensor_elem_ptr(xg, 0);
    const float *wb = tensor_elem_ptr(wc, wc->offset);
    float *ob = tensor_data(out);
    const int64_t *st = xg->strides;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t c = 0; c < g->c; c++) {
            const float *wk = wb + c * g->kh * g->kw;
            int64_t base = xg->offset + n * st[0] + c * st[1];
            float *oc = ob + (n * g->o + c) * g->oh * g->ow;
            for (int64_t oi = 0; oi < g->oh; oi++) {
                float *orow = oc + oi * g->ow;
                for (int64_t oj = 0; oj < g->ow; oj++)
                    orow[oj] = 0.0f;
                for (int64_t ki = 0; ki < g->kh; ki++) {
                    int64_t ih = oi * g->sh - g->ph + ki * g->dh;
                    if (ih < 0 || ih >= g->h)
                        continue;
                    for (int64_t kj = 0; kj < g->kw; kj++) {
                        /* the outputs whose tap kj reads inside the row:
                         * 0 <= oj * sw - pw + kj * dw < w */
                        int64_t first = g->pw - kj * g->dw, lo = 0, hi = g->ow;
                        if (first > 0)
                            lo = (first + g->sw - 1) / g->sw;
                        int64_t past = g->w + g->pw - kj * g->dw;   /* oj * sw < past */
                        if (past <= 0)
                            continue;
                        if ((past + g->sw - 1) / g->sw < hi)
                            hi = (past + g->sw - 1) / g->sw;
                        float wv = wk[ki * g->kw + kj];
                        const float *xr = xb + base + ih * st[2] + (kj * g->dw - g->pw) * st[3];
                        int64_t step = g->sw * st[3];
                        if (step == 1)      /* stride 1 along a contiguous row */
                            for (int64_t oj = lo; oj < hi; oj++)
                                orow[oj] += wv * xr[oj];
                        else
                            for (int64_t oj = lo; oj < hi; oj++)
                                orow[oj] += wv * xr[oj * step];
                    }
                }
            }
        }
}

static Tensor *conv_nd(const Tensor *x, const Tensor *w, const Tensor *bias, int spatial, const int64_t *stride,
                       const int64_t *padding, const int64_t *dilation, int64_t groups)
{
    ConvGeom g;
    if (!conv_check(x, w, bias, spatial, stride, padding, dilation, groups, &g))
        return NULL;
    /* x as (N, C, H, W) */
    int64_t xs[4] = {g.n, g.c, g.h, g.w}, xst[4];
    bool batched = x->ndim == spatial + 2;
    int src = 0;
    xst[0] = batched ? x->strides[src++] : 0;
    xst[1] = x->strides[src++];
    xst[2] = spatial == 2 ? x->strides[src++] : 0;
    xst[3] = x->strides[src];
    Tensor *xg = tensor_make_view(x, 4, xs, xst, x->offset);
    Tensor *wc = tensor_contiguous((Tensor *)w);
    int64_t os[4] = {g.n, g.o, g.oh, g.ow};
    Tensor *out = xg && wc ? tensor_empty(x->dtype, 4, os) : NULL;
    /* the products below fit: out and w exist with these sizes */
    int64_t cg = g.c / groups, og = g.o / groups, plane = out ? g.oh * g.ow : 0;
    int64_t krows = cg * g.kh * g.kw;
    int64_t cs[2] = {krows, plane};
    bool depthwise = out && cg == 1 && og == 1 && x->dtype == DT_F32 && wc->dtype == DT_F32;
    if (depthwise)
        conv_depthwise_f32(xg, wc, &g, out);
    /* A pointwise convolution (1x1 kernel, stride 1, no padding) over
     * planes stored row after row reads each sample's channels as the GEMM's
     * right operand in place: its im2col would be a copy of them (TorchRec's
     * and xDeepFM's Conv1d(k=1), FPN's lateral convolutions). */
    bool pointwise = out && !depthwise && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 &&
                     g.ph == 0 && g.pw == 0 && xg->strides[3] == 1 &&
                     (g.h == 1 || xg->strides[2] == g.w);
    Tensor *col = out && !depthwise && !pointwise ? tensor_empty(x->dtype, 2, cs) : NULL;
    bool ok = depthwise || pointwise || col != NULL;
    for (int64_t n = 0; ok && !depthwise && n < g.n; n++)
        for (int64_t gi = 0; ok && gi < groups; gi++) {
            Tensor *rhs = col;
            if (pointwise) {
                int64_t xst2[2] = {xg->strides[1], 1};
                rhs = tensor_make_view(xg, 2, cs, xst2,
                                       xg->offset + n * xg->strides[0] + gi * cg * xg->strides[1]);
            } else {
                im2col(xg, &g, n, gi * cg, cg, col);
            }
            int64_t ws[2] = {og, krows}, wst[2] = {krows, 1};
            int64_t ys[2] = {og, plane}, yst[2] = {plane, 1};
            Tensor *wv = tensor_make_view(wc, 2, ws, wst, wc->offset + gi * og * krows);
            Tensor *yv = tensor_make_view(out, 2, ys, yst, (n * g.o + gi * og) * plane);
            ok = rhs && wv && yv && kern_gemm(wv, rhs, yv);
            tensor_release(wv);
            tensor_release(yv);
            if (pointwise)
                tensor_release(rhs);
        }
    if (ok && bias)
        add_channel_bias(out, bias, g.n, g.o, plane);
    tensor_release(xg);
    tensor_release(wc);
    tensor_release(col);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    if (batched && spatial == 2)
        return out;
    /* drop the batch dim (unbatched input) and/or the height (conv1d) */
    int64_t rs[4], rst[4];
    int nd = 0;
    for (int d = 0; d < 4; d++) {
        if ((d == 0 && !batched) || (d == 2 && spatial == 1))
            continue;
        rs[nd] = out->sizes[d];
        rst[nd++] = out->strides[d];
    }
    Tensor *r = tensor_make_view(out, nd, rs, rst, out->offset);
    tensor_release(out);
    return r;
}

Tensor *tensor_conv2d(const Tensor *x, const Tensor *w, const Tensor *bias, const int64_t stride[2],
                      const int64_t padding[2], const int64_t dilation[2], int64_t groups)
{
    return conv_nd(x, w, bias, 2, stride, padding, dilation, groups);
}

Tensor *tensor_conv1d(const Tensor *x, const Tensor *w, const Tensor *bias, int64_t stride, int64_t padding,
                      int64_t dilation, int64_t groups)
{
    return conv_nd(x, w, bias, 1, &stride, &padding, &dilation, groups);
}

/* conv3d as the sum over kernel depths of 2-d convolutions of input depth
 * slices: output depth od is sum over kd of conv2d(x[:, :, id], w[:, :, kd])
 * with id = od * sd - pd + kd * dd, depths outside the input being the
 * zero padding (they add nothing). The 2-d convolutions check channels,
 * groups, dtypes and the height and width; the depth is checked here. The
 * sums run over kernel depths last, where ATen's one im2col product runs
 * them inside each dot product: the same terms, rounded in another order. */
Tensor *tensor_conv3d(const Tensor *x, const Tensor *w, const Tensor *bias, const int64_t stride[3],
                      const int64_t padding[3], const int64_t dilation[3], int64_t groups)
{
    if (w->ndim != 5 || (x->ndim != 4 && x->ndim != 5)) {
        char xb[160];
        tensor_set_error("Expected 4D (unbatched) or 5D (batched) input and a 5-d weight to conv3d, but got "
                         "input of size: %s and a %d-d weight",
                         tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb), w->ndim);
        return NULL;
    }
    if (stride[0] <= 0 || dilation[0] <= 0 || padding[0] < 0) {
        tensor_set_error(padding[0] < 0 ? "negative padding is not supported"
                         : stride[0] <= 0 ? "non-positive stride is not supported"
                                          : "dilation should be greater than zero");
        return NULL;
    }
    bool batched = x->ndim == 5;
    int ddim = batched ? 2 : 1;                 /* x's depth dim */
    int64_t depth = x->sizes[ddim], kdepth = w->sizes[2];
    int64_t padded, extent;
    if (!ckd_mul_i64(&padded, padding[0], 2) || !ckd_add_i64(&padded, padded, depth) ||
        !ckd_mul_i64(&extent, dilation[0], kdepth - 1) || !ckd_add_i64(&extent, extent, 1)) {
        tensor_set_error("conv3d: padding or dilation too large (int64 overflow)");
        return NULL;
    }
    if (padded < extent) {
        tensor_set_error("Calculated padded input size per channel: (%" PRId64 " x %" PRId64 " x %" PRId64
                         "). Kernel size: (%" PRId64 " x %" PRId64 " x %" PRId64
                         "). Kernel size can't be greater than actual input size", padded,
                         x->sizes[ddim + 1] + 2 * padding[1], x->sizes[ddim + 2] + 2 * padding[2], extent,
                         dilation[1] * (w->sizes[3] - 1) + 1, dilation[2] * (w->sizes[4] - 1) + 1);
        return NULL;
    }
    int64_t odepth = (padded - extent) / stride[0] + 1;
    Tensor **planes = kern_malloc((size_t)odepth, sizeof *planes);    /* each (N?, O, OH, OW) */
    bool ok = planes != NULL;
    for (int64_t od = 0; ok && od < odepth; od++) {
        planes[od] = NULL;
        for (int64_t kd = 0; ok && kd < kdepth; kd++) {
            int64_t id = od * stride[0] - padding[0] + kd * dilation[0];
            if (id < 0 || id >= depth)
                continue;
            Tensor *xs = tensor_select((Tensor *)x, ddim, id);
            Tensor *ws = tensor_select((Tensor *)w, 2, kd);
            Tensor *y = xs && ws ? tensor_conv2d(xs, ws, NULL, stride + 1, padding + 1, dilation + 1, groups) : NULL;
            tensor_release(xs);
            tensor_release(ws);
            if (y && planes[od]) {
                Tensor *sum = tensor_add(planes[od], y, 1);
                tensor_release(y);
                y = sum;
            }
            tensor_release(planes[od]);
            planes[od] = y;
            ok = y != NULL;
        }
        if (ok && !planes[od]) {            /* every kernel depth in the padding: shape from depth 0 */
            int64_t id = 0;
            Tensor *xs = tensor_select((Tensor *)x, ddim, id);
            Tensor *ws = tensor_select((Tensor *)w, 2, 0);
            Tensor *y = xs && ws ? tensor_conv2d(xs, ws, NULL, stride + 1, padding + 1, dilation + 1, groups) : NULL;
            tensor_release(xs);
            tensor_release(ws);
            planes[od] = y ? tensor_zeros(y->dtype, y->ndim, y->sizes) : NULL;
            tensor_release(y);
            ok = planes[od] != NULL;
        }
    }
    Tensor *out = NULL;
    if (ok) {
        out = tensor_stack(planes, (int)odepth, ddim);
        ok = out != NULL;
    }
    for (int64_t od = 0; planes && od < odepth; od++)
        tensor_release(planes[od]);
    free(planes);
    if (ok && bias) {
        if (bias->ndim != 1 || bias->sizes[0] != w->sizes[0]) {
            tensor_set_error("expected bias to be 1-dimensional with %" PRId64 " elements", w->sizes[0]);
            tensor_release(out);
            return NULL;
        }
        int64_t bs[4] = {w->sizes[0], 1, 1, 1}, bst[4] = {bias->strides[0], 0, 0, 0};
        Tensor *bv = tensor_make_view(bias, 4, bs, bst, bias->offset);
        Tensor *with_bias = bv ? tensor_add(out, bv, 1) : NULL;
        tensor_release(bv);
        tensor_release(out);
        out = with_bias;
    }
    return out;
}

/* ---------------------------------------------------------------- normalization */

/* Per-channel parameter p[c] as double (default when p is NULL). */
static double *channel_params(const Tensor *p, int64_t c, double dflt)
{
    if (p)
        return kern_read_all_f64(p);
    double *v = kern_malloc((size_t)c, sizeof *v);
    if (v)
        for (int64_t i = 0; i < c; i++)
            v[i] = dflt;
    return v;
}

static bool check_param_numel(const Tensor *p, const char *name, int64_t c)
{
    if (!p || tensor_numel(p) == c)
        return true;
    tensor_set_error("%s should contain %" PRId64 " elements not %" PRId64, name, c, tensor_numel(p));
    return false;
}

/* y = x * scale[c] + shift[c] for channel c = dim 1, into a fresh tensor. */
static Tensor *apply_channel_affine(const Tensor *x, const double *scale, const double *shift)
{
    int64_t c = x->sizes[1], inner = 1, n = tensor_numel(x);
    for (int d = 2; d < x->ndim; d++)
        inner *= x->sizes[d];
    Tensor *out = tensor_empty(x->dtype, x->ndim, x->sizes);
    if (out && x->dtype == DT_F32 && tensor_is_contiguous(x)) {
        /* float32 read and written in place of a double copy of the
         * whole tensor each way (most of an eval-mode batch norm's time);
         * each element is computed in double as below, so the result is
         * the same */
        const float *xv = tensor_data(x);
        float *ov = tensor_data(out);
        for (int64_t i = 0; i < n;)
            for (int64_t ch = 0; ch < c; ch++)
                for (int64_t k = 0; k < inner; k++, i++)
                    ov[i] = (float)((double)xv[i] * scale[ch] + shift[ch]);
        return out;
    }
    double *v = out ? kern_read_all_f64(x) : NULL;
    if (!v) {
        tensor_release(out);
        return NULL;
    }
    /* n == 0 when c or inner is 0 */
    for (int64_t i = 0; i < n;)
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t k = 0; k < inner; k++, i++)
                v[i] = v[i] * scale[ch] + shift[ch];
    kern_write_all_f64(out, v);
    free(v);
    return out;
}

/* ATen reads the channel count as input.size(1): a 0-d or 1-d input fails
 * there. */
static bool has_channel_dim(const Tensor *x)
{
    if (x->ndim >= 2)
        return true;
    if (x->ndim == 0)
        tensor_set_error("Dimension specified as 1 but tensor has no dimensions");
    else
        tensor_set_error("Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    return false;
}

Tensor *tensor_batch_norm(const Tensor *x, const Tensor *weight, const Tensor *bias, const Tensor *running_mean,
                          const Tensor *running_var, double eps)
{
    if (!has_channel_dim(x))
        return NULL;
    int64_t c = x->sizes[1];
    if (!running_mean) {
        tensor_set_error("running_mean must be defined in evaluation mode");
        return NULL;
    }
    if (!running_var) {
        tensor_set_error("running_var must be defined in evaluation mode");
        return NULL;
    }
    if (!check_param_numel(running_mean, "running_mean", c) || !check_param_numel(running_var, "running_var", c) ||
        !check_param_numel(weight, "weight", c) || !check_param_numel(bias, "bias", c) ||
        !tensor_require_float(x, "batch_norm"))
        return NULL;
    double *w = channel_params(weight, c, 1.0), *b = channel_params(bias, c, 0.0);
    double *mean = kern_read_all_f64(running_mean), *var = kern_read_all_f64(running_var);
    Tensor *out = NULL;
    if (w && b && mean && var) {
        /* PyTorch's inference form: alpha = w / sqrt(var + eps), beta = b - mean * alpha */
        for (int64_t i = 0; i < c; i++) {
            double alpha = w[i] / sqrt(var[i] + eps);
            w[i] = alpha;
            b[i] = b[i] - mean[i] * alpha;
        }
        out = apply_channel_affine(x, w, b);
    }
    free(w);
    free(b);
    free(mean);
    free(var);
    return out;
}

/* Normalizes every line [o * inner, (o + 1) * inner) of v to zero mean and
 * unit (population) variance: (v - mean) / sqrt(var + eps); the means and
 * 1 / sqrt(var + eps) of the lines go to means/rstds unless NULL. */
static void normalize_lines(double *v, int64_t lines, int64_t inner, double eps, double *means, double *rstds)
{
    for (int64_t o = 0; o < lines; o++) {
        double *line = v + o * inner;
        double mean = 0.0, ss = 0.0;
        for (int64_t i = 0; i < inner; i++)
            mean += line[i];
        mean /= (double)inner;
        for (int64_t i = 0; i < inner; i++)
            ss += (line[i] - mean) * (line[i] - mean);
        double rstd = 1.0 / sqrt(ss / (double)inner + eps);
        for (int64_t i = 0; i < inner; i++)
            line[i] = (line[i] - mean) * rstd;
        if (means)
            means[o] = mean;
        if (rstds)
            rstds[o] = rstd;
    }
}

/* A fresh tensor of dtype dt and the given shape holding vals. */
static Tensor *tensor_from_f64(TensorDType dt, int ndim, const int64_t *sizes, const double *vals)
{
    Tensor *t = tensor_empty(dt, ndim, sizes);
    if (t)
        kern_write_all_f64(t, vals);
    return t;
}

Tensor *tensor_batch_norm_train(const Tensor *x, const Tensor *weight, const Tensor *bias, double eps,
                                Tensor **save_mean, Tensor **save_invstd)
{
    if (!has_channel_dim(x))
        return NULL;
    int64_t c = x->sizes[1];
    if (!check_param_numel(weight, "weight", c) || !check_param_numel(bias, "bias", c) || !tensor_require_float(x, "batch_norm"))
        return NULL;
    int64_t total = tensor_numel(x), inner = c > 0 ? total / x->sizes[0] / c : 0;
    int64_t count = x->sizes[0] * inner;   /* values per channel */
    double *v = kern_read_all_f64(x);
    double *w = channel_params(weight, c, 1.0), *b = channel_params(bias, c, 0.0);
    double *mean = kern_malloc((size_t)c, sizeof *mean), *invstd = kern_malloc((size_t)c, sizeof *invstd);
    Tensor *out = NULL, *m = NULL, *is = NULL;
    if (v && w && b && mean && invstd) {
        /* two passes per channel: the mean, then the biased variance */
        for (int64_t ch = 0; ch < c; ch++)
            mean[ch] = invstd[ch] = 0.0;
        for (int64_t i = 0; i < total; i++)
            mean[(i / inner) % c] += v[i];
        for (int64_t ch = 0; ch < c; ch++)
            mean[ch] /= (double)count;
        for (int64_t i = 0; i < total; i++) {
            double dev = v[i] - mean[(i / inner) % c];
            invstd[(i / inner) % c] += dev * dev;
        }
        for (int64_t ch = 0; ch < c; ch++) {
            invstd[ch] = 1.0 / sqrt(invstd[ch] / (double)count + eps);
            /* as PyTorch: alpha = w * invstd, beta = b - mean * alpha */
            w[ch] *= invstd[ch];
            b[ch] -= mean[ch] * w[ch];
        }
        out = apply_channel_affine(x, w, b);
        if (out && save_mean) {
            m = tensor_from_f64(x->dtype, 1, &c, mean);
            is = m ? tensor_from_f64(x->dtype, 1, &c, invstd) : NULL;
            if (!is) {
                tensor_release(out);
                tensor_release(m);
                out = NULL;
            } else {
                *save_mean = m;
                *save_invstd = is;
            }
        }
    }
    free(v);
    free(w);
    free(b);
    free(mean);
    free(invstd);
    return out;
}

Tensor *tensor_instance_norm(const Tensor *x, const Tensor *weight, const Tensor *bias, const Tensor *running_mean,
                             const Tensor *running_var, bool use_input_stats, double eps)
{
    if (!use_input_stats && (!running_mean || !running_var)) {
        tensor_set_error("Expected running_mean and running_var to be defined when use_input_stats is false");
        return NULL;
    }
    if (!has_channel_dim(x))
        return NULL;
    /* ATen runs batch_norm on a (1, N * C, ...) view with the parameters
     * repeated N times; its checks see those sizes */
    int64_t n = x->sizes[0], c = x->sizes[1], lines = n * c, total = tensor_numel(x);
    const Tensor *params[4] = {running_mean, running_var, weight, bias};
    const char *names[4] = {"running_mean", "running_var", "weight", "bias"};
    if (total == 0) {
        /* batch_norm's empty input: input * weight[0] + bias[0] */
        TensorDType dt = x->dtype;
        for (int k = 2; k < 4; k++)
            if (params[k]) {
                if (n * tensor_numel(params[k]) == 0) {
                    tensor_set_error("select(): index 0 out of range for tensor of size [0] at dimension 0");
                    return NULL;
                }
                dt = dtype_promote(dt, params[k]->dtype);
            }
        return tensor_empty(dt, x->ndim, x->sizes);
    }
    for (int k = 0; k < 4; k++)
        if (params[k] && n * tensor_numel(params[k]) != lines) {
            tensor_set_error("%s should contain %" PRId64 " elements not %" PRId64, names[k], lines,
                             n * tensor_numel(params[k]));
            return NULL;
        }
    if (!tensor_require_float(x, "batch_norm"))
        return NULL;
    int64_t inner = total / lines;
    Tensor *out = tensor_empty(x->dtype, x->ndim, x->sizes);
    /* float32 contiguous: one line at a time through a double buffer, in
     * place of a double copy of the whole tensor each way; the same
     * arithmetic on each line, so the same result */
    bool by_line = x->dtype == DT_F32 && tensor_is_contiguous(x);
    double *v = out ? (by_line ? kern_malloc((size_t)inner, sizeof *v) : kern_read_all_f64(x)) : NULL;
    double *w = channel_params(weight, c, 1.0), *b = channel_params(bias, c, 0.0);
    double *rm = use_input_stats ? NULL : kern_read_all_f64(running_mean);
    double *rv = use_input_stats ? NULL : kern_read_all_f64(running_var);
    if (!v || !w || !b || (!use_input_stats && (!rm || !rv))) {
        tensor_release(out);
        out = NULL;
    } else {
        if (use_input_stats && !by_line)
            normalize_lines(v, lines, inner, eps, NULL, NULL);
        const float *xf = by_line ? tensor_data(x) : NULL;
        float *of = by_line ? tensor_data(out) : NULL;
        for (int64_t line = 0; line < lines; line++) {
            int64_t ch = line % c;
            double *lv = by_line ? v : v + line * inner;
            if (by_line) {
                for (int64_t i = 0; i < inner; i++)
                    lv[i] = xf[line * inner + i];
                if (use_input_stats)
                    normalize_lines(lv, 1, inner, eps, NULL, NULL);
            }
            /* eval mode in PyTorch's inference form: x * alpha + beta */
            double alpha = use_input_stats ? w[ch] : w[ch] / sqrt(rv[ch] + eps);
            double beta = use_input_stats ? b[ch] : b[ch] - rm[ch] * alpha;
            for (int64_t i = 0; i < inner; i++)
                lv[i] = lv[i] * alpha + beta;
            if (by_line)
                for (int64_t i = 0; i < inner; i++)
                    of[line * inner + i] = (float)lv[i];
        }
        if (!by_line)
            kern_write_all_f64(out, v);
    }
    free(v);
    free(w);
    free(b);
    free(rm);
    free(rv);
    return out;
}

/* layer_norm, and its per-line mean and 1 / sqrt(var + eps) shaped
 * x.shape[:-n] + [1] * n when mean is not NULL (native_layer_norm). */
static Tensor *layer_norm(const Tensor *x, int n, const int64_t *normalized_shape, const Tensor *weight,
                          const Tensor *bias, double eps, Tensor **mean, Tensor **rstd)
{
    char nb[TENSOR_SHAPE_BUF], pb[TENSOR_SHAPE_BUF], xb[TENSOR_SHAPE_BUF];
    tensor_format_shape(n, normalized_shape, nb, sizeof nb);
    if (n < 1) {
        tensor_set_error("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                         "element, but got normalized_shape = %s", nb);
        return NULL;
    }
    const Tensor *params[2] = {weight, bias};
    const char *names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const Tensor *p = params[k];
        if (p && (p->ndim != n || memcmp(p->sizes, normalized_shape, (size_t)n * sizeof *normalized_shape) != 0)) {
            tensor_set_error("Expected %s to be of same shape as normalized_shape, but got %s of shape %s and "
                             "normalized_shape = %s", names[k], names[k], tensor_format_shape(p->ndim, p->sizes, pb, sizeof pb),
                             nb);
            return NULL;
        }
    }
    bool match = x->ndim >= n;
    for (int k = 0; match && k < n; k++)
        match = x->sizes[x->ndim - n + k] == normalized_shape[k];
    if (!match) {
        tensor_set_error("Given normalized_shape=%s, expected input with shape [*, %s, but got input of size%s", nb,
                         nb + 1, tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return NULL;
    }
    if (!tensor_require_float(x, "LayerNormKernelImpl"))
        return NULL;
    int64_t inner = 1, total = tensor_numel(x);
    for (int k = 0; k < n; k++)
        inner *= normalized_shape[k];
    if (mean && inner == 0) {
        tensor_set_error("native_layer_norm over an empty normalized_shape is not implemented");
        return NULL;
    }
    int64_t lines = inner > 0 ? total / inner : 0;
    Tensor *out = tensor_empty(x->dtype, x->ndim, x->sizes);
    double *v = out ? kern_read_all_f64(x) : NULL;
    double *w = weight ? kern_read_all_f64(weight) : NULL, *b = bias ? kern_read_all_f64(bias) : NULL;
    double *means = mean ? kern_malloc((size_t)lines, sizeof *means) : NULL;
    double *rstds = mean ? kern_malloc((size_t)lines, sizeof *rstds) : NULL;
    if (!v || (weight && !w) || (bias && !b) || (mean && (!means || !rstds))) {
        tensor_release(out);
        out = NULL;
    } else if (inner > 0) {
        normalize_lines(v, lines, inner, eps, means, rstds);
        for (int64_t i = 0; i < total; i++)
            v[i] = v[i] * (w ? w[i % inner] : 1.0) + (b ? b[i % inner] : 0.0);
        kern_write_all_f64(out, v);
    }
    if (out && mean) {
        int64_t stat_sizes[TENSOR_MAX_DIMS];
        for (int d = 0; d < x->ndim; d++)
            stat_sizes[d] = d < x->ndim - n ? x->sizes[d] : 1;
        *mean = tensor_from_f64(x->dtype, x->ndim, stat_sizes, means);
        *rstd = *mean ? tensor_from_f64(x->dtype, x->ndim, stat_sizes, rstds) : NULL;
        if (!*rstd) {
            tensor_release(*mean);
            tensor_release(out);
            out = NULL;
        }
    }
    free(v);
    free(w);
    free(b);
    free(means);
    free(rstds);
    return out;
}

Tensor *tensor_layer_norm(const Tensor *x, int n, const int64_t *normalized_shape, const Tensor *weight,
                          const Tensor *bias, double eps)
{
    return layer_norm(x, n, normalized_shape, weight, bias, eps, NULL, NULL);
}

Tensor *tensor_native_layer_norm(const Tensor *x, int n, const int64_t *normalized_shape, const Tensor *weight,
                                 const Tensor *bias, double eps, Tensor **mean, Tensor **rstd)
{
    return layer_norm(x, n, normalized_shape, weight, bias, eps, mean, rstd);
}

Tensor *tensor_group_norm(const Tensor *x, int64_t groups, const Tensor *weight, const Tensor *bias, double eps)
{
    char xb[TENSOR_SHAPE_BUF], pb[TENSOR_SHAPE_BUF];
    if (x->ndim < 2) {
        tensor_set_error("Expected at least 2 dimensions for input tensor but received %d", x->ndim);
        return NULL;
    }
    int64_t c = x->sizes[1];
    if (groups <= 0) {
        tensor_set_error("group_norm: num_groups must be positive, but got num_groups=%" PRId64, groups);
        return NULL;
    }
    tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb);
    if (c % groups != 0) {
        tensor_set_error("Expected number of channels in input to be divisible by num_groups, but got input of shape "
                         "%s and num_groups=%" PRId64, xb, groups);
        return NULL;
    }
    const Tensor *params[2] = {weight, bias};
    const char *names[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const Tensor *p = params[k];
        if (p && (p->ndim != 1 || p->sizes[0] != c)) {
            tensor_set_error("Expected %s to be a vector of size equal to the number of channels in input, but got "
                             "%s of shape %s and input of shape %s", names[k], names[k],
                             tensor_format_shape(p->ndim, p->sizes, pb, sizeof pb), xb);
            return NULL;
        }
    }
    if (!tensor_require_float(x, "GroupNormKernelImpl"))
        return NULL;
    int64_t total = tensor_numel(x), n = x->sizes[0];
    int64_t group_len = n * groups > 0 ? total / (n * groups) : 0;
    int64_t hw = c > 0 ? total / (n > 0 ? n : 1) / c : 0;
    Tensor *out = tensor_empty(x->dtype, x->ndim, x->sizes);
    double *v = out ? kern_read_all_f64(x) : NULL;
    double *w = channel_params(weight, c, 1.0), *b = channel_params(bias, c, 0.0);
    if (!v || !w || !b) {
        tensor_release(out);
        out = NULL;
    } else if (total > 0) {
        if (group_len > 0)
            normalize_lines(v, n * groups, group_len, eps, NULL, NULL);
        for (int64_t i = 0; i < total; i++) {
            int64_t ch = hw > 0 ? (i / hw) % c : 0;
            v[i] = v[i] * w[ch] + b[ch];
        }
        kern_write_all_f64(out, v);
    }
    free(v);
    free(w);
    free(b);
    return out;
}

/* ---------------------------------------------------------------- embedding */

Tensor *tensor_embedding(const Tensor *weight, const Tensor *indices)
{
    if (weight->ndim != 2) {
        tensor_set_error("'weight' must be 2-D");
        return NULL;
    }
    if (indices->dtype != DT_I64 && indices->dtype != DT_I32) {
        tensor_set_error("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                         "Int; but got %s instead (while checking arguments for embedding)",
                         dtype_legacy_tensor_name(indices->dtype));
        return NULL;
    }
    if (indices->ndim + 1 > TENSOR_MAX_DIMS) {
        tensor_set_error("embedding: indices have too many dims (%d)", indices->ndim);
        return NULL;
    }
    /* index_select on the flattened indices, then indices.shape + (dim,) */
    Tensor *flat_src = tensor_contiguous((Tensor *)indices);
    int64_t n = tensor_numel(indices), one = 1;
    Tensor *flat = flat_src ? tensor_make_view(flat_src, 1, &n, &one, flat_src->offset) : NULL;
    Tensor *rows = flat ? tensor_index_select(weight, 0, flat) : NULL;
    Tensor *out = NULL;
    if (rows) {
        int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
        int64_t d = weight->sizes[1];
        memcpy(sizes, indices->sizes, (size_t)indices->ndim * sizeof *sizes);
        sizes[indices->ndim] = d;
        strides[indices->ndim] = 1;
        for (int k = indices->ndim - 1; k >= 0; k--)
            strides[k] = strides[k + 1] * sizes[k + 1];
        out = tensor_make_view(rows, indices->ndim + 1, sizes, strides, rows->offset);
    }
    tensor_release(flat_src);
    tensor_release(flat);
    tensor_release(rows);
    return out;
}
