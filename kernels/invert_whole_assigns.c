/* invert_whole_assigns.c — TensorSSA's assigns through a view that covers
 * its whole base, as the inverse view of the source.
 *
 * A write through a chain of views (`o0 = x.squeeze(1).t()[i]; o0.addmv_(...)`)
 * becomes, in TensorSSA, one assign per view of the chain, innermost first:
 *   %a = immut::select_rev(%t, %v, 0, %i)
 *   %b = immut::t_rev(%sq, %a)
 *   %c = immut::squeeze_rev(%x, %b, 1)
 * Only the innermost writes a region; t, transpose, squeeze and unsqueeze
 * view every element of their base exactly once, so their assigns replace
 * all of the base: the result is the source, laid out as the base (the
 * base's values are not read). Run as assigns they copy the whole base
 * (reference kernels, one copy each, per loop step in the loop above); as
 * the inverse view of the source they are views, which fuse with the
 * assign that made the source and the nodes that read the result:
 *   immut::t_rev(x, s)                -> immut::t(s)
 *   immut::transpose_rev(x, s, a, b)  -> immut::transpose(s, a, b)
 *   immut::squeeze_rev(x, s, d)       -> immut::unsqueeze(s, d)  (x.size(d) == 1)
 *                                        s                       (otherwise: no-op view)
 *   immut::unsqueeze_rev(x, s, d)     -> immut::squeeze(s, d)
 * The values are moved, never computed, so results are bitwise the same.
 *
 * Preconditions: shapes are inferred; the graph is functional. An assign
 * is rewritten only when its source is a tensor of static shape equal to
 * the region's (no broadcast of the source) and of the base's dtype (no
 * cast), and its base has a static shape (the region's size follows from
 * it; squeeze's dim is a compile-time int). Result: the inverse view (or
 * the source itself) takes the assign's uses; the assign goes.
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

static bool static_int(const LowerProgram *p, const IrValue *v, int64_t *out)
{
    const RtValue *r = lower_static_value(p, v);
    if (!r || r->kind != RT_INT)
        return false;
    *out = r->u.i;
    return true;
}

/* Whether a and b have one dtype and equal static sizes. */
static bool same_shape(const IrTensorType *a, const IrTensorType *b)
{
    if (!a || !b || a->dtype != b->dtype || a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d])
            return false;
    return true;
}

/* The view op whose result is the assign's result read from its source,
 * OP_UNKNOWN to take the source itself, or -1 when the assign is not
 * rewritten. */
static int inverse_view(const LowerProgram *p, const IrNode *n, const IrTensorType *base)
{
    int64_t dim;
    switch (n->op) {
    case OP_IMMUT_T_REV:
        return n->ninputs == 2 ? OP_IMMUT_T : -1;
    case OP_IMMUT_TRANSPOSE_REV:
        return n->ninputs == 4 ? OP_IMMUT_TRANSPOSE : -1;
    case OP_IMMUT_UNSQUEEZE_REV:
        return n->ninputs == 3 ? OP_IMMUT_SQUEEZE : -1;
    case OP_IMMUT_SQUEEZE_REV:
        if (n->ninputs != 3 || !static_int(p, n->inputs[2], &dim) || base->rank == 0)
            return -1;
        dim = dim < 0 ? dim + base->rank : dim;
        if (dim < 0 || dim >= base->rank)
            return -1;
        return base->sizes[dim] == 1 ? OP_IMMUT_UNSQUEEZE : OP_UNKNOWN;
    default:
        return -1;
    }
}

static int invert_node(LowerProgram *p, IrNode *n)
{
    if (n->noutputs != 1 || n->ninputs < 2)
        return 0;
    const IrTensorType *base = shape_of(n->inputs[0]), *src = shape_of(n->inputs[1]),
                       *out = shape_of(n->outputs[0]);
    if (!base || !src || !same_shape(base, out) || base->rank > TENSOR_MAX_DIMS)
        return 0;
    int view = inverse_view(p, n, base);
    if (view < 0)
        return 0;
    /* the region's shape is what the inverse view of src must come from:
     * the result's shape read back through the forward view */
    bool fits;
    switch (n->op) {
    case OP_IMMUT_T_REV:
        fits = src->dtype == base->dtype && src->rank == base->rank &&
               (base->rank < 2 ? same_shape(src, base)
                               : src->sizes[0] == base->sizes[1] && src->sizes[1] == base->sizes[0]);
        break;
    case OP_IMMUT_TRANSPOSE_REV: {
        int64_t a, b;
        fits = static_int(p, n->inputs[2], &a) && static_int(p, n->inputs[3], &b) &&
               src->dtype == base->dtype && src->rank == base->rank && base->rank > 0;
        if (fits) {
            a = a < 0 ? a + base->rank : a;
            b = b < 0 ? b + base->rank : b;
            fits = a >= 0 && a < base->rank && b >= 0 && b < base->rank;
            for (int d = 0; fits && d < base->rank; d++) {
                int from = d == a ? (int)b : d == b ? (int)a : d;
                fits = src->sizes[d] == base->sizes[from];
            }
        }
        break;
    }
    default: {
        /* squeeze / unsqueeze keep the row-major order: the region is the
         * base less (squeeze) or plus (unsqueeze) one size-1 dim at d */
        int64_t d;
        fits = src->dtype == base->dtype && static_int(p, n->inputs[2], &d);
        if (!fits)
            break;
        int64_t sizes[TENSOR_MAX_DIMS + 1];
        for (int k = 0; k < base->rank && k < TENSOR_MAX_DIMS; k++)
            sizes[k] = base->sizes[k];
        IrTensorType region = *base;
        region.sizes = sizes;
        if (n->op == OP_IMMUT_UNSQUEEZE_REV) {
            d = d < 0 ? d + base->rank + 1 : d;
            fits = d >= 0 && d <= base->rank && base->rank < TENSOR_MAX_DIMS;
            for (int k = base->rank; fits && k > d; k--)
                sizes[k] = sizes[k - 1];
            if (fits) {
                sizes[d] = 1;
                region.rank++;
            }
        } else if (view != OP_UNKNOWN) {
            d = d < 0 ? d + base->rank : d;
            for (int k = (int)d; k + 1 < base->rank; k++)
                sizes[k] = sizes[k + 1];
            region.rank--;
        }
        fits = fits && same_shape(src, &region);
        break;
    }
    }
    if (!fits)
        return 0;
    if (view == OP_UNKNOWN) {
        ir_replace_all_uses(n->outputs[0], n->inputs[1]);
        ir_node_destroy(n);
        return 1;
    }
    IrNode *inv = ir_node_new_op(n->graph, (OpId)view);
    for (int i = 1; i < n->ninputs; i++)
        ir_node_add_input(inv, n->inputs[i]);
    IrValue *result = ir_node_add_output(inv, n->outputs[0]->type, NULL);
    inv->comment = n->comment;
    inv->line = n->line;
    ir_insert_before(inv, n);
    ir_replace_all_uses(n->outputs[0], result);
    ir_node_destroy(n);
    return 1;
}

int kernels_invert_whole_assigns(LowerProgram *p)
{
    return kernels_rewrite_each(p, invert_node);
}
