# A frozen module: parameters become tensor constants, printed as <Tensor>,
# as {2.5} when they hold one element, or as the repr of a small tensor.
import torch
from torch import nn


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16, 16))
        self.offset = nn.Parameter(torch.tensor([1.0, -2.0, 3.5]))
        self.gain = nn.Parameter(torch.tensor(2.5))
        self.index = torch.tensor([0, 2])

    def forward(self, x):
        y = torch.mm(x, self.weight) * self.gain
        return y[:, :3] + self.offset, y[:, self.index]


torch.manual_seed(0)
MODEL = Affine().eval()
FREEZE = True
