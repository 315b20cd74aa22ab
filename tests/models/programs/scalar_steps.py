"""A loop of 100,000 scalar steps: an exponentially weighted running sum
over a 1-d signal, one element per step (issue 12's long loops).

`acc` is carried state (a 0-d tensor), so the loop is a feedback loop whose
body fires 100,000 times; x[i] is each step's item. `n` bounds the loop so
the same program lowers at 10 steps and at 100,000 to the same stream graph.
"""
import torch


def scalar_steps(x, decay: float, n: int):
    # x: [N]
    acc = torch.zeros(())
    for i in range(n):
        acc = acc * decay + x[i]
    return acc


def example():
    inputs = {"x": torch.randn(100000) * 0.01, "decay": 0.999, "n": 100000}
    return scalar_steps, inputs
