# Conv2d + BatchNorm2d + ReLU in eval mode (batch_norm with running stats).
import torch
from torch import nn


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


torch.manual_seed(0)
MODEL = ConvBN().eval()
