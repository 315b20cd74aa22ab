"""chunk / split / unbind views mutated.

Each of these returns a list of views of its input; mutating one element of
the list must change the input (and nothing else).
"""
import torch


def chunk_split_unbind(x, y, z):
    left, right = x.chunk(2, dim=1)
    right.mul_(10.0)
    parts = torch.split(y, [1, 2], dim=0)
    parts[1].add_(1.0)
    rows = z.unbind(0)
    rows[1].zero_()
    pieces = torch.split(z, 2, dim=1)
    pieces[0].neg_()
    return x, y, z, left.sum()


def example():
    inputs = {"x": torch.randn(2, 4), "y": torch.randn(3, 2), "z": torch.randn(3, 3)}
    return chunk_split_unbind, inputs
