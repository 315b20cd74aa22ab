"""In-place writes to tensors kept in lists (issue 30: "TensorSSA follows
tensors through lists"): `bufs[i].add_(x)` over a list built by a literal
and an append; `states[k][mask] = v` (an index_put_ on an element) and
writes to it in both branches of an If; `xs[j].copy_(y)` over a list made
by a comprehension; `xs[int(idx)]` at an index read from tensor data (-1:
the set back uses the same index, and nothing changes the list in
between); `out[-1][:, 0] = t` on the element just appended; and two lists
whose elements are written in turn, `a[i].add_(u)` with `u = b[i]` written
after it (an element of another list of fresh tensors is never a[i]).
Every tensor in the lists is its own allocation and no other name of it is
read after the writes, so TensorSSA makes each write the functional op on
the element plus a set of the list slot (functionalize/list_elements.c):
no write stays imperative and no loop stays one opaque filter."""
from typing import List

import torch


def list_element_writes(x, y, mask, t, idx):
    bufs: List[torch.Tensor] = [torch.zeros(4), torch.ones(4)]
    bufs.append(x * 2.0)
    for i in range(3):
        bufs[i].add_(x)
    states: List[torch.Tensor] = []
    for k in range(3):
        states.append(x * float(k + 1))
    for k in range(3):
        states[k][mask] = y[k]
        if k % 2 == 1:
            states[k].mul_(2.0)
        else:
            states[k][0] = y[3]
    xs = [torch.zeros(4) for _ in range(2)]
    for j in range(2):
        xs[j].copy_(y * float(j))
    xs[int(idx)].mul_(3.0)
    out: List[torch.Tensor] = []
    for step in range(3):
        out.append(torch.zeros(3, 2) + float(step))
        out[-1][:, 0] = t
    a: List[torch.Tensor] = [x * 1.0, x * 2.0]
    b: List[torch.Tensor] = [y * 3.0, y * 4.0]
    for i in range(2):
        u = b[i]
        a[i].add_(u)
        u.mul_(2.0)
    return (torch.stack(bufs), torch.stack(states), torch.stack(xs), torch.stack(out),
            torch.stack(a), torch.stack(b))


def example():
    return list_element_writes, {"x": torch.randn(4), "y": torch.randn(4),
                                 "mask": torch.tensor([True, False, True, False]),
                                 "t": torch.randn(3), "idx": torch.tensor(-1)}
