"""Detectron2's paste_masks_in_image (facebookresearch/detectron2,
detectron2/layers/mask_ops.py: paste_masks_in_image and _do_paste_mask,
revision 31542d62eabaef2cbce5092bf79287ecce2459ab) (issue 30's public code).

Mask R-CNN's 28x28 soft masks are pasted into the image: on the CPU one
mask per chunk, each sampled with grid_sample (bilinear, align_corners
False) only over the pixel window that bounds its box (skip_empty: the
window's size comes from the box's values), thresholded and written into
that window of a boolean [N, H, W] result.

Changes:
- _do_paste_mask returns the window as four ints (y0, y1, x0, x1) instead of
  a tuple of slice objects, and the caller writes
  `img_masks[inds, y0:y1, x0:x1]` for `img_masks[(inds,) + spatial_inds]`
  (TorchScript has no slice objects); the skip_empty=False branch returns
  the whole image as that window;
- `x0_int, y0_int = torch.clamp(...).to(dtype=torch.int32)` (unpacking a
  2-element tensor) -> two int() reads of it; x1_int and y1_int are int()
  of their 0-d tensors (torch.arange takes them either way);
- image_shape is two ints, boxes a Tensor (not a Boxes object), and the
  `N == 0` early return's `masks.new_empty((0,) + image_shape, ...)` builds
  the size as a list;
- the GPU branch's chunk count `int(np.ceil(...))` -> math.ceil (no numpy
  in TorchScript); the CPU branch is the one that runs here;
- the module constants BYTES_PER_FLOAT and GPU_MEM_LIMIT are locals of
  paste_masks_in_image (TorchScript does not read module-level ints).
"""
import math
from typing import Tuple

import torch
from torch import Tensor
from torch.nn import functional as F

def _do_paste_mask(masks: Tensor, boxes: Tensor, img_h: int, img_w: int,
                   skip_empty: bool = True) -> Tuple[Tensor, int, int, int, int]:
    device = masks.device
    if skip_empty:
        xy0_int = torch.clamp(boxes.min(dim=0).values.floor()[:2] - 1, min=0).to(
            dtype=torch.int32
        )
        x0_int, y0_int = int(xy0_int[0]), int(xy0_int[1])
        x1_int = int(torch.clamp(boxes[:, 2].max().ceil() + 1, max=img_w).to(dtype=torch.int32))
        y1_int = int(torch.clamp(boxes[:, 3].max().ceil() + 1, max=img_h).to(dtype=torch.int32))
    else:
        x0_int, y0_int = 0, 0
        x1_int, y1_int = img_w, img_h
    x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)  # each is Nx1

    N = masks.shape[0]

    img_y = torch.arange(y0_int, y1_int, device=device, dtype=torch.float32) + 0.5
    img_x = torch.arange(x0_int, x1_int, device=device, dtype=torch.float32) + 0.5
    img_y = (img_y - y0) / (y1 - y0) * 2 - 1
    img_x = (img_x - x0) / (x1 - x0) * 2 - 1
    # img_x, img_y have shapes (N, w), (N, h)

    gx = img_x[:, None, :].expand(N, img_y.size(1), img_x.size(1))
    gy = img_y[:, :, None].expand(N, img_y.size(1), img_x.size(1))
    grid = torch.stack([gx, gy], dim=3)

    img_masks = F.grid_sample(masks.to(dtype=torch.float32), grid, align_corners=False)

    return img_masks[:, 0], y0_int, y1_int, x0_int, x1_int


def paste_masks_in_image(masks: Tensor, boxes: Tensor, img_h: int, img_w: int,
                         threshold: float = 0.5) -> Tensor:
    assert masks.shape[-1] == masks.shape[-2], "Only square mask predictions are supported"
    N = len(masks)
    if N == 0:
        return masks.new_empty([0, img_h, img_w], dtype=torch.uint8)
    device = boxes.device
    assert len(boxes) == N, boxes.shape
    BYTES_PER_FLOAT = 4
    # TODO: This memory limit may be too much or too little. It would be better to
    # determine it based on available resources.
    GPU_MEM_LIMIT = 1024 ** 3  # 1 GB memory limit

    # The actual implementation split the input into chunks,
    # and paste them chunk by chunk.
    if device.type == "cpu":
        # CPU is most efficient when they are pasted one by one with skip_empty=True
        # so that it performs minimal number of operations.
        num_chunks = N
    else:
        # GPU benefits from parallelism for larger chunks, but may have memory issue
        # int(img_h) because shape may be tensors in tracing
        num_chunks = int(math.ceil(N * int(img_h) * int(img_w) * BYTES_PER_FLOAT / GPU_MEM_LIMIT))
        assert (
            num_chunks <= N
        ), "Default GPU_MEM_LIMIT in mask_ops.py is too small; try increasing it"
    chunks = torch.chunk(torch.arange(N, device=device), num_chunks)

    img_masks = torch.zeros(
        N, img_h, img_w, device=device, dtype=torch.bool if threshold >= 0 else torch.uint8
    )
    for inds in chunks:
        masks_chunk, y0, y1, x0, x1 = _do_paste_mask(
            masks[inds, None, :, :], boxes[inds], img_h, img_w, skip_empty=device.type == "cpu"
        )

        if threshold >= 0:
            masks_chunk = (masks_chunk >= threshold).to(dtype=torch.bool)
        else:
            # for visualization and debugging
            masks_chunk = (masks_chunk * 255).to(dtype=torch.uint8)

        img_masks[inds, y0:y1, x0:x1] = masks_chunk
    return img_masks


def example():
    n = 6
    xy = torch.rand(n, 2) * 40
    boxes = torch.cat([xy, xy + torch.rand(n, 2) * 20 + 4], 1)
    return paste_masks_in_image, {"masks": torch.rand(n, 14, 14), "boxes": boxes,
                                  "img_h": 56, "img_w": 64, "threshold": 0.5}
