"""Deep SORT's KalmanFilter (deep_sort/kalman_filter.py) in PyTorch: the
constant-velocity model with its `_motion_mat` and `_update_mat`, the
`_std_weight_*` noise scales, predict, project and update, the update
solving with the Cholesky factor (scipy's cho_factor/cho_solve become
torch.linalg.cholesky/torch.cholesky_solve) (issue 11's public programs)."""
from typing import Tuple

import torch
from torch import Tensor


class KalmanFilter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        ndim, dt = 4, 1.

        # Create Kalman filter model matrices.
        self._motion_mat = torch.eye(2 * ndim, 2 * ndim)
        for i in range(ndim):
            self._motion_mat[i, ndim + i] = dt
        self._update_mat = torch.eye(ndim, 2 * ndim)

        # Motion and observation uncertainty are chosen relative to the current
        # state estimate. These weights control the amount of uncertainty in
        # the model. This is a bit hacky.
        self._std_weight_position = 1. / 20
        self._std_weight_velocity = 1. / 160

    def predict(self, mean: Tensor, covariance: Tensor) -> Tuple[Tensor, Tensor]:
        std_pos = torch.stack([
            self._std_weight_position * mean[3],
            self._std_weight_position * mean[3],
            torch.tensor(1e-2),
            self._std_weight_position * mean[3]])
        std_vel = torch.stack([
            self._std_weight_velocity * mean[3],
            self._std_weight_velocity * mean[3],
            torch.tensor(1e-5),
            self._std_weight_velocity * mean[3]])
        motion_cov = torch.diag(torch.square(torch.cat([std_pos, std_vel])))

        mean = torch.mv(self._motion_mat, mean)
        covariance = torch.linalg.multi_dot((
            self._motion_mat, covariance, self._motion_mat.T)) + motion_cov

        return mean, covariance

    def project(self, mean: Tensor, covariance: Tensor) -> Tuple[Tensor, Tensor]:
        std = torch.stack([
            self._std_weight_position * mean[3],
            self._std_weight_position * mean[3],
            torch.tensor(1e-1),
            self._std_weight_position * mean[3]])
        innovation_cov = torch.diag(torch.square(std))

        mean = torch.mv(self._update_mat, mean)
        covariance = torch.linalg.multi_dot((
            self._update_mat, covariance, self._update_mat.T))
        return mean, covariance + innovation_cov

    def update(self, mean: Tensor, covariance: Tensor, measurement: Tensor) -> Tuple[Tensor, Tensor]:
        projected_mean, projected_cov = self.project(mean, covariance)

        chol_factor = torch.linalg.cholesky(projected_cov)
        kalman_gain = torch.cholesky_solve(
            torch.mm(covariance, self._update_mat.T).T, chol_factor).T
        innovation = measurement - projected_mean

        new_mean = mean + torch.mv(kalman_gain, innovation)
        new_covariance = covariance - torch.linalg.multi_dot((
            kalman_gain, projected_cov, kalman_gain.T))
        return new_mean, new_covariance

    def forward(self, mean: Tensor, covariance: Tensor, measurement: Tensor) -> Tuple[Tensor, Tensor]:
        mean, covariance = self.predict(mean, covariance)
        return self.update(mean, covariance, measurement)


def example():
    mean = torch.tensor([10.0, 20.0, 0.5, 40.0, 1.0, -1.0, 0.0, 0.5])
    a = torch.randn(8, 8) * 0.1
    covariance = a @ a.T + torch.eye(8)
    measurement = torch.tensor([11.0, 19.0, 0.52, 41.0])
    return KalmanFilter(), {"mean": mean, "covariance": covariance, "measurement": measurement}
