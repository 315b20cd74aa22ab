"""Module state written in forward (issue 30): an anchor generator that
caches the anchors it computes in an Optional[Tensor] attribute, as
detection heads do (torchvision's AnchorGenerator kept a `_cache`; the
pattern is common in public detection code).

`forward` asks for the anchors of each of `levels` feature levels in a loop;
the first request computes them and assigns `self._cache` inside a branch
inside the loop (prim::SetAttr in an If in a Loop), every later one reuses
the cached tensor, and `self.hits` counts the reuses (an int attribute
incremented in the other branch). The module's state after the call (the
cache and the counter) is returned, so the outputs check the state that
the run leaves as well as the values read from it."""
from typing import Optional

import torch


class CachedAnchors(torch.nn.Module):
    _cache: Optional[torch.Tensor]

    def __init__(self, stride: int):
        super().__init__()
        self.stride = stride
        self.sizes = torch.tensor([[8.0, 8.0], [16.0, 8.0], [8.0, 16.0]])
        self._cache = None
        self.hits = 0

    def grid_anchors(self, height: int, width: int) -> torch.Tensor:
        cache = self._cache
        if cache is None:
            ys = torch.arange(height, dtype=torch.float32) * self.stride
            xs = torch.arange(width, dtype=torch.float32) * self.stride
            cy = ys.unsqueeze(1).expand(height, width).reshape(-1, 1)
            cx = xs.unsqueeze(0).expand(height, width).reshape(-1, 1)
            centers = torch.cat([cx, cy, cx, cy], dim=1)
            half = torch.cat([-self.sizes, self.sizes], dim=1) * 0.5
            anchors = (centers.unsqueeze(1) + half.unsqueeze(0)).reshape(-1, 4)
            self._cache = anchors
            return anchors
        self.hits = self.hits + 1
        return cache

    def forward(self, deltas, levels: int):
        # deltas: [levels, height * width * 3, 4]
        height, width = 3, 4
        boxes = []
        for level in range(levels):
            anchors = self.grid_anchors(height, width)
            boxes.append(anchors + deltas[level] * self.stride)
        cache = self._cache
        assert cache is not None
        return torch.stack(boxes), cache, self.hits


def example():
    return CachedAnchors(4), {"deltas": torch.randn(3, 36, 4), "levels": 3}
