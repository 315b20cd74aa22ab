"""Per-item batch loop: `for i in range(B): out[i] = f(x[i])`.

Iterations are independent (no loop-carried tensor), so the loop is the
data-parallel split-join case of the stream graph. f normalises each item and
projects it.
"""
import torch


def batch_loop(x, weight):
    # x: [B, N, I]; weight: [I, O]
    batch = x.size(0)
    out = torch.empty(batch, x.size(1), weight.size(1))
    for i in range(batch):
        item = x[i]
        centered = item - item.mean(dim=0, keepdim=True)
        out[i] = torch.relu(torch.mm(centered, weight)) + item.abs().amax()
    return out


def example():
    inputs = {"x": torch.randn(4, 3, 5), "weight": torch.randn(5, 2)}
    return batch_loop, inputs
