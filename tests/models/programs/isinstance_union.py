"""isinstance on Union-typed values and is_floating_point (issue 11): a
helper taking Union[int, float, Tensor, List[int]] inlined at four call
sites leaves prim::isinstance nodes; those a static type decides are folded
by TensorSSA, the rest are checked on the run-time value."""
from typing import List, Union

import torch


def kind_code(v: Union[int, float, torch.Tensor, List[int]]) -> int:
    if isinstance(v, int):
        return 1
    elif isinstance(v, torch.Tensor):
        return 2
    elif isinstance(v, (float, str)):
        return 3
    elif isinstance(v, list):
        return 4
    return 0


def pick(flag: bool, n: int, r: float) -> Union[int, float]:
    if flag:
        return n
    return r


def type_queries(x, n: int, r: float, flag: bool):
    code = kind_code(x) + 10 * kind_code(n) + 100 * kind_code(r) + 1000 * kind_code([n])
    chosen = pick(flag, n, r)
    dynamic = 1 if isinstance(chosen, int) else 2
    scale = 10.0 if x.is_floating_point() else 0.5
    return x * scale + code, dynamic


def example():
    return type_queries, {"x": torch.randn(3), "n": 3, "r": 1.5, "flag": False}
