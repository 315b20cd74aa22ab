"""GRU over a sequence, hand-written (TensorSSA paper workload).

Input and hidden projections are each split into three gates; the update
`h = (1 - z) * n + z * h` uses a Python number on the left (rsub); every
step is written into `out[t]`.
"""
import torch


def gru_loop(x, h0, w_ih, w_hh, b_ih, b_hh):
    # x: [T, B, I]; h0: [B, H]; w_ih: [3H, I]; w_hh: [3H, H]
    steps = x.size(0)
    out = torch.zeros(steps, h0.size(0), h0.size(1))
    h = h0
    for t in range(steps):
        gi = torch.addmm(b_ih, x[t], w_ih.t())
        gh = torch.addmm(b_hh, h, w_hh.t())
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = torch.sigmoid(i_r + h_r)
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        h = (1 - z) * n + z * h
        out[t] = h
    return out


def example():
    hidden = 4
    inputs = {
        "x": torch.randn(5, 2, 3),
        "h0": torch.randn(2, hidden) * 0.5,
        "w_ih": torch.randn(3 * hidden, 3) * 0.5,
        "w_hh": torch.randn(3 * hidden, hidden) * 0.5,
        "b_ih": torch.randn(3 * hidden) * 0.1,
        "b_hh": torch.randn(3 * hidden) * 0.1,
    }
    return gru_loop, inputs
