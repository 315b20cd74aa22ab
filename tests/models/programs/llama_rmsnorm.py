"""RMSNorm from Meta's LLaMA (llama/model.py): normalization in float32
by the root mean square, cast back with type_as, scaled by a weight
(issue 11's public programs)."""
import torch
from torch import nn


class RMSNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def example():
    return RMSNorm(16), {"x": torch.randn(2, 5, 16, dtype=torch.float64)}
