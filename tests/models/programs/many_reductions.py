"""More reductions in one fused group than a kernel has loop variables
(KIR_MAX_VARS = 64: 16 output dims, then one per reduction): 52 row sums of
x * k, written out (a loop would stay a loop). A reduction's variable past
63 overflowed the printer's range arrays and the index expressions' 64-bit
variable sets (free() of the pointer a range write had overwritten:
--emit=c and the cpu and cuda runs crashed); the group is interpreted
instead (interpreted.txt)."""
import torch


def many_reductions(x):
    s = x.sum(1)
    s = s + (x * 2.0).sum(1) + (x * 3.0).sum(1) + (x * 4.0).sum(1) + (x * 5.0).sum(1)
    s = s + (x * 6.0).sum(1) + (x * 7.0).sum(1) + (x * 8.0).sum(1) + (x * 9.0).sum(1)
    s = s + (x * 10.0).sum(1) + (x * 11.0).sum(1) + (x * 12.0).sum(1) + (x * 13.0).sum(1)
    s = s + (x * 14.0).sum(1) + (x * 15.0).sum(1) + (x * 16.0).sum(1) + (x * 17.0).sum(1)
    s = s + (x * 18.0).sum(1) + (x * 19.0).sum(1) + (x * 20.0).sum(1) + (x * 21.0).sum(1)
    s = s + (x * 22.0).sum(1) + (x * 23.0).sum(1) + (x * 24.0).sum(1) + (x * 25.0).sum(1)
    s = s + (x * 26.0).sum(1) + (x * 27.0).sum(1) + (x * 28.0).sum(1) + (x * 29.0).sum(1)
    s = s + (x * 30.0).sum(1) + (x * 31.0).sum(1) + (x * 32.0).sum(1) + (x * 33.0).sum(1)
    s = s + (x * 34.0).sum(1) + (x * 35.0).sum(1) + (x * 36.0).sum(1) + (x * 37.0).sum(1)
    s = s + (x * 38.0).sum(1) + (x * 39.0).sum(1) + (x * 40.0).sum(1) + (x * 41.0).sum(1)
    s = s + (x * 42.0).sum(1) + (x * 43.0).sum(1) + (x * 44.0).sum(1) + (x * 45.0).sum(1)
    s = s + (x * 46.0).sum(1) + (x * 47.0).sum(1) + (x * 48.0).sum(1) + (x * 49.0).sum(1)
    s = s + (x * 50.0).sum(1) + (x * 51.0).sum(1) + (x * 52.0).sum(1)
    return s


def example():
    return many_reductions, {"x": torch.randn(4, 100)}
