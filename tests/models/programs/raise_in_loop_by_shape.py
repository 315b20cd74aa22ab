"""A check on a carried tensor's rank inside a loop's body that fails:
shape inference decides the If (kernels/fold_decided.c), and the raise it
leaves in the body must still stop the run with PyTorch's message."""
import torch


def raise_in_loop_by_shape(x, n: int):
    for i in range(n):
        if x.dim() == 2:
            raise ValueError("expected a 1-d tensor")
        x = x * 2.0 + 1.0
    return x


def example():
    return raise_in_loop_by_shape, {"x": torch.randn(3, 4), "n": 3}, (1, "expected a 1-d tensor")
