"""YOLOX's SimOTA label assignment for one image: anchors whose centres
fall in a ground-truth box or within 2.5 strides of its centre, the
pairwise IoU and classification cost (BCE of sqrt(cls * obj)) of the
candidates, a dynamic k per ground truth (the sum of its top-10 IoUs), the
k cheapest anchors by topk per ground truth written into a uint8 matching
matrix, conflicts resolved by the cheapest ground truth, and the
foreground mask updated in place through itself (issue 30's public
code).

Origin: Megvii-BaseDetection/YOLOX, yolox/models/yolo_head.py,
YOLOXHead.get_assignments, get_in_boxes_info and dynamic_k_matching,
revision 02aecbacfd51583d49f3db821e8b34e2e897b586; yolox/utils/boxes.py,
bboxes_iou.

Changes:
- get_assignments: the `mode == "cpu"` branches (copies to and from the
  GPU, a print) and `with torch.cuda.amp.autocast(enabled=False):` are
  dropped (CPU, float32 throughout); `del` statements are dropped
  (TorchScript has no del); labels and imgs (unused) are not passed.
- dynamic_k_matching: `dynamic_ks = dynamic_ks.tolist()` rebinds a Tensor
  name to a list (one type per name in TorchScript): the list is
  dynamic_ks_list: List[int], read from dynamic_ks.long() (TorchScript's
  tolist() wants int64 elements for List[int]; dynamic_ks is int32); `num_fg = fg_mask_inboxes.sum().item()` is
  `int(...)`.
- bboxes_iou: `(tl < br).type(tl.type())` (a type string) is
  `(tl < br).to(tl.dtype)`.
- the three helpers are methods of a small module holding num_classes, as
  on YOLOXHead; forward runs get_assignments for one image (batch_idx 0).
"""
from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor


def bboxes_iou(bboxes_a, bboxes_b, xyxy: bool = True):
    if bboxes_a.shape[1] != 4 or bboxes_b.shape[1] != 4:
        raise IndexError

    if xyxy:
        tl = torch.max(bboxes_a[:, None, :2], bboxes_b[:, :2])
        br = torch.min(bboxes_a[:, None, 2:], bboxes_b[:, 2:])
        area_a = torch.prod(bboxes_a[:, 2:] - bboxes_a[:, :2], 1)
        area_b = torch.prod(bboxes_b[:, 2:] - bboxes_b[:, :2], 1)
    else:
        tl = torch.max(
            (bboxes_a[:, None, :2] - bboxes_a[:, None, 2:] / 2),
            (bboxes_b[:, :2] - bboxes_b[:, 2:] / 2),
        )
        br = torch.min(
            (bboxes_a[:, None, :2] + bboxes_a[:, None, 2:] / 2),
            (bboxes_b[:, :2] + bboxes_b[:, 2:] / 2),
        )

        area_a = torch.prod(bboxes_a[:, 2:], 1)
        area_b = torch.prod(bboxes_b[:, 2:], 1)
    en = (tl < br).to(tl.dtype).prod(dim=2)
    area_i = torch.prod(br - tl, 2) * en  # * ((tl < br).all())
    return area_i / (area_a[:, None] + area_b - area_i)


class SimOTA(torch.nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.num_classes = num_classes

    def get_in_boxes_info(
        self,
        gt_bboxes_per_image,
        expanded_strides,
        x_shifts,
        y_shifts,
        total_num_anchors: int,
        num_gt: int,
    ):
        expanded_strides_per_image = expanded_strides[0]
        x_shifts_per_image = x_shifts[0] * expanded_strides_per_image
        y_shifts_per_image = y_shifts[0] * expanded_strides_per_image
        x_centers_per_image = (
            (x_shifts_per_image + 0.5 * expanded_strides_per_image)
            .unsqueeze(0)
            .repeat(num_gt, 1)
        )  # [n_anchor] -> [n_gt, n_anchor]
        y_centers_per_image = (
            (y_shifts_per_image + 0.5 * expanded_strides_per_image)
            .unsqueeze(0)
            .repeat(num_gt, 1)
        )

        gt_bboxes_per_image_l = (
            (gt_bboxes_per_image[:, 0] - 0.5 * gt_bboxes_per_image[:, 2])
            .unsqueeze(1)
            .repeat(1, total_num_anchors)
        )
        gt_bboxes_per_image_r = (
            (gt_bboxes_per_image[:, 0] + 0.5 * gt_bboxes_per_image[:, 2])
            .unsqueeze(1)
            .repeat(1, total_num_anchors)
        )
        gt_bboxes_per_image_t = (
            (gt_bboxes_per_image[:, 1] - 0.5 * gt_bboxes_per_image[:, 3])
            .unsqueeze(1)
            .repeat(1, total_num_anchors)
        )
        gt_bboxes_per_image_b = (
            (gt_bboxes_per_image[:, 1] + 0.5 * gt_bboxes_per_image[:, 3])
            .unsqueeze(1)
            .repeat(1, total_num_anchors)
        )

        b_l = x_centers_per_image - gt_bboxes_per_image_l
        b_r = gt_bboxes_per_image_r - x_centers_per_image
        b_t = y_centers_per_image - gt_bboxes_per_image_t
        b_b = gt_bboxes_per_image_b - y_centers_per_image
        bbox_deltas = torch.stack([b_l, b_t, b_r, b_b], 2)

        is_in_boxes = bbox_deltas.min(dim=-1).values > 0.0
        is_in_boxes_all = is_in_boxes.sum(dim=0) > 0
        # in fixed center

        center_radius = 2.5

        gt_bboxes_per_image_l = (gt_bboxes_per_image[:, 0]).unsqueeze(1).repeat(
            1, total_num_anchors
        ) - center_radius * expanded_strides_per_image.unsqueeze(0)
        gt_bboxes_per_image_r = (gt_bboxes_per_image[:, 0]).unsqueeze(1).repeat(
            1, total_num_anchors
        ) + center_radius * expanded_strides_per_image.unsqueeze(0)
        gt_bboxes_per_image_t = (gt_bboxes_per_image[:, 1]).unsqueeze(1).repeat(
            1, total_num_anchors
        ) - center_radius * expanded_strides_per_image.unsqueeze(0)
        gt_bboxes_per_image_b = (gt_bboxes_per_image[:, 1]).unsqueeze(1).repeat(
            1, total_num_anchors
        ) + center_radius * expanded_strides_per_image.unsqueeze(0)

        c_l = x_centers_per_image - gt_bboxes_per_image_l
        c_r = gt_bboxes_per_image_r - x_centers_per_image
        c_t = y_centers_per_image - gt_bboxes_per_image_t
        c_b = gt_bboxes_per_image_b - y_centers_per_image
        center_deltas = torch.stack([c_l, c_t, c_r, c_b], 2)
        is_in_centers = center_deltas.min(dim=-1).values > 0.0
        is_in_centers_all = is_in_centers.sum(dim=0) > 0

        # in boxes and in centers
        is_in_boxes_anchor = is_in_boxes_all | is_in_centers_all

        is_in_boxes_and_center = (
            is_in_boxes[:, is_in_boxes_anchor] & is_in_centers[:, is_in_boxes_anchor]
        )
        return is_in_boxes_anchor, is_in_boxes_and_center

    def dynamic_k_matching(self, cost, pair_wise_ious, gt_classes, num_gt: int, fg_mask):
        # Dynamic K
        # ---------------------------------------------------------------
        matching_matrix = torch.zeros_like(cost, dtype=torch.uint8)

        ious_in_boxes_matrix = pair_wise_ious
        n_candidate_k = min(10, ious_in_boxes_matrix.size(1))
        topk_ious, _ = torch.topk(ious_in_boxes_matrix, n_candidate_k, dim=1)
        dynamic_ks = torch.clamp(topk_ious.sum(1).int(), min=1)
        dynamic_ks_list: List[int] = dynamic_ks.long().tolist()
        for gt_idx in range(num_gt):
            _, pos_idx = torch.topk(
                cost[gt_idx], k=dynamic_ks_list[gt_idx], largest=False
            )
            matching_matrix[gt_idx][pos_idx] = 1

        anchor_matching_gt = matching_matrix.sum(0)
        if anchor_matching_gt.max() > 1:
            _, cost_argmin = torch.min(cost[:, anchor_matching_gt > 1], dim=0)
            matching_matrix[:, anchor_matching_gt > 1] *= 0
            matching_matrix[cost_argmin, anchor_matching_gt > 1] = 1
        fg_mask_inboxes = matching_matrix.sum(0) > 0
        num_fg = int(fg_mask_inboxes.sum())

        fg_mask[fg_mask.clone()] = fg_mask_inboxes

        matched_gt_inds = matching_matrix[:, fg_mask_inboxes].argmax(0)
        gt_matched_classes = gt_classes[matched_gt_inds]

        pred_ious_this_matching = (matching_matrix * pair_wise_ious).sum(0)[
            fg_mask_inboxes
        ]
        return num_fg, gt_matched_classes, pred_ious_this_matching, matched_gt_inds

    def forward(self, gt_bboxes_per_image, gt_classes, bboxes_preds_per_image,
                expanded_strides, x_shifts, y_shifts, cls_preds, obj_preds
                ) -> Tuple[Tensor, Tensor, Tensor, Tensor, int]:
        batch_idx = 0
        num_gt = gt_bboxes_per_image.shape[0]
        total_num_anchors = bboxes_preds_per_image.shape[0]
        fg_mask, is_in_boxes_and_center = self.get_in_boxes_info(
            gt_bboxes_per_image,
            expanded_strides,
            x_shifts,
            y_shifts,
            total_num_anchors,
            num_gt,
        )

        bboxes_preds_per_image = bboxes_preds_per_image[fg_mask]
        cls_preds_ = cls_preds[batch_idx][fg_mask]
        obj_preds_ = obj_preds[batch_idx][fg_mask]
        num_in_boxes_anchor = bboxes_preds_per_image.shape[0]

        pair_wise_ious = bboxes_iou(gt_bboxes_per_image, bboxes_preds_per_image, False)

        gt_cls_per_image = (
            F.one_hot(gt_classes.to(torch.int64), self.num_classes)
            .float()
            .unsqueeze(1)
            .repeat(1, num_in_boxes_anchor, 1)
        )
        pair_wise_ious_loss = -torch.log(pair_wise_ious + 1e-8)

        cls_preds_ = (
            cls_preds_.float().unsqueeze(0).repeat(num_gt, 1, 1).sigmoid_()
            * obj_preds_.float().unsqueeze(0).repeat(num_gt, 1, 1).sigmoid_()
        )
        pair_wise_cls_loss = F.binary_cross_entropy(
            cls_preds_.sqrt_(), gt_cls_per_image, reduction="none"
        ).sum(-1)

        cost = (
            pair_wise_cls_loss
            + 3.0 * pair_wise_ious_loss
            + 100000.0 * (~is_in_boxes_and_center)
        )

        (
            num_fg,
            gt_matched_classes,
            pred_ious_this_matching,
            matched_gt_inds,
        ) = self.dynamic_k_matching(cost, pair_wise_ious, gt_classes, num_gt, fg_mask)

        return (
            gt_matched_classes,
            fg_mask,
            pred_ious_this_matching,
            matched_gt_inds,
            num_fg,
        )


def example():
    torch.manual_seed(0)
    strides, sizes = [8, 16, 32], [32, 16, 8]
    xs, ys, ss = [], [], []
    for s, n in zip(strides, sizes):
        yv, xv = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
        xs.append(xv.reshape(-1).float())
        ys.append(yv.reshape(-1).float())
        ss.append(torch.full((n * n,), float(s)))
    x_shifts, y_shifts, expanded_strides = torch.cat(xs)[None], torch.cat(ys)[None], torch.cat(ss)[None]
    A = x_shifts.shape[1]
    num_gt, num_classes = 6, 5
    centres = torch.rand(num_gt, 2) * 200 + 28
    wh = torch.rand(num_gt, 2) * 80 + 16
    gt = torch.cat([centres, wh], 1)
    # predictions near the anchors' own cells
    pc = torch.stack([(x_shifts[0] + 0.5) * expanded_strides[0], (y_shifts[0] + 0.5) * expanded_strides[0]], 1)
    preds = torch.cat([pc + torch.randn(A, 2) * 4, torch.rand(A, 2) * 60 + 10], 1)
    return SimOTA(num_classes), {
        "gt_bboxes_per_image": gt, "gt_classes": torch.randint(0, num_classes, (num_gt,)).float(),
        "bboxes_preds_per_image": preds, "expanded_strides": expanded_strides,
        "x_shifts": x_shifts, "y_shifts": y_shifts,
        "cls_preds": torch.randn(1, A, num_classes), "obj_preds": torch.randn(1, A, 1)}
