"""List elements with several names, written in branches of a loop with a
known trip count (issue 30; functionalize/object_names.c): `both = l + [a]`
holds `a` twice and `b` once; `u, v = l` names both again; each iteration
builds a one-element list `tmp` of `l[i % 2]` and writes through it, by
`mul_` when i == 1 (that is `b`) and by `add_` otherwise (`a`), so each
write's tensor is decided by the iteration; `same`, three slots of `a`,
is written at an index from the arguments (whichever slot it names, it
is `a`). PyTorch shows every write through every name and slot."""
from typing import List

import torch


def list_alias_branches_copies(x, j: int):
    a = x * 1.0
    b = x * 2.0
    l: List[torch.Tensor] = [a, b]
    both = l + [a]
    u, v = l
    for i in range(3):
        tmp: List[torch.Tensor] = [l[i % 2]]
        if i == 1:
            tmp[0].mul_(2.0)
        else:
            tmp[0].add_(1.0)
    same: List[torch.Tensor] = [a, a, a]
    same[j].sub_(0.25)
    return torch.stack(l), torch.stack(both), u * 1.0, v * 1.0, torch.stack(same)


def example():
    return list_alias_branches_copies, {"x": torch.randn(4), "j": -2}
