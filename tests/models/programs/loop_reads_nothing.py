"""Loops whose iterations read nothing that changes (issue 30): the list
comprehension `[scale_factor for _ in range(dim)]` that F.interpolate runs
on a compile-time scale factor (torch/nn/functional.py, interpolate), and
a list of compile-time ints. Once TensorSSA gives such a list new
versions (a list that later flows into an Optional), the loop is a
data-parallel stream whose Body reads no item; the lowering gives each
iteration the counter as its one item, so the Body fires once per
iteration between the Unstack and the Stack (without it the scheduler
refused the graph: "Unstack produces no items and Body consumes none")."""
from typing import List

import torch
import torch.nn.functional as F


def loop_reads_nothing(x):
    up = F.interpolate(x, scale_factor=2.0, mode="nearest")
    sizes: List[int] = [3 for _ in range(4)]
    return up, sizes, up.sum() * float(len(sizes))


def example():
    return loop_reads_nothing, {"x": torch.randn(1, 2, 3, 4)}
