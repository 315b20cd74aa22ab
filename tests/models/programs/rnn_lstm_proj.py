"""nn.LSTM as a whole layer (aten::lstm.input) with proj_size (the weight_hr
parameters), two bidirectional layers and a given (h0, c0)."""
from typing import Tuple

import torch
from torch import nn


class LstmProj(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)

    def forward(self, x, h0, c0) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        output, (h_n, c_n) = self.lstm(x, (h0, c0))
        return output, h_n, c_n


def example():
    inputs = {
        "x": torch.randn(4, 2, 3),
        "h0": torch.randn(4, 2, 2) * 0.5,
        "c0": torch.randn(4, 2, 5) * 0.5,
    }
    return LstmProj().eval(), inputs
