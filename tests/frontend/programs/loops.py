# A counted loop carrying two tensors, with a scalar accumulator.
import torch


def loops(x: torch.Tensor, n: int):
    acc = torch.zeros_like(x)
    total = 0
    for i in range(n):
        acc = acc + x * i
        x = torch.sin(x)
        total += i
    return acc, x, total


MODEL = loops
