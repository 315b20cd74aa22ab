"""A loop whose carried tensor doubles in length every iteration: its shape
is no fixed point, so shape inference leaves the body's values unknown
(kernels/shape_infer.c forgets the first pass's conclusions) and the body
runs unfused; fused or not, the outputs must be PyTorch's."""
import torch


def growing_loop(x, n: int):
    y = x
    for i in range(n):
        y = torch.cat((y, y * 2.0 + 1.0))
        z = torch.sigmoid(y) * 3.0
        y = y - z
    return y


def example():
    return growing_loop, {"x": torch.randn(3), "n": 3}
