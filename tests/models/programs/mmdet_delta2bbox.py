"""MMDetection's delta2bbox (open-mmlab/mmdetection,
mmdet/models/task_modules/coders/delta_xywh_bbox_coder.py: delta2bbox,
revision e3ca3ce2611cecc9f7fcafb42fd66b73a6b875ad) (issue 30's public code):
class-specific box deltas [N, num_classes * 4] denormalized by means and
stds, applied to the rois (repeated per class), the size change clamped to
|log(wh_ratio_clip)|, and the boxes clipped to the image in place through
strided views (`bboxes[..., 0::2].clamp_(...)`).

Changes, each needed for TorchScript:
- parameter types: means/stds Sequence[float] -> List[float] and max_shape
  Optional[Union[Sequence[int], Tensor, Sequence[Sequence[int]]]] ->
  Optional[List[int]] (TorchScript has no Sequence or Union of these; the
  (H, W) form is the one the single-image path uses);
- `deltas.new_tensor(means)` -> `torch.tensor(means, dtype=deltas.dtype,
  device=deltas.device)` under new names means_t/stds_t (TorchScript has
  no Tensor.new_tensor, and a name cannot change from List[float] to
  Tensor);
- `np.abs(np.log(wh_ratio_clip))` -> `abs(math.log(wh_ratio_clip))` (no
  numpy in TorchScript; the same float64 value);
- the entry point `delta2bbox_rcnn` binds the R-CNN head's coder settings
  (means 0, stds (0.1, 0.1, 0.2, 0.2)) since lists cannot be bound on the
  command line.
"""
import math
from typing import List, Optional

import torch
from torch import Tensor


def delta2bbox(rois: Tensor,
               deltas: Tensor,
               means: List[float] = (0., 0., 0., 0.),
               stds: List[float] = (1., 1., 1., 1.),
               max_shape: Optional[List[int]] = None,
               wh_ratio_clip: float = 16 / 1000,
               clip_border: bool = True,
               add_ctr_clamp: bool = False,
               ctr_clamp: int = 32) -> Tensor:
    num_bboxes, num_classes = deltas.size(0), deltas.size(1) // 4
    if num_bboxes == 0:
        return deltas

    deltas = deltas.reshape(-1, 4)

    means_t = torch.tensor(means, dtype=deltas.dtype, device=deltas.device).view(1, -1)
    stds_t = torch.tensor(stds, dtype=deltas.dtype, device=deltas.device).view(1, -1)
    denorm_deltas = deltas * stds_t + means_t

    dxy = denorm_deltas[:, :2]
    dwh = denorm_deltas[:, 2:]

    # Compute width/height of each roi
    rois_ = rois.repeat(1, num_classes).reshape(-1, 4)
    pxy = ((rois_[:, :2] + rois_[:, 2:]) * 0.5)
    pwh = (rois_[:, 2:] - rois_[:, :2])

    dxy_wh = pwh * dxy

    max_ratio = abs(math.log(wh_ratio_clip))
    if add_ctr_clamp:
        dxy_wh = torch.clamp(dxy_wh, max=ctr_clamp, min=-ctr_clamp)
        dwh = torch.clamp(dwh, max=max_ratio)
    else:
        dwh = dwh.clamp(min=-max_ratio, max=max_ratio)

    gxy = pxy + dxy_wh
    gwh = pwh * dwh.exp()
    x1y1 = gxy - (gwh * 0.5)
    x2y2 = gxy + (gwh * 0.5)
    bboxes = torch.cat([x1y1, x2y2], dim=-1)
    if clip_border and max_shape is not None:
        bboxes[..., 0::2].clamp_(min=0, max=max_shape[1])
        bboxes[..., 1::2].clamp_(min=0, max=max_shape[0])
    bboxes = bboxes.reshape(num_bboxes, -1)
    return bboxes


def delta2bbox_rcnn(rois: Tensor, deltas: Tensor, img_h: int, img_w: int) -> Tensor:
    return delta2bbox(rois, deltas, [0., 0., 0., 0.], [0.1, 0.1, 0.2, 0.2],
                      max_shape=[img_h, img_w])


def example():
    n, classes = 300, 8
    xy = torch.rand(n, 2) * 180
    rois = torch.cat([xy, xy + torch.rand(n, 2) * 60 + 4], dim=1)
    deltas = torch.randn(n, classes * 4) * 2
    return delta2bbox_rcnn, {"rois": rois, "deltas": deltas, "img_h": 200, "img_w": 240}
