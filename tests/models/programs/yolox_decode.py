"""YOLOX's inference decoding (Megvii-BaseDetection/YOLOX,
yolox/models/yolo_head.py: the end of YOLOXHead.forward in inference (the
per-level outputs flattened and concatenated, permuted to [batch, anchors,
85]) and YOLOXHead.decode_outputs, revision
f7f7c7135f7acf8703f8fb073f1f15b8d9466ea2) (issue 30's public code).

A grid of cell indices per level (meshgrid of aranges, stacked (x, y)), a
stride per anchor (torch.full), then the centres shifted by the grid and
scaled by the stride and the sizes exp'd and scaled, written in place into
slices of the output.

Changes:
- forward's `self.hw = [x.shape[-2:] for x in outputs]` (an attribute
  written in forward, which then decode_outputs reads) is a local list
  passed to decode_outputs as `hw`, and self.strides is an argument
  `strides` (the attribute write is prim::SetAttr, not what this program
  exercises); the conv heads before it are not ported: the entry point
  takes the three levels' concatenated [reg, obj.sigmoid(), cls.sigmoid()]
  maps as inputs;
- `for (hsize, wsize), stride in zip(self.hw, self.strides)` unpacks
  `hw[k][0], hw[k][1]` by index (TorchScript cannot unpack a torch.Size in a
  for target), and `torch.full((*shape, 1), stride)` ->
  `torch.full((shape[0], shape[1], 1), stride)` (no starred tuples);
- `.type(dtype)` with xin[0].type()'s string -> `.to(dtype)` with a
  torch.dtype (TorchScript's Tensor.type takes no string).
"""
from typing import List

import torch
from torch import Tensor


def decode_outputs(outputs: Tensor, hw: List[List[int]], strides_: List[int], dtype: torch.dtype) -> Tensor:
    grids = []
    strides = []
    for k in range(len(hw)):
        hsize, wsize = hw[k][0], hw[k][1]
        stride = strides_[k]
        yv, xv = torch.meshgrid([torch.arange(hsize), torch.arange(wsize)])
        grid = torch.stack((xv, yv), 2).view(1, -1, 2)
        grids.append(grid)
        shape = grid.shape[:2]
        strides.append(torch.full((shape[0], shape[1], 1), stride))

    grids_t = torch.cat(grids, dim=1).to(dtype)
    strides_t = torch.cat(strides, dim=1).to(dtype)

    outputs[..., :2] = (outputs[..., :2] + grids_t) * strides_t
    outputs[..., 2:4] = torch.exp(outputs[..., 2:4]) * strides_t
    return outputs


def yolox_decode(out0: Tensor, out1: Tensor, out2: Tensor) -> Tensor:
    outputs = [out0, out1, out2]
    hw = [[x.shape[-2], x.shape[-1]] for x in outputs]
    # [batch, n_anchors_all, 85]
    flat = torch.cat(
        [x.flatten(start_dim=2) for x in outputs], dim=2
    ).permute(0, 2, 1)
    return decode_outputs(flat, hw, [8, 16, 32], out0.dtype)


def example():
    b, ch = 2, 5 + 6

    def level(h, w):
        reg = torch.randn(b, 4, h, w) * 0.5
        return torch.cat([reg, torch.rand(b, 1, h, w), torch.rand(b, ch - 5, h, w)], 1)
    return yolox_decode, {"out0": level(16, 20), "out1": level(8, 10), "out2": level(4, 5)}
