"""A loop of 1,100 steps that appends to lists (issue 27's phased loops).

Past 1,024 iterations a loop with state runs in phases (--loop-chunk), and
the loop's Stack keeps the appended items of every phase until the last one.
It used to keep them as borrowed pointers into the lists each phase popped,
which were freed when the phase ended: the run aborted ("corrupted
double-linked list") or stacked freed memory. Two lists, one of them
appended to only on odd steps, beside tuple state and rows written in place.
"""
from typing import List

import torch


def long_appended_lists(x, steps: int):
    # x: [7, 4]
    hs: List[torch.Tensor] = []
    odd: List[torch.Tensor] = []
    rows = torch.zeros(steps, x.size(1))
    a = x[0]
    b = x[1]
    for i in range(steps):
        a, b = torch.tanh(b * 0.5 + x[i % 7]), a * 0.25
        hs.append(a)
        if i % 2 == 1:
            odd.append(b + 1.0)
        rows[i] = a - b
    return torch.stack(hs, 0), torch.stack(odd, 0), rows, b


def example():
    inputs = {"x": torch.randn(7, 4), "steps": 1100}
    return long_appended_lists, inputs
