"""Programs that stress TensorSSA's list versions (functionalize/list_versions.c):
lists built with append, `+=`, extend, item assignment and reverse inside
loops and branches, and lists that another name or a container can observe,
which must stay imperative. Each CASES entry is (function, inputs) or
(function, inputs, (exit_status, message)) for a program that must fail;
generate.py exports them with PyTorch's eager outputs, and the
conformance runner's tssa mode (tests/conformance/case_run.c) runs the
functionalized graph against them.
"""
from typing import List

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
}
