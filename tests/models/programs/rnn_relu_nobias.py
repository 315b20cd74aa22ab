"""nn.RNN with relu as a whole layer (aten::rnn_relu.input): no biases, two
bidirectional layers, no h0 (zeros)."""
import torch
from torch import nn


class RnnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False,
                          bidirectional=True)

    def forward(self, x):
        output, h_n = self.rnn(x)
        return output, h_n


def example():
    return RnnRelu().eval(), {"x": torch.randn(5, 2, 3)}
