"""SuperGlue's optimal-transport matching head: log-space Sinkhorn
iterations over the score matrix augmented with a dustbin row and column,
then mutual-nearest-neighbour matches above a threshold (issue 30's public
code).

Origin: magicleap/SuperGluePretrainedNetwork, models/superglue.py,
functions log_sinkhorn_iterations, log_optimal_transport and arange_like,
and the tail of SuperGlue.forward from "Compute matching descriptor
distance" on, revision 041f0f208a4efa37be24288c4f03bf4ed29d7fc7.

Changes:
- the tail of SuperGlue.forward is a function, match_descriptors, taking
  the projected descriptors mdesc0/mdesc1, bin_score (the module's
  Parameter), the descriptor dimension, iteration count and threshold that
  forward reads from self.config; it returns the dict's four values as a
  tuple (keypoint encoder and attention GNN are not part of this port);
- `scores.new_tensor(1)` -> `torch.ones((), dtype=scores.dtype,
  device=scores.device)`, `indices0.new_tensor(-1)` -> a 0-d int64 tensor
  and `scores.new_tensor(0)` -> a 0-d tensor of scores' dtype (TorchScript
  has no Tensor.new_tensor);
- `b, m, n = scores.shape` is kept; `scores.max(2)` results' `.values` /
  `.indices` are kept as written.
"""
from typing import Tuple

import torch
from torch import Tensor


def log_sinkhorn_iterations(Z: Tensor, log_mu: Tensor, log_nu: Tensor, iters: int) -> Tensor:
    """ Perform Sinkhorn Normalization in Log-space for stability"""
    u, v = torch.zeros_like(log_mu), torch.zeros_like(log_nu)
    for _ in range(iters):
        u = log_mu - torch.logsumexp(Z + v.unsqueeze(1), dim=2)
        v = log_nu - torch.logsumexp(Z + u.unsqueeze(2), dim=1)
    return Z + u.unsqueeze(2) + v.unsqueeze(1)


def log_optimal_transport(scores: Tensor, alpha: Tensor, iters: int) -> Tensor:
    """ Perform Differentiable Optimal Transport in Log-space for stability"""
    b, m, n = scores.shape
    one = torch.ones((), dtype=scores.dtype, device=scores.device)
    ms, ns = (m*one).to(scores), (n*one).to(scores)

    bins0 = alpha.expand(b, m, 1)
    bins1 = alpha.expand(b, 1, n)
    alpha = alpha.expand(b, 1, 1)

    couplings = torch.cat([torch.cat([scores, bins0], -1),
                           torch.cat([bins1, alpha], -1)], 1)

    norm = - (ms + ns).log()
    log_mu = torch.cat([norm.expand(m), ns.log()[None] + norm])
    log_nu = torch.cat([norm.expand(n), ms.log()[None] + norm])
    log_mu, log_nu = log_mu[None].expand(b, -1), log_nu[None].expand(b, -1)

    Z = log_sinkhorn_iterations(couplings, log_mu, log_nu, iters)
    Z = Z - norm  # multiply probabilities by M+N
    return Z


def arange_like(x: Tensor, dim: int) -> Tensor:
    return x.new_ones(x.shape[dim]).cumsum(0) - 1  # traceable in 1.1


def match_descriptors(mdesc0: Tensor, mdesc1: Tensor, bin_score: Tensor,
                      descriptor_dim: int, sinkhorn_iterations: int,
                      match_threshold: float) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    # Compute matching descriptor distance.
    scores = torch.einsum('bdn,bdm->bnm', mdesc0, mdesc1)
    scores = scores / descriptor_dim**.5

    # Run the optimal transport.
    scores = log_optimal_transport(
        scores, bin_score,
        iters=sinkhorn_iterations)

    # Get the matches with score above "match_threshold".
    max0, max1 = scores[:, :-1, :-1].max(2), scores[:, :-1, :-1].max(1)
    indices0, indices1 = max0.indices, max1.indices
    mutual0 = arange_like(indices0, 1)[None] == indices1.gather(1, indices0)
    mutual1 = arange_like(indices1, 1)[None] == indices0.gather(1, indices1)
    zero = torch.zeros((), dtype=scores.dtype, device=scores.device)
    mscores0 = torch.where(mutual0, max0.values.exp(), zero)
    mscores1 = torch.where(mutual1, mscores0.gather(1, indices1), zero)
    valid0 = mutual0 & (mscores0 > match_threshold)
    valid1 = mutual1 & valid0.gather(1, indices1)
    minus_one = torch.full((), -1, dtype=torch.long, device=indices0.device)
    indices0 = torch.where(valid0, indices0, minus_one)
    indices1 = torch.where(valid1, indices1, minus_one)

    return indices0, indices1, mscores0, mscores1


def example():
    d, n0, n1 = 64, 50, 40
    base = torch.randn(1, d, n1)
    mdesc1 = base * 2
    # the first 30 keypoints of image 0 are noisy copies of image 1's
    mdesc0 = torch.cat([base[:, :, :30] * 2 + 0.3 * torch.randn(1, d, 30),
                        torch.randn(1, d, n0 - 30)], 2)
    return match_descriptors, {"mdesc0": mdesc0, "mdesc1": mdesc1,
                               "bin_score": torch.tensor(1.0),
                               "descriptor_dim": d, "sinkhorn_iterations": 20,
                               "match_threshold": 0.2}
