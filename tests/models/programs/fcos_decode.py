"""FCOS-style decoding with an anchor-point grid (TensorSSA paper workload).

Anchor points come from arange + meshgrid at the level's stride; the box
corners are written column by column into a preallocated tensor; scores are
sqrt(sigmoid(cls) * sigmoid(centerness)) and the best class is a max.
"""
import torch


def fcos_decode(reg, cls_logits, centerness, stride: int):
    # reg: [4, H, W] (l, t, r, b) log-distances; cls_logits: [C, H, W]; centerness: [1, H, W]
    C, H, W = cls_logits.shape
    shifts_x = torch.arange(0, W * stride, step=stride, dtype=torch.float32,
                            device=reg.device) + stride // 2
    shifts_y = torch.arange(0, H * stride, step=stride, dtype=torch.float32,
                            device=reg.device) + stride // 2
    sy, sx = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
    points = torch.stack((sx.reshape(-1), sy.reshape(-1)), dim=1)
    dist = torch.exp(reg).permute(1, 2, 0).reshape(-1, 4) * stride
    boxes = torch.empty(H * W, 4, device=reg.device)
    boxes[:, 0] = points[:, 0] - dist[:, 0]
    boxes[:, 1] = points[:, 1] - dist[:, 1]
    boxes[:, 2] = points[:, 0] + dist[:, 2]
    boxes[:, 3] = points[:, 1] + dist[:, 3]
    scores = torch.sqrt(torch.sigmoid(cls_logits) * torch.sigmoid(centerness))
    scores = scores.permute(1, 2, 0).reshape(-1, C)
    best, labels = scores.max(dim=1)
    return boxes, best, labels


def example():
    inputs = {
        "reg": torch.randn(4, 3, 5) * 0.5,
        "cls_logits": torch.randn(3, 3, 5),
        "centerness": torch.randn(1, 3, 5),
        "stride": 16,
    }
    return fcos_decode, inputs
