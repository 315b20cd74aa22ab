/* creation.c — tensors made from ranges: arange, linspace, eye, meshgrid.
 *
 * The values reproduce ATen's CPU kernels bit for bit where that is cheap:
 * arange computes start + step * i in int64 for integer dtypes (start and
 * step truncated first, so a step that truncates to 0 is an error) and in
 * double for floating ones, then casts; linspace computes in the output
 * dtype (float32 in float) from both ends towards the middle. meshgrid
 * returns expanded views of its inputs, as PyTorch does.
 */
#include <inttypes.h>
#include <math.h>

#include "tensor/tensor_impl.h"
#include "tssa/util.h"

Tensor *tensor_arange(double start, double end, double step, TensorDType dt)
{
    bool integral = !dtype_is_float(dt);
    /* Scalar::to<acc type>: int64 for every integer dtype, double otherwise. */
    if (integral && (!tensor_scalar_fits(start, DT_I64) || !tensor_scalar_fits(end, DT_I64) ||
                     !tensor_scalar_fits(step, DT_I64)))
        return NULL;
    int64_t istart = integral ? (int64_t)start : 0;
    int64_t iend = integral ? (int64_t)end : 0;
    int64_t istep = integral ? (int64_t)step : 0;
    double xstart = integral ? (double)istart : start;
    double xend = integral ? (double)iend : end;
    double xstep = integral ? (double)istep : step;
    if (!(xstep > 0 || xstep < 0)) {
        tensor_set_error("step must be nonzero");
        return NULL;
    }
    if (!isfinite(xstart) || !isfinite(xend)) {
        tensor_set_error("unsupported range: %g -> %g", xstart, xend);
        return NULL;
    }
    if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart))) {
        tensor_set_error("upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    double size_d;
    if (dt == DT_I64) {
        int64_t span;
        if (!ckd_sub_i64(&span, iend, istart)) {
            tensor_set_error("invalid size, possible overflow?");
            return NULL;
        }
        size_d = ceil((double)span / (double)istep);
    } else {
        size_d = ceil((end - start) / step);
    }
    if (!(size_d >= 0 && size_d < 9223372036854775808.0)) {
        tensor_set_error("invalid size, possible overflow?");
        return NULL;
    }
    int64_t size = (int64_t)size_d;
    Tensor *t = tensor_empty(dt, 1, &size);
    if (!t)
        return NULL;
    for (int64_t i = 0; i < size; i++) {
        if (integral) {
            /* Wrapping int64 arithmetic, as the kernel's (done unsigned here
             * to stay defined). */
            uint64_t v = (uint64_t)istart + (uint64_t)istep * (uint64_t)i;
            tensor_write_i64(t, i, (int64_t)v);
        } else {
            tensor_write_f64(t, i, start + step * (double)i);
        }
    }
    return t;
}

/* linspace into an integer tensor as PyTorch's CPU kernel computes it
 * (RangeFactoriesKernel.cpp): start and end are taken as the integer type,
 * the step is a double, and the values come from a vectorized loop. With
 * the AVX2 kernels of Debian's torch a vector holds V = 32 bytes of
 * elements, and the loop fills pairs of vectors while at least 2V elements
 * remain: each vector starts at base = (int)(start + step * i) (first half)
 * or (int)(end - step * (steps - i - 1)) (second half) and goes on as
 * (int)(base + step * j), so truncation happens at the base and again per
 * element; the remaining tail is computed element by element. (Above
 * ATen's grain size of 32768 steps the split among threads would move the
 * vector boundaries; outputs that long are not reproduced exactly.) */
static void linspace_integers(Tensor *t, double start, double end, int64_t steps)
{
    TensorDType dt = t->dtype;
    double xstart = (double)tensor_double_to_int(start, dt);
    double xend = (double)tensor_double_to_int(end, dt);
    double step = (xend - xstart) / (double)(steps - 1);
    int64_t halfway = steps / 2;
    int64_t width = 32 / tensor_elem_size(dt);
    int64_t i = 0;
    for (; i <= steps - 2 * width; i += 2 * width) {
        for (int64_t v = i; v < i + 2 * width; v += width) {  /* two vectors per step */
            double base = v < halfway ? xstart + step * (double)v : xend - step * (double)(steps - v - 1);
            int64_t ibase = tensor_double_to_int(base, DT_I64);
            for (int64_t j = 0; j < width; j++)
                tensor_write_i64(t, v + j, tensor_double_to_int((double)ibase + step * (double)j, dt));
        }
    }
    for (; i < steps; i++) {
        double v = i < halfway ? xstart + step * (double)i : xend - step * (double)(steps - i - 1);
        tensor_write_i64(t, i, tensor_double_to_int(v, dt));
    }
}

Tensor *tensor_linspace(double start, double end, int64_t steps, TensorDType dt)
{
    if (steps < 0) {
        tensor_set_error("number of steps must be non-negative");
        return NULL;
    }
    if (!tensor_scalar_fits(start, dt) || !tensor_scalar_fits(end, dt))
        return NULL;
    Tensor *t = tensor_empty(dt, 1, &steps);
    if (!t)
        return NULL;
    if (steps == 1) {
        tensor_write_f64(t, 0, start);
        return t;
    }
    int64_t halfway = steps / 2;
    if (dt == DT_F32) {
        float fstart = (float)start, fend = (float)end;
        float fstep = (fend - fstart) / (float)(steps - 1);
        for (int64_t i = 0; i < steps; i++)
            tensor_write_f64(t, i, i < halfway ? fstart + fstep * (float)i
                                               : fend - fstep * (float)(steps - i - 1));
    } else if (dt == DT_F64) {
        double step = (end - start) / (double)(steps - 1);
        for (int64_t i = 0; i < steps; i++)
            tensor_write_f64(t, i, i < halfway ? start + step * (double)i
                                               : end - step * (double)(steps - i - 1));
    } else {
        linspace_integers(t, start, end, steps);
    }
    return t;
}

/* torch.logspace as ATen's logspace_out computes it: exponents as in
 * linspace (start and end taken as the dtype, step in double, the two
 * halves counted from either end), base ** exponent in double, stored with
 * a cast. Integer dtypes raise a float-rounded base (ATen keeps it in a
 * float "to avoid promotion") except for a single step. */
Tensor *tensor_logspace(double start, double end, int64_t steps, double base, TensorDType dt)
{
    if (steps < 0) {
        tensor_set_error("number of steps must be non-negative");
        return NULL;
    }
    if (!tensor_scalar_fits(start, dt) || !tensor_scalar_fits(end, dt))
        return NULL;
    Tensor *t = tensor_empty(dt, 1, &steps);
    if (!t)
        return NULL;
    if (steps == 1) {
        tensor_write_f64(t, 0, pow(base, start));
        return t;
    }
    bool integral = !dtype_is_float(dt);
    double xstart = integral ? (double)tensor_double_to_int(start, dt) : tensor_round_f64(dt, start);
    double xend = integral ? (double)tensor_double_to_int(end, dt) : tensor_round_f64(dt, end);
    double xbase = integral ? (double)(float)base : base;
    double step = (xend - xstart) / (double)(steps - 1);
    int64_t halfway = steps / 2;
    for (int64_t i = 0; i < steps; i++) {
        double e = i < halfway ? xstart + step * (double)i : xend - step * (double)(steps - i - 1);
        tensor_write_f64(t, i, pow(xbase, e));
    }
    return t;
}

/* m == -1 stands for aten::eye(n), which is square; other negatives are
 * errors as in PyTorch. */
Tensor *tensor_eye(int64_t n, int64_t m, TensorDType dt)
{
    if (m == -1)
        m = n;
    if (n < 0) {
        tensor_set_error("n must be greater or equal to 0, got %" PRId64, n);
        return NULL;
    }
    if (m < 0) {
        tensor_set_error("m must be greater or equal to 0, got %" PRId64, m);
        return NULL;
    }
    int64_t sizes[2] = {n, m};
    Tensor *t = tensor_zeros(dt, 2, sizes);
    if (!t)
        return NULL;
    int64_t diag = n < m ? n : m;
    for (int64_t i = 0; i < diag; i++)
        tensor_write_i64(t, i * m + i, 1);
    return t;
}

bool tensor_meshgrid(Tensor *const *ts, int n, bool xy, Tensor **out)
{
    if (n <= 0) {
        tensor_set_error("meshgrid expects a non-empty TensorList");
        return false;
    }
    if (n > TENSOR_MAX_DIMS) {
        tensor_set_error("meshgrid of %d tensors is not supported (at most %d)", n,
                         TENSOR_MAX_DIMS);
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim > 1) {
            tensor_set_error("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got "
                             "a %d-D tensor", ts[i]->ndim);
            return false;
        }
        if (ts[i]->dtype != ts[0]->dtype) {
            tensor_set_error("meshgrid expects all tensors to have the same dtype");
            return false;
        }
    }
    /* "xy" is "ij" with the first two inputs (and outputs) swapped. */
    Tensor *inputs[TENSOR_MAX_DIMS];
    for (int i = 0; i < n; i++)
        inputs[i] = ts[i];
    bool swap = xy && n >= 2;
    if (swap) {
        inputs[0] = ts[1];
        inputs[1] = ts[0];
    }
    int64_t shape[TENSOR_MAX_DIMS], view_shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        shape[i] = tensor_numel(inputs[i]);
        view_shape[i] = 1;
    }
    for (int i = 0; i < n; i++) {
        view_shape[i] = -1;
        Tensor *v = tensor_view(inputs[i], n, view_shape);
        out[i] = v ? tensor_expand(v, n, shape) : NULL;
        tensor_release(v);
        view_shape[i] = 1;
        if (!out[i]) {
            for (int j = 0; j < i; j++)
                tensor_release(out[j]);
            return false;
        }
    }
    if (swap) {
        Tensor *tmp = out[0];
        out[0] = out[1];
        out[1] = tmp;
    }
    return true;
}
