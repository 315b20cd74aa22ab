/* ops_rnn.c — bindings of the recurrent ops: the cells (aten::gru_cell,
 * lstm_cell, rnn_tanh_cell) and the whole layers nn.GRU / nn.LSTM / nn.RNN
 * script into (aten::gru, lstm, rnn_tanh, rnn_relu, their `.input`
 * overloads).
 *
 * The cells are composed from the tensor library's linear, elementwise and
 * chunk kernels in the order ATen's RNN.cpp evaluates them. A layer runs one
 * cell step per time step, per direction, per layer, as ATen's reference
 * path does: the reverse direction walks time backwards and writes each step
 * at its own time index, a bidirectional layer's output is the two
 * directions' outputs concatenated on the feature dimension, and a layer's
 * input is the previous layer's output. The parameter list is ATen's flat
 * one: per layer, per direction, w_ih, w_hh, then b_ih, b_hh when
 * has_biases, then LSTM's w_hr when proj_size is set (the h state is then
 * the projection of the cell's output, w_hr's rows).
 *
 * Dropout between layers is identity when train is false (nn.Module.eval()),
 * as in PyTorch; with train true and dropout > 0 over more than one layer
 * the masks would be random, which the interpreter has no op for, so the
 * run is refused naming the op. The PackedSequence overloads (`.data`, with
 * batch_sizes) are refused too.
 */
#include <stdlib.h>

#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "tssa/util.h"

/* ---------------------------------------------------------------- cell steps */

/* One direction of one layer's parameters; biases and w_hr may be NULL. */
typedef struct CellWeights {
    Tensor *w_ih, *w_hh, *b_ih, *b_hh, *w_hr;
} CellWeights;

/* linear(h, w_hh, b_hh) + linear(x, w_ih, b_ih), the gate pre-activations. */
static Tensor *gate_sum(const Tensor *x, const Tensor *h, const CellWeights *w)
{
    Tensor *lh = tensor_linear(h, w->w_hh, w->b_hh);
    Tensor *li = tensor_linear(x, w->w_ih, w->b_ih);
    Tensor *g = lh && li ? tensor_add(lh, li, 1) : NULL;
    tensor_release(lh);
    tensor_release(li);
    return g;
}

/* act(linear(h) + linear(x)): the tanh and relu RNN cells. */
static Tensor *simple_step(const Tensor *x, const Tensor *h, const CellWeights *w, UnaryOp act)
{
    Tensor *g = gate_sum(x, h, w);
    Tensor *hy = g ? tensor_unary(act, g, 0, 0) : NULL;
    tensor_release(g);
    return hy;
}

/* The LSTM cell: gates i, f, g, o; cy = f*c + i*g; hy = o*tanh(cy), then
 * hy @ w_hr^T when w->w_hr is set. Returns false (outputs NULL) on failure. */
static bool lstm_step(const Tensor *x, const Tensor *h, const Tensor *c, const CellWeights *w,
                      Tensor **hy_out, Tensor **cy_out)
{
    Tensor *g = gate_sum(x, h, w);
    int n = 0;
    Tensor **chunks = g ? tensor_chunk(g, 4, 1, &n) : NULL;
    tensor_release(g);
    Tensor *hy = NULL, *cy = NULL;
    if (chunks && n == 4) {
        Tensor *in = tensor_unary(UN_SIGMOID, chunks[0], 0, 0);
        Tensor *forget = tensor_unary(UN_SIGMOID, chunks[1], 0, 0);
        Tensor *cell = tensor_unary(UN_TANH, chunks[2], 0, 0);
        Tensor *out = tensor_unary(UN_SIGMOID, chunks[3], 0, 0);
        if (in && forget && cell && out) {
            Tensor *fc = tensor_binary(BIN_MUL, forget, c);
            Tensor *ic = tensor_binary(BIN_MUL, in, cell);
            cy = fc && ic ? tensor_add(fc, ic, 1) : NULL;
            tensor_release(fc);
            tensor_release(ic);
            Tensor *tc = cy ? tensor_unary(UN_TANH, cy, 0, 0) : NULL;
            hy = tc ? tensor_binary(BIN_MUL, out, tc) : NULL;
            tensor_release(tc);
        }
        tensor_release(in);
        tensor_release(forget);
        tensor_release(cell);
        tensor_release(out);
    }
    for (int i = 0; chunks && i < n; i++)
        tensor_release(chunks[i]);
    free(chunks);
    if (hy && w->w_hr) {
        Tensor *projected = tensor_linear(hy, w->w_hr, NULL);
        tensor_release(hy);
        hy = projected;
    }
    if (!hy || !cy) {
        tensor_release(hy);
        tensor_release(cy);
        *hy_out = *cy_out = NULL;
        return false;
    }
    *hy_out = hy;
    *cy_out = cy;
    return true;
}

/* The GRU cell: r, z from the summed gates, n = tanh(i_n + r * h_n),
 * hy = (h - n) * z + n. */
static Tensor *gru_step(const Tensor *x, const Tensor *h, const CellWeights *w)
{
    Tensor *gi = tensor_linear(x, w->w_ih, w->b_ih);
    Tensor *gh = tensor_linear(h, w->w_hh, w->b_hh);
    int ni = 0, nh = 0;
    Tensor **ci = gi ? tensor_chunk(gi, 3, 1, &ni) : NULL;
    Tensor **ch = gh ? tensor_chunk(gh, 3, 1, &nh) : NULL;
    tensor_release(gi);
    tensor_release(gh);
    Tensor *hy = NULL;
    if (ci && ch && ni == 3 && nh == 3) {
        Tensor *sum_r = tensor_add(ch[0], ci[0], 1);
        Tensor *r = sum_r ? tensor_unary(UN_SIGMOID, sum_r, 0, 0) : NULL;
        tensor_release(sum_r);
        Tensor *sum_z = tensor_add(ch[1], ci[1], 1);
        Tensor *z = sum_z ? tensor_unary(UN_SIGMOID, sum_z, 0, 0) : NULL;
        tensor_release(sum_z);
        Tensor *rh = r ? tensor_binary(BIN_MUL, ch[2], r) : NULL;
        Tensor *sum_n = rh ? tensor_add(ci[2], rh, 1) : NULL;
        Tensor *newgate = sum_n ? tensor_unary(UN_TANH, sum_n, 0, 0) : NULL;
        Tensor *diff = newgate ? tensor_sub(h, newgate, 1) : NULL;
        Tensor *scaled = diff && z ? tensor_binary(BIN_MUL, diff, z) : NULL;
        hy = scaled ? tensor_add(scaled, newgate, 1) : NULL;
        tensor_release(r);
        tensor_release(z);
        tensor_release(rh);
        tensor_release(sum_n);
        tensor_release(newgate);
        tensor_release(diff);
        tensor_release(scaled);
    }
    for (int i = 0; ci && i < ni; i++)
        tensor_release(ci[i]);
    for (int i = 0; ch && i < nh; i++)
        tensor_release(ch[i]);
    free(ci);
    free(ch);
    return hy;
}

/* ---------------------------------------------------------------- cells */

/* The arguments every cell shares: (Tensor input, hx, Tensor w_ih, Tensor
 * w_hh, Tensor? b_ih, Tensor? b_hh). Decodes hx into *h when it is one
 * Tensor (h NULL: the caller decodes hx after). */
static bool cell_args(EvalCall *c, Tensor **x, CellWeights *w, Tensor **h)
{
    w->w_hr = NULL;
    return eval_nargs(c, 4, 6) && eval_arg_tensor(c, 0, x) && (!h || eval_arg_tensor(c, 1, h)) &&
           eval_arg_tensor(c, 2, &w->w_ih) && eval_arg_tensor(c, 3, &w->w_hh) &&
           eval_arg_tensor_opt(c, 4, &w->b_ih) && eval_arg_tensor_opt(c, 5, &w->b_hh);
}

/* lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih,
 * Tensor? b_hh) -> (Tensor hy, Tensor cy) */
bool eval_op_lstm_cell(EvalCall *c)
{
    Tensor *x;
    CellWeights w;
    Tensor **hx;
    int nhx;
    if (!cell_args(c, &x, &w, NULL) || !eval_arg_tensor_list(c, 1, false, &hx, &nhx))
        return false;
    if (nhx != 2 || c->nouts != 2) {
        free(hx);
        return eval_fail(c, "lstm_cell takes (h, c) and returns (hy, cy)");
    }
    Tensor *hy, *cy;
    bool ok = lstm_step(x, hx[0], hx[1], &w, &hy, &cy);
    free(hx);
    if (!ok)
        return eval_fail_kernel(c, "lstm_cell failed");
    return eval_out_tensors(c, (Tensor *[]){hy, cy}, 2);
}

/* gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih,
 * Tensor? b_hh) -> Tensor */
bool eval_op_gru_cell(EvalCall *c)
{
    Tensor *x, *h;
    CellWeights w;
    if (!cell_args(c, &x, &w, &h))
        return false;
    Tensor *hy = gru_step(x, h, &w);
    return hy ? eval_out_tensor(c, 0, hy) : eval_fail_kernel(c, "gru_cell failed");
}

/* rnn_tanh_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor?
 * b_ih, Tensor? b_hh) -> Tensor: tanh(linear(hx) + linear(input)) */
bool eval_op_rnn_tanh_cell(EvalCall *c)
{
    Tensor *x, *h;
    CellWeights w;
    if (!cell_args(c, &x, &w, &h))
        return false;
    return eval_out_tensor(c, 0, simple_step(x, h, &w, UN_TANH));
}

/* ---------------------------------------------------------------- layers */

typedef enum RnnMode { RNN_MODE_TANH, RNN_MODE_RELU, RNN_MODE_GRU, RNN_MODE_LSTM } RnnMode;

/* The decoded arguments of a layer op's `.input` overload. */
typedef struct LayerArgs {
    RnnMode mode;
    Tensor *input, *h0, *c0; /* c0: LSTM only */
    Tensor **params;
    int nparams, per_direction; /* tensors per (layer, direction) */
    bool has_biases, train, bidirectional, batch_first;
    int64_t num_layers;
    double dropout;
} LayerArgs;

static bool layer_args(EvalCall *c, LayerArgs *a)
{
    /* The `.data` overload (PackedSequence) has its params list where the
     * `.input` overload has has_biases. */
    if (!eval_nargs(c, 9, 9))
        return false;
    if (eval_kind(c, 3) == RT_LIST)
        return eval_fail(c, "the PackedSequence form (batch_sizes) of %s is not supported; pass a "
                            "padded tensor", c->node->kind);
    if (!eval_arg_tensor(c, 0, &a->input) || !eval_arg_bool(c, 3, &a->has_biases) ||
        !eval_arg_int(c, 4, &a->num_layers) || !eval_arg_double(c, 5, &a->dropout) ||
        !eval_arg_bool(c, 6, &a->train) || !eval_arg_bool(c, 7, &a->bidirectional) ||
        !eval_arg_bool(c, 8, &a->batch_first))
        return false;
    a->c0 = NULL;
    if (a->mode == RNN_MODE_LSTM) {
        Tensor **hx;
        int nhx;
        if (!eval_arg_tensor_list(c, 1, false, &hx, &nhx))
            return false;
        if (nhx != 2) {
            free(hx);
            return eval_fail(c, "hx must be (h0, c0), got %d tensors", nhx);
        }
        a->h0 = hx[0];
        a->c0 = hx[1];
        free(hx);
    } else if (!eval_arg_tensor(c, 1, &a->h0)) {
        return false;
    }
    if (a->train && a->dropout > 0 && a->num_layers > 1)
        return eval_fail(c, "dropout=%g between layers with train=True needs random masks, "
                            "which are not supported; call .eval() on the module",
                         a->dropout);
    if (a->input->ndim != 3)
        return eval_fail(c, "input must be 3-D [T, B, I] (or [B, T, I] with batch_first), got %d-D",
                         a->input->ndim);
    if (a->num_layers < 1)
        return eval_fail(c, "num_layers must be at least 1, got %lld", (long long)a->num_layers);
    if (!eval_arg_tensor_list(c, 2, false, &a->params, &a->nparams))
        return false;
    int64_t directions = a->bidirectional ? 2 : 1;
    int base = a->has_biases ? 4 : 2;
    int64_t groups = a->num_layers * directions;
    a->per_direction = a->nparams % groups == 0 ? (int)(a->nparams / groups) : -1;
    bool projected = a->mode == RNN_MODE_LSTM && a->per_direction == base + 1;
    if (a->per_direction != base && !projected) {
        free(a->params);
        return eval_fail(c, "%d parameters do not fit %lld layers x %lld directions%s", a->nparams,
                         (long long)a->num_layers, (long long)directions,
                         a->has_biases ? " with biases" : "");
    }
    int64_t states = a->h0->ndim == 3 ? a->h0->sizes[0] : -1;
    if (states != groups || (a->c0 && (a->c0->ndim != 3 || a->c0->sizes[0] != groups))) {
        free(a->params);
        return eval_fail(c, "the initial state must be [%lld, B, H]", (long long)groups);
    }
    return true;
}

static CellWeights weights_of(const LayerArgs *a, int64_t group)
{
    Tensor **p = a->params + group * a->per_direction;
    CellWeights w = {p[0], p[1], NULL, NULL, NULL};
    int next = 2;
    if (a->has_biases) {
        w.b_ih = p[2];
        w.b_hh = p[3];
        next = 4;
    }
    if (next < a->per_direction)
        w.w_hr = p[next];
    return w;
}

/* Runs one direction of one layer over x [T, B, I]: *out [T, B, H_out],
 * *h and *c (LSTM) the final states. h and c come in as the initial states
 * (owned) and go out as the final ones (owned). */
static bool run_direction(const LayerArgs *a, Tensor *x, const CellWeights *w, bool reverse,
                          Tensor **h, Tensor **c, Tensor **out)
{
    int64_t steps = x->sizes[0];
    Tensor **per_step = xcalloc((size_t)(steps > 0 ? steps : 1), sizeof *per_step);
    bool ok = true;
    for (int64_t s = 0; ok && s < steps; s++) {
        int64_t t = reverse ? steps - 1 - s : s;
        Tensor *xt = tensor_select(x, 0, t);
        Tensor *hy = NULL, *cy = NULL;
        if (!xt)
            ok = false;
        else if (a->mode == RNN_MODE_LSTM)
            ok = lstm_step(xt, *h, *c, w, &hy, &cy);
        else if (a->mode == RNN_MODE_GRU)
            ok = (hy = gru_step(xt, *h, w)) != NULL;
        else
            ok = (hy = simple_step(xt, *h, w, a->mode == RNN_MODE_TANH ? UN_TANH : UN_RELU)) !=
                 NULL;
        tensor_release(xt);
        if (ok) {
            tensor_release(*h);
            *h = hy;
            per_step[t] = tensor_retain(hy);
            if (cy) {
                tensor_release(*c);
                *c = cy;
            }
        }
    }
    *out = ok && steps > 0 ? tensor_stack(per_step, (int)steps, 0) : NULL;
    for (int64_t s = 0; s < steps; s++)
        tensor_release(per_step[s]);
    free(per_step);
    return *out != NULL;
}

static bool eval_rnn_layer(EvalCall *c, RnnMode mode)
{
    LayerArgs a = {.mode = mode};
    if (!layer_args(c, &a))
        return false;
    int64_t directions = a.bidirectional ? 2 : 1, groups = a.num_layers * directions;
    Tensor **final_h = xcalloc((size_t)groups, sizeof *final_h);
    Tensor **final_c = xcalloc((size_t)groups, sizeof *final_c);
    Tensor *layer_in = a.batch_first ? tensor_transpose(a.input, 0, 1) : tensor_retain(a.input);
    bool ok = layer_in != NULL;
    for (int64_t layer = 0; ok && layer < a.num_layers; layer++) {
        Tensor *outs[2] = {NULL, NULL};
        for (int64_t d = 0; ok && d < directions; d++) {
            int64_t group = layer * directions + d;
            CellWeights w = weights_of(&a, group);
            final_h[group] = tensor_select(a.h0, 0, group);
            final_c[group] = a.c0 ? tensor_select(a.c0, 0, group) : NULL;
            ok = final_h[group] && (!a.c0 || final_c[group]) &&
                 run_direction(&a, layer_in, &w, d == 1, &final_h[group], &final_c[group],
                               &outs[d]);
        }
        tensor_release(layer_in);
        layer_in = NULL;
        if (ok)
            layer_in = directions == 2 ? tensor_cat(outs, 2, 2) : tensor_retain(outs[0]);
        ok = ok && layer_in;
        tensor_release(outs[0]);
        tensor_release(outs[1]);
    }
    Tensor *output = NULL, *h_n = NULL, *c_n = NULL;
    if (ok) {
        Tensor *time_major = layer_in;
        Tensor *view = a.batch_first ? tensor_transpose(time_major, 0, 1) : tensor_retain(time_major);
        output = view ? tensor_contiguous(view) : NULL;
        tensor_release(view);
        h_n = tensor_stack(final_h, (int)groups, 0);
        c_n = a.c0 ? tensor_stack(final_c, (int)groups, 0) : NULL;
    }
    tensor_release(layer_in);
    for (int64_t g = 0; g < groups; g++) {
        tensor_release(final_h[g]);
        tensor_release(final_c[g]);
    }
    free(final_h);
    free(final_c);
    free(a.params);
    if (!output || !h_n || (a.c0 && !c_n)) {
        tensor_release(output);
        tensor_release(h_n);
        tensor_release(c_n);
        return eval_fail_kernel(c, "the recurrent layer failed");
    }
    if (a.c0)
        return eval_out_tensors(c, (Tensor *[]){output, h_n, c_n}, 3);
    return eval_out_tensors(c, (Tensor *[]){output, h_n}, 2);
}

/* gru.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases,
 * int num_layers, float dropout, bool train, bool bidirectional,
 * bool batch_first) -> (Tensor, Tensor); rnn_tanh and rnn_relu alike. */
bool eval_op_gru(EvalCall *c) { return eval_rnn_layer(c, RNN_MODE_GRU); }
bool eval_op_rnn_tanh(EvalCall *c) { return eval_rnn_layer(c, RNN_MODE_TANH); }
bool eval_op_rnn_relu(EvalCall *c) { return eval_rnn_layer(c, RNN_MODE_RELU); }

/* lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases,
 * int num_layers, float dropout, bool train, bool bidirectional,
 * bool batch_first) -> (Tensor, Tensor, Tensor) */
bool eval_op_lstm(EvalCall *c) { return eval_rnn_layer(c, RNN_MODE_LSTM); }
