"""A recurrence through one tensor: row t is computed from row t - 1 of the
same tensor, which the previous iteration wrote (read-after-write through a
mutated tensor, no separate loop-carried value)."""
import torch


def recurrence_rows(x, decay: float):
    out = x.clone()
    for t in range(1, x.size(0)):
        out[t] = out[t - 1] * decay + x[t]
    return out


def example():
    return recurrence_rows, {"x": torch.randn(6, 3), "decay": 0.75}
