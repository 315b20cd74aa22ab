"""Loops for the disjointness prover of the lowering (streamit/lower_loop.c).

Each function is one case; PARALLEL says whether the lowering must turn its
loop into a split-join over the iterations (True) or must keep it whole
(False). The negative cases are built so that a wrong proof gives wrong
results: iterations that overlap or read each other's writes give a
different answer when their writes are applied as if independent."""
import torch

PARALLEL = {}


def case(parallel):
    def mark(f):
        PARALLEL[f.__name__] = parallel
        return f
    return mark


@case(True)
def rows_select(x: torch.Tensor, n: int):
    # out[i] = f(x[i]): immut::select_rev at index i.
    out = torch.zeros_like(x)
    for i in range(n):
        out[i] = x[i] * 2.0 + float(i)
    return out


@case(True)
def head_slices(x: torch.Tensor, heads: int):
    # A head loop: out[:, h*D:(h+1)*D] = g(x[:, h*D:(h+1)*D]).
    D = x.size(1) // heads
    out = torch.zeros_like(x)
    for h in range(heads):
        out[:, h * D:(h + 1) * D] = torch.tanh(x[:, h * D:(h + 1) * D]) * (h + 1)
    return out


@case(True)
def strided_rows(x: torch.Tensor, n: int):
    # Index 2*i+1: affine with stride 2, still disjoint.
    out = torch.zeros(2 * n + 1, x.size(1))
    for i in range(n):
        out[2 * i + 1] = torch.sigmoid(x[i])
    return out


@case(False)
def overlapping_slices(x: torch.Tensor, n: int):
    # Each iteration writes rows [i, i+2): neighbours overlap, the later
    # write wins; applying the writes as independent slices would still
    # give this answer only in order, so the prover must refuse.
    out = torch.zeros_like(x)
    for i in range(n):
        out[i:i + 2] = x[i:i + 2] * float(i + 1)
    return out


@case(False)
def reads_previous(x: torch.Tensor, n: int):
    # out[i] depends on out[i-1]: real carried state.
    out = torch.zeros_like(x)
    for i in range(1, n):
        out[i] = out[i - 1] * 0.5 + x[i]
    return out


@case(False)
def same_row(x: torch.Tensor, n: int):
    # Every iteration writes row 0: only the last write survives.
    out = torch.zeros_like(x)
    for i in range(n):
        out[0] = x[i] * float(i + 1)
    return out


@case(False)
def negative_index(x: torch.Tensor, n: int):
    # out[-1 - i]: disjoint in fact, but a negative index wraps by a size
    # the prover does not know, so it is refused (and must still be right).
    out = torch.zeros_like(x)
    for i in range(n):
        out[-1 - i] = x[i] + 1.0
    return out


def examples():
    torch.manual_seed(0)
    x = torch.randn(6, 4)
    return {
        "rows_select": (rows_select, {"x": x, "n": 6}),
        "head_slices": (head_slices, {"x": torch.randn(3, 8), "heads": 4}),
        "strided_rows": (strided_rows, {"x": torch.randn(4, 3), "n": 4}),
        "overlapping_slices": (overlapping_slices, {"x": x, "n": 5}),
        "reads_previous": (reads_previous, {"x": x, "n": 6}),
        "same_row": (same_row, {"x": x, "n": 6}),
        "negative_index": (negative_index, {"x": x, "n": 6}),
    }
