"""A loop whose carried tensor doubles in length every iteration: its shape
is no fixed point, so shape inference leaves the body's values unknown
(kernels/shape_infer.c forgets the first pass's conclusions) and the body
runs unfused. Kernels built for the first iteration's sizes would still
give PyTorch's outputs (their input guard interprets the group instead);
kernels.fit catches them (groups_interpreted_per_run must be 0)."""
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
