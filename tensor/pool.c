/* pool.c — pooling over 1, 2 or 3 spatial dims (max with indices, average,
 * adaptive average, adaptive max), max unpooling and the non-constant
 * padding modes (reflect, replicate, circular), with PyTorch's (1.13, CPU)
 * semantics and error messages.
 *
 * Every pool views its input as planes of (T, H, W): the leading dims (batch
 * and channel, or the channel alone for an unbatched input) flattened into
 * planes, and a 1-d or 2-d pool given T (and H) of size 1 with a kernel,
 * stride and dilation of 1 and no padding there. ATen runs its 1-d pools the
 * same way (as 2-d pools of an unsqueezed input), so one loop nest follows
 * ATen's index arithmetic for all of them: the output size rule (with
 * ceil_mode's "last window must start inside the input or the left
 * padding"), max pooling that ignores padding, propagates NaN and reports
 * the flat (t * H + h) * W + w index of the first maximum, average pooling's
 * divisor (count_include_pad, divisor_override, windows clipped at the
 * padded border), and adaptive pooling's floor/ceil window bounds. Values
 * are computed in double (int64 for integer average pools, with C's
 * truncating division, as ATen) and rounded once to the input's dtype.
 *
 * The padding modes are index remappings (kern_remap): each padded dim gets
 * a table from output to input position, following ATen's reflection and
 * replication loops (which also crop for negative pads) and circular
 * padding's wrap-around.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- geometry */

/* ATen's pooling_output_shape (with its 1.13 argument checks). */
static bool pool_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode,
                             int64_t *out)
{
    if (stride == 0) {
        tensor_set_error("stride should not be zero");
        return false;
    }
    if (pad < 0) {
        tensor_set_error("pad must be non-negative, but got pad: %" PRId64, pad);
        return false;
    }
    if (pad > k / 2) {
        tensor_set_error("pad should be at most half of kernel size, but got pad=%" PRId64 " and kernel_size=%" PRId64,
                         pad, k);
        return false;
    }
    /* parameters are within +-2^40 (pool_geometry), so nothing below overflows */
    int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    /* floor division (div_rtn) */
    int64_t q = num / stride;
    if ((num % stride != 0) && ((num < 0) != (stride < 0)))
        q--;
    int64_t size = q + 1;
    if (ceil_mode && (size - 1) * stride >= in + pad)
        size--;
    *out = size;
    return true;
}

/* The input as planes of (T, H, W) and the window of every output dim. */
typedef struct PoolGeom {
    int nd;                      /* spatial dims of the op: 1, 2 or 3 */
    int64_t planes;
    int64_t in[3], out[3];       /* (T, H, W) */
    int64_t k[3], s[3], p[3], d[3];
} PoolGeom;

/* "kH: 3 kW: 2" (or with kT for 3-d pools), as ATen's checks print them;
 * 1-d pools are 2-d pools there. */
static const char *format_dims(const char *prefix, const int64_t v[3], int nd, char *buf, size_t n)
{
    static const char *const axes[3] = {"T", "H", "W"};
    int from = nd == 3 ? 0 : 1;
    size_t at = 0;
    buf[0] = '\0';
    for (int i = from; i < 3 && at < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s%s: %" PRId64, i > from ? " " : "", prefix, axes[i], v[i]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    return buf;
}

/* The input dims of a pool over nd spatial dims: (C, spatial...) or (N, C,
 * spatial...). `op` names it in the messages. */
static bool pool_input_dims(const Tensor *x, int nd, const char *op)
{
    if (x->ndim == nd + 1 || x->ndim == nd + 2)
        return true;
    if (nd == 1)
        tensor_set_error("Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while "
                         "checking arguments for %s)", x->ndim, strcmp(op, "max_pool1d_impl") == 0 ? "max_pool1d" : op);
    else
        tensor_set_error("non-empty %dD or %dD (batch mode) tensor expected for input", nd + 1, nd + 2);
    return false;
}

/* Sizes of the last nd dims of x into in[3 - nd ..], 1 before them; the
 * planes are everything else. */
static void pool_planes(const Tensor *x, int nd, int64_t in[3], int64_t *planes)
{
    int64_t spatial = 1;
    for (int i = 0; i < 3; i++) {
        in[i] = i < 3 - nd ? 1 : x->sizes[x->ndim - 3 + i];
        spatial *= in[i];
    }
    *planes = spatial > 0 ? tensor_numel(x) / spatial : 0;
}

/* Checks a pool's arguments (nd values each; stride NULL or dilation NULL:
 * the kernel size and 1) and computes its geometry. */
static bool pool_geometry(const Tensor *x, int nd, const char *op, const int64_t *kernel, const int64_t *stride,
                          const int64_t *padding, const int64_t *dilation, bool ceil_mode, PoolGeom *g)
{
    /* max_pool1d without indices has a kernel of its own, with its own check */
    if (strcmp(op, "max_pool1d_impl") == 0 && x->ndim != 2 && x->ndim != 3) {
        char xb[TENSOR_SHAPE_BUF];
        tensor_set_error("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                         "but got:%s", tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    char xb[TENSOR_SHAPE_BUF], vb[96];
    if (!pool_input_dims(x, nd, op))
        return false;
    const int64_t limit = (int64_t)1 << 40;
    for (int i = 0; i < nd; i++) {
        int64_t vals[4] = {kernel[i], stride ? stride[i] : 1, padding[i], dilation ? dilation[i] : 1};
        for (int k = 0; k < 4; k++)
            if (vals[k] > limit || vals[k] < -limit) {
                tensor_set_error("pooling: kernel, stride, padding or dilation out of range (%" PRId64 ")", vals[k]);
                return false;
            }
    }
    g->nd = nd;
    for (int i = 0; i < 3; i++) {
        int a = i - (3 - nd); /* argument index, negative before the pooled dims */
        g->k[i] = a < 0 ? 1 : kernel[a];
        g->s[i] = a < 0 ? 1 : stride ? stride[a] : kernel[a];
        g->p[i] = a < 0 ? 0 : padding[a];
        g->d[i] = a < 0 ? 1 : dilation ? dilation[a] : 1;
    }
    pool_planes(x, nd, g->in, &g->planes);
    for (int i = 0; i < 3; i++)
        if (!pool_output_size(g->in[i], g->k[i], g->p[i], g->s[i], g->d[i], ceil_mode, &g->out[i]))
            return false;
    int shown = nd == 3 ? 3 : 2;
    for (int i = 3 - shown; i < 3; i++) {
        if (g->k[i] <= 0) {
            tensor_set_error("kernel size should be greater than zero, but got %s", format_dims("k", g->k, nd, vb, sizeof vb));
            return false;
        }
    }
    for (int i = 3 - shown; i < 3; i++) {
        if (g->s[i] <= 0) {
            tensor_set_error("stride should be greater than zero, but got %s", format_dims("d", g->s, nd, vb, sizeof vb));
            return false;
        }
    }
    for (int i = 3 - shown; i < 3; i++) {
        if (g->d[i] <= 0) {
            tensor_set_error("dilation should be greater than zero, but got %s",
                             format_dims("dilation", g->d, nd, vb, sizeof vb));
            return false;
        }
    }
    /* every dim but the batch must be non-empty */
    bool valid = true;
    for (int dim = x->ndim == nd + 2 ? 1 : 0; dim < x->ndim; dim++)
        valid = valid && x->sizes[dim] != 0;
    if (!valid) {
        tensor_set_error("Expected %dD or %dD (batch mode) tensor with optional 0 dim batch size for input, but got:%s",
                         (nd == 3 ? 3 : 2) + 1, (nd == 3 ? 3 : 2) + 2, tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    /* avg_pool3d's shape check also wants the input no smaller than the kernel */
    if (nd == 3 && !dilation && (g->in[0] < g->k[0] || g->in[1] < g->k[1] || g->in[2] < g->k[2])) {
        tensor_set_error("input image (T: %" PRId64 " H: %" PRId64 " W: %" PRId64 ") smaller than kernel size (kT: %"
                         PRId64 " kH: %" PRId64 " kW: %" PRId64 ")", g->in[0], g->in[1], g->in[2], g->k[0], g->k[1],
                         g->k[2]);
        return false;
    }
    if (g->out[0] < 1 || g->out[1] < 1 || g->out[2] < 1) {
        int64_t c = x->sizes[x->ndim - nd - 1];
        if (nd == 3)
            tensor_set_error("Given input size: (%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64 "). Calculated output "
                             "size: (%" PRId64 "x%" PRId64 "x%" PRId64 "x%" PRId64 "). Output size is too small", c,
                             g->in[0], g->in[1], g->in[2], c, g->out[0], g->out[1], g->out[2]);
        else
            tensor_set_error("Given input size: (%" PRId64 "x%" PRId64 "x%" PRId64 "). Calculated output size: (%"
                             PRId64 "x%" PRId64 "x%" PRId64 "). Output size is too small", c, g->in[1], g->in[2], c,
                             g->out[1], g->out[2]);
        return false;
    }
    return true;
}

/* A tensor shaped like x with its last nd dims replaced by out[3 - nd ..]. */
static Tensor *pool_result(const Tensor *x, int nd, const int64_t out[3], TensorDType dt)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, x->sizes, (size_t)x->ndim * sizeof *sizes);
    for (int i = 0; i < nd; i++)
        sizes[x->ndim - nd + i] = out[3 - nd + i];
    return tensor_empty(dt, x->ndim, sizes);
}

/* The result of a pool from its values (double) and, when `indices` is
 * not NULL, its int64 indices as a second result; frees both buffers. */
static Tensor *pool_finish(const Tensor *x, int nd, const int64_t out[3], double *vals, int64_t *idx, Tensor **indices)
{
    Tensor *r = pool_result(x, nd, out, x->dtype);
    Tensor *ri = r && indices ? pool_result(x, nd, out, DT_I64) : NULL;
    if (!r || (indices && !ri)) {
        tensor_release(r);
        r = NULL;
    } else {
        kern_write_all_f64(r, vals);
        if (indices) {
            kern_write_all_i64(ri, idx);
            *indices = ri;
        }
    }
    free(vals);
    free(idx);
    return r;
}

/* ---------------------------------------------------------------- max pooling */

Tensor *tensor_max_pool(const Tensor *x, int nd, const int64_t *kernel, const int64_t *stride, const int64_t *padding,
                        const int64_t *dilation, bool ceil_mode, const char *kernel_name, Tensor **indices)
{
    PoolGeom g;
    const char *op = nd == 1 ? (indices ? "max_pool1d" : "max_pool1d_impl") : nd == 2 ? "max_pool2d" : "max_pool3d";
    const int64_t ones[3] = {1, 1, 1};
    if (!pool_geometry(x, nd, op, kernel, stride, padding, dilation ? dilation : ones, ceil_mode, &g) ||
        !tensor_require_float(x, kernel_name))
        return NULL;
    /* sizes fit: the result below exists before these are used */
    int64_t plane_in = g.in[0] * g.in[1] * g.in[2], plane_out = g.out[0] * g.out[1] * g.out[2];
    int64_t count;
    if (!ckd_mul_i64(&count, g.planes, plane_out)) {
        tensor_set_error("%s: output too large", op);
        return NULL;
    }
    double *v = kern_read_all_f64(x);
    double *r = v ? kern_malloc((size_t)count, sizeof *r) : NULL;
    int64_t *ri = r ? kern_malloc((size_t)count, sizeof *ri) : NULL;
    if (!ri) {
        free(v);
        free(r);
        return NULL;
    }
    int64_t at = 0;
    for (int64_t pl = 0; pl < g.planes; pl++) {
        const double *plane = v + pl * plane_in;
        for (int64_t ot = 0; ot < g.out[0]; ot++)
            for (int64_t oh = 0; oh < g.out[1]; oh++)
                for (int64_t ow = 0; ow < g.out[2]; ow++, at++) {
                    /* ATen starts from -inf and the window's first tap
                     * at or after 0 (its index stands even when every tap
                     * falls in the padding); NaN wins, and stays */
                    int64_t o[3] = {ot, oh, ow}, first[3];
                    for (int i = 0; i < 3; i++) {
                        first[i] = o[i] * g.s[i] - g.p[i];
                        if (first[i] < 0)
                            first[i] += (-first[i] + g.d[i] - 1) / g.d[i] * g.d[i];
                    }
                    double m = -INFINITY;
                    int64_t best = (first[0] * g.in[1] + first[1]) * g.in[2] + first[2];
                    for (int64_t kt = 0; kt < g.k[0]; kt++) {
                        int64_t it = ot * g.s[0] - g.p[0] + kt * g.d[0];
                        if (it < 0 || it >= g.in[0])
                            continue;
                        for (int64_t kh = 0; kh < g.k[1]; kh++) {
                            int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
                            if (ih < 0 || ih >= g.in[1])
                                continue;
                            for (int64_t kw = 0; kw < g.k[2]; kw++) {
                                int64_t iw = ow * g.s[2] - g.p[2] + kw * g.d[2];
                                if (iw < 0 || iw >= g.in[2])
                                    continue;
                                int64_t flat = (it * g.in[1] + ih) * g.in[2] + iw;
                                double val = plane[flat];
                                if (val > m || isnan(val)) {
                                    m = val;
                                    best = flat;
                                }
                            }
                        }
                    }
                    r[at] = m;
                    ri[at] = best;
                }
    }
    free(v);
    return pool_finish(x, nd, g.out, r, ri, indices);
}

/* ---------------------------------------------------------------- average pooling */

Tensor *tensor_avg_pool(const Tensor *x, int nd, const int64_t *kernel, const int64_t *stride, const int64_t *padding,
                        bool ceil_mode, bool count_include_pad, bool has_divisor, int64_t divisor_override)
{
    PoolGeom g;
    const char *op = nd == 1 ? "avg_pool1d" : nd == 2 ? "avg_pool2d" : "avg_pool3d";
    if (has_divisor && divisor_override == 0) {
        tensor_set_error("divisor must be not zero");
        return NULL;
    }
    /* dilation NULL: pool_geometry also checks avg_pool3d's input size */
    if (!pool_geometry(x, nd, op, kernel, stride, padding, NULL, ceil_mode, &g))
        return NULL;
    if (x->dtype == DT_BOOL)
        return tensor_error_not_implemented(nd == 3 ? "avg_pool3d_out_frame" : "avg_pool2d_out_frame", x->dtype),
               NULL;
    bool is_float = dtype_is_float(x->dtype);
    Tensor *out = pool_result(x, nd, g.out, x->dtype);
    int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
    int64_t count = out ? tensor_numel(out) : 0;
    double *v = out && is_float ? kern_read_all_f64(x) : NULL;
    int64_t *iv = out && !is_float ? kern_read_all_i64(x) : NULL;
    double *r = (v || iv) ? kern_malloc((size_t)count, sizeof *r) : NULL;
    int64_t *ir = r ? kern_malloc((size_t)count, sizeof *ir) : NULL;
    if (!ir) {
        free(v);
        free(iv);
        free(r);
        tensor_release(out);
        return NULL;
    }
    int64_t at = 0;
    for (int64_t pl = 0; pl < g.planes; pl++)
        for (int64_t ot = 0; ot < g.out[0]; ot++)
            for (int64_t oh = 0; oh < g.out[1]; oh++)
                for (int64_t ow = 0; ow < g.out[2]; ow++, at++) {
                    /* ATen's window: clipped to the padded input for the
                     * count_include_pad divisor, then to the input itself */
                    int64_t o[3] = {ot, oh, ow}, lo[3], hi[3], pool_size = 1, inside = 1;
                    for (int i = 0; i < 3; i++) {
                        lo[i] = o[i] * g.s[i] - g.p[i];
                        hi[i] = lo[i] + g.k[i] < g.in[i] + g.p[i] ? lo[i] + g.k[i] : g.in[i] + g.p[i];
                        pool_size *= hi[i] - lo[i];
                        lo[i] = lo[i] > 0 ? lo[i] : 0;
                        hi[i] = hi[i] < g.in[i] ? hi[i] : g.in[i];
                        inside *= hi[i] > lo[i] ? hi[i] - lo[i] : 0;
                    }
                    r[at] = 0.0;
                    ir[at] = 0;
                    if (inside == 0)
                        continue;
                    int64_t divisor = has_divisor ? divisor_override : count_include_pad ? pool_size : inside;
                    double s = 0.0;
                    uint64_t is = 0;
                    for (int64_t it = lo[0]; it < hi[0]; it++)
                        for (int64_t ih = lo[1]; ih < hi[1]; ih++)
                            for (int64_t iw = lo[2]; iw < hi[2]; iw++) {
                                int64_t k = pl * plane_in + (it * g.in[1] + ih) * g.in[2] + iw;
                                if (is_float)
                                    s += v[k];
                                else
                                    is += (uint64_t)iv[k];
                            }
                    r[at] = s / (double)divisor;
                    /* C++ integer division, as ATen (INT64_MIN / -1 wraps) */
                    ir[at] = divisor == -1 ? (int64_t)(0 - is) : (int64_t)is / divisor;
                }
    if (is_float)
        kern_write_all_f64(out, r);
    else
        kern_write_all_i64(out, ir);
    free(v);
    free(iv);
    free(r);
    free(ir);
    return out;
}

/* ---------------------------------------------------------------- adaptive pooling */

/* The checks of adaptive_{avg,max}_pool{1,2,3}d: `op` is ATen's name of
 * the 2-d or 3-d kernel (1-d pools run as 2-d ones there). */
static bool adaptive_check(const Tensor *x, int nd, const char *op, const int64_t *out_size, PoolGeom *g)
{
    char xb[TENSOR_SHAPE_BUF];
    int shown = nd == 3 ? 3 : 2;
    for (int i = 0; i < nd; i++)
        if (out_size[i] < 0) {
            char ob[TENSOR_SHAPE_BUF];
            int64_t shown_sizes[3];
            int k = 0;
            if (nd == 1)
                shown_sizes[k++] = 1;      /* the 2-d pool ATen runs */
            for (int j = 0; j < nd; j++)
                shown_sizes[k++] = out_size[j];
            tensor_format_shape(k, shown_sizes, ob, sizeof ob);
            ob[0] = '{';
            ob[strlen(ob) - 1] = '}';
            tensor_set_error("%s: elements of output_size must be greater than or equal to 0 but received %s", op, ob);
            return false;
        }
    if (nd == 1 && x->ndim != 2 && x->ndim != 3) {
        tensor_set_error("Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while "
                         "checking arguments for %s)", x->ndim, strstr(op, "max") ? "adaptive_max_pool1d"
                                                                                  : "adaptive_avg_pool1d");
        return false;
    }
    if (x->ndim != shown + 1 && x->ndim != shown + 2 && nd != 1) {
        tensor_set_error("%s(): Expected %dD or %dD tensor, but got %s", op, shown + 1, shown + 2,
                         tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb));
        return false;
    }
    for (int d = x->ndim == nd + 2 ? 1 : 0; d < x->ndim; d++)
        if (x->sizes[d] <= 0) {
            tensor_set_error("%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                             "%s with dimension %d being empty", op, tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb),
                             d);
            return false;
        }
    g->nd = nd;
    pool_planes(x, nd, g->in, &g->planes);
    for (int i = 0; i < 3; i++)
        g->out[i] = i < 3 - nd ? 1 : out_size[i - (3 - nd)];
    int64_t count;
    if (!ckd_mul_i64(&count, g->planes, g->out[0]) || !ckd_mul_i64(&count, count, g->out[1]) ||
        !ckd_mul_i64(&count, count, g->out[2])) {
        tensor_set_error("%s: output too large", op);
        return false;
    }
    /* (o + 1) * in of the window bounds must fit (no windows: nothing to compute) */
    for (int i = 0; i < 3 && count > 0; i++)
        if (g->in[i] > INT64_MAX / (g->out[i] + 1)) {
            tensor_set_error("%s: output size too large", op);
            return false;
        }
    return true;
}

/* Adaptive window of output o along a dim of size in pooled to out:
 * [floor(o * in / out), ceil((o + 1) * in / out)). */
static void adaptive_window(int64_t o, int64_t in, int64_t out, int64_t *lo, int64_t *hi)
{
    *lo = o * in / out;
    *hi = ((o + 1) * in + out - 1) / out;
}

/* The mean, or the maximum and its index, of every adaptive window. */
static Tensor *adaptive_pool(const Tensor *x, int nd, const int64_t *out_size, bool is_max, Tensor **indices)
{
    PoolGeom g;
    const char *op = is_max ? (nd == 3 ? "adaptive_max_pool3d" : "adaptive_max_pool2d")
                            : (nd == 3 ? "adaptive_avg_pool3d" : "adaptive_avg_pool2d");
    char kernel[40];
    snprintf(kernel, sizeof kernel, "%s%s", op, nd == 3 ? "_cpu" : "");
    if (!adaptive_check(x, nd, op, out_size, &g))
        return NULL;
    if (!tensor_require_float(x, kernel))
        return NULL;
    int64_t count = g.planes * g.out[0] * g.out[1] * g.out[2], plane_in = g.in[0] * g.in[1] * g.in[2];
    double *v = kern_read_all_f64(x);
    double *r = v ? kern_malloc((size_t)count, sizeof *r) : NULL;
    int64_t *ri = r ? kern_malloc((size_t)count, sizeof *ri) : NULL;
    if (!ri) {
        free(v);
        free(r);
        return NULL;
    }
    int64_t at = 0;
    for (int64_t pl = 0; pl < g.planes; pl++)
        for (int64_t ot = 0; ot < g.out[0]; ot++)
            for (int64_t oh = 0; oh < g.out[1]; oh++)
                for (int64_t ow = 0; ow < g.out[2]; ow++, at++) {
                    int64_t o[3] = {ot, oh, ow}, lo[3], hi[3];
                    for (int i = 0; i < 3; i++)
                        adaptive_window(o[i], g.in[i], g.out[i], &lo[i], &hi[i]);
                    double s = 0.0, m = -INFINITY;
                    int64_t best = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
                    for (int64_t it = lo[0]; it < hi[0]; it++)
                        for (int64_t ih = lo[1]; ih < hi[1]; ih++)
                            for (int64_t iw = lo[2]; iw < hi[2]; iw++) {
                                int64_t flat = (it * g.in[1] + ih) * g.in[2] + iw;
                                double val = v[pl * plane_in + flat];
                                s += val;
                                if (val > m || isnan(val)) {
                                    m = val;
                                    best = flat;
                                }
                            }
                    int64_t n = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
                    r[at] = is_max ? m : s / (double)n;
                    ri[at] = best;
                }
    free(v);
    return pool_finish(x, nd, g.out, r, ri, is_max ? indices : NULL);
}

Tensor *tensor_adaptive_avg_pool(const Tensor *x, int nd, const int64_t *out_size)
{
    return adaptive_pool(x, nd, out_size, false, NULL);
}

Tensor *tensor_adaptive_max_pool(const Tensor *x, int nd, const int64_t *out_size, Tensor **indices)
{
    return adaptive_pool(x, nd, out_size, true, indices);
}

/* ---------------------------------------------------------------- the 2-d pools' original entry points */

Tensor *tensor_max_pool2d(const Tensor *x, const int64_t kernel[2], const int64_t stride[2], const int64_t padding[2],
                          const int64_t dilation[2], bool ceil_mode)
{
    return tensor_max_pool(x, 2, kernel, stride, padding, dilation, ceil_mode, "max_pool2d", NULL);
}

Tensor *tensor_avg_pool2d(const Tensor *x, const int64_t kernel[2], const int64_t stride[2], const int64_t padding[2],
                          bool ceil_mode, bool count_include_pad, int64_t divisor_override)
{
    return tensor_avg_pool(x, 2, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override > 0,
                           divisor_override);
}

Tensor *tensor_adaptive_avg_pool2d(const Tensor *x, const int64_t out_size[2])
{
    return tensor_adaptive_avg_pool(x, 2, out_size);
}

/* ---------------------------------------------------------------- max unpooling */

Tensor *tensor_max_unpool(const Tensor *x, const Tensor *indices, int nd, const int64_t *out_size)
{
    char xb[TENSOR_SHAPE_BUF], ib[TENSOR_SHAPE_BUF];
    const char *op = nd == 3 ? "max_unpooling3d" : "max_unpooling2d";
    if (indices->dtype != DT_I64) {
        tensor_set_error("elements in indices should be type int64 but got: %s", dtype_ts_name(indices->dtype));
        return NULL;
    }
    if (x->ndim != nd + 1 && x->ndim != nd + 2) {
        tensor_set_error("Input to %s should be a %dd or %dd Tensor, but got a tensor with %d dimensions.", op, nd + 1,
                         nd + 2, x->ndim);
        return NULL;
    }
    tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb);
    if (x->ndim != indices->ndim || memcmp(x->sizes, indices->sizes, (size_t)x->ndim * sizeof *x->sizes) != 0) {
        tensor_set_error("Expected shape of indices to be same as that of the input tensor (%s) but got indices tensor "
                         "with shape: %s", xb, tensor_format_shape(indices->ndim, indices->sizes, ib, sizeof ib));
        return NULL;
    }
    for (int d = 1; d < x->ndim; d++)
        if (x->sizes[d] <= 0) {
            tensor_set_error("%s_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, "
                             "but got %s with dimension %d being empty.", op, xb, d);
            return NULL;
        }
    for (int i = 0; i < nd; i++)
        if (out_size[i] < 0) {
            tensor_set_error("%s: output_size must be non-negative, but got %" PRId64, op, out_size[i]);
            return NULL;
        }
    if (!tensor_require_float(x, nd == 3 ? "max_unpool3d" : "max_unpool2d"))
        return NULL;
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, x->sizes, (size_t)(x->ndim - nd) * sizeof *sizes);
    memcpy(sizes + x->ndim - nd, out_size, (size_t)nd * sizeof *sizes);
    Tensor *out = tensor_zeros(x->dtype, x->ndim, sizes);
    if (!out)
        return NULL;
    int64_t plane_in = 1, plane_out = 1;
    for (int i = 0; i < nd; i++) {
        plane_in *= x->sizes[x->ndim - nd + i];
        plane_out *= out_size[i];
    }
    int64_t planes = tensor_numel(x) / plane_in;
    double *v = kern_read_all_f64(x);
    int64_t *idx = v ? kern_read_all_i64(indices) : NULL;
    double *r = idx ? kern_read_all_f64(out) : NULL;
    bool ok = r != NULL;
    /* in order, so the last of duplicate indices wins, as ATen's serial loop */
    for (int64_t pl = 0; ok && pl < planes; pl++)
        for (int64_t i = 0; ok && i < plane_in; i++) {
            int64_t k = idx[pl * plane_in + i];
            if (k < 0 || k >= plane_out) {
                if (nd == 3)
                    tensor_set_error("Found an invalid max index: %" PRId64 " (output volumes are of size %" PRId64
                                     "x%" PRId64 "x%" PRId64 ")", k, out_size[0], out_size[1], out_size[2]);
                else
                    tensor_set_error("Found an invalid max index: %" PRId64 " (output volumes are of size %" PRId64
                                     "x%" PRId64, k, out_size[0], out_size[1]);
                ok = false;
            } else {
                r[pl * plane_out + k] = v[pl * plane_in + i];
            }
        }
    if (ok)
        kern_write_all_f64(out, r);
    free(v);
    free(idx);
    free(r);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- padding modes */

static const char *pad_mode_name(TensorPadMode mode)
{
    return mode == PAD_REFLECT ? "reflect" : mode == PAD_REPLICATE ? "replicate" : "circular";
}

/* The source position of output position j of a dim of size in padded by
 * (l, r) (negative: cropped). Circular padding wraps around what is left
 * after cropping, as ATen's _pad_circular copies from its cropped copy. */
static int64_t pad_source(TensorPadMode mode, int64_t j, int64_t in, int64_t l, int64_t r)
{
    int64_t i_start = l < 0 ? -l : 0, o_start = l > 0 ? l : 0, ip;
    switch (mode) {
    case PAD_REFLECT:
        ip = j < l ? 2 * l - j : j < in + l ? j : 2 * (in + l - 1) - j;
        return ip - o_start + i_start;
    case PAD_REPLICATE:
        ip = j < l ? l : j < in + l ? j : in + l - 1;
        return ip - o_start + i_start;
    default: {
        int64_t kept = in - i_start - (r < 0 ? -r : 0);
        ip = (j - o_start) % kept;
        return i_start + (ip < 0 ? ip + kept : ip);
    }
    }
}

/* ATen's checks of the reflection/replication/circular kernel for npad
 * padded dims. */
static bool pad_mode_check(const Tensor *x, int npad, const int64_t *pad, TensorPadMode mode)
{
    char xb[TENSOR_SHAPE_BUF];
    tensor_format_shape(x->ndim, x->sizes, xb, sizeof xb);
    if (mode == PAD_CIRCULAR) {
        if (npad != x->ndim - 2) {
            tensor_set_error("Invalid padding size, expected %d but got %d", 2 * (x->ndim - 2), 2 * npad);
            return false;
        }
    } else {
        /* all dims but an optional batch are non-empty */
        for (int d = x->ndim == npad + 2 ? 1 : 0; d < x->ndim; d++)
            if (x->sizes[d] == 0) {
                tensor_set_error("Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
                                 "non-zero dimensions for input, but got: %s", npad + 1, npad + 2, xb);
                return false;
            }
    }
    static const char *const axes[3] = {"D", "H", "W"};
    for (int k = 0; k < npad; k++) {
        int d = x->ndim - 1 - k;
        int64_t l = pad[2 * k], r = pad[2 * k + 1], in = x->sizes[d];
        if (mode == PAD_REFLECT && (l >= in || r >= in)) {
            tensor_set_error("Argument #4: Padding size should be less than the corresponding input dimension, but "
                             "got: padding (%" PRId64 ", %" PRId64 ") at dimension %d of input %s", l, r, d, xb);
            return false;
        }
        if (mode == PAD_CIRCULAR && (l > in || r > in)) {
            tensor_set_error("Padding value causes wrapping around more than once.");
            return false;
        }
        int64_t out = in + l + r, l_pos = l > 0 ? l : 0, r_pos = r > 0 ? r : 0;
        if (mode == PAD_CIRCULAR ? out < 0 : out < 1) {
            if (mode == PAD_CIRCULAR)
                tensor_set_error("Negative padding value is resulting in an empty dimension.");
            else
                tensor_set_error("input (%s: %" PRId64 ") is too small. Calculated output %s: %" PRId64,
                                 axes[2 - k], in, axes[2 - k], out);
            return false;
        }
        if (mode == PAD_CIRCULAR && ((l > 0 && out - l - r_pos < l) || (r > 0 && l_pos + r > out - r))) {
            /* ATen copies the wrapped part from its own result, which
             * overlaps the destination when the kept part is shorter */
            tensor_set_error("unsupported operation: some elements of the input tensor and the written-to tensor "
                             "refer to a single memory location. Please clone() the tensor before performing the "
                             "operation.");
            return false;
        }
    }
    if (mode != PAD_CIRCULAR && !dtype_is_float(x->dtype)) {
        char kernel[32];
        snprintf(kernel, sizeof kernel, "%s_pad%dd%s", mode == PAD_REFLECT ? "reflection" : "replication", npad,
                 mode == PAD_REPLICATE ? "_cpu" : "");
        return tensor_error_not_implemented(kernel, x->dtype);
    }
    return true;
}

Tensor *tensor_pad_mode(const Tensor *x, int n, const int64_t *pad, TensorPadMode mode)
{
    if (n % 2 != 0) {
        tensor_set_error("Padding length must be divisible by 2");
        return NULL;
    }
    if (n > 2 * x->ndim) {
        tensor_set_error("Padding length should be less than or equal to two times the input dimension but got "
                         "padding length %d and input of dimension %d", n, x->ndim);
        return NULL;
    }
    int npad = n / 2;
    if (npad < 1 || npad > 3 || (x->ndim != npad + 1 && x->ndim != npad + 2)) {
        tensor_set_error("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (mode '%s')",
                         pad_mode_name(mode));
        return NULL;
    }
    if (!pad_mode_check(x, npad, pad, mode))
        return NULL;
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, x->sizes, (size_t)x->ndim * sizeof *sizes);
    for (int k = 0; k < npad; k++)
        sizes[x->ndim - 1 - k] += pad[2 * k] + pad[2 * k + 1];
    int64_t *tables[TENSOR_MAX_DIMS];
    if (!kern_identity_tables(x->ndim, sizes, tables))
        return NULL;
    for (int k = 0; k < npad; k++) {
        int d = x->ndim - 1 - k;
        for (int64_t j = 0; j < sizes[d]; j++)
            tables[d][j] = pad_source(mode, j, x->sizes[d], pad[2 * k], pad[2 * k + 1]);
    }
    Tensor *out = kern_remap(x, x->ndim, sizes, tables, NULL);
    kern_tables_free(x->ndim, tables);
    return out;
}
