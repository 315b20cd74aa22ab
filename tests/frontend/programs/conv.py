# Conv2d, max pooling, flatten and a classifier head.
import torch
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3, stride=2)
        self.head = nn.Linear(8 * 3 * 3, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.nn.functional.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        return torch.log_softmax(self.head(x), dim=1)


torch.manual_seed(0)
MODEL = SmallCNN()
