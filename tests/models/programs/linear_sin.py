"""Linear layer followed by sin (the MIT thesis' first module)."""
import torch
from torch import nn


class LinearSin(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 4)

    def forward(self, x):
        return torch.sin(self.linear(x))


def example():
    return LinearSin(), {"x": torch.randn(3, 6)}
