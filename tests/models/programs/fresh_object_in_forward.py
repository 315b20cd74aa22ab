"""Objects of TorchScript classes created inside the program: FCOS-style
box decoding that builds its coder per call (`BoxLinearCoder(...)`), and a
score filter object that holds that coder (an object in an object) and
records, by assigning its own attribute after construction
(`self.kept = ...`), how many boxes it kept. TorchScript inlines the
constructors to prim::CreateObject + prim::SetAttr and the methods to
prim::GetAttr on the fresh object; tssa-stream replaces each object by its
attributes' values (ir/fresh_objects.c) before any backend runs.

Origin: BoxLinearCoder (__init__, decode_single) from pytorch/vision,
torchvision/models/detection/_utils.py, release v0.14.0, unchanged but for
the docstrings; torchvision's FCOS holds it as `self.box_coder`, here it is
built in the program. ScoreFilter and decode_and_filter are ours."""
import torch
from torch import Tensor


class BoxLinearCoder:
    def __init__(self, normalize_by_size: bool = True) -> None:
        self.normalize_by_size = normalize_by_size

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(rel_codes.dtype)

        ctr_x = 0.5 * (boxes[:, 0] + boxes[:, 2])
        ctr_y = 0.5 * (boxes[:, 1] + boxes[:, 3])
        if self.normalize_by_size:
            boxes_w = boxes[:, 2] - boxes[:, 0]
            boxes_h = boxes[:, 3] - boxes[:, 1]
            boxes_size = torch.stack((boxes_w, boxes_h, boxes_w, boxes_h), dim=1)
            rel_codes = rel_codes * boxes_size

        pred_boxes1 = ctr_x - rel_codes[:, 0]
        pred_boxes2 = ctr_y - rel_codes[:, 1]
        pred_boxes3 = ctr_x + rel_codes[:, 2]
        pred_boxes4 = ctr_y + rel_codes[:, 3]
        pred_boxes = torch.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=1)
        return pred_boxes


class ScoreFilter:
    def __init__(self, thresh: float, coder: BoxLinearCoder) -> None:
        self.thresh = thresh
        self.coder = coder
        self.kept = 0

    def apply(self, rel_codes: Tensor, anchors: Tensor, scores: Tensor) -> Tensor:
        boxes = self.coder.decode_single(rel_codes, anchors)
        keep = scores > self.thresh
        self.kept = int(keep.sum())
        return boxes * keep[:, None].to(boxes.dtype)


def decode_and_filter(rel_codes: Tensor, anchors: Tensor, scores: Tensor, normalize: bool):
    coder = BoxLinearCoder(normalize_by_size=normalize)
    plain = coder.decode_single(rel_codes, anchors)
    score_filter = ScoreFilter(0.4, BoxLinearCoder(True))
    filtered = score_filter.apply(rel_codes, anchors, scores)
    return plain, filtered, score_filter.kept


def example():
    xy = torch.rand(8, 2) * 30.0
    anchors = torch.cat([xy, xy + torch.rand(8, 2) * 10.0 + 2.0], dim=1)
    return decode_and_filter, {"rel_codes": torch.rand(8, 4), "anchors": anchors,
                               "scores": torch.rand(8), "normalize": False}
