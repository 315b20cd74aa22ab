"""Programs for test_export_defaults.py: forwards and functions whose
signatures real code has — Optional arguments left at None, scalar and tuple
defaults, list arguments — which export.py must bind in args.txt (the graph
text carries no defaults). TorchScript finds a program's source through its
file, so they live in a file of their own."""
from typing import Any, Dict, List, Optional, Tuple

import torch
from torch import Tensor


class IncrementalDecoder(torch.nn.Module):
    """fairseq's forward shape: state arguments that a first call leaves at
    None, taking another path when they are given."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.arange(12.0).view(6, 2))

    def forward(self, x: Tensor, incremental_state: Optional[Dict[str, Tensor]] = None,
                timestep: Optional[Tensor] = None, scale: float = 0.5, shift: int = 1,
                center: bool = True, cache: Optional[Any] = None):
        rows = self.table[shift:shift + x.size(0)]
        if timestep is not None:
            rows = rows + timestep
        if incremental_state is not None:
            rows = rows * 2.0
        y = x * scale + rows
        if center:
            y = y - y.mean()
        if cache is not None:
            y = y + 1.0
        return y


def pooled(x: Tensor, kernel: Tuple[int, int] = (2, 2), weights: Optional[List[float]] = None,
           flags: Tuple[bool, bool] = (True, False), eps: float = 1e-3):
    y = torch.nn.functional.avg_pool2d(x, kernel)
    if weights is not None:
        y = y * weights[0] + weights[1]
    if flags[0]:
        y = y + eps
    if flags[1]:
        y = -y
    return y


def sizes(x: Tensor, shape: List[int], steps: Optional[List[int]] = None):
    y = x.reshape(shape)
    if steps is not None:
        for s in steps:
            y = y + s
    return y


def required(x: Tensor, k: int):
    return x * k


def takes_dict(x: Tensor, table: Optional[Dict[str, int]] = None):
    if table is not None:
        return x + table["a"]
    return x


def pyramid_heads(features: List[Tensor], weight: Tensor, pair: Tuple[Tensor, Tensor],
                  extra: Optional[List[Tensor]] = None, masks: Optional[List[Optional[Tensor]]] = None):
    """torchvision's detection heads take their feature pyramid as a
    List[Tensor]; a tuple of tensors and Optional lists beside it."""
    outs: List[Tensor] = []
    for f in features:
        outs.append((f * weight).sum(1))
    a, b = pair
    n = 0 if extra is None else len(extra)
    if masks is not None:
        for m in masks:
            if m is not None:
                n += int(m.sum())
    return torch.cat(outs), a - b, n
