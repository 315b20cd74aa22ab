"""Detectron2's rotated box coder (facebookresearch/detectron2,
detectron2/modeling/box_regression.py: Box2BoxTransformRotated.get_deltas
and Box2BoxTransformRotated.apply_deltas, revision
910b796dd766bf466ed814ddc2d82ff06107df71) (issue 30's public code).

Boxes are (x_ctr, y_ctr, w, h, angle in degrees). get_deltas encodes targets
against sources (log size ratios, the angle difference wrapped into
[-180, 180) with Python's float `%` and scaled to radians in place);
apply_deltas decodes k class-specific deltas per box into a zeros_like
result through five strided column writes, the angle wrapped again.

Changes:
- Box2BoxTransformRotated is a plain Python class whose methods read only
  its weights and scale_clamp: get_deltas and apply_deltas are functions
  taking them (weights a 5-tuple, scale_clamp defaulting to
  _DEFAULT_SCALE_CLAMP = log(1000 / 16) as the module defines it);
- the asserts are kept; `isinstance(src_boxes, torch.Tensor)` checks on
  Tensor-typed parameters are always true in TorchScript and are kept as
  written;
- the entry point `rotated_box_coder` encodes proposals against targets and
  decodes a head's deltas against the proposals, the two uses in the
  rotated R-CNN heads.
"""
import math
from typing import Tuple

import torch
from torch import Tensor


def get_deltas(src_boxes: Tensor, target_boxes: Tensor,
               weights: Tuple[float, float, float, float, float]) -> Tensor:
    assert isinstance(src_boxes, torch.Tensor), type(src_boxes)
    assert isinstance(target_boxes, torch.Tensor), type(target_boxes)

    src_ctr_x, src_ctr_y, src_widths, src_heights, src_angles = torch.unbind(src_boxes, dim=1)

    target_ctr_x, target_ctr_y, target_widths, target_heights, target_angles = torch.unbind(
        target_boxes, dim=1
    )

    wx, wy, ww, wh, wa = weights
    dx = wx * (target_ctr_x - src_ctr_x) / src_widths
    dy = wy * (target_ctr_y - src_ctr_y) / src_heights
    dw = ww * torch.log(target_widths / src_widths)
    dh = wh * torch.log(target_heights / src_heights)
    # Angles of deltas are in radians while angles of boxes are in degrees.
    # the conversion to radians serve as a way to normalize the values
    da = target_angles - src_angles
    da = (da + 180.0) % 360.0 - 180.0  # make it in [-180, 180)
    da *= wa * math.pi / 180.0

    deltas = torch.stack((dx, dy, dw, dh, da), dim=1)
    assert (
        (src_widths > 0).all().item()
    ), "Input boxes to Box2BoxTransformRotated are not valid!"
    return deltas


def apply_deltas(deltas: Tensor, boxes: Tensor, weights: Tuple[float, float, float, float, float],
                 scale_clamp: float = math.log(1000.0 / 16)) -> Tensor:
    assert deltas.shape[1] % 5 == 0 and boxes.shape[1] == 5

    boxes = boxes.to(deltas.dtype).unsqueeze(2)

    ctr_x = boxes[:, 0]
    ctr_y = boxes[:, 1]
    widths = boxes[:, 2]
    heights = boxes[:, 3]
    angles = boxes[:, 4]

    wx, wy, ww, wh, wa = weights

    dx = deltas[:, 0::5] / wx
    dy = deltas[:, 1::5] / wy
    dw = deltas[:, 2::5] / ww
    dh = deltas[:, 3::5] / wh
    da = deltas[:, 4::5] / wa

    # Prevent sending too large values into torch.exp()
    dw = torch.clamp(dw, max=scale_clamp)
    dh = torch.clamp(dh, max=scale_clamp)

    pred_boxes = torch.zeros_like(deltas)
    pred_boxes[:, 0::5] = dx * widths + ctr_x  # x_ctr
    pred_boxes[:, 1::5] = dy * heights + ctr_y  # y_ctr
    pred_boxes[:, 2::5] = torch.exp(dw) * widths  # width
    pred_boxes[:, 3::5] = torch.exp(dh) * heights  # height

    # Following original RRPN implementation,
    # angles of deltas are in radians while angles of boxes are in degrees.
    pred_angle = da * 180.0 / math.pi + angles
    pred_angle = (pred_angle + 180.0) % 360.0 - 180.0  # make it in [-180, 180)

    pred_boxes[:, 4::5] = pred_angle

    return pred_boxes


def rotated_box_coder(proposals: Tensor, targets: Tensor, pred_deltas: Tensor) -> Tuple[Tensor, Tensor]:
    weights = (10.0, 10.0, 5.0, 5.0, 1.0)   # the rotated RPN/R-CNN heads' default
    return get_deltas(proposals, targets, weights), apply_deltas(pred_deltas, proposals, weights)


def example():
    n, k = 200, 3

    def boxes(m):
        return torch.cat([torch.rand(m, 2) * 300, torch.rand(m, 2) * 60 + 5,
                          torch.rand(m, 1) * 360 - 180], 1)
    proposals = boxes(n)
    targets = proposals + torch.cat([torch.randn(n, 2) * 4, torch.zeros(n, 2),
                                     torch.randn(n, 1) * 60], 1)
    targets[:, 2:4] = proposals[:, 2:4] * torch.exp(torch.randn(n, 2) * 0.2)
    return rotated_box_coder, {"proposals": proposals, "targets": targets,
                               "pred_deltas": torch.randn(n, 5 * k) * 0.5}
