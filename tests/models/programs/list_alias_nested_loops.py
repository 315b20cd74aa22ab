"""Writes through list elements inside nested loops of known trip counts
whose tensor other names and lists also hold (issue 30; functionalize/
object_names.c follows such loops iteration by iteration): `shared` is
slot 0 of `p` and slot 0 of `q` and is read again after the loops; the
inner loop writes it through both lists; the outer loop writes `other`,
slot 1 of `p`, by name. (Written as `p[1].add_(p[0])`, TorchScript 1.13
itself loses that write when the program also returns `shared * 1.0`: its
scripted outputs differ from eager ones, so the program says `other`.) Then a list filled by a loop, written at the loop's count
(`bufs[i]`), while `last`, carried from the previous iteration, is the
tensor of the slot written the iteration before (on the first iteration
it is `bufs[0]`, the very tensor being written) and `first`, the value the
loop starts from, is `bufs[0]`. PyTorch shows every write through every
name."""
from typing import List

import torch


def list_alias_nested_loops(x):
    shared = x * 1.0
    other = x * 2.0
    p: List[torch.Tensor] = [shared, other]
    q: List[torch.Tensor] = []
    q.append(shared)
    for i in range(2):
        for j in range(3):
            p[0].add_(1.0)
            q[0].mul_(0.5)
        other.add_(p[0])
    total = shared * 1.0
    bufs: List[torch.Tensor] = []
    for i in range(3):
        bufs.append(x * float(i + 1))
    first = bufs[0]
    last = bufs[0]
    acc = x * 0.0
    for i in range(3):
        cur = bufs[i]
        cur.add_(1.0)
        acc = acc + last * 10.0
        last = cur
    return torch.stack(p), torch.stack(q), total, other * 1.0, torch.stack(bufs), acc, last, first


def example():
    return list_alias_nested_loops, {"x": torch.randn(4)}
