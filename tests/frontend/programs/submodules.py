# A module with submodules, a ModuleList iterated in forward, and plain
# attributes (int, float, bool) read through prim::GetAttr.
import torch
from torch import nn


class Branch(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        return self.proj(x) * self.scale


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.branches = nn.ModuleList([Branch(0.5), Branch(2.0)])
        self.depth = 2
        self.use_residual = True

    def forward(self, x):
        out = x
        for b in self.branches:
            out = out + b(x)
        if self.use_residual:
            out = out + x * self.depth
        return out


torch.manual_seed(0)
MODEL = Tree()
