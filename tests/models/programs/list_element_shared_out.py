"""A list element's tensor that leaves its list under another name (issue
30): `l[0]` appended to a second list and written through it, and `m[0]`
split into views kept in a list and written through one of them at an
index from the arguments. In PyTorch each write is seen through both
lists, so the writes through `l` and `m` must stay imperative too, beside
a list of fresh tensors of its own whose writes stay functional
(functionalize/alias.c, list_elements.c)."""
from typing import List

import torch


def list_element_shared_out(x, k: int):
    l: List[torch.Tensor] = [x * 1.0, x * 2.0]
    other: List[torch.Tensor] = []
    other.append(l[0])
    other[0].add_(1.0)
    l[0].mul_(2.0)
    m: List[torch.Tensor] = [x * 3.0]
    parts = m[0].split(2)
    parts[k].add_(1.0)
    m[0].mul_(2.0)
    clean: List[torch.Tensor] = [x * 4.0, x * 5.0]
    for i in range(2):
        clean[i].sub_(1.0)
    return torch.stack(l), torch.stack(other), torch.stack(m), torch.stack(clean)


def example():
    return list_element_shared_out, {"x": torch.randn(4), "k": 1}
