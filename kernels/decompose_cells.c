/* decompose_cells.c — recurrent cells as the ops they are made of.
 *
 * aten::gru_cell, aten::lstm_cell and aten::rnn_tanh_cell are two GEMMs and
 * a dozen elementwise gate ops; as one opaque node they run on the
 * reference kernels, op by op, every step. Written out, the GEMMs go to
 * OpenBLAS (aten::linear) and fusion makes the gates one kernel.
 *
 * Preconditions: shape_infer ran. A cell is rewritten when input [B, I],
 * hidden state(s) [B, H], w_ih [G*H, I], w_hh [G*H, H] and the biases
 * ([G*H] or None) have static float shapes of one dtype (G = 3 for GRU, 4
 * for LSTM, 1 for the tanh RNN), and, for lstm_cell, its (h, c) list is a
 * prim::ListConstruct. Result, in the reference kernels' order of operations
 * (eval/ops_nn.c), with refined types on every new value:
 *   gi = linear(x, w_ih, b_ih), gh = linear(h, w_hh, b_hh)
 *   tanh RNN  hy = tanh(gh + gi)
 *   GRU       r = sigmoid(gh[:, 0:H] + gi[:, 0:H]),
 *             z = sigmoid(gh[:, H:2H] + gi[:, H:2H]),
 *             n = tanh(gi[:, 2H:3H] + gh[:, 2H:3H] * r),
 *             hy = (h - n) * z + n
 *   LSTM      g = gh + gi; i, f, o = sigmoid(g[:, 0:H], g[:, H:2H],
 *             g[:, 3H:4H]), c' = tanh(g[:, 2H:3H]);
 *             cy = f * c + i * c', hy = o * tanh(cy)
 * The cell node goes.
 */
#include "kernels/kernels_internal.h"
#include "tssa/shapes.h"

typedef struct Rewrite {
    LowerProgram *p;
    IrGraph *g;
    IrNode *at;                 /* the cell: new nodes go before it */
    int dtype;
    int64_t batch, hidden;
} Rewrite;

static IrValue *node_of(Rewrite *w, OpId op, IrValue *const *in, int nin, int64_t cols)
{
    IrNode *n = ir_node_new_op(w->g, op);
    for (int i = 0; i < nin; i++)
        ir_node_add_input(n, in[i]);
    int64_t sizes[2] = {w->batch, cols};
    IrValue *out = ir_node_add_output(n, ir_type_tensor_refined(w->g, w->dtype, 2, sizes, NULL), NULL);
    ir_insert_before(n, w->at);
    return out;
}

static IrValue *unary(Rewrite *w, OpId op, IrValue *x)
{
    return node_of(w, op, &x, 1, w->hidden);
}

static IrValue *mul(Rewrite *w, IrValue *a, IrValue *b)
{
    return node_of(w, OP_ATEN_MUL, (IrValue *[]){a, b}, 2, w->hidden);
}

/* a + b (sub: a - b), alpha 1 */
static IrValue *add(Rewrite *w, IrValue *a, IrValue *b, bool sub, int64_t cols)
{
    IrValue *one = kernels_scalar_constant(w->p, w->at, 1, false);
    return node_of(w, sub ? OP_ATEN_SUB : OP_ATEN_ADD, (IrValue *[]){a, b, one}, 3, cols);
}

/* gates[:, k*H:(k+1)*H] */
static IrValue *gate(Rewrite *w, IrValue *gates, int k)
{
    IrValue *in[5] = {gates, kernels_scalar_constant(w->p, w->at, 1, false),
                      kernels_scalar_constant(w->p, w->at, k * w->hidden, false),
                      kernels_scalar_constant(w->p, w->at, (k + 1) * w->hidden, false),
                      kernels_scalar_constant(w->p, w->at, 1, false)};
    return node_of(w, OP_ATEN_SLICE, in, 5, w->hidden);
}

static bool has_shape(const IrValue *v, int dtype, int rank, int64_t d0, int64_t d1)
{
    const IrTensorType *t = shape_of(v);
    return t && t->dtype == dtype && t->rank == rank && t->sizes[0] == d0 &&
           (rank < 2 || t->sizes[1] == d1);
}

static bool is_none(const LowerProgram *p, const IrValue *v)
{
    const RtValue *r = lower_static_value(p, v);
    return r && r->kind == RT_NONE;
}

static bool decompose(LowerProgram *p, IrNode *cell)
{
    int ngates = cell->op == OP_ATEN_GRU_CELL ? 3 : cell->op == OP_ATEN_LSTM_CELL ? 4 : 1;
    if (cell->ninputs < 4 || cell->ninputs > 6 || cell->noutputs != (ngates == 4 ? 2 : 1))
        return false;
    IrValue *x = cell->inputs[0], *h = cell->inputs[1], *c = NULL;
    if (ngates == 4) {
        const IrNode *list = h->def;
        if (list->op != OP_PRIM_LISTCONSTRUCT || list->ninputs != 2)
            return false;
        h = list->inputs[0];
        c = list->inputs[1];
    }
    const IrTensorType *tx = shape_of(x), *th = shape_of(h);
    if (!tx || !th || tx->rank != 2 || th->rank != 2 || (tx->dtype != DT_F32 && tx->dtype != DT_F64))
        return false;
    int dt = tx->dtype;
    int64_t batch = tx->sizes[0], in = tx->sizes[1], hidden = th->sizes[1];
    IrValue *w_ih = cell->inputs[2], *w_hh = cell->inputs[3];
    IrValue *b_ih = cell->ninputs > 4 ? cell->inputs[4] : NULL;
    IrValue *b_hh = cell->ninputs > 5 ? cell->inputs[5] : NULL;
    int64_t rows = ngates * hidden;
    if (!has_shape(h, dt, 2, batch, hidden) || (c && !has_shape(c, dt, 2, batch, hidden)) ||
        !has_shape(w_ih, dt, 2, rows, in) || !has_shape(w_hh, dt, 2, rows, hidden))
        return false;
    IrValue *none = NULL;
    for (int i = 4; i < cell->ninputs; i++) {
        if (is_none(p, cell->inputs[i]))
            none = cell->inputs[i];
        else if (!has_shape(cell->inputs[i], dt, 1, rows, 0))
            return false;
    }
    if ((!b_ih || !b_hh) && !none)
        return false;   /* linear needs a None to pass for a missing bias */
    Rewrite w = {.p = p, .g = lower_ir_graph(p), .at = cell, .dtype = dt, .batch = batch,
                 .hidden = hidden};
    IrValue *gi = node_of(&w, OP_ATEN_LINEAR, (IrValue *[]){x, w_ih, b_ih ? b_ih : none}, 3, rows);
    IrValue *gh = node_of(&w, OP_ATEN_LINEAR, (IrValue *[]){h, w_hh, b_hh ? b_hh : none}, 3, rows);
    if (ngates == 1) {
        ir_replace_all_uses(cell->outputs[0], unary(&w, OP_ATEN_TANH, add(&w, gh, gi, false, rows)));
    } else if (ngates == 3) {
        IrValue *r = unary(&w, OP_ATEN_SIGMOID, add(&w, gate(&w, gh, 0), gate(&w, gi, 0), false, hidden));
        IrValue *z = unary(&w, OP_ATEN_SIGMOID, add(&w, gate(&w, gh, 1), gate(&w, gi, 1), false, hidden));
        IrValue *n = unary(&w, OP_ATEN_TANH, add(&w, gate(&w, gi, 2), mul(&w, gate(&w, gh, 2), r), false, hidden));
        IrValue *hy = add(&w, mul(&w, add(&w, h, n, true, hidden), z), n, false, hidden);
        ir_replace_all_uses(cell->outputs[0], hy);
    } else {
        IrValue *g = add(&w, gh, gi, false, rows);
        IrValue *ig = unary(&w, OP_ATEN_SIGMOID, gate(&w, g, 0));
        IrValue *fg = unary(&w, OP_ATEN_SIGMOID, gate(&w, g, 1));
        IrValue *cg = unary(&w, OP_ATEN_TANH, gate(&w, g, 2));
        IrValue *og = unary(&w, OP_ATEN_SIGMOID, gate(&w, g, 3));
        IrValue *cy = add(&w, mul(&w, fg, c), mul(&w, ig, cg), false, hidden);
        IrValue *hy = mul(&w, og, unary(&w, OP_ATEN_TANH, cy));
        ir_replace_all_uses(cell->outputs[0], hy);
        ir_replace_all_uses(cell->outputs[1], cy);
    }
    IrNode *list = ngates == 4 ? cell->inputs[1]->def : NULL;
    ir_node_destroy(cell);
    if (list && list->outputs[0]->nuses == 0)
        ir_node_destroy(list);
    return true;
}

static int decompose_node(LowerProgram *p, IrNode *node)
{
    bool cell = node->op == OP_ATEN_GRU_CELL || node->op == OP_ATEN_LSTM_CELL ||
                node->op == OP_ATEN_RNN_TANH_CELL;
    return cell && decompose(p, node);
}

int kernels_decompose_cells(LowerProgram *p)
{
    return kernels_rewrite_each(p, decompose_node);
}
