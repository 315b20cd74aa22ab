"""nn.RNN with tanh as a whole layer (aten::rnn_tanh.input): no biases, one
layer, a given h0."""
import torch
from torch import nn


class RnnTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(3, 4, bias=False)

    def forward(self, x, h0):
        output, h_n = self.rnn(x, h0)
        return output, h_n


def example():
    return RnnTanh().eval(), {"x": torch.randn(5, 2, 3), "h0": torch.randn(1, 2, 4) * 0.5}
