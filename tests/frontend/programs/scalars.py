# Non-tensor values: ints, floats (1e-5, inf, 2.0, 1e10), bools, strings with
# escapes, lists, tuples, dicts, Optional, and an exception path.
import torch
from typing import Dict, List, Optional, Tuple


def scalars(x: torch.Tensor, maybe: Optional[torch.Tensor], sizes: List[int],
            table: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, str, List[float]]:
    eps = 1e-5
    big = float("inf")
    huge = 1e10  # torch prints this float constant as 10000000000
    name = "tab\there \"quoted\" back\\slash"
    if len(sizes) == 0:
        raise ValueError("sizes must not be empty")
    y = x.view(sizes) + eps
    if maybe is not None:
        y = y + maybe
    if "bias" in table:
        y = y + table["bias"]
    scale = [0.5, 2.0, big]
    return y * scale[0] + huge, name, scale


MODEL = scalars
