"""nn.LSTMCell whose second tuple output (the cell state) is unused by the
caller (MIT thesis module): the stream graph needs a separator filter that
drops it."""
import torch
from torch import nn


class LSTMCellHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 5)
        self.head = nn.Linear(5, 2)

    def forward(self, x, h, c):
        hy, cy = self.cell(x, (h, c))
        return self.head(hy)


def example():
    inputs = {"x": torch.randn(3, 4), "h": torch.randn(3, 5), "c": torch.randn(3, 5)}
    return LSTMCellHead(), inputs
