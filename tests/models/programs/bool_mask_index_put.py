"""Boolean-mask assignment: `x[x > 0] = 0` and friends.

A scalar put through a mask, a put of values read through the same mask
(index then index_put with a tensor), and a row mask on a 2-d tensor.
"""
import torch


def bool_mask_index_put(x, y):
    x[x > 0] = 0
    y[y < -0.5] = y[y < -0.5] * 2.0
    z = y.clone()
    rows = z.sum(dim=1) > 0
    z[rows] = 1.0
    return x, y, z


def example():
    return bool_mask_index_put, {"x": torch.randn(3, 4), "y": torch.randn(4, 3)}
