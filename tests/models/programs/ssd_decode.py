"""SSD-style decoding (TensorSSA paper workload).

Offsets are applied to center-form priors with the two variances, then the
boxes are converted to corner form in place: `boxes[:, :2] -= boxes[:, 2:] / 2`
reads the half that the next statement `boxes[:, 2:] += boxes[:, :2]` mutates.
Class scores come from a softmax; the best class per box is a max over dim 1.
"""
import torch


def ssd_decode(loc, conf, priors, variance_center: float, variance_size: float):
    # loc: [N, 4], conf: [N, C], priors: [N, 4] as (cx, cy, w, h)
    boxes = torch.cat((priors[:, :2] + loc[:, :2] * variance_center * priors[:, 2:],
                       priors[:, 2:] * torch.exp(loc[:, 2:] * variance_size)), 1)
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    scores = torch.softmax(conf, dim=-1)
    best, labels = scores[:, 1:].max(dim=1)
    return boxes, best, labels + 1


def example():
    n = 12
    centers = torch.rand(n, 2)
    sizes = torch.rand(n, 2) * 0.3 + 0.05
    inputs = {
        "loc": torch.randn(n, 4) * 0.5,
        "conf": torch.randn(n, 5),
        "priors": torch.cat((centers, sizes), 1),
        "variance_center": 0.1,
        "variance_size": 0.2,
    }
    return ssd_decode, inputs
