"""Mutation inside nested loops and ifs.

An outer loop over rows and an inner loop over columns write single elements,
whole rows and whole columns, choosing by integer arithmetic on the
induction variables.
"""
import torch


def nested_loop_if(x, rows: int):
    for i in range(rows):
        for j in range(x.size(1)):
            if (i + j) % 2 == 0:
                x[i, j] = x[i, j] * 2.0
            else:
                if j > i:
                    x[i] += 0.25
                else:
                    x[:, j].sub_(0.5)
    return x


def example():
    return nested_loop_if, {"x": torch.randn(3, 4), "rows": 3}
