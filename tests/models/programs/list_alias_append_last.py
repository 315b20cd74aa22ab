"""A tensor appended to two lists on every iteration of a loop and written
through the last slot of each (issue 30: TensorSSA follows tensors through
lists; functionalize/object_names.c): `outs[-1]` and `names[-1]` are the
same `y`, in slot i of both lists; a write through one is seen through the
other. The slot is named from the end (-1) at every iteration, so one set
per list, at -1, gives it the new version. The last iteration's `y` is
also read again after the loop by name."""
from typing import List

import torch


def list_alias_append_last(x):
    outs: List[torch.Tensor] = []
    names: List[torch.Tensor] = []
    y = x * 0.0
    for i in range(3):
        y = x * float(i + 1)
        outs.append(y)
        names.append(y)
        outs[-1].add_(1.0)
        names[-1].mul_(2.0)
    last = names[-1]
    last.sub_(0.5)
    return torch.stack(outs), torch.stack(names), y * 1.0


def example():
    return list_alias_append_last, {"x": torch.randn(4)}
