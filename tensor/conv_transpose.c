/* conv_transpose.c — sliding windows: im2col (F.unfold), col2im (F.fold) and
 * transposed convolution in 1, 2 and 3 dims, with PyTorch's (1.13, CPU)
 * semantics and error messages.
 *
 * All three share one geometry: a grid of "block" positions b (per spatial
 * dim) and kernel offsets k map onto image coordinates b * stride - padding +
 * k * dilation. im2col copies image values into a (C * K, L) column matrix
 * (K kernel offsets, L block positions; zero where a window reads padding);
 * col2im sums the columns back into the image (overlapping windows add up).
 *
 * Transposed convolution is GEMM + col2im, as ATen's slow_conv_transpose
 * kernels do it: for every image and group the columns are
 * weight_g^T (Cout_g * K, Cin_g) @ input_g (Cin_g, L) -- the input positions
 * are the blocks -- and col2im scatters them into the (larger) output. The
 * bias starts the accumulation. Sums are taken in double (floating dtypes,
 * rounded once) or in wrapping int64 (int64 inputs, which PyTorch accepts).
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Up to 3 spatial dims; 1-d and 2-d problems have leading dims of size 1
 * (kernel 1, stride 1, no padding). */
typedef struct SlideGeom {
    int64_t image[3];   /* image size per dim */
    int64_t blocks[3];  /* block positions per dim */
    int64_t kernel[3], stride[3], padding[3], dilation[3];
} SlideGeom;

static int64_t prod3(const int64_t v[3])
{
    return v[0] * v[1] * v[2];
}

/* map[kidx * L + bidx]: the image offset (row-major over g->image) that
 * kernel offset kidx reads at block bidx, or -1 where it reads padding. The
 * caller has checked that K * L elements fit. */
static int64_t *window_map(const SlideGeom *g)
{
    int64_t K = prod3(g->kernel), L = prod3(g->blocks);
    int64_t *map = kern_malloc((size_t)(K * L), sizeof *map);
    if (!map)
        return NULL;
    int64_t *m = map;
    for (int64_t k0 = 0; k0 < g->kernel[0]; k0++)
        for (int64_t k1 = 0; k1 < g->kernel[1]; k1++)
            for (int64_t k2 = 0; k2 < g->kernel[2]; k2++)
                for (int64_t b0 = 0; b0 < g->blocks[0]; b0++) {
                    int64_t i0 = b0 * g->stride[0] - g->padding[0] + k0 * g->dilation[0];
                    for (int64_t b1 = 0; b1 < g->blocks[1]; b1++) {
                        int64_t i1 = b1 * g->stride[1] - g->padding[1] + k1 * g->dilation[1];
                        for (int64_t b2 = 0; b2 < g->blocks[2]; b2++) {
                            int64_t i2 = b2 * g->stride[2] - g->padding[2] + k2 * g->dilation[2];
                            bool in = i0 >= 0 && i0 < g->image[0] && i1 >= 0 && i1 < g->image[1] && i2 >= 0 &&
                                      i2 < g->image[2];
                            *m++ = in ? (i0 * g->image[1] + i1) * g->image[2] + i2 : -1;
                        }
                    }
                }
    return map;
}

/* ---------------------------------------------------------------- im2col / col2im */

/* ATen's im2col/col2im argument checks (shared wording, 1.13). */
static bool window_params_check(const int64_t kernel[2], const int64_t dilation[2], const int64_t padding[2],
                                const int64_t stride[2])
{
    if (kernel[0] <= 0 || kernel[1] <= 0) {
        tensor_set_error("kernel size should be greater than zero, but got kernel_height: %" PRId64
                         " kernel_width: %" PRId64, kernel[0], kernel[1]);
        return false;
    }
    if (stride[0] <= 0 || stride[1] <= 0) {
        tensor_set_error("stride should be greater than zero, but got stride_height: %" PRId64
                         " stride_width: %" PRId64, stride[0], stride[1]);
        return false;
    }
    if (dilation[0] <= 0 || dilation[1] <= 0) {
        tensor_set_error("dilation should be greater than zero, but got dilation_height: %" PRId64
                         " dilation_width: %" PRId64, dilation[0], dilation[1]);
        return false;
    }
    if (padding[0] < 0 || padding[1] < 0) {
        tensor_set_error("padding should be non-negative, but got pad_height: %" PRId64 " pad_width: %" PRId64,
                         padding[0], padding[1]);
        return false;
    }
    const int64_t limit = (int64_t)1 << 40;
    for (int i = 0; i < 2; i++)
        if (kernel[i] > limit || dilation[i] > limit || padding[i] > limit || stride[i] > limit) {
            tensor_set_error("im2col/col2im: kernel, dilation, padding or stride out of range");
            return false;
        }
    return true;
}

/* Block counts of a 2-d image: ATen's div_rtn(size + 2 * pad - (dil * (k - 1) + 1), stride) + 1
 * (floor division, so a window larger than the padded image gives 0 blocks). */
static void window_blocks(const int64_t image[2], const int64_t kernel[2], const int64_t dilation[2],
                          const int64_t padding[2], const int64_t stride[2], int64_t blocks[2])
{
    for (int i = 0; i < 2; i++) {
        int64_t span = image[i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1);
        int64_t q = span / stride[i];
        if (span % stride[i] != 0 && span < 0)
            q--;
        blocks[i] = q + 1;
    }
}

static void slide_geom_2d(SlideGeom *g, const int64_t image[2], const int64_t blocks[2], const int64_t kernel[2],
                          const int64_t dilation[2], const int64_t padding[2], const int64_t stride[2])
{
    g->image[0] = 1, g->blocks[0] = 1, g->kernel[0] = 1, g->stride[0] = 1, g->padding[0] = 0, g->dilation[0] = 1;
    for (int i = 0; i < 2; i++) {
        g->image[i + 1] = image[i];
        g->blocks[i + 1] = blocks[i];
        g->kernel[i + 1] = kernel[i];
        g->stride[i + 1] = stride[i];
        g->padding[i + 1] = padding[i];
        g->dilation[i + 1] = dilation[i];
    }
}

Tensor *tensor_im2col(const Tensor *x, const int64_t kernel[2], const int64_t dilation[2], const int64_t padding[2],
                      const int64_t stride[2])
{
    char xb[TENSOR_SHAPE_BUF];
    if (!window_params_check(kernel, dilation, padding, stride))
        return NULL;
    bool batched = x->ndim == 4;
    bool valid = (x->ndim == 3 || x->ndim == 4) && x->sizes[x->ndim - 3] != 0 && x->sizes[x->ndim - 2] != 0 &&
                 x->sizes[x->ndim - 1] != 0;
    if (!valid) {
        tensor_set_error("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                         "dimensions for input, but got: %s", tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return NULL;
    }
    int64_t image[2] = {x->sizes[x->ndim - 2], x->sizes[x->ndim - 1]}, blocks[2];
    window_blocks(image, kernel, dilation, padding, stride, blocks);
    if (blocks[0] < 1 || blocks[1] < 1) {
        /* ATen's message shows the input height twice */
        tensor_set_error("Given input with spatial size (%" PRId64 ", %" PRId64 "), kernel_size=(%" PRId64 ", %" PRId64
                         "), dilation=(%" PRId64 ", %" PRId64 "), padding=(%" PRId64 ", %" PRId64
                         "), calculated shape of the array of sliding blocks as (%" PRId64 ", %" PRId64
                         "), but its components must be at least one.", image[0], image[0], kernel[0], kernel[1],
                         dilation[0], dilation[1], padding[0], padding[1], blocks[0], blocks[1]);
        return NULL;
    }
    if (!tensor_require_float(x, "im2col_out_cpu"))
        return NULL;
    int64_t n = batched ? x->sizes[0] : 1, c = x->sizes[x->ndim - 3];
    int64_t rows, L, out_sizes[3];
    if (!ckd_mul_i64(&rows, c, kernel[0]) || !ckd_mul_i64(&rows, rows, kernel[1]) ||
        !ckd_mul_i64(&L, blocks[0], blocks[1])) {
        tensor_set_error("im2col: output too large");
        return NULL;
    }
    out_sizes[0] = n, out_sizes[1] = rows, out_sizes[2] = L;
    Tensor *out = tensor_empty(x->dtype, batched ? 3 : 2, batched ? out_sizes : out_sizes + 1);
    if (!out || tensor_numel(out) == 0)
        return out;
    SlideGeom g;
    slide_geom_2d(&g, image, blocks, kernel, dilation, padding, stride);
    int64_t *map = window_map(&g);
    double *img = map ? kern_read_all_f64(x) : NULL;
    double *cols = img ? kern_malloc((size_t)tensor_numel(out), sizeof *cols) : NULL;
    if (cols) {
        int64_t K = kernel[0] * kernel[1], plane = image[0] * image[1];
        for (int64_t i = 0; i < n * c; i++)
            for (int64_t kl = 0; kl < K * L; kl++)
                cols[i * K * L + kl] = map[kl] >= 0 ? img[i * plane + map[kl]] : 0.0;
        kern_write_all_f64(out, cols);
    } else {
        tensor_release(out);
        out = NULL;
    }
    free(map);
    free(img);
    free(cols);
    return out;
}

Tensor *tensor_col2im(const Tensor *x, const int64_t output_size[2], const int64_t kernel[2],
                      const int64_t dilation[2], const int64_t padding[2], const int64_t stride[2])
{
    char xb[TENSOR_SHAPE_BUF];
    if (output_size[0] <= 0 || output_size[1] <= 0) {
        tensor_set_error("Expected output_size to be positive, but got: output_height: %" PRId64
                         " output_width: %" PRId64, output_size[0], output_size[1]);
        return NULL;
    }
    if (!window_params_check(kernel, dilation, padding, stride))
        return NULL;
    bool batched = x->ndim == 3;
    bool valid = (x->ndim == 2 || x->ndim == 3) && x->sizes[x->ndim - 2] != 0 && x->sizes[x->ndim - 1] != 0;
    if (!valid) {
        tensor_set_error("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                         "dimensions for input, but got: %s", tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return NULL;
    }
    int64_t rows = x->sizes[x->ndim - 2], L = x->sizes[x->ndim - 1], K = kernel[0] * kernel[1];
    if (rows % K != 0) {
        tensor_set_error("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                         "got input.size(1)=%" PRId64 " and kernel_size=(%" PRId64 ", %" PRId64 ")",
                         rows, kernel[0], kernel[1]);
        return NULL;
    }
    int64_t blocks[2];
    window_blocks(output_size, kernel, dilation, padding, stride, blocks);
    if (blocks[0] < 1 || blocks[1] < 1) {
        tensor_set_error("Given output_size=(%" PRId64 ", %" PRId64 "), kernel_size=(%" PRId64 ", %" PRId64
                         "), dilation=(%" PRId64 ", %" PRId64 "), padding=(%" PRId64 ", %" PRId64
                         "), calculated shape of the array of sliding blocks as (%" PRId64 ", %" PRId64
                         "), but its components must be at least one.", output_size[0], output_size[1], kernel[0],
                         kernel[1], dilation[0], dilation[1], padding[0], padding[1], blocks[0], blocks[1]);
        return NULL;
    }
    if (L != blocks[0] * blocks[1]) {
        tensor_set_error("Given output_size=(%" PRId64 ", %" PRId64 "), kernel_size=(%" PRId64 ", %" PRId64
                         "), dilation=(%" PRId64 ", %" PRId64 "), padding=(%" PRId64 ", %" PRId64 "), stride=(%"
                         PRId64 ", %" PRId64 "), expected size of input's dimension 2 to match the calculated "
                         "number of sliding blocks %" PRId64 " * %" PRId64 " = %" PRId64 ", but got input.size(2)=%"
                         PRId64 ".", output_size[0], output_size[1], kernel[0], kernel[1], dilation[0], dilation[1],
                         padding[0], padding[1], stride[0], stride[1], blocks[0], blocks[1], blocks[0] * blocks[1], L);
        return NULL;
    }
    if (!tensor_require_float(x, "col2im_out_cpu"))
        return NULL;
    int64_t n = batched ? x->sizes[0] : 1, c = rows / K, plane;
    if (!ckd_mul_i64(&plane, output_size[0], output_size[1])) {
        tensor_set_error("col2im: output too large");
        return NULL;
    }
    int64_t out_sizes[4] = {n, c, output_size[0], output_size[1]};
    Tensor *out = tensor_empty(x->dtype, batched ? 4 : 3, batched ? out_sizes : out_sizes + 1);
    if (!out || tensor_numel(out) == 0)
        return out;
    SlideGeom g;
    slide_geom_2d(&g, output_size, blocks, kernel, dilation, padding, stride);
    int64_t *map = window_map(&g);
    double *cols = map ? kern_read_all_f64(x) : NULL;
    double *img = cols ? kern_malloc((size_t)tensor_numel(out), sizeof *img) : NULL;
    if (img) {
        memset(img, 0, (size_t)tensor_numel(out) * sizeof *img);
        for (int64_t i = 0; i < n * c; i++)
            for (int64_t kl = 0; kl < K * L; kl++)
                if (map[kl] >= 0)
                    img[i * plane + map[kl]] += cols[i * K * L + kl];
        kern_write_all_f64(out, img);
    } else {
        tensor_release(out);
        out = NULL;
    }
    free(map);
    free(cols);
    free(img);
    return out;
}

/* ---------------------------------------------------------------- transposed convolution */

typedef struct TransposeGeom {
    int spatial;
    bool batched;
    int64_t n, cin, cout, groups;
    SlideGeom slide;   /* blocks = input positions, image = output */
} TransposeGeom;

static bool transpose_check(const Tensor *x, const Tensor *w, const Tensor *bias, int spatial, const int64_t *stride,
                            const int64_t *padding, const int64_t *output_padding, int64_t groups,
                            const int64_t *dilation, TransposeGeom *g)
{
    char xb[TENSOR_SHAPE_BUF], wb[TENSOR_SHAPE_BUF], bb[TENSOR_SHAPE_BUF];
    if (x->ndim != spatial + 1 && x->ndim != spatial + 2) {
        tensor_set_error("Expected %dD (unbatched) or %dD (batched) input to conv_transpose%dd, but got input of "
                         "size: %s", spatial + 1, spatial + 2, spatial,
                         tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    if (w->ndim != spatial + 2) {
        int64_t ones[3] = {1, 1, 1};
        if (w->ndim < 3)
            tensor_set_error("weight should have at least three dimensions");
        else
            tensor_set_error("expected stride to be a single integer value or a list of %d values to match the "
                             "convolution dimensions, but got stride=%s", w->ndim - 2,
                             tensor_format_shape(spatial, ones, xb, sizeof xb));
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
    const int64_t limit = (int64_t)1 << 40;
    for (int i = 0; i < spatial; i++) {
        if (padding[i] < 0) {
            tensor_set_error("negative padding is not supported");
            return false;
        }
        if (output_padding[i] < 0) {
            tensor_set_error("negative output_padding is not supported");
            return false;
        }
        if (stride[i] <= 0) {
            tensor_set_error("non-positive stride is not supported");
            return false;
        }
        if (dilation[i] <= 0) {
            tensor_set_error("non-positive dilation is not supported");
            return false;
        }
        if (padding[i] > limit || output_padding[i] > limit || stride[i] > limit || dilation[i] > limit) {
            tensor_set_error("conv_transpose%dd: stride, padding or dilation out of range", spatial);
            return false;
        }
    }
    g->spatial = spatial;
    g->batched = x->ndim == spatial + 2;
    int lead = g->batched ? 1 : 0;
    g->n = g->batched ? x->sizes[0] : 1;
    g->cin = x->sizes[lead];
    g->groups = groups;
    tensor_format_shape(w->ndim, w->sizes, wb, sizeof wb);
    if (w->sizes[0] % groups != 0) {
        tensor_set_error("Given groups=%" PRId64 ", expected weight to be divisible by %" PRId64
                         " at dimension 0, but got weight of size [%s] instead", groups, groups, wb);
        return false;
    }
    if (g->cin != w->sizes[0]) {
        int64_t shown[TENSOR_MAX_DIMS];
        shown[0] = g->n;
        memcpy(shown + 1, x->sizes + lead, (size_t)(spatial + 1) * sizeof *shown);
        tensor_set_error("Given transposed=1, weight of size %s, expected input%s to have %" PRId64
                         " channels, but got %" PRId64 " channels instead", wb,
                         tensor_format_shape(spatial + 2, shown, xb, sizeof xb), w->sizes[0], g->cin);
        return false;
    }
    if (!ckd_mul_i64(&g->cout, w->sizes[1], groups)) {
        tensor_set_error("conv_transpose%dd: too many output channels", spatial);
        return false;
    }
    if (bias && (bias->ndim != 1 || bias->sizes[0] != g->cout)) {
        tensor_set_error("Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %" PRId64
                         " elements, but got bias of size %s instead", wb, g->cout,
                         tensor_format_shape(bias->ndim, bias->sizes, bb, sizeof bb));
        return false;
    }
    /* the geometry, spatial dims right-aligned in 3 */
    SlideGeom *s = &g->slide;
    int off = 3 - spatial;
    for (int i = 0; i < 3; i++) {
        bool real = i >= off;
        s->blocks[i] = real ? x->sizes[lead + 1 + i - off] : 1;
        s->kernel[i] = real ? w->sizes[2 + i - off] : 1;
        s->stride[i] = real ? stride[i - off] : 1;
        s->padding[i] = real ? padding[i - off] : 0;
        s->dilation[i] = real ? dilation[i - off] : 1;
        int64_t op = real ? output_padding[i - off] : 0;
        if (real && op >= s->stride[i] && op >= s->dilation[i]) {
            /* ATen names the dims height/width (2-d and 1-d) or depth/height/width (3-d) */
            if (spatial == 3)
                tensor_set_error("output padding must be smaller than either stride or dilation, but got "
                                 "output_padding_depth: %" PRId64 " output_padding_height: %" PRId64
                                 " output_padding_width: %" PRId64 " stride_depth: %" PRId64 " stride_height: %"
                                 PRId64 " stride_width: %" PRId64 " dilation_depth: %" PRId64 " dilation_height: %"
                                 PRId64 " dilation_width: %" PRId64, output_padding[0], output_padding[1],
                                 output_padding[2], stride[0], stride[1], stride[2], dilation[0], dilation[1],
                                 dilation[2]);
            else
                tensor_set_error("output padding must be smaller than either stride or dilation, but got "
                                 "output_padding_height: %" PRId64 " output_padding_width: %" PRId64
                                 " stride_height: %" PRId64 " stride_width: %" PRId64 " dilation_height: %" PRId64
                                 " dilation_width: %" PRId64, spatial == 2 ? output_padding[0] : 0,
                                 output_padding[spatial - 1], spatial == 2 ? stride[0] : 1, stride[spatial - 1],
                                 spatial == 2 ? dilation[0] : 1, dilation[spatial - 1]);
            return false;
        }
        /* (in - 1) * stride - 2 * pad + dil * (k - 1) + output_padding + 1; all terms are below 2^40 * 2^40 */
        s->image[i] = (s->blocks[i] - 1) * s->stride[i] - 2 * s->padding[i] + s->dilation[i] * (s->kernel[i] - 1) +
                      op + 1;
    }
    for (int i = off; i < 3; i++)
        if (s->image[i] < 1) {
            if (spatial == 3)
                tensor_set_error("Given input size per channel: (%" PRId64 " x %" PRId64 " x %" PRId64
                                 "). Calculated output size per channel: (%" PRId64 " x %" PRId64 " x %" PRId64
                                 "). Output size is too small", s->blocks[0], s->blocks[1], s->blocks[2],
                                 s->image[0], s->image[1], s->image[2]);
            else
                tensor_set_error("Given input size per channel: (%" PRId64 " x %" PRId64
                                 "). Calculated output size per channel: (%" PRId64 " x %" PRId64
                                 "). Output size is too small", s->blocks[1], s->blocks[2], s->image[1],
                                 s->image[2]);
            return false;
        }
    if (w->dtype != x->dtype) {
        tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(x->dtype), dtype_ts_name(w->dtype));
        return false;
    }
    if (!dtype_is_float(x->dtype) && x->dtype != DT_I64)
        return tensor_error_not_implemented(spatial == 3 ? "slow_conv_transpose3d_out_cpu"
                                                         : "slow_conv_transpose2d_out_cpu", x->dtype);
    return true;
}

/* The columns of image n, group gi: weight_g^T @ input_g, (Cout_g * K, L). */
static Tensor *transpose_columns(const Tensor *xc, const Tensor *wc, const TransposeGeom *g, int64_t n, int64_t gi)
{
    int64_t cin_g = g->cin / g->groups, cout_g = g->cout / g->groups;
    int64_t K = prod3(g->slide.kernel), L = prod3(g->slide.blocks);
    int64_t rows = cout_g * K;
    int64_t ws[2] = {rows, cin_g}, wst[2] = {1, rows};
    int64_t xs[2] = {cin_g, L}, xst[2] = {L, 1};
    int64_t cs[2] = {rows, L};
    Tensor *wt = tensor_make_view(wc, 2, ws, wst, wc->offset + gi * cin_g * rows);
    Tensor *xv = tensor_make_view(xc, 2, xs, xst, xc->offset + (n * g->cin + gi * cin_g) * L);
    Tensor *cols = wt && xv ? tensor_empty(xc->dtype, 2, cs) : NULL;
    if (cols && !kern_gemm(wt, xv, cols)) {
        tensor_release(cols);
        cols = NULL;
    }
    tensor_release(wt);
    tensor_release(xv);
    return cols;
}

/* float32 (the common case) summed in float straight into out, as ATen's
 * col2im sums its columns: the general path below goes through a double
 * buffer and a load per element (three quarters of a DCGAN generator's
 * time). out is contiguous (N, Cout, image). */
static bool transpose_accumulate_f32(const Tensor *xc, const Tensor *wc, const Tensor *bias, const TransposeGeom *g,
                                     const int64_t *map, Tensor *out)
{
    int64_t cout_g = g->cout / g->groups, plane = prod3(g->slide.image);
    int64_t K = prod3(g->slide.kernel), L = prod3(g->slide.blocks);
    float *acc = tensor_data(out);
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t o = 0; o < g->cout; o++) {
            float b = bias ? (float)tensor_read_f64(bias, bias->offset + o * bias->strides[0]) : 0.0f;
            float *row = acc + (n * g->cout + o) * plane;
            for (int64_t j = 0; j < plane; j++)
                row[j] = b;
        }
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t gi = 0; gi < g->groups; gi++) {
            Tensor *cols = transpose_columns(xc, wc, g, n, gi);
            if (!cols)
                return false;
            const float *cp = tensor_data(cols);
            for (int64_t co = 0; co < cout_g; co++) {
                float *row = acc + (n * g->cout + gi * cout_g + co) * plane;
                const float *col = cp + co * K * L;
                for (int64_t kl = 0; kl < K * L; kl++)
                    if (map[kl] >= 0)
                        row[map[kl]] += col[kl];
            }
            tensor_release(cols);
        }
    return true;
}

/* Sums every group's columns into out (N, Cout, image), starting from bias. */
static bool transpose_accumulate(const Tensor *xc, const Tensor *wc, const Tensor *bias, const TransposeGeom *g,
                                 const int64_t *map, Tensor *out)
{
    bool is_float = dtype_is_float(out->dtype);
    int64_t cout_g = g->cout / g->groups, plane = prod3(g->slide.image);
    int64_t K = prod3(g->slide.kernel), L = prod3(g->slide.blocks);
    int64_t total = g->n * g->cout * plane;
    double *acc = is_float ? kern_malloc((size_t)total, sizeof *acc) : NULL;
    int64_t *iacc = is_float ? NULL : kern_malloc((size_t)total, sizeof *iacc);
    if (!acc && !iacc)
        return false;
    for (int64_t n = 0; n < g->n; n++)
        for (int64_t o = 0; o < g->cout; o++) {
            int64_t base = (n * g->cout + o) * plane;
            if (is_float) {
                double b = bias ? tensor_read_f64(bias, bias->offset + o * bias->strides[0]) : 0.0;
                for (int64_t j = 0; j < plane; j++)
                    acc[base + j] = b;
            } else {
                int64_t b = bias ? tensor_read_i64(bias, bias->offset + o * bias->strides[0]) : 0;
                for (int64_t j = 0; j < plane; j++)
                    iacc[base + j] = b;
            }
        }
    bool ok = true;
    for (int64_t n = 0; ok && n < g->n; n++)
        for (int64_t gi = 0; ok && gi < g->groups; gi++) {
            Tensor *cols = transpose_columns(xc, wc, g, n, gi);
            if (!cols) {
                ok = false;
                break;
            }
            const char *cp = tensor_data(cols);
            size_t es = dtype_size(cols->dtype);
            for (int64_t co = 0; co < cout_g; co++) {
                int64_t base = (n * g->cout + gi * cout_g + co) * plane;
                for (int64_t kl = 0; kl < K * L; kl++) {
                    const void *v = cp + (size_t)(co * K * L + kl) * es;
                    if (map[kl] < 0)
                        continue;
                    if (is_float)
                        acc[base + map[kl]] += tensor_load_f64(cols->dtype, v);
                    else
                        iacc[base + map[kl]] =
                            (int64_t)((uint64_t)iacc[base + map[kl]] + (uint64_t)tensor_load_i64(cols->dtype, v));
                }
            }
            tensor_release(cols);
        }
    if (ok) {
        if (is_float)
            kern_write_all_f64(out, acc);
        else
            kern_write_all_i64(out, iacc);
    }
    free(acc);
    free(iacc);
    return ok;
}

Tensor *tensor_conv_transpose(const Tensor *x, const Tensor *w, const Tensor *bias, int spatial,
                              const int64_t *stride, const int64_t *padding, const int64_t *output_padding,
                              int64_t groups, const int64_t *dilation)
{
    TransposeGeom g;
    if (!transpose_check(x, w, bias, spatial, stride, padding, output_padding, groups, dilation, &g))
        return NULL;
    int64_t out_sizes[TENSOR_MAX_DIMS], numel;
    int nd = 0;
    if (g.batched)
        out_sizes[nd++] = g.n;
    out_sizes[nd++] = g.cout;
    for (int i = 3 - spatial; i < 3; i++)
        out_sizes[nd++] = g.slide.image[i];
    /* the column matrix of one group must fit too */
    int64_t K = prod3(g.slide.kernel), L = prod3(g.slide.blocks), cols_numel;
    if (!tensor_checked_numel(nd, out_sizes, dtype_size(x->dtype), &numel))
        return NULL;
    if (!ckd_mul_i64(&cols_numel, K, L) || !ckd_mul_i64(&cols_numel, cols_numel, g.cout / g.groups) ||
        cols_numel > ((int64_t)1 << 40)) {
        tensor_set_error("conv_transpose%dd: column matrix too large", spatial);
        return NULL;
    }
    Tensor *out = tensor_empty(x->dtype, nd, out_sizes);
    if (!out || numel == 0)
        return out;
    Tensor *xc = tensor_contiguous((Tensor *)x);
    Tensor *wc = xc ? tensor_contiguous((Tensor *)w) : NULL;
    int64_t *map = wc ? window_map(&g.slide) : NULL;
    bool f32 = out->dtype == DT_F32 && wc && wc->dtype == DT_F32 && (!bias || bias->dtype == DT_F32);
    bool ok = map && (f32 ? transpose_accumulate_f32(xc, wc, bias, &g, map, out)
                          : transpose_accumulate(xc, wc, bias, &g, map, out));
    free(map);
    tensor_release(xc);
    tensor_release(wc);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}
