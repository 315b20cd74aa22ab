"""A detection head that holds torchvision's box coder and matcher as plain
class instances (TorchScript class objects, not modules), as
torchvision.models.detection.roi_heads.RoIHeads holds
`self.box_coder = BoxCoder(...)` and `self.proposal_matcher = Matcher(...)`:
the exporter writes the objects' attributes (box_coder.weights, a tuple of
floats; matcher.allow_low_quality_matches, a bool; ...) under dotted names
and the graph reads them through prim::GetAttr chains on
__torch__.BoxCoder / __torch__.Matcher values.

Origin: pytorch/vision, torchvision/models/detection/_utils.py, classes
BoxCoder (decode, decode_single) and Matcher (__call__,
set_low_quality_matches_), release v0.14.0 (the one paired with torch
1.13); box_iou from torchvision/ops/boxes.py (box_iou, _box_inter_union,
box_area) of the same release. Changes: the torch._assert calls on the
argument types of decode are left out (TorchScript checks the types); the
matcher's raise for an empty matrix is kept; BoxCoder is built with
torchvision's weights for RoIHeads (10, 10, 5, 5) and its default clip
log(1000 / 16), Matcher with RoIHeads' fg/bg thresholds 0.5 / 0.5 changed to
0.5 / 0.4 so that the between-thresholds branch is taken.
RoiBoxHead.forward is ours: it decodes the regression for every proposal of
a batch of two images and matches the proposals to the ground truth."""
import math
from typing import List, Tuple

import torch
from torch import Tensor


class BoxCoder:
    def __init__(self, weights: Tuple[float, float, float, float],
                 bbox_xform_clip: float = math.log(1000.0 / 16)) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode(self, rel_codes: Tensor, boxes: List[Tensor]) -> Tensor:
        boxes_per_image = [b.size(0) for b in boxes]
        concat_boxes = torch.cat(boxes, dim=0)
        box_sum = 0
        for val in boxes_per_image:
            box_sum += val
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(rel_codes.dtype)

        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights

        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = rel_codes[:, 2::4] / ww
        dh = rel_codes[:, 3::4] / wh

        # Prevent sending too large values into torch.exp()
        dw = torch.clamp(dw, max=self.bbox_xform_clip)
        dh = torch.clamp(dh, max=self.bbox_xform_clip)

        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]

        # Distance from center to box's corner.
        c_to_c_h = torch.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
        c_to_c_w = torch.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w

        pred_boxes1 = pred_ctr_x - c_to_c_w
        pred_boxes2 = pred_ctr_y - c_to_c_h
        pred_boxes3 = pred_ctr_x + c_to_c_w
        pred_boxes4 = pred_ctr_y + c_to_c_h
        pred_boxes = torch.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=2).flatten(1)
        return pred_boxes


class Matcher:
    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    __annotations__ = {
        "BELOW_LOW_THRESHOLD": int,
        "BETWEEN_THRESHOLDS": int,
    }

    def __init__(self, high_threshold: float, low_threshold: float,
                 allow_low_quality_matches: bool = False) -> None:
        self.BELOW_LOW_THRESHOLD = -1
        self.BETWEEN_THRESHOLDS = -2
        torch._assert(low_threshold <= high_threshold, "low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix: Tensor) -> Tensor:
        if match_quality_matrix.numel() == 0:
            # empty targets or proposals not supported during training
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during training")
            else:
                raise ValueError("No proposal boxes available for one of the images during training")

        # match_quality_matrix is M (gt) x N (predicted)
        # Max over gt elements (dim 0) to find best gt candidate for each prediction
        matched_vals, matches = match_quality_matrix.max(dim=0)
        if self.allow_low_quality_matches:
            all_matches = matches.clone()
        else:
            all_matches = None  # type: ignore[assignment]

        # Assign candidate matches with low quality to negative (unassigned) values
        below_low_threshold = matched_vals < self.low_threshold
        between_thresholds = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below_low_threshold] = self.BELOW_LOW_THRESHOLD
        matches[between_thresholds] = self.BETWEEN_THRESHOLDS

        if self.allow_low_quality_matches:
            if all_matches is None:
                torch._assert(False, "all_matches should not be None")
            else:
                self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)

        return matches

    def set_low_quality_matches_(self, matches: Tensor, all_matches: Tensor,
                                 match_quality_matrix: Tensor) -> None:
        # For each gt, find the prediction with which it has the highest quality
        highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
        # Find the highest quality match available, even if it is low, including ties
        gt_pred_pairs_of_highest_quality = torch.where(match_quality_matrix == highest_quality_foreach_gt[:, None])
        pred_inds_to_update = gt_pred_pairs_of_highest_quality[1]
        matches[pred_inds_to_update] = all_matches[pred_inds_to_update]


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
    return inter / union


class RoiBoxHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.box_coder = BoxCoder(weights=(10.0, 10.0, 5.0, 5.0), bbox_xform_clip=math.log(1000.0 / 16))
        self.proposal_matcher = Matcher(0.5, 0.4, allow_low_quality_matches=True)

    def forward(self, box_regression, proposals0, proposals1, gt_boxes):
        pred_boxes = self.box_coder.decode(box_regression, [proposals0, proposals1])
        proposals = torch.cat([proposals0, proposals1], dim=0)
        matched_idxs = self.proposal_matcher(box_iou(gt_boxes, proposals))
        return pred_boxes, matched_idxs


def random_boxes(n, size):
    xy = torch.rand(n, 2) * size
    wh = torch.rand(n, 2) * size / 2 + 1.0
    return torch.cat([xy, xy + wh], dim=1)


def example():
    gt = random_boxes(3, 32.0)
    # Proposals near the ground truth (some good matches, some poor ones).
    proposals0 = torch.cat([gt[:2] + torch.randn(2, 4), random_boxes(3, 32.0)])
    proposals1 = torch.cat([gt[2:] + 0.5 * torch.randn(1, 4), random_boxes(4, 32.0)])
    # Three classes, so 12 codes per proposal; one large dw code is clipped.
    box_regression = torch.randn(10, 12)
    box_regression[4, 2] = 80.0
    return RoiBoxHead(), {"box_regression": box_regression, "proposals0": proposals0,
                          "proposals1": proposals1, "gt_boxes": gt}
