"""A while-style loop: the trip count depends on tensor values.

TorchScript makes `while` a prim::Loop with a huge maximum trip count and a
condition recomputed each iteration; the condition combines an int counter
and a float read from a tensor.
"""
import torch


def while_loop(x, limit: float):
    i = 0
    s = x.clone()
    while i < 10 and float(s.abs().sum()) < limit:
        s = s * 1.5
        s[i % s.size(0)] += 1.0
        i += 1
    return s, i


def example():
    return while_loop, {"x": torch.randn(3, 2) * 0.1, "limit": 20.0}
