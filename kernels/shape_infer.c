/* shape_infer.c — static shapes and dtypes of a specialized program.
 *
 * Preconditions: lower_specialize has run (sizes, dims and other scalars
 * computed from the bound inputs are compile-time values). Result: every
 * tensor value whose shape and dtype follow from its op's rule gets a refined
 * type (Float(64, 128)); the rest keep theirs (shape_of says NULL for them).
 *
 * One walk in program order. A value's type comes from, first that applies:
 *   a compile-time tensor (weights, constants) or a bound input: its own;
 *   its op's rule, by family:
 *     elementwise   operands broadcast; dtype by PyTorch's result_type
 *                   (tensor_result_type on stand-in tensors), comparisons
 *                   and logical ops bool, true division and float functions
 *                   of integers float32, casts their target;
 *     views, immut:: accesses
 *                   slice / select / narrow / permute / transpose / t /
 *                   unsqueeze / squeeze / expand / view / reshape / flatten;
 *     assigns       immut::<view>_rev: its base's type;
 *     writes into self
 *                   index_put, scatter, index_add / copy / fill, put:
 *                   self's type (masked_scatter broadcasts self with the
 *                   mask: the general rule);
 *     reductions    sum, mean, amax, amin, argmax, max / min over a dim
 *                   (values and indices), softmax, log_softmax, cumsum;
 *     products      mm, bmm, matmul, linear, addmm;
 *     cells         gru_cell, rnn_tanh_cell, lstm_cell: the hidden state's;
 *     creation      zeros, ones, full, empty, rand(n), *_like, arange;
 *     joins         cat, stack; chunk / split / unbind / meshgrid with their
 *                   ListUnpack; ListUnpack and TupleUnpack of a construct;
 *   prim::If: the branches' common type; prim::Loop: the carried values'
 *   initial types when the body returns them unchanged (one more pass with
 *   the changing ones unknown otherwise).
 *   any other op, or one whose rule above did not hold: the general rule
 *   (kernels/shape_eval.c): the op's own evaluator binding run on stand-in
 *   tensors of its inputs' static shapes, its results' shapes read off.
 * Data-dependent shapes (nonzero, masked_select, unique, boolean masks: the
 * generated list of ir/op_dynamic_shape.inc) and ops that fail on
 * stand-ins are left unknown: never guessed. A rule that does not hold
 * (operands that do not broadcast, mm of mismatched inner sizes) leaves the
 * value unknown too: the node then runs on the reference kernels and fails
 * there with PyTorch's message, naming the node and its source line.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

enum { MAXR = TENSOR_MAX_DIMS };

typedef struct Shape {
    int dtype;                  /* TensorDType */
    int rank;
    int64_t sizes[MAXR];
} Shape;

typedef struct Infer {
    LowerProgram *p;
    IrGraph *g;
    RtValue **inputs;           /* the bound inputs (shape_eval's last stand-ins) */
    int ninputs;
    int depth;                  /* inside an If or a Loop */
    int64_t *decided;           /* by value id: scalars the shapes decide */
    bool *is_decided;           /* (kernels_decide_scalar), inside bodies */
    uint32_t ndecided;
    struct Affine *affine;      /* by value id: ints affine in a loop's counter */
    uint32_t naffine;
    IrType **optional;          /* by value id: an Optional[Tensor] typed as the */
    uint32_t noptional;         /* tensor it is known to hold; forget restores it */
    ShapeEval *eval;            /* the general rule's evaluator, made on first use */
} Infer;

/* An int k * counter + c, counter a loop's iteration counter running over
 * [0, last] (a head's columns h * D and (h + 1) * D): a slice between two
 * such bounds with the same k has a static length. counter NULL: none. */
typedef struct Affine {
    const IrValue *counter;
    int64_t k, c, last;
} Affine;

static bool get(const IrValue *v, Shape *s)
{
    const IrTensorType *t = shape_of(v);
    if (!t)
        return false;
    s->dtype = t->dtype;
    s->rank = t->rank;
    memcpy(s->sizes, t->sizes, (size_t)t->rank * sizeof *s->sizes);
    return true;
}

/* Types v as s. An Optional[Tensor] (an If's result whose other branch
 * raises or is not taken: torch 2.x's GRUCell `hx`) becomes the tensor it is
 * known to hold, its own type kept for forget. */
static void set(Infer *in, IrValue *v, const Shape *s)
{
    if (v->type && v->type->kind == TY_OPTIONAL && v->type->nelems == 1 &&
        v->type->elems[0]->kind == TY_TENSOR) {
        uint32_t n = in->g->nvalues + 1;
        if (n > in->noptional) {
            in->optional = xrealloc(in->optional, n * sizeof *in->optional);
            memset(in->optional + in->noptional, 0, (n - in->noptional) * sizeof *in->optional);
            in->noptional = n;
        }
        in->optional[v->id] = v->type;
    } else if (!v->type || v->type->kind != TY_TENSOR) {
        return;
    }
    v->type = ir_type_tensor_refined(in->g, s->dtype, s->rank, s->sizes, NULL);
}

/* Marks v unknown again (a loop-carried value whose shape changes). */
static void forget(Infer *in, IrValue *v)
{
    if (v->id < in->noptional && in->optional[v->id])
        v->type = in->optional[v->id];
    else if (v->type && v->type->kind == TY_TENSOR)
        v->type = ir_type_tensor(in->g);
}

/* A rule that does not hold for these shapes (operands that do not
 * broadcast, a view of the wrong element count): the value stays unknown,
 * so its node runs on the reference kernels, which fail there with
 * PyTorch's own message, the node and its source line (exit status 1),
 * exactly as without fusion. `what` says which rule, for a reader. */
static bool contradiction(const IrNode *n, const char *what)
{
    (void)n;
    (void)what;
    return false;
}

/* ---------------------------------------------------------------- scalars */

static const RtValue *stat(const Infer *in, const IrValue *v)
{
    return lower_static_value(in->p, v);
}

static bool decided(void *ctx, const IrValue *v, int64_t *out)
{
    const Infer *in = ctx;
    if (v->id >= in->ndecided || !in->is_decided[v->id])
        return false;
    *out = in->decided[v->id];
    return true;
}

static void set_decided(Infer *in, const IrValue *v, bool known, int64_t value)
{
    uint32_t n = in->g->nvalues + 1;
    if (n > in->ndecided) {
        in->decided = xrealloc(in->decided, n * sizeof *in->decided);
        in->is_decided = xrealloc(in->is_decided, n * sizeof *in->is_decided);
        memset(in->is_decided + in->ndecided, 0, (n - in->ndecided) * sizeof *in->is_decided);
        in->ndecided = n;
    }
    in->is_decided[v->id] = known;
    in->decided[v->id] = value;
}

static void set_affine(Infer *in, const IrValue *v, Affine a)
{
    uint32_t n = in->g->nvalues + 1;
    if (n > in->naffine) {
        in->affine = xrealloc(in->affine, n * sizeof *in->affine);
        memset(in->affine + in->naffine, 0, (n - in->naffine) * sizeof *in->affine);
        in->naffine = n;
    }
    in->affine[v->id] = a;
}

static bool sint(const Infer *in, const IrValue *v, int64_t *out);

/* v as k * counter + c (a number: k = 0, counter NULL). */
static bool affine_of(const Infer *in, const IrValue *v, Affine *a)
{
    int64_t c;
    if (sint(in, v, &c)) {
        *a = (Affine){.c = c};
        return true;
    }
    if (v->id >= in->naffine || !in->affine[v->id].counter)
        return false;
    *a = in->affine[v->id];
    return true;
}

/* aten::add / sub / mul of ints affine in one counter. */
static void infer_affine(Infer *in, const IrNode *n)
{
    Affine a, b;
    if (n->noutputs != 1 || n->ninputs < 2 || !n->outputs[0]->type ||
        n->outputs[0]->type->kind != TY_INT || !affine_of(in, n->inputs[0], &a) ||
        !affine_of(in, n->inputs[1], &b) || (!a.counter && !b.counter) ||
        (a.counter && b.counter && a.counter != b.counter))
        return;
    const IrValue *counter = a.counter ? a.counter : b.counter;
    int64_t last = a.counter ? a.last : b.last;
    Affine r = {.counter = counter, .last = last};
    if (n->op == OP_ATEN_ADD || n->op == OP_ATEN_SUB) {
        int64_t sign = n->op == OP_ATEN_SUB ? -1 : 1;
        r.k = a.k + sign * b.k;
        r.c = a.c + sign * b.c;
    } else if (n->op == OP_ATEN_MUL && (!a.counter || !b.counter)) {
        const Affine *f = a.counter ? &a : &b, *g = a.counter ? &b : &a;
        r.k = f->k * g->c;
        r.c = f->c * g->c;
    } else {
        return;
    }
    set_affine(in, n->outputs[0], r);
}

static bool sint(const Infer *in, const IrValue *v, int64_t *out)
{
    const RtValue *r = stat(in, v);
    if (!r)
        return decided((void *)in, v, out);
    if (r->kind != RT_INT && r->kind != RT_BOOL)
        return false;
    *out = r->u.i;
    return true;
}

static bool snone(const Infer *in, const IrValue *v)
{
    const RtValue *r = stat(in, v);
    return r && r->kind == RT_NONE;
}

static int sints(const Infer *in, const IrValue *v, int64_t *out)
{
    const RtValue *r = stat(in, v);
    const IrNode *d = v->def;
    if (!r && (d->op == OP_PRIM_LISTCONSTRUCT || d->op == OP_PRIM_TUPLECONSTRUCT) && d->ninputs <= MAXR) {
        /* [B, T, C] of sizes the shapes decided */
        for (int i = 0; i < d->ninputs; i++)
            if (!sint(in, d->inputs[i], &out[i]))
                return -1;
        return d->ninputs;
    }
    if (!r)
        return -1;
    if (r->kind == RT_INT) {
        out[0] = r->u.i;
        return 1;
    }
    if ((r->kind != RT_LIST && r->kind != RT_TUPLE) || r->u.list.n > MAXR)
        return -1;
    for (int i = 0; i < r->u.list.n; i++) {
        if (r->u.list.items[i]->kind != RT_INT)
            return -1;
        out[i] = r->u.list.items[i]->u.i;
    }
    return r->u.list.n;
}

/* A dtype argument: a compile-time ScalarType code or prim::dtype of a
 * tensor of known dtype; `otherwise` for None; -1 when only the run knows. */
static int sdtype(const Infer *in, const IrValue *v, int otherwise)
{
    int64_t code;
    if (sint(in, v, &code))
        return dtype_from_scalar_type(code);
    if (snone(in, v))
        return otherwise;
    if (v->def->op == OP_PRIM_DTYPE && v->def->ninputs == 1 && shape_of(v->def->inputs[0]))
        return shape_of(v->def->inputs[0])->dtype;
    return -1;
}

static bool is_tensor(const IrValue *v)
{
    return v->type && v->type->kind == TY_TENSOR;
}

/* ---------------------------------------------------------------- the general rule */

/* The results of n run on stand-ins of its inputs (kernels/shape_eval.c),
 * in outs[0..noutputs); false when it cannot be. */
static bool evaluate(Infer *in, IrNode *n, RtValue **outs)
{
    if (!in->eval)
        in->eval = shape_eval_new(in->g, in->inputs, in->ninputs);
    ScalarLookup lk = {.p = in->p, .decided = decided, .ctx = in};
    return shape_eval_node(in->eval, &lk, n, outs);
}

/* Types v as tensor value r (nothing when r is not a tensor). */
static void set_from(Infer *in, IrValue *v, const RtValue *r)
{
    if (!r || r->kind != RT_TENSOR)
        return;
    Shape s = {.dtype = r->u.t->dtype, .rank = r->u.t->ndim};
    memcpy(s.sizes, r->u.t->sizes, (size_t)s.rank * sizeof *s.sizes);
    set(in, v, &s);
}

/* The general rule for a node the hand rules did not type: every tensor
 * result still unknown gets the type of the op's own result on stand-ins. */
static void infer_by_eval(Infer *in, IrNode *n)
{
    RtValue **outs = xcalloc((size_t)n->noutputs + 1, sizeof *outs);
    if (evaluate(in, n, outs))
        for (int k = 0; k < n->noutputs; k++)
            if (!shape_of(n->outputs[k]))
                set_from(in, n->outputs[k], outs[k]);
    for (int k = 0; k < n->noutputs; k++)
        rt_release(outs[k]);
    free(outs);
}

/* Item k of the list or tuple `list` evaluated on stand-ins (a new
 * reference), or NULL. */
static RtValue *evaluated_item(Infer *in, const IrValue *list, int64_t k)
{
    IrNode *src = list->def;
    RtValue **outs = xcalloc((size_t)src->noutputs + 1, sizeof *outs), *item = NULL;
    if (evaluate(in, src, outs)) {
        const RtValue *l = outs[list->def_index];
        if (l && (l->kind == RT_LIST || l->kind == RT_TUPLE) && k >= -l->u.list.n && k < l->u.list.n)
            item = rt_retain(l->u.list.items[k < 0 ? k + l->u.list.n : k]);
    }
    for (int i = 0; i < src->noutputs; i++)
        rt_release(outs[i]);
    free(outs);
    return item;
}

static bool norm(int64_t *d, int rank)
{
    if (*d < 0)
        *d += rank;
    return *d >= 0 && *d < (rank > 0 ? rank : 1);
}

/* ---------------------------------------------------------------- elementwise */

static bool broadcast(Infer *in, const IrNode *n, Shape *out, const Shape *s)
{
    int r = out->rank > s->rank ? out->rank : s->rank;
    int64_t sizes[MAXR];
    for (int i = 0; i < r; i++) {
        int a = i - (r - out->rank), b = i - (r - s->rank);
        int64_t x = a >= 0 ? out->sizes[a] : 1, y = b >= 0 ? s->sizes[b] : 1;
        if (x != y && x != 1 && y != 1)
            return contradiction(n, "the operands' shapes do not broadcast");
        sizes[i] = x == 1 ? y : x;
    }
    out->rank = r;
    memcpy(out->sizes, sizes, sizeof sizes);
    return true;
}

/* The operands' broadcast shape and their result_type; false when one is
 * unknown. */
static bool operands(Infer *in, const IrNode *n, int first, int count, Shape *out)
{
    Tensor stand[8];
    const Tensor *ts[8];
    int nt = 0;
    out->rank = 0;
    out->dtype = -1;
    for (int i = first; i < first + count && i < n->ninputs && nt < 8; i++) {
        const IrValue *v = n->inputs[i];
        memset(&stand[nt], 0, sizeof stand[nt]);
        if (is_tensor(v)) {
            Shape s;
            if (!get(v, &s) || !broadcast(in, n, out, &s))
                return false;
            stand[nt].dtype = (TensorDType)s.dtype;
            stand[nt].ndim = s.rank;
        } else {
            const RtValue *r = stat(in, v);
            IrTypeKind k = v->type ? v->type->kind : TY_ANY;
            if (r ? r->kind == RT_NONE : k == TY_NONE)
                continue;
            bool fl = r ? r->kind == RT_FLOAT : k == TY_FLOAT;
            bool bo = r ? r->kind == RT_BOOL : k == TY_BOOL;
            if (!r && k != TY_INT && k != TY_FLOAT && k != TY_BOOL && k != TY_NUMBER)
                continue;
            if (!r && k == TY_NUMBER)
                return false;       /* a Scalar of unknown kind */
            stand[nt].dtype = fl ? DT_F64 : bo ? DT_BOOL : DT_I64;
            stand[nt].wrapped_number = true;
        }
        ts[nt] = &stand[nt];
        nt++;
    }
    out->dtype = tensor_result_type(ts, nt);
    return true;
}

typedef enum ElemRule { ELEM_SAME, ELEM_FLOAT, ELEM_BOOL } ElemRule;

static bool elem_rule(OpId op, ElemRule *rule, int *count)
{
    *count = 4;
    switch (op) {
    case OP_ATEN_EQ: case OP_ATEN_NE: case OP_ATEN_LT: case OP_ATEN_LE: case OP_ATEN_GT:
    case OP_ATEN_GE: case OP_ATEN_LOGICAL_AND: case OP_ATEN_LOGICAL_OR: case OP_ATEN_LOGICAL_NOT:
    case OP_ATEN_LOGICAL_XOR: case OP_ATEN_ISNAN: case OP_ATEN_ISINF: case OP_ATEN_ISFINITE:
        *rule = ELEM_BOOL;
        return true;
    case OP_ATEN_EXP: case OP_ATEN_EXP2: case OP_ATEN_EXPM1: case OP_ATEN_LOG:
    case OP_ATEN_LOG2: case OP_ATEN_LOG10: case OP_ATEN_LOG1P: case OP_ATEN_SQRT: case OP_ATEN_RSQRT:
    case OP_ATEN_SIN: case OP_ATEN_COS: case OP_ATEN_TAN: case OP_ATEN_TANH: case OP_ATEN_ATAN:
    case OP_ATEN_ATAN2: case OP_ATEN_ERF: case OP_ATEN_SIGMOID: case OP_ATEN_SILU:
    case OP_ATEN_RECIPROCAL: case OP_ATEN_GELU: case OP_ATEN_SOFTPLUS: case OP_ATEN_ELU:
    case OP_ATEN_LERP: case OP_ATEN_ASIN: case OP_ATEN_ACOS: case OP_ATEN_SINH: case OP_ATEN_COSH:
        *rule = ELEM_FLOAT;
        if (op == OP_ATEN_DIV)
            *count = 2;         /* rounding_mode aside */
        return true;
    case OP_ATEN_ADD: case OP_ATEN_SUB: case OP_ATEN_RSUB:
        *rule = ELEM_SAME;
        *count = 2;             /* alpha does not promote */
        return true;
    case OP_ATEN_MUL: case OP_ATEN_NEG: case OP_ATEN_ABS: case OP_ATEN_RELU: case OP_ATEN_FLOOR:
    case OP_ATEN_CEIL: case OP_ATEN_ROUND: case OP_ATEN_TRUNC: case OP_ATEN_SIGN:
    case OP_ATEN_MAXIMUM: case OP_ATEN_MINIMUM: case OP_ATEN_POW: case OP_ATEN_REMAINDER:
    case OP_ATEN_FMOD: case OP_ATEN_FLOOR_DIVIDE: case OP_ATEN_AND: case OP_ATEN_OR:
    case OP_ATEN_XOR: case OP_ATEN_INVERT: case OP_ATEN_BITWISE_AND: case OP_ATEN_BITWISE_OR:
    case OP_ATEN_BITWISE_XOR: case OP_ATEN_BITWISE_NOT: case OP_ATEN_SQUARE:
    case OP_ATEN_LEAKY_RELU: case OP_ATEN_HARDTANH: case OP_ATEN_RELU6:
    case OP_ATEN_HARDSIGMOID: case OP_ATEN_HARDSWISH:
        *rule = ELEM_SAME;
        if (op == OP_ATEN_LEAKY_RELU || op == OP_ATEN_HARDTANH)
            *count = 1;
        return true;
    case OP_ATEN_CLAMP: case OP_ATEN_CLAMP_MIN: case OP_ATEN_CLAMP_MAX:
        *rule = ELEM_SAME;
        return true;
    default:
        return false;
    }
}

static bool infer_elementwise(Infer *in, const IrNode *n, ElemRule rule, int count, Shape *out)
{
    if (!operands(in, n, 0, count, out))
        return false;
    if (rule == ELEM_BOOL)
        out->dtype = DT_BOOL;
    else if (n->op == OP_ATEN_SQUARE && out->dtype == DT_BOOL)
        out->dtype = DT_I64;    /* square is pow(x, 2): a bool's is int64 */
    else if (rule == ELEM_FLOAT && !dtype_is_float((TensorDType)out->dtype))
        out->dtype = dtype_default_float();
    return true;
}

/* ---------------------------------------------------------------- views */

static bool view_sizes(Infer *in, const IrNode *n, const Shape *x, const int64_t *want, int r,
                       Shape *out)
{
    int64_t numel = 1, known = 1;
    int infer_at = -1;
    for (int d = 0; d < x->rank; d++)
        numel *= x->sizes[d];
    for (int d = 0; d < r; d++) {
        if (want[d] == -1) {
            if (infer_at >= 0)
                return contradiction(n, "only one dimension can be inferred");
            infer_at = d;
        } else {
            known *= want[d];
        }
        out->sizes[d] = want[d];
    }
    if (infer_at >= 0) {
        if (known == 0 || numel % known != 0)
            return contradiction(n, "the shape is invalid for the input's size");
        out->sizes[infer_at] = numel / known;
    } else if (known != numel) {
        return contradiction(n, "the shape is invalid for the input's size");
    }
    out->rank = r;
    out->dtype = x->dtype;
    return true;
}

static bool infer_view(Infer *in, const IrNode *n, Shape *out)
{
    Shape x;
    if (!get(n->inputs[0], &x))
        return false;
    *out = x;
    int64_t d, a, b, v[MAXR];
    int k;
    switch (n->op) {
    case OP_ATEN_SLICE: case OP_IMMUT_SLICE: {
        int64_t start = 0, end = INT64_MAX, step = 1;
        if (n->ninputs < 2 || !sint(in, n->inputs[1], &d) || !norm(&d, x.rank))
            return false;
        if (n->ninputs > 4 && !sint(in, n->inputs[4], &step))
            return false;
        Affine fs, fe;
        if (n->ninputs > 3 && step == 1 && !snone(in, n->inputs[2]) && !snone(in, n->inputs[3]) &&
            affine_of(in, n->inputs[2], &fs) && affine_of(in, n->inputs[3], &fe) &&
            (fs.counter || fe.counter) && fs.k == fe.k && (!fs.counter || !fe.counter || fs.counter == fe.counter)) {
            /* bounds moving together with a loop's counter: the length is
             * end - start wherever both stay inside [0, size] */
            int64_t last = fs.counter ? fs.last : fe.last;
            int64_t s0 = fs.c, s1 = fs.c + fs.k * last, e0 = fe.c, e1 = fe.c + fe.k * last;
            int64_t size = x.sizes[d];
            if ((s0 < s1 ? s0 : s1) < 0 || (e0 > e1 ? e0 : e1) > size || fe.c < fs.c)
                return false;
            out->sizes[d] = fe.c - fs.c;
            return true;
        }
        if (n->ninputs > 2 && !snone(in, n->inputs[2]) && !sint(in, n->inputs[2], &start))
            return false;
        if (n->ninputs > 3 && !snone(in, n->inputs[3]) && !sint(in, n->inputs[3], &end))
            return false;
        if (step < 1)
            return contradiction(n, "slice step must be positive");
        int64_t len = tensor_slice_bounds(x.sizes[d], &start, &end);
        out->sizes[d] = len == 0 ? 0 : (len - 1) / step + 1;    /* as tensor_slice */
        return true;
    }
    case OP_ATEN_NARROW: case OP_IMMUT_NARROW:
        /* norm takes dim 0 of a 0-d tensor (a reduction's); neither op
         * does: left to the evaluator, which refuses it. */
        if (x.rank == 0 || !sint(in, n->inputs[1], &d) || !norm(&d, x.rank) || !sint(in, n->inputs[3], &b))
            return false;
        out->sizes[d] = b;
        return true;
    case OP_ATEN_SELECT: case OP_IMMUT_SELECT:
        if (x.rank == 0 || !sint(in, n->inputs[1], &d) || !norm(&d, x.rank))
            return false;
        if (sint(in, n->inputs[2], &a) && (a < -x.sizes[d] || a >= x.sizes[d]))
            return contradiction(n, "index out of range");
        for (int i = (int)d; i + 1 < x.rank; i++)
            out->sizes[i] = x.sizes[i + 1];
        out->rank = x.rank - 1;
        return true;
    case OP_ATEN_PERMUTE: case OP_IMMUT_PERMUTE:
        if (sints(in, n->inputs[1], v) != x.rank)
            return false;
        for (int i = 0; i < x.rank; i++) {
            if (!norm(&v[i], x.rank))
                return false;
            out->sizes[i] = x.sizes[v[i]];
        }
        return true;
    case OP_ATEN_TRANSPOSE: case OP_IMMUT_TRANSPOSE:
        if (!sint(in, n->inputs[1], &a) || !sint(in, n->inputs[2], &b) || !norm(&a, x.rank) ||
            !norm(&b, x.rank))
            return false;
        out->sizes[a] = x.sizes[b];
        out->sizes[b] = x.sizes[a];
        return true;
    case OP_ATEN_T: case OP_IMMUT_T:
        if (x.rank == 2) {
            out->sizes[0] = x.sizes[1];
            out->sizes[1] = x.sizes[0];
        }
        return x.rank <= 2;
    case OP_ATEN_UNSQUEEZE: case OP_IMMUT_UNSQUEEZE:
        if (!sint(in, n->inputs[1], &d) || !norm(&d, x.rank + 1) || x.rank >= MAXR)
            return false;
        for (int i = x.rank; i > d; i--)
            out->sizes[i] = x.sizes[i - 1];
        out->sizes[d] = 1;
        out->rank = x.rank + 1;
        return true;
    case OP_ATEN_SQUEEZE: case OP_IMMUT_SQUEEZE: {
        int64_t only = -1;
        if (n->ninputs > 1 && (!sint(in, n->inputs[1], &only) || !norm(&only, x.rank)))
            return false;
        out->rank = 0;
        for (int i = 0; i < x.rank; i++)
            if (!(x.sizes[i] == 1 && (only < 0 || only == i)))
                out->sizes[out->rank++] = x.sizes[i];
        return true;
    }
    case OP_ATEN_EXPAND: case OP_IMMUT_EXPAND:
        if ((k = sints(in, n->inputs[1], v)) < x.rank)
            return false;
        for (int i = 0; i < k; i++) {
            int xi = i - (k - x.rank);
            int64_t have = xi >= 0 ? x.sizes[xi] : 1;
            if (v[i] == -1 && xi >= 0)
                v[i] = have;
            if (have != 1 && have != v[i])
                return contradiction(n, "the expanded size must match the existing size");
            out->sizes[i] = v[i];
        }
        out->rank = k;
        return true;
    case OP_ATEN_EXPAND_AS: case OP_IMMUT_EXPAND_AS: case OP_ATEN_VIEW_AS: case OP_ATEN_RESHAPE_AS: {
        Shape o;
        if (!get(n->inputs[1], &o))
            return false;
        o.dtype = x.dtype;
        *out = o;
        return true;
    }
    case OP_ATEN_VIEW: case OP_IMMUT_VIEW: case OP_ATEN_RESHAPE: case OP_IMMUT_RESHAPE:
        if ((k = sints(in, n->inputs[1], v)) < 0)
            return false;
        return view_sizes(in, n, &x, v, k, out);
    case OP_ATEN_FLATTEN: {
        int64_t s = 0, e = -1;
        if (n->ninputs > 1 && !sint(in, n->inputs[1], &s))
            return false;
        if (n->ninputs > 2 && !sint(in, n->inputs[2], &e))
            return false;
        if (x.rank == 0) {      /* [1], for start and end dims in [-1, 0] */
            if (!norm(&s, 1) || !norm(&e, 1))
                return false;
            out->rank = 1;
            out->sizes[0] = 1;
            return true;
        }
        if (!norm(&s, x.rank) || !norm(&e, x.rank) || s > e)
            return false;
        int64_t prod = 1;
        for (int64_t i = s; i <= e; i++)
            prod *= x.sizes[i];
        out->rank = 0;
        for (int i = 0; i < x.rank; i++) {
            if (i == s)
                out->sizes[out->rank++] = prod;
            else if (i < s || i > e)
                out->sizes[out->rank++] = x.sizes[i];
        }
        return true;
    }
    case OP_ATEN_CONTIGUOUS: case OP_ATEN_CLONE: case OP_ATEN_DETACH: case OP_ATEN_ALIAS:
    case OP_PRIM_UNCHECKED_CAST:
        return true;
    default:    /* as_strided, diagonal, movedim, ...: no rule here */
        return false;
    }
}

/* ---------------------------------------------------------------- reductions */

static bool infer_reduce(Infer *in, const IrNode *n, Shape *out, Shape *out2)
{
    Shape x;
    if (!get(n->inputs[0], &x))
        return false;
    *out = x;
    int64_t d;
    if (n->op == OP_ATEN_SOFTMAX || n->op == OP_ATEN_LOG_SOFTMAX || n->op == OP_ATEN_CUMSUM) {
        /* The dim must name one of x's dims (of a 0-d x: -1 or 0). One out
         * of range leaves the value unknown, so the node runs on the
         * reference kernel and fails there with PyTorch's message; a
         * run-time dim is the kernel builder's to refuse. */
        if (n->ninputs < 2 || (sint(in, n->inputs[1], &d) && !norm(&d, x.rank)))
            return contradiction(n, "dimension out of range");
        out->dtype = n->ninputs > 2 ? sdtype(in, n->inputs[2], x.dtype) : x.dtype;
        if (n->op == OP_ATEN_CUMSUM && !dtype_is_float((TensorDType)x.dtype) &&
            (n->ninputs <= 2 || snone(in, n->inputs[2])))
            out->dtype = DT_I64;
        return out->dtype >= 0;
    }
    bool reduced[MAXR] = {false};
    int64_t dims[MAXR], keep = 0;
    /* sum(x, dtype) and mean(x, dtype): all dims, a dtype */
    bool dtype_only = n->ninputs == 2 && (n->op == OP_ATEN_SUM || n->op == OP_ATEN_MEAN ||
                                          n->op == OP_ATEN_PROD) &&
                      !(n->inputs[1]->type && n->inputs[1]->type->kind == TY_LIST);
    int nd = n->ninputs > 1 && !dtype_only && !snone(in, n->inputs[1])
                 ? sints(in, n->inputs[1], dims)
                 : 0;
    if (nd < 0)
        return false;
    if (!dtype_only && n->ninputs > 2 && !sint(in, n->inputs[2], &keep))
        return false;
    if (nd == 0)
        for (int i = 0; i < x.rank; i++)
            reduced[i] = true;
    for (int i = 0; i < nd; i++) {
        d = dims[i];
        if (!norm(&d, x.rank))
            return contradiction(n, "dimension out of range");
        reduced[d] = true;
    }
    out->rank = 0;
    for (int i = 0; i < x.rank; i++) {
        if (!reduced[i])
            out->sizes[out->rank++] = x.sizes[i];
        else if (keep)
            out->sizes[out->rank++] = 1;
    }
    switch (n->op) {
    case OP_ATEN_SUM: case OP_ATEN_PROD: {
        /* no dtype: integers sum in int64 */
        int dflt = dtype_is_float((TensorDType)x.dtype) ? x.dtype : DT_I64;
        out->dtype = dtype_only ? sdtype(in, n->inputs[1], dflt)
                     : n->ninputs > 3 ? sdtype(in, n->inputs[3], dflt) : dflt;
        break;
    }
    case OP_ATEN_MEAN:
        out->dtype = dtype_only ? sdtype(in, n->inputs[1], x.dtype)
                     : n->ninputs > 3 ? sdtype(in, n->inputs[3], x.dtype) : x.dtype;
        break;
    case OP_ATEN_ARGMAX: case OP_ATEN_ARGMIN:
        out->dtype = DT_I64;
        break;
    case OP_ATEN_ANY: case OP_ATEN_ALL:
        out->dtype = DT_BOOL;
        break;
    case OP_ATEN_MAX: case OP_ATEN_MIN:     /* (values, indices) over a dim */
        *out2 = *out;
        out2->dtype = DT_I64;
        break;
    default:
        break;
    }
    return true;
}

static bool is_reduce_op(const IrNode *n)
{
    switch (n->op) {
    case OP_ATEN_SUM: case OP_ATEN_MEAN: case OP_ATEN_AMAX: case OP_ATEN_AMIN: case OP_ATEN_PROD:
    case OP_ATEN_ARGMAX: case OP_ATEN_ARGMIN: case OP_ATEN_SOFTMAX: case OP_ATEN_LOG_SOFTMAX:
    case OP_ATEN_CUMSUM:
        return true;
    case OP_ATEN_ANY: case OP_ATEN_ALL:
        return n->ninputs >= 1;
    case OP_ATEN_MAX: case OP_ATEN_MIN:
        return n->noutputs == 2 && n->ninputs == 3 && !is_tensor(n->inputs[1]);
    default:
        return false;
    }
}

/* ---------------------------------------------------------------- products */

static bool infer_product(Infer *in, const IrNode *n, Shape *out)
{
    Shape a, b;
    int ia = n->op == OP_ATEN_ADDMM ? 1 : 0;
    if (!get(n->inputs[ia], &a) || !get(n->inputs[ia + 1], &b))
        return false;
    out->dtype = a.dtype;
    if (n->op == OP_ATEN_LINEAR) {
        if (b.rank != 2 || a.rank < 1 || a.sizes[a.rank - 1] != b.sizes[1])
            return contradiction(n, "the input's last size does not match the weight's");
        *out = a;
        out->sizes[a.rank - 1] = b.sizes[0];
        return true;
    }
    if (a.rank == 1 && b.rank == 1)
        return a.sizes[0] == b.sizes[0] ? (out->rank = 0, true)
                                        : contradiction(n, "the vectors' sizes differ");
    if (a.rank < 1 || b.rank < 1)
        return false;
    int64_t k_a = a.sizes[a.rank - 1], k_b = b.sizes[b.rank >= 2 ? b.rank - 2 : 0];
    if (k_a != k_b)
        return contradiction(n, "the inner sizes of the product differ");
    /* batch dims broadcast; a 1-d operand's dim is dropped */
    Shape batch = {.rank = 0}, bb = {.rank = 0};
    batch.rank = a.rank > 2 ? a.rank - 2 : 0;
    memcpy(batch.sizes, a.sizes, (size_t)batch.rank * sizeof *a.sizes);
    bb.rank = b.rank > 2 ? b.rank - 2 : 0;
    memcpy(bb.sizes, b.sizes, (size_t)bb.rank * sizeof *b.sizes);
    if (!broadcast(in, n, &batch, &bb))
        return false;
    *out = batch;
    out->dtype = a.dtype;
    if (a.rank >= 2)
        out->sizes[out->rank++] = a.sizes[a.rank - 2];
    if (b.rank >= 2)
        out->sizes[out->rank++] = b.sizes[b.rank - 1];
    return true;
}

/* ---------------------------------------------------------------- creation and joins */

static bool infer_creation(Infer *in, const IrNode *n, Shape *out)
{
    Shape like;
    int64_t v[MAXR];
    int k;
    switch (n->op) {
    case OP_ATEN_ZEROS_LIKE: case OP_ATEN_ONES_LIKE: case OP_ATEN_EMPTY_LIKE:
    case OP_ATEN_FULL_LIKE:
    case OP_ATEN_RAND_LIKE: case OP_ATEN_RANDN_LIKE:   /* (self, dtype, ...): k-diffusion's eps */
        if (!get(n->inputs[0], &like))
            return false;
        *out = like;
        out->dtype = sdtype(in, n->inputs[n->op == OP_ATEN_FULL_LIKE ? 2 : 1], like.dtype);
        return out->dtype >= 0;
    case OP_ATEN_ZEROS: case OP_ATEN_ONES: case OP_ATEN_EMPTY:
    case OP_ATEN_FULL: {
        if ((k = sints(in, n->inputs[0], v)) < 0)
            return false;
        out->rank = k;
        memcpy(out->sizes, v, (size_t)k * sizeof *v);
        int di = n->op == OP_ATEN_FULL ? 2 : 1;
        int fallback = DT_F32;
        if (n->op == OP_ATEN_FULL) {
            const RtValue *fill = stat(in, n->inputs[1]);
            if (!fill)
                return false;
            fallback = fill->kind == RT_FLOAT ? DT_F32 : fill->kind == RT_BOOL ? DT_BOOL : DT_I64;
        }
        out->dtype = n->ninputs > di ? sdtype(in, n->inputs[di], fallback) : fallback;
        return out->dtype >= 0;
    }
    case OP_ATEN_ARANGE: {
        /* arange(end, ...), arange(start, end, ...), arange(start, end, step, ...) */
        double num[3];
        bool all_int = true;
        int nn = 0, given = n->ninputs - 4;
        if (given < 1 || given > 3)
            return false;
        for (int i = 0; i < given; i++) {
            const RtValue *r = stat(in, n->inputs[i]);
            if (!r || (r->kind != RT_INT && r->kind != RT_FLOAT))
                return false;
            all_int &= r->kind == RT_INT;
            num[nn++] = r->kind == RT_INT ? (double)r->u.i : r->u.f;
        }
        double start = given >= 2 ? num[0] : 0, end = given >= 2 ? num[1] : num[0];
        double step = given == 3 ? num[2] : 1;
        if (step == 0)
            return contradiction(n, "step must be nonzero");
        double len = (end - start) / step;
        out->rank = 1;
        out->sizes[0] = len > 0 ? (int64_t)len + ((double)(int64_t)len < len) : 0;
        out->dtype = sdtype(in, n->inputs[given], all_int ? DT_I64 : DT_F32);
        return out->dtype >= 0;
    }
    default:
        return false;
    }
}

/* A list a loop of static trip count T builds by appending (`outs = []`,
 * then `outs.append(h)` or `outs = outs + [h]` each step, the list the loop's
 * result): T * m tensors of one shape, m the tensors appended a step. */
static bool appended_list(Infer *in, const IrValue *list, int64_t *count, Shape *elem)
{
    const IrNode *loop = list->def;
    int64_t trips;
    if (loop->op != OP_PRIM_LOOP || loop->nblocks != 1 || !sint(in, loop->inputs[0], &trips) || trips < 1)
        return false;
    int k = list->def_index;
    const IrNode *init = loop->inputs[2 + k]->def;
    const IrBlock *body = loop->blocks[0];
    const IrValue *param = ir_block_param(body, 1 + k);
    const IrNode *add = ir_block_return(body, 1 + k)->def;
    if (init->op != OP_PRIM_LISTCONSTRUCT || init->ninputs != 0 || add->op != OP_ATEN_ADD ||
        add->ninputs != 2 || add->inputs[0] != param || param->nuses != 1)
        return false;
    const IrNode *items = add->inputs[1]->def;
    if (items->op != OP_PRIM_LISTCONSTRUCT || items->ninputs < 1)
        return false;
    for (int i = 0; i < items->ninputs; i++) {
        Shape s;
        if (!get(items->inputs[i], &s) ||
            (i > 0 && (s.dtype != elem->dtype || s.rank != elem->rank ||
                       memcmp(s.sizes, elem->sizes, (size_t)s.rank * sizeof *s.sizes) != 0)))
            return false;
        *elem = s;
    }
    *count = trips * items->ninputs;
    return true;
}

/* stack's result: item's shape with a new dim d of `count` items. */
static bool stacked(const IrNode *n, const Shape *item, int64_t d, int64_t count, Shape *out)
{
    if (!norm(&d, item->rank + 1) || item->rank >= MAXR)
        return contradiction(n, "dimension out of range");
    *out = *item;
    for (int k = item->rank; k > d; k--)
        out->sizes[k] = item->sizes[k - 1];
    out->sizes[d] = count;
    out->rank = item->rank + 1;
    return true;
}

static bool infer_cat(Infer *in, const IrNode *n, Shape *out)
{
    const IrNode *lc = n->inputs[0]->def;
    int64_t d, count;
    Shape elem;
    if (!sint(in, n->inputs[1], &d))
        return false;
    if (appended_list(in, n->inputs[0], &count, &elem)) {
        if (n->op == OP_ATEN_STACK)
            return stacked(n, &elem, d, count, out);
        if (!norm(&d, elem.rank))       /* cat: count pieces along d */
            return contradiction(n, "dimension out of range");
        *out = elem;
        out->sizes[d] = count * elem.sizes[d];
        return true;
    }
    if (lc->op != OP_PRIM_LISTCONSTRUCT || lc->ninputs == 0)
        return false;
    Tensor stand[64];
    const Tensor *ts[64];
    Shape first = {.rank = -1};
    int64_t total = 0;
    int nt = 0;
    for (int i = 0; i < lc->ninputs; i++) {
        Shape s;
        if (!get(lc->inputs[i], &s))
            return false;
        if (nt < 64) {
            memset(&stand[nt], 0, sizeof stand[nt]);
            stand[nt].dtype = (TensorDType)s.dtype;
            stand[nt].ndim = s.rank;
            ts[nt] = &stand[nt];
            nt++;
        }
        if (n->op == OP_ATEN_CAT && s.rank == 1 && s.sizes[0] == 0)
            continue;           /* legacy: 1-d empty pieces are skipped */
        if (first.rank < 0) {
            first = s;
            if (n->op == OP_ATEN_CAT && !norm(&d, s.rank))
                return contradiction(n, "dimension out of range");
        } else if (s.rank != first.rank) {
            return contradiction(n, "the tensors have different ranks");
        } else {
            for (int k = 0; k < s.rank; k++)
                if ((n->op == OP_ATEN_STACK || k != d) && s.sizes[k] != first.sizes[k])
                    return contradiction(n, "the tensors' sizes differ outside the dimension");
        }
        total += n->op == OP_ATEN_CAT ? s.sizes[d] : 1;
    }
    if (first.rank < 0)
        return false;
    first.dtype = tensor_result_type(ts, nt);
    if (n->op == OP_ATEN_STACK)
        return stacked(n, &first, d, total, out);
    *out = first;
    out->sizes[d] = total;
    return true;
}

/* Piece k of chunk / split / unbind `src` (when 0 <= k < the count) in
 * *piece; returns how many pieces there are, or -1 when the shapes do not
 * say. */
static int piece_shape(Infer *in, const IrNode *src, int k, Shape *piece)
{
    if (src->op != OP_ATEN_CHUNK && src->op != OP_ATEN_SPLIT && src->op != OP_ATEN_UNBIND)
        return -1;
    Shape x;
    int64_t d = 0, arg = 0;
    if (src->ninputs < 2 || !get(src->inputs[0], &x))
        return -1;
    if (src->op == OP_ATEN_UNBIND) {
        if (!sint(in, src->inputs[1], &d) || !norm(&d, x.rank) || x.sizes[d] > INT32_MAX)
            return -1;
        *piece = x;
        for (int i = (int)d; i + 1 < x.rank; i++)
            piece->sizes[i] = x.sizes[i + 1];
        piece->rank = x.rank - 1;
        return (int)x.sizes[d];
    }
    if (src->ninputs < 3 || !sint(in, src->inputs[1], &arg) || !sint(in, src->inputs[2], &d) ||
        !norm(&d, x.rank) || arg <= 0)
        return -1;
    int64_t size = x.sizes[d], step = src->op == OP_ATEN_CHUNK ? (size + arg - 1) / arg : arg;
    if (step <= 0 || (size + step - 1) / step > INT32_MAX)
        return -1;
    *piece = x;
    int64_t end = ((int64_t)k + 1) * step < size ? ((int64_t)k + 1) * step : size;
    piece->sizes[d] = end - k * step;
    return (int)((size + step - 1) / step);
}

/* The pieces of chunk / split / unbind / meshgrid for a ListUnpack. */
static bool infer_unpack(Infer *in, IrNode *unpack)
{
    /* through an Optional's refinement and Ifs the shapes decide (a cell's
     * (h, c) unsqueezed or not) to the list or tuple built */
    const IrValue *from = unpack->inputs[0];
    int64_t cond;
    for (int hops = 0; hops < 16; hops++) {
        const IrNode *d = from->def;
        if (d->op == OP_PRIM_UNCHECKED_CAST && d->ninputs == 1)
            from = d->inputs[0];
        else if (d->op == OP_PRIM_IF && d->nblocks == 2 && sint(in, d->inputs[0], &cond))
            from = ir_block_return(d->blocks[cond ? 0 : 1], from->def_index);
        else
            break;
    }
    IrNode *src = from->def;
    int n = unpack->noutputs;
    const IrTensorType *sized = src->op == OP_ATEN_SIZE && src->ninputs == 1 ? shape_of(src->inputs[0]) : NULL;
    if (sized) {
        /* B, T, C = x.size() of a tensor of static shape: decided ints */
        for (int k = 0; k < n && n == sized->rank; k++)
            set_decided(in, unpack->outputs[k], true, sized->sizes[k]);
        return n == sized->rank;
    }
    if (src->op == OP_PRIM_LISTCONSTRUCT || src->op == OP_PRIM_TUPLECONSTRUCT) {
        for (int k = 0; k < n && k < src->ninputs; k++) {
            Shape s;
            if (get(src->inputs[k], &s))
                set(in, unpack->outputs[k], &s);
        }
        return true;
    }
    if (src->op == OP_ATEN_MESHGRID) {
        const IrNode *lc = src->inputs[0]->def;
        if (lc->op != OP_PRIM_LISTCONSTRUCT || lc->ninputs != n || n > MAXR)
            return false;
        Shape out = {.rank = n};
        for (int k = 0; k < n; k++) {
            Shape s;
            if (!get(lc->inputs[k], &s) || s.rank > 1)
                return false;
            out.sizes[k] = s.rank ? s.sizes[0] : 1;
            out.dtype = s.dtype;
        }
        const RtValue *ix = src->ninputs > 1 ? stat(in, src->inputs[1]) : NULL;
        if (ix && ix->kind == RT_STR && strcmp(ix->u.s, "xy") == 0 && n >= 2) {
            int64_t t = out.sizes[0];
            out.sizes[0] = out.sizes[1];
            out.sizes[1] = t;
        }
        for (int k = 0; k < n; k++) {
            out.dtype = shape_of(lc->inputs[k])->dtype;
            set(in, unpack->outputs[k], &out);
        }
        return true;
    }
    for (int k = 0; k < n; k++) {
        Shape piece;
        if (piece_shape(in, src, k, &piece) != n)
            break;
        set(in, unpack->outputs[k], &piece);
        if (k == n - 1)
            return true;
    }
    /* any other list of tensors: the op's own, on stand-ins */
    RtValue **outs = xcalloc((size_t)src->noutputs + 1, sizeof *outs);
    const RtValue *l = evaluate(in, src, outs) ? outs[from->def_index] : NULL;
    bool ok = l && (l->kind == RT_LIST || l->kind == RT_TUPLE) && l->u.list.n == n;
    for (int k = 0; ok && k < n; k++)
        if (!shape_of(unpack->outputs[k]))
            set_from(in, unpack->outputs[k], l->u.list.items[k]);
    for (int i = 0; i < src->noutputs; i++)
        rt_release(outs[i]);
    free(outs);
    return ok;
}

/* aten::__getitem__(list, i) of a chunk / split / unbind list: at a
 * compile-time index (NASRNN's `ix[0] + im[0]`), or at any index when all
 * pieces have one shape (a scripted LSTM's `inputs = x.unbind(0)` read at
 * its loop's counter). */
static void infer_getitem(Infer *in, IrNode *n)
{
    if (n->ninputs != 2 || !is_tensor(n->outputs[0]))
        return;
    Shape piece, last;
    int count = piece_shape(in, n->inputs[0]->def, 0, &piece);
    int64_t i;
    if (count < 1) {
        /* any other list of tensors, at a compile-time index */
        RtValue *item = sint(in, n->inputs[1], &i) ? evaluated_item(in, n->inputs[0], i) : NULL;
        set_from(in, n->outputs[0], item);
        rt_release(item);
        return;
    }
    if (!sint(in, n->inputs[1], &i)) {
        if (piece_shape(in, n->inputs[0]->def, count - 1, &last) == count && last.rank == piece.rank &&
            memcmp(last.sizes, piece.sizes, (size_t)piece.rank * sizeof *piece.sizes) == 0)
            set(in, n->outputs[0], &piece);
        return;
    }
    if (i < -count || i >= count)
        return;
    if (piece_shape(in, n->inputs[0]->def, (int)(i < 0 ? i + count : i), &piece) == count)
        set(in, n->outputs[0], &piece);
}

/* ---------------------------------------------------------------- the walk */

static void infer_block(Infer *in, IrBlock *b);

/* Both unknown, or both the same static type. */
static bool same_type(const IrValue *a, const IrValue *b)
{
    return shape_same(a, b) || (!shape_of(a) && !shape_of(b));
}

/* An If whose condition the shapes decide (kernels_fold_decided replaces
 * it by its taken block) has the taken block's types; otherwise the types
 * both blocks agree on. */
/* A block that raises never gives its results (a raising branch returns
 * prim::Uninitialized for a variable it leaves unset). */
static bool block_raises(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (n->op == OP_PRIM_RAISEEXCEPTION)
            return true;
    }
    return false;
}

static void infer_if(Infer *in, IrNode *n)
{
    int64_t cond = 0;
    bool is_decided = n->ninputs == 1 && sint(in, n->inputs[0], &cond);
    in->depth++;
    for (int b = 0; b < 2; b++)
        if (!is_decided || (b == 0) == (cond != 0))
            infer_block(in, n->blocks[b]);
    in->depth--;
    /* the results are the other block's when one raises */
    bool raises0 = block_raises(n->blocks[0]), raises1 = block_raises(n->blocks[1]);
    for (int k = 0; k < n->noutputs; k++) {
        const IrValue *a = ir_block_return(n->blocks[0], k), *b = ir_block_return(n->blocks[1], k);
        if (is_decided)
            a = b = cond ? a : b;
        else if (raises0 != raises1)
            a = b = raises0 ? b : a;
        Shape s;
        int64_t v;
        if (same_type(a, b) && get(a, &s))
            set(in, n->outputs[k], &s);
        else if ((is_decided || raises0 != raises1) && sint(in, a, &v))
            set_decided(in, n->outputs[k], true, v);
    }
}

/* Everything the body's last pass concluded, before a pass that starts
 * from other carried types. */
static void forget_block(Infer *in, IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        for (int i = 0; i < n->nblocks; i++)
            forget_block(in, n->blocks[i]);
        for (int k = 0; k < n->noutputs; k++) {
            forget(in, n->outputs[k]);
            set_decided(in, n->outputs[k], false, 0);
            set_affine(in, n->outputs[k], (Affine){0});
        }
    }
}

static void infer_loop(Infer *in, IrNode *n)
{
    IrBlock *body = n->blocks[0];
    int carried = n->ninputs - 2;
    in->depth++;
    for (int pass = 0; pass < 2; pass++) {
        bool stable = true;
        for (int k = 0; k < carried; k++) {
            Shape s;
            IrValue *prm = ir_block_param(body, 1 + k);
            if (pass == 0 && get(n->inputs[2 + k], &s))
                set(in, prm, &s);
            else if (pass == 0)
                forget(in, prm);
        }
        if (pass > 0)
            forget_block(in, body);
        int64_t trips;
        if (sint(in, n->inputs[0], &trips) && trips >= 1) {
            const IrValue *counter = ir_block_param(body, 0);
            set_affine(in, counter, (Affine){.counter = counter, .k = 1, .c = 0, .last = trips - 1});
        }
        infer_block(in, body);
        for (int k = 0; k < carried; k++) {
            IrValue *prm = ir_block_param(body, 1 + k);
            if (shape_of(prm) && !same_type(prm, ir_block_return(body, 1 + k))) {
                forget(in, prm);
                stable = false;
            }
        }
        if (stable)
            break;
    }
    in->depth--;
    for (int k = 0; k < carried; k++) {
        Shape s;
        IrValue *prm = ir_block_param(body, 1 + k);
        if (same_type(prm, ir_block_return(body, 1 + k)) && get(prm, &s))
            set(in, n->outputs[k], &s);
    }
}

/* A list or tuple of compile-time numbers built inside a loop's body (dims
 * of a reduction: specialization folds the top level only) is a
 * compile-time value too: made one, so the rules below can read it. */
static void fold_static_list(Infer *in, IrNode *n)
{
    if ((n->op != OP_PRIM_LISTCONSTRUCT && n->op != OP_PRIM_TUPLECONSTRUCT) || n->noutputs != 1 ||
        stat(in, n->outputs[0]) || n->ninputs > MAXR)
        return;
    RtValue *items[MAXR];
    IrBlock *top = in->g->top;
    for (int i = 0; i < n->ninputs; i++) {
        const RtValue *r = stat(in, n->inputs[i]);
        if (!r || (r->kind != RT_INT && r->kind != RT_FLOAT && r->kind != RT_BOOL) ||
            n->inputs[i]->def->owner != top)
            return;
        items[i] = (RtValue *)r;
    }
    lower_add_static(in->p, n->outputs[0],
                     rt_list(n->op == OP_PRIM_LISTCONSTRUCT ? RT_LIST : RT_TUPLE, n->ninputs, items));
    /* to the top level, with the program's other constants: inside a body
     * the lowering would take it for the body's own work */
    if (n->owner != top)
        ir_move_before(n, kernels_top_anchor(n));
}

/* Ops that write values into a copy of self at positions their other
 * operands give (index_put and the scatter family): the result has self's
 * shape and dtype whatever the indices and values are, so a value of
 * data-dependent shape among them (`freqs[mask] = f(mels[mask])`, as
 * torchaudio's mel scale writes its log part) does not make the result
 * unknown. Indices out of range or values that do not fit fail at run time
 * on the reference kernels, as PyTorch does, naming the node. */
static bool writes_into_self(int op)
{
    switch (op) {
    case OP_ATEN_INDEX_PUT: case OP_ATEN_INDEX_PUT_: case OP_ATEN_SCATTER: case OP_ATEN_SCATTER_:
    case OP_ATEN_SCATTER_ADD: case OP_ATEN_SCATTER_ADD_: case OP_ATEN_INDEX_ADD:
    case OP_ATEN_INDEX_ADD_: case OP_ATEN_SCATTER_REDUCE: case OP_ATEN_INDEX_REDUCE:
    case OP_ATEN_INDEX_COPY: case OP_ATEN_INDEX_FILL: case OP_ATEN_PUT:
        return true;
    default:
        return false;
    }
}

/* n, a top-level node whose results just became compile-time values,
 * read a tensor only for its shape (x.size(), x.dim(), x.dtype): its uses
 * now read prim::Constant nodes of those values instead, and n goes, so
 * the tensor is not kept alive, nor computed, for a read the lowering
 * skips (a cast whose only reader was `x.dtype`). Results other than ints,
 * bools and int lists keep their node. */
static void detach_from_tensors(Infer *in, IrNode *n)
{
    bool reads_tensor = false;
    for (int i = 0; i < n->ninputs; i++)
        reads_tensor |= is_tensor(n->inputs[i]);
    if (!reads_tensor || n->noutputs != 1)
        return;
    IrValue *out = n->outputs[0];
    const RtValue *r = stat(in, out);
    IrValue *k = NULL;
    if (r && (r->kind == RT_INT || r->kind == RT_BOOL) && out->type &&
        (out->type->kind == TY_INT || out->type->kind == TY_BOOL)) {
        k = kernels_scalar_constant(in->p, n, r->u.i, r->kind == RT_BOOL);
    } else if (r && r->kind == RT_LIST && r->u.list.n <= MAXR && out->type && out->type->kind == TY_LIST) {
        int64_t items[MAXR];
        for (int i = 0; i < r->u.list.n; i++) {
            if (r->u.list.items[i]->kind != RT_INT)
                return;
            items[i] = r->u.list.items[i]->u.i;
        }
        IrNode *c = ir_node_new_op(in->g, OP_PRIM_CONSTANT);
        ir_attr_set_ints(c, "value", items, r->u.list.n);
        k = ir_node_add_output(c, out->type, NULL);
        ir_insert_before(c, n);
        lower_add_static(in->p, k, rt_retain((RtValue *)r));
    }
    if (!k)
        return;
    ir_replace_all_uses(out, k);
    ir_node_destroy(n);
}

/* At the top level the scalar work that static shapes make known is
 * compile-time work too (specialization ran before any shape was known):
 * x.size() of a tensor of static shape is its sizes, a scalar the shapes
 * decide is that number, and a node of the scalar slice whose inputs are
 * then all compile-time values runs now (torchaudio's `shape = x.size()`
 * then `x.reshape(-1, shape[-3], shape[-2], shape[-1])`, F.interpolate's
 * `size=x.shape[2:]`), so the rules below read its lists and the lowering
 * makes no filter for it; tensor work on such values runs once too
 * (lower_run_constant_tensor). shape_infer runs only on graphs with no write
 * left in place (has_mutation), so no list changes after it is made. */
static bool fold_top_scalar(Infer *in, IrNode *n)
{
    if (n->owner != in->g->top || n->noutputs == 0 || n->nblocks > 0 || stat(in, n->outputs[0]))
        return false;
    Shape s;
    if (n->op == OP_ATEN_SIZE && n->ninputs == 1 && n->noutputs == 1 && get(n->inputs[0], &s)) {
        RtValue *items[MAXR];
        for (int i = 0; i < s.rank; i++)
            items[i] = rt_int(s.sizes[i]);
        lower_add_static(in->p, n->outputs[0], rt_list(RT_LIST, s.rank, items));
        for (int i = 0; i < s.rank; i++)
            rt_release(items[i]);
        detach_from_tensors(in, n);
        return true;
    }
    if (lower_run_static(in->p, n))
        return true;
    /* tensor work on values now known (an arange of a size, a repeat by
     * one): kept as weights are, and typed below as compile-time tensors */
    lower_run_constant_tensor(in->p, n);
    return false;
}

/* t.item() of a tensor of known dtype is a Python float, int or bool by
 * that dtype: its Scalar result takes that type, so the ops that read it
 * (ECE's `confidences.gt(lo.item())`) have a known result type and fuse,
 * and a kernel takes it as the number it is. */
static void type_item(Infer *in, IrNode *n)
{
    Shape held;
    if ((n->op != OP_ATEN_ITEM && n->op != OP_ATEN_SCALARIMPLICIT) || n->ninputs != 1 || n->noutputs != 1 ||
        !n->outputs[0]->type || n->outputs[0]->type->kind != TY_NUMBER || !is_tensor(n->inputs[0]) ||
        !get(n->inputs[0], &held) || held.dtype < 0)
        return;
    TensorDType dt = (TensorDType)held.dtype;
    n->outputs[0]->type = ir_type_simple(in->g, dtype_is_float(dt) ? TY_FLOAT : dt == DT_BOOL ? TY_BOOL : TY_INT);
}

static void infer_node(Infer *in, IrNode *n)
{
    type_item(in, n);
    fold_static_list(in, n);
    int64_t v;
    ScalarLookup lk = {.p = in->p, .decided = decided, .ctx = in};
    if (kernels_decide_scalar(&lk, n, &v) && !stat(in, n->outputs[0])) {
        set_decided(in, n->outputs[0], true, v);
        if (n->owner == in->g->top && n->noutputs == 1 && n->outputs[0]->type &&
            (n->outputs[0]->type->kind == TY_INT || n->outputs[0]->type->kind == TY_BOOL))
        {
            lower_add_static(in->p, n->outputs[0],
                             n->outputs[0]->type->kind == TY_BOOL ? rt_bool(v != 0) : rt_int(v));
            detach_from_tensors(in, n);
        }
        return;
    }
    if (fold_top_scalar(in, n))
        return;
    infer_affine(in, n);
    if (n->op == OP_PRIM_IF && n->nblocks == 2) {
        infer_if(in, n);
        return;
    }
    if (n->op == OP_PRIM_LOOP && n->nblocks == 1) {
        infer_loop(in, n);
        return;
    }
    /* compile-time tensors know their shapes */
    for (int k = 0; k < n->noutputs; k++) {
        const RtValue *r = stat(in, n->outputs[k]);
        if (r && r->kind == RT_TENSOR) {
            Shape s = {.dtype = r->u.t->dtype, .rank = r->u.t->ndim};
            memcpy(s.sizes, r->u.t->sizes, (size_t)s.rank * sizeof *s.sizes);
            set(in, n->outputs[k], &s);
        }
    }
    if (n->op == OP_PRIM_LISTUNPACK || n->op == OP_PRIM_TUPLEUNPACK) {
        infer_unpack(in, n);
        return;
    }
    if (n->op == OP_ATEN_GETITEM) {
        infer_getitem(in, n);
        /* a dict's value, or an item the rule above cannot name: the
         * general rule, on the container evaluated on stand-ins */
        if (n->noutputs == 1 && is_tensor(n->outputs[0]) && !shape_of(n->outputs[0]))
            infer_by_eval(in, n);
        return;
    }
    /* TensorSSA's list.pop() and dict.pop(): the item, their second result */
    if ((n->op == OP_IMMUT_LIST_POP || n->op == OP_IMMUT_DICT_POP) && n->noutputs == 2 &&
        is_tensor(n->outputs[1])) {
        infer_by_eval(in, n);
        return;
    }
    if (n->noutputs == 0 || shape_of(n->outputs[0]) || !is_tensor(n->outputs[0]))
        return;
    Shape out = {.dtype = -1}, out2 = {.dtype = -1};
    ElemRule rule;
    int count;
    bool ok = false;
    bool binary_min_max = (n->op == OP_ATEN_MIN || n->op == OP_ATEN_MAX) && n->ninputs == 2 &&
                          is_tensor(n->inputs[1]);
    if (binary_min_max) {
        ok = infer_elementwise(in, n, ELEM_SAME, 2, &out);
    } else if (n->op == OP_ATEN_DIV) {
        /* true division is float; with a rounding mode it keeps the type */
        bool rounding = n->ninputs == 3 && !snone(in, n->inputs[2]);
        ok = (n->ninputs == 2 || stat(in, n->inputs[2])) &&
             infer_elementwise(in, n, rounding ? ELEM_SAME : ELEM_FLOAT, 2, &out);
    } else if (elem_rule(n->op, &rule, &count)) {
        ok = infer_elementwise(in, n, rule, count, &out);
    } else if (n->op == OP_ATEN_WHERE && n->ninputs == 3) {
        Shape c;
        ok = get(n->inputs[0], &c) && operands(in, n, 1, 2, &out) && broadcast(in, n, &out, &c);
    } else if (n->op == OP_ATEN_MASKED_FILL) {
        Shape m;
        ok = get(n->inputs[0], &out) && get(n->inputs[1], &m) && broadcast(in, n, &out, &m) &&
             out.rank == shape_of(n->inputs[0])->rank;
    } else if (n->op == OP_ATEN_TO || n->op == OP_ATEN_TYPE_AS || n->op == OP_ATEN_FLOAT ||
               n->op == OP_ATEN_DOUBLE || n->op == OP_ATEN_LONG || n->op == OP_ATEN_INT_CAST ||
               n->op == OP_ATEN_BOOL) {
        ok = get(n->inputs[0], &out);
        int target = n->op == OP_ATEN_FLOAT ? DT_F32 : n->op == OP_ATEN_DOUBLE ? DT_F64
                     : n->op == OP_ATEN_LONG ? DT_I64 : n->op == OP_ATEN_INT_CAST ? DT_I32
                     : n->op == OP_ATEN_BOOL ? DT_BOOL : -1;
        Shape o;
        if (n->op == OP_ATEN_TYPE_AS) {
            target = get(n->inputs[1], &o) ? o.dtype : -1;
        } else if (n->op == OP_ATEN_TO && ok && n->ninputs >= 2) {
            /* to(x, other, ...), to(x, device, dtype, ...), to(x, dtype, ...) */
            const IrValue *a = n->inputs[1];
            if (is_tensor(a))
                target = get(a, &o) ? o.dtype : -1;
            else if (a->type && a->type->kind == TY_DEVICE)
                target = n->ninputs > 2 ? sdtype(in, n->inputs[2], out.dtype) : out.dtype;
            else
                target = sdtype(in, a, out.dtype);
        }
        out.dtype = target;
        ok = ok && target >= 0;
    } else if (op_is_view(n->op) || op_info(n->op)->cls == OPC_ACCESS ||
               n->op == OP_ATEN_CLONE || n->op == OP_ATEN_CONTIGUOUS || n->op == OP_ATEN_DETACH ||
               n->op == OP_PRIM_UNCHECKED_CAST) {
        ok = n->noutputs == 1 && infer_view(in, n, &out);
    } else if (op_info(n->op)->cls == OPC_ASSIGN || writes_into_self(n->op)) {
        ok = get(n->inputs[0], &out);
    } else if (is_reduce_op(n)) {
        ok = infer_reduce(in, n, &out, &out2);
    } else if (n->op == OP_ATEN_MM || n->op == OP_ATEN_BMM || n->op == OP_ATEN_MATMUL ||
               n->op == OP_ATEN_LINEAR || n->op == OP_ATEN_ADDMM) {
        ok = infer_product(in, n, &out);
    } else if (n->op == OP_ATEN_CAT || n->op == OP_ATEN_STACK) {
        ok = infer_cat(in, n, &out);
    } else if ((n->op == OP_ATEN_GRU_CELL || n->op == OP_ATEN_RNN_TANH_CELL) && n->ninputs >= 2) {
        ok = get(n->inputs[1], &out);      /* the new hidden state: hx's type */
    } else if (n->op == OP_ATEN_LSTM_CELL && n->ninputs >= 2 && n->noutputs == 2 &&
               n->inputs[1]->def->op == OP_PRIM_LISTCONSTRUCT && n->inputs[1]->def->ninputs == 2) {
        ok = get(n->inputs[1]->def->inputs[0], &out);   /* (hy, cy): h's type */
        out2 = out;
    } else if (n->op == OP_ATEN_EMBEDDING && n->ninputs >= 2) {
        Shape w, ix;        /* embedding(weight, indices, ...): indices' shape + [dim] */
        ok = get(n->inputs[0], &w) && get(n->inputs[1], &ix) && w.rank == 2 && ix.rank < MAXR;
        if (ok) {
            out = ix;
            out.sizes[out.rank++] = w.sizes[1];
            out.dtype = w.dtype;
        }
    } else {
        ok = infer_creation(in, n, &out);
    }
    if (ok && out.dtype >= 0) {
        set(in, n->outputs[0], &out);
        if (n->noutputs == 2 && out2.dtype >= 0)
            set(in, n->outputs[1], &out2);
    }
    for (int k = 0; k < n->noutputs; k++)
        if (is_tensor(n->outputs[k]) && !shape_of(n->outputs[k])) {
            infer_by_eval(in, n);
            return;
        }
}

static void infer_block(Infer *in, IrBlock *b)
{
    /* the next node first: a folded list moves out of the block */
    for (IrNode *n = ir_block_first(b), *next; !ir_node_is_end(n); n = next) {
        /* an If at the top level whose condition the shapes made a
         * compile-time value (fold_top_scalar) folds as specialization
         * folds one, and the walk goes on into the taken block's nodes */
        const RtValue *c = n->op == OP_PRIM_IF && n->owner == in->g->top && n->ninputs == 1 &&
                           n->nblocks == 2 ? stat(in, n->inputs[0]) : NULL;
        if (c && c->kind == RT_BOOL) {
            next = lower_fold_if(in->p, n, c->u.i != 0);
            continue;
        }
        next = n->next;
        infer_node(in, n);
    }
}

static bool has_mutation(const IrBlock *b)
{
    IR_FOREACH_NODE(n, b) {
        if (op_is_inplace(n->op))
            return true;
        for (int i = 0; i < n->nblocks; i++)
            if (has_mutation(n->blocks[i]))
                return true;
    }
    return false;
}

bool shape_infer(LowerProgram *p, RtValue **inputs, int ninputs, FILE *err, int *status)
{
    IrGraph *g = lower_ir_graph(p);
    Infer in = {.p = p, .g = g, .inputs = inputs, .ninputs = ninputs};
    *status = 0;
    (void)err;
    /* A write TensorSSA left in place (resize_, a print of a view...) can
     * change a value's shape after it is made: no static types then. */
    if (has_mutation(g->top))
        return true;
    IrBlock *top = g->top;
    for (int i = 0; i < ninputs && i < ir_block_nparams(top); i++) {
        const RtValue *r = inputs[i];
        if (r && r->kind == RT_TENSOR) {
            Shape s = {.dtype = r->u.t->dtype, .rank = r->u.t->ndim};
            memcpy(s.sizes, r->u.t->sizes, (size_t)s.rank * sizeof *s.sizes);
            set(&in, ir_block_param(top, i), &s);
        }
    }
    infer_block(&in, top);
    free(in.decided);
    free(in.is_decided);
    free(in.affine);
    free(in.optional);
    shape_eval_free(in.eval);
    return true;
}
