"""Int64 constants a double does not hold. A kernel's constant is a double:
x + (2**62 + 1) and 2**53 + 1 were rounded to even (every element off by
one); a group with such a constant is interpreted (interpreted.txt: the
second group, after the cumsum). INT64_MIN printed as
-9223372036854775808LL, a literal C reads as unsigned (a warning the
kernels' -Werror refused); it is (-9223372036854775807LL - 1)."""
import torch


def int64_constants(x):
    b = torch.full_like(x, -9223372036854775807 - 1)
    d = x.clamp(min=-9223372036854775807 - 1) - 7
    y = torch.cumsum(x, 0)
    a = y + 4611686018427387905
    c = y * 3 + 9007199254740993
    return b, d, a, c


def example():
    return int64_constants, {"x": torch.arange(-3, 3, dtype=torch.int64)}
