"""detectron2's Boxes structure and its pairwise helpers: a TorchScript
class holding an (N, 4) tensor, clipped to the image (the attribute
reassigned), scaled in place through strided slices, filtered by
nonempty() and inside_box() masks through __getitem__, and matched by
pairwise_iou, pairwise_ioa and matched_pairwise_iou (issue 30's public
code).

Origin: facebookresearch/detectron2, detectron2/structures/boxes.py,
class Boxes (__init__, clone, area, clip, nonempty, __getitem__, __len__,
inside_box, get_centers, scale) and functions pairwise_intersection,
pairwise_iou, pairwise_ioa and matched_pairwise_iou, revision
30fc1a1d4247637c68c54717f446c422a8f8a75d.

Changes:
- __init__ takes a Tensor only: the `isinstance(tensor, torch.Tensor)`
  branch converting lists with torch.as_tensor is dropped (TorchScript
  types the argument), `tensor.to(torch.float32)` is kept;
- __getitem__ takes a Tensor index only (the int and slice overloads are
  not ported; TorchScript methods have one signature); `b = self.tensor[item]`
  and its dim() assert are as written;
- the assert messages built with `.format`/f-strings are kept; the
  `@torch.jit.unused` methods (__repr__, cat, device property, __iter__)
  are not ported;
- the entry point, boxes_pipeline, does what an RPN's proposal filtering
  does with them: clip to the image, scale, keep the nonempty boxes inside
  the image, and compares them with the ground truth.
"""
from typing import Tuple

import torch


class Boxes:
    def __init__(self, tensor: torch.Tensor):
        tensor = tensor.to(torch.float32)
        if tensor.numel() == 0:
            # Use reshape, so we don't end up creating a new tensor that does not depend on
            # the inputs (and consequently confuses jit)
            tensor = tensor.reshape((-1, 4)).to(dtype=torch.float32)
        assert tensor.dim() == 2 and tensor.size(-1) == 4, tensor.size()

        self.tensor = tensor

    def clone(self) -> "Boxes":
        return Boxes(self.tensor.clone())

    def area(self) -> torch.Tensor:
        box = self.tensor
        area = (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])
        return area

    def clip(self, box_size: Tuple[int, int]) -> None:
        assert torch.isfinite(self.tensor).all(), "Box tensor contains infinite or NaN!"
        h, w = box_size
        x1 = self.tensor[:, 0].clamp(min=0, max=w)
        y1 = self.tensor[:, 1].clamp(min=0, max=h)
        x2 = self.tensor[:, 2].clamp(min=0, max=w)
        y2 = self.tensor[:, 3].clamp(min=0, max=h)
        self.tensor = torch.stack((x1, y1, x2, y2), dim=-1)

    def nonempty(self, threshold: float = 0.0) -> torch.Tensor:
        box = self.tensor
        widths = box[:, 2] - box[:, 0]
        heights = box[:, 3] - box[:, 1]
        keep = (widths > threshold) & (heights > threshold)
        return keep

    def __getitem__(self, item: torch.Tensor) -> "Boxes":
        b = self.tensor[item]
        assert b.dim() == 2, "Indexing on Boxes with {} failed to return a matrix!".format(item)
        return Boxes(b)

    def __len__(self) -> int:
        return self.tensor.shape[0]

    def inside_box(self, box_size: Tuple[int, int], boundary_threshold: int = 0) -> torch.Tensor:
        height, width = box_size
        inds_inside = (
            (self.tensor[..., 0] >= -boundary_threshold)
            & (self.tensor[..., 1] >= -boundary_threshold)
            & (self.tensor[..., 2] < width + boundary_threshold)
            & (self.tensor[..., 3] < height + boundary_threshold)
        )
        return inds_inside

    def get_centers(self) -> torch.Tensor:
        return (self.tensor[:, :2] + self.tensor[:, 2:]) / 2

    def scale(self, scale_x: float, scale_y: float) -> None:
        self.tensor[:, 0::2] *= scale_x
        self.tensor[:, 1::2] *= scale_y


def pairwise_intersection(boxes1: Boxes, boxes2: Boxes) -> torch.Tensor:
    boxes1, boxes2 = boxes1.tensor, boxes2.tensor
    width_height = torch.min(boxes1[:, None, 2:], boxes2[:, 2:]) - torch.max(
        boxes1[:, None, :2], boxes2[:, :2]
    )  # [N,M,2]

    width_height.clamp_(min=0)  # [N,M,2]
    intersection = width_height.prod(dim=2)  # [N,M]
    return intersection


def pairwise_iou(boxes1: Boxes, boxes2: Boxes) -> torch.Tensor:
    area1 = boxes1.area()  # [N]
    area2 = boxes2.area()  # [M]
    inter = pairwise_intersection(boxes1, boxes2)

    # handle empty boxes
    iou = torch.where(
        inter > 0,
        inter / (area1[:, None] + area2 - inter),
        torch.zeros(1, dtype=inter.dtype, device=inter.device),
    )
    return iou


def pairwise_ioa(boxes1: Boxes, boxes2: Boxes) -> torch.Tensor:
    area2 = boxes2.area()  # [M]
    inter = pairwise_intersection(boxes1, boxes2)

    # handle empty boxes
    ioa = torch.where(
        inter > 0, inter / area2, torch.zeros(1, dtype=inter.dtype, device=inter.device)
    )
    return ioa


def matched_pairwise_iou(boxes1: Boxes, boxes2: Boxes) -> torch.Tensor:
    assert len(boxes1) == len(
        boxes2
    ), "boxlists should have the same" "number of entries, got {}, {}".format(
        len(boxes1), len(boxes2)
    )
    area1 = boxes1.area()  # [N]
    area2 = boxes2.area()  # [N]
    box1, box2 = boxes1.tensor, boxes2.tensor
    lt = torch.max(box1[:, :2], box2[:, :2])  # [N,2]
    rb = torch.min(box1[:, 2:], box2[:, 2:])  # [N,2]
    wh = (rb - lt).clamp(min=0)  # [N,2]
    inter = wh[:, 0] * wh[:, 1]  # [N]
    iou = inter / (area1 + area2 - inter)  # [N]
    return iou


def boxes_pipeline(proposals: torch.Tensor, gt: torch.Tensor, height: int, width: int,
                   scale: float):
    boxes = Boxes(proposals)
    boxes.clip((height, width))
    boxes.scale(scale, scale)
    keep = boxes.nonempty(threshold=1.0) & boxes.inside_box((int(height * scale), int(width * scale)))
    kept = boxes[keep]
    gt_boxes = Boxes(gt)
    first = Boxes(kept.tensor[:len(gt_boxes)].clone())
    return (kept.tensor, kept.get_centers(), pairwise_iou(kept, gt_boxes),
            pairwise_ioa(kept, gt_boxes), matched_pairwise_iou(first, gt_boxes[torch.arange(len(first))]))


def example():
    xy = torch.rand(300, 2) * 140 - 10
    proposals = torch.cat([xy, xy + torch.rand(300, 2) * 40], 1)
    proposals[:20, 2:] = proposals[:20, :2]  # empty boxes
    gxy = torch.rand(12, 2) * 100
    gt = torch.cat([gxy, gxy + torch.rand(12, 2) * 30 + 5], 1)
    return boxes_pipeline, {"proposals": proposals, "gt": gt, "height": 120, "width": 128,
                            "scale": 0.5}
