"""torchvision's proposal Matcher with low-quality matches (pytorch/vision,
torchvision/models/detection/_utils.py: Matcher.__call__ and
Matcher.set_low_quality_matches_, revision
02845439f0593cfbc7044d89b8d0088b1a448abe), fed with box_iou of ground-truth
boxes against anchors as RetinaNet.compute_loss does (issue 30's public
code).

The best ground truth per anchor (max over dim 0), anchors below
low_threshold marked -1 and between the thresholds -2 by boolean-mask
writes, then every ground truth's best anchors (ties included, found with
torch.where on an equality mask: a data-dependent count) get their match
back.

Changes:
- Matcher is a plain Python class (an object the exporter cannot write
  yet): its __call__ and set_low_quality_matches_ are functions taking
  high_threshold, low_threshold and allow_low_quality_matches as arguments,
  and BELOW_LOW_THRESHOLD / BETWEEN_THRESHOLDS are the constants -1 / -2;
- `matches[below_low_threshold] = self.BELOW_LOW_THRESHOLD` etc. as
  written; `all_matches: Optional[Tensor]` is annotated for TorchScript;
- box_iou is torchvision.ops.boxes.box_iou as tv_box_ops.py has it.
"""
from typing import Optional

import torch
from torch import Tensor


def box_area(boxes: Tensor) -> Tensor:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])  # [N,M,2]
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])  # [N,M,2]
    wh = (rb - lt).clamp(min=0)  # [N,M,2]
    inter = wh[:, :, 0] * wh[:, :, 1]  # [N,M]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    return iou


def set_low_quality_matches_(matches: Tensor, all_matches: Tensor, match_quality_matrix: Tensor):
    # For each gt, find the prediction with which it has highest quality
    highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
    # Find highest quality match available, even if it is low, including ties
    gt_pred_pairs_of_highest_quality = torch.stack(
        torch.where((match_quality_matrix == highest_quality_foreach_gt[:, None]) > 0
                    ), dim=1).squeeze(1)
    pred_inds_to_update = gt_pred_pairs_of_highest_quality[:, 1]
    matches[pred_inds_to_update] = all_matches[pred_inds_to_update]


def match(match_quality_matrix: Tensor, high_threshold: float, low_threshold: float,
          allow_low_quality_matches: bool) -> Tensor:
    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2
    if match_quality_matrix.numel() == 0:
        # empty targets or proposals not supported during training
        if match_quality_matrix.shape[0] == 0:
            raise ValueError(
                "No ground-truth boxes available for one of the images "
                "during training")
        else:
            raise ValueError(
                "No proposal boxes available for one of the images "
                "during training")

    # match_quality_matrix is M (gt) x N (predicted)
    # Max over gt elements (dim 0) to find best gt candidate for each prediction
    matched_vals, matches = match_quality_matrix.max(dim=0)
    all_matches: Optional[Tensor] = None
    if allow_low_quality_matches:
        all_matches = matches.clone()

    # Assign candidate matches with low quality to negative (unassigned) values
    below_low_threshold = matched_vals < low_threshold
    between_thresholds = (matched_vals >= low_threshold) & (
        matched_vals < high_threshold
    )
    matches[below_low_threshold] = BELOW_LOW_THRESHOLD
    matches[between_thresholds] = BETWEEN_THRESHOLDS

    if allow_low_quality_matches:
        assert all_matches is not None
        set_low_quality_matches_(matches, all_matches, match_quality_matrix)

    return matches


def match_anchors(gt_boxes: Tensor, anchors: Tensor, fg_iou_thresh: float,
                  bg_iou_thresh: float) -> Tensor:
    match_quality_matrix = box_iou(gt_boxes, anchors)
    return match(match_quality_matrix, fg_iou_thresh, bg_iou_thresh, True)


def example():
    sy, sx = torch.meshgrid(torch.arange(12) * 8.0, torch.arange(12) * 8.0, indexing="ij")
    ctr = torch.stack([sx.reshape(-1), sy.reshape(-1)], 1) + 4
    anchors = torch.cat([torch.cat([ctr - s / 2, ctr + s / 2], 1) for s in (12.0, 24.0)])
    xy = torch.rand(7, 2) * 70
    gt = torch.cat([xy, xy + torch.rand(7, 2) * 30 + 6], 1)
    gt[6] = torch.tensor([41.0, 41.0, 44.0, 44.0])   # small: only low-quality matches
    return match_anchors, {"gt_boxes": gt, "anchors": anchors, "fg_iou_thresh": 0.5,
                           "bg_iou_thresh": 0.4}
