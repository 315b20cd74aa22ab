"""Reads and writes at run-time indices under an If in a loop's body:
TensorSSA's accesses and assigns there fuse, with the index a kernel
parameter guarded to lie in the dim. At i = 0, `x[i - 1]` is x[-1] (the last
row): the guard sends that iteration to the interpreter, which wraps it as
PyTorch does."""
import torch


def runtime_index_assign(x, n: int):
    for i in range(n):
        if i % 2 == 0:
            x[i - 1] = x[i - 1] * 2.0 + x[i]
        else:
            x[i, 0] = x[i - 1, 1] - 1.0
    return x


def example():
    return runtime_index_assign, {"x": torch.randn(5, 3), "n": 5}
