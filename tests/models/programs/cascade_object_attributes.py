"""TorchScript class objects nested in each other and in a list, held by a
module: a Cascade R-CNN style post-processor. The module holds one
`CascadePostprocessor` object, which holds a `BoxCoder` object (an object
in an object), a list of per-stage `BoxCoder`s (a List of objects, written
as [{"__object__": "post.stage_coders.0"}, ...]), a tensor attribute (the
image size, under its dotted name in the weights file), an Optional[float]
that is set and a str. The exporter writes every attribute under its
dotted path (post.coder.weights, post.stage_coders.1.bbox_xform_clip).

Origin: the stage weights (10, 10, 5, 5), (20, 20, 10, 10), (30, 30, 15, 15)
are Cascade R-CNN's (open-mmlab/mmdetection,
configs/_base_/models/cascade-rcnn_r50_fpn.py, roi_head.bbox_head
target_stds inverted, v3.0.0); BoxCoder.decode_single follows
torchvision/models/detection/_utils.py (v0.14.0) with the clamp and the
corner arithmetic kept, the per-class slicing reduced to one class. The
cascade loop, the clipping to the image and the score threshold are ours."""
import math
from typing import List, Optional, Tuple

import torch
from torch import Tensor


class BoxCoder:
    def __init__(self, weights: Tuple[float, float, float, float],
                 bbox_xform_clip: float = math.log(1000.0 / 16)) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0] / wx
        dy = rel_codes[:, 1] / wy
        dw = torch.clamp(rel_codes[:, 2] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths + ctr_x
        pred_ctr_y = dy * heights + ctr_y
        pred_w = torch.exp(dw) * widths
        pred_h = torch.exp(dh) * heights
        return torch.stack((pred_ctr_x - 0.5 * pred_w, pred_ctr_y - 0.5 * pred_h,
                            pred_ctr_x + 0.5 * pred_w, pred_ctr_y + 0.5 * pred_h), dim=1)


class CascadePostprocessor:
    def __init__(self, image_size: Tensor, score_thresh: Optional[float]) -> None:
        self.coder = BoxCoder((10.0, 10.0, 5.0, 5.0))
        self.stage_coders: List[BoxCoder] = [
            BoxCoder((10.0, 10.0, 5.0, 5.0)),
            BoxCoder((20.0, 20.0, 10.0, 10.0), bbox_xform_clip=2.0),
            BoxCoder((30.0, 30.0, 15.0, 15.0)),
        ]
        self.image_size = image_size
        self.score_thresh = score_thresh
        self.mode = "clip"


class CascadeHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.post = CascadePostprocessor(torch.tensor([48.0, 64.0]), 0.3)

    def forward(self, proposals, stage_deltas, scores):
        boxes = self.post.coder.decode_single(stage_deltas[0] * 0.0, proposals)
        for i, coder in enumerate(self.post.stage_coders):
            boxes = coder.decode_single(stage_deltas[i], boxes)
        if self.post.mode == "clip":
            height = self.post.image_size[0]
            width = self.post.image_size[1]
            x = boxes[:, 0::2].clamp(min=0.0).minimum(width)
            y = boxes[:, 1::2].clamp(min=0.0).minimum(height)
            boxes = torch.stack((x[:, 0], y[:, 0], x[:, 1], y[:, 1]), dim=1)
        thresh = self.post.score_thresh
        keep = torch.ones_like(scores, dtype=torch.bool)
        if thresh is not None:
            keep = scores > thresh
        return boxes, keep, len(self.post.stage_coders)


def example():
    xy = torch.rand(6, 2) * 40.0
    proposals = torch.cat([xy, xy + torch.rand(6, 2) * 20.0 + 1.0], dim=1)
    stage_deltas = torch.randn(3, 6, 4)
    stage_deltas[1, 2, 3] = 50.0   # clipped by stage 1's bbox_xform_clip = 2.0
    return CascadeHead(), {"proposals": proposals, "stage_deltas": stage_deltas,
                           "scores": torch.rand(6)}
