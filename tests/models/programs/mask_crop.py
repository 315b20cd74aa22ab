"""Instance-mask cropping (YOLACT's crop; TensorSSA paper workload).

Row and column coordinate grids are expanded views compared against each
box's bounds; the four comparisons are and-ed together and the masks outside
are zeroed with masked_fill. A second, in-place masked_fill_ thresholds the
result.
"""
import torch


def crop_masks(masks, boxes, padding: int, threshold: float):
    # masks: [H, W, N]; boxes: [N, 4] as (x1, y1, x2, y2) in pixels
    H, W, N = masks.shape
    x1 = torch.clamp(torch.min(boxes[:, 0], boxes[:, 2]) - padding, min=0)
    x2 = torch.clamp(torch.max(boxes[:, 0], boxes[:, 2]) + padding, max=W)
    y1 = torch.clamp(torch.min(boxes[:, 1], boxes[:, 3]) - padding, min=0)
    y2 = torch.clamp(torch.max(boxes[:, 1], boxes[:, 3]) + padding, max=H)
    cols = torch.arange(W, dtype=x1.dtype, device=masks.device).view(1, -1, 1).expand(H, W, N)
    rows = torch.arange(H, dtype=x1.dtype, device=masks.device).view(-1, 1, 1).expand(H, W, N)
    inside = (cols >= x1.view(1, 1, -1)) & (cols < x2.view(1, 1, -1))
    inside = inside & (rows >= y1.view(1, 1, -1)) & (rows < y2.view(1, 1, -1))
    cropped = masks.masked_fill(~inside, 0.0)
    cropped.masked_fill_(cropped < threshold, 0.0)
    return cropped, inside.sum(dim=(0, 1))


def example():
    inputs = {
        "masks": torch.rand(6, 7, 3),
        "boxes": torch.tensor([[1.5, 0.5, 4.2, 3.7], [6.0, 5.0, 2.0, 1.0], [-1.0, 2.5, 9.0, 4.5]]),
        "padding": 1,
        "threshold": 0.3,
    }
    return crop_masks, inputs
