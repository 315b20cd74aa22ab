"""CenterTrack's association step with greedy matching (xingyizhou/CenterTrack,
src/lib/utils/tracker.py: Tracker.step and greedy_assignment, revision
04fe46ca61f2b029249c33516241028b0dfb0b6f) (issue 30's public code).

Each detection's centre moved back by its predicted tracking offset is
compared with every track's centre (squared distance); a pair is invalid
when the distance exceeds either box's area or the classes differ; then each
detection in turn takes its nearest still-free track (greedy_assignment, a
loop whose body writes a whole column). Matched detections inherit the
track's id, unmatched ones above new_thresh get fresh ids.

Changes:
- numpy -> torch: the per-detection and per-track dicts (results,
  self.tracks) become tensors, one row per item (ct, tracking, bbox, class,
  score; the tracks' ct, bbox, class and tracking_id), and the Tracker's
  id_count is an argument and a result (Tracker is a plain Python class
  holding lists of dicts);
- `dist = dist + invalid * 1e18` stays float32 (numpy promotes it to
  float64); only comparisons against 1e16 read those entries, and both
  types hold 1e18 exactly enough for them;
- greedy_assignment: `j = dist[i].argmin()` -> `int(...)`, the matches a
  List[List[int]] and `np.array(m, np.int32).reshape(-1, 2)` ->
  `torch.tensor(m, dtype=torch.int32).reshape(-1, 2)`; `copy.deepcopy(dist)`
  -> `dist.clone()`;
- `d in matched_indices[:, 0]` -> `bool((matched_indices[:, 0] == d).any())`
  (TorchScript has no `in` on tensors), and the comprehension with an
  `if` an explicit loop (TorchScript takes no comprehension ifs);
- `self.tracks[m[1]]['tracking_id']` -> `int(track_id[int(m[1])])` (an
  int32 tensor cannot index a tensor; numpy's int32 indexes a list);
- the result is (matches, the detections' tracking ids in `ret` order with
  their row indices, id_count) instead of the list of dicts;
- not ported: the Hungarian branch (sklearn's linear_assignment), the
  public-detection branch, and the "Never used" loop over unmatched tracks,
  which runs only when max_age >= 2 and then reads an undefined `v` (the
  default max_age is -1).
"""
from typing import List, Tuple

import torch
from torch import Tensor


def greedy_assignment(dist: Tensor) -> Tensor:
    matched_indices: List[List[int]] = []
    if dist.shape[1] == 0:
        return torch.tensor(matched_indices, dtype=torch.int32).reshape(-1, 2)
    for i in range(dist.shape[0]):
        j = int(dist[i].argmin())
        if dist[i][j] < 1e16:
            dist[:, j] = 1e18
            matched_indices.append([i, j])
    return torch.tensor(matched_indices, dtype=torch.int32).reshape(-1, 2)


def step(det_ct: Tensor, det_tracking: Tensor, det_bbox: Tensor, det_cls: Tensor,
         det_score: Tensor, track_ct: Tensor, track_bbox: Tensor, track_cls: Tensor,
         track_id: Tensor, id_count: int, new_thresh: float) -> Tuple[Tensor, Tensor, Tensor, int]:
    N = det_ct.shape[0]
    M = track_ct.shape[0]

    dets = det_ct + det_tracking  # N x 2
    track_size = (track_bbox[:, 2] - track_bbox[:, 0]) * \
        (track_bbox[:, 3] - track_bbox[:, 1])  # M
    track_cat = track_cls.to(torch.int32)  # M
    item_size = (det_bbox[:, 2] - det_bbox[:, 0]) * \
        (det_bbox[:, 3] - det_bbox[:, 1])  # N
    item_cat = det_cls.to(torch.int32)  # N
    tracks = track_ct  # M x 2
    dist = (((tracks.reshape(1, -1, 2) -
              dets.reshape(-1, 1, 2)) ** 2).sum(dim=2))  # N x M

    invalid = ((dist > track_size.reshape(1, M)) +
               (dist > item_size.reshape(N, 1)) +
               (item_cat.reshape(N, 1) != track_cat.reshape(1, M))) > 0
    dist = dist + invalid * 1e18

    matched_indices = greedy_assignment(dist.clone())
    unmatched_dets: List[int] = []
    for d in range(dets.shape[0]):
        if not bool((matched_indices[:, 0] == d).any()):
            unmatched_dets.append(d)
    matches = matched_indices

    ret_rows: List[int] = []
    ret_ids: List[int] = []
    for k in range(matches.shape[0]):
        m = matches[k]
        ret_rows.append(int(m[0]))
        ret_ids.append(int(track_id[int(m[1])]))

    # Private detection: create tracks for all un-matched detections
    for i in unmatched_dets:
        if det_score[i] > new_thresh:
            id_count += 1
            ret_rows.append(i)
            ret_ids.append(id_count)
    return matches, torch.tensor(ret_rows), torch.tensor(ret_ids), id_count


def example():
    m, n = 10, 12
    track_ct = torch.rand(m, 2) * 100
    wh = torch.rand(m, 2) * 20 + 10
    track_bbox = torch.cat([track_ct - wh / 2, track_ct + wh / 2], 1)
    # detections: the tracks moved a little, in a shuffled order, plus new ones
    perm = torch.randperm(m)
    det_ct = torch.cat([track_ct[perm] + torch.randn(m, 2) * 2, torch.rand(n - m, 2) * 100])
    det_tracking = torch.randn(n, 2)
    dwh = torch.cat([wh[perm], torch.rand(n - m, 2) * 20 + 10])
    det_bbox = torch.cat([det_ct - dwh / 2, det_ct + dwh / 2], 1)
    track_cls = torch.randint(0, 2, (m,))
    det_cls = torch.cat([track_cls[perm], torch.randint(0, 2, (n - m,))])
    det_cls[0] = 1 - det_cls[0]          # one class change: an invalid pair
    return step, {"det_ct": det_ct, "det_tracking": det_tracking, "det_bbox": det_bbox,
                  "det_cls": det_cls, "det_score": torch.rand(n), "track_ct": track_ct,
                  "track_bbox": track_bbox, "track_cls": track_cls,
                  "track_id": torch.arange(m) + 1, "id_count": m, "new_thresh": 0.3}
