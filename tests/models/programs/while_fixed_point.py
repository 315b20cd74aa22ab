"""A while loop that iterates until a residual falls under a tolerance.

The fixed point of x = tanh(x @ w + b) (w scaled to be a contraction), as
deep-equilibrium models and implicit layers compute it: the trip count is
decided by tensor data at run time, once per iteration (`while res > tol`),
with a cap on the iterations as such solvers keep.
"""
import torch


def while_fixed_point(x0, w, b, tol: float, max_iter: int):
    x = x0
    res = tol + 1.0
    it = 0
    while res > tol and it < max_iter:
        x_next = torch.tanh(x @ w + b) * 0.9 + x * 0.1
        res = float((x_next - x).abs().max())
        x = x_next
        it += 1
    return x, it


def example():
    n = 64
    w = torch.randn(n, n) * (0.5 / n ** 0.5)
    return while_fixed_point, {"x0": torch.zeros(16, n), "w": w, "b": torch.randn(n) * 0.5,
                               "tol": 1e-5, "max_iter": 100}
