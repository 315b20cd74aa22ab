"""Module attributes whose names start with an underscore, as Deep SORT's
Kalman filter has (self._std_weight_position), and a plain tensor attribute
that is neither a parameter nor a buffer: the exporter must write both."""
import torch


class PrivateAttributes(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._std_weight_position = 1.0 / 20
        self._motion_mat = torch.eye(4) * 2.0
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        std = self._std_weight_position * x[:, 3:4]
        return self.linear(x @ self._motion_mat.t()) + std


def example():
    return PrivateAttributes(), {"x": torch.randn(3, 4)}
