"""prim::RaiseException in branches that are not taken (input checks with
formatted messages, one inside a loop)."""
import torch


def raise_not_taken(x, n: int):
    if x.dim() != 2:
        raise ValueError("expected a 2-d input, got {} dims".format(x.dim()))
    if n < 0:
        raise RuntimeError("n must be non-negative")
    total = torch.zeros(x.size(1))
    for i in range(n):
        if i >= x.size(0):
            raise IndexError("row {} out of range".format(i))
        total += x[i]
    return total


def example():
    return raise_not_taken, {"x": torch.randn(4, 3), "n": 3}
