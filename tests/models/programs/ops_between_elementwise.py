"""Ops without a hand-written shape rule between elementwise work (issue 28):
a conv1d, a max_pool2d, an einsum and a torch.tensor(...) each sit between
chains of elementwise ops. Shape inference types their results from the ops
themselves (kernels/shape_eval.c), so the elementwise chains after each of
them fuse too, where before everything after the first one ran op by op."""
import torch
import torch.nn.functional as F
from torch import nn


class OpsBetweenElementwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, kernel_size=3, padding=1)
        self.proj = nn.Parameter(torch.randn(6, 5))

    def forward(self, x):
        h = torch.tanh(x * 0.5 + 1.0)                       # [B, 4, L]
        h = self.conv(h)                                    # [B, 6, L]
        h = torch.sigmoid(h) * h - 0.25
        p = F.max_pool2d(h.unsqueeze(1), kernel_size=2)     # [B, 1, 3, L/2]
        p = torch.relu(p) + p * p
        e = torch.einsum("bcl,cd->bld", h, self.proj)       # [B, L, 5]
        e = torch.exp(-e * e) + 1.0
        scale = torch.tensor([0.5, 2.0, 1.0, -1.0, 0.25])   # [5]
        e = e * scale + scale.abs()
        return e.sum(-1) + p.mean(), p


def example():
    return OpsBetweenElementwise(), {"x": torch.randn(2, 4, 8)}
