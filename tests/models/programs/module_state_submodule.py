"""Module state written in forward (issue 30): attributes of submodules and
containers assigned with prim::SetAttr.

A decoder step module (`self.cell`) keeps its hidden state and a call
counter as attributes that the parent's loop reads and assigns through the
submodule (`self.cell.hidden = h`, `self.cell.calls += 1`); the parent keeps
the history of outputs in a List[Tensor] attribute reassigned with a longer
list (`self.history = self.history + [y]`), a Dict[str, Tensor] attribute
reassigned with a new dict, and an Optional[Tensor] that is reset to None
in a branch. The state after the call is returned."""
from typing import Dict, List, Optional

import torch


class Cell(torch.nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.linear = torch.nn.Linear(features, features)
        self.hidden = torch.zeros(1, features)
        self.calls = 0

    def forward(self, x):
        h = torch.tanh(self.linear(x) + self.hidden)
        self.hidden = h
        self.calls += 1
        return h


class StatefulDecoder(torch.nn.Module):
    history: List[torch.Tensor]
    summary: Dict[str, torch.Tensor]
    last: Optional[torch.Tensor]

    def __init__(self, features: int):
        super().__init__()
        self.cell = Cell(features)
        self.history = []
        self.summary = {"first": torch.zeros(1, features)}
        self.last = None

    def forward(self, x, steps: int, reset_at: int):
        y = x
        for t in range(steps):
            y = self.cell(y)
            self.history = self.history + [y]
            if t == 0:
                self.summary = {"first": y, "latest": y}
            else:
                self.summary = {"first": self.summary["first"], "latest": y}
            if t == reset_at:
                self.last = None
            else:
                self.last = y
        last = self.last
        has_last = last is not None
        if last is None:
            last = torch.zeros_like(x)
        return (torch.cat(self.history, 0), self.cell.hidden, self.cell.calls,
                self.summary["first"], self.summary["latest"], last, has_last)


def example():
    return StatefulDecoder(4), {"x": torch.randn(1, 4), "steps": 4, "reset_at": 3}
