"""Expanded views read before and after their base is mutated.

An expand is a view with stride 0: it is read twice, and between the reads
its base is scaled in place, so the second read must see the new values.
"""
import torch


def expand_read(x, b):
    e = b.expand(4, 3)
    first = x + e
    b.mul_(2.0)
    second = x * e
    f = b.view(3, 1).expand_as(x.t())
    return first, second, f.sum(dim=1)


def example():
    return expand_read, {"x": torch.randn(4, 3), "b": torch.randn(3)}
