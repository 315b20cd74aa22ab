/* kir_build.c — from a tssa::FusionGroup's block to a kernel (kir.h).
 *
 * Preconditions: the program is specialized (compile-time values known) and
 * shape inference (shape_infer.c) has refined every tensor value of the
 * group to a static shape and dtype; kir_fusable() said yes to every node of
 * the group. Result: one KOutput per group output, whose element at loop
 * variables (i0, ..., i{r-1}) is an expression over the group's inputs.
 *
 * The translation asks for a value's element at an index (one KIdx per
 * dimension) and substitutes backwards through the nodes:
 *   elementwise (op table templates)  each operand at the broadcast index
 *   views and immut:: accesses        index arithmetic (slice: i*step+start,
 *                                     select: a fixed index, permute, expand,
 *                                     view/reshape: linearize, delinearize)
 *   immut::<view>_rev assigns         a lazy select: inside the region the
 *                                     source at the inverse index, else base
 *   cat / stack                       a select per piece along the dim
 *   sum / mean / amax / amin          a reduction over a fresh loop variable
 *   softmax / log_softmax             max and sum reductions of the row
 *   arange, *_like fills, casts       index values and constants
 * Inputs are read as contiguous tensors of their static shape (the runtime
 * makes them so), so a load's offset is affine in the index.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

typedef struct MemoEntry {
    const IrValue *v;
    const KIdx *idx[KIR_MAX_RANK];
    const KExpr *e;
} MemoEntry;

/* A reduction already built: x reduced over `mask` (bit d: dim d of x) by
 * `op`, at the index of its other dims. The same reduction asked for at
 * another index of a reduced dim (a softmax's row max, seen from each
 * element of the row) is the same expression, so the printer computes it
 * once per row. */
typedef struct ReduceEntry {
    const IrValue *x;
    uint32_t mask;
    int op;
    const KIdx *idx[KIR_MAX_RANK];
    const KExpr *e;
} ReduceEntry;

enum { SOFTMAX_SUM = 1 << 20 };     /* ReduceEntry.op of a softmax's row sum */

typedef struct Build {
    ReduceEntry *reduces;
    int nreduces, capreduces;
    KirBuilder *b;
    const LowerProgram *p;
    const IrNode *group;
    KKernel *k;
    MemoEntry *memo;
    size_t memo_cap, memo_n;
    const char *why;            /* first reason the group cannot be built */
    int64_t iterations;         /* ir_group_iterations: loop variable 0 is the iteration */
} Build;

/* ---------------------------------------------------------------- values */

/* The value outside the group that v stands for (a block param's input). */
static const IrValue *outer(const IrNode *group, const IrValue *v)
{
    if (group && v->def == group->blocks[0]->param)
        return group->inputs[v->def_index];
    return v;
}

const RtValue *kir_static(const LowerProgram *p, const IrNode *group, const IrValue *v)
{
    /* an iterations group's param 0 is the iteration, whatever its input */
    if (group && v->def == group->blocks[0]->param && v->def_index == 0 && ir_group_iterations(group) > 0)
        return NULL;
    return lower_static_value(p, outer(group, v));
}

/* Whether v is an iterations group's iteration (loop variable 0). */
static bool is_iteration(const Build *bd, const IrValue *v)
{
    return bd->iterations > 0 && v->def == bd->group->blocks[0]->param && v->def_index == 0;
}

static bool static_int(const LowerProgram *p, const IrNode *group, const IrValue *v, int64_t *out)
{
    const RtValue *r = kir_static(p, group, v);
    if (!r || (r->kind != RT_INT && r->kind != RT_BOOL))
        return false;
    *out = r->u.i;
    return true;
}

static bool static_none(const LowerProgram *p, const IrNode *group, const IrValue *v)
{
    const RtValue *r = kir_static(p, group, v);
    return r && r->kind == RT_NONE;
}

/* A static int list (or one int, for dim=1 given as an int). */
static int static_ints(const LowerProgram *p, const IrNode *group, const IrValue *v, int64_t *out,
                       int max)
{
    const RtValue *r = kir_static(p, group, v);
    if (!r)
        return -1;
    if (r->kind == RT_INT) {
        out[0] = r->u.i;
        return 1;
    }
    if (r->kind != RT_LIST && r->kind != RT_TUPLE)
        return -1;
    if (r->u.list.n > max)
        return -1;
    for (int i = 0; i < r->u.list.n; i++) {
        const RtValue *it = r->u.list.items[i];
        if (it->kind != RT_INT)
            return -1;
        out[i] = it->u.i;
    }
    return r->u.list.n;
}

static bool is_tensor_value(const IrValue *v)
{
    return v->type && v->type->kind == TY_TENSOR;
}

/* The static shape of a tensor value with a dtype kernels handle. */
static const IrTensorType *known(const IrValue *v)
{
    const IrTensorType *t = shape_of(v);
    if (!t || t->rank > KIR_MAX_RANK || !kir_ctype((TensorDType)t->dtype))
        return NULL;
    return t;
}

static int64_t norm_dim(int64_t d, int rank)
{
    return d < 0 ? d + rank : d;
}

/* A slice's start and step after PyTorch's clamping (None start: 0). */
static bool slice_args(const LowerProgram *p, const IrNode *g, const IrNode *n, int base,
                       int64_t size, int64_t *start, int64_t *step)
{
    int64_t s = 0;
    *step = 1;
    if (n->ninputs > base + 2 && !static_none(p, g, n->inputs[base + 2]) &&
        !static_int(p, g, n->inputs[base + 2], &s))
        return false;
    if (n->ninputs > base + 4 && !static_int(p, g, n->inputs[base + 4], step))
        return false;
    if (s < 0)
        s += size;
    if (s < 0)
        s = 0;
    if (s > size)
        s = size;
    *start = s;
    return *step >= 1;
}

/* ---------------------------------------------------------------- what fuses */

/* The template n computes with and which of n's inputs are its operands:
 * n's own op on all of its inputs, except clamp with a None bound, which is
 * clamp_min / clamp_max on the other two. NULL when n has no template or
 * the overload does not fit it (integer floor division and modulo, which
 * PyTorch checks for a zero divisor, stay with the reference kernels). */
/* The most inputs the node of a KERNEL_TEMPLATES row has
 * (binary_cross_entropy_with_logits); its operands are at most
 * KExpr's four. */
enum { TEMPLATE_MAX_INPUTS = 5, TEMPLATE_MAX_OPERANDS = 4 };

static const OpTemplate *template_of(const LowerProgram *p, const IrNode *g, const IrNode *n,
                                     int *operands, int *noperands)
{
    const OpTemplate *t = op_template(n->op);
    if (!t || n->ninputs != t->nargs || n->ninputs > TEMPLATE_MAX_INPUTS)
        return NULL;
    *noperands = n->ninputs;
    for (int i = 0; i < n->ninputs; i++)
        operands[i] = i;
    if (n->op == OP_ATEN_CLAMP) {
        bool no_min = static_none(p, g, n->inputs[1]), no_max = static_none(p, g, n->inputs[2]);
        if (no_min && no_max)
            return NULL;
        if (no_min || no_max) {
            *noperands = 2;
            operands[1] = no_min ? 2 : 1;
            return op_template(no_min ? OP_ATEN_CLAMP_MAX : OP_ATEN_CLAMP_MIN);
        }
    }
    /* gelu(x, approximate): the template is the exact form, ATen's
     * `x * 0.5 * (1 + erf(x * M_SQRT1_2))`, on x alone; approximate='tanh'
     * (or one not known here) stays with the reference kernel */
    if (n->op == OP_ATEN_GELU) {
        const RtValue *r = kir_static(p, g, n->inputs[1]);
        if (!r || r->kind != RT_STR || strcmp(r->u.s, "none") != 0)
            return NULL;
        *noperands = 1;
    }
    /* binary_cross_entropy_with_logits(x, t, weight, pos_weight,
     * reduction): the template is ATen's (1.13) unweighted, unreduced
     * loss, (1 - t) * x + m + log(exp(-m) + exp(-x - m)) with
     * m = max(-x, 0), on x and t; a weight, a pos_weight or a reduction
     * stays with the reference kernel */
    if (n->op == OP_ATEN_BINARY_CROSS_ENTROPY_WITH_LOGITS) {
        int64_t reduction;
        if (!static_none(p, g, n->inputs[2]) || !static_none(p, g, n->inputs[3]) ||
            !static_int(p, g, n->inputs[4], &reduction) || reduction != 0)
            return NULL;
        *noperands = 2;
    }
    if (n->op == OP_ATEN_FLOOR_DIVIDE || n->op == OP_ATEN_REMAINDER) {
        const IrTensorType *out = shape_of(n->outputs[0]);
        if (!out || !dtype_is_float((TensorDType)out->dtype))
            return NULL;
    }
    return *noperands <= TEMPLATE_MAX_OPERANDS ? t : NULL;
}

static bool is_view_like(OpId op)
{
    switch (op) {
    case OP_ATEN_SLICE: case OP_IMMUT_SLICE: case OP_ATEN_SELECT: case OP_IMMUT_SELECT:
    case OP_ATEN_NARROW: case OP_IMMUT_NARROW: case OP_ATEN_PERMUTE: case OP_IMMUT_PERMUTE:
    case OP_ATEN_TRANSPOSE: case OP_IMMUT_TRANSPOSE: case OP_ATEN_T: case OP_IMMUT_T:
    case OP_ATEN_UNSQUEEZE: case OP_IMMUT_UNSQUEEZE: case OP_ATEN_SQUEEZE: case OP_IMMUT_SQUEEZE:
    case OP_ATEN_EXPAND: case OP_IMMUT_EXPAND: case OP_ATEN_EXPAND_AS: case OP_IMMUT_EXPAND_AS:
    case OP_ATEN_VIEW: case OP_IMMUT_VIEW: case OP_ATEN_RESHAPE: case OP_IMMUT_RESHAPE:
    case OP_ATEN_FLATTEN: case OP_ATEN_VIEW_AS: case OP_ATEN_RESHAPE_AS:
    case OP_ATEN_CONTIGUOUS: case OP_ATEN_CLONE: case OP_ATEN_ALIAS: case OP_ATEN_DETACH:
        return true;
    default:
        return false;
    }
}

static bool is_cast(OpId op)
{
    switch (op) {
    case OP_ATEN_TO: case OP_ATEN_TYPE_AS: case OP_ATEN_FLOAT: case OP_ATEN_DOUBLE:
    case OP_ATEN_LONG: case OP_ATEN_INT_CAST: case OP_ATEN_BOOL:
        return true;
    default:
        return false;
    }
}

static bool is_reduction(OpId op)
{
    return op == OP_ATEN_SUM || op == OP_ATEN_MEAN || op == OP_ATEN_AMAX || op == OP_ATEN_AMIN ||
           op == OP_ATEN_SOFTMAX || op == OP_ATEN_LOG_SOFTMAX || op == OP_ATEN_ARGMAX ||
           op == OP_ATEN_ARGMIN || op == OP_ATEN_MAX || op == OP_ATEN_MIN;
}

/* max(x) / min(x): over every element, to a 0-d tensor (amax over all dims;
 * NaN wins as there). Not the binary max(x, y), an elementwise template. */
static bool is_full_min_max(const IrNode *n)
{
    return (n->op == OP_ATEN_MAX || n->op == OP_ATEN_MIN) && n->ninputs == 1 && n->noutputs == 1;
}

/* max / min over one dim: (values, indices); argmax / argmin over one dim. */
static bool is_indexed_reduction(const IrNode *n)
{
    if (n->op == OP_ATEN_MAX || n->op == OP_ATEN_MIN)
        return n->noutputs == 2 && n->ninputs == 3;
    return (n->op == OP_ATEN_ARGMAX || n->op == OP_ATEN_ARGMIN) && n->noutputs == 1 &&
           n->ninputs == 3;
}

/* Whether the op of n has a kernel rule (the argument checks come later). */
static bool op_fuses(OpId op)
{
    return op_template(op) || is_view_like(op) || is_cast(op) || is_reduction(op) ||
           op == OP_IMMUT_SLICE_REV || op == OP_IMMUT_SELECT_REV || op == OP_ATEN_CAT ||
           op == OP_ATEN_STACK || op == OP_ATEN_ARANGE || op == OP_ATEN_ZEROS_LIKE ||
           op == OP_ATEN_ONES_LIKE || op == OP_ATEN_FULL_LIKE || op == OP_ATEN_ZEROS ||
           op == OP_ATEN_ONES || op == OP_ATEN_FULL;
}

/* out[i] = v straight in a loop's body, out one of the loop's carried
 * values: the loop's plan writes it in place, once per iteration (a group
 * would copy all of out every iteration). */
static bool loop_write(const IrNode *n)
{
    const IrValue *base = n->inputs[0];
    const IrNode *loop = n->owner->owner;
    return loop && loop->op == OP_PRIM_LOOP && base->def == n->owner->param;
}

static bool fusable(const LowerProgram *p, const IrNode *n, int depth);

static bool all_static(const LowerProgram *p, const IrNode *n)
{
    bool computed = n->noutputs > 0;
    for (int i = 0; computed && i < n->noutputs; i++)
        computed = lower_static_value(p, n->outputs[i]) != NULL;
    return computed;
}

/* A node specialization already ran (tensor work on compile-time values:
 * its results are kept as weights are) costs a run nothing; a group that
 * took it in would compute it again every run. Unless the group computes
 * it from its indices alone: work on numbers only (an arange, a meshgrid
 * of aranges, a YOLO grid) through fusable nodes reads no memory inside a
 * kernel, cheaper than loading the kept tensor. */
static bool recomputed_from_indices(const LowerProgram *p, const IrNode *n, int depth)
{
    if (depth > 12)     /* a chain that long is worth keeping */
        return false;
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *v = n->inputs[i];
        const IrNode *d = v->def;
        if (v->type && v->type->kind == TY_LIST && d && d->op == OP_PRIM_LISTCONSTRUCT) {
            /* cat / stack of a list: its items */
            if (!recomputed_from_indices(p, d, depth + 1))
                return false;
            continue;
        }
        if (!v->type || v->type->kind != TY_TENSOR)
            continue;
        /* a static producer (fusable() asks this of it), or a view the
         * kernels passes made of one (unpack_views: a meshgrid's pieces) */
        if (!d || d->owner != n->owner || !fusable(p, d, depth + 1) ||
            (!all_static(p, d) && !recomputed_from_indices(p, d, depth + 1)))
            return false;
    }
    return true;
}

bool kir_fusable(const LowerProgram *p, const IrNode *n)
{
    return fusable(p, n, 0);
}

static bool fusable(const LowerProgram *p, const IrNode *n, int depth)
{
    if (all_static(p, n) && !recomputed_from_indices(p, n, depth))
        return false;
    if (n->nblocks > 0 || !op_fuses(n->op) ||
        (n->noutputs != 1 && !(n->noutputs == 2 && is_indexed_reduction(n))))
        return false;
    if ((n->op == OP_ATEN_ARGMAX || n->op == OP_ATEN_ARGMIN ||
         ((n->op == OP_ATEN_MAX || n->op == OP_ATEN_MIN) && n->ninputs != 2 &&
          !is_full_min_max(n))) &&
        !is_indexed_reduction(n))
        return false;   /* argmax(x) over everything: not a kernel rule */
    if (is_full_min_max(n) || is_indexed_reduction(n) || n->op == OP_ATEN_AMAX || n->op == OP_ATEN_AMIN) {
        /* max() of no elements raises, and so do max / min / argmax /
         * amax over an empty dim (the reference kernel says so; a kernel
         * gave -inf or index 0): none over an input with an empty dim
         * fuses (over another dim its result is empty: nothing to compute) */
        const IrTensorType *in = known(n->inputs[0]) ? shape_of(n->inputs[0]) : NULL;
        for (int d = 0; in && d < in->rank; d++)
            if (in->sizes[d] == 0)
                return false;
        if (!in)
            return false;
    }
    /* softmax of a 0-d tensor: no dim to reduce over (reduction_at) */
    if ((n->op == OP_ATEN_SOFTMAX || n->op == OP_ATEN_LOG_SOFTMAX) && n->ninputs > 0 &&
        known(n->inputs[0]) && shape_of(n->inputs[0])->rank == 0)
        return false;
    if (is_indexed_reduction(n)) {
        /* argmax(x, None): over everything, not over one dim (the kernel
         * rule reads the dim as a compile-time int), except on a vector,
         * where everything is dim 0 (a decoder's next token) */
        const RtValue *dim = kir_static(p, NULL, n->inputs[1]);
        bool vector = dim && dim->kind == RT_NONE && known(n->inputs[0]) &&
                      shape_of(n->inputs[0])->rank == 1;
        if (!vector && (!dim || dim->kind != RT_INT))
            return false;
    }
    for (int o = 0; o < n->noutputs; o++)
        if (!known(n->outputs[o]))
            return false;
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *in = n->inputs[i];
        if (is_tensor_value(in) && !known(in))
            return false;
        if (in->type && in->type->kind == TY_LIST && (n->op == OP_ATEN_CAT || n->op == OP_ATEN_STACK))
            continue;   /* checked by the translation: a ListConstruct of known tensors */
    }
    /* Tensor inputs must be known; a None where the template wants a number
     * or a list that is not static keeps the node out. */
    int operands[TEMPLATE_MAX_INPUTS], noperands;
    if (op_template(n->op) && !is_indexed_reduction(n) && !is_full_min_max(n)) {
        if (!template_of(p, NULL, n, operands, &noperands))
            return false;
        for (int k = 0; k < noperands; k++) {
            const IrValue *in = n->inputs[operands[k]];
            if (is_tensor_value(in))
                continue;
            const RtValue *r = kir_static(p, NULL, in);
            if (r ? (r->kind != RT_INT && r->kind != RT_FLOAT && r->kind != RT_BOOL)
                  : !(in->type && (in->type->kind == TY_INT || in->type->kind == TY_FLOAT ||
                                   in->type->kind == TY_NUMBER || in->type->kind == TY_BOOL)))
                return false;
        }
        return true;
    }
    if (n->op == OP_ATEN_CAT || n->op == OP_ATEN_STACK) {
        const IrNode *lc = n->inputs[0]->def;
        if (lc->op != OP_PRIM_LISTCONSTRUCT || lc->ninputs == 0 || lc->ninputs > 64)
            return false;
        for (int i = 0; i < lc->ninputs; i++)
            if (!known(lc->inputs[i]))
                return false;
        int64_t d;
        return n->ninputs == 2 && static_int(p, NULL, n->inputs[1], &d);
    }
    /* Every non-tensor argument of the other rules is a compile-time value
     * (dims, starts, sizes, dtypes), or None. */
    for (int i = 1; i < n->ninputs; i++) {
        const IrValue *in = n->inputs[i];
        if (is_tensor_value(in))
            continue;
        /* a dtype read off a tensor: the output's refined type has it */
        if (kir_static(p, NULL, in) || in->def->op == OP_PRIM_DTYPE)
            continue;
        /* TensorSSA's access x[i] and assign x[i] = v at a run-time index
         * (runtime_index); aten::select at one stays a view (a loop's
         * slicer: its consumers read it for free) */
        bool select_index = (n->op == OP_IMMUT_SELECT && i == 2) ||
                            (n->op == OP_IMMUT_SELECT_REV && i == 3);
        if (!select_index || !in->type || in->type->kind != TY_INT || loop_write(n))
            return false;
    }
    if (n->op == OP_ATEN_ARANGE) {
        /* arange_at reads its numbers (all but the 4 trailing options) as
         * compile-time values: a size only shape inference decided is not */
        for (int i = 0; i < n->ninputs - 4; i++) {
            const RtValue *r = kir_static(p, NULL, n->inputs[i]);
            if (!r || (r->kind != RT_INT && r->kind != RT_FLOAT))
                return false;
        }
        return n->ninputs >= 5 && n->ninputs <= 7;
    }
    if (n->op == OP_ATEN_ZEROS || n->op == OP_ATEN_ONES || n->op == OP_ATEN_FULL)
        return true;
    return n->ninputs > 0 && is_tensor_value(n->inputs[0]) && known(n->inputs[0]);
}

/* ---------------------------------------------------------------- memo */

static uint64_t memo_hash(const IrValue *v, const KIdx *const *idx, int rank)
{
    uint64_t h = (uintptr_t)v * 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < rank; i++)
        h = (h ^ (uintptr_t)idx[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static MemoEntry *memo_find(Build *bd, const IrValue *v, const KIdx *const *idx, int rank,
                            bool insert)
{
    if (insert && bd->memo_n * 2 >= bd->memo_cap) {
        size_t cap = bd->memo_cap ? bd->memo_cap * 2 : 64;
        MemoEntry *m = xcalloc(cap, sizeof *m);
        for (size_t i = 0; i < bd->memo_cap; i++) {
            MemoEntry *e = &bd->memo[i];
            if (!e->v)
                continue;
            int r = shape_of(e->v)->rank;
            size_t j = memo_hash(e->v, e->idx, r) & (cap - 1);
            while (m[j].v)
                j = (j + 1) & (cap - 1);
            m[j] = *e;
        }
        free(bd->memo);
        bd->memo = m;
        bd->memo_cap = cap;
    }
    if (!bd->memo_cap)
        return NULL;
    size_t j = memo_hash(v, idx, rank) & (bd->memo_cap - 1);
    for (; bd->memo[j].v; j = (j + 1) & (bd->memo_cap - 1))
        if (bd->memo[j].v == v && memcmp(bd->memo[j].idx, idx, (size_t)rank * sizeof *idx) == 0)
            return &bd->memo[j];
    if (!insert)
        return NULL;
    bd->memo[j].v = v;
    memcpy(bd->memo[j].idx, idx, (size_t)rank * sizeof *idx);
    bd->memo_n++;
    return &bd->memo[j];
}

/* ---------------------------------------------------------------- translation */

static const KExpr *value_at(Build *bd, const IrValue *v, const KIdx *const *idx);
static const KIdx *contiguous_offset(KirBuilder *b, const KIdx *const *idx, const int64_t *sizes,
                                     int rank);

static const KExpr *fail(Build *bd, const char *why)
{
    if (!bd->why)
        bd->why = why;
    return NULL;
}

/* The linear (row-major) offset of idx in a tensor of the given sizes. */
static const KIdx *linearize(KirBuilder *b, const KIdx *const *idx, const int64_t *sizes, int rank)
{
    const KIdx *off = kidx_const(b, 0);
    for (int d = 0; d < rank; d++)
        off = kidx_add(b, kidx_mul(b, off, sizes[d]), idx[d]);
    return off;
}

static void delinearize(KirBuilder *b, const KIdx *lin, const int64_t *sizes, int rank,
                        const KIdx **out)
{
    int64_t inner = 1;
    for (int d = rank - 1; d >= 0; d--) {
        const KIdx *q = kidx_div(b, lin, inner);
        out[d] = d == 0 ? q : kidx_mod(b, q, sizes[d]);
        inner *= sizes[d];
    }
}

/* The index of a reshape's input: the two shapes split into runs of dims
 * with equal element counts ([1, 48, 7] and [1, 3, 4, 4, 7]: [1] [48|3,4,4]
 * [7]), and only inside a run is the index linearized and split again, so
 * dims a reshape keeps map one to one. */
static void reshape_index(KirBuilder *b, const KIdx *const *idx, const IrTensorType *out,
                          const IrTensorType *in, const KIdx **sub)
{
    int o = 0, i = 0;
    while (o < out->rank || i < in->rank) {
        int o0 = o, i0 = i;
        int64_t po = o < out->rank ? out->sizes[o++] : 1;
        int64_t pi = i < in->rank ? in->sizes[i++] : 1;
        while (po != pi) {
            if (po < pi && o < out->rank)
                po *= out->sizes[o++];
            else if (i < in->rank)
                pi *= in->sizes[i++];
            else
                break;
        }
        /* trailing size-1 dims join the run */
        while (o < out->rank && out->sizes[o] == 1 && (i >= in->rank || in->sizes[i] != 1))
            o++;
        while (i < in->rank && in->sizes[i] == 1 && (o >= out->rank || out->sizes[o] != 1))
            i++;
        const KIdx *lin = linearize(b, idx + o0, out->sizes + o0, o - o0);
        delinearize(b, lin, in->sizes + i0, i - i0, sub + i0);
    }
}

/* A compile-time int as a constant of dtype. A KExpr holds its number as a
 * double: an int constant of an int dtype it does not hold exactly (x +
 * (2**62 + 1), past 2^53) would be rounded, so the group is interpreted. */
static const KExpr *int_const(Build *bd, TensorDType dtype, int64_t i)
{
    double d = (double)i;
    if (dtype_is_integral(dtype) && (d >= 9223372036854775808.0 || (int64_t)d != i))
        return fail(bd, "an integer constant a double does not hold");
    return kx_const(bd->b, dtype, d);
}

/* A non-tensor operand: a compile-time number, or a run-time scalar input. */
static const KExpr *scalar_operand(Build *bd, const IrValue *v, TensorDType dtype)
{
    const RtValue *r = kir_static(bd->p, bd->group, v);
    if (r) {
        if (r->kind == RT_FLOAT)
            return kx_const(bd->b, dtype, r->u.f);
        if (r->kind == RT_INT || r->kind == RT_BOOL)
            return int_const(bd, dtype, r->u.i);
        return fail(bd, "an operand is neither a number nor a tensor");
    }
    if (v->def != bd->group->blocks[0]->param)
        return fail(bd, "a run-time number made inside the group");
    if (is_iteration(bd, v))
        return kx_cast(bd->b, kx_index(bd->b, DT_I64, kidx_var(bd->b, 0)), dtype);
    int input = v->def_index;
    TensorDType own = v->type->kind == TY_FLOAT ? DT_F64 : DT_I64;
    return kx_cast(bd->b, kx_scalar(bd->b, input, own), dtype);
}

/* Operand `v` of an elementwise node of rank `rank` at idx: broadcast. */
static const KExpr *operand_at(Build *bd, const IrValue *v, const KIdx *const *idx, int rank,
                               TensorDType dtype)
{
    if (!is_tensor_value(v))
        return scalar_operand(bd, v, dtype);
    const IrTensorType *t = shape_of(v);
    const KIdx *sub[KIR_MAX_RANK];
    for (int d = 0; d < t->rank; d++) {
        int od = rank - t->rank + d;
        sub[d] = t->sizes[d] == 1 ? kidx_const(bd->b, 0) : idx[od];
    }
    const KExpr *e = value_at(bd, v, sub);
    return e ? kx_cast(bd->b, e, dtype) : NULL;
}

static TensorDType operand_dtype(Build *bd, const IrValue *v)
{
    if (is_tensor_value(v))
        return (TensorDType)shape_of(v)->dtype;
    const RtValue *r = kir_static(bd->p, bd->group, v);
    if ((r && r->kind == RT_FLOAT) || (!r && v->type->kind == TY_FLOAT))
        return DT_F64;
    if ((r && r->kind == RT_BOOL) || (!r && v->type->kind == TY_BOOL))
        return DT_BOOL;
    return DT_I64;
}

/* PyTorch's promotion of a comparison's operands: tensors decide within a
 * category; a float number makes int tensors float32. */
static TensorDType promoted(Build *bd, const IrNode *n)
{
    int rank_float = -1, rank_int = -1;
    bool scalar_float = false;
    for (int i = 0; i < n->ninputs; i++) {
        TensorDType d = operand_dtype(bd, n->inputs[i]);
        if (!is_tensor_value(n->inputs[i])) {
            scalar_float |= dtype_is_float(d);
            continue;
        }
        if (dtype_is_float(d))
            rank_float = (int)d > rank_float ? (int)d : rank_float;
        else
            rank_int = (int)d > rank_int ? (int)d : rank_int;
    }
    if (rank_float >= 0)
        return (TensorDType)rank_float;
    if (scalar_float)
        return DT_F32;
    return rank_int >= 0 ? (TensorDType)rank_int : DT_I64;
}

static const KExpr *template_at(Build *bd, const IrNode *n, const KIdx *const *idx,
                                const IrTensorType *out)
{
    int operands[TEMPLATE_MAX_INPUTS], noperands;
    const OpTemplate *t = template_of(bd->p, bd->group, n, operands, &noperands);
    if (!t)
        return fail(bd, "an overload without a template");
    TensorDType dtype = (TensorDType)out->dtype;
    TensorDType compute = t->rule == OPT_COMPARE ? promoted(bd, n) : dtype;
    /* arithmetic on bools (x * mask) computes in int: C's bool operators
     * would promote anyway, and the result converts back (nonzero: true) */
    if (compute == DT_BOOL && t->rule == OPT_ARITH && n->op != OP_ATEN_INVERT &&
        n->op != OP_ATEN_BITWISE_NOT)
        compute = DT_I32;
    const KExpr *args[TEMPLATE_MAX_OPERANDS];
    for (int i = 0; i < noperands; i++) {
        TensorDType want = t->rule == OPT_SELECT && i == t->cond ? DT_BOOL : compute;
        if (!(args[i] = operand_at(bd, n->inputs[operands[i]], idx, out->rank, want)))
            return NULL;
    }
    int op = t == op_template(n->op) ? (int)n->op
             : t == op_template(OP_ATEN_CLAMP_MIN) ? OP_ATEN_CLAMP_MIN : OP_ATEN_CLAMP_MAX;
    /* x ** 2 with a compile-time exponent is x * x, as ATen's
     * pow_tensor_scalar_optimized_kernel computes it (a focal loss's
     * (1 - p_t) ** gamma): the same value, without a pow call */
    if (op == OP_ATEN_POW && dtype_is_float(compute)) {
        const RtValue *e = kir_static(bd->p, bd->group, n->inputs[1]);
        if (e && ((e->kind == RT_FLOAT && e->u.f == 2.0) || (e->kind == RT_INT && e->u.i == 2))) {
            const KExpr *square[2] = {args[0], args[0]};
            return kx_op(bd->b, OP_ATEN_MUL, dtype, compute, square, 2);
        }
    }
    return kx_op(bd->b, op, dtype, compute, args, noperands);
}

/* v, a run-time int (the group's input) used as an index along a dim of
 * `extent`, as a kernel parameter; the kernel is guarded to run only for
 * indices in [0, extent). NULL when v is not such an input. */
static const KIdx *runtime_index(Build *bd, const IrValue *v, int64_t extent)
{
    if (is_iteration(bd, v))    /* below the row count: horizontal.c checked */
        return kidx_var(bd->b, 0);
    if (!bd->group || v->def != bd->group->blocks[0]->param || !v->type || v->type->kind != TY_INT)
        return NULL;
    KInput *ki = &bd->k->inputs[v->def_index];
    if (ki->kind != KIN_INT)
        return NULL;
    if (ki->index_limit < 0 || extent < ki->index_limit)
        ki->index_limit = extent;
    return kidx_param(bd->b, v->def_index);
}

/* Index of input 0 for a view-like node of output shape `out` at idx. */
static bool view_index(Build *bd, const IrNode *n, const KIdx *const *idx, const IrTensorType *out,
                       const KIdx **sub)
{
    KirBuilder *b = bd->b;
    const LowerProgram *p = bd->p;
    const IrNode *g = bd->group;
    const IrTensorType *in = shape_of(n->inputs[0]);
    int64_t dim = 0, v;
    switch (n->op) {
    case OP_ATEN_SLICE: case OP_IMMUT_SLICE: {
        int64_t start, step;
        if (!static_int(p, g, n->inputs[1], &dim))
            return false;
        dim = norm_dim(dim, in->rank);
        if (!slice_args(p, g, n, 0, in->sizes[dim], &start, &step))
            return false;
        for (int d = 0; d < in->rank; d++)
            sub[d] = d == dim ? kidx_add(b, kidx_mul(b, idx[d], step), kidx_const(b, start)) : idx[d];
        return true;
    }
    case OP_ATEN_NARROW: case OP_IMMUT_NARROW: {
        int64_t start;
        if (!static_int(p, g, n->inputs[1], &dim) || !static_int(p, g, n->inputs[2], &start))
            return false;
        dim = norm_dim(dim, in->rank);
        if (start < 0)
            start += in->sizes[dim];
        for (int d = 0; d < in->rank; d++)
            sub[d] = d == dim ? kidx_add(b, idx[d], kidx_const(b, start)) : idx[d];
        return true;
    }
    case OP_ATEN_SELECT: case OP_IMMUT_SELECT: {
        if (!static_int(p, g, n->inputs[1], &dim))
            return false;
        dim = norm_dim(dim, in->rank);
        const KIdx *at = NULL;
        if (static_int(p, g, n->inputs[2], &v))
            at = kidx_const(b, v < 0 ? v + in->sizes[dim] : v);
        else if (!(at = runtime_index(bd, n->inputs[2], in->sizes[dim])))
            return false;
        for (int d = 0, o = 0; d < in->rank; d++)
            sub[d] = d == dim ? at : idx[o++];
        return true;
    }
    case OP_ATEN_PERMUTE: case OP_IMMUT_PERMUTE: {
        int64_t dims[KIR_MAX_RANK];
        if (static_ints(p, g, n->inputs[1], dims, KIR_MAX_RANK) != in->rank)
            return false;
        for (int d = 0; d < in->rank; d++)
            sub[norm_dim(dims[d], in->rank)] = idx[d];
        return true;
    }
    case OP_ATEN_TRANSPOSE: case OP_IMMUT_TRANSPOSE: case OP_ATEN_T: case OP_IMMUT_T: {
        int64_t a = 0, c = 1;
        if (n->op == OP_ATEN_TRANSPOSE || n->op == OP_IMMUT_TRANSPOSE) {
            if (!static_int(p, g, n->inputs[1], &a) || !static_int(p, g, n->inputs[2], &c))
                return false;
        } else if (in->rank < 2) {
            a = c = 0;
        }
        a = norm_dim(a, in->rank);
        c = norm_dim(c, in->rank);
        for (int d = 0; d < in->rank; d++)
            sub[d] = idx[d == a ? c : d == c ? a : d];
        return true;
    }
    case OP_ATEN_UNSQUEEZE: case OP_IMMUT_UNSQUEEZE:
        if (!static_int(p, g, n->inputs[1], &dim))
            return false;
        dim = norm_dim(dim, out->rank);
        for (int d = 0, o = 0; o < out->rank; o++)
            if (o != dim)
                sub[d++] = idx[o];
        return true;
    case OP_ATEN_SQUEEZE: case OP_IMMUT_SQUEEZE: {
        /* Every input dim that is absent from the output is a size-1 dim:
         * walk both shapes together. */
        int64_t only = -1;
        if (n->ninputs > 1 && !static_int(p, g, n->inputs[1], &only))
            return false;
        if (only >= 0 || n->ninputs > 1)
            only = norm_dim(only, in->rank);
        for (int d = 0, o = 0; d < in->rank; d++) {
            bool dropped = in->sizes[d] == 1 && (n->ninputs == 1 || d == only);
            sub[d] = dropped ? kidx_const(b, 0) : idx[o++];
        }
        return true;
    }
    case OP_ATEN_EXPAND: case OP_IMMUT_EXPAND: case OP_ATEN_EXPAND_AS: case OP_IMMUT_EXPAND_AS:
        for (int d = 0; d < in->rank; d++)
            sub[d] = in->sizes[d] == 1 ? kidx_const(b, 0) : idx[out->rank - in->rank + d];
        return true;
    case OP_ATEN_CONTIGUOUS: case OP_ATEN_CLONE: case OP_ATEN_ALIAS: case OP_ATEN_DETACH:
        for (int d = 0; d < in->rank; d++)
            sub[d] = idx[d];
        return true;
    default:    /* view, reshape, flatten, view_as, reshape_as: row-major order */
        reshape_index(b, idx, out, in, sub);
        return true;
    }
}

/* immut::slice_rev(base, src, dim, start, end, step) and
 * immut::select_rev(base, src, dim, index) at idx. */
static const KExpr *assign_at(Build *bd, const IrNode *n, const KIdx *const *idx,
                              const IrTensorType *out)
{
    KirBuilder *b = bd->b;
    int64_t dim;
    if (!static_int(bd->p, bd->group, n->inputs[2], &dim))
        return fail(bd, "a region with a run-time dim");
    dim = norm_dim(dim, out->rank);
    const KIdx *sub[KIR_MAX_RANK];
    KTest test = {.x = idx[dim], .step = 1};
    if (n->op == OP_IMMUT_SLICE_REV) {
        int64_t start, step, end = INT64_MAX;
        if (!slice_args(bd->p, bd->group, n, 1, out->sizes[dim], &start, &step))
            return fail(bd, "a slice with run-time bounds");
        if (n->ninputs > 4 && !static_none(bd->p, bd->group, n->inputs[4]) &&
            !static_int(bd->p, bd->group, n->inputs[4], &end))
            return fail(bd, "a slice with a run-time end");
        if (end < 0)
            end += out->sizes[dim];
        if (end > out->sizes[dim])
            end = out->sizes[dim];
        test.lo = start;
        test.hi = end;
        test.step = step;
        for (int d = 0; d < out->rank; d++)
            sub[d] = d == dim ? kidx_div(b, kidx_add(b, idx[d], kidx_const(b, -start)), step)
                              : idx[d];
    } else {
        int64_t v;
        const KIdx *at;
        if (static_int(bd->p, bd->group, n->inputs[3], &v)) {
            if (v < 0)
                v += out->sizes[dim];
            test.lo = v;
            test.hi = v + 1;
        } else if ((at = runtime_index(bd, n->inputs[3], out->sizes[dim]))) {
            /* idx - i in [0, 1) */
            test.x = kidx_add(b, idx[dim], kidx_mul(b, at, -1));
            test.lo = 0;
            test.hi = 1;
        } else {
            return fail(bd, "a select at a run-time index");
        }
        for (int d = 0, o = 0; d < out->rank; d++)
            if (d != dim)
                sub[o++] = idx[d];
    }
    /* The source has the region's shape (or is a number, x[i] = 2.0);
     * broadcast it to there. */
    TensorDType dtype = (TensorDType)out->dtype;
    const KExpr *in;
    if (is_tensor_value(n->inputs[1])) {
        const IrTensorType *src = shape_of(n->inputs[1]);
        int region_rank = n->op == OP_IMMUT_SLICE_REV ? out->rank : out->rank - 1;
        if (src->rank > region_rank)
            return fail(bd, "an assign's source of higher rank than its region");
        const KIdx *ssub[KIR_MAX_RANK];
        for (int d = 0; d < src->rank; d++)
            ssub[d] = src->sizes[d] == 1 ? kidx_const(b, 0) : sub[region_rank - src->rank + d];
        in = value_at(bd, n->inputs[1], ssub);
    } else {
        in = scalar_operand(bd, n->inputs[1], dtype);
    }
    const KExpr *base = value_at(bd, n->inputs[0], idx);
    if (!in || !base)
        return NULL;
    return kx_select(b, &test, 1, kx_cast(b, in, dtype), kx_cast(b, base, dtype));
}

/* cat(tensors, dim) and stack(tensors, dim) at idx: the piece that holds
 * idx[dim], found by a chain of selects from the last piece back. */
static const KExpr *cat_at(Build *bd, const IrNode *n, const KIdx *const *idx,
                           const IrTensorType *out)
{
    KirBuilder *b = bd->b;
    const IrNode *lc = n->inputs[0]->def;
    int64_t dim;
    if (lc->op != OP_PRIM_LISTCONSTRUCT || !static_int(bd->p, bd->group, n->inputs[1], &dim))
        return fail(bd, "cat of a list made outside the group");
    bool stack = n->op == OP_ATEN_STACK;
    dim = norm_dim(dim, out->rank);
    int64_t offsets[65];
    offsets[0] = 0;
    for (int i = 0; i < lc->ninputs; i++) {
        const IrTensorType *t = shape_of(lc->inputs[i]);
        if (!t)
            return fail(bd, "a piece of unknown shape");
        /* cat skips 1-d empty pieces, as PyTorch does (legacy behaviour). */
        int64_t len = stack ? 1 : t->rank == 1 && t->sizes[0] == 0 && out->rank != 1 ? 0 : t->sizes[dim];
        offsets[i + 1] = offsets[i] + len;
    }
    TensorDType dtype = (TensorDType)out->dtype;
    const KExpr *e = NULL;
    for (int i = lc->ninputs - 1; i >= 0; i--) {
        if (offsets[i + 1] == offsets[i])
            continue;
        const KIdx *sub[KIR_MAX_RANK];
        const KIdx *local = kidx_add(b, idx[dim], kidx_const(b, -offsets[i]));
        for (int d = 0, o = 0; d < out->rank; d++) {
            if (stack && d == dim)
                continue;
            sub[o++] = d == dim ? local : idx[d];
        }
        const KExpr *piece = value_at(bd, lc->inputs[i], sub);
        if (!piece)
            return NULL;
        piece = kx_cast(b, piece, dtype);
        if (!e) {
            e = piece;
        } else {
            KTest test = {.x = idx[dim], .lo = offsets[i], .hi = offsets[i + 1], .step = 1};
            e = kx_select(b, &test, 1, piece, e);
        }
    }
    return e ? e : fail(bd, "cat of nothing");
}

/* The key of x reduced over `reduced` at idx (an index of the result:
 * with keepdim it has x's rank, else the reduced dims are left out). */
static ReduceEntry reduce_key(const IrValue *x, int rank, const KIdx *const *idx,
                              const bool *reduced, bool keepdim, int op)
{
    ReduceEntry key;
    memset(&key, 0, sizeof key);
    key.x = x;
    key.op = op;
    for (int d = 0, o = 0; d < rank; d++) {
        if (reduced[d]) {
            key.mask |= 1u << d;
            if (keepdim)
                o++;
        } else {
            key.idx[d] = idx[o++];
        }
    }
    return key;
}

static const KExpr *reduce_find(const Build *bd, const ReduceEntry *key)
{
    for (int i = 0; i < bd->nreduces; i++) {
        const ReduceEntry *r = &bd->reduces[i];
        if (r->x == key->x && r->mask == key->mask && r->op == key->op &&
            memcmp(r->idx, key->idx, sizeof key->idx) == 0)
            return r->e;
    }
    return NULL;
}

static const KExpr *reduce_keep(Build *bd, ReduceEntry *key, const KExpr *e)
{
    if (bd->nreduces == bd->capreduces) {
        bd->capreduces = bd->capreduces ? bd->capreduces * 2 : 8;
        bd->reduces = xrealloc(bd->reduces, (size_t)bd->capreduces * sizeof *bd->reduces);
    }
    key->e = e;
    bd->reduces[bd->nreduces++] = *key;
    return e;
}

/* The element of input 0 at idx with the reduced dims replaced by fresh
 * loop variables, reduced. dims: sorted, distinct, in input 0's rank. */
static const KExpr *reduce_dims(Build *bd, const IrValue *x, const KIdx *const *idx, int rank,
                                const bool *reduced, bool keepdim, KReduce r, TensorDType dtype)
{
    bool indexed = r == KR_ARGMAX || r == KR_ARGMIN;
    KirBuilder *b = bd->b;
    const IrTensorType *in = shape_of(x);
    ReduceEntry key = reduce_key(x, in->rank, idx, reduced, keepdim, (int)r * 64 + (int)dtype);
    const KExpr *known_e = reduce_find(bd, &key);
    if (known_e)
        return known_e;
    /* A max (min) and its index over the same elements (aten::max(x, dim)'s
     * two outputs) share one loop variable and body, so the printer runs
     * one loop for both (kir_print.c, twin reductions). */
    KReduce twin = r == KR_MAX ? KR_ARGMAX : r == KR_ARGMAX ? KR_MAX
                 : r == KR_MIN ? KR_ARGMIN : r == KR_ARGMIN ? KR_MIN : r;
    if (twin != r) {
        TensorDType body_dtype = (TensorDType)in->dtype;
        ReduceEntry twin_key = reduce_key(x, in->rank, idx, reduced, keepdim,
                                          (int)twin * 64 + (int)(indexed ? body_dtype : DT_I64));
        const KExpr *t = reduce_find(bd, &twin_key);
        if (t && t->kind == KX_REDUCE && t->args[0]->dtype == (indexed ? t->dtype : dtype))
            return reduce_keep(bd, &key, kx_reduce(b, r, t->var, t->extent, t->args[0], dtype));
    }
    const KIdx *sub[KIR_MAX_RANK];
    int vars[KIR_MAX_RANK], nv = 0;
    for (int d = 0; d < in->rank; d++)
        nv += reduced[d];
    if (kir_nvars(b) + nv > KIR_MAX_VARS)
        return fail(bd, "more reduction loops than a kernel has variables");
    nv = 0;
    for (int d = 0, o = 0; d < in->rank; d++) {
        if (reduced[d]) {
            vars[nv] = kir_new_var(b);
            kir_set_extent(b, vars[nv], in->sizes[d]);
            sub[d] = kidx_var(b, vars[nv]);
            nv++;
            if (keepdim)
                o++;
        } else {
            sub[d] = idx[o++];
        }
    }
    (void)rank;
    const KExpr *e = value_at(bd, x, sub);
    if (!e)
        return NULL;
    if (!indexed)
        e = kx_cast(b, e, dtype);
    else if (nv != 1)
        return fail(bd, "an index reduction over several dims");
    for (int d = in->rank - 1, k = nv - 1; d >= 0; d--)
        if (reduced[d]) {
            e = kx_reduce(b, r, vars[k], in->sizes[d], e, dtype);
            k--;
        }
    return reduce_keep(bd, &key, e);
}

static const KExpr *reduction_at(Build *bd, const IrNode *n, int which, const KIdx *const *idx,
                                 const IrTensorType *out)
{
    KirBuilder *b = bd->b;
    const IrTensorType *in = shape_of(n->inputs[0]);
    TensorDType dtype = (TensorDType)out->dtype;
    bool reduced[KIR_MAX_RANK] = {false};
    if (n->op == OP_ATEN_SOFTMAX || n->op == OP_ATEN_LOG_SOFTMAX) {
        int64_t dim;
        if (!static_int(bd->p, bd->group, n->inputs[1], &dim))
            return fail(bd, "softmax over a run-time dim");
        /* A 0-d x (one row of one element) has no dim to reduce over in a
         * kernel's index space: the reference kernels run it. */
        if (in->rank == 0)
            return fail(bd, "softmax of a 0-d tensor");
        if (dim < -in->rank || dim >= in->rank)
            return fail(bd, "softmax over a dim out of range");
        dim = norm_dim(dim, in->rank);
        int64_t row_extent = in->sizes[dim];
        reduced[dim] = true;
        const KExpr *x = value_at(bd, n->inputs[0], idx);
        if (!x)
            return NULL;
        x = kx_cast(b, x, dtype);
        const KExpr *mx = reduce_dims(bd, n->inputs[0], idx, out->rank, reduced, true, KR_MAX, dtype);
        if (!mx)
            return NULL;
        const KExpr *shifted_args[2] = {x, mx};
        const KExpr *one = kx_const(b, dtype, 1);
        const KExpr *sub_args[3] = {shifted_args[0], shifted_args[1], one};
        const KExpr *shifted = kx_op(b, OP_ATEN_SUB, dtype, dtype, sub_args, 3);
        /* The row's sum of exp(x - max): a reduction over a fresh variable
         * of the shifted row, one per row (reduce_key). */
        ReduceEntry key = reduce_key(n->inputs[0], in->rank, idx, reduced, true,
                                     SOFTMAX_SUM + (int)dtype);
        const KExpr *sum = reduce_find(bd, &key);
        if (!sum) {
            if (kir_nvars(b) >= KIR_MAX_VARS)
                return fail(bd, "more reduction loops than a kernel has variables");
            int var = kir_new_var(b);
            kir_set_extent(b, var, row_extent);
            const KIdx *rsub[KIR_MAX_RANK];
            for (int d = 0; d < in->rank; d++)
                rsub[d] = d == dim ? kidx_var(b, var) : idx[d];
            const KExpr *xr = value_at(bd, n->inputs[0], rsub);
            if (!xr)
                return NULL;
            const KExpr *row_args[3] = {kx_cast(b, xr, dtype), mx, one};
            const KExpr *row_shift = kx_op(b, OP_ATEN_SUB, dtype, dtype, row_args, 3);
            const KExpr *row_exp = kx_op(b, OP_ATEN_EXP, dtype, dtype, &row_shift, 1);
            sum = reduce_keep(bd, &key, kx_reduce(b, KR_SUM, var, row_extent, row_exp, dtype));
        }
        if (n->op == OP_ATEN_SOFTMAX) {
            const KExpr *e = kx_op(b, OP_ATEN_EXP, dtype, dtype, &shifted, 1);
            const KExpr *div_args[2] = {e, sum};
            return kx_op(b, OP_ATEN_DIV, dtype, dtype, div_args, 2);
        }
        const KExpr *lg = kx_op(b, OP_ATEN_LOG, dtype, dtype, &sum, 1);
        const KExpr *ls_args[3] = {shifted, lg, one};
        return kx_op(b, OP_ATEN_SUB, dtype, dtype, ls_args, 3);
    }
    if (is_indexed_reduction(n)) {
        /* max / min (x, dim, keepdim) -> values, indices; argmax (x, dim, keepdim) */
        int64_t dim = 0, keepdim;
        bool vector = in->rank == 1 && static_none(bd->p, bd->group, n->inputs[1]);
        if ((!vector && !static_int(bd->p, bd->group, n->inputs[1], &dim)) ||
            !static_int(bd->p, bd->group, n->inputs[2], &keepdim))
            return fail(bd, "an index reduction over a run-time dim");
        dim = norm_dim(dim, in->rank);
        reduced[dim] = true;
        bool largest = n->op == OP_ATEN_MAX || n->op == OP_ATEN_ARGMAX;
        bool values = (n->op == OP_ATEN_MAX || n->op == OP_ATEN_MIN) && which == 0;
        KReduce r = values ? (largest ? KR_MAX : KR_MIN) : (largest ? KR_ARGMAX : KR_ARGMIN);
        return reduce_dims(bd, n->inputs[0], idx, out->rank, reduced, keepdim != 0, r, dtype);
    }
    /* sum / mean (x, dims, keepdim, dtype), sum / mean (x, dtype) over all
     * dims, amax / amin (x, dims, keepdim), max / min (x) over all dims */
    int64_t dims[KIR_MAX_RANK];
    bool dtype_only = n->ninputs == 2 && (n->op == OP_ATEN_SUM || n->op == OP_ATEN_MEAN) &&
                      !(n->inputs[1]->type && n->inputs[1]->type->kind == TY_LIST);
    int nd = n->ninputs > 1 && !dtype_only && !static_none(bd->p, bd->group, n->inputs[1])
                 ? static_ints(bd->p, bd->group, n->inputs[1], dims, KIR_MAX_RANK)
                 : 0;
    int64_t keep = 0;
    if (nd < 0 ||
        (!dtype_only && n->ninputs > 2 && !static_int(bd->p, bd->group, n->inputs[2], &keep)))
        return fail(bd, "a reduction over run-time dims");
    if (nd == 0)
        for (int d = 0; d < in->rank; d++)
            reduced[d] = true;
    for (int i = 0; i < nd; i++)
        reduced[norm_dim(dims[i], in->rank)] = true;
    int64_t count = 1;
    for (int d = 0; d < in->rank; d++)
        if (reduced[d])
            count *= in->sizes[d];
    KReduce r = n->op == OP_ATEN_AMAX || n->op == OP_ATEN_MAX   ? KR_MAX
                : n->op == OP_ATEN_AMIN || n->op == OP_ATEN_MIN ? KR_MIN
                                                                : KR_SUM;
    const KExpr *e = reduce_dims(bd, n->inputs[0], idx, out->rank, reduced, keep != 0, r, dtype);
    if (!e || n->op != OP_ATEN_MEAN)
        return e;
    /* the mean of nothing, 0 / 0: the constant NaN (nvcc warns of a
     * division by a constant 0, which kernels.cuda_source's -Werror refuses) */
    if (count == 0)
        return kx_const(b, dtype, NAN);
    const KExpr *args[2] = {e, kx_const(b, dtype, (double)count)};
    return kx_op(b, OP_ATEN_DIV, dtype, dtype, args, 2);
}

/* arange(end, ...), arange(start, end, ...), arange(start, end, step, ...):
 * the overload is told by the count of leading numbers. */
static const KExpr *arange_at(Build *bd, const IrNode *n, const KIdx *const *idx,
                              const IrTensorType *out)
{
    double num[3];
    int nn = 0;
    for (int i = 0; i < n->ninputs && nn < 3; i++) {
        const RtValue *r = kir_static(bd->p, bd->group, n->inputs[i]);
        if (!r || (r->kind != RT_INT && r->kind != RT_FLOAT))
            break;
        num[nn++] = r->kind == RT_INT ? (double)r->u.i : r->u.f;
    }
    /* with 5 trailing options (dtype, layout, device, pin) the numbers are
     * the first ninputs - 4 inputs */
    int given = n->ninputs - 4;
    if (given < 1 || given > 3 || nn < given)
        return fail(bd, "an arange overload kernels do not know");
    double start = given >= 2 ? num[0] : 0, step = given == 3 ? num[2] : 1;
    TensorDType dtype = (TensorDType)out->dtype;
    if (dtype_is_float(dtype) || start != (double)(int64_t)start || step != (double)(int64_t)step) {
        const KExpr *i = kx_index(bd->b, DT_F64, idx[0]);
        const KExpr *args[3] = {kx_const(bd->b, DT_F64, start), i, kx_const(bd->b, DT_F64, step)};
        return kx_cast(bd->b, kx_op(bd->b, OP_ATEN_ADD, DT_F64, DT_F64, args, 3), dtype);
    }
    const KIdx *v = kidx_add(bd->b, kidx_mul(bd->b, idx[0], (int64_t)step), kidx_const(bd->b, (int64_t)start));
    return kx_index(bd->b, dtype, v);
}

static const KExpr *fill_at(Build *bd, const IrNode *n, const IrTensorType *out)
{
    TensorDType dtype = (TensorDType)out->dtype;
    if (n->op == OP_ATEN_ZEROS || n->op == OP_ATEN_ZEROS_LIKE)
        return kx_const(bd->b, dtype, 0);
    if (n->op == OP_ATEN_ONES || n->op == OP_ATEN_ONES_LIKE)
        return kx_const(bd->b, dtype, 1);
    const RtValue *r = kir_static(bd->p, bd->group, n->inputs[1]);
    if (!r || (r->kind != RT_INT && r->kind != RT_FLOAT && r->kind != RT_BOOL))
        return fail(bd, "a fill with a run-time value");
    return r->kind == RT_FLOAT ? kx_const(bd->b, dtype, r->u.f) : int_const(bd, dtype, r->u.i);
}

/* Output `which` of n at idx. */
static const KExpr *node_at(Build *bd, const IrNode *n, int which, const KIdx *const *idx)
{
    const IrTensorType *out = shape_of(n->outputs[which]);
    if (op_template(n->op) && !is_indexed_reduction(n) && !is_full_min_max(n))
        return template_at(bd, n, idx, out);
    if (is_cast(n->op)) {
        const KExpr *e = value_at(bd, n->inputs[0], idx);
        return e ? kx_cast(bd->b, e, (TensorDType)out->dtype) : NULL;
    }
    if (is_view_like(n->op)) {
        const KIdx *sub[KIR_MAX_RANK];
        if (!view_index(bd, n, idx, out, sub))
            return fail(bd, "a view with run-time arguments");
        const KExpr *e = value_at(bd, n->inputs[0], sub);
        return e ? kx_cast(bd->b, e, (TensorDType)out->dtype) : NULL;
    }
    if (is_reduction(n->op))
        return reduction_at(bd, n, which, idx, out);
    switch (n->op) {
    case OP_IMMUT_SLICE_REV: case OP_IMMUT_SELECT_REV:
        return assign_at(bd, n, idx, out);
    case OP_ATEN_CAT: case OP_ATEN_STACK:
        return cat_at(bd, n, idx, out);
    case OP_ATEN_ARANGE:
        return arange_at(bd, n, idx, out);
    default:
        return fill_at(bd, n, out);
    }
}

static const KExpr *value_at(Build *bd, const IrValue *v, const KIdx *const *idx)
{
    const IrTensorType *t = shape_of(v);
    if (!t)
        return fail(bd, "a value of unknown shape");
    MemoEntry *m = memo_find(bd, v, idx, t->rank, false);
    if (m)
        return m->e;
    const KExpr *e;
    if (v->def == bd->group->blocks[0]->param) {
        e = kx_load(bd->b, v->def_index, (TensorDType)t->dtype,
                    contiguous_offset(bd->b, idx, t->sizes, t->rank));
    } else {
        e = node_at(bd, v->def, v->def_index, idx);
    }
    if (!e)
        return NULL;
    m = memo_find(bd, v, idx, t->rank, true);
    m->e = e;
    return e;
}

/* The element offset of idx in a contiguous tensor of the given sizes.
 * Neighbouring dims whose indices split one linear index (a reshape's
 * delinearization: ..., (L / s) % s', L % s) are joined back first, so a
 * view of a contiguous tensor reads it at L * stride instead of through
 * divisions. */
static const KIdx *contiguous_offset(KirBuilder *b, const KIdx *const *idx, const int64_t *sizes,
                                     int rank)
{
    const KIdx *ti[KIR_MAX_RANK];
    int64_t ts[KIR_MAX_RANK], tstride[KIR_MAX_RANK];
    int n = 0;
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (sizes[d] != 1) {
            ti[n] = idx[d];
            ts[n] = sizes[d];
            tstride[n] = stride;
            n++;
        }
        stride *= sizes[d];
    }
    /* terms are innermost first: term k+1 is the dim outside term k */
    for (int k = 0; k + 1 < n;) {
        const KIdx *inner = ti[k], *outer = ti[k + 1];
        bool joined = false;
        if (inner->kind == KI_MOD && inner->c == ts[k] && tstride[k + 1] == tstride[k] * ts[k]) {
            const KIdx *lin = inner->a;
            const KIdx *q = kidx_div(b, lin, ts[k]);
            if (outer == q) {
                ti[k] = lin;
                joined = true;
            } else if (outer == kidx_mod(b, q, ts[k + 1])) {
                ti[k] = kidx_mod(b, lin, ts[k] * ts[k + 1]);
                joined = true;
            }
        }
        if (!joined) {
            k++;
            continue;
        }
        ts[k] *= ts[k + 1];
        for (int j = k + 1; j + 1 < n; j++) {
            ti[j] = ti[j + 1];
            ts[j] = ts[j + 1];
            tstride[j] = tstride[j + 1];
        }
        n--;
    }
    const KIdx *off = kidx_const(b, 0);
    for (int k = n - 1; k >= 0; k--)
        off = kidx_add(b, off, kidx_mul(b, ti[k], tstride[k]));
    return off;
}

static bool build_inputs(Build *bd)
{
    const IrBlock *blk = bd->group->blocks[0];
    KKernel *k = bd->k;
    k->ninputs = ir_block_nparams(blk);
    k->inputs = arena_alloc(kir_arena(bd->b), (size_t)(k->ninputs + 1) * sizeof *k->inputs);
    for (int i = 0; i < k->ninputs; i++) {
        const IrValue *prm = ir_block_param(blk, i);
        KInput *in = &k->inputs[i];
        if (is_tensor_value(prm)) {
            const IrTensorType *t = known(prm);
            if (!t) {
                bd->why = "an input of unknown shape";
                return false;
            }
            in->kind = KIN_TENSOR;
            in->dtype = (TensorDType)t->dtype;
            in->rank = t->rank;
            memcpy(in->sizes, t->sizes, (size_t)t->rank * sizeof *t->sizes);
        } else {
            in->kind = prm->type && prm->type->kind == TY_FLOAT ? KIN_FLOAT : KIN_INT;
        }
        in->index_limit = -1;
    }
    return true;
}

KKernel *kir_build_kernel(KirBuilder *b, const LowerProgram *p, const IrNode *group,
                          const char *name, const char **why)
{
    Build bd = {.b = b, .p = p, .group = group, .iterations = ir_group_iterations(group)};
    KKernel *k = arena_alloc(kir_arena(b), sizeof *k);
    bd.k = k;
    snprintf(k->name, sizeof k->name, "%s", name);
    const IrBlock *blk = group->blocks[0];
    bool ok = build_inputs(&bd);
    k->noutputs = ir_block_nreturns(blk);
    k->outputs = arena_alloc(kir_arena(b), (size_t)(k->noutputs + 1) * sizeof *k->outputs);
    for (int o = 0; ok && o < k->noutputs; o++) {
        const IrValue *v = ir_block_return(blk, o);
        const IrTensorType *t = known(v);
        if (!t) {
            bd.why = "an output of unknown shape";
            ok = false;
            break;
        }
        KOutput *out = &k->outputs[o];
        /* An iterations group's output has the iterations as a new dim 0
         * (loop variable 0); the block's value then has variables 1.. */
        int lead = bd.iterations > 0;
        if (t->rank + lead > KIR_MAX_RANK) {
            bd.why = "an output of too many dimensions";
            ok = false;
            break;
        }
        out->dtype = (TensorDType)t->dtype;
        out->rank = t->rank + lead;
        out->sizes[0] = bd.iterations;
        memcpy(out->sizes + lead, t->sizes, (size_t)t->rank * sizeof *t->sizes);
        /* Loop variables 0..rank-1 are this output's dimensions; each
         * output starts the reductions' variables after them afresh. */
        const KIdx *idx[KIR_MAX_RANK];
        if (lead)
            kir_set_extent(b, 0, bd.iterations);
        for (int d = 0; d < t->rank; d++) {
            kir_set_extent(b, d + lead, t->sizes[d]);
            idx[d] = t->sizes[d] == 1 ? kidx_const(b, 0) : kidx_var(b, d + lead);
        }
        out->value = value_at(&bd, v, idx);
        ok = out->value != NULL;
        /* The memo holds index expressions simplified under this output's
         * extents: the next output starts with an empty one unless it has
         * the same shape (then it shares this one's values and reductions,
         * and the printer computes them once for both: a max and its
         * index). */
        const IrTensorType *next = o + 1 < k->noutputs ? known(ir_block_return(blk, o + 1)) : NULL;
        bool same = next && next->rank == t->rank &&
                    memcmp(next->sizes, t->sizes, (size_t)t->rank * sizeof *t->sizes) == 0;
        if (!same) {
            free(bd.memo);
            bd.memo = NULL;
            bd.memo_cap = bd.memo_n = 0;
            bd.nreduces = 0;
        }
    }
    free(bd.memo);
    free(bd.reduces);
    k->nvars = kir_nvars(b);
    if (!ok) {
        *why = bd.why ? bd.why : "unsupported";
        return NULL;
    }
    return k;
}
