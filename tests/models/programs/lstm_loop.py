"""LSTM over a sequence, hand-written (TensorSSA paper workload).

The gates come from one matmul per input and are split with chunk(4); two
states (h, c) are carried by the loop and h is written into `out[t]`.
"""
import torch


def lstm_loop(x, h0, c0, w_ih, w_hh, b_ih, b_hh):
    # x: [T, B, I]; h0, c0: [B, H]; w_ih: [4H, I]; w_hh: [4H, H]
    steps = x.size(0)
    out = torch.empty(steps, h0.size(0), h0.size(1), device=h0.device)
    h = h0
    c = c0
    for t in range(steps):
        gates = torch.matmul(x[t], w_ih.t()) + b_ih + torch.matmul(h, w_hh.t()) + b_hh
        i, f, g, o = gates.chunk(4, 1)
        i = torch.sigmoid(i)
        f = torch.sigmoid(f)
        g = torch.tanh(g)
        o = torch.sigmoid(o)
        c = f * c + i * g
        h = o * torch.tanh(c)
        out[t] = h
    return out, h, c


def example():
    hidden = 3
    inputs = {
        "x": torch.randn(4, 2, 5),
        "h0": torch.zeros(2, hidden),
        "c0": torch.randn(2, hidden) * 0.1,
        "w_ih": torch.randn(4 * hidden, 5) * 0.4,
        "w_hh": torch.randn(4 * hidden, hidden) * 0.4,
        "b_ih": torch.randn(4 * hidden) * 0.1,
        "b_hh": torch.randn(4 * hidden) * 0.1,
    }
    return lstm_loop, inputs
