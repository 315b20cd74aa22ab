"""masked_fill_ inside a loop on a row view, with the fill value taken from
the loop counter, and a column update through index_put with a None entry
(`x[:, idx] = v`)."""
import torch


def masked_fill_loop(x, idx, v):
    for t in range(x.size(0)):
        row = x[t]
        row.masked_fill_(row < 0, float(t))
    x[:, idx] = v
    return x


def example():
    inputs = {
        "x": torch.randn(4, 5),
        "idx": torch.tensor([3, 0]),
        "v": torch.randn(4, 2),
    }
    return masked_fill_loop, inputs
