"""An Elman RNN over a long sequence: 2,000 steps (issue 12's long loops).

The hidden state is real carried state, so the loop is a feedback loop; the
input projection x[t] @ W_ih^T does not need the state and runs
data-parallel over all steps before it. `steps` bounds the loop so the same
program lowers at 10 steps and at 2,000 to the same stream graph.
"""
import torch


def long_rnn(x, h0, w_ih, w_hh, bias, steps: int):
    # x: [T, B, I]; h0: [B, H]; w_ih: [H, I]; w_hh: [H, H]; bias: [H]
    out = torch.zeros(steps, h0.size(0), h0.size(1))
    h = h0
    for t in range(steps):
        h = torch.tanh(torch.mm(x[t], w_ih.t()) + torch.mm(h, w_hh.t()) + bias)
        out[t] = h
    return out, h


def example():
    inputs = {
        "x": torch.randn(2000, 2, 3),
        "h0": torch.randn(2, 4),
        "w_ih": torch.randn(4, 3) * 0.5,
        "w_hh": torch.randn(4, 4) * 0.5,
        "bias": torch.randn(4) * 0.1,
        "steps": 2000,
    }
    return long_rnn, inputs
