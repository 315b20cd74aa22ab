"""nn.GRU as a whole layer (aten::gru.input): two layers, bidirectional,
batch_first, dropout between layers in eval mode (a no-op), no h0 (zeros)."""
import torch
from torch import nn


class GruLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 5, num_layers=2, bidirectional=True, batch_first=True,
                          dropout=0.25)

    def forward(self, x):
        output, h_n = self.gru(x)
        return output, h_n


def example():
    return GruLayers().eval(), {"x": torch.randn(2, 4, 3)}
