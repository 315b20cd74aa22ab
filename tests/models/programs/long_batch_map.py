"""A batch map over 10,000 items: `out[i] = f(x[i])` (issue 12's long loops).

The iterations are independent, so the loop is one body filter fired once
per item; the weight reaches every firing as the same tensor. `n` bounds the
loop so the same program lowers at 10 items and at 10,000 to the same
stream graph.
"""
import torch


def long_batch_map(x, weight, bias, n: int):
    # x: [N, I]; weight: [I, O]; bias: [O]
    out = torch.empty(n, weight.size(1))
    for i in range(n):
        item = x[i]
        out[i] = torch.relu(item @ weight + bias) * item.abs().sum()
    return out


def example():
    inputs = {
        "x": torch.randn(10000, 3),
        "weight": torch.randn(3, 4),
        "bias": torch.randn(4),
        "n": 10000,
    }
    return long_batch_map, inputs
