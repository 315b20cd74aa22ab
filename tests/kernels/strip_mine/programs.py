"""Data-parallel loops for strip_mine.c (tests/kernels/test_strip_mine.sh).
Regenerate the committed cases with `/usr/bin/python3 programs.py` (from
this folder): each function is exported with frontend/export.py into a
folder of its name, PyTorch's eager outputs as expected/."""
import os
import sys

import torch


def rows_and_index(x, w, n: int):
    # the loop's counter read beyond row reads: row i is scaled by i, so a
    # slice must use its global row number (lo + j), not its own j
    out = torch.empty(n, x.size(1), w.size(1))
    for i in range(n):
        out[i] = torch.tanh(x[i] @ w) * float(i) + x[i].sum()
    return out


def prime_trips(x, n: int):
    # 37 iterations: no divisor up to 8 per worker shares them out, the
    # loop stays whole (one kernel over all rows)
    out = torch.zeros(n, x.size(1))
    for i in range(n):
        out[i] = torch.sigmoid(x[i]) * 2.0
    return out


def stacked_rows(x, w, b, n: int):
    # batch_map's shape: a product of each row block by a weight, then
    # elementwise work, over 96 items of 16 rows (slices of whole 256-row
    # panels: multiples of 16 items)
    out = torch.empty(n, x.size(1), w.size(1))
    for i in range(n):
        item = x[i]
        out[i] = torch.relu(item @ w + b) * torch.sigmoid(item.sum(dim=1, keepdim=True))
    return out


CASES = {
    "rows_and_index": (rows_and_index, {"x": "torch.randn(512, 4, 6)", "w": "torch.randn(6, 4) * 0.5", "n": "512"}),
    "prime_trips": (prime_trips, {"x": "torch.randn(37, 9)", "n": "37"}),
    "stacked_rows": (stacked_rows, {"x": "torch.randn(96, 16, 8)", "w": "torch.randn(8, 8) * 0.3",
                                    "b": "torch.randn(8)", "n": "96"}),
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "..", "frontend"))
    import export  # noqa: E402
    torch.manual_seed(0)
    for name, (fn, inputs) in CASES.items():
        values = {k: eval(v) for k, v in inputs.items()}
        export.export(fn, values, os.path.join(here, name), here)
