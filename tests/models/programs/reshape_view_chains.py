"""In-place writes through reshape, flatten, ravel and contiguous results
along several view chains (issue 30): whether each is a view (the write
shows in the input) or a copy (it does not) is PyTorch's stride rule
(ATen's computeStride), which TensorSSA decides at compile time from the
inputs' layouts (functionalize/reshape_decide.c): contiguous rows, a
transpose, a step, size-1 dims, expand, chunk pieces, an elementwise result,
and a write in a loop."""
import torch


def reshape_view_chains(x, w):
    a = x.reshape(2, 12)                       # view
    a[1, 3:9].mul_(2.0)
    b = x.t().reshape(24)                      # copy
    b.add_(1.0)
    c = x[1:3].reshape(-1)                     # rows of a contiguous tensor: view
    c[::2].sub_(0.5)
    d = x[:, ::2].flatten()                    # a step: copy
    d.zero_()
    e = x.unsqueeze(0).transpose(0, 1).reshape(4, 6)   # only size-1 dims move: view
    e[0].fill_(3.0)
    h = (x * 2.0).reshape(6, 4)                # an elementwise result is row-major: view
    h[0].add_(100.0)
    g = w.expand(3, 5).contiguous()            # copy
    g[0, 0] = -1.0
    k = w.reshape(5)                           # view
    k[4] = 9.0
    m = x[0].contiguous()                      # already contiguous: x[0] itself
    m[0] = 42.0
    p, q = x.chunk(2, dim=1)
    q.reshape(-1).add_(10.0)                   # a column block: copy
    r = x.chunk(2, dim=0)[1].ravel()           # a row block: view
    r.mul_(3.0)
    for i in range(3):
        x.reshape(-1)[i].add_(1.0)             # view, written in a loop
    return x, a, b, c, d, e, h, g, w, p


def example():
    return reshape_view_chains, {"x": torch.randn(4, 6), "w": torch.randn(1, 5)}
