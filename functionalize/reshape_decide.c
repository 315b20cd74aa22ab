/* reshape_decide.c — reshape-like ops decided at compile time: the view or
 * the copy PyTorch makes, from the layout of their input.
 *
 * aten::reshape (and flatten, ravel, reshape_as, contiguous) returns a view
 * of its input when the input's strides allow the new shape (ATen's
 * computeStride, tensor_view_strides) and a copy otherwise; the op table
 * calls them ALIAS_MAYBE, and alias analysis must then assume either, so a
 * write through the result, or to the input, stays imperative whenever the
 * other is read afterwards. Where the layout of the input is known, this
 * pass makes the choice PyTorch makes explicit, before alias analysis:
 *
 *   view   reshape(x, s) -> view(x, s), reshape_as(x, o) -> view_as(x, o),
 *          flatten / ravel -> view(x, sizes), contiguous(x) -> x itself;
 *   copy   -> view(clone(x, contiguous_format), sizes) (reshape's copy is
 *          row-major, as clone(memory_format=contiguous_format) is), and
 *          contiguous(x) -> clone(x, contiguous_format).
 *
 * Layouts. Walking the graph in program order, every tensor value gets one
 * of: strided (its sizes and strides known as numbers), contiguous (known
 * row-major, sizes unknown) or unknown.
 *   - graph inputs: the bound tensors' own sizes and strides (the loader
 *     makes them row-major: tensor/npy.c refuses Fortran order); unbound,
 *     contiguous, which every input path gives;
 *   - module attributes read from the weights file: contiguous (safetensors
 *     stores them row-major, eval/module.c);
 *   - elementwise, creation and random ops whose tensor operands are all
 *     contiguous (or that have none), mm, bmm, matmul, addmm, linear, and a
 *     clone to contiguous_format: contiguous (TensorIterator lays a result
 *     out like its operands, row-major when they all are: tensor/layout.c);
 *     with every operand strided and of one shape, strided with that shape;
 *   - view ops with constant arguments: strided -> strided by the op's own
 *     rule (select, slice, narrow, t, transpose, permute, unsqueeze,
 *     squeeze, expand, view, diagonal, as_strided, the pieces of unbind,
 *     chunk and split); contiguous stays contiguous through those that keep
 *     row-major order whatever the sizes (view, unsqueeze, squeeze, and
 *     select, slice with step 1, narrow and pieces along dim 0);
 *   - an If's result contiguous when every block returns a contiguous value;
 *   - everything else (loop-carried values, list elements, opaque ops,
 *     non-constant arguments) unknown.
 * A reshape of a contiguous input is always a view; of a strided input it
 * is decided by computeStride with the target shape; of an unknown one it
 * stays ALIAS_MAYBE, and alias.c says so ("view or copy, not decided at
 * compile time") when it keeps a write imperative for it.
 *
 * Precondition: runs in prepare after metadata_inplace.c. In-place shape
 * changes it could not make views, resize_, and unknown in-place ops change
 * the layout of a tensor after it is made: with any of them in the graph
 * the pass decides nothing. Postcondition: the decided ops are gone; the
 * meaning of the program is unchanged (each rewrite is what ATen's reshape
 * runs for that layout). The view ops' own rules are view_layouts.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "functionalize/functionalize_private.h"
#include "tssa/ir.h"
#include "tssa/ops.h"
#include "tssa/tensor.h"
#include "tssa/util.h"
#include "tssa/value.h"

typedef struct Decide {
    IrGraph *g;
    const TssaOptions *opt;
    bool attributes_assigned;   /* a prim::SetAttr is left: a read may give any tensor */
    TssaLayout *layouts;        /* by value id */
    uint32_t nvalues;
    size_t decided;
} Decide;

/* ---------------------------------------------------------------- layouts */

static const TssaLayout *layout_of(const Decide *d, const IrValue *v)
{
    static const TssaLayout unknown = {TSSA_LAYOUT_UNKNOWN, {0}};
    return v->id < d->nvalues ? &d->layouts[v->id] : &unknown;
}

/* Values made by the pass get ids past the table: it grows. */
static void set_layout(Decide *d, const IrValue *v, const TssaLayout *l)
{
    if (v->id >= d->nvalues) {
        uint32_t n = d->g->nvalues > v->id ? d->g->nvalues : v->id + 1;
        d->layouts = xrealloc(d->layouts, sizeof *d->layouts * n);
        memset(d->layouts + d->nvalues, 0, sizeof *d->layouts * (n - d->nvalues));
        d->nvalues = n;
    }
    d->layouts[v->id] = *l;
}

/* ---------------------------------------------------------------- results of other ops */

static bool is_like_strided(const IrNode *n)
{
    return strstr(n->kind, "strided") != NULL;
}

/* The layout of a non-view op's result (see the header). */
static TssaLayout computed_layout(const Decide *d, const IrNode *n)
{
    TssaLayout unknown = {TSSA_LAYOUT_UNKNOWN, {0}};
    const OpInfo *info = op_info(n->op);
    switch (n->op) {
    case OP_ATEN_MM:
    case OP_ATEN_BMM:
    case OP_ATEN_MATMUL:
    case OP_ATEN_ADDMM:
    case OP_ATEN_LINEAR:
        return tssa_layout_contiguous();
    case OP_ATEN_CLONE: {
        int64_t format;
        const TssaLayout *in = n->ninputs ? layout_of(d, n->inputs[0]) : &unknown;
        bool to_contiguous = n->ninputs > 1 && tssa_const_int(n->inputs[1], &format) && format == 0;
        if (in->kind == TSSA_LAYOUT_STRIDED && (to_contiguous || tssa_layout_known_contiguous(in)))
            return tssa_layout_row_major(in->t.ndim, in->t.sizes);
        return to_contiguous || in->kind == TSSA_LAYOUT_CONTIGUOUS ? tssa_layout_contiguous() : unknown;
    }
    default:
        break;
    }
    if (info->alias != ALIAS_NONE || info->mutates >= 0 || is_like_strided(n) ||
        (info->cls != OPC_ELEMENTWISE && info->cls != OPC_CREATION && info->cls != OPC_RANDOM))
        return unknown;
    const TssaLayout *shape = NULL;
    bool same_shape = true;
    for (int i = 0; i < n->ninputs; i++) {
        const IrValue *in = n->inputs[i];
        if (tssa_is_container_value(in))
            return unknown;
        if (!tssa_is_tensor_value(in))
            continue;
        const TssaLayout *l = layout_of(d, in);
        if (!tssa_layout_known_contiguous(l))
            return unknown;
        if (l->kind != TSSA_LAYOUT_STRIDED)
            same_shape = false;
        else if (!shape)
            shape = l;
        else if (shape->t.ndim != l->t.ndim ||
                 memcmp(shape->t.sizes, l->t.sizes, sizeof(int64_t) * (size_t)l->t.ndim) != 0)
            same_shape = false;
    }
    if (shape && same_shape && info->cls == OPC_ELEMENTWISE)
        return tssa_layout_row_major(shape->t.ndim, shape->t.sizes);
    return tssa_layout_contiguous();
}

/* ---------------------------------------------------------------- decisions */

typedef enum Decision { UNDECIDED, AS_VIEW, AS_COPY } Decision;

/* The target shape of a reshape-like node as constants (for flatten and
 * ravel from the input's sizes), or false. */
static bool target_shape(const Decide *d, const IrNode *n, const TssaLayout *in, int64_t *shape, int *count)
{
    switch (n->op) {
    case OP_ATEN_RESHAPE:
        return n->ninputs >= 2 && tssa_const_int_list(n->inputs[1], shape, TENSOR_MAX_DIMS, count);
    case OP_ATEN_RAVEL:
        shape[0] = -1;
        *count = 1;
        return true;
    case OP_ATEN_FLATTEN:
        return in->kind == TSSA_LAYOUT_STRIDED && tssa_layout_flatten_shape(n, in, shape, count);
    case OP_ATEN_RESHAPE_AS: {
        const TssaLayout *other = n->ninputs >= 2 ? layout_of(d, n->inputs[1]) : NULL;
        if (!other || other->kind != TSSA_LAYOUT_STRIDED)
            return false;
        *count = other->t.ndim;
        memcpy(shape, other->t.sizes, sizeof(int64_t) * (size_t)other->t.ndim);
        return true;
    }
    default:
        return false;
    }
}

static bool is_reshape_like(OpId op)
{
    return op == OP_ATEN_RESHAPE || op == OP_ATEN_RESHAPE_AS || op == OP_ATEN_FLATTEN ||
           op == OP_ATEN_RAVEL || op == OP_ATEN_CONTIGUOUS;
}

/* contiguous(x, memory_format=contiguous_format): only the row-major format
 * is decided (channels_last has rules of its own). */
static bool contiguous_format_asked(const IrNode *n)
{
    int64_t format;
    return n->ninputs < 2 || (tssa_const_int(n->inputs[1], &format) && format == 0);
}

static Decision decide(const Decide *d, const IrNode *n, int64_t *shape, int *count, TssaLayout *result)
{
    const TssaLayout *in = layout_of(d, n->inputs[0]);
    if (n->op == OP_ATEN_CONTIGUOUS) {
        if (!contiguous_format_asked(n) || in->kind == TSSA_LAYOUT_UNKNOWN)
            return UNDECIDED;
        *result = *in;
        if (tssa_layout_known_contiguous(in))
            return AS_VIEW;
        *result = tssa_layout_row_major(in->t.ndim, in->t.sizes);
        return AS_COPY;
    }
    bool have_shape = target_shape(d, n, in, shape, count);
    if (tssa_layout_known_contiguous(in)) {
        /* Any shape views row-major memory. flatten(0, -1) of any rank is
         * view(-1) (a 0-d tensor too: both give one element in one dim). */
        int64_t start, end;
        if (!have_shape && n->op == OP_ATEN_FLATTEN && tssa_const_int_arg(n, 1, 0, &start) &&
            tssa_const_int_arg(n, 2, -1, &end) && start == 0 && end == -1) {
            shape[0] = -1;
            *count = 1;
            have_shape = true;
        }
        if (!have_shape && n->op != OP_ATEN_RESHAPE && n->op != OP_ATEN_RESHAPE_AS)
            return UNDECIDED;
        /* A shape that does not fit the known sizes is left to fail at run
         * time as the reshape it is (its message names it). */
        if (in->kind == TSSA_LAYOUT_STRIDED && have_shape)
            return tssa_layout_view_shape(in, shape, *count, result) ? AS_VIEW : UNDECIDED;
        *result = tssa_layout_contiguous();
        return AS_VIEW;
    }
    if (in->kind != TSSA_LAYOUT_STRIDED || !have_shape)
        return UNDECIDED;
    if (tssa_layout_view_shape(in, shape, *count, result))
        return AS_VIEW;
    int64_t sizes[TENSOR_MAX_DIMS];
    if (*count > TENSOR_MAX_DIMS || !tensor_infer_shape(*count, shape, tssa_layout_numel(in), sizes)) {
        tensor_clear_error();
        return UNDECIDED;                      /* fails at run time, as it should */
    }
    *result = tssa_layout_row_major(*count, sizes);
    return AS_COPY;
}

static IrValue *int_list(Decide *d, IrNode *pos, const int64_t *items, int count)
{
    IrValue *elems[TENSOR_MAX_DIMS];
    for (int i = 0; i < count; i++)
        elems[i] = tssa_emit_int(d->g, pos, items[i]);
    return tssa_emit_node(d->g, pos, OP_PRIM_LISTCONSTRUCT, elems, count,
                          ir_type_list(d->g, ir_type_simple(d->g, TY_INT)), NULL);
}

/* A new node in n's place, with n's source position, taking n's uses. */
static IrValue *replace_with(Decide *d, IrNode *n, OpId op, IrValue *const *inputs, int ninputs)
{
    char buf[128];
    IrValue *v = tssa_emit_node(d->g, n, op, inputs, ninputs, n->outputs[0]->type,
                                tssa_base_name(n->outputs[0], buf, sizeof buf));
    v->def->comment = n->comment;
    v->def->line = n->line;
    v->def->col = n->col;
    return v;
}

static void rewrite(Decide *d, IrNode *n, Decision how, const int64_t *shape, int count,
                    const TssaLayout *result)
{
    IrValue *x = n->inputs[0], *v;
    if (n->op == OP_ATEN_CONTIGUOUS && how == AS_VIEW) {
        v = x;                                  /* contiguous() returns self */
    } else {
        IrValue *from = x;
        if (how == AS_COPY) {
            IrValue *clone_in[2] = {x, tssa_emit_int(d->g, n, 0)};   /* contiguous_format */
            from = replace_with(d, n, OP_ATEN_CLONE, clone_in, 2);
            from->type = x->type;   /* the copy has x's shape; the view after it n's */
        }
        if (n->op == OP_ATEN_CONTIGUOUS) {
            v = from;
        } else if (n->op == OP_ATEN_RESHAPE && n->ninputs >= 2) {
            IrValue *in[2] = {from, n->inputs[1]};
            v = replace_with(d, n, OP_ATEN_VIEW, in, 2);
        } else if (n->op == OP_ATEN_RESHAPE_AS && n->ninputs >= 2) {
            IrValue *in[2] = {from, n->inputs[1]};
            v = replace_with(d, n, OP_ATEN_VIEW_AS, in, 2);
        } else {
            IrValue *in[2] = {from, int_list(d, n, shape, count)};
            v = replace_with(d, n, OP_ATEN_VIEW, in, 2);
        }
    }
    ir_replace_all_uses(n->outputs[0], v);
    set_layout(d, v, result);
    ir_node_destroy(n);
    d->decided++;
}

/* ---------------------------------------------------------------- walk */

static void walk_block(Decide *d, IrBlock *b);

static void visit(Decide *d, IrNode *n)
{
    const OpInfo *info = op_info(n->op);
    if (n->nblocks) {
        for (int i = 0; i < n->nblocks; i++)
            walk_block(d, n->blocks[i]);
        if (n->op != OP_PRIM_IF)
            return;
        for (int i = 0; i < n->noutputs; i++) {
            bool all = n->nblocks > 0;
            for (int k = 0; k < n->nblocks; k++)
                all = all && i < ir_block_nreturns(n->blocks[k]) &&
                      tssa_layout_known_contiguous(layout_of(d, ir_block_return(n->blocks[k], i)));
            if (all) {
                TssaLayout c = tssa_layout_contiguous();
                set_layout(d, n->outputs[i], &c);
            }
        }
        return;
    }
    if (n->noutputs < 1 || n->ninputs < 1)
        return;
    if (n->op == OP_PRIM_GETATTR) {
        if (!d->attributes_assigned && n->noutputs == 1 && tssa_is_tensor_value(n->outputs[0]) &&
            tssa_attribute_chain_from_input(n)) {
            TssaLayout c = tssa_layout_contiguous();
            set_layout(d, n->outputs[0], &c);
        }
        return;
    }
    if (is_reshape_like(n->op) && n->noutputs == 1 && tssa_is_tensor_value(n->inputs[0])) {
        int64_t shape[TENSOR_MAX_DIMS];
        int count = -1;
        TssaLayout result;
        Decision how = decide(d, n, shape, &count, &result);
        if (how != UNDECIDED)
            rewrite(d, n, how, shape, count, &result);
        return;
    }
    if (n->op == OP_PRIM_LISTUNPACK || n->op == OP_ATEN_GETITEM) {
        const IrNode *list = n->inputs[0]->def;
        if (op_info(list->op)->alias != ALIAS_VIEWS || list->op == OP_ATEN_MESHGRID ||
            list->op == OP_ATEN_BROADCAST_TENSORS || list->ninputs < 1)
            return;
        const TssaLayout *in = layout_of(d, list->inputs[0]);
        for (int i = 0; i < n->noutputs; i++) {
            int64_t k = i;
            if (n->op == OP_ATEN_GETITEM && !(tssa_const_int(n->inputs[1], &k) && k >= 0))
                return;
            TssaLayout piece;
            if (tssa_layout_piece(list, k, in, &piece))
                set_layout(d, n->outputs[i], &piece);
        }
        return;
    }
    IrValue *out = n->outputs[0];
    if (n->noutputs != 1 || !tssa_is_tensor_value(out))
        return;
    if (n->op == OP_PRIM_UNCHECKED_CAST || info->alias == ALIAS_SELF) {
        int self = info->mutates >= 0 ? info->mutates : 0;
        set_layout(d, out, layout_of(d, n->inputs[self]));
        return;
    }
    if (info->alias == ALIAS_VIEW) {
        TssaLayout l = *layout_of(d, n->inputs[0]);
        if (l.kind == TSSA_LAYOUT_STRIDED && !tssa_layout_after_view(n, n->ninputs >= 2 ? layout_of(d, n->inputs[1]) : NULL, &l))
            l.kind = TSSA_LAYOUT_UNKNOWN;
        else if (l.kind == TSSA_LAYOUT_CONTIGUOUS && !tssa_layout_keeps_contiguous(n))
            l.kind = TSSA_LAYOUT_UNKNOWN;
        set_layout(d, out, &l);
        return;
    }
    if (info->alias == ALIAS_NONE && n->op != OP_UNKNOWN) {
        TssaLayout l = computed_layout(d, n);
        set_layout(d, out, &l);
    }
}

static void walk_block(Decide *d, IrBlock *b)
{
    for (IrNode *n = ir_block_first(b), *next; n != b->ret; n = next) {
        next = n->next;
        visit(d, n);
    }
}

/* A shape change in place that metadata_inplace.c left, resize_, or an
 * unknown op that may write in place (its kind ends in '_'): layouts could
 * change after a value is made. */
static bool layouts_may_change(const IrNode *n)
{
    if (op_inplace_is_metadata(n->op) || n->op == OP_ATEN_RESIZE_ || n->op == OP_ATEN_RESIZE_AS_)
        return true;
    if (n->op != OP_UNKNOWN)
        return false;
    size_t len = strlen(n->kind);
    return len > 0 && n->kind[len - 1] == '_';
}

typedef struct Scan {
    bool layouts_change, attributes_assigned;
} Scan;

static void scan_node(IrNode *n, void *ctx)
{
    Scan *s = ctx;
    s->layouts_change |= layouts_may_change(n);
    s->attributes_assigned |= n->op == OP_PRIM_SETATTR;
}

size_t tssa_decide_reshapes(IrGraph *g, const TssaOptions *opt)
{
    Scan scan = {false, false};
    ir_walk(g->top, scan_node, &scan);
    if (scan.layouts_change)
        return 0;
    Decide d = {.g = g, .opt = opt, .nvalues = g->nvalues, .attributes_assigned = scan.attributes_assigned};
    d.layouts = xcalloc(d.nvalues ? d.nvalues : 1, sizeof *d.layouts);
    IrBlock *top = g->top;
    for (int i = 0; i < ir_block_nparams(top); i++) {
        IrValue *p = ir_block_param(top, i);
        if (!tssa_is_tensor_value(p))
            continue;
        TssaLayout l = tssa_layout_contiguous();
        const RtValue *bound = opt && opt->inputs && i < opt->ninputs ? opt->inputs[i] : NULL;
        if (bound && bound->kind == RT_TENSOR && bound->u.t) {
            l.kind = TSSA_LAYOUT_STRIDED;
            l.t.ndim = bound->u.t->ndim;
            memcpy(l.t.sizes, bound->u.t->sizes, sizeof l.t.sizes);
            memcpy(l.t.strides, bound->u.t->strides, sizeof l.t.strides);
        }
        set_layout(&d, p, &l);
    }
    walk_block(&d, top);
    free(d.layouts);
    return d.decided;
}
