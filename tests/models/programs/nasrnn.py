"""NASRNN cell over a sequence (TensorSSA paper workload).

The cell of Zoph and Le's architecture search: eight gates from one input and
one hidden matmul, combined through a tree of elementwise ops (sigmoid, relu,
tanh, add, mul). Many small elementwise filters: a fusion workload. Each step
writes `out[t] = m`.
"""
import torch


def nasrnn(x, m0, c0, w_x, w_m):
    # x: [T, B, I]; m0, c0: [B, H]; w_x: [I, 8H]; w_m: [H, 8H]
    steps = x.size(0)
    out = torch.zeros(steps, m0.size(0), m0.size(1), device=m0.device)
    m = m0
    c = c0
    for t in range(steps):
        ix = torch.mm(x[t], w_x).chunk(8, 1)
        im = torch.mm(m, w_m).chunk(8, 1)
        l1_0 = torch.sigmoid(ix[0] + im[0])
        l1_1 = torch.relu(ix[1] + im[1])
        l1_2 = torch.sigmoid(ix[2] + im[2])
        l1_3 = torch.relu(ix[3] * im[3])
        l1_4 = torch.tanh(ix[4] + im[4])
        l1_5 = torch.sigmoid(ix[5] + im[5])
        l1_6 = torch.tanh(ix[6] + im[6])
        l1_7 = torch.sigmoid(ix[7] + im[7])
        l2_0 = torch.tanh(l1_0 * l1_1)
        l2_1 = torch.tanh(l1_2 + l1_3)
        l2_2 = torch.tanh(l1_4 * l1_5)
        l2_3 = torch.sigmoid(l1_6 + l1_7)
        l2_0 = torch.tanh(l2_0 + c)
        c = l2_0 * l2_1
        l3_1 = torch.tanh(l2_2 + l2_3)
        m = torch.tanh(c * l3_1)
        out[t] = m
    return out, c


def example():
    hidden = 3
    inputs = {
        "x": torch.randn(4, 2, 5),
        "m0": torch.randn(2, hidden) * 0.5,
        "c0": torch.randn(2, hidden) * 0.5,
        "w_x": torch.randn(5, 8 * hidden) * 0.5,
        "w_m": torch.randn(hidden, 8 * hidden) * 0.5,
    }
    return nasrnn, inputs
