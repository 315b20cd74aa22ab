"""Programs that stress TensorSSA's list versions (functionalize/list_versions.c):
lists built with append, `+=`, extend, item assignment and reverse inside
loops and branches, and lists that another name or a container can observe,
which must stay imperative. Each CASES entry is (function, inputs) or
(function, inputs, (exit_status, message)) for a program that must fail;
generate.py exports them with PyTorch's eager outputs, and the
conformance runner's tssa mode (tests/conformance/case_run.c) runs the
functionalized graph against them.
"""
from typing import Dict, List, Optional

import torch


def list_append_loop(x, n: int):
    ys: List[torch.Tensor] = []
    for i in range(n):
        ys.append(x * float(i))
    return torch.stack(ys), len(ys)


def list_append_if_in_loop(x):
    kept: List[int] = []
    for i in range(x.size(0)):
        if bool(x[i] > 0.0):
            kept.append(i)
    return kept, len(kept)


def list_plus_equal_carried(x):
    outputs: List[torch.Tensor] = []
    state = x[0]
    for i in range(x.size(0)):
        state = torch.tanh(state + x[i])
        outputs += [state]
    return torch.stack(outputs), state


def list_set_item_loop(x):
    z = [x[0], x[1], x[2]]
    for i in range(3):
        z[i] = z[i] * float(i + 1)
    z[-1] = z[-1] + z[0]
    return torch.stack(z)


def list_set_item_out_of_range(x, k: int):
    z = [x[0], x[1]]
    for i in range(k):
        z[i] = z[i] + 1.0       # z[2] raises IndexError
    return torch.stack(z)


def list_nested_append(x, n: int):
    rows: List[List[int]] = []
    for i in range(n):
        row = [i]
        for j in range(i):
            row.append(int(x[j]))
        row.reverse()
        rows.append(row)
    return rows


def list_extend_read_in_loop(x, n: int):
    acc = [0.0]
    for i in range(n):
        acc.extend([acc[-1] + float(x[i]), float(i)])
    return acc, len(acc)


def list_escape_then_append(x):
    inner = [x]
    outer: List[List[torch.Tensor]] = []
    outer.append(inner)
    inner.append(x * 2.0)       # outer[0] sees it: inner stays imperative
    return torch.stack(outer[0])


def list_alias_before_loop(n: int):
    a: List[int] = []
    b = a
    for i in range(n):
        b += [i]                # b is carried by the loop; a is the same list
    return a, b


def list_merge_alias(c: bool):
    a = [1]
    b = [2]
    if c:
        d = a
    else:
        d = b
    d.append(3)                 # writes a or b
    return a, b, d


def list_alias_read_in_loop(n: int):
    a: List[int] = []
    b = a
    sizes: List[int] = []
    for i in range(n):
        b += [i]
        sizes.append(len(a))    # a is b: it grows in the loop
    return sizes


def list_if_merge_then_write(x, c: bool):
    keep = [x]
    if c:
        keep.append(x + 1.0)
        picked = keep
    else:
        picked = [x * 2.0]
    picked.append(x - 1.0)      # writes keep when c
    return torch.stack(keep), torch.stack(picked)


def list_self_extend(n: int):
    a = [1, n]
    a.extend(a)                 # the items before the call, once
    a[-2] = 7
    return a


def list_inner_written_via_outer(n: int):
    outer = [[1], [2]]
    outer.append([n])
    outer[0].append(9)          # an inner list, taken out of outer, written
    return outer


def list_stored_each_iteration(x, n: int):
    ys: List[torch.Tensor] = []
    outer: List[List[torch.Tensor]] = []
    for i in range(n):
        ys.append(x * float(i))
        outer.append(ys)        # the same list every time: the next append shows in all
    return [torch.stack(o) for o in outer]


def list_fresh_each_iteration(x, n: int):
    outer: List[List[torch.Tensor]] = []
    for i in range(n):
        ys = [x]
        ys.append(x * float(i))
        outer.append(ys)        # a new list every time, complete when stored
    return [torch.stack(o) for o in outer]


def list_set_in_one_branch(x, c: bool):
    if c:
        ys = [x]
    else:
        raise ValueError("no list")     # ys is prim::Uninitialized on this path
    ys.append(x * 2.0)
    return torch.stack(ys)


torch.manual_seed(0)     # the example inputs below are the same on every run

def list_fresh_branch_or_cached(x, key: int):
    """A list built in one branch and one read out of a dict in the other,
    joined by the If (torchvision's AnchorGenerator.cached_grid_anchors):
    the appends run on the fresh list before the join, so they are new
    versions; the joined name is never written."""
    cache: Dict[int, List[torch.Tensor]] = {0: [x * 2.0]}
    if key in cache:
        got = cache[key]
    else:
        built: List[torch.Tensor] = []
        for i in range(3):
            built.append(x + float(i))
        got = built
    return torch.stack(got), len(cache[0])


def list_cached_branch_then_write(x, key: int):
    """The same join, then a write through the joined name: it may be the
    dict's list, so it stays imperative and the dict sees it."""
    cache: Dict[int, List[torch.Tensor]] = {0: [x * 2.0]}
    if key in cache:
        got = cache[key]
    else:
        got = [x]
    got.append(x * 3.0)
    return torch.stack(cache[0]), len(got)


def list_fresh_then_optional(x, n: int):
    """A list filled and only then held as an Optional (module_state.c
    gives a module's Optional[List[Tensor]] attribute such a value): the
    Optional name comes after every write, so the writes are new versions."""
    opt: Optional[List[torch.Tensor]] = None
    if n > 0:
        fresh: List[torch.Tensor] = []
        for i in range(n):
            fresh.append(x * float(i + 1))
        opt = fresh
    total = x * 0.0
    if opt is not None:
        for t in opt:
            total = total + t
    return total


def list_optional_then_write(x, n: int):
    """The Optional name taken before a write: it must see the append, so the
    write stays imperative."""
    fresh: List[torch.Tensor] = [x]
    opt: Optional[List[torch.Tensor]] = None
    if n > 0:
        opt = fresh
    fresh.append(x * 2.0)
    count = 0
    if opt is not None:
        count = len(opt)
    return count, len(fresh)

CASES = {
    "list_append_loop": (list_append_loop, {"x": torch.randn(3), "n": 4}),
    "list_append_if_in_loop": (list_append_if_in_loop, {"x": torch.randn(8)}),
    "list_plus_equal_carried": (list_plus_equal_carried, {"x": torch.randn(5, 2)}),
    "list_set_item_loop": (list_set_item_loop, {"x": torch.randn(3, 2)}),
    "list_set_item_out_of_range": (list_set_item_out_of_range, {"x": torch.randn(2), "k": 3},
                                   (1, "list index out of range")),
    "list_nested_append": (list_nested_append, {"x": torch.tensor([3, 1, 4, 1]), "n": 4}),
    "list_extend_read_in_loop": (list_extend_read_in_loop, {"x": torch.randn(3), "n": 3}),
    "list_escape_then_append": (list_escape_then_append, {"x": torch.randn(3)}),
    "list_alias_before_loop": (list_alias_before_loop, {"n": 3}),
    "list_merge_alias_t": (list_merge_alias, {"c": True}),
    "list_merge_alias_f": (list_merge_alias, {"c": False}),
    "list_alias_read_in_loop": (list_alias_read_in_loop, {"n": 4}),
    "list_if_merge_then_write_t": (list_if_merge_then_write, {"x": torch.randn(2), "c": True}),
    "list_if_merge_then_write_f": (list_if_merge_then_write, {"x": torch.randn(2), "c": False}),
    "list_self_extend": (list_self_extend, {"n": 5}),
    "list_inner_written_via_outer": (list_inner_written_via_outer, {"n": 5}),
    "list_stored_each_iteration": (list_stored_each_iteration, {"x": torch.randn(2), "n": 3}),
    "list_fresh_each_iteration": (list_fresh_each_iteration, {"x": torch.randn(2), "n": 3}),
    "list_set_in_one_branch_t": (list_set_in_one_branch, {"x": torch.randn(2), "c": True}),
    "list_set_in_one_branch_f": (list_set_in_one_branch, {"x": torch.randn(2), "c": False},
                                 (1, "no list")),
    "list_fresh_branch_or_cached_t": (list_fresh_branch_or_cached, {"x": torch.randn(2), "key": 0}),
    "list_fresh_branch_or_cached_f": (list_fresh_branch_or_cached, {"x": torch.randn(2), "key": 5}),
    "list_cached_branch_then_write": (list_cached_branch_then_write, {"x": torch.randn(2), "key": 0}),
    "list_fresh_then_optional": (list_fresh_then_optional, {"x": torch.randn(2), "n": 3}),
    "list_optional_then_write": (list_optional_then_write, {"x": torch.randn(2), "n": 1}),
}
