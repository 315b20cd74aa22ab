"""A shared branch feeding two joins (MIT thesis module):
y = f(x); a = g(y) + x; b = h(y) * a. y has two consumers and a feeds b, so
the graph is not series-parallel without care."""
import torch
from torch import nn


class SharedBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Linear(4, 4)
        self.g = nn.Linear(4, 4)
        self.h = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.tanh(self.f(x))
        a = self.g(y) + x
        b = torch.sigmoid(self.h(y)) * a
        return a, b


def example():
    return SharedBranch(), {"x": torch.randn(3, 4)}
