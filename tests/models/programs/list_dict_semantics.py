"""TorchScript's list and dict semantics in one program (issue 11): append,
extend, +=, +, *, insert, pop, remove, reverse, index, count, clear, sort,
slicing with steps, len and `in` on lists of ints and of tensors (a list
aliases its tensors: an in-place write through an element is seen through
the list), and dict keys/values/items/get/setdefault with insertion-order
iteration."""
from typing import Dict, List

import torch


def list_dict_semantics(x, n: int):
    a: List[int] = [5, 3, 8]
    a.append(n)
    a.extend([1, 9])
    a += [7]
    b = a + [0] * 2
    b.insert(1, 42)
    last = b.pop()
    first = b.pop(0)
    b.remove(8)
    b.reverse()
    where = b.index(42)
    twos = (b * 2).count(3)
    stepped = b[::2] + b[1::3] + b[::-1]
    c = stepped[:]
    c.sort()
    c_desc = list(c)
    c_desc.sort(reverse=True)
    found = 1 if 9 in c else 0
    cleared = list(c)
    cleared.clear()

    ts: List[torch.Tensor] = [x, x * 2]
    ts.append(x + 1)
    ts[1].add_(10.0)          # x * 2 is its own tensor: the list sees the write
    ts.insert(0, ts.pop())
    total = torch.stack(ts).sum(0)

    d: Dict[str, int] = {"b": 2, "a": 1}
    d["c"] = n
    d.setdefault("a", 100)
    d.setdefault("z", 26)
    keys = 0
    for k in d.keys():
        keys = keys * 10 + len(k) + (1 if k == "z" else 0)
    values = [v for v in d.values()]
    pairs = 0
    for k, v in d.items():
        pairs = pairs * 3 + v
    got = d.get("missing", -1) + d.get("b", -1)
    return (a, b, c, c_desc, [last, first, where, twos, found, len(cleared), len(stepped)],
            total, keys, values, pairs, got)


def example():
    return list_dict_semantics, {"x": torch.randn(3), "n": 4}
