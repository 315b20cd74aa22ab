"""A list element written in place while a name for it from an earlier
iteration or a branch is still read (issue 30): `prev`, carried by the loop,
is last iteration's `l[0]`, the same tensor this iteration's `l[0].add_(1)`
writes; `w`, set to `m[0]` in a branch, is the tensor `m[0].mul_(2)` writes
on every later iteration. A value read out of a list is not new in each
iteration as an allocation is, so the loop-carried and If-result names it
flows into may alias the element (functionalize/alias.c), and TensorSSA
must keep these writes imperative: PyTorch's results show each write
through the older name."""
from typing import List

import torch


def list_element_carried_names(x):
    l: List[torch.Tensor] = [x * 1.0, x * 2.0]
    prev = x * 0.0
    acc = x * 0.0
    for k in range(3):
        cur = l[0]
        cur.add_(1.0)
        acc = acc + prev
        prev = cur
    m: List[torch.Tensor] = [x * 3.0]
    w = x * 0.0
    for k in range(3):
        if k == 0:
            w = m[0]
        m[0].mul_(2.0)
        acc = acc + w * 10.0
    return acc, torch.stack(l), torch.stack(m)


def example():
    return list_element_carried_names, {"x": torch.randn(4)}
