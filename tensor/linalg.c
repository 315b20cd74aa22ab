/* linalg.c — mm, bmm, matmul, addmm, linear, dot, outer.
 *
 * Every product reduces to kern_gemm on 2-d views: c (m, n, contiguous) =
 * a (m, k) @ b (k, n). For float32/float64 with TSSA_USE_BLAS it calls
 * cblas_sgemm/dgemm, passing a strided operand straight through when its
 * layout is row-major or column-major (a transposed weight costs nothing)
 * and copying it otherwise; integer dtypes (which PyTorch also multiplies on
 * CPU) use plain loops with wrapping int64 accumulation, which gives the
 * same bits as PyTorch's arithmetic in the narrower type.
 *
 * matmul follows torch.matmul's case analysis (dot, mv, vm, mm, folded and
 * batched-broadcast products) only to report the same errors PyTorch does;
 * the computation is one batched loop: both operands are made matrices (a
 * 1-d operand gains a dim of size 1), expanded to the broadcast batch shape,
 * multiplied batch by batch, and the added dims are dropped again.
 */
#include "tensor/tensor_impl.h"
#include "tssa/util.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSSA_USE_BLAS
#include <cblas.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- gemm */

static bool gemm_loops(const Tensor *a, const Tensor *b, Tensor *c, int64_t m, int64_t k, int64_t n)
{
    bool ok;
    if (dtype_is_float(c->dtype)) {
        double *av = kern_read_all_f64(a), *bv = kern_read_all_f64(b);
        double *cv = kern_malloc((size_t)(m * n), sizeof *cv);
        ok = av && bv && cv;
        if (ok) {
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    double s = 0.0;
                    for (int64_t p = 0; p < k; p++)
                        s += av[i * k + p] * bv[p * n + j];
                    cv[i * n + j] = s;
                }
            kern_write_all_f64(c, cv);
        }
        free(av);
        free(bv);
        free(cv);
        return ok;
    }
    int64_t *av = kern_read_all_i64(a), *bv = kern_read_all_i64(b);
    int64_t *cv = kern_malloc((size_t)(m * n), sizeof *cv);
    ok = av && bv && cv;
    if (ok) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                uint64_t s = 0;
                for (int64_t p = 0; p < k; p++)
                    s += (uint64_t)av[i * k + p] * (uint64_t)bv[p * n + j];
                cv[i * n + j] = (int64_t)s;
            }
        kern_write_all_i64(c, cv);
    }
    free(av);
    free(bv);
    free(cv);
    return ok;
}

#ifdef TSSA_USE_BLAS
/* How BLAS can read the 2-d view x: row-major (NoTrans), column-major
 * (Trans), or not at all (returns false: the caller copies). */
static bool blas_layout(const Tensor *x, CBLAS_TRANSPOSE *trans, int *ld)
{
    int64_t rows = x->sizes[0], cols = x->sizes[1];
    int64_t s0 = x->strides[0], s1 = x->strides[1];
    if ((s1 == 1 || cols == 1) && (rows == 1 || s0 >= cols) && s0 <= INT_MAX) {
        *trans = CblasNoTrans;
        *ld = (int)(rows == 1 || s0 < 1 ? (cols > 1 ? cols : 1) : s0);
        return *ld >= cols;
    }
    if ((s0 == 1 || rows == 1) && (cols == 1 || s1 >= rows) && s1 <= INT_MAX) {
        *trans = CblasTrans;
        *ld = (int)(cols == 1 || s1 < 1 ? (rows > 1 ? rows : 1) : s1);
        return *ld >= rows;
    }
    return false;
}

/* Thread-count-independent products (tensor_products_independent_of_threads,
 * which tssa-stream turns on for every run): under mpirun results must not
 * depend on how many cores a rank has (README). OpenBLAS's own threads
 * change how it blocks a product, so in that mode it runs single-threaded
 * and a product is cut into tiles whose shapes depend only on the rows of
 * their panel (row panels of GEMM_PANEL_ROWS, each in columns of
 * GEMM_PANEL_COLS when the panel is large); OpenMP shares the tiles out, the
 * same threads as the generated kernels' (two pools would spin against
 * each other on the same cores). Otherwise OpenBLAS runs each product with
 * its threads.
 * Each panel packs the other operand again (a row panel all of b): 256 rows
 * keep that small where 64 cost up to 30% (1024x4096x1024 on 2 cores: 77 ms
 * in 64-row panels, 60 ms in 256-row ones, 59 ms in OpenBLAS's own two
 * threads). */
enum { GEMM_PANEL_WORK = 1 << 21, GEMM_PANEL_ROWS = TENSOR_GEMM_PANEL_ROWS, GEMM_PANEL_COLS = 256 };

static bool independent_of_threads;

/* This thread's number in its OpenMP team (0 without OpenMP), for the
 * panels' --trace spans. */
static int thread_number(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* OpenBLAS's pthread build starts its worker threads when it is loaded,
 * and an idle worker spins on sched_yield for its timeout (about 0.1-0.3 s
 * after the library starts or after each threaded call) before it sleeps.
 * Setting one thread does not stop them. Beside two OpenMP threads on two
 * cores such a spinner takes a core's time slices: each kernel's OpenMP
 * barrier then waits a scheduler tick (~4 ms) for the thread it preempted,
 * and a process's first ~100 ms of runs took 7-8 ms instead of 0.15 ms
 * (experiments/bench_stability.py: medians 50x apart between processes).
 * blas_thread_shutdown_ (exported by the pthread build for its fork
 * handlers) ends them; OpenBLAS starts them again by itself if a later
 * call asks for more than one thread. The serial and OpenMP builds have no
 * such threads and no such symbol: hence the weak reference. */
#ifdef TSSA_USE_BLAS
extern int blas_thread_shutdown_(void) __attribute__((weak));
#endif

void tensor_blas_set_threads(int threads)
{
#ifdef TSSA_USE_BLAS
    openblas_set_num_threads(threads);
    if (threads == 1 && blas_thread_shutdown_)
        blas_thread_shutdown_();
#else
    (void)threads;
#endif
}

int tensor_blas_threads(void)
{
#ifdef TSSA_USE_BLAS
    return openblas_get_num_threads();
#else
    return 1;
#endif
}

void tensor_products_independent_of_threads(void)
{
    independent_of_threads = true;
    tensor_blas_set_threads(1);
}

static void gemm_call(TensorDType dt, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const char *a, int lda, const char *b, int ldb, double beta, char *c, int ldc)
{
    if (dt == DT_F32)
        cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (float)alpha, (const float *)a, lda,
                    (const float *)b, ldb, (float)beta, (float *)c, ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, alpha, (const double *)a, lda,
                    (const double *)b, ldb, beta, (double *)c, ldc);
}

static void gemm_panels(TensorDType dt, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k,
                        double alpha, const void *a, int lda, const void *b, int ldb, double beta, void *c)
{
    size_t es = dtype_size(dt);
    const char *ap = a, *bp = b;
    char *cp = c;
    /* Tiles: row panels of GEMM_PANEL_ROWS rows (rows at multiples of it
     * in the product), each cut into columns of GEMM_PANEL_COLS when the
     * panel alone is large. Every decision depends on the panel's rows, not
     * on how many rows the product has, so a product cut into slices of
     * whole panels (kernels/strip_mine.c) makes the same calls for the same
     * rows and gives the same bits as the whole. */
    int64_t panel_rows = m < GEMM_PANEL_ROWS ? m : GEMM_PANEL_ROWS;
    bool by_cols = (double)panel_rows * (double)n * (double)k >= GEMM_PANEL_WORK && n >= 2 * GEMM_PANEL_COLS;
    int64_t row_panels = (m + GEMM_PANEL_ROWS - 1) / GEMM_PANEL_ROWS;
    int64_t col_panels = by_cols ? (n + GEMM_PANEL_COLS - 1) / GEMM_PANEL_COLS : 1;
    if (!independent_of_threads || row_panels * col_panels == 1) {
        gemm_call(dt, ta, tb, m, n, k, alpha, ap, lda, bp, ldb, beta, cp, (int)n);
        return;
    }
    int64_t tiles = row_panels * col_panels;
#pragma omp parallel
    {
        trace_thread_span(thread_number(), 1);
#pragma omp for schedule(static) nowait
        for (int64_t p = 0; p < tiles; p++) {
            int64_t row = (p / col_panels) * GEMM_PANEL_ROWS, col = (p % col_panels) * GEMM_PANEL_COLS;
            int64_t rows = m - row < GEMM_PANEL_ROWS ? m - row : GEMM_PANEL_ROWS;
            int64_t cols = by_cols ? (n - col < GEMM_PANEL_COLS ? n - col : GEMM_PANEL_COLS) : n;
            gemm_call(dt, ta, tb, rows, cols, k, alpha, ap + (size_t)(ta == CblasNoTrans ? row * lda : row) * es,
                      lda, bp + (size_t)(tb == CblasNoTrans ? col : col * ldb) * es, ldb, beta,
                      cp + (size_t)(row * n + col) * es, (int)n);
        }
        trace_thread_span(thread_number(), 0);
    }
}

/* False when BLAS cannot take the sizes (beyond int) or a copy failed. */
static bool gemm_blas(const Tensor *a, const Tensor *b, Tensor *c, int64_t m, int64_t k, int64_t n,
                      double alpha, double beta)
{
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
        return false;
    Tensor *ac = NULL, *bc = NULL;
    CBLAS_TRANSPOSE ta, tb;
    int lda, ldb;
    if (!blas_layout(a, &ta, &lda)) {
        if (!(ac = tensor_clone(a)))
            return false;
        a = ac;
        ta = CblasNoTrans;
        lda = (int)k;
    }
    if (!blas_layout(b, &tb, &ldb)) {
        if (!(bc = tensor_clone(b))) {
            tensor_release(ac);
            return false;
        }
        b = bc;
        tb = CblasNoTrans;
        ldb = (int)n;
    }
    gemm_panels(c->dtype, ta, tb, m, n, k, alpha, tensor_data(a), lda, tensor_data(b), ldb, beta,
                tensor_data(c));
    tensor_release(ac);
    tensor_release(bc);
    return true;
}
#else
void tensor_products_independent_of_threads(void)
{
    /* The plain loops give the same bits on any number of threads. */
}
#endif

bool kern_gemm(const Tensor *a, const Tensor *b, Tensor *c)
{
    int64_t m = a->sizes[0], k = a->sizes[1], n = b->sizes[1];
    if (m == 0 || n == 0)
        return true;
    if (k == 0) {
        memset(tensor_data(c), 0, (size_t)(m * n) * dtype_size(c->dtype));
        return true;
    }
#ifdef TSSA_USE_BLAS
    if (dtype_is_float(c->dtype) && gemm_blas(a, b, c, m, k, n, 1.0, 0.0))
        return true;
#endif
    return gemm_loops(a, b, c, m, k, n);
}

/* ---------------------------------------------------------------- checks */

static bool same_dtype(const Tensor *a, const Tensor *b)
{
    if (a->dtype == b->dtype)
        return true;
    tensor_set_error("expected scalar type %s but found %s", dtype_ts_name(a->dtype), dtype_ts_name(b->dtype));
    return false;
}

static bool not_bool(TensorDType dt, const char *kernel)
{
    if (dt != DT_BOOL)
        return true;
    tensor_set_error("\"%s\" not implemented for 'Bool'", kernel);
    return false;
}

static bool mm_shapes_match(int64_t m, int64_t k1, int64_t k2, int64_t n)
{
    if (k1 == k2)
        return true;
    tensor_set_error("mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64 " and %" PRId64 "x%" PRId64 ")",
                     m, k1, k2, n);
    return false;
}

/* Product of 2-d a and b into a fresh (m, n) tensor. */
static Tensor *mm_unchecked(const Tensor *a, const Tensor *b)
{
    int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
    Tensor *out = tensor_empty(a->dtype, 2, sizes);
    if (out && !kern_gemm(a, b, out)) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_mm(const Tensor *a, const Tensor *b)
{
    if (a->ndim != 2) {
        tensor_set_error("self must be a matrix");
        return NULL;
    }
    if (b->ndim != 2) {
        tensor_set_error("mat2 must be a matrix");
        return NULL;
    }
    if (!mm_shapes_match(a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]) || !same_dtype(a, b) ||
        !not_bool(a->dtype, "addmm_impl_cpu_"))
        return NULL;
    return mm_unchecked(a, b);
}

/* ---------------------------------------------------------------- batched */

/* Batched product of a (..., m, k) and b (..., k, n), both at least 2-d, their
 * batch dims broadcast together (shapes already checked). */
static Tensor *batched_product(const Tensor *a, const Tensor *b)
{
    int abatch = a->ndim - 2, bbatch = b->ndim - 2;
    int64_t batch[TENSOR_MAX_DIMS];
    int nb = tensor_broadcast_shape(abatch, a->sizes, bbatch, b->sizes, batch);
    if (nb < 0 || nb + 2 > TENSOR_MAX_DIMS) {
        if (nb >= 0)
            tensor_set_error("matmul: result would have more than %d dims", TENSOR_MAX_DIMS);
        return NULL;
    }
    int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1], n = b->sizes[b->ndim - 1];
    int64_t asz[TENSOR_MAX_DIMS], bsz[TENSOR_MAX_DIMS], osz[TENSOR_MAX_DIMS];
    memcpy(asz, batch, (size_t)nb * sizeof *batch);
    memcpy(bsz, batch, (size_t)nb * sizeof *batch);
    memcpy(osz, batch, (size_t)nb * sizeof *batch);
    asz[nb] = m, asz[nb + 1] = k;
    bsz[nb] = k, bsz[nb + 1] = n;
    osz[nb] = m, osz[nb + 1] = n;
    int64_t count;
    if (!kern_numel_checked(nb, batch, &count))
        return NULL;
    Tensor *ae = kern_expand_view(a, nb + 2, asz);
    Tensor *be = ae ? kern_expand_view(b, nb + 2, bsz) : NULL;
    Tensor *out = be ? tensor_empty(a->dtype, nb + 2, osz) : NULL;
    bool ok = out != NULL;
    int64_t coord[TENSOR_MAX_DIMS] = {0};
    int64_t a_off = ok ? ae->offset : 0, b_off = ok ? be->offset : 0;
    for (int64_t i = 0; ok && i < count; i++) {
        int64_t a2s[2] = {ae->strides[nb], ae->strides[nb + 1]};
        int64_t b2s[2] = {be->strides[nb], be->strides[nb + 1]};
        int64_t c2s[2] = {n, 1};
        int64_t a2z[2] = {m, k}, b2z[2] = {k, n}, c2z[2] = {m, n};
        Tensor *a2 = tensor_make_view(ae, 2, a2z, a2s, a_off);
        Tensor *b2 = tensor_make_view(be, 2, b2z, b2s, b_off);
        Tensor *c2 = tensor_make_view(out, 2, c2z, c2s, i * m * n);
        ok = a2 && b2 && c2 && kern_gemm(a2, b2, c2);
        tensor_release(a2);
        tensor_release(b2);
        tensor_release(c2);
        for (int d = nb - 1; d >= 0; d--) {
            a_off += ae->strides[d];
            b_off += be->strides[d];
            if (++coord[d] < batch[d])
                break;
            a_off -= ae->strides[d] * batch[d];
            b_off -= be->strides[d] * batch[d];
            coord[d] = 0;
        }
    }
    tensor_release(ae);
    tensor_release(be);
    if (!ok) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

Tensor *tensor_bmm(const Tensor *a, const Tensor *b)
{
    if (a->ndim != 3) {
        tensor_set_error("batch1 must be a 3D tensor");
        return NULL;
    }
    if (b->ndim != 3) {
        tensor_set_error("batch2 must be a 3D tensor");
        return NULL;
    }
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2]) {
        tensor_set_error("Expected size for first two dimensions of batch2 tensor to be: [%" PRId64 ", %" PRId64
                         "] but got: [%" PRId64 ", %" PRId64 "].", a->sizes[0], a->sizes[2], b->sizes[0], b->sizes[1]);
        return NULL;
    }
    if (!same_dtype(a, b) || !not_bool(a->dtype, "bmm"))
        return NULL;
    return batched_product(a, b);
}

/* ---------------------------------------------------------------- dot, outer */

Tensor *tensor_dot(const Tensor *a, const Tensor *b)
{
    if (a->ndim != 1 || b->ndim != 1) {
        tensor_set_error("1D tensors expected, but got %dD and %dD tensors", a->ndim, b->ndim);
        return NULL;
    }
    if (a->dtype != b->dtype) {
        tensor_set_error("dot : expected both vectors to have same dtype, but found %s and %s", dtype_ts_name(a->dtype),
                         dtype_ts_name(b->dtype));
        return NULL;
    }
    if (a->sizes[0] != b->sizes[0]) {
        tensor_set_error("inconsistent tensor size, expected tensor [%" PRId64 "] and src [%" PRId64
                         "] to have the same number of elements, but got %" PRId64 " and %" PRId64
                         " elements respectively", a->sizes[0], b->sizes[0], a->sizes[0], b->sizes[0]);
        return NULL;
    }
    if (!not_bool(a->dtype, "dot"))
        return NULL;
    int64_t as[2] = {1, a->sizes[0]}, ast[2] = {0, a->strides[0]};
    int64_t bs[2] = {b->sizes[0], 1}, bst[2] = {b->strides[0], 0};
    Tensor *a2 = tensor_make_view(a, 2, as, ast, a->offset);
    Tensor *b2 = tensor_make_view(b, 2, bs, bst, b->offset);
    Tensor *out = tensor_empty(a->dtype, 0, NULL);
    Tensor *c2 = NULL;
    if (out) {
        int64_t cs[2] = {1, 1}, cst[2] = {1, 1};
        c2 = tensor_make_view(out, 2, cs, cst, 0);
    }
    if (!a2 || !b2 || !c2 || !kern_gemm(a2, b2, c2)) {
        tensor_release(out);
        out = NULL;
    }
    tensor_release(a2);
    tensor_release(b2);
    tensor_release(c2);
    return out;
}

Tensor *tensor_outer(const Tensor *a, const Tensor *b)
{
    if (a->ndim != 1) {
        tensor_set_error("outer: Expected 1-D argument self, but got %d-D", a->ndim);
        return NULL;
    }
    if (b->ndim != 1) {
        tensor_set_error("outer: Expected 1-D argument vec2, but got %d-D", b->ndim);
        return NULL;
    }
    /* PyTorch: self.reshape({-1, 1}) * vec2, so dtypes promote. */
    int64_t sizes[2] = {a->sizes[0], 1}, strides[2] = {a->strides[0], 1};
    Tensor *col = tensor_make_view(a, 2, sizes, strides, a->offset);
    Tensor *out = col ? tensor_binary(BIN_MUL, col, b) : NULL;
    tensor_release(col);
    return out;
}

/* ---------------------------------------------------------------- matmul */

/* A 1-d tensor as a (1, k) row (at == 0) or (k, 1) column (at == 1) view. */
static Tensor *vector_as_matrix(const Tensor *v, int at)
{
    int64_t sizes[2], strides[2];
    sizes[at] = 1;
    strides[at] = 0;
    sizes[1 - at] = v->sizes[0];
    strides[1 - at] = v->strides[0];
    return tensor_make_view(v, 2, sizes, strides, v->offset);
}

static int64_t batch_numel(const Tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim - 2; d++)
        n *= t->sizes[d];
    return n;
}

/* a (..., m, k) as one (rows, k) matrix view when its leading dims merge
 * (each one's stride is the next one's times its size), else NULL. */
static Tensor *rows_as_matrix(const Tensor *a)
{
    int64_t rows = 1, row_stride = a->strides[a->ndim - 2];
    for (int d = a->ndim - 2; d >= 0; d--) {
        if (a->sizes[d] != 1 && d < a->ndim - 2 && a->strides[d] != row_stride * rows)
            return NULL;
        rows *= a->sizes[d];
    }
    int64_t sizes[2] = {rows, a->sizes[a->ndim - 1]}, strides[2] = {row_stride, a->strides[a->ndim - 1]};
    return tensor_make_view(a, 2, sizes, strides, a->offset);
}

/* (..., m, k) @ (k, n) or (k): torch.matmul folds the leading dims into
 * the rows of one product (one GEMM, not one per batch entry). False when
 * a's dims do not merge; else *out is the product (NULL on failure). */
static bool folded_product(const Tensor *a, const Tensor *b, Tensor **out)
{
    *out = NULL;
    if (a->ndim < 3 || b->ndim > 2 || tensor_numel(a) == 0)
        return false;
    Tensor *a2 = rows_as_matrix(a);
    if (!a2)
        return false;
    Tensor *b2 = b->ndim == 1 ? vector_as_matrix(b, 1) : tensor_retain((Tensor *)b);
    Tensor *prod = b2 ? mm_unchecked(a2, b2) : NULL;
    tensor_release(a2);
    tensor_release(b2);
    if (!prod)
        return true;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int nd = b->ndim == 1 ? a->ndim - 1 : a->ndim;
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
        sizes[d] = d == a->ndim - 1 ? b->sizes[1] : a->sizes[d];
        strides[d] = stride;
        stride *= sizes[d];
    }
    *out = tensor_make_view(prod, nd, sizes, strides, prod->offset);
    tensor_release(prod);
    return true;
}

/* (m, k) @ (..., k, 1): a matrix times a batch of column vectors (a DCN
 * cross layer's `matmul(W, x.unsqueeze(2))`). torch.matmul expands a over
 * the batch, one small product per entry; the columns are the rows of one
 * (rows, k) matrix when b's leading dims merge, so the batch is one GEMM
 * of them by a^T, whose (rows, m) result is the (..., m, 1) answer. False
 * when it does not apply; else *out is the product (NULL on failure). */
static bool folded_column_product(const Tensor *a, const Tensor *b, Tensor **out)
{
    *out = NULL;
    if (a->ndim != 2 || b->ndim < 3 || b->sizes[b->ndim - 1] != 1 || tensor_numel(b) == 0)
        return false;
    /* b without its last dim: (..., k), merged as the rows of (rows, k) */
    Tensor *cols = tensor_make_view(b, b->ndim - 1, b->sizes, b->strides, b->offset);
    Tensor *rows = cols ? rows_as_matrix(cols) : NULL;
    tensor_release(cols);
    if (!rows)
        return false;
    int64_t tsizes[2] = {a->sizes[1], a->sizes[0]}, tstrides[2] = {a->strides[1], a->strides[0]};
    Tensor *at = tensor_make_view(a, 2, tsizes, tstrides, a->offset);
    Tensor *prod = at ? mm_unchecked(rows, at) : NULL;
    tensor_release(rows);
    tensor_release(at);
    if (!prod)
        return true;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int nd = b->ndim;
    sizes[nd - 1] = 1;
    strides[nd - 1] = 1;
    int64_t stride = 1;
    for (int d = nd - 2; d >= 0; d--) {
        sizes[d] = d == nd - 2 ? a->sizes[0] : b->sizes[d];
        strides[d] = stride;
        stride *= sizes[d];
    }
    *out = tensor_make_view(prod, nd, sizes, strides, prod->offset);
    tensor_release(prod);
    return true;
}

/* PyTorch's error for each matmul case; true when the shapes multiply. */
static bool matmul_check(const Tensor *a, const Tensor *b)
{
    int da = a->ndim, db = b->ndim;
    if (da >= 3 && db == 1) {
        int64_t p = batch_numel(a) * a->sizes[da - 2], k = a->sizes[da - 1];
        if (k != b->sizes[0]) {
            tensor_set_error("size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64, p, p, k, b->sizes[0]);
            return false;
        }
        return same_dtype(a, b);
    }
    if (da >= 3 && db == 2)
        return mm_shapes_match(batch_numel(a) * a->sizes[da - 2], a->sizes[da - 1], b->sizes[0], b->sizes[1]) &&
               same_dtype(a, b);
    if (db >= 3 && (da == 1 || da == 2)) {
        /* PyTorch folds b.mT to (Q, k2) and multiplies by a (or a.t()). */
        int64_t q = batch_numel(b) * b->sizes[db - 1], k2 = b->sizes[db - 2];
        if (da == 1 && k2 != a->sizes[0]) {
            tensor_set_error("size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64, q, q, k2, a->sizes[0]);
            return false;
        }
        if (da == 2 && !mm_shapes_match(q, k2, a->sizes[1], a->sizes[0]))
            return false;
        return same_dtype(b, a);
    }
    /* both at least 3-d: bmm on the broadcast batch */
    int64_t batch[TENSOR_MAX_DIMS];
    int nb = tensor_broadcast_shape(da - 2, a->sizes, db - 2, b->sizes, batch);
    if (nb < 0)
        return false;
    int64_t count = 1;
    for (int d = 0; d < nb; d++)
        count *= batch[d];
    if (b->sizes[db - 2] != a->sizes[da - 1]) {
        tensor_set_error("Expected size for first two dimensions of batch2 tensor to be: [%" PRId64 ", %" PRId64
                         "] but got: [%" PRId64 ", %" PRId64 "].", count, a->sizes[da - 1], count, b->sizes[db - 2]);
        return false;
    }
    return same_dtype(a, b);
}

Tensor *tensor_matmul(const Tensor *a, const Tensor *b)
{
    if (a->ndim == 0 || b->ndim == 0) {
        tensor_set_error("both arguments to matmul need to be at least 1D, but they are %dD and %dD", a->ndim, b->ndim);
        return NULL;
    }
    if (a->ndim == 1 && b->ndim == 1)
        return tensor_dot(a, b);
    if (a->ndim == 2 && b->ndim == 1) {
        if (a->sizes[1] != b->sizes[0]) {
            tensor_set_error("size mismatch, got %" PRId64 ", %" PRId64 "x%" PRId64 ",%" PRId64, a->sizes[0],
                             a->sizes[0], a->sizes[1], b->sizes[0]);
            return NULL;
        }
        if (!same_dtype(a, b))
            return NULL;
    } else if (a->ndim == 1 && b->ndim == 2) {
        if (!mm_shapes_match(1, a->sizes[0], b->sizes[0], b->sizes[1]) || !same_dtype(a, b))
            return NULL;
    } else if (a->ndim == 2 && b->ndim == 2) {
        return tensor_mm(a, b);
    } else if (!matmul_check(a, b)) {
        return NULL;
    }
    if (!not_bool(a->dtype, "addmm_impl_cpu_"))
        return NULL;
    Tensor *folded;
    if (folded_product(a, b, &folded) || folded_column_product(a, b, &folded))
        return folded;
    Tensor *am = a->ndim == 1 ? vector_as_matrix(a, 0) : tensor_retain((Tensor *)a);
    Tensor *bm = b->ndim == 1 ? vector_as_matrix(b, 1) : tensor_retain((Tensor *)b);
    Tensor *prod = am && bm ? batched_product(am, bm) : NULL;
    Tensor *out = prod;
    if (prod && (a->ndim == 1 || b->ndim == 1)) {
        /* drop the dim added for a vector operand (prod is contiguous) */
        int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
        int nd = 0;
        for (int d = 0; d < prod->ndim; d++) {
            bool added = (a->ndim == 1 && d == prod->ndim - 2) || (b->ndim == 1 && d == prod->ndim - 1);
            if (!added) {
                sizes[nd] = prod->sizes[d];
                strides[nd++] = prod->strides[d];
            }
        }
        out = tensor_make_view(prod, nd, sizes, strides, prod->offset);
        tensor_release(prod);
    }
    tensor_release(am);
    tensor_release(bm);
    return out;
}

/* ---------------------------------------------------------------- addmm, linear */

Tensor *tensor_addmm(const Tensor *self, const Tensor *a, const Tensor *b, double beta, double alpha)
{
    if (a->ndim != 2) {
        tensor_set_error("mat1 must be a matrix, got %d-D tensor", a->ndim);
        return NULL;
    }
    if (b->ndim != 2) {
        tensor_set_error("mat2 must be a matrix, got %d-D tensor", b->ndim);
        return NULL;
    }
    if (!mm_shapes_match(a->sizes[0], a->sizes[1], b->sizes[0], b->sizes[1]))
        return NULL;
    int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
    Tensor *se = kern_expand_view(self, 2, sizes);
    if (!se)
        return NULL;
    if (!same_dtype(a, b) || !not_bool(a->dtype, "addmm_impl_cpu_")) {
        tensor_release(se);
        return NULL;
    }
    if (self->dtype != b->dtype) {
        tensor_set_error("self and mat2 must have the same dtype");
        tensor_release(se);
        return NULL;
    }
#ifdef TSSA_USE_BLAS
    /* float32 (linear's bias): self, scaled, fills the output and BLAS adds
     * alpha * a @ b onto it (its beta), one pass over the output less */
    if (self->dtype == DT_F32 && sizes[0] > 0 && sizes[1] > 0 && sizes[0] <= INT_MAX &&
        sizes[1] <= INT_MAX && a->sizes[1] > 0) {
        Tensor *out = tensor_empty(DT_F32, 2, sizes);
        if (out) {
            float *p = tensor_data(out);
            const float *s = tensor_data(se);
            float fb = (float)beta;
            for (int64_t i = 0; i < sizes[0]; i++)
                for (int64_t j = 0; j < sizes[1]; j++)
                    p[i * sizes[1] + j] = beta == 0.0 ? 0.0f
                                                      : fb * s[i * se->strides[0] + j * se->strides[1]];
            if (gemm_blas(a, b, out, sizes[0], a->sizes[1], sizes[1], alpha, beta == 0.0 ? 0.0 : 1.0)) {
                tensor_release(se);
                return out;
            }
            tensor_release(out);
        }
    }
#endif
    Tensor *out = mm_unchecked(a, b);
    int64_t n = out ? tensor_numel(out) : 0;
    if (out && dtype_is_float(out->dtype)) {
        double *p = kern_read_all_f64(out), *s = kern_read_all_f64(se);
        if (p && s) {
            /* beta == 0 ignores self entirely (its NaNs too), as BLAS does */
            for (int64_t i = 0; i < n; i++)
                p[i] = beta == 0.0 ? alpha * p[i] : beta * s[i] + alpha * p[i];
            kern_write_all_f64(out, p);
        }
        if (!p || !s) {
            tensor_release(out);
            out = NULL;
        }
        free(p);
        free(s);
    } else if (out) {
        int64_t *p = kern_read_all_i64(out), *s = kern_read_all_i64(se);
        uint64_t ib = (uint64_t)tensor_load_i64(DT_F64, &beta), ia = (uint64_t)tensor_load_i64(DT_F64, &alpha);
        if (p && s) {
            for (int64_t i = 0; i < n; i++)
                p[i] = (int64_t)(ib * (uint64_t)s[i] + ia * (uint64_t)p[i]);
            kern_write_all_i64(out, p);
        }
        if (!p || !s) {
            tensor_release(out);
            out = NULL;
        }
        free(p);
        free(s);
    }
    tensor_release(se);
    return out;
}

/* x @ w.T + bias, as torch.nn.functional.linear: a 2-d input with bias is
 * addmm; a contiguous 3-d input with bias is folded to 2-d first; otherwise
 * matmul followed by an in-place add of the bias. */
Tensor *tensor_linear(const Tensor *x, const Tensor *w, const Tensor *bias)
{
    if (w->ndim > 2) {
        tensor_set_error("t() expects a tensor with <= 2 dimensions, but self is %dD", w->ndim);
        return NULL;
    }
    int64_t wts[2], wtst[2];
    Tensor *wt;
    if (w->ndim == 2) {
        wts[0] = w->sizes[1], wts[1] = w->sizes[0];
        wtst[0] = w->strides[1], wtst[1] = w->strides[0];
        wt = tensor_make_view(w, 2, wts, wtst, w->offset);
    } else {
        wt = tensor_retain((Tensor *)w);
    }
    if (!wt)
        return NULL;
    Tensor *out = NULL;
    if (bias && x->ndim == 2) {
        out = tensor_addmm(bias, x, wt, 1.0, 1.0);
    } else if (bias && x->ndim == 3 && tensor_is_contiguous(x) && wt->ndim == 2) {
        int64_t fs[2] = {x->sizes[0] * x->sizes[1], x->sizes[2]}, fst[2] = {x->sizes[2], 1};
        Tensor *x2 = tensor_make_view(x, 2, fs, fst, x->offset);
        Tensor *o2 = x2 ? tensor_addmm(bias, x2, wt, 1.0, 1.0) : NULL;
        if (o2) {
            int64_t os[3] = {x->sizes[0], x->sizes[1], o2->sizes[1]};
            int64_t ost[3] = {x->sizes[1] * o2->sizes[1], o2->sizes[1], 1};
            out = tensor_make_view(o2, 3, os, ost, o2->offset);
        }
        tensor_release(x2);
        tensor_release(o2);
    } else {
        out = tensor_matmul(x, wt);
        if (out && bias && !tensor_add_(out, bias, 1.0)) {
            tensor_release(out);
            out = NULL;
        }
    }
    tensor_release(wt);
    return out;
}
