"""Views of views mutated later.

a = x[1:], b = a[:, 1:3], c = b.t(): three levels of views over the input.
A sum is read before any mutation; then c is scaled in place and one of its
rows (a select of the transpose) is incremented. Every alias must see it.
"""
import torch


def view_of_view(x):
    a = x[1:]
    b = a[:, 1:3]
    c = b.t()
    before = x.sum()
    c.mul_(2.0)
    c[0] += 1.0
    return x, a.sum(), b.clone(), before


def example():
    return view_of_view, {"x": torch.randn(4, 5)}
