"""Tensors turned into Python values, as post-processing written for humans
does (a program of our own, issue 30's unseen-code check): `t.tolist()`
with its annotation (prim::tolist), a list of floats sorted in place and
sliced, `sorted()` of a dict's keys, enumerate over a list with a filter,
sum/max builtins, a str join, math.floor and math.isfinite, and a tensor
rebuilt from a Python list. Before, prim::tolist and aten::sorted were not
in the op table (exit 2), and the list sort kept the program one filter."""
import math
from typing import Dict, List

import torch


def python_lists_from_tensors(x, k: int):
    vals: List[float] = x.tolist()
    vals.sort(reverse=True)
    top = vals[:k]
    xl: List[float] = x.tolist()
    idx: List[int] = []
    for i, v in enumerate(xl):
        if v > 0.0:
            idx.append(i)
    s = sum(top)
    m = max(idx) if len(idx) > 0 else -1
    t = torch.tensor(top, dtype=torch.float32)
    names = ["a", "b", "c"]
    joined = "-".join(names)
    d: Dict[str, int] = {}
    for n in names:
        d[n] = len(n) + len(joined)
    keys = sorted(d.keys())
    total = 0
    for kk in keys:
        total += d[kk]
    return t * s, m, total, math.floor(s * 10.0), math.isfinite(s)


def example():
    return python_lists_from_tensors, {"x": torch.randn(6), "k": 3}
