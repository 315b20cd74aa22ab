/* kir.h — the kernel IR: what one fused group computes, as loop nests over
 * output index spaces whose bodies are expression trees.
 *
 * A kernel has inputs (tensors of static shape and dtype, read contiguous,
 * and run-time scalars), and outputs, each a loop nest over its own shape
 * whose element value is one expression. Expressions are
 *   loads of an input at an index (KIdx, integer arithmetic on the loop
 *   variables: views, broadcasts and TensorSSA's accesses become index
 *   arithmetic), constants, run-time scalars, casts, the op table's
 *   templates (elementwise ops), lazy selects on an index condition (an
 *   immut::<view>_rev assign: inside the region the source, elsewhere the
 *   base; only the taken side is evaluated, so neither reads out of its
 *   bounds) and reductions along one new loop variable.
 * Nodes are hash-consed: building the same expression twice gives the same
 * pointer, so the printer's common-subexpression reuse is pointer equality.
 * Everything is arena memory of the KirBuilder that made it.
 */
#ifndef TSSA_KERNELS_KIR_H
#define TSSA_KERNELS_KIR_H

#include <stdbool.h>
#include <stdint.h>

#include "tssa/ops.h"
#include "tssa/tensor.h"
#include "tssa/util.h"

/* Loop variables per kernel output: its dimensions first, then one per
 * reduction. Variable dependence is a bit set. */
enum { KIR_MAX_VARS = 64, KIR_MAX_RANK = 16 };

typedef enum KIdxKind { KI_CONST, KI_VAR, KI_PARAM, KI_ADD, KI_MUL, KI_DIV, KI_MOD } KIdxKind;

typedef struct KIdx {
    KIdxKind kind;
    int64_t c;              /* CONST; the divisor of DIV/MOD, the factor of MUL */
    int var;                /* VAR: loop variable; PARAM: run-time int scalar */
    const struct KIdx *a, *b;   /* ADD: a + b; MUL: a * c; DIV/MOD: a / c, a % c */
    uint64_t vars;          /* loop variables it depends on */
} KIdx;

/* A conjunction of tests on index expressions: lo <= x < hi and, when
 * step > 1, (x - lo) % step == 0. */
typedef struct KTest {
    const KIdx *x;
    int64_t lo, hi, step;
} KTest;

typedef enum KExprKind {
    KX_LOAD,        /* input `input` at element offset `at` */
    KX_CONST,       /* number c (in dtype) */
    KX_SCALAR,      /* run-time scalar input `input` */
    KX_INDEX,       /* the value of an index expression (arange) */
    KX_CAST,        /* args[0] converted to dtype */
    KX_OP,          /* op table template `op` on args[0..nargs) */
    KX_SELECT,      /* lazily: tests hold ? args[0] : args[1] */
    KX_REDUCE,      /* reduce args[0] over loop variable `var` in [0, extent) */
} KExprKind;

/* ARGMAX / ARGMIN: the first index of the largest / smallest (NaN counts
 * as largest and smallest, as in PyTorch's max and min over a dim). */
typedef enum KReduce { KR_SUM, KR_MAX, KR_MIN, KR_ARGMAX, KR_ARGMIN } KReduce;

typedef struct KExpr {
    KExprKind kind;
    TensorDType dtype;          /* of the value */
    TensorDType compute;        /* OP: the template's compute type */
    int op;                     /* OP: OpId */
    int nargs;
    const struct KExpr *args[4];
    int input;                  /* LOAD, SCALAR */
    const KIdx *at;             /* LOAD: element offset; INDEX: the value */
    double c;                   /* CONST */
    int ntests;                 /* SELECT */
    const KTest *tests;
    KReduce reduce;             /* REDUCE */
    int var;
    int64_t extent;
    uint64_t vars;              /* loop variables it depends on */
    uint32_t id;                /* creation order: the printer's temporaries */
} KExpr;

typedef enum KInputKind { KIN_TENSOR, KIN_INT, KIN_FLOAT } KInputKind;

typedef struct KInput {
    KInputKind kind;
    TensorDType dtype;          /* TENSOR */
    int rank;
    int64_t sizes[KIR_MAX_RANK];
    /* INT used as an index (x[i] at a loop's counter): the kernel runs only
     * when it lies in [0, index_limit) (else the group is interpreted and
     * fails, or wraps a negative index, as PyTorch does); -1: no index */
    int64_t index_limit;
} KInput;

typedef struct KOutput {
    TensorDType dtype;
    int rank;
    int64_t sizes[KIR_MAX_RANK];
    const KExpr *value;         /* element at loop variables 0..rank-1 */
} KOutput;

typedef struct KKernel {
    char name[48];              /* C identifier: "k3_yolo_decode_L15" */
    const char *source;         /* where it came from, for the printed comment */
    KInput *inputs;
    int ninputs;
    KOutput *outputs;
    int noutputs;
    int nvars;                  /* loop variables used (outputs' and reductions') */
} KKernel;

typedef struct KirBuilder KirBuilder;

KirBuilder *kir_builder_new(void);
void kir_builder_free(KirBuilder *b);
Arena *kir_arena(KirBuilder *b);
/* A fresh loop variable (for a reduction): KIR_MAX_RANK, then one more per
 * call, never reused; the caller stops below KIR_MAX_VARS (the vars bit
 * sets and the printer's range arrays hold no more). */
int kir_new_var(KirBuilder *b);
int kir_nvars(const KirBuilder *b);
/* The extent of a loop variable while building an output's expression: the
 * index algebra uses it to drop a / or % that cannot change the value. */
void kir_set_extent(KirBuilder *b, int var, int64_t extent);

const KIdx *kidx_const(KirBuilder *b, int64_t c);
const KIdx *kidx_var(KirBuilder *b, int var);
const KIdx *kidx_param(KirBuilder *b, int input);
const KIdx *kidx_add(KirBuilder *b, const KIdx *x, const KIdx *y);
const KIdx *kidx_mul(KirBuilder *b, const KIdx *x, int64_t c);
const KIdx *kidx_div(KirBuilder *b, const KIdx *x, int64_t c);
const KIdx *kidx_mod(KirBuilder *b, const KIdx *x, int64_t c);
/* The values x takes (inclusive) under the current loop extents; false
 * when unknown (a run-time scalar, a variable without an extent). */
bool kidx_range(const KirBuilder *b, const KIdx *x, int64_t *lo, int64_t *hi);
/* How much x grows when loop variable var grows by one, all else fixed;
 * INT64_MIN when that depends on where (var under a / or %). */
int64_t kidx_stride(const KIdx *x, int var);
/* The same for given ranges of the variables: var v in [vlo[v], vhi[v]]
 * (vhi[v] < vlo[v]: unknown). */
bool kidx_bounds(const KIdx *x, const int64_t *vlo, const int64_t *vhi, int64_t *lo, int64_t *hi);
/* The same where run-time index scalar p lies in [0, param_limit[p]) (an
 * input's index_limit; below 1: unknown). */
bool kidx_bounds_params(const KIdx *x, const int64_t *vlo, const int64_t *vhi, const int64_t *param_limit,
                        int64_t *lo, int64_t *hi);

const KExpr *kx_load(KirBuilder *b, int input, TensorDType dtype, const KIdx *at);
const KExpr *kx_const(KirBuilder *b, TensorDType dtype, double c);
const KExpr *kx_scalar(KirBuilder *b, int input, TensorDType dtype);
const KExpr *kx_index(KirBuilder *b, TensorDType dtype, const KIdx *at);
/* x converted to dtype (x itself when it already has it). */
const KExpr *kx_cast(KirBuilder *b, const KExpr *x, TensorDType dtype);
const KExpr *kx_op(KirBuilder *b, int op, TensorDType dtype, TensorDType compute,
                   const KExpr *const *args, int nargs);
const KExpr *kx_select(KirBuilder *b, const KTest *tests, int ntests, const KExpr *in,
                       const KExpr *out);
const KExpr *kx_reduce(KirBuilder *b, KReduce r, int var, int64_t extent, const KExpr *body,
                       TensorDType dtype);

/* The C type of a dtype ("float", "int64_t", "bool"...), or NULL when
 * generated kernels do not handle it. */
const char *kir_ctype(TensorDType t);

#endif
