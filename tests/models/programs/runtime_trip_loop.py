"""For loops whose trip counts are only known at run time.

The first loop walks the rows that torch.nonzero selects (the size of an
intermediate tensor shape inference cannot know); the second runs a number of
smoothing steps computed from tensor data (int(...) of a reduction).
"""
import torch


def runtime_trip_loop(x, w):
    pos = torch.nonzero(x[:, 0] > 0)
    h = torch.zeros(w.shape[1])
    for i in range(pos.shape[0]):
        r = x[int(pos[i, 0])]
        h = torch.tanh(r @ w + 0.5 * h)
    steps = int(x.abs().sum()) % 5 + 2
    g = x.clone()
    for j in range(steps):
        g = g * 0.5 + torch.sigmoid(g) * 0.25 + j * 0.01
    return h, g, steps


def example():
    return runtime_trip_loop, {"x": torch.randn(10, 8), "w": torch.randn(8, 6) * 0.5}
