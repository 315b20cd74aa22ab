"""tensor.size() and friends driving loop counts: x.size(0), len(x),
x.shape[1] and numel() are trip counts and index arithmetic."""
import torch


def size_driven_loop(x):
    out = torch.zeros(x.shape[1], x.size(0))
    count = 0
    for i in range(x.size(0)):
        for j in range(len(x[i])):
            out[j, i] = x[i, j] * (i + 1)
            count += 1
    return out, count == x.numel(), x.dim()


def example():
    return size_driven_loop, {"x": torch.randn(3, 4)}
