"""torchvision's RetinaNet inference post-processing (pytorch/vision,
torchvision/models/detection/retinanet.py: RetinaNet.forward's split of the
head outputs per level and RetinaNet.postprocess_detections, revision
01fdb48883a534c746b1c60683a6eb4d70e72db6; BoxCoder.decode_single from
torchvision/models/detection/_utils.py, revision
02845439f0593cfbc7044d89b8d0088b1a448abe; clip_boxes_to_image and
_batched_nms_coordinate_trick from torchvision/ops/boxes.py, revision
2f3a43fbca2070ca6f0a863e7e92fcd750eb0c1a) (issue 30's public code).

Per image and per level: sigmoid scores over anchors x classes, those above
score_thresh kept (a boolean index: data-dependent sizes), the best
topk_candidates of them, anchor and class recovered from the flat index,
the boxes decoded against their anchors and clipped to the image; then the
levels concatenated, a class-aware NMS, and detections_per_img kept.

Changes:
- postprocess_detections is a function taking score_thresh, nms_thresh,
  detections_per_img and topk_candidates as arguments instead of reading
  them from `self` (the module around it is a backbone and heads we do not
  port), and BoxCoder.decode_single is a function taking the coder's
  weights and bbox_xform_clip (RetinaNet holds a BoxCoder instance, a plain
  Python class object that the exporter cannot write yet; the arithmetic is
  unchanged);
- head_outputs is Dict[str, List[Tensor]] as in torchvision, built by the
  entry point `retinanet_postprocess` from two [N, HWA, C] / [N, HWA, 4]
  tensors with forward's own split code (the command line binds tensors
  and ints, not dicts and lists); anchors are one [HWA, 4] tensor for every
  image, as the AnchorGenerator makes them, image_shapes one (h, w);
- the result is a list of (boxes, scores, labels) tuples instead of dicts
  with string keys (tssa-stream writes tensors, not dict keys);
- torchvision.ops.nms (a C++ kernel) is the plain-PyTorch reference NMS
  that torchvision's tests check that kernel against, as tv_nms.py has it;
  batched_nms is its _batched_nms_coordinate_trick branch (the one it takes
  for fewer than 4000 CPU boxes).
"""
import math
from typing import Dict, List, Tuple

import torch
from torch import Tensor


def decode_single(rel_codes: Tensor, boxes: Tensor, weights: Tuple[float, float, float, float],
                  bbox_xform_clip: float) -> Tensor:
    boxes = boxes.to(rel_codes.dtype)

    widths = boxes[:, 2] - boxes[:, 0]
    heights = boxes[:, 3] - boxes[:, 1]
    ctr_x = boxes[:, 0] + 0.5 * widths
    ctr_y = boxes[:, 1] + 0.5 * heights

    wx, wy, ww, wh = weights
    dx = rel_codes[:, 0::4] / wx
    dy = rel_codes[:, 1::4] / wy
    dw = rel_codes[:, 2::4] / ww
    dh = rel_codes[:, 3::4] / wh

    # Prevent sending too large values into torch.exp()
    dw = torch.clamp(dw, max=bbox_xform_clip)
    dh = torch.clamp(dh, max=bbox_xform_clip)

    pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
    pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
    pred_w = torch.exp(dw) * widths[:, None]
    pred_h = torch.exp(dh) * heights[:, None]

    pred_boxes1 = pred_ctr_x - torch.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w
    pred_boxes2 = pred_ctr_y - torch.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
    pred_boxes3 = pred_ctr_x + torch.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w
    pred_boxes4 = pred_ctr_y + torch.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
    pred_boxes = torch.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=2).flatten(1)
    return pred_boxes


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size

    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)

    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


def box_area(boxes: Tensor) -> Tensor:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area1[:, None] + area2 - inter)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    order = scores.argsort(descending=True)
    keep: List[Tensor] = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= iou_threshold]
    return torch.stack(keep)


def batched_nms(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    # _batched_nms_coordinate_trick
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    keep = nms(boxes_for_nms, scores, iou_threshold)
    return keep


def postprocess_detections(head_outputs: Dict[str, List[Tensor]], anchors: List[List[Tensor]],
                           image_shapes: List[Tuple[int, int]], score_thresh: float,
                           nms_thresh: float, detections_per_img: int,
                           topk_candidates: int) -> List[Tuple[Tensor, Tensor, Tensor]]:
    class_logits = head_outputs["cls_logits"]
    box_regression = head_outputs["bbox_regression"]

    num_images = len(image_shapes)

    detections: List[Tuple[Tensor, Tensor, Tensor]] = []

    for index in range(num_images):
        box_regression_per_image = [br[index] for br in box_regression]
        logits_per_image = [cl[index] for cl in class_logits]
        anchors_per_image, image_shape = anchors[index], image_shapes[index]

        image_boxes = []
        image_scores = []
        image_labels = []

        for box_regression_per_level, logits_per_level, anchors_per_level in zip(
            box_regression_per_image, logits_per_image, anchors_per_image
        ):
            num_classes = logits_per_level.shape[-1]

            # remove low scoring boxes
            scores_per_level = torch.sigmoid(logits_per_level).flatten()
            keep_idxs = scores_per_level > score_thresh
            scores_per_level = scores_per_level[keep_idxs]
            topk_idxs = torch.where(keep_idxs)[0]

            # keep only topk scoring predictions
            num_topk = min(topk_candidates, topk_idxs.size(0))
            scores_per_level, idxs = scores_per_level.topk(num_topk)
            topk_idxs = topk_idxs[idxs]

            anchor_idxs = torch.div(topk_idxs, num_classes, rounding_mode="floor")
            labels_per_level = topk_idxs % num_classes

            boxes_per_level = decode_single(
                box_regression_per_level[anchor_idxs], anchors_per_level[anchor_idxs],
                (1.0, 1.0, 1.0, 1.0), math.log(1000. / 16)
            )
            boxes_per_level = clip_boxes_to_image(boxes_per_level, image_shape)

            image_boxes.append(boxes_per_level)
            image_scores.append(scores_per_level)
            image_labels.append(labels_per_level)

        image_boxes_concated = torch.cat(image_boxes, dim=0)
        image_scores_concated = torch.cat(image_scores, dim=0)
        image_labels_concated = torch.cat(image_labels, dim=0)

        # non-maximum suppression
        keep = batched_nms(
            image_boxes_concated, image_scores_concated, image_labels_concated, nms_thresh
        )
        keep = keep[: detections_per_img]

        detections.append((image_boxes_concated[keep], image_scores_concated[keep],
                           image_labels_concated[keep]))

    return detections


def retinanet_postprocess(cls_logits: Tensor, bbox_regression: Tensor, anchors: Tensor,
                          level0_hw: int, level1_hw: int, img_h: int, img_w: int,
                          score_thresh: float, nms_thresh: float, detections_per_img: int,
                          topk_candidates: int) -> List[Tuple[Tensor, Tensor, Tensor]]:
    # RetinaNet.forward's recovery of the level sizes and split of the outputs.
    num_anchors_per_level = [level0_hw, level1_hw]
    HW = 0
    for v in num_anchors_per_level:
        HW += v
    HWA = cls_logits.size(1)
    A = HWA // HW
    num_anchors_per_level = [hw * A for hw in num_anchors_per_level]

    head_outputs = {"cls_logits": cls_logits, "bbox_regression": bbox_regression}
    split_head_outputs: Dict[str, List[Tensor]] = {}
    for k in head_outputs:
        split_head_outputs[k] = list(head_outputs[k].split(num_anchors_per_level, dim=1))
    image_anchors = [anchors for _ in range(cls_logits.size(0))]
    split_anchors = [list(a.split(num_anchors_per_level)) for a in image_anchors]
    image_sizes = [(img_h, img_w) for _ in range(cls_logits.size(0))]

    return postprocess_detections(split_head_outputs, split_anchors, image_sizes, score_thresh,
                                  nms_thresh, detections_per_img, topk_candidates)


def _grid_anchors(h: int, w: int, stride: int, sizes):
    # Anchors as torchvision's AnchorGenerator lays them out (3 aspect ratios
    # x len(sizes) scales per location), for the example's inputs only.
    scales = torch.tensor(sizes, dtype=torch.float32)
    ratios = torch.tensor([0.5, 1.0, 2.0])
    h_ratios = torch.sqrt(ratios)
    w_ratios = 1 / h_ratios
    ws = (w_ratios[:, None] * scales[None, :]).view(-1)
    hs = (h_ratios[:, None] * scales[None, :]).view(-1)
    base = (torch.stack([-ws, -hs, ws, hs], dim=1) / 2).round()
    sy, sx = torch.meshgrid(torch.arange(h) * float(stride), torch.arange(w) * float(stride),
                            indexing="ij")
    shifts = torch.stack((sx.reshape(-1), sy.reshape(-1), sx.reshape(-1), sy.reshape(-1)), dim=1)
    return (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)


def example():
    n, classes = 2, 6
    a0 = _grid_anchors(8, 8, 8, [32, 40])
    a1 = _grid_anchors(4, 4, 16, [64, 80])
    anchors = torch.cat([a0, a1])
    hwa = anchors.size(0)
    return retinanet_postprocess, {
        "cls_logits": torch.randn(n, hwa, classes) * 2 - 2,
        "bbox_regression": torch.randn(n, hwa, 4) * 0.3, "anchors": anchors,
        "level0_hw": 64, "level1_hw": 16, "img_h": 64, "img_w": 64,
        "score_thresh": 0.05, "nms_thresh": 0.5, "detections_per_img": 30,
        "topk_candidates": 100}
