"""Module state written in forward (issue 30): a Dict[str, Tensor] cache
of computed anchors keyed by the feature map's size, as torchvision's
AnchorGenerator kept `self._cache` (torchvision/models/detection/
anchor_utils.py, AnchorGenerator.cached_grid_anchors, v0.8), with a
counter and a flag assigned with prim::SetAttr in a while loop.

The cache is written as an item of the dict attribute
(`self._cache[key] = anchors`, aten::_set_item on the attribute's dict) on
a miss and read on a hit; each size is asked for twice, so the second
request of a size is served from the cache. `self.misses` counts the misses
(prim::SetAttr in a branch), and a while loop halves `self.scale` until it
is below the limit while toggling `self.odd` (prim::SetAttr in a loop
whose trip count the data decides). The state after the call is returned."""
from typing import Dict, List

import torch


class DictAnchorCache(torch.nn.Module):
    _cache: Dict[str, torch.Tensor]

    def __init__(self):
        super().__init__()
        self.base = torch.tensor([[-4.0, -4.0, 4.0, 4.0], [-8.0, -4.0, 8.0, 4.0]])
        self._cache = {}
        self.misses = 0
        self.scale = 40.0
        self.odd = False

    def grid(self, height: int, width: int) -> torch.Tensor:
        key = str(height) + "x" + str(width)
        if key in self._cache:
            return self._cache[key]
        ys = torch.arange(height, dtype=torch.float32)
        xs = torch.arange(width, dtype=torch.float32)
        shifts = torch.stack([xs.repeat(height), ys.repeat_interleave(width)], dim=1).repeat(1, 2)
        anchors = (shifts.unsqueeze(1) + self.base.unsqueeze(0)).reshape(-1, 4)
        self._cache[key] = anchors
        self.misses += 1
        return anchors

    def forward(self, x, limit: float):
        outs: List[torch.Tensor] = []
        for size in [2, 3, 2, 3]:
            a = self.grid(size, size + 1)
            outs.append(a.sum(0) * x)
        while self.scale > limit:
            self.scale = self.scale / 2.0
            self.odd = not self.odd
        return torch.stack(outs), self.misses, self.scale, self.odd, self._cache["2x3"], len(self._cache)


def example():
    return DictAnchorCache(), {"x": torch.randn(4), "limit": 3.0}
