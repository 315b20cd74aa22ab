"""Programs that stress TensorSSA's list versions (functionalize/list_versions.c):
lists built with append, `+=`, extend, item assignment, reverse, insert,
pop, remove, clear and sort inside loops and branches, dicts written with
d[k] = v, pop, setdefault, update, clear and popitem, the errors those
writes raise at run time, and lists that another name or a container can
observe, which must stay imperative. Each CASES entry is (function, inputs) or
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


def list_insert_pop_loop(x, n: int):
    stack: List[torch.Tensor] = [x]
    popped: List[torch.Tensor] = []
    for i in range(n):
        stack.insert(len(stack), stack[-1] * 2.0)  # a push at the end
        if i % 2 == 1:
            popped.append(stack.pop())
    stack.insert(0, x - 1.0)
    stack.insert(-1, x + 5.0)
    stack.insert(100, x * 0.5)      # clamped to the end
    stack.insert(-100, x * 3.0)     # clamped to the front
    first = stack.pop(0)
    second_last = stack.pop(-2)
    return torch.stack(stack), torch.stack(popped), first, second_last


def list_pop_until_empty(n: int):
    queue = [3, n, 7]
    for i in range(n):
        queue.insert(i % 2, i * 10)
    total = 0
    order: List[int] = []
    while len(queue) > 0:
        v = queue.pop()
        order.append(v)
        total = total * 2 + v
    return order, total


def list_remove_clear_sort(n: int, f: float):
    a = [5, n, 3, n, 1]
    a.remove(n)                     # the first equal item only
    a.sort()
    b = [2.5, f, -1.0, 0.0]
    b.sort(reverse=True)
    c = [True, n > 3, False]
    c.sort()
    s = ["pear", str(n), "apple", "fig"]
    s.sort(reverse=True)
    d = list(a)
    d.clear()
    d.append(n)
    return a, b, [int(v) for v in c], [len(w) for w in s], s.index("apple"), d


def list_pop_then_write(x):
    a = x * 2.0
    ts = [a, x + 1.0]
    y = ts.pop(0)
    y.add_(1.0)                     # y is a: a sees the write
    return a, torch.stack(ts)


def dict_writes(x, n: int):
    d: Dict[str, torch.Tensor] = {"a": x, "b": x * 2.0}
    got = d.setdefault("c", x + 1.0)
    kept = d.setdefault("a", x * 10.0)
    d.update({"e": x - 1.0, "b": x * 3.0})
    dropped = d.pop("b")
    fallback = d.pop("zz", x * 0.0)
    counts: Dict[int, int] = {}
    for i in range(n):
        counts[i % 3] = counts.get(i % 3, 0) + 1
        counts.setdefault(10 + i % 2, i)
    keys = list(counts.keys())
    values = list(counts.values())
    counts.clear()
    counts[n] = 5
    single = counts.popitem()       # one entry: TorchScript's first is Python's last
    return (torch.stack(list(d.values())), got, kept, dropped, fallback, keys, values,
            single[0], single[1], len(counts))


def dict_get_then_write(x):
    d = {"a": x * 2.0}
    y = d.get("a", x)
    y.add_(1.0)                     # y is d["a"]: the dict sees the write
    return d["a"]


def list_pop_empty(n: int):
    a = [1, 2]
    for i in range(n):
        a.pop()                     # the third raises
    return a


def list_pop_out_of_range(n: int):
    a = [1, 2]
    return a.pop(n)


def list_remove_missing(n: int):
    a = [1, 2]
    a.remove(n)
    return a


def dict_pop_missing(n: int):
    d = {1: 2}
    d[3] = 4
    return d.pop(n)


def dict_popitem_empty(n: int):
    d = {1: n}
    d.popitem()
    return d.popitem()


def list_element_write_after_move(x):
    ts = [x * 2.0, x * 3.0]
    ts.insert(0, ts.pop())          # x * 3 moves to the front: each tensor in one slot
    ts[0].add_(1.0)
    return torch.stack(ts)


def list_element_write_beside_input(x):
    ts = [x, x * 2.0]               # a graph input beside a fresh tensor
    ts.append(x + 1.0)
    ts[1].add_(10.0)                # slot 1 is still x * 2 (only an append before)
    ts.insert(0, ts.pop())
    return torch.stack(ts)


def list_element_slot_moved_to_input(x):
    y = x + 0.0
    ts = [y, x * 2.0]
    ts.insert(0, x * 3.0)           # slot 1 now holds y
    ts[1].add_(1.0)                 # writes y
    return torch.stack(ts), y


def list_element_stored_twice(x):
    ts = [x, x * 2.0]
    ts.append(ts[1])                # slots 1 and 2 hold one tensor
    ts[1].add_(1.0)
    return torch.stack(ts)


def list_element_popped_kept(x):
    ts = [x * 2.0, x * 3.0]
    p = ts.pop()
    ts.insert(0, p)                 # p is also read below: not a plain move
    ts[0].add_(1.0)
    return torch.stack(ts), p * 1.0


def list_concat_outer_in_loop(n: int):
    base = [1, 2]
    total = 0
    for i in range(n):
        m = base + [i]              # base is read again by the next iteration
        total += len(m) * 10 + m[-1]
    return total


def list_push_pop_end(n: int):
    stack: List[int] = []
    for i in range(n):
        stack.insert(len(stack), i)     # reads stack twice: still a push in place
        if i % 3 == 2:
            stack.pop()
    return stack, len(stack)


def list_push_pop_count(n: int):
    stack: List[int] = []
    total = 0
    for i in range(n):
        stack.insert(len(stack), i)
        if i % 3 == 2:
            total += stack.pop()
    while len(stack) > n // 2:
        total -= stack.pop()
    return len(stack), total


def list_sort_tensors(x):
    ts = [x[2], x[0], x[1]]
    ts.sort()                       # one-element tensors, compared by value
    rs = [x[1] * 2.0, x[0], x[2] - 1.0]
    rs.sort(reverse=True)
    return torch.stack(ts), torch.stack(rs)


def list_sort_tensors_ambiguous(x):
    ts = [x, x + 1.0]
    ts.sort()
    return torch.stack(ts)


def list_dict_delete_repeat(x, n: int):
    a = [5, n, 3, 8]
    del a[1]
    del a[-1]
    a *= 3                          # l *= n repeats in place
    b = [n]
    b *= 0
    ts = [x, x * 2.0, x + 1.0]
    del ts[0]
    d = {"a": 1, "b": n, "c": 3}
    del d["b"]
    for i in range(n):
        a *= 1
        d["k" + str(i)] = i
        if i % 2 == 0:
            del d["k" + str(i)]
    return a, len(b), torch.stack(ts), list(d.keys()) == ["a", "c", "k1", "k3"], list(d.values())


def list_delete_empty(n: int):
    a = [1]
    for i in range(n):
        del a[0]                    # the second raises
    return a


def dict_delete_missing(n: int):
    d = {1: 2}
    del d[n]
    return d


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

def list_element_views_list(x, n: int):
    """Writes through the elements of a list whose slots are views of the
    graph input x on some iterations and fresh tensors on others: `parts`,
    a list(...) of x.split(2), is carried by a loop with a run-time trip
    count that writes `parts[i].add_(1)` and replaces the list with a fresh
    one at i == 5. Which list the write goes through (and so whether x
    changes) depends on how many iterations ran; making it functional would
    need a run-time tag carried through the loop. It stays imperative, with
    both reasons, and matches PyTorch."""
    parts: List[torch.Tensor] = list(x.split(2))
    for i in range(n):
        parts[i].add_(1.0)
        if i == 5:
            parts = [x * 2.0]
    return x, torch.stack(parts)


def _block_early_return(a, k: int):
    if k > 0:
        if k == 3:
            return a
        a.add_(1.0)
    return a


def list_element_write_bound_trip_count(x, n: int):
    """fairseq's NGramRepeatBlock in small: a helper with an early return
    (TorchScript merges the returned tensor with prim::Uninitialized) writes
    a fresh clone in place, and its result is appended to a list, in a loop
    whose trip count is the bound int n. object_names.c follows the clone
    through the loop once it knows n from the binding (the plan is
    specialized to bound scalars); with n unknown the write stayed
    imperative and the whole program was one filter."""
    outs: List[torch.Tensor] = []
    for k in range(n):
        outs.append(_block_early_return(x.clone(), k))
    return outs


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
    "list_insert_pop_loop": (list_insert_pop_loop, {"x": torch.randn(3), "n": 5}),
    "list_pop_until_empty": (list_pop_until_empty, {"n": 4}),
    "list_remove_clear_sort": (list_remove_clear_sort, {"n": 4, "f": 1.25}),
    "list_pop_then_write": (list_pop_then_write, {"x": torch.randn(3)}),
    "dict_writes": (dict_writes, {"x": torch.randn(2), "n": 5}),
    "dict_get_then_write": (dict_get_then_write, {"x": torch.randn(3)}),
    # TorchScript's messages (eager Python says "pop index out of range"
    # for the second).
    "list_pop_empty": (list_pop_empty, {"n": 3}, (1, "pop from empty list")),
    "list_pop_out_of_range": (list_pop_out_of_range, {"n": 5}, (1, "list index out of range")),
    "list_remove_missing": (list_remove_missing, {"n": 7}, (1, "list.remove(x): x not in list")),
    "dict_pop_missing": (dict_pop_missing, {"n": 7}, (1, "KeyError: 7")),
    "dict_popitem_empty": (dict_popitem_empty, {"n": 7}, (1, "popitem(): dictionary is empty")),
    "list_element_write_after_move": (list_element_write_after_move, {"x": torch.randn(3)}),
    "list_element_write_beside_input": (list_element_write_beside_input, {"x": torch.randn(3)}),
    "list_element_slot_moved_to_input": (list_element_slot_moved_to_input, {"x": torch.randn(3)}),
    "list_element_stored_twice": (list_element_stored_twice, {"x": torch.randn(3)}),
    "list_element_popped_kept": (list_element_popped_kept, {"x": torch.randn(3)}),
    "list_concat_outer_in_loop": (list_concat_outer_in_loop, {"n": 3}),
    "list_push_pop_end": (list_push_pop_end, {"n": 10}),
    "list_element_views_list": (list_element_views_list, {"x": torch.randn(4), "n": 2}),
    "list_push_pop_count": (list_push_pop_count, {"n": 50}),
    "list_element_write_bound_trip_count": (list_element_write_bound_trip_count,
                                            {"x": torch.randn(3), "n": 5}),
    "list_sort_tensors": (list_sort_tensors, {"x": torch.randn(3)}),
    "list_sort_tensors_ambiguous": (list_sort_tensors_ambiguous, {"x": torch.randn(2)},
                                    (1, "Boolean value of Tensor with more than one value is ambiguous")),
    "list_dict_delete_repeat": (list_dict_delete_repeat, {"x": torch.randn(2), "n": 4}),
    # TorchScript's message (eager Python: "list assignment index out of range")
    "list_delete_empty": (list_delete_empty, {"n": 2}, (1, "pop index out of range")),
    "dict_delete_missing": (dict_delete_missing, {"n": 7}, (1, "KeyError: 7")),
}
