"""Two inputs, two outputs (MIT thesis module): both inputs meet in a join,
and the join feeds both outputs."""
import torch
from torch import nn


class TwoInTwoOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(4, 3)
        self.right = nn.Linear(5, 3)

    def forward(self, a, b):
        joined = self.left(a) + self.right(b)
        return torch.relu(joined), joined * torch.sigmoid(joined)


def example():
    return TwoInTwoOut(), {"a": torch.randn(3, 4), "b": torch.randn(3, 5)}
