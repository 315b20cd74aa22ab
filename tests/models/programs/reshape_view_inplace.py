"""In-place ops on reshape results: a view or a copy, decided by strides.

reshape of a contiguous tensor is a view (mutation shows in x); reshape of a
transpose is a copy (mutation does not); view(-1) and flatten of a contiguous
tensor are views.
"""
import torch


def reshape_view_inplace(x):
    y = x.reshape(2, 6)
    y[0].add_(1.0)
    z = x.t().reshape(-1)
    z.mul_(100.0)
    v = x.view(-1)
    v[3] = 0.0
    f = torch.flatten(x)
    f[5:7].sub_(2.0)
    return x, y, z


def example():
    return reshape_view_inplace, {"x": torch.randn(3, 4)}
