"""YOLOv5's Detect head (models/yolo.py) in inference: one 1x1 conv per
level from an nn.ModuleList, the (bs, na, no, ny, nx) -> (bs, na, ny, nx, no)
permute, a grid and anchor grid made by _make_grid (meshgrid with
indexing='ij'), sigmoid, split into xy / wh / conf, and the decoded boxes
of every level concatenated (issue 11's public programs)."""
from typing import List, Tuple

import torch
from torch import nn


class Detect(nn.Module):
    stride: List[float]

    def __init__(self, nc=3, anchors=((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119)), ch=(8, 16)):
        super().__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.register_buffer('anchors', torch.tensor(anchors).float().view(self.nl, -1, 2))  # shape(nl,na,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv
        self.stride = [8.0, 16.0]

    def forward(self, x: List[torch.Tensor]) -> torch.Tensor:
        z = []  # inference output
        for i, conv in enumerate(self.m):
            x[i] = conv(x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

            grid, anchor_grid = self._make_grid(nx, ny, i)
            xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
            xy = (xy * 2 + grid) * self.stride[i]  # xy
            wh = (wh * 2) ** 2 * anchor_grid  # wh
            y = torch.cat((xy, wh, conf), 4)
            z.append(y.view(bs, self.na * nx * ny, self.no))

        return torch.cat(z, 1)

    def _make_grid(self, nx: int, ny: int, i: int) -> Tuple[torch.Tensor, torch.Tensor]:
        d = self.anchors[i].device
        t = self.anchors[i].dtype
        shape = 1, self.na, ny, nx, 2  # grid shape
        y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)
        yv, xv = torch.meshgrid(y, x, indexing='ij')
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5  # add grid offset, i.e. y = 2.0 * x - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


class DetectOnTwoLevels(nn.Module):
    """The head on two feature maps (its forward takes a list)."""

    def __init__(self):
        super().__init__()
        self.detect = Detect()

    def forward(self, p3, p4):
        return self.detect([p3, p4])


def example():
    return DetectOnTwoLevels(), {"p3": torch.randn(1, 8, 4, 6), "p4": torch.randn(1, 16, 2, 3)}
