# YOLO-style box decode step: slices of one tensor updated in place inside a
# loop over anchors, the motivating case for TensorSSA.
import torch


def box_decode(pred: torch.Tensor, anchors: torch.Tensor, stride: float):
    boxes = pred.clone()
    for a in range(anchors.size(0)):
        p = boxes[a]
        p[:, 0:2] = (p[:, 0:2].sigmoid() * 2.0 - 0.5) * stride
        p[:, 2:4] = (p[:, 2:4].sigmoid() * 2.0) ** 2 * anchors[a]
        p[:, 4:] = p[:, 4:].sigmoid()
    return boxes.view(-1, boxes.size(-1))


MODEL = box_decode
