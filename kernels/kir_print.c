/* kir_print.c — one printer of kernel IR for two targets: C11 + OpenMP
 * (compiled at run time, kernels/cc_jit.c) and CUDA (one thread per output
 * element or row, or a block per row or output whose reductions are long:
 * kir_cuda_grid; compiled by the cuda backend).
 *
 * Both targets share the statement generator: every expression becomes one
 * statement `T tN = ...;`, printed once per scope where it is first needed
 * (pointer-equal expressions are one statement: kir.c hash-conses them).
 * In C the statement goes to the outermost loop level whose variables it
 * depends on (loop-invariant code motion: a softmax's row max and sum are
 * computed once per row, a broadcast weight's load once per outer index),
 * never out of a select's arm (an arm may read out of bounds when not
 * taken) nor out of a reduction loop it depends on. A select prints as an
 * if/else; a reduction as its own loop with an accumulator. The targets
 * differ only in the prelude, the function signature and how the loop
 * variables get their values (loops in C, the thread index in CUDA).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"

enum { KIR_MAX_CUTS = 16 };      /* pieces of a split innermost loop, at most + 1 */

typedef enum ScopeKind { SCOPE_ROOT, SCOPE_LOOP, SCOPE_BRANCH, SCOPE_REDUCE } ScopeKind;

typedef struct Scope {
    ScopeKind kind;
    int var;                    /* LOOP, REDUCE: the variable it binds */
    struct Scope *parent;
    TextBuf text;               /* its statements */
    /* expressions computed here and their temporaries */
    const KExpr **done;
    int *temps;
    int ndone, capdone;
} Scope;

typedef struct Printer {
    KirTarget target;
    const KKernel *k;
    int next_temp;
    int indent;
    /* What is known of each loop variable where the printer is: v in
     * [vlo[v], vhi[v]] (vhi < vlo: nothing). A select whose tests these
     * ranges decide prints as the arm it takes. */
    int64_t vlo[KIR_MAX_VARS], vhi[KIR_MAX_VARS];
    /* The kernel's argmax / argmin reductions: a max / min over the same
     * variable and body is their twin, and one loop computes both. */
    const KExpr **indexed;
    int nindexed, capindexed;
    /* CUDA: the threads of a block that computes one unit (a row or an
     * element) together, its reductions split across them (kir_cuda_grid);
     * 0 when a thread computes a unit alone */
    int block_threads;
    /* the units a block computes side by side: 1, or KIR_BLOCK_LANES
     * consecutive outputs of a column reduction (thread j: output j % lanes,
     * part j / lanes of the reduction) */
    int block_lanes;
    /* CUDA: the thread index and index arithmetic in 32 bits (cuda_index_32) */
    bool narrow;
} Printer;

/* The math library's functions that libmvec vectorizes (with powf): a
 * kernel pays one call per element for each (kir_math_calls). */
static const char *const simd_calls[] = {"exp", "log", "sin", "cos", "tanh", "erf", "expm1",
                                         "log1p", "log2", "log10", "exp2", "atan", "tan"};

int kir_math_calls(const char *template_text)
{
    int calls = 0;
    for (const char *s = template_text; s && *s; s++) {
        if (!(*s >= 'A' && *s <= 'Z') || (s > template_text && ((s[-1] >= 'A' && s[-1] <= 'Z') ||
                                                                 (s[-1] >= '0' && s[-1] <= '9'))))
            continue;
        size_t n = 0;
        while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9'))
            n++;
        if (s[n] != '(')
            continue;
        char lower[16];
        if (n >= sizeof lower)
            continue;
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
        lower[n] = '\0';
        bool known = strcmp(lower, "pow") == 0;
        for (size_t i = 0; !known && i < sizeof simd_calls / sizeof *simd_calls; i++)
            known = strcmp(lower, simd_calls[i]) == 0;
        calls += known;
    }
    return calls;
}

static const char *math_names[] = {
    "EXP", "EXP2", "EXPM1", "LOG", "LOG2", "LOG10", "LOG1P", "SQRT", "SIN", "COS", "TAN",
    "TANH", "ATAN", "ERF", "FLOOR", "CEIL", "RINT", "TRUNC",
};

/* Python's floor division and modulo (the sign of the divisor), per type;
 * an integer division by zero gives 0 here where PyTorch raises. */
#define C_INT_HELPERS(q) \
    q " float floordiv_f(float a, float b) { return floorf(a / b); }\n" \
    q " double floordiv_d(double a, double b) { return floor(a / b); }\n" \
    q " int64_t floordiv_i(int64_t a, int64_t b) { if (b == 0) return 0; int64_t q = a / b; " \
    "return q - ((a % b != 0) && ((a < 0) != (b < 0))); }\n" \
    q " float pymod_f(float a, float b) { float m = fmodf(a, b); " \
    "return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; }\n" \
    q " double pymod_d(double a, double b) { double m = fmod(a, b); " \
    "return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; }\n" \
    q " int64_t pymod_i(int64_t a, int64_t b) { if (b == 0) return 0; int64_t m = a % b; " \
    "return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; }\n" \
    q " bool invert_b(bool x) { return !x; }\n" \
    q " uint8_t invert_u8(uint8_t x) { return (uint8_t)~x; }\n" \
    q " int8_t invert_i8(int8_t x) { return (int8_t)~x; }\n" \
    q " int16_t invert_i16(int16_t x) { return (int16_t)~x; }\n" \
    q " int32_t invert_i32(int32_t x) { return ~x; }\n" \
    q " int64_t invert_i64(int64_t x) { return ~x; }\n" \
    /* c10's powi (tensor/binary.c's int_pow): repeated squaring, wrapping; \
     * a negative exponent gives 0 but for bases 1 and -1. Through double, \
     * 0 ** -1 was inf converted to int64 (INT64_MIN) and results past 2^53 \
     * lost their low bits. */ \
    q " int64_t pow_i(int64_t b, int64_t e) { if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0; " \
    "unsigned long long r = 1, x = (unsigned long long)b; while (e) { if (e & 1) r *= x; e >>= 1; x *= x; } return (int64_t)r; }\n"

static void prelude(TextBuf *t, KirTarget target)
{
    if (target == KIR_TARGET_C) {
        textbuf_puts(t, "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n"
                        "#if defined(__GNUC__) && !defined(__clang__)\n"
                        "/* GCC's partial redundancy elimination splits a loop on a select's\n"
                        " * constant arm (clamp(x, min=c), relu): the math done once for the\n"
                        " * constant, a branch per element, and the loop no longer\n"
                        " * vectorizes (log10(clamp(x, 1e-10)) ran scalar). Jump threading\n"
                        " * does the same to some loops, but GCC 12 miscompiles vectorized\n"
                        " * selects without it (-fno-thread-jumps), so it stays on. */\n"
                        "#pragma GCC optimize(\"no-tree-pre\")\n"
                        "#endif\n\n"
                        "#if defined(__x86_64__) && defined(__GLIBC__)\n"
                        "/* glibc's libmvec has vector versions of these: loops that call\n"
                        " * them vectorize (with -fno-math-errno) */\n");
        for (size_t i = 0; i < sizeof simd_calls / sizeof *simd_calls; i++)
            textbuf_printf(t, "#pragma omp declare simd notinbranch\nfloat %sf(float);\n"
                              "#pragma omp declare simd notinbranch\ndouble %s(double);\n",
                           simd_calls[i], simd_calls[i]);
        textbuf_puts(t, "#pragma omp declare simd notinbranch\nfloat powf(float, float);\n"
                        "#pragma omp declare simd notinbranch\ndouble pow(double, double);\n"
                        "#endif\n\n/* type-generic math for the op table's templates */\n");
        for (size_t i = 0; i < sizeof math_names / sizeof *math_names; i++) {
            char lower[16];
            size_t n = strlen(math_names[i]);
            for (size_t j = 0; j <= n; j++)
                lower[j] = (char)(math_names[i][j] >= 'A' && math_names[i][j] <= 'Z'
                                      ? math_names[i][j] - 'A' + 'a'
                                      : math_names[i][j]);
            if (strcmp(lower, "rint") == 0)
                strcpy(lower, "nearbyint");
            textbuf_printf(t, "#define %s(x) _Generic((x), float: %sf, default: %s)(x)\n",
                           math_names[i], lower, lower);
        }
        textbuf_puts(t, "#define POW(x, y) _Generic((x) + (y), float: powf, double: pow, default: pow_i)(x, y)\n"
                        "#define ATAN2(x, y) _Generic((x) + (y), float: atan2f, default: atan2)(x, y)\n"
                        "#define ABS(x) ((x) < 0 ? -(x) : (x))\n"
                        "#define ISNAN(x) ((x) != (x))\n"
                        C_INT_HELPERS("static inline")
                        "#define FLOORDIV(a, b) _Generic((a), float: floordiv_f, double: floordiv_d, "
                        "bool: floordiv_i, default: floordiv_i)(a, b)\n"
                        "#define PYMOD(a, b) _Generic((a), float: pymod_f, double: pymod_d, "
                        "bool: pymod_i, default: pymod_i)(a, b)\n"
                        "#define INVERT(x) _Generic((x), bool: invert_b, uint8_t: invert_u8, "
                        "int8_t: invert_i8, int16_t: invert_i16, int32_t: invert_i32, "
                        "default: invert_i64)(x)\n\n"
                        "/* --trace: each OpenMP thread's share of a parallel loop, reported\n"
                        " * through this hook when the runtime sets it */\n"
                        "void (*tssa_thread_span)(int thread, int begin);\n"
                        "int omp_get_thread_num(void);\n"
                        "#define TSSA_THREAD_BEGIN() do { if (tssa_thread_span) "
                        "tssa_thread_span(omp_get_thread_num(), 1); } while (0)\n"
                        "#define TSSA_THREAD_END() do { if (tssa_thread_span) "
                        "tssa_thread_span(omp_get_thread_num(), 0); } while (0)\n\n");
        return;
    }
    /* NVRTC compiles without system headers; nvcc has them */
    textbuf_puts(t, "#ifndef __CUDACC_RTC__\n#include <stdint.h>\n#else\n"
                    "typedef signed char int8_t;\ntypedef unsigned char uint8_t;\n"
                    "typedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"
                    "typedef unsigned int uint32_t;\n"
                    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n"
                    "#define INT16_MIN (-32768)\n#define INT16_MAX 32767\n"
                    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n"
                    "#define INT64_MIN (-9223372036854775807LL - 1)\n"
                    "#define INT64_MAX 9223372036854775807LL\n#endif\n"
                    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n"
                    "#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n"
                    "/* after each kernel: what the cuda backend's CPU shim turns into a\n"
                    " * launcher (blockIdx / threadIdx as loops); nothing on a GPU */\n"
                    "#ifndef TSSA_KERNEL_ENTRY\n#define TSSA_KERNEL_ENTRY(kernel, args)\n#endif\n"
                    "#ifndef TSSA_KERNEL_ENTRY_COOP\n#define TSSA_KERNEL_ENTRY_COOP(kernel, args)\n#endif\n\n"
                    "/* type-generic math for the op table's templates */\n");
    for (size_t i = 0; i < sizeof math_names / sizeof *math_names; i++) {
        const char *m = math_names[i];
        char lower[16];
        size_t n = strlen(m);
        for (size_t j = 0; j <= n; j++)
            lower[j] = (char)(m[j] >= 'A' && m[j] <= 'Z' ? m[j] - 'A' + 'a' : m[j]);
        textbuf_printf(t,
                       "__device__ __forceinline__ float %s(float x) { return %sf(x); }\n"
                       "__device__ __forceinline__ double %s(double x) { return %s(x); }\n",
                       m, lower, m, lower);
    }
    textbuf_puts(t, "__device__ __forceinline__ float POW(float x, float y) { return powf(x, y); }\n"
                    "__device__ __forceinline__ double POW(double x, double y) { return pow(x, y); }\n"
                    "__device__ __forceinline__ float ATAN2(float x, float y) { return atan2f(x, y); }\n"
                    "__device__ __forceinline__ double ATAN2(double x, double y) { return atan2(x, y); }\n"
                    "#define ABS(x) ((x) < 0 ? -(x) : (x))\n"
                    "#define ISNAN(x) ((x) != (x))\n"
                    C_INT_HELPERS("__device__ __forceinline__")
                    /* integers as the C target's pow_i (32-bit results are its low bits) */
                    "__device__ __forceinline__ int64_t POW(int64_t x, int64_t y) { return pow_i(x, y); }\n"
                    "__device__ __forceinline__ int32_t POW(int32_t x, int32_t y) { return (int32_t)pow_i(x, y); }\n"
                    "__device__ __forceinline__ float FLOORDIV(float a, float b) { return floordiv_f(a, b); }\n"
                    "__device__ __forceinline__ double FLOORDIV(double a, double b) { return floordiv_d(a, b); }\n"
                    "__device__ __forceinline__ int64_t FLOORDIV(int64_t a, int64_t b) { return floordiv_i(a, b); }\n"
                    "__device__ __forceinline__ float PYMOD(float a, float b) { return pymod_f(a, b); }\n"
                    "__device__ __forceinline__ double PYMOD(double a, double b) { return pymod_d(a, b); }\n"
                    "__device__ __forceinline__ int64_t PYMOD(int64_t a, int64_t b) { return pymod_i(a, b); }\n"
                    "__device__ __forceinline__ bool INVERT(bool x) { return invert_b(x); }\n"
                    "__device__ __forceinline__ int64_t INVERT(int64_t x) { return invert_i64(x); }\n"
                    "__device__ __forceinline__ int32_t INVERT(int32_t x) { return invert_i32(x); }\n\n");
}

/* ---------------------------------------------------------------- pieces */

static void var_name(TextBuf *t, int var)
{
    textbuf_printf(t, var < KIR_MAX_RANK ? "i%d" : "r%d", var);
}

/* narrow: in 32 bits (the CUDA kernel's variables are int32_t, and
 * cuda_index_32 found every value of x and its parts in range); a / or %
 * then divides unsigned (its operand is never negative there), which nvcc
 * turns into a multiply-shift without the signed correction. */
static void print_idx_unsigned(TextBuf *t, const KIdx *x);

static void print_idx(TextBuf *t, const KIdx *x, bool narrow)
{
    switch (x->kind) {
    case KI_CONST: textbuf_printf(t, "%lld", (long long)x->c); break;
    case KI_VAR:   var_name(t, x->var); break;
    case KI_PARAM: textbuf_printf(t, narrow ? "(int32_t)si[%d]" : "si[%d]", x->var); break;
    case KI_ADD:
        textbuf_putc(t, '(');
        print_idx(t, x->a, narrow);
        textbuf_puts(t, " + ");
        print_idx(t, x->b, narrow);
        textbuf_putc(t, ')');
        break;
    case KI_MUL:
        print_idx(t, x->a, narrow);
        textbuf_printf(t, " * %lld", (long long)x->c);
        break;
    case KI_DIV: case KI_MOD:
        if (narrow) {
            textbuf_puts(t, "(int32_t)(");
            print_idx_unsigned(t, x);
            textbuf_putc(t, ')');
            break;
        }
        textbuf_putc(t, '(');
        print_idx(t, x->a, narrow);
        textbuf_printf(t, ") %c %lld", x->kind == KI_DIV ? '/' : '%', (long long)x->c);
        break;
    }
}

/* A never negative 32-bit index as uint32_t: a chain of / and % by
 * constants stays unsigned ((uint32_t)i1 / 4u % 4u). */
static void print_idx_unsigned(TextBuf *t, const KIdx *x)
{
    if (x->kind == KI_DIV || x->kind == KI_MOD) {
        print_idx_unsigned(t, x->a);
        textbuf_printf(t, " %c %lldu", x->kind == KI_DIV ? '/' : '%', (long long)x->c);
    } else if (x->kind == KI_VAR) {
        textbuf_puts(t, "(uint32_t)");
        var_name(t, x->var);
    } else {
        textbuf_puts(t, "(uint32_t)(");
        print_idx(t, x, true);
        textbuf_putc(t, ')');
    }
}

static void print_const(TextBuf *t, TensorDType dt, double c)
{
    if (dt == DT_F32 || dt == DT_F64) {
        if (isnan(c))
            textbuf_puts(t, dt == DT_F32 ? "NAN" : "(double)NAN");
        else if (isinf(c))
            textbuf_puts(t, c > 0 ? "INFINITY" : "-INFINITY");
        else if (dt == DT_F32)
            textbuf_printf(t, "%af", (double)(float)c);
        else
            textbuf_printf(t, "%a", c);
        return;
    }
    if (dt == DT_BOOL) {
        textbuf_puts(t, c != 0 ? "1" : "0");
        return;
    }
    if (c == -9223372036854775808.0)    /* INT64_MIN: its literal would be unsigned (a warning) */
        textbuf_printf(t, "(%s)(-9223372036854775807LL - 1)", kir_ctype(dt));
    else
        textbuf_printf(t, "(%s)%lldLL", kir_ctype(dt), (long long)c);
}

/* ---------------------------------------------------------------- scopes */

static bool binds(const Scope *s, uint64_t vars)
{
    return (s->kind == SCOPE_LOOP || s->kind == SCOPE_REDUCE) && (vars >> s->var) & 1;
}

/* The outermost scope an expression with these variables may be computed
 * in, seen from s. */
static Scope *home(Scope *s, uint64_t vars)
{
    while (s->parent && !binds(s, vars) && s->kind != SCOPE_BRANCH)
        s = s->parent;
    return s;
}

/* The temporary holding e in s or a scope around it, or -1. */
static int find_done(const Scope *s, const KExpr *e)
{
    for (; s; s = s->parent)
        for (int i = s->ndone - 1; i >= 0; i--)
            if (s->done[i] == e)
                return s->temps[i];
    return -1;
}

static void mark_done(Scope *s, const KExpr *e, int temp)
{
    if (s->ndone == s->capdone) {
        s->capdone = s->capdone ? s->capdone * 2 : 16;
        s->done = xrealloc(s->done, (size_t)s->capdone * sizeof *s->done);
        s->temps = xrealloc(s->temps, (size_t)s->capdone * sizeof *s->temps);
    }
    s->done[s->ndone] = e;
    s->temps[s->ndone++] = temp;
}

static void scope_init(Scope *s, ScopeKind kind, int var, Scope *parent)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->var = var;
    s->parent = parent;
}

static void scope_release(Scope *s)
{
    free(s->done);
    free(s->temps);
    free(s->text.data);
}

static int depth(const Scope *s)
{
    int d = 0;
    for (; s->parent; s = s->parent)
        d++;
    return d;
}

static void line_start(Printer *pr, Scope *s)
{
    textbuf_spaces(&s->text, 4 * (pr->indent + depth(s)));
}

/* ---------------------------------------------------------------- expressions */

static int emit(Printer *pr, Scope *cur, const KExpr *e);

static void temp_name(TextBuf *t, int temp)
{
    textbuf_printf(t, "t%d", temp);
}

/* The template with $k replaced by the operands' temporaries and the type
 * name T by the compute type. */
static void print_template(TextBuf *t, const KExpr *e, const int *args)
{
    const char *s = op_template(e->op)->text;
    const char *ctype = kir_ctype(e->compute);
    for (; *s; s++) {
        if (*s == '$' && s[1] >= '0' && s[1] <= '9') {
            temp_name(t, args[s[1] - '0']);
            s++;
        } else if (*s == 'T' && !(s[1] >= 'A' && s[1] <= 'Z') && !(s[1] >= '0' && s[1] <= '9') &&
                   s[1] != '_' && (s == op_template(e->op)->text ||
                                   !((s[-1] >= 'A' && s[-1] <= 'Z') || s[-1] == '_'))) {
            textbuf_puts(t, ctype);
        } else {
            textbuf_putc(t, *s);
        }
    }
}

static void print_test(TextBuf *t, const KTest *x, bool narrow)
{
    textbuf_putc(t, '(');
    if (x->hi - x->lo == 1) {
        print_idx(t, x->x, narrow);
        textbuf_printf(t, " == %lld", (long long)x->lo);
    } else {
        print_idx(t, x->x, narrow);
        textbuf_printf(t, " >= %lld && ", (long long)x->lo);
        print_idx(t, x->x, narrow);
        textbuf_printf(t, " < %lld", (long long)x->hi);
        if (x->step > 1) {
            textbuf_puts(t, " && (");
            print_idx(t, x->x, narrow);
            textbuf_printf(t, " - %lld) %% %lld == 0", (long long)x->lo, (long long)x->step);
        }
    }
    textbuf_putc(t, ')');
}

static void reduce_init(TextBuf *t, KReduce r, TensorDType dt)
{
    if (r == KR_SUM) {
        print_const(t, dt, 0);
    } else if (dt == DT_F32 || dt == DT_F64) {
        textbuf_puts(t, r == KR_MAX ? "-INFINITY" : "INFINITY");
    } else if (dt == DT_BOOL) {
        textbuf_puts(t, r == KR_MAX ? "0" : "1");
    } else {
        static const char *const lim[][2] = {
            [DT_U8] = {"0", "UINT8_MAX"}, [DT_I8] = {"INT8_MIN", "INT8_MAX"},
            [DT_I16] = {"INT16_MIN", "INT16_MAX"}, [DT_I32] = {"INT32_MIN", "INT32_MAX"},
            [DT_I64] = {"INT64_MIN", "INT64_MAX"},
        };
        textbuf_puts(t, lim[dt][r == KR_MAX ? 0 : 1]);
    }
}

/* The accumulator and the loop go to `at` after the body is generated:
 * what the body hoists out (a row's max for a softmax's sum) then lands
 * before the loop, not inside it. */
static bool has_index_twin(const Printer *pr, const KExpr *e);
static void print_block_combine(Printer *pr, Scope *at, const KExpr *e, int acc);
static void print_block_combine_warps(Printer *pr, Scope *at, const KExpr *e, int acc);

static void emit_reduce(Printer *pr, Scope *at, const KExpr *e, int acc)
{
    Scope body;
    scope_init(&body, SCOPE_REDUCE, e->var, at);
    pr->vlo[e->var] = 0;
    pr->vhi[e->var] = e->extent - 1;
    int v = emit(pr, &body, e->args[0]);
    pr->vhi[e->var] = -1;
    TextBuf *bt = &body.text;
    line_start(pr, &body);
    bool is_index = e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN;
    /* a max with an argmax twin keeps its index too (as t<acc>_at) */
    bool indexed = is_index || has_index_twin(pr, e);
    bool largest = e->reduce == KR_ARGMAX || e->reduce == KR_MAX;
    const char *at_suffix = is_index ? "" : "_at";
    bool is_float = e->dtype == DT_F32 || e->dtype == DT_F64;
    /* Sums and plain maxima vectorize as OpenMP simd reductions (C only;
     * not around a nested simd loop, which OpenMP forbids). A vectorized
     * sum adds in another order than a sequential one, as PyTorch's own
     * vectorized sums do; the order is fixed by the code, so runs repeat
     * bit for bit. */
    bool nested_simd = strstr(textbuf_cstr(bt), "#pragma") != NULL;
    bool simd = pr->target == KIR_TARGET_C && !indexed && e->dtype != DT_BOOL && !nested_simd;
    /* An index reduction over computed values (a softmax's exp / sum, an
     * FCOS score) is staged: a simd loop stores the row's values, then a
     * plain loop finds the first extreme among them (it alone does not
     * vectorize; the math then does). Rows up to 4096 (on the stack). */
    int statements = 0;
    for (uint32_t i = 0; i < bt->len; i++)
        statements += bt->data[i] == '\n';
    bool staged = pr->target == KIR_TARGET_C && indexed && !nested_simd && e->extent > 0 &&
                  e->extent <= 4096 && statements >= 2;
    if (staged) {
        textbuf_printf(bt, "t%d_vals[", acc);
        var_name(bt, e->var);
        textbuf_puts(bt, "] = ");
        temp_name(bt, v);
        textbuf_puts(bt, ";");
    } else if (indexed) {
        /* the first index of the extreme; a NaN wins and stays */
        textbuf_puts(bt, "if (");
        temp_name(bt, v);
        textbuf_puts(bt, largest ? " > " : " < ");
        textbuf_printf(bt, "t%d_best || (ISNAN(", acc);
        temp_name(bt, v);
        textbuf_printf(bt, ") && !ISNAN(t%d_best))) { t%d_best = ", acc, acc);
        temp_name(bt, v);
        textbuf_printf(bt, "; t%d%s = ", acc, at_suffix);
        var_name(bt, e->var);
        textbuf_puts(bt, "; }");
    } else if (e->reduce == KR_SUM) {
        temp_name(bt, acc);
        textbuf_puts(bt, " += ");
        temp_name(bt, v);
    } else if (simd) {
        /* max / min as a select the vectorizer takes for a max; a NaN
         * anywhere is flagged apart and wins after the loop */
        textbuf_printf(bt, "t%d = t%d %s t%d ? t%d : t%d", acc, v, largest ? ">" : "<", acc, v, acc);
        if (is_float)
            textbuf_printf(bt, "; t%d_nan |= ISNAN(t%d)", acc, v);
    } else {
        textbuf_puts(bt, "if (");
        temp_name(bt, v);
        textbuf_puts(bt, e->reduce == KR_MAX ? " > " : " < ");
        temp_name(bt, acc);
        textbuf_puts(bt, " || ISNAN(");
        temp_name(bt, v);
        textbuf_puts(bt, ")) ");
        temp_name(bt, acc);
        textbuf_puts(bt, " = ");
        temp_name(bt, v);
    }
    if (!indexed)
        textbuf_puts(bt, ";");
    textbuf_puts(bt, "\n");
    TextBuf *t = &at->text;
    const char *vtype = kir_ctype(e->args[0]->dtype);
    if (staged) {
        line_start(pr, at);
        textbuf_printf(t, "%s t%d_vals[%lld];\n", vtype, acc, (long long)e->extent);
        line_start(pr, at);
        textbuf_puts(t, "#pragma omp simd\n");
    } else if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "%s t%d_best = ", kir_ctype(e->args[0]->dtype), acc);
        reduce_init(t, largest ? KR_MAX : KR_MIN, e->args[0]->dtype);
        textbuf_puts(t, ";\n");
        line_start(pr, at);
        textbuf_printf(t, "int64_t t%d%s = 0;\n", acc, at_suffix);
    } else {
        line_start(pr, at);
        textbuf_printf(t, "%s ", kir_ctype(e->dtype));
        temp_name(t, acc);
        textbuf_puts(t, " = ");
        reduce_init(t, e->reduce, e->dtype);
        textbuf_puts(t, ";\n");
    }
    bool flag_nan = simd && e->reduce != KR_SUM && is_float;
    if (flag_nan) {
        line_start(pr, at);
        textbuf_printf(t, "int t%d_nan = 0;\n", acc);
    }
    if (simd) {
        line_start(pr, at);
        textbuf_printf(t, "#pragma omp simd reduction(%s:t%d)",
                       e->reduce == KR_SUM ? "+" : largest ? "max" : "min", acc);
        if (flag_nan)
            textbuf_printf(t, " reduction(|:t%d_nan)", acc);
        textbuf_putc(t, '\n');
    }
    /* a reduction at the top of a block's unit (where every thread of the
     * block runs, so all reach its barriers): each thread a strided part */
    bool block = pr->block_threads > 0 && at->kind == SCOPE_ROOT;
    int lanes = pr->block_lanes;
    line_start(pr, at);
    textbuf_puts(t, "for (int64_t ");
    var_name(t, e->var);
    if (block && lanes > 1)
        textbuf_printf(t, " = threadIdx.x / %d; ", lanes);
    else
        textbuf_puts(t, block ? " = threadIdx.x; " : " = 0; ");
    var_name(t, e->var);
    textbuf_printf(t, " < %lld; ", (long long)e->extent);
    var_name(t, e->var);
    if (block)
        textbuf_printf(t, " += %d) {\n", pr->block_threads / lanes);
    else
        textbuf_puts(t, "++) {\n");
    textbuf_putn(t, bt->data, bt->len);
    line_start(pr, at);
    textbuf_puts(t, "}\n");
    if (block)
        print_block_combine(pr, at, e, acc);
    if (staged) {
        /* the first index of the extreme; a NaN wins and stays */
        line_start(pr, at);
        textbuf_printf(t, "%s t%d_best = ", vtype, acc);
        reduce_init(t, largest ? KR_MAX : KR_MIN, e->args[0]->dtype);
        textbuf_puts(t, ";\n");
        line_start(pr, at);
        textbuf_printf(t, "int64_t t%d%s = 0;\n", acc, at_suffix);
        line_start(pr, at);
        textbuf_printf(t, "for (int64_t k = 0; k < %lld; k++)\n", (long long)e->extent);
        line_start(pr, at);
        textbuf_printf(t, "    if (t%d_vals[k] %s t%d_best || (ISNAN(t%d_vals[k]) && !ISNAN(t%d_best))) "
                          "{ t%d_best = t%d_vals[k]; t%d%s = k; }\n",
                       acc, largest ? ">" : "<", acc, acc, acc, acc, acc, acc, at_suffix);
    }
    if (indexed && !is_index) {
        line_start(pr, at);
        textbuf_printf(t, "const %s t%d = t%d_best;\n", kir_ctype(e->dtype), acc, acc);
    }
    if (flag_nan) {
        line_start(pr, at);
        textbuf_printf(t, "if (t%d_nan) t%d = NAN;\n", acc, acc);
    }
    scope_release(&body);
}

static bool twins(const KExpr *a, const KExpr *b)
{
    bool a_index = a->reduce == KR_ARGMAX || a->reduce == KR_ARGMIN;
    bool b_index = b->reduce == KR_ARGMAX || b->reduce == KR_ARGMIN;
    bool a_max = a->reduce == KR_ARGMAX || a->reduce == KR_MAX;
    bool b_max = b->reduce == KR_ARGMAX || b->reduce == KR_MAX;
    return a->kind == KX_REDUCE && b->kind == KX_REDUCE && a_index != b_index && a_max == b_max &&
           (a->reduce == KR_MAX || a->reduce == KR_MIN || a_index) &&
           (b->reduce == KR_MAX || b->reduce == KR_MIN || b_index) && a->var == b->var &&
           a->args[0] == b->args[0];
}

static bool has_index_twin(const Printer *pr, const KExpr *e)
{
    for (int i = 0; i < pr->nindexed; i++)
        if (twins(e, pr->indexed[i]))
            return true;
    return false;
}

/* e's twin already computed where cur sees it: e's temporary is read off
 * that loop's (its best value, or its index). */
static bool emit_from_twin(Printer *pr, Scope *cur, Scope *at, const KExpr *e, int temp)
{
    for (const Scope *s = cur; s; s = s->parent)
        for (int i = 0; i < s->ndone; i++) {
            const KExpr *d = s->done[i];
            if (!twins(e, d))
                continue;
            bool e_index = e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN;
            line_start(pr, at);
            textbuf_printf(&at->text, "const %s ", kir_ctype(e->dtype));
            temp_name(&at->text, temp);
            textbuf_printf(&at->text, " = t%d%s;\n", s->temps[i], e_index ? "_at" : "_best");
            return true;
        }
    return false;
}


static void emit_select(Printer *pr, Scope *at, const KExpr *e, int result)
{
    TextBuf *t = &at->text;
    line_start(pr, at);
    textbuf_printf(t, "%s ", kir_ctype(e->dtype));
    temp_name(t, result);
    textbuf_puts(t, ";\n");
    line_start(pr, at);
    textbuf_puts(t, "if (");
    for (int i = 0; i < e->ntests; i++) {
        if (i)
            textbuf_puts(t, " && ");
        print_test(t, &e->tests[i], pr->narrow);
    }
    textbuf_puts(t, ") {\n");
    for (int arm = 0; arm < 2; arm++) {
        Scope s;
        scope_init(&s, SCOPE_BRANCH, -1, at);
        int v = emit(pr, &s, e->args[arm]);
        line_start(pr, &s);
        temp_name(&s.text, result);
        textbuf_puts(&s.text, " = ");
        temp_name(&s.text, v);
        textbuf_puts(&s.text, ";\n");
        textbuf_putn(t, s.text.data, s.text.len);
        scope_release(&s);
        line_start(pr, at);
        textbuf_puts(t, arm == 0 ? "} else {\n" : "}\n");
    }
}

/* 0 when the variables' ranges make every test of select e hold, 1 when
 * they make one fail, -1 when the loop must test. */
static int decided_arm(const Printer *pr, const KExpr *e)
{
    bool all = true;
    for (int i = 0; i < e->ntests; i++) {
        const KTest *x = &e->tests[i];
        int64_t lo, hi;
        if (!kidx_bounds(x->x, pr->vlo, pr->vhi, &lo, &hi)) {
            all = false;
            continue;
        }
        if (hi < x->lo || lo >= x->hi)
            return 1;
        if (!(lo >= x->lo && hi < x->hi && (x->step <= 1 || (lo == hi && (lo - x->lo) % x->step == 0))))
            all = false;
    }
    return all ? 0 : -1;
}

/* Makes e's temporary visible in cur: computes it in its home scope unless
 * a scope on the way already has. */
static int emit(Printer *pr, Scope *cur, const KExpr *e)
{
    int done = find_done(cur, e);
    if (done >= 0)
        return done;
    if (e->kind == KX_SELECT) {
        int arm = decided_arm(pr, e);
        if (arm >= 0)
            return emit(pr, cur, e->args[arm]);
    }
    Scope *at = home(cur, e->vars);
    int temp = pr->next_temp++;
    if (e->kind == KX_SELECT || e->kind == KX_REDUCE) {
        if (e->kind == KX_SELECT)
            emit_select(pr, at, e, temp);
        else if (!emit_from_twin(pr, cur, at, e, temp))
            emit_reduce(pr, at, e, temp);
        mark_done(at, e, temp);
        return temp;
    }
    int args[4] = {0};
    for (int i = 0; i < e->nargs; i++)
        args[i] = emit(pr, at, e->args[i]);
    TextBuf *t = &at->text;
    line_start(pr, at);
    textbuf_printf(t, "const %s ", kir_ctype(e->dtype));
    temp_name(t, temp);
    textbuf_puts(t, " = ");
    switch (e->kind) {
    case KX_LOAD:
        textbuf_printf(t, "in%d[", e->input);
        print_idx(t, e->at, pr->narrow);
        textbuf_putc(t, ']');
        break;
    case KX_CONST:
        print_const(t, e->dtype, e->c);
        break;
    case KX_SCALAR:
        textbuf_printf(t, e->dtype == DT_F64 ? "sf[%d]" : "si[%d]", e->input);
        break;
    case KX_INDEX:
        textbuf_printf(t, "(%s)(", kir_ctype(e->dtype));
        print_idx(t, e->at, pr->narrow);
        textbuf_putc(t, ')');
        break;
    case KX_CAST:
        if (e->dtype == DT_BOOL) {
            textbuf_putc(t, '(');
            temp_name(t, args[0]);
            textbuf_puts(t, " != 0)");
        } else {
            textbuf_printf(t, "(%s)", kir_ctype(e->dtype));
            temp_name(t, args[0]);
        }
        break;
    case KX_OP: {
        /* a result in another type than the computation: a cast, or for
         * bool a test (C warns on arithmetic converted to bool) */
        bool wrap = e->dtype != e->compute;
        if (wrap)
            textbuf_printf(t, e->dtype == DT_BOOL ? "((" : "(%s)(", kir_ctype(e->dtype));
        print_template(t, e, args);
        if (wrap)
            textbuf_puts(t, e->dtype == DT_BOOL ? ") != 0)" : ")");
        break;
    }
    default:
        break;
    }
    textbuf_puts(t, ";\n");
    mark_done(at, e, temp);
    return temp;
}

/* ---------------------------------------------------------------- kernels */

static int64_t numel(const KOutput *o)
{
    int64_t n = 1;
    for (int d = 0; d < o->rank; d++)
        n *= o->sizes[d];
    return n;
}

static bool same_shape(const KOutput *a, const KOutput *b)
{
    if (a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d])
            return false;
    return true;
}

/* The element type a C kernel reads and writes a tensor's memory through.
 * Bool tensors go through uint8_t pointers: GCC 12 vectorizes no loop that
 * loads or stores through a bool pointer ("no vectype"), and a bool tensor
 * holds only the bytes 0 and 1, so every load is bound to a bool temporary
 * (emit's `const bool tN = inK[...]`) and converts exactly. mask_crop's
 * crop kernel ran in 5.3 ms with bool pointers and 3.0 ms, the memory's
 * speed, with uint8_t ones (400 masks of 138 x 138, one core). */
static const char *memory_ctype(TensorDType dt)
{
    return dt == DT_BOOL ? "uint8_t" : kir_ctype(dt);
}

static void print_inputs(TextBuf *t, const KKernel *k, const char *indent, KirTarget target)
{
    const char *restrict_kw = target == KIR_TARGET_C ? "restrict" : "__restrict__";
    for (int i = 0; i < k->ninputs; i++) {
        if (k->inputs[i].kind != KIN_TENSOR)
            continue;
        const char *ctype = target == KIR_TARGET_C ? memory_ctype(k->inputs[i].dtype) : kir_ctype(k->inputs[i].dtype);
        textbuf_printf(t, "%sconst %s *%s in%d = (const %s *)in[%d];\n%s(void)in%d;\n", indent, ctype, restrict_kw,
                       i, ctype, i, indent, i);
    }
}

/* The row-major linear index of the loop variables (a size-1 dim is 0). */
static void print_linear(TextBuf *t, const KOutput *out)
{
    int first = -1;
    for (int d = 0; d < out->rank; d++)
        if (out->sizes[d] > 1) {
            first = d;
            break;
        }
    if (first < 0) {
        textbuf_puts(t, "0");
        return;
    }
    for (int d = first + 1; d < out->rank; d++)
        if (out->sizes[d] > 1)
            textbuf_putc(t, '(');
    textbuf_printf(t, "i%d", first);
    int64_t scale = 1;
    for (int d = first + 1; d < out->rank; d++) {
        scale *= out->sizes[d];
        if (out->sizes[d] > 1) {
            textbuf_printf(t, " * %lld + i%d)", (long long)scale, d);
            scale = 1;
        }
    }
    if (scale > 1)
        textbuf_printf(t, " * %lld", (long long)scale);
}

/* Where the tests of selects on variable v (v, or v + c) split its range:
 * the sorted cut points inside (0, size), at most max of them. */
typedef struct Cuts {
    int64_t at[KIR_MAX_CUTS];
    int n;
} Cuts;

/* The expressions a walk of a DAG has met (each is visited once). */
typedef struct Seen {
    const KExpr **items;
    int n, cap;
} Seen;

static bool first_visit(Seen *s, const KExpr *e)
{
    for (int i = 0; i < s->n; i++)
        if (s->items[i] == e)
            return false;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->items = xrealloc(s->items, (size_t)s->cap * sizeof *s->items);
    }
    s->items[s->n++] = e;
    return true;
}

static void collect_indexed(Printer *pr, Seen *seen, const KExpr *e)
{
    if (!first_visit(seen, e))
        return;
    if (e->kind == KX_REDUCE && (e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN)) {
        if (pr->nindexed == pr->capindexed) {
            pr->capindexed = pr->capindexed ? 2 * pr->capindexed : 8;
            pr->indexed = xrealloc(pr->indexed, (size_t)pr->capindexed * sizeof *pr->indexed);
        }
        pr->indexed[pr->nindexed++] = e;
    }
    for (int i = 0; i < e->nargs; i++)
        collect_indexed(pr, seen, e->args[i]);
}

static void add_cut(Cuts *c, int64_t at, int64_t size)
{
    if (at <= 0 || at >= size)
        return;
    for (int i = 0; i < c->n; i++)
        if (c->at[i] == at)
            return;
    if (c->n == KIR_MAX_CUTS) {
        c->n = KIR_MAX_CUTS + 1;    /* too many: no split */
        return;
    }
    int i = c->n++;
    for (; i > 0 && c->at[i - 1] > at; i--)
        c->at[i] = c->at[i - 1];
    c->at[i] = at;
}

static void find_cuts(Cuts *c, Seen *seen, const KExpr *e, int v, int64_t size)
{
    if (c->n > KIR_MAX_CUTS || !((e->vars >> v) & 1) || !first_visit(seen, e))
        return;
    for (int i = 0; e->kind == KX_SELECT && i < e->ntests; i++) {
        const KTest *x = &e->tests[i];
        int64_t shift = 0;
        const KIdx *base = x->x;
        if (base->kind == KI_ADD && base->b->kind == KI_CONST) {
            shift = base->b->c;
            base = base->a;
        }
        if (base->kind == KI_VAR && base->var == v && x->step <= 1) {
            add_cut(c, x->lo - shift, size);
            add_cut(c, x->hi - shift, size);
        }
    }
    for (int i = 0; i < e->nargs; i++)
        find_cuts(c, seen, e->args[i], v, size);
}

static void reduce_extents(Seen *seen, const KExpr *e, int64_t *extent)
{
    if (!first_visit(seen, e))
        return;
    if (e->kind == KX_REDUCE && e->var < KIR_MAX_VARS)
        extent[e->var] = e->extent;
    for (int i = 0; i < e->nargs; i++)
        reduce_extents(seen, e->args[i], extent);
}

static int64_t node_work(Seen *seen, const KExpr *e, const int64_t *extent)
{
    if (!first_visit(seen, e))
        return 0;
    int64_t w = 1;
    for (int v = 0; v < KIR_MAX_VARS; v++)
        if ((e->vars >> v) & 1 && extent[v] > 0)
            w = w > INT64_MAX / extent[v] ? INT64_MAX : w * extent[v];
    for (int i = 0; i < e->nargs; i++) {
        int64_t a = node_work(seen, e->args[i], extent);
        w = w > INT64_MAX - a ? INT64_MAX : w + a;
    }
    return w;
}

/* The work of outputs os[0..nos) (one shape), roughly: every expression
 * node once per point of the loops it depends on (the output's dims, its
 * reductions' own), so a column's mean under a [rows, cols] output counts
 * cols x rows, not cols x rows x rows: what decides whether a nest is
 * worth OpenMP's fork and join. */
static int64_t outputs_work(const KKernel *k, const int *os, int nos)
{
    int64_t extent[KIR_MAX_VARS];
    const KOutput *out = &k->outputs[os[0]];
    for (int v = 0; v < KIR_MAX_VARS; v++)
        extent[v] = v < out->rank ? out->sizes[v] : 1;
    Seen seen = {0};
    for (int j = 0; j < nos; j++)
        reduce_extents(&seen, k->outputs[os[j]].value, extent);
    seen.n = 0;
    int64_t w = 0;
    for (int j = 0; j < nos; j++)
        w += node_work(&seen, k->outputs[os[j]].value, extent) + numel(out);
    free(seen.items);
    return w;
}

/* The output dims the reductions in e depend on (outside their own loop). */
static uint64_t reduction_vars(Seen *seen, const KExpr *e)
{
    if (!first_visit(seen, e))
        return 0;
    uint64_t m = e->kind == KX_REDUCE ? e->vars & ((1ull << KIR_MAX_RANK) - 1) : 0;
    for (int i = 0; i < e->nargs; i++)
        m |= reduction_vars(seen, e->args[i]);
    return m;
}

static bool reduces(Seen *seen, const KExpr *e)
{
    if (!first_visit(seen, e))
        return false;
    if (e->kind == KX_REDUCE)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (reduces(seen, e->args[i]))
            return true;
    return false;
}

static bool has_reduce(const KOutput *o)
{
    Seen seen = {0};
    bool r = reduces(&seen, o->value);
    free(seen.items);
    return r;
}

/* A parallel loop: the region, the thread's span for --trace (the
 * TSSA_THREAD_* hooks of the prelude), then the shared-out loop, which must
 * follow; parallel_close ends the region after it. nowait: a thread's span
 * ends when its own share does, not at the others'. */
static void parallel_open(TextBuf *t, int indent, int collapse)
{
    textbuf_spaces(t, indent);
    textbuf_puts(t, "#pragma omp parallel\n");
    textbuf_spaces(t, indent);
    textbuf_puts(t, "{\n");
    textbuf_spaces(t, indent);
    textbuf_puts(t, "TSSA_THREAD_BEGIN();\n");
    textbuf_spaces(t, indent);
    textbuf_puts(t, "#pragma omp for schedule(static) nowait");
    if (collapse > 1)
        textbuf_printf(t, " collapse(%d)", collapse);
    textbuf_putc(t, '\n');
}

static void parallel_close(TextBuf *t, int indent)
{
    textbuf_spaces(t, indent);
    textbuf_puts(t, "TSSA_THREAD_END();\n");
    textbuf_spaces(t, indent);
    textbuf_puts(t, "}\n");
}

/* ------------------------------------------------- reductions across rows */

enum { KIR_COLUMN_TILE = 64 };

/* Whether e's loads step by 1 (or 0) along output variable v, and at least
 * one steps by more along reduction variable r: the reduction runs down a
 * column of memory. Selects and nested reductions: no. */
static bool column_loads(Seen *seen, const KExpr *e, int v, int r, bool *strided)
{
    if (!first_visit(seen, e))
        return true;
    if (e->kind == KX_SELECT || e->kind == KX_REDUCE)
        return false;
    if (e->kind == KX_LOAD) {
        int64_t sv = kidx_stride(e->at, v), sr = kidx_stride(e->at, r);
        if (sv != 0 && sv != 1)
            return false;
        if (sr == INT64_MIN || sr > 1 || sr < 0)
            *strided = true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!column_loads(seen, e->args[i], v, r, strided))
            return false;
    return true;
}

/* Outputs that are each one reduction over the same variable r, along
 * rows of memory r-major (an FCOS score map [classes, points] reduced over
 * the classes per point): a loop over points with r inside reads each row
 * at a stride and vectorizes nowhere. Interchanged, r runs outside, a tile
 * of consecutive points inside, with one accumulator per point (in r's
 * order, so the result is the plain loop's, bit for bit):
 *     for tile:  acc[k] = init
 *                for r:  for k in tile (simd):  acc[k] = update(acc[k], body(tile + k, r))
 *                out[tile + k] = acc[k]
 * False, printing nothing, when the outputs are not of that form. */
static bool print_column_reduction_c(Printer *pr, TextBuf *t, const int *os, int nos, int v)
{
    enum { MAX_COLUMN_OUTPUTS = 16 };   /* accumulators per tile on the stack */
    const KOutput *out = &pr->k->outputs[os[0]];
    const KExpr *first = out->value;
    if (first->kind != KX_REDUCE || nos > MAX_COLUMN_OUTPUTS)
        return false;
    int r = first->var;
    bool strided = false;
    Seen seen = {0};
    bool ok = true;
    for (int j = 0; ok && j < nos; j++) {
        const KExpr *e = pr->k->outputs[os[j]].value;
        ok = e->kind == KX_REDUCE && e->var == r && e->extent == first->extent &&
             e->dtype == pr->k->outputs[os[j]].dtype && e->dtype != DT_BOOL &&
             ((e->args[0]->vars >> v) & 1) &&
             column_loads(&seen, e->args[0], v, r, &strided);
    }
    free(seen.items);
    if (!ok || !strided)
        return false;
    int64_t n = out->sizes[v];
    textbuf_puts(t, "    {\n");
    for (int j = 0; j < nos; j++) {
        const char *ctype = memory_ctype(pr->k->outputs[os[j]].dtype);
        textbuf_printf(t, "        %s *restrict out%d = (%s *)out[%d];\n", ctype, os[j], ctype, os[j]);
    }
    for (int w = 0; w < KIR_MAX_VARS; w++)
        pr->vlo[w] = 0, pr->vhi[w] = -1;
    pr->vhi[v] = n - 1;
    pr->vhi[r] = first->extent - 1;
    Scope root, rows, cols;
    scope_init(&root, SCOPE_ROOT, -1, NULL);
    scope_init(&rows, SCOPE_REDUCE, r, &root);
    scope_init(&cols, SCOPE_LOOP, v, &rows);
    pr->indent = 3;
    int values[MAX_COLUMN_OUTPUTS];
    for (int j = 0; j < nos; j++)
        values[j] = emit(pr, &cols, pr->k->outputs[os[j]].value->args[0]);
    textbuf_putn(t, root.text.data, root.text.len);
    bool parallel = outputs_work(pr->k, os, nos) >= KIR_PARALLEL_MIN;
    if (parallel)
        parallel_open(t, 8, 1);
    textbuf_printf(t, "        for (int64_t i%d_tile = 0; i%d_tile < %lld; i%d_tile += %d) {\n", v, v,
                   (long long)n, v, KIR_COLUMN_TILE);
    textbuf_printf(t, "            const int64_t i%d_n = %lld - i%d_tile < %d ? %lld - i%d_tile : %d;\n",
                   v, (long long)n, v, KIR_COLUMN_TILE, (long long)n, v, KIR_COLUMN_TILE);
    for (int j = 0; j < nos; j++) {
        const KExpr *e = pr->k->outputs[os[j]].value;
        bool indexed = e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN;
        bool largest = e->reduce == KR_ARGMAX || e->reduce == KR_MAX;
        TensorDType bt = e->args[0]->dtype;
        textbuf_printf(t, "            %s acc%d[%d];\n", kir_ctype(indexed ? bt : e->dtype), j,
                       KIR_COLUMN_TILE);
        if (indexed)
            textbuf_printf(t, "            int64_t at%d[%d];\n", j, KIR_COLUMN_TILE);
        textbuf_printf(t, "            for (int64_t k = 0; k < i%d_n; k++) {\n                acc%d[k] = ", v, j);
        reduce_init(t, indexed ? (largest ? KR_MAX : KR_MIN) : e->reduce, indexed ? bt : e->dtype);
        textbuf_puts(t, ";\n");
        if (indexed)
            textbuf_printf(t, "                at%d[k] = 0;\n", j);
        textbuf_puts(t, "            }\n");
    }
    textbuf_printf(t, "            for (int64_t r%d = 0; r%d < %lld; r%d++) {\n", r, r,
                   (long long)first->extent, r);
    textbuf_putn(t, rows.text.data, rows.text.len);
    textbuf_printf(t, "                #pragma omp simd\n"
                      "                for (int64_t k = 0; k < i%d_n; k++) {\n"
                      "                    const int64_t i%d = i%d_tile + k;\n", v, v, v);
    textbuf_putn(t, cols.text.data, cols.text.len);
    for (int j = 0; j < nos; j++) {
        const KExpr *e = pr->k->outputs[os[j]].value;
        bool largest = e->reduce == KR_ARGMAX || e->reduce == KR_MAX;
        if (e->reduce == KR_SUM) {
            textbuf_printf(t, "                    acc%d[k] += t%d;\n", j, values[j]);
            continue;
        }
        /* the first extreme; a NaN wins and stays (as the row loops do) */
        textbuf_printf(t, "                    const bool better%d = t%d %s acc%d[k] || (ISNAN(t%d) && !ISNAN(acc%d[k]));\n"
                          "                    acc%d[k] = better%d ? t%d : acc%d[k];\n",
                       j, values[j], largest ? ">" : "<", j, values[j], j, j, j, values[j], j);
        if (e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN)
            textbuf_printf(t, "                    at%d[k] = better%d ? r%d : at%d[k];\n", j, j, r, j);
    }
    textbuf_puts(t, "                }\n            }\n");
    textbuf_printf(t, "            for (int64_t k = 0; k < i%d_n; k++) {\n"
                      "                const int64_t i%d = i%d_tile + k;\n", v, v, v);
    for (int j = 0; j < nos; j++) {
        const KExpr *e = pr->k->outputs[os[j]].value;
        bool indexed = e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN;
        textbuf_printf(t, "                out%d[", os[j]);
        print_linear(t, &pr->k->outputs[os[j]]);
        textbuf_printf(t, "] = %s%d[k];\n", indexed ? "at" : "acc", j);
    }
    textbuf_puts(t, "            }\n        }\n");
    if (parallel)
        parallel_close(t, 8);
    textbuf_puts(t, "    }\n");
    scope_release(&cols);
    scope_release(&rows);
    scope_release(&root);
    return true;
}

/* The loop nest of outputs of one shape (C), `os[0..nos)`: a loop per dim
 * of size > 1, statements at the outermost level they can go, so what the
 * outputs share (a max's value and its index, a softmax's row sums) is
 * computed once per element; the outer loops run in parallel (collapsed
 * until there are enough iterations to share) when the work is big. The
 * innermost loop is split where the tests of region selects on its
 * variable change (a box decoding's channels 0-1, 2-3 and 4-84), so each
 * piece runs without a branch and vectorizes. */
static void print_outputs_c(Printer *pr, TextBuf *t, const int *os, int nos)
{
    const KOutput *out = &pr->k->outputs[os[0]];
    if (numel(out) == 0) {
        for (int j = 0; j < nos; j++)
            textbuf_printf(t, "    /* output %d has no elements */\n", os[j]);
        return;
    }
    /* Loops over the dims a reduction depends on go outside (a column mean
     * under a [rows, cols] output: cols outer, so the mean is computed once
     * per column, not once per element). */
    Seen seen = {0};
    uint64_t reduced_by = 0;
    for (int j = 0; j < nos; j++)
        reduced_by |= reduction_vars(&seen, pr->k->outputs[os[j]].value);
    seen.n = 0;
    int dims[KIR_MAX_RANK], nloops = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < out->rank; d++)
            if (out->sizes[d] > 1 && (((reduced_by >> d) & 1) == (pass == 0)))
                dims[nloops++] = d;
    if (nloops == 1 && print_column_reduction_c(pr, t, os, nos, dims[0])) {
        free(seen.items);
        return;
    }
    textbuf_puts(t, "    {\n");
    for (int j = 0; j < nos; j++) {
        const char *ctype = memory_ctype(pr->k->outputs[os[j]].dtype);
        textbuf_printf(t, "        %s *restrict out%d = (%s *)out[%d];\n", ctype, os[j], ctype, os[j]);
    }
    for (int v = 0; v < KIR_MAX_VARS; v++) {
        pr->vlo[v] = 0;
        pr->vhi[v] = v < out->rank ? out->sizes[v] - 1 : -1;
    }
    Scope levels[KIR_MAX_RANK + 1];
    scope_init(&levels[0], SCOPE_ROOT, -1, NULL);
    for (int l = 0; l + 1 < nloops; l++)
        scope_init(&levels[l + 1], SCOPE_LOOP, dims[l], &levels[l]);
    pr->indent = 2;
    bool parallel = outputs_work(pr->k, os, nos) >= KIR_PARALLEL_MIN;
    /* the innermost loop, in pieces (one piece when nothing splits it) */
    TextBuf inner_text = {0};
    Scope *around = &levels[nloops > 0 ? nloops - 1 : 0];
    int v = nloops > 0 ? dims[nloops - 1] : -1;
    Cuts cuts = {.n = 0};
    for (int j = 0; v >= 0 && j < nos; j++)
        find_cuts(&cuts, &seen, pr->k->outputs[os[j]].value, v, out->sizes[v]);
    free(seen.items);
    if (cuts.n > KIR_MAX_CUTS)
        cuts.n = 0;
    for (int piece = 0; piece <= cuts.n; piece++) {
        int64_t a = v < 0 || piece == 0 ? 0 : cuts.at[piece - 1];
        int64_t b = v < 0 ? 1 : piece == cuts.n ? out->sizes[v] : cuts.at[piece];
        Scope seg;
        if (v >= 0) {
            scope_init(&seg, SCOPE_LOOP, v, around);
            pr->vlo[v] = a;
            pr->vhi[v] = b - 1;
        }
        Scope *in = v >= 0 ? &seg : around;
        for (int j = 0; j < nos; j++) {
            int value = emit(pr, in, pr->k->outputs[os[j]].value);
            line_start(pr, in);
            textbuf_printf(&in->text, "out%d[", os[j]);
            print_linear(&in->text, out);
            textbuf_puts(&in->text, "] = ");
            temp_name(&in->text, value);
            textbuf_puts(&in->text, ";\n");
        }
        if (v < 0)
            break;
        if (nloops == 1 && parallel)
            parallel_open(&inner_text, 4 * (1 + nloops), 1);
        textbuf_spaces(&inner_text, 4 * (1 + nloops));
        textbuf_printf(&inner_text, "for (int64_t i%d = %lld; i%d < %lld; i%d++) {\n", v,
                       (long long)a, v, (long long)b, v);
        textbuf_putn(&inner_text, seg.text.data, seg.text.len);
        textbuf_spaces(&inner_text, 4 * (1 + nloops));
        textbuf_puts(&inner_text, "}\n");
        if (nloops == 1 && parallel)
            parallel_close(&inner_text, 4 * (1 + nloops));
        scope_release(&seg);
    }
    textbuf_putn(t, levels[0].text.data, levels[0].text.len);
    int collapse = 1;
    int64_t iters = nloops > 1 ? out->sizes[dims[0]] : 1;
    while (collapse < nloops - 1 && iters < 64 && levels[collapse].text.len == 0) {
        iters *= out->sizes[dims[collapse]];
        collapse++;
    }
    for (int l = 0; l + 1 < nloops; l++) {
        int d = dims[l];
        if (l == 0 && parallel)
            parallel_open(t, 8, collapse);
        textbuf_spaces(t, 4 * (2 + l));
        textbuf_printf(t, "for (int64_t i%d = 0; i%d < %lld; i%d++) {\n", d, d,
                       (long long)out->sizes[d], d);
        textbuf_putn(t, levels[l + 1].text.data, levels[l + 1].text.len);
    }
    textbuf_putn(t, inner_text.data, inner_text.len);
    free(inner_text.data);
    for (int l = nloops - 2; l >= 0; l--) {
        textbuf_spaces(t, 4 * (2 + l));
        textbuf_puts(t, "}\n");
        if (l == 0 && parallel)
            parallel_close(t, 8);
    }
    textbuf_puts(t, "    }\n");
    for (int l = 0; l < nloops; l++)
        scope_release(&levels[l]);
    if (nloops == 0)
        scope_release(&levels[0]);
}

/* Whether text uses the identifier name (not as part of a longer one). */
static bool uses_name(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool starts = p == text || !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
                                     (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'));
        char c = p[n];
        bool ends = !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
        if (starts && ends)
            return true;
    }
    return false;
}

/* Whether output o's kernel gives each thread a row of its last dim: it
 * reduces, and not along that dim, so a reduction over the row (a softmax's
 * max and sum) is computed once per row instead of once per element. */
static bool cuda_per_row(const KOutput *out)
{
    int last = out->rank - 1;
    if (out->rank < 1 || out->sizes[last] < 2 || !has_reduce(out))
        return false;
    Seen seen = {0};
    uint64_t reduced_by = reduction_vars(&seen, out->value);
    free(seen.items);
    return !((reduced_by >> last) & 1);
}

/* The units of output o's kernel: its rows (cuda_per_row) or elements. */
static int64_t cuda_units(const KOutput *out)
{
    return cuda_per_row(out) ? numel(out) / out->sizes[out->rank - 1] : numel(out);
}

/* ---------------------------------------------------- block reductions (CUDA) */

/* A unit (row or element) goes to a block of threads when its reductions
 * are long: one thread looping over a 1,000-word vocabulary per row left
 * an H100's 132 SMs nearly idle (seq2seq: 256 rows, 256 threads). The rule
 * (kir_cuda_grid), on the unit's top-level reductions (those not inside
 * another's loop; a nested one runs whole in each thread, and its extent
 * counts in `values`: a sum over dims 0, 1 of [H, W, N] folds H x W):
 *   - rows: one folds at least KIR_BLOCK_MIN_EXTENT values and every load
 *     in every one reads consecutive (or the same) addresses along the
 *     reduced variable. A block per unit (row, or element of an output
 *     that is a reduction: `logits.max(dim=1)`) of pow2 >= values /
 *     KIR_BLOCK_PER_THREAD threads, clamped to [32, KIR_BLOCK_MAX] and to
 *     pow2 >= the outer extent (the loop that is split): each
 *     thread folds about 8 values or more before the tree, a warp at
 *     least, 256 at most (several blocks per SM); the block's threads read
 *     a row together, coalesced.
 *   - columns: otherwise, when the output is a reduction whose loads step
 *     by 0 or 1 along the output's last dim (a sum over the outer dims of
 *     [H, W, N], N kept): a block per KIR_BLOCK_LANES consecutive outputs,
 *     thread j computing output j % 32's part j / 32 of the reduction
 *     (parts as threads above, 2 to KIR_BLOCK_MAX / 32): a warp reads 32
 *     consecutive values, as one thread per output did, with the
 *     reduction split that many ways.
 *   - otherwise a thread per unit (a softmax over 8 classes: a block's
 *     barriers would cost more than the row; a reduction down columns of
 *     a per-row output).
 * Reductions of fewer than KIR_BLOCK_MIN_EXTENT values (empty ones among
 * them) never take a block. */
enum { KIR_CUDA_BLOCK = 256, KIR_BLOCK_MIN_EXTENT = 64, KIR_BLOCK_PER_THREAD = 8, KIR_BLOCK_MAX = 256,
       KIR_BLOCK_LANES = 32 };

/* Whether the loads of e read consecutive or equal addresses along var. */
static bool loads_along(Seen *seen, const KExpr *e, int var)
{
    if (!first_visit(seen, e))
        return true;
    if (e->kind == KX_LOAD) {
        int64_t step = kidx_stride(e->at, var);
        if (step != 0 && step != 1)
            return false;
    }
    for (int i = 0; i < e->nargs; i++)
        if (!loads_along(seen, e->args[i], var))
            return false;
    return true;
}

/* The top-level reductions of e, as the rule above sees them. */
typedef struct TopReductions {
    int64_t longest;            /* extent, 0 when there is none */
    int64_t values;             /* the most values one folds, its nested ones' included */
    int count;
    bool rows;                  /* all read along their own variable */
    bool columns;               /* all read along output variable `column` */
} TopReductions;

/* The values top-level reduction e folds, at most: its extent times the
 * most a reduction inside its loop folds (a sum over dims 0, 1: H x W).
 * Another top-level one its body reads (a softmax's max in its sum) runs
 * before the loop, not in it: not counted. */
static int64_t folded_values(Seen *seen, const KExpr *e, bool top)
{
    if (!first_visit(seen, e) || (!top && e->kind == KX_REDUCE && !(e->vars >> KIR_MAX_RANK)))
        return 1;
    int64_t inner = 1;
    for (int i = 0; i < e->nargs; i++) {
        int64_t x = folded_values(seen, e->args[i], false);
        inner = x > inner ? x : inner;
    }
    if (e->kind != KX_REDUCE)
        return inner;
    return e->extent > 0 && inner > INT64_MAX / e->extent ? INT64_MAX : e->extent * inner;
}

static void top_reductions(Seen *seen, const KExpr *e, int column, TopReductions *tr)
{
    if (!first_visit(seen, e))
        return;
    if (e->kind == KX_REDUCE && !(e->vars >> KIR_MAX_RANK)) {
        Seen loads = {0};
        tr->rows = tr->rows && loads_along(&loads, e->args[0], e->var);
        loads.n = 0;
        tr->columns = tr->columns && column >= 0 && loads_along(&loads, e->args[0], column);
        loads.n = 0;
        int64_t values = folded_values(&loads, e, true);
        free(loads.items);
        tr->longest = e->extent > tr->longest ? e->extent : tr->longest;
        tr->values = values > tr->values ? values : tr->values;
        tr->count++;
    }
    for (int i = 0; i < e->nargs; i++)
        top_reductions(seen, e->args[i], column, tr);
}

/* pow2 >= values / KIR_BLOCK_PER_THREAD in [least, most], and no more
 * than pow2 >= extent (the split is of the outermost loop: a sum over
 * [138, 138] has 138 parts to give) */
static int pow2_threads(const TopReductions *tr, int least, int most)
{
    int n = least;
    while (n < most && (int64_t)n * KIR_BLOCK_PER_THREAD < tr->values && n < tr->longest)
        n *= 2;
    return n;
}

static int cuda_writer(const KKernel *k, int o);

KirCudaGrid kir_cuda_grid(const KKernel *k, int o)
{
    const KOutput *out = &k->outputs[o];
    if (numel(out) == 0 || cuda_writer(k, o) != o)
        return (KirCudaGrid){.blocks = 0, .lanes = 1, .block_threads = KIR_CUDA_BLOCK};  /* nothing of its own */
    int64_t units = cuda_units(out);
    bool per_row = cuda_per_row(out);
    int column = -1;        /* the output's last dim of size > 1 */
    for (int d = 0; d < out->rank; d++)
        if (out->sizes[d] > 1)
            column = d;
    TopReductions tr = {.longest = 0, .values = 0, .count = 0, .rows = true, .columns = !per_row};
    if (has_reduce(out)) {
        Seen seen = {0};
        top_reductions(&seen, out->value, column, &tr);
        free(seen.items);
    }
    bool long_enough = tr.values >= KIR_BLOCK_MIN_EXTENT && tr.longest >= 2;
    if (long_enough && tr.rows && units <= INT32_MAX)
        return (KirCudaGrid){.blocks = units, .lanes = 1, .cooperative = true,
                             .block_threads = pow2_threads(&tr, 32, KIR_BLOCK_MAX)};
    /* a column block's tree holds a value and an index per thread and
     * reduction in shared memory: within 32 KiB of the 48 a block has */
    int column_threads = KIR_BLOCK_LANES * pow2_threads(&tr, 2, KIR_BLOCK_MAX / KIR_BLOCK_LANES);
    if (long_enough && tr.columns && (units + KIR_BLOCK_LANES - 1) / KIR_BLOCK_LANES <= INT32_MAX &&
        (int64_t)tr.count * column_threads * 16 <= 32 * 1024)
        return (KirCudaGrid){.blocks = (units + KIR_BLOCK_LANES - 1) / KIR_BLOCK_LANES, .lanes = KIR_BLOCK_LANES,
                             .cooperative = true, .block_threads = column_threads};
    return (KirCudaGrid){.blocks = (units + KIR_CUDA_BLOCK - 1) / KIR_CUDA_BLOCK, .lanes = 1,
                         .block_threads = KIR_CUDA_BLOCK, .cooperative = false};
}

/* How two parts of reduction e combine into v (and vi): the sequential
 * loop's results, whatever the order: a NaN wins (and the first NaN's
 * index), among equal extremes the lowest index (a thread with no values
 * holds the initial value at index 0, which only a row all of that value
 * could pick: the sequential loop's 0 too). Symmetric, so two threads
 * that combine each other's parts hold the same result, bit for bit
 * (float addition commutes). */
static void print_combine(TextBuf *t, const KExpr *e, bool indexed, const char *v, const char *vi,
                          const char *o, const char *oi)
{
    bool largest = e->reduce == KR_ARGMAX || e->reduce == KR_MAX;
    if (e->reduce == KR_SUM)
        textbuf_printf(t, "%s += %s;\n", v, o);
    else if (!indexed)
        textbuf_printf(t, "if (%s %s %s || ISNAN(%s)) %s = %s;\n", o, largest ? ">" : "<", v, o, v, o);
    else
        textbuf_printf(t, "if (%s %s %s || (ISNAN(%s) && !ISNAN(%s)) || ((%s == %s || (ISNAN(%s) && ISNAN(%s))) && "
                          "%s < %s)) { %s = %s; %s = %s; }\n",
                       o, largest ? ">" : "<", v, o, v, o, v, o, v, oi, vi, v, o, vi, oi);
}

/* A warp shuffle of value v of type dt (CUDA has none for bool and the
 * small integers: through int). */
static void print_shuffle(TextBuf *t, TensorDType dt, const char *v, const char *lane_mask)
{
    bool small = dt == DT_BOOL || dt == DT_U8 || dt == DT_I8 || dt == DT_I16;
    if (small)
        textbuf_printf(t, "(%s)__shfl_xor_sync(0xffffffffu, (int)%s, %s)", kir_ctype(dt), v, lane_mask);
    else
        textbuf_printf(t, "__shfl_xor_sync(0xffffffffu, %s, %s)", v, lane_mask);
}

/* One butterfly over the lanes of each warp: after it, every lane holds
 * the combination of its aligned group of 2 * first lanes. */
static void print_butterfly(Printer *pr, Scope *at, const KExpr *e, bool indexed, TensorDType vt,
                            const char *value, const char *index, int first)
{
    TextBuf *t = &at->text;
    line_start(pr, at);
    textbuf_printf(t, "for (int m = %d; m > 0; m >>= 1) {\n", first);
    line_start(pr, at);
    textbuf_printf(t, "    const %s o = ", kir_ctype(vt));
    print_shuffle(t, vt, value, "m");
    textbuf_puts(t, ";\n");
    if (indexed) {
        line_start(pr, at);
        textbuf_puts(t, "    const int64_t oi = ");
        print_shuffle(t, DT_I64, index, "m");
        textbuf_puts(t, ";\n");
    }
    line_start(pr, at);
    textbuf_puts(t, "    ");
    print_combine(t, e, indexed, value, index, "o", "oi");
    line_start(pr, at);
    textbuf_puts(t, "}\n");
}

/* The accumulator a thread folded reduction e into (emit_reduce's names):
 * t<acc>, or for a max with its index or an argmax, the value t<acc>_best
 * and the index t<acc>_at (t<acc> itself for argmax / argmin). */
typedef struct Accumulator {
    bool indexed;               /* a value and its index travel together */
    TensorDType vt;             /* the value's type */
    char value[40], index[40];
} Accumulator;

static Accumulator accumulator_of(const Printer *pr, const KExpr *e, int acc)
{
    bool is_index = e->reduce == KR_ARGMAX || e->reduce == KR_ARGMIN;
    Accumulator a = {.indexed = is_index || has_index_twin(pr, e)};
    a.vt = a.indexed ? e->args[0]->dtype : e->dtype;
    snprintf(a.value, sizeof a.value, a.indexed ? "t%d_best" : "t%d", acc);
    snprintf(a.index, sizeof a.index, is_index ? "t%d" : "t%d_at", acc);
    return a;
}

/* After the block's threads have each folded their part of reduction e
 * into t<acc> (an index reduction: t<acc>_best and its index), the block
 * combines the parts and every thread gets the result.
 *   rows (one unit per block): a butterfly of warp shuffles in each warp,
 *     then (several warps) lane 0 of each stores its warp's result in
 *     shared memory, one barrier, and every lane reads warp lane % nwarps's
 *     and a butterfly over nwarps lanes combines them: every thread ends
 *     with the same value (print_combine is symmetric). No barrier at all
 *     for a one-warp block.
 *   columns (32 units per block, part j / 32 of unit j % 32): a tree over
 *     shared memory, halving the parts each step, a barrier between steps.
 * Sums add in the butterfly's or tree's order (float sums differ in the
 * last bits from a sequential loop, as PyTorch's own do). Each reduction
 * has its own shared arrays, written once per block, so no barrier is
 * needed before them. The shim runs the shuffles as exchanges between
 * barriers (cuda_emulated.c): every thread of the block runs them here,
 * the same number of times. */
static void print_block_combine(Printer *pr, Scope *at, const KExpr *e, int acc)
{
    if (pr->block_lanes == 1) {
        print_block_combine_warps(pr, at, e, acc);
        return;
    }
    TextBuf *t = &at->text;
    int n = pr->block_threads;
    Accumulator a = accumulator_of(pr, e, acc);
    bool indexed = a.indexed;
    const char *vtype = kir_ctype(a.vt), *value = a.value, *index = a.index;
    line_start(pr, at);
    textbuf_printf(t, "__shared__ %s t%d_part[%d];\n", vtype, acc, n);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "__shared__ int64_t t%d_part_at[%d];\n", acc, n);
    }
    line_start(pr, at);
    textbuf_printf(t, "t%d_part[threadIdx.x] = %s;\n", acc, value);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "t%d_part_at[threadIdx.x] = %s;\n", acc, index);
    }
    line_start(pr, at);
    textbuf_puts(t, "__syncthreads();\n");
    line_start(pr, at);
    int lanes = pr->block_lanes;
    textbuf_printf(t, "for (unsigned s = %d; s >= %d; s >>= 1) {\n", n / 2, lanes);
    line_start(pr, at);
    textbuf_puts(t, "    if (threadIdx.x < s) {\n");
    line_start(pr, at);
    textbuf_printf(t, "        const %s o = t%d_part[threadIdx.x + s];\n", vtype, acc);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "        const int64_t oi = t%d_part_at[threadIdx.x + s];\n", acc);
    }
    char v[40], vi[40];
    snprintf(v, sizeof v, "t%d_part[threadIdx.x]", acc);
    snprintf(vi, sizeof vi, "t%d_part_at[threadIdx.x]", acc);
    line_start(pr, at);
    textbuf_puts(t, "        ");
    print_combine(t, e, indexed, v, vi, "o", "oi");
    line_start(pr, at);
    textbuf_puts(t, "    }\n");
    line_start(pr, at);
    textbuf_puts(t, "    __syncthreads();\n");
    line_start(pr, at);
    textbuf_puts(t, "}\n");
    line_start(pr, at);
    textbuf_printf(t, "%s = t%d_part[threadIdx.x %% %d];\n", value, acc, lanes);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "%s = t%d_part_at[threadIdx.x %% %d];\n", index, acc, lanes);
    }
}

static void print_block_combine_warps(Printer *pr, Scope *at, const KExpr *e, int acc)
{
    TextBuf *t = &at->text;
    int warps = pr->block_threads / 32;
    Accumulator a = accumulator_of(pr, e, acc);
    bool indexed = a.indexed;
    TensorDType vt = a.vt;
    const char *value = a.value, *index = a.index;
    print_butterfly(pr, at, e, indexed, vt, value, index, 16);
    if (warps == 1)
        return;
    line_start(pr, at);
    textbuf_printf(t, "__shared__ %s t%d_part[%d];\n", kir_ctype(vt), acc, warps);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "__shared__ int64_t t%d_part_at[%d];\n", acc, warps);
    }
    line_start(pr, at);
    textbuf_printf(t, "if (threadIdx.x %% 32 == 0) {\n");
    line_start(pr, at);
    textbuf_printf(t, "    t%d_part[threadIdx.x / 32] = %s;\n", acc, value);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "    t%d_part_at[threadIdx.x / 32] = %s;\n", acc, index);
    }
    line_start(pr, at);
    textbuf_puts(t, "}\n");
    line_start(pr, at);
    textbuf_puts(t, "__syncthreads();\n");
    line_start(pr, at);
    textbuf_printf(t, "%s = t%d_part[threadIdx.x %% %d];\n", value, acc, warps);
    if (indexed) {
        line_start(pr, at);
        textbuf_printf(t, "%s = t%d_part_at[threadIdx.x %% %d];\n", index, acc, warps);
    }
    print_butterfly(pr, at, e, indexed, vt, value, index, warps / 2);
}

/* A column block's output: thread j computes output j % lanes of the
 * block's; past the end it computes the last output's (its barriers must
 * be reached) and writes nothing. */
static void print_block_columns(TextBuf *t, int lanes, int64_t units)
{
    textbuf_printf(t, "    const int64_t col = (int64_t)blockIdx.x * %d + threadIdx.x %% %d;\n"
                      "    const int64_t lin = col < %lldLL ? col : %lldLL;\n",
                   lanes, lanes, (long long)units, (long long)units - 1);
}

/* A block's loop over its row's elements: thread j takes j, j + n, ... */
static void print_block_row_loop(TextBuf *t, int var, int64_t size, int n)
{
    textbuf_printf(t, "    for (int64_t i%d = threadIdx.x; i%d < %lldLL; i%d += %d) {\n", var, var,
                   (long long)size, var, n);
}

/* The output whose CUDA kernel writes output o: the first output of o's
 * shape when o and it are elementwise (no reduction: one thread per
 * element, and the outputs' shared loads and math computed once), else o.
 * A kernel per output kept an LSTM's h and c, a box's columns, a loss's
 * terms as separate launches that each read the same inputs. */
static int cuda_writer(const KKernel *k, int o)
{
    const KOutput *out = &k->outputs[o];
    if (numel(out) == 0 || has_reduce(out))
        return o;
    for (int q = 0; q < o; q++)
        if (same_shape(&k->outputs[q], out) && !has_reduce(&k->outputs[q]))
            return q;
    return o;
}

/* ---------------------------------------------------------------- 32-bit indices */

/* Whether x and every part of it (the values C computes on the way) lie
 * in int32_t for all variable and parameter values. */
static bool idx_fits_int32(const KIdx *x, const int64_t *vlo, const int64_t *vhi, const int64_t *param_limit)
{
    int64_t lo, hi;
    if (!kidx_bounds_params(x, vlo, vhi, param_limit, &lo, &hi) || lo < INT32_MIN || hi > INT32_MAX)
        return false;
    switch (x->kind) {
    case KI_ADD:
        return idx_fits_int32(x->a, vlo, vhi, param_limit) && idx_fits_int32(x->b, vlo, vhi, param_limit);
    case KI_MUL: case KI_DIV: case KI_MOD:
        return idx_fits_int32(x->a, vlo, vhi, param_limit);
    default:
        return true;
    }
}

static bool select_arm_fits_int32(const KExpr *e, int arm, const int64_t *vlo, const int64_t *vhi,
                                  const int64_t *param_limit);

/* Whether every index expression under e fits (idx_fits_int32), with the
 * ranges of e's output variables in vlo / vhi; a reduction's variable gets
 * its range where the walk meets the reduction. A select's test compares
 * its index with constants and may subtract its lo: those fit too. */
static bool exprs_fit_int32(Seen *seen, const KExpr *e, int64_t *vlo, int64_t *vhi, const int64_t *param_limit)
{
    if (!first_visit(seen, e))
        return true;
    if (e->kind == KX_REDUCE) {
        vlo[e->var] = 0;
        vhi[e->var] = e->extent - 1;
    }
    if ((e->kind == KX_LOAD || e->kind == KX_INDEX) && !idx_fits_int32(e->at, vlo, vhi, param_limit))
        return false;
    for (int i = 0; e->kind == KX_SELECT && i < e->ntests; i++) {
        const KTest *x = &e->tests[i];
        int64_t lo, hi;
        if (!idx_fits_int32(x->x, vlo, vhi, param_limit) ||
            !kidx_bounds_params(x->x, vlo, vhi, param_limit, &lo, &hi) || x->lo < INT32_MIN ||
            x->lo > INT32_MAX || x->hi < INT32_MIN || x->hi > INT32_MAX || lo - x->lo < INT32_MIN ||
            hi - x->lo > INT32_MAX)
            return false;
    }
    if (e->kind == KX_SELECT)
        return select_arm_fits_int32(e, 0, vlo, vhi, param_limit) &&
               select_arm_fits_int32(e, 1, vlo, vhi, param_limit);
    for (int i = 0; i < e->nargs; i++)
        if (!exprs_fit_int32(seen, e->args[i], vlo, vhi, param_limit))
            return false;
    return true;
}

/* Whether arm `arm` of select e fits, where it runs: the first only when
 * all of e's tests hold, so a test lo <= v + c < hi narrows v's range
 * there (a strided column assign's (i1 - 1) / 2 runs for i1 >= 1 alone);
 * the second, for one test without a step, where v + c lies beyond one end
 * of it (a cat's last piece, v - 3, after v == 0, 1, 2). Its own walk: what
 * it met under narrowed ranges is met again, unnarrowed, elsewhere. */
static bool select_arm_fits_int32(const KExpr *e, int arm, const int64_t *vlo, const int64_t *vhi,
                                  const int64_t *param_limit)
{
    int64_t lo[KIR_MAX_VARS], hi[KIR_MAX_VARS];
    memcpy(lo, vlo, sizeof lo);
    memcpy(hi, vhi, sizeof hi);
    for (int i = 0; i < e->ntests && (arm == 0 || (e->ntests == 1 && e->tests[0].step <= 1)); i++) {
        const KTest *test = &e->tests[i];
        const KIdx *x = test->x, *v = x;
        int64_t c = 0;
        if (x->kind == KI_ADD && x->b->kind == KI_CONST) {
            v = x->a;
            c = x->b->c;
        } else if (x->kind == KI_ADD && x->a->kind == KI_CONST) {
            v = x->b;
            c = x->a->c;
        }
        if (v->kind != KI_VAR || v->var >= KIR_MAX_VARS || hi[v->var] < lo[v->var] ||
            c < INT32_MIN || c > INT32_MAX || test->lo < INT32_MIN || test->hi > INT32_MAX)
            continue;
        int64_t in_lo = test->lo - c, in_hi = test->hi - 1 - c;   /* v's values that pass */
        int64_t *vl = &lo[v->var], *vh = &hi[v->var];
        if (arm == 0) {
            *vl = in_lo > *vl ? in_lo : *vl;
            *vh = in_hi < *vh ? in_hi : *vh;
        } else if (in_lo <= *vl) {
            *vl = in_hi + 1 > *vl ? in_hi + 1 : *vl;
        } else if (in_hi >= *vh) {
            *vh = in_lo - 1 < *vh ? in_lo - 1 : *vh;
        }
        if (*vh < *vl)
            return true;        /* the arm never runs */
    }
    Seen own = {0};
    bool fits = exprs_fit_int32(&own, e->args[arm], lo, hi, param_limit);
    free(own.items);
    return fits;
}

/* The one decision of a CUDA kernel's index width: 32 bits when exact,
 * else 64. The thread index is exact in uint32_t when every launch's
 * thread count is at most INT32_MAX (blocks * 256 then stays below 2^32);
 * a thread's variables i_d = lin / S % N are then below INT32_MAX too. The
 * index arithmetic of loads, aranges and select tests is exact in int32_t
 * when every value it computes, including each intermediate sum, product
 * and quotient, lies in int32_t for all values of the loop variables (the
 * outputs' extents, the reductions' extents) and of the run-time index
 * scalars (an index scalar's kernel runs only for values in [0,
 * index_limit): kernels_args_fit). An input's largest element offset is
 * such a value (views, broadcasts, strides and negative steps are index
 * arithmetic here; every input is read contiguous), and an output's is
 * its element count - 1. A value whose range is unknown (a / or % of a
 * possibly negative value) keeps the kernel in 64 bits. */
static bool cuda_index_32(const KKernel *k)
{
    int64_t *param_limit = xcalloc((size_t)k->ninputs + 1, sizeof *param_limit);
    for (int i = 0; i < k->ninputs; i++)
        param_limit[i] = k->inputs[i].kind == KIN_INT ? k->inputs[i].index_limit : -1;
    bool fits = true;
    for (int o = 0; o < k->noutputs && fits; o++) {
        const KOutput *out = &k->outputs[o];
        if (numel(out) > INT32_MAX) {
            fits = false;
            break;
        }
        int64_t vlo[KIR_MAX_VARS], vhi[KIR_MAX_VARS];
        for (int v = 0; v < KIR_MAX_VARS; v++) {
            vlo[v] = 0;
            vhi[v] = v < out->rank ? out->sizes[v] - 1 : -1;
        }
        Seen seen = {0};
        fits = exprs_fit_int32(&seen, out->value, vlo, vhi, param_limit);
        free(seen.items);
    }
    free(param_limit);
    return fits;
}

/* The thread's linear index `lin` (an element, or a row: per_row) and the
 * output variables the body uses, as divisions by constant extents (a
 * multiply-shift for nvcc); in 32 bits where cuda_index_32 allows. */
static void print_thread_index(const Printer *pr, TextBuf *t, const KOutput *out, bool per_row,
                               int64_t threads, const char *body)
{
    int last = out->rank - 1;
    if (pr->narrow)
        textbuf_printf(t, "    const uint32_t lin = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (lin >= %lldu)\n        return;\n", (long long)threads);
    else
        textbuf_printf(t, "    const int64_t lin = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (lin >= %lldLL)\n        return;\n", (long long)threads);
    int64_t inner = 1;
    char name[32];
    for (int d = per_row ? last - 1 : last; d >= 0; d--) {
        if (out->sizes[d] == 1)
            continue;
        snprintf(name, sizeof name, "i%d", d);
        bool wraps = inner * out->sizes[d] < threads;
        if (uses_name(body, name) && pr->narrow) {
            textbuf_printf(t, "    const int32_t i%d = (int32_t)(lin", d);
            if (inner > 1)
                textbuf_printf(t, " / %lldu", (long long)inner);
            if (wraps)
                textbuf_printf(t, " %% %lldu", (long long)out->sizes[d]);
            textbuf_puts(t, ");\n");
        } else if (uses_name(body, name)) {
            textbuf_printf(t, "    const int64_t i%d = lin / %lldLL", d, (long long)inner);
            if (wraps)
                textbuf_printf(t, " %% %lldLL", (long long)out->sizes[d]);
            textbuf_puts(t, ";\n");
        }
        inner *= out->sizes[d];
    }
}

/* The scalars and inputs a kernel body reads, from its arguments (only
 * those it uses: nvcc warns of the rest). */
static void print_cuda_reads(TextBuf *t, const KKernel *k, const char *body)
{
    if (uses_name(body, "si"))
        textbuf_puts(t, "    const int64_t *si = a.si;\n");
    if (uses_name(body, "sf"))
        textbuf_puts(t, "    const double *sf = a.sf;\n");
    char name[32];
    for (int i = 0; i < k->ninputs; i++) {
        snprintf(name, sizeof name, "in%d", i);
        if (k->inputs[i].kind == KIN_TENSOR && uses_name(body, name))
            textbuf_printf(t, "    const %s *__restrict__ in%d = (const %s *)a.in[%d];\n",
                           kir_ctype(k->inputs[i].dtype), i, kir_ctype(k->inputs[i].dtype), i);
    }
}

/* Elementwise outputs of one shape (os[0..nos), cuda_writer) as one CUDA
 * kernel NAME_out<os[0]>: a thread per element computes every output's
 * value in one scope, so their common loads and math are done once, and
 * stores each. */
static void print_outputs_cuda_together(Printer *pr, TextBuf *t, const int *os, int nos)
{
    const KKernel *k = pr->k;
    const KOutput *first = &k->outputs[os[0]];
    for (int v = 0; v < KIR_MAX_VARS; v++) {
        pr->vlo[v] = 0;
        pr->vhi[v] = v < first->rank ? first->sizes[v] - 1 : -1;
    }
    Scope root;
    scope_init(&root, SCOPE_ROOT, -1, NULL);
    pr->indent = 1;
    int *values = xcalloc((size_t)nos, sizeof *values);
    for (int j = 0; j < nos; j++)
        values[j] = emit(pr, &root, k->outputs[os[j]].value);
    const char *body = textbuf_cstr(&root.text);
    textbuf_printf(t, "extern \"C\" __global__ void %s_out%d(const %s_args a)\n{\n", k->name, os[0], k->name);
    print_cuda_reads(t, k, body);
    for (int j = 0; j < nos; j++) {
        const char *ctype = kir_ctype(k->outputs[os[j]].dtype);
        textbuf_printf(t, "    %s *out%d = (%s *)a.out[%d];\n", ctype, os[j], ctype, os[j]);
    }
    print_thread_index(pr, t, first, false, numel(first), body);
    textbuf_putn(t, root.text.data, root.text.len);
    for (int j = 0; j < nos; j++) {
        textbuf_printf(t, "    out%d[lin] = ", os[j]);
        temp_name(t, values[j]);
        textbuf_puts(t, ";\n");
    }
    textbuf_printf(t, "}\nTSSA_KERNEL_ENTRY(%s_out%d, %s_args)\n\n", k->name, os[0], k->name);
    free(values);
    scope_release(&root);
}

/* One output as a CUDA kernel: thread = output element, or output row
 * (cuda_per_row: the row's reductions before a loop over its elements);
 * or block = element or row (kir_cuda_grid: the reductions split across
 * the block's threads, TSSA_KERNEL_ENTRY_COOP for the shim).
 * The body is made first, so only what it uses is declared (nvcc warns of
 * the rest). */
static void print_output_cuda(Printer *pr, TextBuf *t, int o)
{
    const KKernel *k = pr->k;
    const KOutput *out = &k->outputs[o];
    const char *ctype = kir_ctype(out->dtype);
    if (numel(out) == 0)
        return;     /* nothing to launch */
    for (int v = 0; v < KIR_MAX_VARS; v++) {
        pr->vlo[v] = 0;
        pr->vhi[v] = v < out->rank ? out->sizes[v] - 1 : -1;
    }
    bool per_row = cuda_per_row(out);
    int last = out->rank - 1;
    int64_t threads = cuda_units(out);
    KirCudaGrid grid = kir_cuda_grid(k, o);
    pr->block_threads = grid.cooperative ? grid.block_threads : 0;
    pr->block_lanes = grid.lanes;
    Scope root, row;
    scope_init(&root, SCOPE_ROOT, -1, NULL);
    pr->indent = 1;
    int value;
    if (per_row) {
        scope_init(&row, SCOPE_LOOP, last, &root);
        value = emit(pr, &row, out->value);
        line_start(pr, &row);
        textbuf_printf(&row.text, "out%d[lin * %lldLL + i%d] = ", o, (long long)out->sizes[last], last);
        temp_name(&row.text, value);
        textbuf_puts(&row.text, ";\n");
        /* the row loop, after what the body hoisted out of it */
        if (pr->block_threads)
            print_block_row_loop(&root.text, last, out->sizes[last], pr->block_threads);
        else
            textbuf_printf(&root.text, "    for (int64_t i%d = 0; i%d < %lldLL; i%d++) {\n", last, last,
                           (long long)out->sizes[last], last);
        textbuf_putn(&root.text, row.text.data, row.text.len);
        textbuf_puts(&root.text, "    }\n");
        scope_release(&row);
    } else {
        value = emit(pr, &root, out->value);
    }
    const char *body = textbuf_cstr(&root.text);
    textbuf_printf(t, "extern \"C\" __global__ void %s_out%d(const %s_args a)\n{\n", k->name, o, k->name);
    print_cuda_reads(t, k, body);
    textbuf_printf(t, "    %s *out%d = (%s *)a.out[%d];\n", ctype, o, ctype, o);
    if (!pr->block_threads) {
        print_thread_index(pr, t, out, per_row, threads, body);
    } else {
        /* a block's unit: 64-bit variables (the index arithmetic is still
         * 32-bit where cuda_index_32 allows: it depends on value ranges only) */
        if (pr->block_lanes > 1)
            print_block_columns(t, pr->block_lanes, threads);
        else
            textbuf_puts(t, "    const int64_t lin = blockIdx.x;     /* the block's unit */\n");
        /* the unit's element (or row: the dims before the last) */
        int64_t inner = 1;
        char name[32];
        for (int d = per_row ? last - 1 : last; d >= 0; d--) {
            if (out->sizes[d] == 1)
                continue;
            snprintf(name, sizeof name, "i%d", d);
            if (uses_name(body, name)) {
                textbuf_printf(t, "    const int64_t i%d = lin / %lldLL", d, (long long)inner);
                if (inner * out->sizes[d] < threads)
                    textbuf_printf(t, " %% %lldLL", (long long)out->sizes[d]);
                textbuf_puts(t, ";\n");
            }
            inner *= out->sizes[d];
        }
    }
    textbuf_putn(t, root.text.data, root.text.len);
    if (!per_row) {
        if (pr->block_threads && pr->block_lanes > 1)
            textbuf_printf(t, "    if (threadIdx.x < %d && col < %lldLL)\n    ", pr->block_lanes, (long long)threads);
        else if (pr->block_threads)
            textbuf_puts(t, "    if (threadIdx.x == 0)\n    ");     /* every thread holds it */
        textbuf_printf(t, "    out%d[lin] = ", o);
        temp_name(t, value);
        textbuf_puts(t, ";\n");
    }
    textbuf_printf(t, "}\nTSSA_KERNEL_ENTRY%s(%s_out%d, %s_args)\n\n", pr->block_threads ? "_COOP" : "",
                   k->name, o, k->name);
    pr->block_threads = 0;
    pr->block_lanes = 1;
    scope_release(&root);
}

void kir_print_kernel(TextBuf *t, const KKernel *k, KirTarget target)
{
    Printer pr = {.target = target, .k = k, .block_lanes = 1};
    Seen seen = {0};
    for (int o = 0; o < k->noutputs; o++)
        collect_indexed(&pr, &seen, k->outputs[o].value);
    free(seen.items);
    textbuf_printf(t, "/* %s: %s */\n", k->name, k->source ? k->source : "");
    if (target == KIR_TARGET_C) {
        textbuf_printf(t, "void %s(const void *const *in, const int64_t *si, const double *sf, "
                          "void *const *out)\n{\n    (void)in;\n    (void)si;\n    (void)sf;\n    (void)out;\n", k->name);
        print_inputs(t, k, "    ", KIR_TARGET_C);
        /* outputs of one shape that reduce share a loop nest, so their
         * reductions run once (a max and its index, a softmax's sums);
         * elementwise outputs keep a nest each: GCC vectorizes a nest
         * with one store and its math calls (libmvec), not always one
         * with several (an LSTM's h and c: 2.7x slower merged) */
        bool *done = xcalloc((size_t)k->noutputs + 1, sizeof *done);
        int *group = xcalloc((size_t)k->noutputs + 1, sizeof *group);
        for (int o = 0; o < k->noutputs; o++) {
            if (done[o])
                continue;
            int n = 0;
            for (int q = o; q < k->noutputs; q++)
                if (!done[q] && (q == o || (same_shape(&k->outputs[o], &k->outputs[q]) &&
                                            has_reduce(&k->outputs[o]) && has_reduce(&k->outputs[q])))) {
                    group[n++] = q;
                    done[q] = true;
                }
            print_outputs_c(&pr, t, group, n);
        }
        free(done);
        free(group);
        textbuf_puts(t, "}\n\n");
    } else {
        /* the arguments, passed by value (kernels_pack_args writes them) */
        int nin = k->ninputs > 0 ? k->ninputs : 1, nout = k->noutputs > 0 ? k->noutputs : 1;
        pr.narrow = cuda_index_32(k);
        textbuf_printf(t, "struct %s_args {\n    const void *in[%d];\n    int64_t si[%d];\n"
                          "    double sf[%d];\n    void *out[%d];\n};\n", k->name, nin, nin, nin, nout);
        /* a kernel per output, but elementwise outputs of one shape share
         * one (cuda_writer); a max keeps its index only when its argmax
         * twin is this kernel's own output */
        int *together = xcalloc((size_t)k->noutputs + 1, sizeof *together);
        for (int o = 0; o < k->noutputs; o++) {
            if (cuda_writer(k, o) != o)
                continue;
            int n = 0;
            for (int q = o; q < k->noutputs; q++)
                if (cuda_writer(k, q) == o)
                    together[n++] = q;
            if (n > 1) {
                print_outputs_cuda_together(&pr, t, together, n);
                continue;
            }
            pr.nindexed = 0;
            Seen own = {0};
            collect_indexed(&pr, &own, k->outputs[o].value);
            free(own.items);
            print_output_cuda(&pr, t, o);
        }
        free(together);
    }
    free(pr.indexed);
}

void kir_print_prelude(TextBuf *t, KirTarget target)
{
    prelude(t, target);
}
