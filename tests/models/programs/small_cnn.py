"""A small CNN: conv, relu, max-pool, linear (MIT thesis module)."""
import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(2, 4, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def example():
    return SmallCNN(), {"x": torch.randn(2, 2, 6, 6)}
