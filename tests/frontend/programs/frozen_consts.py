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
        self.tiny = nn.Parameter(torch.tensor([[1e-5, 2e-5], [3e-5, 4e-5]]))
        self.cube = torch.tensor([[[1, 2]], [[3, 4]]])
        self.flags = torch.tensor([True, False])

    def forward(self, x):
        y = torch.mm(x, self.weight) * self.gain
        a = x[:2, :2] @ self.tiny
        b = self.cube * x.sum().long()
        c = torch.where(self.flags, x[0, :2], x[1, :2])
        return y[:, :3] + self.offset, y[:, self.index], a, b, c


torch.manual_seed(0)
MODEL = Affine().eval()
FREEZE = True
