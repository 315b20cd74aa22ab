"""Three recurrent cell modules stepped in one loop (nn.GRUCell, nn.LSTMCell
without biases, nn.RNNCell): the cells' rank checks (`if input.dim() not in
(1, 2)`) sit inside the loop's body, where only the carried tensors' static
shapes decide them; the cells then become their linears and gate
expressions (kernels/decompose_cells.c)."""
import torch
from torch import nn


class RnnCells(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRUCell(6, 5)
        self.lstm = nn.LSTMCell(5, 4, bias=False)
        self.rnn = nn.RNNCell(4, 3)

    def forward(self, x, h, c, r):
        # x: [T, B, 6]
        for t in range(x.size(0)):
            h = self.gru(x[t], h)
            hl, c = self.lstm(h, (c, c))
            r = self.rnn(hl, r)
        return h, c, r


def example():
    inputs = {"x": torch.randn(4, 3, 6), "h": torch.randn(3, 5), "c": torch.randn(3, 4),
              "r": torch.randn(3, 3)}
    return RnnCells(), inputs
