# A transformer-style MLP block: LayerNorm, Linear, GELU, residual add.
import torch
from torch import nn


class MLPBlock(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))
        return x + h


torch.manual_seed(0)
MODEL = MLPBlock()
