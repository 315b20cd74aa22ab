"""Tensors that several list slots and names hold at once, written in
place through each (issue 30: TensorSSA follows tensors through lists;
functionalize/object_names.c): two elements swapped between the slots of a
list (`l[0], l[1] = l[1], l[0]`), then a write through the new slot 0 (the
tensor `b` names) and one through the name `a` (now slot 1); a second list
built from the first one's elements, written through its slot 1 (slot 1 of
`l` and `a` see it); one tensor appended to two different lists and
written through each. In PyTorch every write is seen through every name
and slot, so each must give all of them the new version."""
from typing import List

import torch


def list_alias_swap_two_lists(x):
    a = x * 1.0
    b = x * 2.0
    l: List[torch.Tensor] = [a, b]
    tmp = l[0]
    l[0] = l[1]
    l[1] = tmp
    l[0].add_(1.0)
    a.mul_(3.0)
    r: List[torch.Tensor] = [l[0], l[1]]
    r[1].sub_(0.5)
    seen_b = b * 1.0
    shared = x * 4.0
    p: List[torch.Tensor] = [x * 5.0]
    q: List[torch.Tensor] = []
    p.append(shared)
    q.append(shared)
    q[0].add_(2.0)
    p[-1].mul_(0.5)
    return torch.stack(l), torch.stack(r), seen_b, a * 1.0, torch.stack(p), torch.stack(q), shared


def example():
    return list_alias_swap_two_lists, {"x": torch.randn(4)}
