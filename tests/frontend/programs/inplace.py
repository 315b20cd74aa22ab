# In-place ops of several kinds: arithmetic, copy_, fill_, masked_fill_,
# index_put_ (x[idx] = v), clamp_ and relu_.
import torch


def inplace(x: torch.Tensor, mask: torch.Tensor, idx: torch.Tensor):
    x = x.clone()
    x.add_(1.0)
    x.mul_(3.0)
    x.masked_fill_(mask, -1.0)
    x[idx] = 5.0
    y = torch.empty_like(x)
    y.copy_(x)
    y.clamp_(-2.0, 2.0)
    y.relu_()
    z = torch.zeros(3)
    z.fill_(7.0)
    return x, y, z


MODEL = inplace
