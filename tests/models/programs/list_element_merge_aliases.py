"""Tensors stored in a list under one name and written in place under
another that control flow joins to it (issue 30): `y`, carried by a loop
that appends each new `y`, is the list's last element after the loop, and
`z0`, the value a loop starts from, is the first element it appends. A
write to either after the loop is seen through the list in PyTorch, so
TensorSSA must keep it imperative: a value flowing into or out of a loop
or a branch is stored wherever the other is (functionalize/alias.c)."""
from typing import List

import torch


def list_element_merge_aliases(x):
    ys: List[torch.Tensor] = []
    y = x * 1.0
    for i in range(3):
        y = y * 2.0
        ys.append(y)
    y.add_(1.0)
    zs: List[torch.Tensor] = []
    z0 = x * 3.0
    z = z0
    for i in range(2):
        zs.append(z)
        z = z * 2.0
    z0.add_(1.0)
    return torch.stack(ys), torch.stack(zs), z


def example():
    return list_element_merge_aliases, {"x": torch.randn(4)}
