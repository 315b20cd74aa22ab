"""SORT's IoU association (abewley/sort, sort.py: iou_batch and
associate_detections_to_trackers, revision
bce9f0d1fc8fb5f45bf7084130248561a3d42f31) (issue 30's public code).

The IoU of every detection with every tracker's predicted box
(broadcasting [N, 1] against [1, M]); when every detection and every
tracker has at most one candidate above iou_threshold the candidates are
the matches (np.where of the 0/1 matrix), and the detections and trackers
left over are listed by a loop over each.

Changes:
- numpy -> torch: np.expand_dims -> unsqueeze, np.maximum / np.minimum of
  arrays -> torch.maximum / torch.minimum, of a scalar (0.) -> clamp(min=0.),
  `.astype(np.int32)` -> `.to(torch.int32)`,
  `np.stack(np.where(a), axis=1)` -> `torch.stack(torch.where(a != 0), 1)`
  (TorchScript has no Tensor.bool());
- the linear_assignment branch (lap.lapjv or scipy's Hungarian solver) is
  not ported: the entry point returns, beside the matches, whether the
  simple branch applied (`simple`), and the matches are empty otherwise;
- `d not in matched_indices[:, 0]` -> `not bool((matched_indices[:, 0] ==
  d).any())`, the `for d, det in enumerate(detections)` loops -> loops over
  range(N) (det is unused); the results are int64 tensors, and the
  "filter out matched with low IOU" loop runs over the matches' rows by
  index (all above the threshold on the simple branch, as in the original).
"""
from typing import List, Tuple

import torch
from torch import Tensor


def iou_batch(bb_test: Tensor, bb_gt: Tensor) -> Tensor:
    """
    From SORT: Computes IOU between two bboxes in the form [x1,y1,x2,y2]
    """
    bb_gt = bb_gt.unsqueeze(0)
    bb_test = bb_test.unsqueeze(1)

    xx1 = torch.maximum(bb_test[..., 0], bb_gt[..., 0])
    yy1 = torch.maximum(bb_test[..., 1], bb_gt[..., 1])
    xx2 = torch.minimum(bb_test[..., 2], bb_gt[..., 2])
    yy2 = torch.minimum(bb_test[..., 3], bb_gt[..., 3])
    w = (xx2 - xx1).clamp(min=0.)
    h = (yy2 - yy1).clamp(min=0.)
    wh = w * h
    o = wh / ((bb_test[..., 2] - bb_test[..., 0]) * (bb_test[..., 3] - bb_test[..., 1])
              + (bb_gt[..., 2] - bb_gt[..., 0]) * (bb_gt[..., 3] - bb_gt[..., 1]) - wh)
    return o


def associate_detections_to_trackers(detections: Tensor, trackers: Tensor, iou_threshold: float = 0.3
                                     ) -> Tuple[Tensor, Tensor, Tensor, Tensor, bool]:
    iou_matrix = iou_batch(detections, trackers)

    simple = False
    matched_indices = torch.empty((0, 2), dtype=torch.int64)
    if min(iou_matrix.shape[0], iou_matrix.shape[1]) > 0:
        a = (iou_matrix > iou_threshold).to(torch.int32)
        if bool(a.sum(1).max() == 1) and bool(a.sum(0).max() == 1):
            matched_indices = torch.stack(torch.where(a != 0), 1)
            simple = True

    unmatched_detections: List[int] = []
    for d in range(detections.shape[0]):
        if not bool((matched_indices[:, 0] == d).any()):
            unmatched_detections.append(d)
    unmatched_trackers: List[int] = []
    for t in range(trackers.shape[0]):
        if not bool((matched_indices[:, 1] == t).any()):
            unmatched_trackers.append(t)

    # filter out matched with low IOU
    matches: List[Tensor] = []
    for k in range(matched_indices.shape[0]):
        m = matched_indices[k]
        if bool(iou_matrix[m[0], m[1]] < iou_threshold):
            unmatched_detections.append(int(m[0]))
            unmatched_trackers.append(int(m[1]))
        else:
            matches.append(m.reshape(1, 2))
    if len(matches) == 0:
        matches_t = torch.empty((0, 2), dtype=torch.int64)
    else:
        matches_t = torch.cat(matches, dim=0)

    return (iou_matrix, matches_t, torch.tensor(unmatched_detections, dtype=torch.int64),
            torch.tensor(unmatched_trackers, dtype=torch.int64), simple)


def example():
    m = 8
    xy = torch.rand(m, 2) * 200
    trk = torch.cat([xy, xy + torch.rand(m, 2) * 40 + 20], 1)
    perm = torch.randperm(m)[:6]
    det = torch.cat([trk[perm] + torch.randn(6, 4) * 2, torch.tensor([[400.0, 400.0, 430.0, 440.0]])])
    return associate_detections_to_trackers, {"detections": det, "trackers": trk,
                                              "iou_threshold": 0.3}
