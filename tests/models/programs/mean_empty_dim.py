"""A mean over an empty dim, fused: 0 / 0, NaN. The kernel divided the
empty sum by a constant 0, which nvcc refuses under kernels.cuda_source's
-Werror ("division by zero"); the mean of nothing is the constant NaN."""
import torch


def mean_empty_dim(x, y):
    return x.mean(1) + y, x.sum(1) * y, x.mean((0, 1), keepdim=True)


def example():
    return mean_empty_dim, {"x": torch.randn(3, 0), "y": torch.randn(3)}
