"""Writes through the elements of a list of views (issue 30): `parts`, a
list(...) of x.split(2), holds views of x, and a loop that reassigns it
(so the list is loop-carried) writes `parts[i].add_(1)`. In PyTorch each
write changes x; the list's class must remember where its first name came
from after control flow joins it to others (functionalize/list_elements.c),
and keep these writes imperative."""
from typing import List

import torch


def list_element_views_list(x, n: int):
    parts: List[torch.Tensor] = list(x.split(2))
    for i in range(n):
        parts[i].add_(1.0)
        if i == 5:
            parts = [x * 2.0]
    return x, torch.stack(parts)


def example():
    return list_element_views_list, {"x": torch.randn(4), "n": 2}
