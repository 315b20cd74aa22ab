"""Writes through pieces of list elements taken at run-time indices (issue
30: TensorSSA follows tensors through lists; functionalize/alias.c,
view_steps.c, object_names.c): `m[0].split(3)` of an 8-element tensor
(pieces of 3, 3 and 2) written through `parts[k]` with k = -1 (the short
last piece), `m[1].view(2, 4).unbind(0)` written through `rows[j]` with
j = -2 (row 0), and `m[0].chunk(2)` through `chunks[j + 3]`. Each piece is
a view of its list element, so each write changes the element and the
list slot holding it; an index is normalized as the list's __getitem__
does (negative from the end) and out of range raises there."""
from typing import List

import torch


def list_alias_runtime_pieces(x, k: int, j: int):
    m: List[torch.Tensor] = [x * 3.0, x * 4.0]
    parts = m[0].split(3)
    parts[k].add_(1.0)
    rows = m[1].view(2, 4).unbind(0)
    rows[j].mul_(2.0)
    chunks = m[0].chunk(2)
    chunks[j + 3].sub_(0.5)
    first = m[0] * 1.0
    return torch.stack(m), first


def example():
    return list_alias_runtime_pieces, {"x": torch.randn(8), "k": -1, "j": -2}
