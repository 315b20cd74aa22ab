"""TorchRec's DCN cross networks, full rank and low rank, on the same input:
each layer is x_{l+1} = x_0 * (W_l x_l + b_l) + x_l, with W_l a full
(N x N) matrix applied by a batched matmul, or the product of an (N x r)
and an (r x N) kernel applied as two linears (issue 30's public code).

Origin: pytorch/torchrec, torchrec/modules/crossnet.py, classes CrossNet and
LowRankCrossNet, revision b7f5dd6972c1fcca8cd6762615dec0e51904c90a.

Changes:
- the layer loops `for layer in range(self._num_layers)` read
  `self.kernels[layer]`, `self.bias[layer]`: TorchScript indexes a
  ParameterList only by an integer literal, so each loop zips the
  ParameterLists instead (same order, same count).
- CrossNet's `self.kernels: torch.nn.Module = ParameterList(...)`
  annotations are dropped (TorchScript cannot iterate an attribute declared
  as a plain Module).
- a wrapper module, DCNPair, runs both networks on one input and returns
  both outputs, so that one case checks both classes.
- the example fills the biases (zeros at construction) with random values so
  that they take part in the result.
"""
from typing import Tuple

import torch


class CrossNet(torch.nn.Module):
    def __init__(
        self,
        in_features: int,
        num_layers: int,
    ) -> None:
        super().__init__()
        self._num_layers = num_layers
        self.kernels = torch.nn.ParameterList(
            [
                torch.nn.Parameter(
                    torch.nn.init.xavier_normal_(torch.empty(in_features, in_features))
                )
                for i in range(self._num_layers)
            ]
        )
        self.bias = torch.nn.ParameterList(
            [
                torch.nn.Parameter(torch.nn.init.zeros_(torch.empty(in_features, 1)))
                for i in range(self._num_layers)
            ]
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        x_0 = input.unsqueeze(2)  # (B, N, 1)
        x_l = x_0

        for kernel, bias in zip(self.kernels, self.bias):
            xl_w = torch.matmul(kernel, x_l)  # (B, N, 1)
            x_l = x_0 * (xl_w + bias) + x_l  # (B, N, 1)

        return torch.squeeze(x_l, dim=2)


class LowRankCrossNet(torch.nn.Module):
    def __init__(
        self,
        in_features: int,
        num_layers: int,
        low_rank: int = 1,
    ) -> None:
        super().__init__()
        assert low_rank >= 1, "Low rank must be larger or equal to 1"
        self._num_layers = num_layers
        self._low_rank = low_rank
        self.W_kernels: torch.nn.ParameterList = torch.nn.ParameterList(
            [
                torch.nn.Parameter(
                    torch.nn.init.xavier_normal_(
                        torch.empty(in_features, self._low_rank)
                    )
                )
                for i in range(self._num_layers)
            ]
        )
        self.V_kernels: torch.nn.ParameterList = torch.nn.ParameterList(
            [
                torch.nn.Parameter(
                    torch.nn.init.xavier_normal_(
                        torch.empty(self._low_rank, in_features)
                    )
                )
                for i in range(self._num_layers)
            ]
        )
        self.bias: torch.nn.ParameterList = torch.nn.ParameterList(
            [
                torch.nn.Parameter(torch.nn.init.zeros_(torch.empty(in_features)))
                for i in range(self._num_layers)
            ]
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        x_0 = input
        x_l = x_0
        for V_kernel, W_kernel, bias in zip(self.V_kernels, self.W_kernels, self.bias):
            x_l_v = torch.nn.functional.linear(x_l, V_kernel)
            x_l_w = torch.nn.functional.linear(x_l_v, W_kernel)
            x_l = x_0 * (x_l_w + bias) + x_l  # (B, N)
        return x_l


class DCNPair(torch.nn.Module):
    def __init__(self, in_features: int, num_layers: int, low_rank: int) -> None:
        super().__init__()
        self.full = CrossNet(in_features, num_layers)
        self.low_rank = LowRankCrossNet(in_features, num_layers, low_rank)

    def forward(self, input: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.full(input), self.low_rank(input)


def example():
    net = DCNPair(in_features=32, num_layers=3, low_rank=4)
    with torch.no_grad():
        for p in list(net.full.bias) + list(net.low_rank.bias):
            p.uniform_(-0.1, 0.1)
    return net, {"input": torch.randn(64, 32) * 0.5}
