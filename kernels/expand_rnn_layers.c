/* expand_rnn_layers.c — whole recurrent layers as loops over time of their gates.
 *
 * aten::gru, aten::lstm, aten::rnn_tanh and aten::rnn_relu (the `.input`
 * overloads nn.GRU / nn.LSTM / nn.RNN script into) run every layer,
 * direction and time step inside one node: one opaque filter on the
 * reference kernels. Written out as what they are, a prim::Loop per layer
 * and direction stepping the gates, the rest of the pipeline takes over:
 * the loop lowering makes each loop a feedback loop and fusion makes each
 * step's gates one kernel. The input projection does not depend on the
 * carried state, so it is ONE product of all T steps before the loop
 * (X[T, B, I] @ w_ih^T + b_ih, a GEMM of T*B rows, as ATen's CPU path and
 * cuDNN do), and a step reads its rows.
 *
 * Preconditions: a functional graph (after specialization), before
 * shape_infer, which types the new nodes (this pass writes plain types).
 * A layer node is expanded when has_biases, num_layers, dropout, train,
 * bidirectional and batch_first are compile-time values, its parameter
 * list holds num_layers x directions x (2, +2 biases, +1 LSTM w_hr) tensors,
 * an LSTM's (h0, c0) is a prim::ListConstruct, and dropout between layers is
 * off (train false, dropout 0 or one layer; otherwise, and for the
 * PackedSequence `.data` overloads, the node stays and the interpreter
 * refuses it at run time, naming it).
 *
 * Result, for each layer l and direction d (k = l * D + d), with X the
 * layer's time-major input ([T, B, I]; the graph input transposed when
 * batch_first; the previous layer's output otherwise):
 *     w_ih, w_hh, b_ih, b_hh, w_hr = ListUnpack(params)[k * per ...]
 *     h = select(h0, 0, k)          (c = select(c0, 0, k) for LSTM)
 *     P = linear(X, w_ih, b_ih)                            [T, B, G*H]
 *     out = zeros([T, B, size(h, 1)], dtype(X), device(X))
 *     h, (c,) out = prim::Loop(T, true, h, (c,) out)
 *       block(t, h, (c,) out):
 *         s = t, or T - 1 - t for the reverse direction
 *         gi = select(P, 0, s); gh = linear(h, w_hh, b_hh)
 *         tanh / relu RNN  h' = tanh / relu(gh + gi)
 *         GRU   (r, z, n gates by chunk) r = sigmoid(gh_r + gi_r),
 *               z = sigmoid(gh_z + gi_z), n = tanh(gi_n + gh_n * r),
 *               h' = (h - n) * z + n
 *         LSTM  i, f, g, o = chunk(gh + gi, 4, 1); c' = sigmoid(f) * c +
 *               sigmoid(i) * tanh(g); h' = sigmoid(o) * tanh(c'), then
 *               linear(h', w_hr) when projected (proj_size)
 *         out' = immut::select_rev(out, h', 0, s)
 *         -> (true, h', (c',) out')
 * A bidirectional layer's output is cat([out_fwd, out_bwd], 2): its two
 * loops are independent, so the stream graph can run them side by side. The
 * node's outputs become the last layer's output (transposed back when
 * batch_first) and stack(final states, 0). Missing biases pass a None. The
 * layer node goes. The operations are the interpreter's (eval/ops_rnn.c),
 * step by step, so results agree to rounding (the one product of T*B rows
 * blocks its sums as ATen's CPU path does).
 */
#include <stdlib.h>

#include "kernels/kernels_internal.h"

typedef enum RnnKind { RNN_KIND_TANH, RNN_KIND_RELU, RNN_KIND_GRU, RNN_KIND_LSTM } RnnKind;

/* A rewrite in progress: new nodes go before `at` (the layer node) unless
 * `into` names a block to append to (a loop body being built). */
typedef struct Expand {
    LowerProgram *p;
    IrGraph *g;
    IrNode *at;
    IrBlock *into;
    IrValue *none, *zero, *one, *yes;
    IrValue *ngates;    /* 3 (GRU) or 4 (LSTM): made before any loop, as a
                         * constant made while a body is built would land
                         * after its loop */
} Expand;

static void place(Expand *e, IrNode *n)
{
    if (e->into)
        ir_append(e->into, n);
    else
        ir_insert_before(n, e->at);
}

static IrType *tensor_type(Expand *e)
{
    return ir_type_tensor(e->g);
}

/* A node of op with the given inputs and one output of type ty. */
static IrValue *emit(Expand *e, OpId op, IrValue *const *in, int nin, IrType *ty)
{
    IrNode *n = ir_node_new_op(e->g, op);
    for (int i = 0; i < nin; i++)
        ir_node_add_input(n, in[i]);
    IrValue *out = ir_node_add_output(n, ty, NULL);
    place(e, n);
    return out;
}

static IrValue *emit_tensor(Expand *e, OpId op, IrValue *const *in, int nin)
{
    return emit(e, op, in, nin, tensor_type(e));
}

static IrValue *int_constant(Expand *e, int64_t v)
{
    return kernels_scalar_constant(e->p, e->at, v, false);
}

static IrValue *none_constant(Expand *e)
{
    if (!e->none) {
        IrNode *c = ir_node_new_op(e->g, OP_PRIM_CONSTANT);
        e->none = ir_node_add_output(c, ir_type_simple(e->g, TY_NONE), NULL);
        ir_insert_before(c, kernels_top_anchor(e->at));
        lower_add_static(e->p, e->none, rt_none());
    }
    return e->none;
}

static IrValue *int_list(Expand *e, IrValue *const *items, int n)
{
    return emit(e, OP_PRIM_LISTCONSTRUCT, items, n,
                ir_type_list(e->g, ir_type_simple(e->g, TY_INT)));
}

static IrValue *tensor_list(Expand *e, IrValue *const *items, int n)
{
    return emit(e, OP_PRIM_LISTCONSTRUCT, items, n, ir_type_list(e->g, tensor_type(e)));
}

static bool static_number(const LowerProgram *p, const IrValue *v, double *out)
{
    const RtValue *r = lower_static_value(p, v);
    if (!r || (r->kind != RT_INT && r->kind != RT_BOOL && r->kind != RT_FLOAT))
        return false;
    *out = r->kind == RT_FLOAT ? r->u.f : (double)r->u.i;
    return true;
}

/* One direction of one layer's weights (b_*, w_hr: None when absent). */
typedef struct Weights {
    IrValue *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
} Weights;

static IrValue *add(Expand *e, IrValue *a, IrValue *b)
{
    return emit_tensor(e, OP_ATEN_ADD, (IrValue *[]){a, b, e->one}, 3);
}

static IrValue *mul(Expand *e, IrValue *a, IrValue *b)
{
    return emit_tensor(e, OP_ATEN_MUL, (IrValue *[]){a, b}, 2);
}

static IrValue *unary(Expand *e, OpId op, IrValue *a)
{
    return emit_tensor(e, op, &a, 1);
}

/* g split in n gates along dim 1: chunk + ListUnpack (views, once
 * unpack_views ran). */
static void split_gates(Expand *e, IrValue *g, int n, IrValue **gates)
{
    IrValue *list = emit(e, OP_ATEN_CHUNK, (IrValue *[]){g, e->ngates, e->one}, 3,
                         ir_type_list(e->g, tensor_type(e)));
    IrNode *unpack = ir_node_new_op(e->g, OP_PRIM_LISTUNPACK);
    ir_node_add_input(unpack, list);
    for (int i = 0; i < n; i++)
        gates[i] = ir_node_add_output(unpack, tensor_type(e), NULL);
    place(e, unpack);
}

/* One step inside the loop body (e->into set) from gi, the step's rows of
 * the hoisted input projection, in the interpreter's order of operations
 * (eval/ops_rnn.c): h' (and c' in *c_next). */
static IrValue *emit_step(Expand *e, RnnKind kind, IrValue *gi, IrValue *h, IrValue *c,
                          const Weights *w, IrValue **c_next)
{
    IrValue *gh = emit_tensor(e, OP_ATEN_LINEAR, (IrValue *[]){h, w->w_hh, w->b_hh}, 3);
    switch (kind) {
    case RNN_KIND_TANH:
        return unary(e, OP_ATEN_TANH, add(e, gh, gi));
    case RNN_KIND_RELU:
        return unary(e, OP_ATEN_RELU, add(e, gh, gi));
    case RNN_KIND_GRU: {
        IrValue *i3[3], *h3[3];
        split_gates(e, gi, 3, i3);
        split_gates(e, gh, 3, h3);
        IrValue *r = unary(e, OP_ATEN_SIGMOID, add(e, h3[0], i3[0]));
        IrValue *z = unary(e, OP_ATEN_SIGMOID, add(e, h3[1], i3[1]));
        IrValue *n = unary(e, OP_ATEN_TANH, add(e, i3[2], mul(e, h3[2], r)));
        IrValue *diff = emit_tensor(e, OP_ATEN_SUB, (IrValue *[]){h, n, e->one}, 3);
        return add(e, mul(e, diff, z), n);
    }
    case RNN_KIND_LSTM: {
        IrValue *g4[4];
        split_gates(e, add(e, gh, gi), 4, g4);
        IrValue *in = unary(e, OP_ATEN_SIGMOID, g4[0]);
        IrValue *forget = unary(e, OP_ATEN_SIGMOID, g4[1]);
        IrValue *cell = unary(e, OP_ATEN_TANH, g4[2]);
        IrValue *out = unary(e, OP_ATEN_SIGMOID, g4[3]);
        *c_next = add(e, mul(e, forget, c), mul(e, in, cell));
        IrValue *hy = mul(e, out, unary(e, OP_ATEN_TANH, *c_next));
        if (w->w_hr != e->none)
            hy = emit_tensor(e, OP_ATEN_LINEAR, (IrValue *[]){hy, w->w_hr, e->none}, 3);
        return hy;
    }
    }
    return NULL;
}

/* The loop of one direction over the layer's input x [T, B, I] from h
 * (and c): the input projection of all T steps as one product before the
 * loop, then the loop; returns the per-step outputs [T, B, H_out] and
 * leaves the final states in *h, *c. The reverse direction's step t reads
 * and writes time T-1-t (an index of the counter alone, which the loop
 * lowering's slicers and writes take), so neither direction waits for more
 * than the other and the stream graph puts a layer's two loops side by
 * side. */
static IrValue *emit_direction(Expand *e, RnnKind kind, IrValue *x, bool reverse, const Weights *w,
                               IrValue **h, IrValue **c)
{
    IrValue *projected = emit_tensor(e, OP_ATEN_LINEAR, (IrValue *[]){x, w->w_ih, w->b_ih}, 3);
    IrValue *steps = emit(e, OP_ATEN_SIZE, (IrValue *[]){x, e->zero}, 2,
                          ir_type_simple(e->g, TY_INT));
    IrValue *batch = emit(e, OP_ATEN_SIZE, (IrValue *[]){x, e->one}, 2,
                          ir_type_simple(e->g, TY_INT));
    IrValue *width = emit(e, OP_ATEN_SIZE, (IrValue *[]){*h, e->one}, 2,
                          ir_type_simple(e->g, TY_INT));
    IrValue *sizes = int_list(e, (IrValue *[]){steps, batch, width}, 3);
    IrValue *dtype = emit(e, OP_PRIM_DTYPE, &x, 1, ir_type_simple(e->g, TY_INT));
    IrValue *device = emit(e, OP_PRIM_DEVICE, &x, 1, ir_type_simple(e->g, TY_DEVICE));
    IrValue *out0 = emit_tensor(e, OP_ATEN_ZEROS,
                                (IrValue *[]){sizes, dtype, e->none, device, e->none}, 5);

    bool lstm = kind == RNN_KIND_LSTM;
    IrNode *loop = ir_node_new_op(e->g, OP_PRIM_LOOP);
    ir_node_add_input(loop, steps);
    ir_node_add_input(loop, e->yes);
    ir_node_add_input(loop, *h);
    if (lstm)
        ir_node_add_input(loop, *c);
    ir_node_add_input(loop, out0);
    IrValue *h_final = ir_node_add_output(loop, tensor_type(e), NULL);
    IrValue *c_final = lstm ? ir_node_add_output(loop, tensor_type(e), NULL) : NULL;
    IrValue *out = ir_node_add_output(loop, tensor_type(e), NULL);
    place(e, loop);

    IrBlock *body = ir_node_add_block(loop);
    IrValue *t = ir_block_add_param(body, ir_type_simple(e->g, TY_INT), NULL);
    IrValue *h_in = ir_block_add_param(body, tensor_type(e), NULL);
    IrValue *c_in = lstm ? ir_block_add_param(body, tensor_type(e), NULL) : NULL;
    IrValue *out_in = ir_block_add_param(body, tensor_type(e), NULL);
    IrBlock *outer = e->into;
    e->into = body;
    IrValue *time = t;
    if (reverse) {
        IrType *int_type = ir_type_simple(e->g, TY_INT);
        IrValue *last = emit(e, OP_ATEN_SUB, (IrValue *[]){steps, e->one}, 2, int_type);
        time = emit(e, OP_ATEN_SUB, (IrValue *[]){last, t}, 2, int_type);
    }
    IrValue *gi = emit_tensor(e, OP_ATEN_SELECT, (IrValue *[]){projected, e->zero, time}, 3);
    IrValue *c_next = NULL;
    IrValue *h_next = emit_step(e, kind, gi, h_in, c_in, w, &c_next);
    IrValue *out_next = emit_tensor(e, OP_IMMUT_SELECT_REV,
                                    (IrValue *[]){out_in, h_next, e->zero, time}, 4);
    ir_block_add_return(body, e->yes);
    ir_block_add_return(body, h_next);
    if (lstm)
        ir_block_add_return(body, c_next);
    ir_block_add_return(body, out_next);
    e->into = outer;
    *h = h_final;
    if (lstm)
        *c = c_final;
    return out;
}

static bool expand(LowerProgram *p, IrNode *n, RnnKind kind)
{
    bool lstm = kind == RNN_KIND_LSTM;
    if (n->ninputs != 9 || n->noutputs != (lstm ? 3 : 2))
        return false;
    double has_biases, layers, dropout, train, bidirectional, batch_first;
    if (!static_number(p, n->inputs[3], &has_biases) || !static_number(p, n->inputs[4], &layers) ||
        !static_number(p, n->inputs[5], &dropout) || !static_number(p, n->inputs[6], &train) ||
        !static_number(p, n->inputs[7], &bidirectional) ||
        !static_number(p, n->inputs[8], &batch_first))
        return false;   /* the `.data` overload has a list at 3: not a number */
    if (layers < 1 || layers > 64 || (train != 0 && dropout > 0 && layers > 1))
        return false;
    int num_layers = (int)layers, directions = bidirectional != 0 ? 2 : 1;
    int groups = num_layers * directions;
    const RtValue *params = lower_static_value(p, n->inputs[2]);
    const IrNode *params_def = n->inputs[2]->def;
    int nparams = params && params->kind == RT_LIST ? params->u.list.n
                  : params_def->op == OP_PRIM_LISTCONSTRUCT ? params_def->ninputs
                                                            : -1;
    int base = has_biases != 0 ? 4 : 2;
    if (nparams < 0 || nparams % groups != 0)
        return false;
    int per = nparams / groups;
    if (per != base && !(lstm && per == base + 1))
        return false;
    const IrNode *hx_def = n->inputs[1]->def;
    if (lstm && (hx_def->op != OP_PRIM_LISTCONSTRUCT || hx_def->ninputs != 2))
        return false;

    Expand e = {.p = p, .g = lower_ir_graph(p), .at = n};
    none_constant(&e);
    e.zero = int_constant(&e, 0);
    e.one = int_constant(&e, 1);
    e.yes = kernels_scalar_constant(p, n, 1, true);
    e.ngates = int_constant(&e, lstm ? 4 : 3);

    /* the parameters, one value each, compile-time values when the list is */
    IrNode *unpack = ir_node_new_op(e.g, OP_PRIM_LISTUNPACK);
    ir_node_add_input(unpack, n->inputs[2]);
    IrValue **w = xcalloc((size_t)nparams, sizeof *w);
    for (int i = 0; i < nparams; i++) {
        w[i] = ir_node_add_output(unpack, tensor_type(&e), NULL);
        if (params && params->kind == RT_LIST)
            lower_add_static(p, w[i], rt_retain(params->u.list.items[i]));
    }
    place(&e, unpack);

    IrValue *h0 = lstm ? hx_def->inputs[0] : n->inputs[1];
    IrValue *c0 = lstm ? hx_def->inputs[1] : NULL;
    IrValue **h_final = xcalloc((size_t)groups, sizeof *h_final);
    IrValue **c_final = xcalloc((size_t)groups, sizeof *c_final);
    IrValue *layer_in = n->inputs[0];
    if (batch_first != 0)
        layer_in = emit_tensor(&e, OP_ATEN_TRANSPOSE, (IrValue *[]){layer_in, e.zero, e.one}, 3);
    for (int layer = 0; layer < num_layers; layer++) {
        IrValue *outs[2];
        for (int d = 0; d < directions; d++) {
            int k = layer * directions + d;
            IrValue **pk = w + k * per;
            Weights wk = {pk[0], pk[1], base == 4 ? pk[2] : e.none, base == 4 ? pk[3] : e.none,
                          per > base ? pk[base] : e.none};
            IrValue *index = int_constant(&e, k);
            h_final[k] = emit_tensor(&e, OP_ATEN_SELECT, (IrValue *[]){h0, e.zero, index}, 3);
            if (lstm)
                c_final[k] = emit_tensor(&e, OP_ATEN_SELECT, (IrValue *[]){c0, e.zero, index}, 3);
            outs[d] = emit_direction(&e, kind, layer_in, d == 1, &wk, &h_final[k], &c_final[k]);
        }
        if (directions == 2) {
            IrValue *two = int_constant(&e, 2);
            layer_in = emit_tensor(&e, OP_ATEN_CAT, (IrValue *[]){tensor_list(&e, outs, 2), two}, 2);
        } else {
            layer_in = outs[0];
        }
    }
    IrValue *output = layer_in;
    if (batch_first != 0)
        output = emit_tensor(&e, OP_ATEN_TRANSPOSE, (IrValue *[]){output, e.zero, e.one}, 3);
    IrValue *h_n = emit_tensor(&e, OP_ATEN_STACK,
                               (IrValue *[]){tensor_list(&e, h_final, groups), e.zero}, 2);
    ir_replace_all_uses(n->outputs[0], output);
    ir_replace_all_uses(n->outputs[1], h_n);
    if (lstm) {
        IrValue *c_n = emit_tensor(&e, OP_ATEN_STACK,
                                   (IrValue *[]){tensor_list(&e, c_final, groups), e.zero}, 2);
        ir_replace_all_uses(n->outputs[2], c_n);
    }
    free(w);
    free(h_final);
    free(c_final);
    IrNode *hx_list = lstm ? n->inputs[1]->def : NULL;
    ir_node_destroy(n);
    if (hx_list && hx_list->outputs[0]->nuses == 0)
        ir_node_destroy(hx_list);
    return true;
}

static int expand_node(LowerProgram *p, IrNode *node)
{
    switch (node->op) {
    case OP_ATEN_GRU: return expand(p, node, RNN_KIND_GRU);
    case OP_ATEN_LSTM: return expand(p, node, RNN_KIND_LSTM);
    case OP_ATEN_RNN_TANH: return expand(p, node, RNN_KIND_TANH);
    case OP_ATEN_RNN_RELU: return expand(p, node, RNN_KIND_RELU);
    default: return 0;
    }
}

int kernels_expand_rnn_layers(LowerProgram *p)
{
    return kernels_rewrite_each(p, expand_node);
}
