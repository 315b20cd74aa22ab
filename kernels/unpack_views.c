/* unpack_views.c — chunk / split / unbind followed by their ListUnpack
 * become one view per piece, so that fusion sees the pieces as the slices
 * and selects they are (an LSTM's `i, f, g, o = gates.chunk(4, 1)` feeds
 * four gate expressions of one kernel).
 *
 * Preconditions: shapes are inferred (the input's size along the dim must
 * be static), the graph is functional. A list that anything else reads
 * (the ListUnpack is not its only use) is left alone. Result: the
 * ListUnpack's outputs are replaced by
 *   chunk(x, n, d)     aten::slice(x, d, k*s, min((k+1)*s, size), 1),
 *                      s = ceil(size / n) (PyTorch's chunk sizes)
 *   split(x, s, d)     the same with the given s
 *   unbind(x, d)       aten::select(x, d, k)
 *   meshgrid([x0, x1, ...], indexing)
 *                      aten::expand(aten::view(xk, [1.., n_k, ..1]), [n...])
 *                      (1-d inputs; "xy" swaps the first two dims)
 * with the refined types of the unpacked values; the two old nodes go.
 * aten::__getitem__(list, i) of such a list at a compile-time index is
 * replaced by piece i's view, and of an unbind list at a run-time index by
 * aten::select(x, d, i) (the list goes with its last use).
 */
#include <string.h>

#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

/* A new int-list constant (prim::ListConstruct of int constants), placed
 * as kernels_scalar_constant places its items. */
static IrValue *ints_constant(LowerProgram *p, IrNode *at, const int64_t *v, int n)
{
    IrNode *before = kernels_top_anchor(at);
    IrGraph *g = before->graph;
    IrNode *lc = ir_node_new_op(g, OP_PRIM_LISTCONSTRUCT);
    RtValue *items[KIR_MAX_RANK];
    for (int i = 0; i < n; i++) {
        ir_node_add_input(lc, kernels_scalar_constant(p, at, v[i], false));
        items[i] = rt_int(v[i]);
    }
    IrValue *out = ir_node_add_output(lc, ir_type_list(g, ir_type_simple(g, TY_INT)), NULL);
    ir_insert_before(lc, before);
    lower_add_static(p, out, rt_list(RT_LIST, n, items));
    for (int i = 0; i < n; i++)
        rt_release(items[i]);
    return out;
}

/* meshgrid's pieces: piece k is input k (1-d, length n_k) viewed with
 * n_k at dim k (dims 0 and 1 swapped for "xy") and 1 elsewhere, expanded
 * to every input's length. */
static bool meshgrid_to_views(LowerProgram *p, IrNode *unpack)
{
    IrValue *list = unpack->inputs[0];
    IrNode *mg = list->def, *lc = mg->inputs[0]->def;
    if (list->nuses != 1 || lc->op != OP_PRIM_LISTCONSTRUCT || lc->ninputs != unpack->noutputs ||
        lc->ninputs > KIR_MAX_RANK || lc->ninputs < 1)
        return false;
    bool xy = false;
    if (mg->ninputs > 1) {
        const RtValue *ix = lower_static_value(p, mg->inputs[1]);
        if (!ix || ix->kind != RT_STR)
            return false;
        xy = strcmp(ix->u.s, "xy") == 0;
    }
    int n = lc->ninputs;
    int64_t sizes[KIR_MAX_RANK] = {0};
    for (int k = 0; k < n; k++) {
        const IrTensorType *t = shape_of(lc->inputs[k]);
        if (!t || t->rank != 1 || !shape_of(unpack->outputs[k]))
            return false;
        sizes[k] = t->sizes[0];
    }
    if (xy && n >= 2) {
        int64_t s0 = sizes[0];
        sizes[0] = sizes[1];
        sizes[1] = s0;
    }
    IrGraph *g = unpack->graph;
    IrValue *all = ints_constant(p, unpack, sizes, n);
    for (int k = 0; k < n; k++) {
        int at = xy && n >= 2 && k < 2 ? 1 - k : k;
        int64_t shape[KIR_MAX_RANK];
        for (int d = 0; d < n; d++)
            shape[d] = d == at ? sizes[d] : 1;
        IrNode *view = ir_node_new_op(g, OP_ATEN_VIEW);
        ir_node_add_input(view, lc->inputs[k]);
        ir_node_add_input(view, ints_constant(p, unpack, shape, n));
        IrValue *viewed = ir_node_add_output(
            view, ir_type_tensor_refined(g, shape_of(lc->inputs[k])->dtype, n, shape, NULL), NULL);
        view->comment = mg->comment;
        ir_insert_before(view, unpack);
        IrNode *ex = ir_node_new_op(g, OP_ATEN_EXPAND);
        ir_node_add_input(ex, viewed);
        ir_node_add_input(ex, all);
        ir_node_add_input(ex, kernels_scalar_constant(p, unpack, 0, false));
        IrValue *out = ir_node_add_output(ex, unpack->outputs[k]->type, NULL);
        ex->comment = mg->comment;
        ir_insert_before(ex, unpack);
        ir_replace_all_uses(unpack->outputs[k], out);
    }
    ir_node_destroy(unpack);
    ir_node_destroy(mg);
    if (lc->outputs[0]->nuses == 0)
        ir_node_destroy(lc);
    return true;
}

static bool static_int(const LowerProgram *p, const IrValue *v, int64_t *out)
{
    const RtValue *r = lower_static_value(p, v);
    if (!r || r->kind != RT_INT)
        return false;
    *out = r->u.i;
    return true;
}

/* A chunk / split / unbind of a tensor of static shape: its pieces. */
typedef struct Pieces {
    IrNode *src;
    IrValue *x;
    const IrTensorType *t;
    int64_t dim, size, piece;   /* piece: each piece's length (unbind: 1) */
    int n;                      /* how many pieces */
} Pieces;

static bool pieces_of(const LowerProgram *p, IrValue *list, Pieces *pc)
{
    IrNode *src = list->def;
    if (src->noutputs != 1 || src->ninputs < 2)
        return false;
    OpId op = src->op;
    if (op != OP_ATEN_CHUNK && op != OP_ATEN_SPLIT && op != OP_ATEN_UNBIND)
        return false;
    const IrTensorType *t = shape_of(src->inputs[0]);
    if (!t)
        return false;
    int64_t dim = 0, arg = 0;
    if (op == OP_ATEN_UNBIND) {
        if (!static_int(p, src->inputs[1], &dim))
            return false;
    } else if (src->ninputs < 3 || !static_int(p, src->inputs[1], &arg) ||
               !static_int(p, src->inputs[2], &dim) || arg <= 0) {
        return false;
    }
    if (dim < 0)
        dim += t->rank;
    if (dim < 0 || dim >= t->rank)
        return false;
    int64_t size = t->sizes[dim];
    int64_t piece = op == OP_ATEN_CHUNK ? (size + arg - 1) / arg : op == OP_ATEN_SPLIT ? arg : 1;
    if (piece == 0)
        return false;
    *pc = (Pieces){.src = src, .x = src->inputs[0], .t = t, .dim = dim, .size = size, .piece = piece,
                   .n = (int)(op == OP_ATEN_UNBIND ? size : (size + piece - 1) / piece)};
    return true;
}

/* Piece k of pc as a view node before `at`; its output has `type`, or the
 * piece's own refined type when type is NULL. */
static IrValue *piece_view(LowerProgram *p, const Pieces *pc, int k, IrNode *at, IrType *type)
{
    IrGraph *g = at->graph;
    IrValue *d = kernels_scalar_constant(p, at, pc->dim, false);
    int64_t start = k * pc->piece, end = start + pc->piece < pc->size ? start + pc->piece : pc->size;
    IrNode *v;
    int64_t sizes[KIR_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < pc->t->rank; i++) {
        if (i != pc->dim)
            sizes[rank++] = pc->t->sizes[i];
        else if (pc->src->op != OP_ATEN_UNBIND)
            sizes[rank++] = end - start;
    }
    if (pc->src->op == OP_ATEN_UNBIND) {
        v = ir_node_new_op(g, OP_ATEN_SELECT);
        ir_node_add_input(v, pc->x);
        ir_node_add_input(v, d);
        ir_node_add_input(v, kernels_scalar_constant(p, at, k, false));
    } else {
        v = ir_node_new_op(g, OP_ATEN_SLICE);
        ir_node_add_input(v, pc->x);
        ir_node_add_input(v, d);
        ir_node_add_input(v, kernels_scalar_constant(p, at, start, false));
        ir_node_add_input(v, kernels_scalar_constant(p, at, end, false));
        ir_node_add_input(v, kernels_scalar_constant(p, at, 1, false));
    }
    IrValue *out = ir_node_add_output(
        v, type ? type : ir_type_tensor_refined(g, pc->t->dtype, rank, sizes, NULL), NULL);
    v->comment = pc->src->comment;
    ir_insert_before(v, at);
    return out;
}

/* Replaces unpack's outputs by views of x; true when it did. */
static bool unpack_to_views(LowerProgram *p, IrNode *unpack)
{
    IrValue *list = unpack->inputs[0];
    if (list->def->op == OP_ATEN_MESHGRID)
        return meshgrid_to_views(p, unpack);
    Pieces pc;
    if (list->nuses != 1 || !pieces_of(p, list, &pc) || unpack->noutputs != pc.n)
        return false;
    for (int k = 0; k < pc.n; k++)
        if (!shape_of(unpack->outputs[k]))
            return false;
    for (int k = 0; k < pc.n; k++)
        ir_replace_all_uses(unpack->outputs[k], piece_view(p, &pc, k, unpack, unpack->outputs[k]->type));
    ir_node_destroy(unpack);
    ir_node_destroy(pc.src);
    return true;
}

/* aten::__getitem__ at a compile-time index of a chunk / split / unbind
 * list (NASRNN's `ix = (x @ w).chunk(8, 1)` then `ix[0] + im[0]`, ...)
 * becomes the piece's view; the list goes with its last read. True when it
 * did. */
static bool getitem_to_view(LowerProgram *p, IrNode *get)
{
    IrValue *list = get->inputs[0];
    Pieces pc;
    int64_t i;
    if (get->ninputs != 2 || get->noutputs != 1 || !pieces_of(p, list, &pc))
        return false;
    IrValue *v;
    if (static_int(p, get->inputs[1], &i)) {
        if (i < -pc.n || i >= pc.n)
            return false;
        v = piece_view(p, &pc, (int)(i < 0 ? i + pc.n : i), get, NULL);
    } else {
        /* unbind's piece at a run-time index: aten::select(x, dim, i), which
         * wraps a negative i as the list does (a loop's x[i]) */
        if (pc.src->op != OP_ATEN_UNBIND || !shape_of(get->outputs[0]))
            return false;
        IrNode *sel = ir_node_new_op(get->graph, OP_ATEN_SELECT);
        ir_node_add_input(sel, pc.x);
        ir_node_add_input(sel, kernels_scalar_constant(p, get, pc.dim, false));
        ir_node_add_input(sel, get->inputs[1]);
        v = ir_node_add_output(sel, get->outputs[0]->type, NULL);
        sel->comment = get->comment;
        ir_insert_before(sel, get);
    }
    ir_replace_all_uses(get->outputs[0], v);
    ir_node_destroy(get);
    if (list->nuses == 0)
        ir_node_destroy(pc.src);
    return true;
}

static int unpack_node(LowerProgram *p, IrNode *node)
{
    if (node->op == OP_PRIM_LISTUNPACK && node->ninputs == 1)
        return unpack_to_views(p, node);
    return node->op == OP_ATEN_GETITEM && getitem_to_view(p, node);
}

int kernels_unpack_views(LowerProgram *p)
{
    return kernels_rewrite_each(p, unpack_node);
}
