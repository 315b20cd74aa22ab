# Types TorchScript prints in signatures: NamedTuple, Enum, Union, Any,
# lists of optionals, optional lists, nested tuples, complex, and a Future
# (torch 1.13 prints it Future[Tensor]). The Future is an argument: calling
# fork would add a "with prim::fork_0 = graph(...)" subgraph section, which
# the frontend refuses.
import torch
from enum import Enum
from typing import Any, List, NamedTuple, Optional, Tuple, Union


class Point(NamedTuple):
    x: torch.Tensor
    y: int


class Color(Enum):
    RED = 1
    GREEN = 2


def type_zoo(p: Point, c: Color, u: Union[int, torch.Tensor], a: Any,
             items: List[Optional[torch.Tensor]], sizes: Optional[List[int]],
             nested: Tuple[int, Tuple[torch.Tensor, float]], z: complex,
             fut: torch.jit.Future[torch.Tensor]) -> torch.Tensor:
    r = torch.jit.wait(fut) + p.x
    if c == Color.RED:
        r = r + nested[1][0]
    return r


MODEL = type_zoo
