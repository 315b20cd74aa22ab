"""torchvision.ops.boxes as written there: _upcast, box_area,
_box_inter_union, box_iou, generalized_box_iou and box_convert's
cxcywh -> xyxy (issue 11's public programs)."""
import torch
from torch import Tensor


def _upcast(t: Tensor) -> Tensor:
    # Protects from numerical overflows in multiplications by upcasting to the equivalent higher type
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    else:
        return t if t.dtype in (torch.int32, torch.int64) else t.int()


def box_area(boxes: Tensor) -> Tensor:
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _box_inter_union(boxes1: Tensor, boxes2: Tensor):
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)

    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])  # [N,M,2]
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])  # [N,M,2]

    wh = _upcast(rb - lt).clamp(min=0)  # [N,M,2]
    inter = wh[:, :, 0] * wh[:, :, 1]  # [N,M]

    union = area1[:, None] + area2 - inter

    return inter, union


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union
    return iou


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union

    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])

    whi = _upcast(rbi - lti).clamp(min=0)  # [N,M,2]
    areai = whi[:, :, 0] * whi[:, :, 1]

    return iou - (areai - union) / areai


def _box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h

    boxes = torch.stack((x1, y1, x2, y2), dim=-1)
    return boxes


def box_ops(anchors: Tensor, proposals_cxcywh: Tensor, int_boxes: Tensor):
    proposals = _box_cxcywh_to_xyxy(proposals_cxcywh)
    return box_iou(anchors, proposals), generalized_box_iou(anchors, proposals), box_area(int_boxes)


def example():
    xy = torch.rand(5, 2) * 10
    anchors = torch.cat([xy, xy + torch.rand(5, 2) * 5 + 0.5], dim=1)
    proposals = torch.cat([torch.rand(4, 2) * 10, torch.rand(4, 2) * 4 + 1], dim=1)
    ixy = torch.randint(0, 10, (3, 2))
    int_boxes = torch.cat([ixy, ixy + torch.randint(1, 5, (3, 2))], dim=1)
    return box_ops, {"anchors": anchors, "proposals_cxcywh": proposals, "int_boxes": int_boxes}
