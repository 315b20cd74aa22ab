/* test_fuse_random — random programs, fused kernels against the interpreter.
 *
 *   test_fuse_random TSSA_STREAM WORK_DIR [FIRST_SEED LAST_SEED]
 * For each seed (default 1..60) a random imperative program is written as
 * TorchScript graph text with its inputs: float32 tensors of a random shape
 * [A, B, C], a chain of 4 to 14 steps drawn from
 *   unary ops (sigmoid, tanh, relu, neg, abs, exp of a clamped value),
 *   binary ops with broadcasting (add with alpha, sub, mul, maximum,
 *     minimum, division by abs + 1) against an earlier value, a [B, C] or
 *     [C] input, or a keepdim reduction ([A, 1, C]: sum, amax, mean),
 *   softmax along a dim, a transpose out and back with an op between,
 *   a reshape to [A*B, C] and back with an op between,
 *   an in-place slice assign `buf[..., a:b:s] = f(...)` (aten::slice and
 *     aten::copy_ on a clone, the form TorchScript prints; TensorSSA makes
 *     it immut::slice_rev) and a row assign `buf[i] = ...` (select + copy_),
 *   a comparison feeding where,
 * run by tssa-stream twice: fused (the default cpu backend, --stats) and on
 * the reference interpreter (--backend=ref, the oracle). Every output must
 * match (|a - b| <= 1e-5 + 1e-4 |b|, NaN == NaN) and at least 80% of the
 * programs must run a fused kernel (so a fusion that quietly stops fails).
 * Generated kernels compile with -Wall -Wextra -Werror
 * (TSSA_KERNEL_CFLAGS) into a cache under WORK_DIR. A failing seed's files
 * stay in WORK_DIR/seedN.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"
#include "tssa/io.h"
#include "tssa/tensor.h"

static uint64_t rng;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int pick(int n) { return (int)(next() % (uint32_t)n); }

typedef struct Gen {
    FILE *f;
    int next_value;
    int64_t A, B, C;
    int full[64];               /* values of shape [A, B, C] */
    int nfull;
} Gen;

static int fresh(Gen *g) { return g->next_value++; }

static void full_type(Gen *g, char *buf, size_t n)
{
    snprintf(buf, n, "Float(%lld, %lld, %lld)", (long long)g->A, (long long)g->B, (long long)g->C);
}

static int any_full(Gen *g) { return g->full[pick(g->nfull)]; }

static void add_full(Gen *g, int v)
{
    if (g->nfull < 64)
        g->full[g->nfull++] = v;
}

/* One unary op on v: the new value's number. */
static int unary(Gen *g, int v)
{
    static const char *const ops[] = {"sigmoid", "tanh", "relu", "neg", "abs"};
    char t[64];
    full_type(g, t, sizeof t);
    int r = fresh(g);
    if (pick(6) == 0) {     /* exp of a clamped value stays finite */
        int c = fresh(g);
        fprintf(g->f, "  %%v%d : %s = aten::clamp(%%v%d, %%m3, %%p3)\n", c, t, v);
        fprintf(g->f, "  %%v%d : %s = aten::exp(%%v%d)\n", r, t, c);
        return r;
    }
    fprintf(g->f, "  %%v%d : %s = aten::%s(%%v%d)\n", r, t, ops[pick(5)], v);
    return r;
}

/* A value that broadcasts against [A, B, C]: a full one, an input of
 * shape [B, C] or [C], or a keepdim reduction of a full one. */
static void operand(Gen *g, char *name, size_t n)
{
    switch (pick(4)) {
    case 0: snprintf(name, n, "%%y.1"); return;
    case 1: snprintf(name, n, "%%z.1"); return;
    case 2: {
        static const char *const red[] = {"sum", "amax", "mean"};
        int k = pick(3), d = pick(3), r = fresh(g);
        int64_t s[3] = {g->A, g->B, g->C};
        s[d] = 1;
        fprintf(g->f, "  %%l%d : int[] = prim::ListConstruct(%%c%d)\n", r, d);
        fprintf(g->f, "  %%v%d : Float(%lld, %lld, %lld) = aten::%s(%%v%d, %%l%d, %%true%s)\n", r,
                (long long)s[0], (long long)s[1], (long long)s[2], red[k], any_full(g), r,
                k == 1 ? "" : ", %none");
        snprintf(name, n, "%%v%d", r);
        return;
    }
    default:
        snprintf(name, n, "%%v%d", any_full(g));
    }
}

static int binary(Gen *g, int v)
{
    char t[64], w[32];
    full_type(g, t, sizeof t);
    operand(g, w, sizeof w);
    int r = fresh(g);
    switch (pick(6)) {
    case 0: fprintf(g->f, "  %%v%d : %s = aten::add(%%v%d, %s, %%c%d)\n", r, t, v, w, 1 + pick(2)); break;
    case 1: fprintf(g->f, "  %%v%d : %s = aten::sub(%%v%d, %s, %%c1)\n", r, t, v, w); break;
    case 2: fprintf(g->f, "  %%v%d : %s = aten::mul(%%v%d, %s)\n", r, t, v, w); break;
    case 3: fprintf(g->f, "  %%v%d : %s = aten::maximum(%%v%d, %s)\n", r, t, v, w); break;
    case 4: fprintf(g->f, "  %%v%d : %s = aten::minimum(%s, %%v%d)\n", r, t, w, v); break;
    default: {
        int a = fresh(g), b = fresh(g);
        fprintf(g->f, "  %%v%d : %s = aten::abs(%%v%d)\n", a, t, v);
        fprintf(g->f, "  %%v%d : %s = aten::add(%%v%d, %%one_f, %%c1)\n", b, t, a);
        fprintf(g->f, "  %%v%d : %s = aten::div(%s, %%v%d)\n", r, t, w, b);
    }
    }
    return r;
}

/* buf = v.clone(); buf[:, :, a:b:s] = unary(w[:, :, a:b:s]) (dim 2 or 1). */
static int slice_assign(Gen *g, int v)
{
    char t[64];
    full_type(g, t, sizeof t);
    int d = 1 + pick(2);
    int64_t size = d == 1 ? g->B : g->C;
    int64_t start = pick((int)size), end = start + 1 + pick((int)(size - start)), step = 1 + pick(2);
    int64_t len = (end - start + step - 1) / step;
    int64_t s[3] = {g->A, g->B, g->C};
    s[d] = len;
    int buf = fresh(g), dst = fresh(g), src = fresh(g), val = fresh(g), cp = fresh(g);
    fprintf(g->f, "  %%v%d : %s = aten::clone(%%v%d, %%none)\n", buf, t, v);
    fprintf(g->f, "  %%k%d : int = prim::Constant[value=%lld]()\n", buf, (long long)start);
    fprintf(g->f, "  %%e%d : int = prim::Constant[value=%lld]()\n", buf, (long long)end);
    fprintf(g->f, "  %%s%d : int = prim::Constant[value=%lld]()\n", buf, (long long)step);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld, %lld) = aten::slice(%%v%d, %%c%d, %%k%d, %%e%d, %%s%d)\n",
            dst, (long long)s[0], (long long)s[1], (long long)s[2], buf, d, buf, buf, buf);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld, %lld) = aten::slice(%%v%d, %%c%d, %%k%d, %%e%d, %%s%d)\n",
            src, (long long)s[0], (long long)s[1], (long long)s[2], any_full(g), d, buf, buf, buf);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld, %lld) = aten::sigmoid(%%v%d)\n", val,
            (long long)s[0], (long long)s[1], (long long)s[2], src);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld, %lld) = aten::copy_(%%v%d, %%v%d, %%false)\n", cp,
            (long long)s[0], (long long)s[1], (long long)s[2], dst, val);
    return buf;
}

/* buf = v.clone(); buf[i] = w[j] * 2 */
static int row_assign(Gen *g, int v)
{
    char t[64];
    full_type(g, t, sizeof t);
    int buf = fresh(g), dst = fresh(g), src = fresh(g), val = fresh(g), cp = fresh(g);
    fprintf(g->f, "  %%v%d : %s = aten::clone(%%v%d, %%none)\n", buf, t, v);
    fprintf(g->f, "  %%i%d : int = prim::Constant[value=%d]()\n", buf, pick((int)g->A) - (pick(2) ? (int)g->A : 0));
    fprintf(g->f, "  %%j%d : int = prim::Constant[value=%d]()\n", buf, pick((int)g->A));
    fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::select(%%v%d, %%c0, %%i%d)\n", dst,
            (long long)g->B, (long long)g->C, buf, buf);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::select(%%v%d, %%c0, %%j%d)\n", src,
            (long long)g->B, (long long)g->C, any_full(g), buf);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::mul(%%v%d, %%c2)\n", val, (long long)g->B,
            (long long)g->C, src);
    fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::copy_(%%v%d, %%v%d, %%false)\n", cp,
            (long long)g->B, (long long)g->C, dst, val);
    return buf;
}

static int step(Gen *g, int v)
{
    char t[64], tt[64];
    full_type(g, t, sizeof t);
    snprintf(tt, sizeof tt, "Float(%lld, %lld, %lld)", (long long)g->A, (long long)g->C,
             (long long)g->B);
    int r;
    switch (pick(9)) {
    case 0: case 1: return unary(g, v);
    case 2: case 3: return binary(g, v);
    case 4:
        r = fresh(g);
        fprintf(g->f, "  %%v%d : %s = aten::softmax(%%v%d, %%c%d, %%none)\n", r, t, v, pick(3));
        return r;
    case 5: {
        int a = fresh(g), b = fresh(g);
        r = fresh(g);
        fprintf(g->f, "  %%v%d : %s = aten::transpose(%%v%d, %%c1, %%c2)\n", a, tt, v);
        fprintf(g->f, "  %%v%d : %s = aten::tanh(%%v%d)\n", b, tt, a);
        fprintf(g->f, "  %%v%d : %s = aten::transpose(%%v%d, %%c1, %%c2)\n", r, t, b);
        return r;
    }
    case 6: {
        int a = fresh(g), b = fresh(g);
        r = fresh(g);
        fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::reshape(%%v%d, %%flat)\n", a,
                (long long)(g->A * g->B), (long long)g->C, v);
        fprintf(g->f, "  %%v%d : Float(%lld, %lld) = aten::relu(%%v%d)\n", b,
                (long long)(g->A * g->B), (long long)g->C, a);
        fprintf(g->f, "  %%v%d : %s = aten::view(%%v%d, %%shape)\n", r, t, b);
        return r;
    }
    case 7: return pick(2) ? slice_assign(g, v) : row_assign(g, v);
    default: {
        char w[32];
        operand(g, w, sizeof w);
        int c = fresh(g);
        r = fresh(g);
        fprintf(g->f, "  %%v%d : Bool(%lld, %lld, %lld) = aten::gt(%%v%d, %s)\n", c,
                (long long)g->A, (long long)g->B, (long long)g->C, v, w);
        fprintf(g->f, "  %%v%d : %s = aten::where(%%v%d, %%v%d, %s)\n", r, t, c, any_full(g), w);
        return r;
    }
    }
}

static void write_input(const char *dir, const char *name, int ndim, const int64_t *sizes)
{
    Tensor *t = tensor_empty(DT_F32, ndim, sizes);
    float *p = tensor_data(t);
    for (int64_t i = 0; i < tensor_numel(t); i++)
        p[i] = (float)((int)(next() % 6001) - 3000) / 1000.0f;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    CHECK_MSG(npy_write(path, t, stderr), "writing %s", path);
    tensor_release(t);
}

static void write_program(const char *dir, Gen *g)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/model.ir", dir);
    g->f = fopen(path, "w");
    if (!g->f) {
        test_failures++;
        return;
    }
    char t[64];
    full_type(g, t, sizeof t);
    fprintf(g->f, "graph(%%x.1 : %s,\n      %%y.1 : Float(%lld, %lld),\n      %%z.1 : Float(%lld)):\n",
            t, (long long)g->B, (long long)g->C, (long long)g->C);
    fprintf(g->f, "  %%none : NoneType = prim::Constant()\n  %%false : bool = prim::Constant[value=0]()\n"
                  "  %%true : bool = prim::Constant[value=1]()\n  %%one_f : float = prim::Constant[value=1.]()\n"
                  "  %%m3 : float = prim::Constant[value=-3.]()\n  %%p3 : float = prim::Constant[value=3.]()\n");
    for (int i = 0; i < 3; i++)
        fprintf(g->f, "  %%c%d : int = prim::Constant[value=%d]()\n", i, i);
    fprintf(g->f, "  %%na : int = prim::Constant[value=%lld]()\n  %%nb : int = prim::Constant[value=%lld]()\n"
                  "  %%nc : int = prim::Constant[value=%lld]()\n  %%nab : int = prim::Constant[value=%lld]()\n",
            (long long)g->A, (long long)g->B, (long long)g->C, (long long)(g->A * g->B));
    fprintf(g->f, "  %%flat : int[] = prim::ListConstruct(%%nab, %%nc)\n"
                  "  %%shape : int[] = prim::ListConstruct(%%na, %%nb, %%nc)\n");
    int x = fresh(g);
    fprintf(g->f, "  %%v%d : %s = aten::mul(%%x.1, %%c1)\n", x, t);
    add_full(g, x);
    int v = x, steps = 4 + pick(11), kept = x;
    for (int i = 0; i < steps; i++) {
        v = step(g, v);
        add_full(g, v);
        if (i == steps / 2)
            kept = v;
    }
    int out = fresh(g);
    fprintf(g->f, "  %%v%d : (%s, %s) = prim::TupleConstruct(%%v%d, %%v%d)\n  return (%%v%d)\n", out,
            t, t, v, kept, out);
    fclose(g->f);
}

static bool same_npy(const char *a, const char *b, char *why, size_t n)
{
    Tensor *x = npy_read(a, NULL), *y = npy_read(b, NULL);
    bool ok = x && y && x->dtype == y->dtype && x->ndim == y->ndim;
    for (int d = 0; ok && d < x->ndim; d++)
        ok = x->sizes[d] == y->sizes[d];
    if (!ok)
        snprintf(why, n, "%s: missing, or another dtype or shape", a);
    for (int64_t i = 0; ok && i < tensor_numel(x); i++) {
        double p = tensor_get_flat(x, i), q = tensor_get_flat(y, i);
        if (!(isnan(p) && isnan(q)) && !(fabs(p - q) <= 1e-5 + 1e-4 * fabs(q))) {
            snprintf(why, n, "%s: element %lld: fused %.9g, reference %.9g", a, (long long)i, p, q);
            ok = false;
        }
    }
    tensor_release(x);
    tensor_release(y);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_fuse_random TSSA_STREAM WORK_DIR [FIRST LAST]\n");
        return 2;
    }
    const char *tssa = argv[1], *work = argv[2];
    int first = argc > 3 ? atoi(argv[3]) : 1, last = argc > 4 ? atoi(argv[4]) : 60;
    mkdir(work, 0755);
    char env[4200];
    snprintf(env, sizeof env, "%s/kernel-cache", work);
    setenv("TSSA_CACHE_DIR", env, 1);
    setenv("TSSA_KERNEL_CFLAGS", "-Wall -Wextra -Werror", 1);
    int fused = 0, total = 0;
    for (int seed = first; seed <= last; seed++) {
        rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)seed * 0x100000001b3ull;
        for (int i = 0; i < 4; i++)
            next();
        char dir[4096], cmd[16384];
        snprintf(dir, sizeof dir, "%s/seed%d", work, seed);
        mkdir(dir, 0755);
        Gen g = {.A = 1 + pick(5), .B = 1 + pick(6), .C = 1 + pick(7)};
        write_program(dir, &g);
        int64_t xs[3] = {g.A, g.B, g.C}, ys[2] = {g.B, g.C}, zs[1] = {g.C};
        write_input(dir, "x", 3, xs);
        write_input(dir, "y", 2, ys);
        write_input(dir, "z", 1, zs);
        const char *args = "x=x.npy y=y.npy z=z.npy";
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && '%s' model.ir %s -o fused --stats 2> fused.err && "
                 "'%s' --backend=ref model.ir %s -o ref 2> ref.err",
                 dir, tssa, args, tssa, args);
        total++;
        if (system(cmd) != 0) {
            fprintf(stderr, "FAIL seed %d: a run failed (see %s/*.err)\n", seed, dir);
            test_failures++;
            continue;
        }
        bool ok = true;
        for (int k = 0; k < 2 && ok; k++) {
            char a[4200], b[4200], why[4400];
            snprintf(a, sizeof a, "%s/fused/out%d.npy", dir, k);
            snprintf(b, sizeof b, "%s/ref/out%d.npy", dir, k);
            if (!same_npy(a, b, why, sizeof why)) {
                fprintf(stderr, "FAIL seed %d: %s (program: %s/model.ir)\n", seed, why, dir);
                test_failures++;
                ok = false;
            }
        }
        snprintf(cmd, sizeof cmd, "grep -q 'kernels_per_run [1-9]' '%s/fused.err'", dir);
        fused += system(cmd) == 0;
        if (ok) {
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            if (system(cmd) != 0)
                test_failures++;
        }
    }
    printf("%d random programs, %d ran fused kernels, %d failures\n", total, fused, test_failures);
    CHECK_MSG(fused * 5 >= total * 4, "only %d of %d programs ran a fused kernel", fused, total);
    return test_failures ? 1 : 0;
}
