"""List idioms of real post-processing code: torchvision's `_upcast`
(`t.is_floating_point()`), a list built with `outputs += [out]` (the list
form of aten::add_), reversed in place with `.reverse()` and stacked."""
from typing import List

import torch


def upcast(t: torch.Tensor) -> torch.Tensor:
    # torchvision.ops.boxes._upcast
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    return t if t.dtype in (torch.int32, torch.int64) else t.int()


def list_reverse_upcast(x, idx):
    outputs: List[torch.Tensor] = []
    for i in range(x.size(0)):
        out = upcast(x[i]) * (i + 1)
        outputs += [out]
    outputs.reverse()
    steps = [int(j) for j in range(3)]
    steps.reverse()
    return torch.stack(outputs), upcast(idx) + steps[0], idx.is_floating_point()


def example():
    return list_reverse_upcast, {"x": torch.randn(4, 3), "idx": torch.tensor([3, 1, 2])}
