"""A loop over a constant list that caches computed tensors in a dict
keyed by a string it builds (torchvision's AnchorGenerator cache, v0.8:
`if key in cache: return cache[key]`), and a while loop on scalars only
(a float halved until it is under a bound argument). The dict's keys are
followed at specialization, so `in`, the reads and len() fold, and the
scalar loop runs at compile time: no loop stays a run-time filter.
Expected values: PyTorch's. Exported with

    /usr/bin/python3 frontend/export.py \\
        tests/kernels/shape_decided/dict_cache_loop.py:dict_cache_loop \\
        --inputs 'x=torch.randn(2)' limit=3.0 \\
        -o tests/kernels/shape_decided/dict_cache_loop
"""
from typing import Dict, List

import torch


def dict_cache_loop(x: torch.Tensor, limit: float):
    cache: Dict[str, torch.Tensor] = {}
    outs: List[torch.Tensor] = []
    misses = 0
    for n in [2, 3, 2, 4, 3]:
        key = "n" + str(n)
        if key in cache:
            g = cache[key]
        else:
            g = torch.arange(n, dtype=torch.float32).unsqueeze(1) * x.unsqueeze(0)
            cache[key] = g
            misses += 1
        outs.append(g.sum(0))
    scale = 40.0
    steps = 0
    while scale > limit:
        scale = scale / 2.0
        steps += 1
    return torch.stack(outs) * scale, misses, steps, len(cache), cache["n3"]
