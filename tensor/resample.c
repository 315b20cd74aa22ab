/* resample.c — moving pixels between resolutions with PyTorch's (1.13, CPU)
 * semantics: interpolation (the upsample_* ops F.interpolate emits), grid
 * sampling (F.grid_sample) and pixel_shuffle / pixel_unshuffle (channels
 * <-> space).
 *
 * Interpolation is separable: every spatial dim gets, per output position,
 * a few taps (input index, weight) -- 1 for nearest, 2 for linear, 4 for
 * cubic -- computed with ATen's UpSample.h formulas in ATen's precision
 * (float for float32 and uint8 inputs, double for float64), since the
 * chosen indices depend on how the source coordinate rounds. ATen's 2-d and
 * 3-d kernels have a channels-last branch (taken for a contiguous input
 * with one channel, too) whose nearest modes use other formulas (always in
 * float, with shortcuts for equal and doubled sizes); those are followed as
 * well. The output is the weighted sum over the tap grid (outer dims
 * outermost, as ATen's Interpolate recursion), accumulated in double and
 * rounded once. Nearest modes copy elements through index tables, exactly,
 * for every dtype ATen accepts (floats and uint8). The antialiased modes
 * (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa) are the same sum with
 * wider, normalized filter windows.
 *
 * Grid sampling follows ATen's GridSampler.h: grid coordinates in [-1, 1]
 * are unnormalized to pixels, the padding mode clips or reflects them, and
 * bilinear/trilinear, nearest (round half to even) or bicubic (4 x 4 taps,
 * padding applied per tap) sampling reads the input, zero outside. The
 * coordinate arithmetic is rounded to float for float32 inputs.
 *
 * The shuffles are pure data movement: a view of the input split into
 * factor dims, permuted, and copied into a fresh contiguous tensor, so every
 * dtype works and nothing is rounded.
 */
#include "tensor/tensor_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- interpolation */

/* A value rounded to the precision ATen computes indices in. */
static double opmath(double v, bool single)
{
    return single ? (double)(float)v : v;
}

/* compute_scales_value: 1 / scale when a positive scale was given, else
 * input / output. */
static double scales_value(double scale, int64_t in, int64_t out, bool single)
{
    if (scale > 0.0)
        return opmath(1.0 / scale, single);
    return single ? (double)((float)in / (float)out) : (double)in / (double)out;
}

/* area_pixel_compute_scale */
static double pixel_scale(int64_t in, int64_t out, bool align_corners, double scale, bool single)
{
    if (align_corners)
        return out > 1 ? (single ? (double)((float)(in - 1) / (float)(out - 1)) : (double)(in - 1) / (double)(out - 1))
                       : 0.0;
    return scales_value(scale, in, out, single);
}

/* area_pixel_compute_source_index (1.13: the half-pixel shift in double,
 * the result stored in the op's precision). */
static double source_index(double scale, int64_t dst, bool align_corners, bool cubic, bool single)
{
    if (align_corners)
        return opmath(scale * opmath((double)dst, single), single);
    double src = opmath(scale * ((double)dst + 0.5) - 0.5, single);
    return (!cubic && src < 0.0) ? 0.0 : src;
}

/* floorf(): ATen floors through float even for double inputs. */
static int64_t floor_float(double v)
{
    return (int64_t)floorf((float)v);
}

static int64_t min_i64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Taps of one spatial dim: for output position o, taps index[o * n + j]
 * with weight[o * n + j], j < n. */
typedef struct Taps {
    int n;
    int64_t *index;
    double *weight;
} Taps;

static void cubic_coefficients(double t, double c[4])
{
    /* Keys' cubic convolution with A = -0.75, as ATen's
     * get_cubic_upsample_coefficients */
    const double A = -0.75;
    double x1 = t, x2 = 1.0 - t;
    c[0] = ((A * (x1 + 1.0) - 5.0 * A) * (x1 + 1.0) + 8.0 * A) * (x1 + 1.0) - 4.0 * A;
    c[1] = ((A + 2.0) * x1 - (A + 3.0)) * x1 * x1 + 1.0;
    c[2] = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0;
    c[3] = ((A * (x2 + 1.0) - 5.0 * A) * (x2 + 1.0) + 8.0 * A) * (x2 + 1.0) - 4.0 * A;
}

/* channels_last: ATen's channels-last kernel runs (its nearest modes use
 * nearest_idx / nearest_exact_idx, in float, instead of the generic
 * kernel's formulas). */
/* The antialiasing filters (Pillow's): triangle for bilinear, Keys' cubic
 * with a = -0.5 for bicubic. */
static double aa_filter(UpsampleMode mode, double x)
{
    x = fabs(x);
    if (mode == UPSAMPLE_LINEAR_AA)
        return x < 1.0 ? 1.0 - x : 0.0;
    const double a = -0.5;
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0)
        return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
    return 0.0;
}

/* ATen's _compute_indices_weights_aa: each output pixel averages the input
 * pixels within `support` of its center (widened by the scale when
 * downsampling), weighted by the filter and normalized. Taps beyond a
 * pixel's window get weight 0. */
static bool taps_compute_aa(Taps *tp, UpsampleMode mode, int64_t in, int64_t out, bool align_corners, double scale,
                            bool single)
{
    double sc = pixel_scale(in, out, align_corners, scale, single);
    double half = mode == UPSAMPLE_LINEAR_AA ? 1.0 : 2.0;   /* interp_size / 2 */
    double support = sc >= 1.0 ? opmath(half * sc, single) : half;
    double invscale = sc >= 1.0 ? opmath(1.0 / sc, single) : 1.0;
    /* the window never exceeds ceil(support) * 2 + 1 pixels, nor the input */
    double widest = ceil(support) * 2.0 + 1.0;
    tp->n = widest < (double)in ? (int)widest : (int)in;
    tp->index = kern_malloc((size_t)(out * tp->n), sizeof *tp->index);
    tp->weight = tp->index ? kern_malloc((size_t)(out * tp->n), sizeof *tp->weight) : NULL;
    if (!tp->weight)
        return false;
    for (int64_t o = 0; o < out; o++) {
        double center = opmath(sc * opmath((double)o + 0.5, single), single);
        int64_t lo = (int64_t)opmath(opmath(center - support, single) + 0.5, single);
        int64_t hi = (int64_t)opmath(opmath(center + support, single) + 0.5, single);
        lo = lo > 0 ? lo : 0;
        hi = hi < in ? hi : in;
        int64_t *ix = tp->index + o * tp->n;
        double *w = tp->weight + o * tp->n, total = 0.0;
        for (int j = 0; j < tp->n; j++) {
            bool inside = lo + j < hi;
            ix[j] = inside ? lo + j : 0;
            w[j] = inside ? aa_filter(mode, opmath(((double)j + (double)lo - center + 0.5) * invscale, single)) : 0.0;
            total += w[j];
        }
        for (int j = 0; total != 0.0 && j < tp->n; j++)
            w[j] /= total;
    }
    return true;
}

static bool taps_compute(Taps *tp, UpsampleMode mode, int64_t in, int64_t out, bool align_corners, double scale,
                         bool single, bool channels_last)
{
    if (mode == UPSAMPLE_LINEAR_AA || mode == UPSAMPLE_CUBIC_AA)
        return taps_compute_aa(tp, mode, in, out, align_corners, scale, single);
    tp->n = mode == UPSAMPLE_LINEAR ? 2 : mode == UPSAMPLE_CUBIC ? 4 : 1;
    tp->index = kern_malloc((size_t)(out * tp->n), sizeof *tp->index);
    tp->weight = tp->index ? kern_malloc((size_t)(out * tp->n), sizeof *tp->weight) : NULL;
    if (!tp->weight)
        return false;
    bool ac = align_corners && mode != UPSAMPLE_NEAREST && mode != UPSAMPLE_NEAREST_EXACT;
    double sc = pixel_scale(in, out, ac, scale, single);
    /* the channels-last nearest kernels place pixels in float */
    float nearest_scale = (float)scales_value(scale, in, out, true);
    for (int64_t o = 0; o < out; o++) {
        int64_t *ix = tp->index + o * tp->n;
        double *w = tp->weight + o * tp->n;
        switch (mode) {
        case UPSAMPLE_NEAREST:
            if (!channels_last)
                ix[0] = min_i64(floor_float(source_index(sc, o, true, false, single)), in - 1);
            else if (out == in)     /* nearest_idx: no float arithmetic for these two */
                ix[0] = o;
            else if (out == 2 * in)
                ix[0] = o >> 1;
            else
                ix[0] = min_i64((int64_t)floorf((float)o * nearest_scale), in - 1);
            w[0] = 1.0;
            break;
        case UPSAMPLE_NEAREST_EXACT:
            if (!channels_last)
                ix[0] = min_i64(floor_float(source_index(sc, o, false, false, single) + 0.5), in - 1);
            else
                ix[0] = min_i64((int64_t)floorf((float)(((double)o + 0.5) * (double)nearest_scale)), in - 1);
            w[0] = 1.0;
            break;
        case UPSAMPLE_LINEAR:
            if (out == in) {
                ix[0] = ix[1] = o;
                w[0] = 1.0, w[1] = 0.0;
            } else {
                double real = source_index(sc, o, ac, false, single);
                ix[0] = (int64_t)real;
                ix[1] = ix[0] + (ix[0] < in - 1 ? 1 : 0);
                double l1 = opmath(real - (double)ix[0], single);
                l1 = l1 < 0.0 ? 0.0 : l1 > 1.0 ? 1.0 : l1;
                w[0] = opmath(1.0 - l1, single);
                w[1] = l1;
            }
            break;
        case UPSAMPLE_LINEAR_AA:
        case UPSAMPLE_CUBIC_AA:
            break;   /* taps_compute_aa */
        case UPSAMPLE_CUBIC: {
            double real = source_index(sc, o, ac, true, single);
            int64_t i0 = floor_float(real);
            double c[4];
            cubic_coefficients(opmath(real - (double)i0, single), c);
            for (int j = 0; j < 4; j++) {
                int64_t k = min_i64(i0 - 1 + j, in - 1);
                ix[j] = k > 0 ? k : 0;
                w[j] = opmath(c[j], single);
            }
            break;
        }
        }
    }
    return true;
}

/* c10's is_channels_last_contiguous for 4-d and 5-d tensors: a dense
 * channels-last layout (a contiguous tensor with one channel, or with one
 * pixel per channel, is one too). ATen's 2-d and 3-d upsample kernels take
 * their channels-last branch then. */
static bool channels_last_contiguous(const Tensor *x)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    const int *order = x->ndim == 4 ? order4 : x->ndim == 5 ? order5 : NULL;
    if (!order)
        return false;
    int64_t expected = 1;
    for (int k = 0; k < x->ndim; k++) {
        int d = order[k];
        if (x->sizes[d] == 1)
            continue;
        if (x->strides[d] != expected)
            return false;
        expected *= x->sizes[d];
    }
    return true;
}

static const char *const upsample_names[4][3] = {
    {"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
    {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
    {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
    {"", "upsample_bicubic2d", ""},
};

/* ATen's dispatch-failure name for an unsupported dtype: the channels-last
 * branch of the 2-d and 3-d kernels names itself, the generic kernel fails
 * in its index computation. */
static bool upsample_dtype_check(const Tensor *x, UpsampleMode mode, int spatial, bool channels_last)
{
    bool nearest = mode == UPSAMPLE_NEAREST || mode == UPSAMPLE_NEAREST_EXACT;
    if (dtype_is_float(x->dtype) || (nearest && x->dtype == DT_U8))
        return true;
    char name[64];
    if (mode == UPSAMPLE_LINEAR_AA || mode == UPSAMPLE_CUBIC_AA)
        snprintf(name, sizeof name, "compute_indices_weights_aa");
    else if (!channels_last || mode == UPSAMPLE_CUBIC)
        snprintf(name, sizeof name, "compute_indices_weights_%s",
                 nearest ? "nearest" : mode == UPSAMPLE_LINEAR ? "linear" : "cubic");
    else
        snprintf(name, sizeof name, "%s_channels_last",
                 mode == UPSAMPLE_NEAREST_EXACT ? upsample_names[UPSAMPLE_NEAREST][spatial - 1]
                                                : upsample_names[mode][spatial - 1]);
    return tensor_error_not_implemented(name, x->dtype);
}

static bool upsample_check(const Tensor *x, int spatial, const int64_t *out_size)
{
    char xb[TENSOR_SHAPE_BUF];
    if (x->ndim != spatial + 2) {
        tensor_set_error("It is expected input_size equals to %d, but got size %d", spatial + 2, x->ndim);
        return false;
    }
    const int64_t *in = x->sizes + 2;
    bool positive = true;
    for (int d = 0; d < spatial; d++)
        positive = positive && in[d] > 0 && out_size[d] > 0;
    if (!positive) {
        if (spatial == 1)
            tensor_set_error("Input and output sizes should be greater than 0, but got input (W: %" PRId64
                             ") and output (W: %" PRId64 ")", in[0], out_size[0]);
        else if (spatial == 2)
            tensor_set_error("Input and output sizes should be greater than 0, but got input (H: %" PRId64
                             ", W: %" PRId64 ") output (H: %" PRId64 ", W: %" PRId64 ")", in[0], in[1],
                             out_size[0], out_size[1]);
        else
            tensor_set_error("Input and output sizes should be greater than 0, but got input (D: %" PRId64
                             ", H: %" PRId64 ", W: %" PRId64 ") output (D: %" PRId64 ", H: %" PRId64 ", W: %" PRId64
                             ")", in[0], in[1], in[2], out_size[0], out_size[1], out_size[2]);
        return false;
    }
    if (x->sizes[1] == 0) {
        tensor_set_error("Non-empty %dD data tensor expected but got a tensor with sizes %s", spatial + 2,
                         tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    return true;
}

bool tensor_upsample_output_size(const Tensor *x, int spatial, const double *scale_factors, int64_t *out_size)
{
    if (x->ndim != spatial + 2) {
        tensor_set_error("upsample: expected a %dD input, but got input of %d dims", spatial + 2, x->ndim);
        return false;
    }
    for (int d = 0; d < spatial; d++)
        out_size[d] = tensor_double_to_int((double)x->sizes[2 + d] * scale_factors[d], DT_I64);
    return true;
}

/* Nearest modes: a copy through index tables (exact for every dtype). */
static Tensor *upsample_copy(const Tensor *x, int spatial, const int64_t *out_size, const Taps *taps)
{
    int64_t sizes[5], *tables[5] = {NULL};
    int nd = spatial + 2;
    sizes[0] = x->sizes[0], sizes[1] = x->sizes[1];
    memcpy(sizes + 2, out_size, (size_t)spatial * sizeof *sizes);
    Tensor *out = NULL;
    if (kern_identity_tables(2, x->sizes, tables)) {
        for (int d = 0; d < spatial; d++)
            tables[2 + d] = taps[d].index;
        out = kern_remap(x, nd, sizes, tables, NULL);
        for (int d = 0; d < spatial; d++)
            tables[2 + d] = NULL;
        kern_tables_free(2, tables);
    }
    return out;
}

/* Linear and cubic modes: the weighted sum over the tap grid. */
static Tensor *upsample_weighted(const Tensor *x, int spatial, const int64_t *out_size, const Taps *taps)
{
    int64_t sizes[5];
    int nd = spatial + 2;
    sizes[0] = x->sizes[0], sizes[1] = x->sizes[1];
    memcpy(sizes + 2, out_size, (size_t)spatial * sizeof *sizes);
    Tensor *out = tensor_empty(x->dtype, nd, sizes);
    if (!out || tensor_numel(out) == 0)
        return out;
    /* the geometry as 3 spatial dims, leading ones of size 1 with one tap */
    int64_t one_index = 0;
    double one_weight = 1.0;
    Taps t3[3];
    int64_t in3[3], out3[3];
    int off = 3 - spatial;
    for (int d = 0; d < 3; d++) {
        if (d < off) {
            t3[d] = (Taps){1, &one_index, &one_weight};
            in3[d] = out3[d] = 1;
        } else {
            t3[d] = taps[d - off];
            in3[d] = x->sizes[2 + d - off];
            out3[d] = out_size[d - off];
        }
    }
    int64_t planes = x->sizes[0] * x->sizes[1], in_plane = in3[0] * in3[1] * in3[2];
    int64_t out_plane = out3[0] * out3[1] * out3[2];
    double *v = kern_read_all_f64(x);
    double *r = v ? kern_malloc((size_t)(planes * out_plane), sizeof *r) : NULL;
    if (!r) {
        free(v);
        tensor_release(out);
        return NULL;
    }
    for (int64_t p = 0; p < planes; p++) {
        const double *src = v + p * in_plane;
        double *dst = r + p * out_plane;
        for (int64_t o0 = 0; o0 < out3[0]; o0++)
            for (int64_t o1 = 0; o1 < out3[1]; o1++)
                for (int64_t o2 = 0; o2 < out3[2]; o2++) {
                    double acc0 = 0.0;
                    for (int a = 0; a < t3[0].n; a++) {
                        int64_t i0 = t3[0].index[o0 * t3[0].n + a];
                        double acc1 = 0.0;
                        for (int b = 0; b < t3[1].n; b++) {
                            int64_t i1 = t3[1].index[o1 * t3[1].n + b];
                            const double *row = src + (i0 * in3[1] + i1) * in3[2];
                            double acc2 = 0.0;
                            for (int k = 0; k < t3[2].n; k++)
                                acc2 += row[t3[2].index[o2 * t3[2].n + k]] * t3[2].weight[o2 * t3[2].n + k];
                            acc1 += acc2 * t3[1].weight[o1 * t3[1].n + b];
                        }
                        acc0 += acc1 * t3[0].weight[o0 * t3[0].n + a];
                    }
                    *dst++ = acc0;
                }
    }
    kern_write_all_f64(out, r);
    free(v);
    free(r);
    return out;
}

Tensor *tensor_upsample(const Tensor *x, UpsampleMode mode, int spatial, const int64_t *out_size,
                        bool align_corners, const double *scales)
{
    bool channels_last = spatial > 1 && channels_last_contiguous(x);
    if (!upsample_check(x, spatial, out_size) || !upsample_dtype_check(x, mode, spatial, channels_last))
        return NULL;
    int64_t sizes[5], n;
    sizes[0] = x->sizes[0], sizes[1] = x->sizes[1];
    memcpy(sizes + 2, out_size, (size_t)spatial * sizeof *sizes);
    if (!tensor_checked_numel(spatial + 2, sizes, dtype_size(x->dtype), &n))
        return NULL;
    bool single = x->dtype != DT_F64;
    Taps taps[3] = {{0, NULL, NULL}, {0, NULL, NULL}, {0, NULL, NULL}};
    bool ok = true;
    for (int d = 0; ok && d < spatial; d++)
        ok = taps_compute(&taps[d], mode, x->sizes[2 + d], out_size[d], align_corners, scales ? scales[d] : 0.0,
                          single, channels_last);
    Tensor *out = NULL;
    if (ok)
        out = mode == UPSAMPLE_NEAREST || mode == UPSAMPLE_NEAREST_EXACT ? upsample_copy(x, spatial, out_size, taps)
                                                                         : upsample_weighted(x, spatial, out_size, taps);
    for (int d = 0; d < spatial; d++) {
        free(taps[d].index);
        free(taps[d].weight);
    }
    return out;
}

/* ---------------------------------------------------------------- grid sampling */

/* ATen's GridSampler.h, in the op's precision (`single`: every step
 * rounded to float, as the float32 kernels compute). */
typedef struct GridGeom {
    int spatial;               /* 2 or 3 */
    GridSampleMode mode;
    GridSamplePadding padding;
    bool align_corners, single;
} GridGeom;

static double gs_round(const GridGeom *g, double v)
{
    return g->single ? (double)(float)v : v;
}

/* grid_sampler_unnormalize: [-1, 1] to pixel coordinates. */
static double gs_unnormalize(const GridGeom *g, double coord, int64_t size)
{
    if (g->align_corners)
        return gs_round(g, gs_round(g, gs_round(g, coord + 1.0) / 2.0) * (double)(size - 1));
    return gs_round(g, gs_round(g, gs_round(g, gs_round(g, coord + 1.0) * (double)size) - 1.0) / 2.0);
}

static double gs_clip(double v, int64_t size)
{
    double hi = (double)(size - 1);
    return fmin(hi, fmax(v, 0.0));
}

/* reflect_coordinates: reflect v into [twice_low / 2, twice_high / 2]. */
static double gs_reflect(const GridGeom *g, double v, int64_t twice_low, int64_t twice_high)
{
    if (twice_low == twice_high)
        return 0.0;
    double lo = (double)twice_low / 2.0, span = (double)(twice_high - twice_low) / 2.0;
    v = fabs(gs_round(g, v - lo));
    double extra = gs_round(g, fmod(v, span));
    double flips = floor(gs_round(g, v / span));
    return fmod(flips, 2.0) == 0.0 ? gs_round(g, extra + lo) : gs_round(g, gs_round(g, span - extra) + lo);
}

/* compute_coordinates: the padding mode applied to a pixel coordinate. */
static double gs_pad(const GridGeom *g, double v, int64_t size)
{
    if (g->padding == GRID_PAD_BORDER)
        return gs_clip(v, size);
    if (g->padding == GRID_PAD_REFLECTION) {
        v = g->align_corners ? gs_reflect(g, v, 0, 2 * (size - 1)) : gs_reflect(g, v, -1, 2 * size - 1);
        return gs_clip(v, size);
    }
    return v;
}

/* A floor()ed or rounded coordinate as an index; NaN and huge values
 * land outside every image. */
static int64_t gs_index(double v)
{
    return isfinite(v) && fabs(v) < 4e18 ? (int64_t)v : INT64_MIN / 2;
}

/* The value at integer coordinates (z, y, x) of one plane, 0 outside. */
static double gs_at(const double *plane, const int64_t *size, int64_t z, int64_t y, int64_t x)
{
    if (z < 0 || z >= size[0] || y < 0 || y >= size[1] || x < 0 || x >= size[2])
        return 0.0;
    return plane[(z * size[1] + y) * size[2] + x];
}

/* get_value_bounded of the bicubic mode: the padding mode applied to an
 * integer tap position first. */
static double gs_at_padded(const GridGeom *g, const double *plane, const int64_t *size, double y, double x)
{
    int64_t iy = gs_index(gs_pad(g, y, size[1])), ix = gs_index(gs_pad(g, x, size[2]));
    return gs_at(plane, size, 0, iy, ix);
}

static double gs_cubic(double x0, double x1, double x2, double x3, double t)
{
    double c[4];
    cubic_coefficients(t, c);
    return x0 * c[0] + x1 * c[1] + x2 * c[2] + x3 * c[3];
}

/* One output value of one plane (size: D, H, W; D = 1 for 2-d) at grid
 * point `coord` (x, y[, z]). */
static double gs_sample(const GridGeom *g, const double *plane, const int64_t *size, const double *coord)
{
    if (g->mode == GRID_SAMPLE_BICUBIC) {
        double x = gs_unnormalize(g, coord[0], size[2]), y = gs_unnormalize(g, coord[1], size[1]);
        double x0 = floor(x), y0 = floor(y);
        double tx = gs_round(g, x - x0), ty = gs_round(g, y - y0);
        double rows[4];
        for (int i = 0; i < 4; i++) {
            double yy = y0 - 1.0 + i;
            rows[i] = gs_cubic(gs_at_padded(g, plane, size, yy, x0 - 1.0), gs_at_padded(g, plane, size, yy, x0),
                               gs_at_padded(g, plane, size, yy, x0 + 1.0),
                               gs_at_padded(g, plane, size, yy, x0 + 2.0), tx);
        }
        return gs_cubic(rows[0], rows[1], rows[2], rows[3], ty);
    }
    double pos[3] = {0.0, 0.0, 0.0};   /* z, y, x */
    for (int d = 0; d < g->spatial; d++)
        pos[2 - d] = gs_pad(g, gs_unnormalize(g, coord[d], size[2 - d]), size[2 - d]);
    if (g->mode == GRID_SAMPLE_NEAREST)
        return gs_at(plane, size, gs_index(nearbyint(pos[0])), gs_index(nearbyint(pos[1])),
                     gs_index(nearbyint(pos[2])));
    /* (tri)linear: the corners of the cell around pos, weighted by the
     * opposite sub-volumes */
    double lo[3], frac[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = floor(pos[d]);
        frac[d] = gs_round(g, pos[d] - lo[d]);
    }
    int64_t base[3] = {gs_index(lo[0]), gs_index(lo[1]), gs_index(lo[2])};
    double acc = 0.0;
    int zc = g->spatial == 3 ? 2 : 1;
    for (int dz = 0; dz < zc; dz++)
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                double w = (dx ? frac[2] : 1.0 - frac[2]) * (dy ? frac[1] : 1.0 - frac[1]);
                if (g->spatial == 3)
                    w *= dz ? frac[0] : 1.0 - frac[0];
                if (w != 0.0)
                    acc += w * gs_at(plane, size, base[0] + dz, base[1] + dy, base[2] + dx);
            }
    return acc;
}

static bool grid_sample_check(const Tensor *x, const Tensor *grid, GridSampleMode mode)
{
    char xb[TENSOR_SHAPE_BUF], gb[TENSOR_SHAPE_BUF];
    tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb);
    tensor_format_shape(grid->ndim, grid->sizes, gb, sizeof gb);
    if (x->ndim < 1 || grid->ndim < 1 || x->sizes[0] != grid->sizes[0]) {
        tensor_set_error("grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                         "%s and grid with sizes %s", xb, gb);
        return false;
    }
    if (grid->sizes[grid->ndim - 1] != x->ndim - 2) {
        tensor_set_error("grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s",
                         x->ndim - 2, gb);
        return false;
    }
    for (int d = 2; d < x->ndim; d++)
        if (x->sizes[d] <= 0) {
            tensor_set_error("grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                             "sizes %s with dimension %d being empty", xb, d);
            return false;
        }
    int spatial = x->ndim == 4 ? 2 : 3;
    if (x->ndim != spatial + 2 || grid->ndim != x->ndim) {
        tensor_set_error("grid_sampler(): expected %dD input and grid with same number of dimensions, but got input "
                         "with sizes %s and grid with sizes %s", spatial + 2, xb, gb);
        return false;
    }
    if (spatial == 3 && mode == GRID_SAMPLE_BICUBIC) {
        tensor_set_error("grid_sampler(): bicubic interpolation only supports 4D input");
        return false;
    }
    if (!dtype_is_float(x->dtype)) {
        tensor_set_error("grid_sampler_%dd_cpu not implemented for %s", spatial, dtype_ts_name(x->dtype));
        return false;
    }
    if (grid->dtype != x->dtype) {
        tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(x->dtype), dtype_ts_name(grid->dtype));
        return false;
    }
    return true;
}

Tensor *tensor_grid_sample(const Tensor *x, const Tensor *grid, GridSampleMode mode, GridSamplePadding padding,
                           bool align_corners)
{
    if ((unsigned)mode > GRID_SAMPLE_BICUBIC || (unsigned)padding > GRID_PAD_REFLECTION) {
        tensor_set_error("grid_sampler(): invalid interpolation mode (%d) or padding mode (%d)", (int)mode,
                         (int)padding);
        return NULL;
    }
    if (!grid_sample_check(x, grid, mode))
        return NULL;
    GridGeom g = {x->ndim - 2, mode, padding, align_corners, x->dtype == DT_F32};
    int64_t n = x->sizes[0], c = x->sizes[1];
    int64_t size[3] = {g.spatial == 3 ? x->sizes[2] : 1, x->sizes[x->ndim - 2], x->sizes[x->ndim - 1]};
    int64_t out_sizes[5] = {n, c};
    int64_t points = 1;
    for (int d = 1; d < grid->ndim - 1; d++) {
        out_sizes[1 + d] = grid->sizes[d];
        points *= grid->sizes[d];
    }
    Tensor *out = tensor_empty(x->dtype, x->ndim, out_sizes);
    if (!out || tensor_numel(out) == 0)
        return out;
    int64_t plane = size[0] * size[1] * size[2];
    double *v = kern_read_all_f64(x);
    double *gv = v ? kern_read_all_f64(grid) : NULL;
    double *r = gv ? kern_malloc((size_t)tensor_numel(out), sizeof *r) : NULL;
    if (r) {
        for (int64_t b = 0; b < n; b++)
            for (int64_t p = 0; p < points; p++) {
                const double *coord = gv + (b * points + p) * g.spatial;
                for (int64_t ch = 0; ch < c; ch++)
                    r[(b * c + ch) * points + p] = gs_sample(&g, v + (b * c + ch) * plane, size, coord);
            }
        kern_write_all_f64(out, r);
    } else {
        tensor_release(out);
        out = NULL;
    }
    free(v);
    free(gv);
    free(r);
    return out;
}

/* ---------------------------------------------------------------- pixel shuffle */

/* x (*, C, H, W), contiguous, seen as the 6-d-plus-batch view `split` (sizes
 * and strides after the batch dims), permuted by perm, copied and viewed as
 * (*, final[0..3)). */
static Tensor *shuffle_copy(const Tensor *x, const int64_t split[6], const int perm[6], const int64_t final_[3])
{
    Tensor *xc = tensor_contiguous((Tensor *)x);
    if (!xc)
        return NULL;
    int lead = x->ndim - 3;
    int64_t sizes[TENSOR_MAX_DIMS + 3], strides[TENSOR_MAX_DIMS + 3], split_strides[6];
    int64_t stride = 1;
    for (int d = 5; d >= 0; d--) {
        split_strides[d] = stride;
        stride *= split[d];
    }
    for (int d = 0; d < lead; d++) {
        sizes[d] = x->sizes[d];
        strides[d] = xc->strides[d];
    }
    for (int d = 0; d < 6; d++) {
        sizes[lead + d] = split[perm[d]];
        strides[lead + d] = split_strides[perm[d]];
    }
    Tensor *out = NULL;
    if (lead + 6 > TENSOR_MAX_DIMS) {
        tensor_set_error("pixel_shuffle: input has too many dims (%d)", x->ndim);
    } else {
        Tensor *view = tensor_make_view(xc, lead + 6, sizes, strides, xc->offset);
        Tensor *copy = view ? tensor_clone(view) : NULL;
        if (copy) {
            int64_t fs[TENSOR_MAX_DIMS];
            memcpy(fs, x->sizes, (size_t)lead * sizeof *fs);
            memcpy(fs + lead, final_, 3 * sizeof *fs);
            out = tensor_view(copy, lead + 3, fs);
        }
        tensor_release(view);
        tensor_release(copy);
    }
    tensor_release(xc);
    return out;
}

Tensor *tensor_pixel_shuffle(const Tensor *x, int64_t factor)
{
    if (x->ndim < 3) {
        tensor_set_error("pixel_shuffle expects input to have at least 3 dimensions, but got input with %d "
                         "dimension(s)", x->ndim);
        return NULL;
    }
    if (factor <= 0) {
        tensor_set_error("pixel_shuffle expects a positive upscale_factor, but got %" PRId64, factor);
        return NULL;
    }
    int64_t c = x->sizes[x->ndim - 3], h = x->sizes[x->ndim - 2], w = x->sizes[x->ndim - 1];
    if (factor > ((int64_t)1 << 31) || c % (factor * factor) != 0) {
        tensor_set_error("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                         "upscale_factor, but input.size(-3)=%" PRId64 " is not divisible by %" PRId64, c,
                         factor <= ((int64_t)1 << 31) ? factor * factor : factor);
        return NULL;
    }
    int64_t oc = c / (factor * factor);
    /* (C', r, r, H, W) -> (C', H, r, W, r) */
    int64_t split[6] = {oc, factor, factor, h, w, 1};
    int perm[6] = {0, 3, 1, 4, 2, 5};
    /* products of sizes of a valid tensor (wrapped only where it has no elements) */
    int64_t final_[3] = {oc, tensor_mul_wrap(h, factor), tensor_mul_wrap(w, factor)};
    return shuffle_copy(x, split, perm, final_);
}

Tensor *tensor_pixel_unshuffle(const Tensor *x, int64_t factor)
{
    if (x->ndim < 3) {
        tensor_set_error("pixel_unshuffle expects input to have at least 3 dimensions, but got input with %d "
                         "dimension(s)", x->ndim);
        return NULL;
    }
    if (factor <= 0) {
        tensor_set_error("pixel_unshuffle expects a positive downscale_factor, but got %" PRId64, factor);
        return NULL;
    }
    int64_t c = x->sizes[x->ndim - 3], h = x->sizes[x->ndim - 2], w = x->sizes[x->ndim - 1];
    if (h % factor != 0) {
        tensor_set_error("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%"
                         PRId64 " is not divisible by %" PRId64, h, factor);
        return NULL;
    }
    if (w % factor != 0) {
        tensor_set_error("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%"
                         PRId64 " is not divisible by %" PRId64, w, factor);
        return NULL;
    }
    int64_t oh = h / factor, ow = w / factor;
    /* (C, H', r, W', r) -> (C, r, r, H', W') */
    int64_t split[6] = {c, oh, factor, ow, factor, 1};
    int perm[6] = {0, 2, 4, 1, 3, 5};
    int64_t final_[3] = {tensor_mul_wrap(tensor_mul_wrap(c, factor), factor), oh, ow};
    return shuffle_copy(x, split, perm, final_);
}
