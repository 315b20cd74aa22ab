"""DETR's PostProcess (models/detr.py): class probabilities without the
no-object class, boxes from (cx, cy, w, h) to absolute (x0, y0, x1, y1),
one result per image (issue 11's public programs). The results are a list
of (scores, labels, boxes) tuples rather than DETR's dicts, whose string
keys tssa-stream cannot write as outputs, and without the @torch.no_grad()
decorator, which TorchScript does not take (export.py runs programs under
no_grad anyway)."""
from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import nn


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h),
         (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return torch.stack(b, dim=-1)


class PostProcess(nn.Module):
    """ This module converts the model's output into the format expected by the coco api"""

    def forward(self, out_logits, out_bbox, target_sizes) -> List[Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        assert len(out_logits) == len(target_sizes)
        assert target_sizes.shape[1] == 2

        prob = F.softmax(out_logits, -1)
        scores, labels = prob[..., :-1].max(-1)

        # convert to [x0, y0, x1, y1] format
        boxes = box_cxcywh_to_xyxy(out_bbox)
        # and from relative [0, 1] to absolute [0, height] coordinates
        img_h, img_w = target_sizes.unbind(1)
        scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1)
        boxes = boxes * scale_fct[:, None, :]

        results = [(s, l, b) for s, l, b in zip(scores, labels, boxes)]

        return results


def example():
    logits = torch.randn(2, 6, 5)
    boxes = torch.rand(2, 6, 4) * 0.5 + 0.25
    sizes = torch.tensor([[480.0, 640.0], [600.0, 800.0]])
    return PostProcess(), {"out_logits": logits, "out_bbox": boxes, "target_sizes": sizes}
