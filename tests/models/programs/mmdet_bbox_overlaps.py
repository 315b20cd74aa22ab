"""MMDetection's bbox_overlaps: IoU, IoF or GIoU between two sets of boxes
with any batch dimensions, pairwise or aligned, the union floored at eps
(issue 30's public code).

Origin: open-mmlab/mmdetection, mmdet/structures/bbox/bbox_overlaps.py,
functions fp16_clamp and bbox_overlaps, revision
e20463baae34f3a72b4eb28292c7ada62ca021bf.

Changes, each needed for TorchScript:
- fp16_clamp's `min=None, max=None` are Optional[float] and its
  float16-on-CPU branch is kept;
- the empty-input early return `bboxes1.new(batch_shape + (rows, ))` is
  `bboxes1.new_empty(batch_shape + [rows])` (TorchScript has no
  Tensor.new(sizes); batch_shape is a List[int] there);
- `enclosed_lt`/`enclosed_rb` are first set to `ious`-independent empty
  tensors before the branches (TorchScript rejects a name set only under
  `if mode == 'giou'` and read after it);
- `eps = union.new_tensor([eps])` -> `eps_t = torch.tensor([eps],
  dtype=union.dtype, device=union.device)` (no Tensor.new_tensor; a name
  cannot change from float to Tensor);
- the docstring's asserts are kept; `assert mode in [...], f'...'` as
  written;
- the entry point, overlaps_all_modes, calls it in the three modes,
  pairwise over a batch and aligned.
"""
from typing import List, Optional, Tuple

import torch
from torch import Tensor


def fp16_clamp(x: Tensor, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
    if not x.is_cuda and x.dtype == torch.float16:
        # clamp for cpu float16, tensor fp16 has no clamp implementation
        return x.float().clamp(min, max).half()

    return x.clamp(min, max)


def bbox_overlaps(bboxes1: Tensor, bboxes2: Tensor, mode: str = 'iou',
                  is_aligned: bool = False, eps: float = 1e-6) -> Tensor:
    assert mode in ['iou', 'iof', 'giou'], f'Unsupported mode {mode}'
    # Either the boxes are empty or the length of boxes' last dimension is 4
    assert (bboxes1.size(-1) == 4 or bboxes1.size(0) == 0)
    assert (bboxes2.size(-1) == 4 or bboxes2.size(0) == 0)

    # Batch dim must be the same
    # Batch dim: (B1, B2, ... Bn)
    assert bboxes1.shape[:-2] == bboxes2.shape[:-2]
    batch_shape = bboxes1.shape[:-2]

    rows = bboxes1.size(-2)
    cols = bboxes2.size(-2)
    if is_aligned:
        assert rows == cols

    if rows * cols == 0:
        if is_aligned:
            return bboxes1.new_empty(batch_shape + [rows])
        else:
            return bboxes1.new_empty(batch_shape + [rows, cols])

    area1 = (bboxes1[..., 2] - bboxes1[..., 0]) * (
        bboxes1[..., 3] - bboxes1[..., 1])
    area2 = (bboxes2[..., 2] - bboxes2[..., 0]) * (
        bboxes2[..., 3] - bboxes2[..., 1])

    enclosed_lt = torch.empty(0)
    enclosed_rb = torch.empty(0)
    if is_aligned:
        lt = torch.max(bboxes1[..., :2], bboxes2[..., :2])  # [B, rows, 2]
        rb = torch.min(bboxes1[..., 2:], bboxes2[..., 2:])  # [B, rows, 2]

        wh = fp16_clamp(rb - lt, min=0.)
        overlap = wh[..., 0] * wh[..., 1]

        if mode in ['iou', 'giou']:
            union = area1 + area2 - overlap
        else:
            union = area1
        if mode == 'giou':
            enclosed_lt = torch.min(bboxes1[..., :2], bboxes2[..., :2])
            enclosed_rb = torch.max(bboxes1[..., 2:], bboxes2[..., 2:])
    else:
        lt = torch.max(bboxes1[..., :, None, :2],
                       bboxes2[..., None, :, :2])  # [B, rows, cols, 2]
        rb = torch.min(bboxes1[..., :, None, 2:],
                       bboxes2[..., None, :, 2:])  # [B, rows, cols, 2]

        wh = fp16_clamp(rb - lt, min=0.)
        overlap = wh[..., 0] * wh[..., 1]

        if mode in ['iou', 'giou']:
            union = area1[..., None] + area2[..., None, :] - overlap
        else:
            union = area1[..., None]
        if mode == 'giou':
            enclosed_lt = torch.min(bboxes1[..., :, None, :2],
                                    bboxes2[..., None, :, :2])
            enclosed_rb = torch.max(bboxes1[..., :, None, 2:],
                                    bboxes2[..., None, :, 2:])

    eps_t = torch.tensor([eps], dtype=union.dtype, device=union.device)
    union = torch.max(union, eps_t)
    ious = overlap / union
    if mode in ['iou', 'iof']:
        return ious
    # calculate gious
    enclose_wh = fp16_clamp(enclosed_rb - enclosed_lt, min=0.)
    enclose_area = enclose_wh[..., 0] * enclose_wh[..., 1]
    enclose_area = torch.max(enclose_area, eps_t)
    gious = ious - (enclose_area - union) / enclose_area
    return gious


def overlaps_all_modes(boxes1: Tensor, boxes2: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    return (bbox_overlaps(boxes1, boxes2, 'iou'),
            bbox_overlaps(boxes1, boxes2, 'iof'),
            bbox_overlaps(boxes1, boxes2, 'giou'),
            bbox_overlaps(boxes1[:, :30], boxes2[:, :30], 'giou', is_aligned=True))


def example():
    def boxes(b, n):
        xy = torch.rand(b, n, 2) * 100
        return torch.cat([xy, xy + torch.rand(b, n, 2) * 40 + 1], -1)
    return overlaps_all_modes, {"boxes1": boxes(2, 40), "boxes2": boxes(2, 50)}
