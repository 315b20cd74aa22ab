# A traced module: values carry refined tensor types such as
# Float(2, 8, strides=[8, 1], requires_grad=0, device=cpu).
import torch
from torch import nn


class Traced(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x, y):
        h = self.fc(x).relu()
        s = h.sum()
        return h.t() @ y, s, h[0]


torch.manual_seed(0)
MODEL = Traced()
TRACE_INPUTS = (torch.randn(2, 8), torch.randn(2, 3))
