"""Views taken before a branch and mutated inside it.

row and col alias x; which branch runs depends on a bool input and on a
tensor condition (aten::Bool of a comparison). col is read after the branch
and must see the row's mutation where they overlap.
"""
import torch


def view_before_branch(x, y, flag: bool):
    row = x[0]
    col = x[:, 1]
    if flag:
        row.add_(y)
    else:
        row.mul_(y)
    if x.sum() > 0:
        col.fill_(-1.0)
    else:
        col.zero_()
    return x, col * 2.0


def example():
    return view_before_branch, {"x": torch.randn(3, 4) + 0.5, "y": torch.randn(4), "flag": True}
