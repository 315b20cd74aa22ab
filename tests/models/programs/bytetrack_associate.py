"""ByteTrack's per-frame association, with the tracks held as tensors: the
Kalman prediction of every track at once (STrack.multi_predict ->
KalmanFilter.multi_predict: per-track process noise from the box height,
batched F P F^T), detections split by score into high and low, a first
association of the high-score detections with all tracks (IoU distance
fused with the detection scores), a second association of the tracks
left with the low-score ones (IoU distance, threshold 0.5), Kalman updates
of the matched tracks (project, a Cholesky solve for the gain), and the
tracks left unmatched marked lost (issue 30's public code).

Origin: ifzhang/ByteTrack, revision 0cb85cb0242e57955480d04e18191a0680bb83ce:
yolox/tracker/byte_tracker.py, BYTETracker.update (steps 2 and 3: the two
associations, updates of matched tracks, lost marking) and
STrack.tlbr_to_tlwh / tlwh_to_xyah; yolox/tracker/kalman_filter.py,
KalmanFilter (__init__, multi_predict, project, update);
yolox/tracker/matching.py, iou_distance, fuse_score, linear_assignment.

Changes:
- numpy -> torch throughout (np.dot -> matmul, np.r_ -> cat, np.diag of
  each row -> diag_embed, scipy.linalg.cho_factor/cho_solve ->
  torch.linalg.cholesky/torch.cholesky_solve, as deepsort_kalman.py does);
  KalmanFilter.update runs on all matched tracks at once (the original
  calls it per STrack, with the same arithmetic per track).
- STrack objects and their lists (strack_pool, detections) are tensors:
  track means (T, 8), covariances (T, 8, 8), a tracked/lost state flag;
  detections as tlbr boxes and scores. The pool is every track passed in
  (joint_stracks of tracked and lost); unconfirmed tracks, new-track
  initialisation (step 4) and removal (step 5) are left out.
- matching.linear_assignment solves with lap.lapjv (a C extension); here
  a greedy assignment over the cost matrix in ascending cost order with
  the same threshold (cost > thresh is never matched), returning matches
  as an (n, 2) tensor and the unmatched rows and columns, as the original
  returns them. On these inputs the greedy and optimal assignments agree
  (costs far apart), which is the behaviour compared.
- iou_distance's cython_bbox.bbox_overlaps is the IoU written out (with
  its +1 pixel convention, as cython_bbox computes it).
"""
from typing import List, Tuple

import torch
from torch import Tensor


class KalmanFilter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        ndim, dt = 4, 1.

        # Create Kalman filter model matrices.
        motion_mat = torch.eye(2 * ndim, 2 * ndim)
        for i in range(ndim):
            motion_mat[i, ndim + i] = dt
        self.register_buffer("_motion_mat", motion_mat)
        self.register_buffer("_update_mat", torch.eye(ndim, 2 * ndim))

        # Motion and observation uncertainty are chosen relative to the current
        # state estimate. These weights control the amount of uncertainty in
        # the model. This is a bit hacky.
        self._std_weight_position = 1. / 20
        self._std_weight_velocity = 1. / 160

    def multi_predict(self, mean: Tensor, covariance: Tensor) -> Tuple[Tensor, Tensor]:
        std_pos = [
            self._std_weight_position * mean[:, 3],
            self._std_weight_position * mean[:, 3],
            1e-2 * torch.ones_like(mean[:, 3]),
            self._std_weight_position * mean[:, 3]]
        std_vel = [
            self._std_weight_velocity * mean[:, 3],
            self._std_weight_velocity * mean[:, 3],
            1e-5 * torch.ones_like(mean[:, 3]),
            self._std_weight_velocity * mean[:, 3]]
        sqr = torch.square(torch.stack(std_pos + std_vel)).T

        motion_cov = torch.diag_embed(sqr)

        mean = torch.matmul(mean, self._motion_mat.T)
        left = torch.matmul(self._motion_mat, covariance)
        covariance = torch.matmul(left, self._motion_mat.T) + motion_cov

        return mean, covariance

    def project(self, mean: Tensor, covariance: Tensor) -> Tuple[Tensor, Tensor]:
        std = torch.stack([
            self._std_weight_position * mean[:, 3],
            self._std_weight_position * mean[:, 3],
            1e-1 * torch.ones_like(mean[:, 3]),
            self._std_weight_position * mean[:, 3]], 1)
        innovation_cov = torch.diag_embed(torch.square(std))

        mean = torch.matmul(mean, self._update_mat.T)
        covariance = torch.matmul(torch.matmul(self._update_mat, covariance), self._update_mat.T)
        return mean, covariance + innovation_cov

    def update(self, mean: Tensor, covariance: Tensor, measurement: Tensor) -> Tuple[Tensor, Tensor]:
        projected_mean, projected_cov = self.project(mean, covariance)

        chol_factor = torch.linalg.cholesky(projected_cov)
        kalman_gain = torch.cholesky_solve(
            torch.matmul(covariance, self._update_mat.T).transpose(1, 2), chol_factor).transpose(1, 2)
        innovation = measurement - projected_mean

        new_mean = mean + torch.matmul(innovation.unsqueeze(1), kalman_gain.transpose(1, 2)).squeeze(1)
        new_covariance = covariance - torch.matmul(
            torch.matmul(kalman_gain, projected_cov), kalman_gain.transpose(1, 2))
        return new_mean, new_covariance


def tlbr_to_tlwh(tlbr: Tensor) -> Tensor:
    ret = tlbr.clone()
    ret[:, 2:] -= ret[:, :2]
    return ret


def tlwh_to_xyah(tlwh: Tensor) -> Tensor:
    ret = tlwh.clone()
    ret[:, :2] += ret[:, 2:] / 2
    ret[:, 2] /= ret[:, 3]
    return ret


def mean_to_tlbr(mean: Tensor) -> Tensor:
    # STrack.tlwh from the Kalman mean (x, y, a, h), then tlwh_to_tlbr
    ret = mean[:, :4].clone()
    ret[:, 2] *= ret[:, 3]
    ret[:, :2] -= ret[:, 2:] / 2
    ret[:, 2:] += ret[:, :2]
    return ret


def bbox_overlaps(boxes: Tensor, query_boxes: Tensor) -> Tensor:
    box_area = ((query_boxes[:, 2] - query_boxes[:, 0] + 1) *
                (query_boxes[:, 3] - query_boxes[:, 1] + 1))
    iw = (torch.min(boxes[:, None, 2], query_boxes[None, :, 2]) -
          torch.max(boxes[:, None, 0], query_boxes[None, :, 0]) + 1).clamp(min=0)
    ih = (torch.min(boxes[:, None, 3], query_boxes[None, :, 3]) -
          torch.max(boxes[:, None, 1], query_boxes[None, :, 1]) + 1).clamp(min=0)
    area = ((boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1))
    ua = area[:, None] + box_area[None, :] - iw * ih
    return iw * ih / ua


def iou_distance(atlbrs: Tensor, btlbrs: Tensor) -> Tensor:
    _ious = bbox_overlaps(atlbrs, btlbrs)
    cost_matrix = 1 - _ious
    return cost_matrix


def fuse_score(cost_matrix: Tensor, det_scores: Tensor) -> Tensor:
    if cost_matrix.numel() == 0:
        return cost_matrix
    iou_sim = 1 - cost_matrix
    det_scores = det_scores.unsqueeze(0).repeat(cost_matrix.shape[0], 1)
    fuse_sim = iou_sim * det_scores
    fuse_cost = 1 - fuse_sim
    return fuse_cost


def linear_assignment(cost_matrix: Tensor, thresh: float) -> Tuple[Tensor, Tensor, Tensor]:
    rows, cols = cost_matrix.shape[0], cost_matrix.shape[1]
    row_used = torch.zeros(rows, dtype=torch.bool)
    col_used = torch.zeros(cols, dtype=torch.bool)
    matches: List[Tensor] = []
    if cost_matrix.numel() > 0:
        order = torch.argsort(cost_matrix.flatten())
        for k in range(order.shape[0]):
            flat = int(order[k])
            r, c = flat // cols, flat % cols
            if float(cost_matrix[r, c]) > thresh:
                break
            if not bool(row_used[r]) and not bool(col_used[c]):
                row_used[r] = True
                col_used[c] = True
                matches.append(torch.tensor([r, c]))
    if len(matches) > 0:
        match_t = torch.stack(matches)
    else:
        match_t = torch.zeros(0, 2, dtype=torch.long)
    unmatched_a = torch.nonzero(~row_used).flatten()
    unmatched_b = torch.nonzero(~col_used).flatten()
    return match_t, unmatched_a, unmatched_b


class ByteAssociate(torch.nn.Module):
    def __init__(self, track_thresh: float = 0.5, match_thresh: float = 0.8, mot20: bool = False):
        super().__init__()
        self.kalman_filter = KalmanFilter()
        self.track_thresh = track_thresh
        self.match_thresh = match_thresh
        self.mot20 = mot20

    def forward(self, mean: Tensor, covariance: Tensor, tracked: Tensor,
                bboxes: Tensor, scores: Tensor):
        remain_inds = scores > self.track_thresh
        inds_low = scores > 0.1
        inds_high = scores < self.track_thresh

        inds_second = torch.logical_and(inds_low, inds_high)
        dets_second = bboxes[inds_second]
        dets = bboxes[remain_inds]
        scores_keep = scores[remain_inds]

        # Step 2: First association, with high score detection boxes
        # Predict the current location with KF
        mean, covariance = self.kalman_filter.multi_predict(mean, covariance)
        dists = iou_distance(mean_to_tlbr(mean), dets)
        if not self.mot20:
            dists = fuse_score(dists, scores_keep)
        matches, u_track, u_detection = linear_assignment(dists, thresh=self.match_thresh)

        itracked, idet = matches[:, 0], matches[:, 1]
        new_mean, new_cov = self.kalman_filter.update(
            mean[itracked], covariance[itracked], tlwh_to_xyah(tlbr_to_tlwh(dets[idet])))
        mean[itracked] = new_mean
        covariance[itracked] = new_cov
        state = tracked.clone()
        state[itracked] = True

        # Step 3: Second association, with low score detection boxes
        r_tracked = u_track[tracked[u_track]]
        dists = iou_distance(mean_to_tlbr(mean[r_tracked]), dets_second)
        matches2, u_track2, u_detection_second = linear_assignment(dists, thresh=0.5)
        itracked2 = r_tracked[matches2[:, 0]]
        new_mean, new_cov = self.kalman_filter.update(
            mean[itracked2], covariance[itracked2],
            tlwh_to_xyah(tlbr_to_tlwh(dets_second[matches2[:, 1]])))
        mean[itracked2] = new_mean
        covariance[itracked2] = new_cov

        # unmatched tracked tracks are marked lost
        state[r_tracked[u_track2]] = False
        return mean, covariance, state, matches, matches2, u_detection


def example():
    T, D = 12, 16
    centres = torch.rand(T, 2) * 500 + 50
    wh = torch.rand(T, 2) * torch.tensor([40.0, 90.0]) + torch.tensor([20.0, 40.0])
    xyah = torch.cat([centres, (wh[:, 0] / wh[:, 1])[:, None], wh[:, 1:]], 1)
    mean = torch.cat([xyah, torch.randn(T, 4) * torch.tensor([2.0, 2.0, 0.001, 0.5])], 1)
    std = torch.cat([xyah[:, 3:] * 0.1, xyah[:, 3:] * 0.1, torch.full((T, 1), 1e-2), xyah[:, 3:] * 0.1,
                     xyah[:, 3:] * 0.03, xyah[:, 3:] * 0.03, torch.full((T, 1), 1e-5), xyah[:, 3:] * 0.03], 1)
    covariance = torch.diag_embed(std ** 2)
    tracked = torch.rand(T) > 0.25
    # detections: jittered boxes of 10 tracks after one step, plus clutter
    pred_c = centres[:10] + mean[:10, 4:6]
    tl = pred_c - wh[:10] / 2 + torch.randn(10, 2) * 2.0
    det_boxes = torch.cat([tl, tl + wh[:10]], 1)
    clutter_tl = torch.rand(D - 10, 2) * 500 + 50
    clutter = torch.cat([clutter_tl, clutter_tl + torch.rand(D - 10, 2) * 60 + 20], 1)
    bboxes = torch.cat([det_boxes, clutter])
    scores = torch.cat([torch.rand(10) * 0.8 + 0.15, torch.rand(D - 10) * 0.9])
    return ByteAssociate(), {"mean": mean, "covariance": covariance, "tracked": tracked,
                             "bboxes": bboxes, "scores": scores}
