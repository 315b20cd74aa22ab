"""Transpose (and permute) then mutate: writes through non-contiguous views
land at transposed positions of the base."""
import torch


def transpose_mutate(x, y, w):
    t = x.transpose(0, 1)
    t[0] = y
    t[:, 1].fill_(3.0)
    p = w.permute(2, 0, 1)
    p[1] *= -1.0
    return x, t.contiguous(), w


def example():
    inputs = {"x": torch.randn(3, 4), "y": torch.randn(3), "w": torch.randn(2, 3, 4)}
    return transpose_mutate, inputs
