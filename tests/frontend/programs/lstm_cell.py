# An LSTMCell unrolled over the time steps of a sequence by a loop, with
# the hidden state carried and outputs collected with stack.
import torch
from torch import nn
from typing import List


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 6)

    def forward(self, seq):
        h = torch.zeros(seq.size(1), 6)
        c = torch.zeros(seq.size(1), 6)
        outs: List[torch.Tensor] = []
        for t in range(seq.size(0)):
            h, c = self.cell(seq[t], (h, c))
            outs.append(h)
        return torch.stack(outs), c


torch.manual_seed(0)
MODEL = Recurrent()
