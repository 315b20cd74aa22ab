# Views of one tensor (slice, select, view, transpose, unsqueeze, expand)
# written through in place, so the mutation is seen by every alias.
import torch


def views(x: torch.Tensor):
    y = x.view(4, 6)
    row = y[1]
    col = y[:, 2]
    row.add_(1.0)
    col.mul_(2.0)
    t = y.transpose(0, 1)
    t[0:2, 1:3] = 0.0
    u = x.reshape(24).unsqueeze(0).expand(3, 24)
    sub = y[1:3]
    sub.zero_()
    return x, u, t.contiguous()


MODEL = views
