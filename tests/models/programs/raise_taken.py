"""A case that must fail: the input check raises, and tssa-stream must exit
with status 1 and the program's own message."""
import torch


def raise_taken(x, n: int):
    if n > x.size(0):
        raise ValueError("n={} exceeds the {} rows".format(n, x.size(0)))
    return x[:n] * 2.0


def example():
    return raise_taken, {"x": torch.randn(3, 2), "n": 5}, (1, "exceeds the 3 rows")
