"""Elman RNN over a sequence, hand-written (TensorSSA paper workload).

Each step's hidden state is written into a preallocated output, `out[t] = h`:
a loop-carried tensor plus a select-assign into a tensor that lives outside
the loop.
"""
import torch


def rnn_loop(x, h0, w_ih, w_hh, bias):
    # x: [T, B, I]; h0: [B, H]; w_ih: [H, I]; w_hh: [H, H]; bias: [H]
    steps = x.size(0)
    out = torch.zeros(steps, h0.size(0), h0.size(1), device=h0.device)
    h = h0
    for t in range(steps):
        h = torch.tanh(torch.mm(x[t], w_ih.t()) + torch.mm(h, w_hh.t()) + bias)
        out[t] = h
    return out, h


def example():
    inputs = {
        "x": torch.randn(5, 2, 3),
        "h0": torch.randn(2, 4),
        "w_ih": torch.randn(4, 3) * 0.5,
        "w_hh": torch.randn(4, 4) * 0.5,
        "bias": torch.randn(4) * 0.1,
    }
    return rnn_loop, inputs
