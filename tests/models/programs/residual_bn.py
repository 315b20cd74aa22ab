"""Residual block with conv + BatchNorm2d in eval mode (MIT thesis module).

The running statistics and affine parameters are randomised so batch norm
does visible work; `training` is false in the weights' metadata.
"""
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + x)


def example():
    model = ResidualBlock(3)
    with torch.no_grad():
        for bn in (model.bn1, model.bn2):
            bn.running_mean.copy_(torch.randn(3) * 0.2)
            bn.running_var.copy_(torch.rand(3) + 0.5)
            bn.weight.copy_(torch.rand(3) + 0.5)
            bn.bias.copy_(torch.randn(3) * 0.1)
    return model, {"x": torch.randn(1, 3, 5, 5)}
