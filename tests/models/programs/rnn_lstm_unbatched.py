"""nn.LSTM as a whole layer (aten::lstm.input): one plain layer on unbatched
2-D input [T, I], no (h0, c0) (zeros)."""
from typing import Tuple

import torch
from torch import nn


class LstmUnbatched(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4)

    def forward(self, x) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        output, (h_n, c_n) = self.lstm(x)
        return output, h_n, c_n


def example():
    return LstmUnbatched().eval(), {"x": torch.randn(5, 3)}
