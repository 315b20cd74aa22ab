"""Integer scalar arithmetic in loops: floor division and remainder with
negative operands (Python semantics: -7 // 2 == -4, -7 % 3 == 2), results
written into tensor elements and used as indices."""
import torch


def int_scalar_arith(x, n: int):
    out = torch.zeros(n, 3)
    acc = 0
    for i in range(n):
        q = i // 3
        r = i % 3
        acc = acc + q * r - (i * 7) // 2 + (-i) % 4 - (-i) // 3
        out[i, 0] = acc
        out[i, 1] = x[(acc % x.size(0)), r]
        out[i, 2] = float(q) / 2.0
    return out, acc


def example():
    return int_scalar_arith, {"x": torch.randn(4, 3), "n": 7}
