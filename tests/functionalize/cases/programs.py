"""Programs that stress TensorSSA: views read across writes, writes inside
nested loops and branches, regions that do or do not overlap, values merged
by control flow, tensors that escape into lists. Each CASES entry is
(function, inputs); generate.py exports them with PyTorch's eager outputs.
The functionalized graph must compute the same (or stay imperative where it
cannot be proven to), which the conformance runner's tssa mode checks.
"""
from typing import Dict, List

import torch


def live_view_in_loop(x):
    y = x.clone()
    row = y[0]
    acc = torch.zeros_like(row)
    for i in range(y.size(0)):
        acc = acc + row         # row is re-read: row 0 changes in the first iteration
        y[i] += 1.0
    return y, acc


def nested_loop_write(x, n: int):
    y = torch.zeros(n, n)
    for i in range(n):
        for j in range(n):
            if (i + j) % 2 == 0:
                y[i, j] = x[i] * j
            else:
                y[i][j] += 1.0
    return y


def disjoint_rows(x):
    y = x.clone()
    a = y[0]
    b = y[1]
    y[1] = 5.0                  # a's region is untouched, b's is written
    c = a * 2.0
    y[:, 2] = -1.0              # both rows are written
    return c, a * 2.0, b * 2.0, y


def strided_halves(x):
    y = x.clone()
    even = y[0::2]
    odd = y[1::2]
    even.mul_(10.0)             # odd is disjoint (same step, other residue)
    return odd + 0.0, even + 0.0, y


def merge_then_write(x, z, c: bool):
    x = x.clone()
    z = z.clone()
    if c:
        y = x
    else:
        y = z
    y.add_(1.0)                 # writes x or z: only may-alias is known
    return x, z, y


def merge_fresh_write(x, c: bool):
    if c:
        y = x * 2.0
    else:
        y = x + 1.0
    y.add_(1.0)
    y[0] = 0.0
    return y


def loop_carried_write(x, n: int):
    y = x.clone()
    for i in range(n):
        y = y * 2.0
        y[0] = float(i)
    return y


def loop_carried_view(x):
    y = x.clone()
    z = y
    for i in range(3):
        z = z[1:]
        z[0] += 1.0             # writes y through a carried view
    return y, z


def list_escape(x):
    y = x.clone()
    ys = [y, y * 2.0]
    ys[0].add_(1.0)             # writes y through the list
    return y, ys[1]


def transpose_chain(x):
    y = x.clone()
    t = y.t()
    c = t[1:, :2]
    d = t[0]
    c.mul_(3.0)
    return y, d + 0.0, c + 0.0


def chunk_write(x):
    y = x.clone()
    a, b, c = y.chunk(3, 0)
    b.zero_()
    c.add_(a)
    return y, a + c


def while_write(x):
    y = x.clone()
    i = 0
    while float(y.sum()) < 100.0 and i < 50:
        y[i % y.size(0)] += 3.0
        i += 1
    return y, i


def if_in_loop_live_view(x, k: int):
    y = x.clone()
    first = y[0]
    total = torch.zeros(y.size(1))
    for i in range(y.size(0)):
        if i % k == 0:
            y[i].mul_(-1.0)
        total = total + first
    return y, total


def masks(x):
    y = x.clone()
    m = y > 0
    y[m] = 0.0
    y.masked_fill_(y < -1.0, -1.0)
    return y, m


def inputs_written(x, y):
    r = x[0]
    x.add_(y)
    return r * 1.0, x


def expand_after_write(x):
    y = x.clone()
    e = y[0:1].expand(3, -1)
    before = e + 0.0
    y[0] = 7.0
    return before, e + 0.0


def diagonal_fill(x):
    y = x.clone()
    d = y.diagonal()
    d.fill_(0.0)
    return y, d + 1.0


def promote_in_place(x):
    y = torch.zeros(3)
    y += x                      # float32 += float64 stays float32
    z = y[1:]
    z.mul_(x[1:])
    return y


def outputs_alias(x):
    y = x.clone()
    y[1] = 2.0
    return y, y[1], y


def unsqueeze_write(x):
    y = x.clone()
    u = y.unsqueeze(0)
    u[0, 1] = 3.0
    s = u.squeeze(0)
    s[0].neg_()
    return y, u + 0.0


def loop_of_if_writes(x, n: int):
    y = x.clone()
    out = torch.zeros(n)
    for i in range(n):
        if i % 3 == 0:
            y[0] = y[0] + 1.0
        elif i % 3 == 1:
            y[1].sub_(1.0)
        out[i] = y.sum()
    return y, out


def select_of_loop_output(x, n: int):
    y = x.clone()
    for i in range(n):
        y = y + 1.0
    r = y[0]
    y[0] = 0.0
    return r + 0.0, y


def write_then_store(x, n: int):
    ys: List[torch.Tensor] = []
    for i in range(n):
        y = torch.cat([x, x * float(i)], -1)
        y[:, 0::2] *= 2.0       # every write before the store: ys gets the new version
        ys.append(y)
    return ys


def write_store_write(x):
    y = x.clone()
    y.mul_(2.0)
    ys = [x]
    ys.append(y)
    y.add_(1.0)                 # after the store: ys[1] sees it
    return ys


def write_in_loop_then_store(x, n: int):
    y = x.clone()
    ys: List[torch.Tensor] = []
    for i in range(n):
        y.add_(1.0)             # the next iteration writes the tensor stored in this one
        ys.append(y)
    return ys


def write_then_store_merged(x, c: bool):
    y = x.clone()
    z = x * 3.0
    if c:
        w = y
    else:
        w = z
    ws = [w]                    # may hold y, stored before y's write
    ws.append(w * 1.0)
    y.mul_(2.0)
    ys = [x]
    ys.append(y)
    return ws, ys


torch.manual_seed(0)     # the example inputs below are the same on every run

def element_op_then_write(x, key: str):
    """Tensors a list or dict op returns are its elements (`-> t(*)`):
    list.pop() and dict.get hand back the tensor the container holds, so a
    write through them is seen through every other name of it (`keep`,
    `d["a"]`) and must not become a new version that only the popped name
    sees."""
    ts: List[torch.Tensor] = [x * 1.0, x * 2.0, x * 3.0]
    keep = ts[2]
    t = ts.pop()
    t.add_(10.0)
    d: Dict[str, torch.Tensor] = {"a": x * 4.0, "b": x * 5.0}
    got = d.get(key, x * 0.0)
    got.mul_(2.0)
    return keep, torch.stack(ts), t, d["a"], got


def dict_default_then_write(x, key: str):
    """d.get(k, t) is t itself when k is missing, and d.setdefault(k, t)
    stores t: writes to t after either are seen through `got` and `s`
    (the result of a dict op is an element or an operand, never a new
    tensor; before, cpu returned got and s without the writes)."""
    t = x * 2.0
    d: Dict[str, torch.Tensor] = {"a": x * 3.0}
    got = d.get(key, t)
    t.add_(1.0)
    s = d.setdefault(key, t)
    t.mul_(2.0)
    return got, s, t

CASES = {
    "live_view_in_loop": (live_view_in_loop, {"x": torch.randn(4, 3)}),
    "nested_loop_write": (nested_loop_write, {"x": torch.randn(4), "n": 4}),
    "disjoint_rows": (disjoint_rows, {"x": torch.randn(3, 4)}),
    "strided_halves": (strided_halves, {"x": torch.randn(6, 2)}),
    "merge_then_write_t": (merge_then_write, {"x": torch.randn(3), "z": torch.randn(3), "c": True}),
    "merge_then_write_f": (merge_then_write, {"x": torch.randn(3), "z": torch.randn(3), "c": False}),
    "merge_fresh_write": (merge_fresh_write, {"x": torch.randn(3, 2), "c": False}),
    "loop_carried_write": (loop_carried_write, {"x": torch.randn(3, 2), "n": 3}),
    "loop_carried_view": (loop_carried_view, {"x": torch.randn(5, 2)}),
    "list_escape": (list_escape, {"x": torch.randn(3)}),
    "transpose_chain": (transpose_chain, {"x": torch.randn(3, 4)}),
    "chunk_write": (chunk_write, {"x": torch.randn(6, 2)}),
    "while_write": (while_write, {"x": torch.randn(4, 2)}),
    "if_in_loop_live_view": (if_in_loop_live_view, {"x": torch.randn(5, 3), "k": 2}),
    "masks": (masks, {"x": torch.randn(4, 4)}),
    "inputs_written": (inputs_written, {"x": torch.randn(2, 3), "y": torch.randn(2, 3)}),
    "expand_after_write": (expand_after_write, {"x": torch.randn(2, 4)}),
    "diagonal_fill": (diagonal_fill, {"x": torch.randn(3, 3)}),
    "promote_in_place": (promote_in_place, {"x": torch.randn(3, dtype=torch.float64)}),
    "outputs_alias": (outputs_alias, {"x": torch.randn(3, 2)}),
    "unsqueeze_write": (unsqueeze_write, {"x": torch.randn(3, 2)}),
    "loop_of_if_writes": (loop_of_if_writes, {"x": torch.randn(2, 3), "n": 7}),
    "select_of_loop_output": (select_of_loop_output, {"x": torch.randn(2, 3), "n": 2}),
    "element_op_then_write": (element_op_then_write, {"x": torch.randn(3), "key": "a"}),
    "dict_default_then_write": (dict_default_then_write, {"x": torch.randn(3), "key": "zz"}),
    "write_then_store": (write_then_store, {"x": torch.randn(3, 2), "n": 3}),
    "write_store_write": (write_store_write, {"x": torch.randn(3)}),
    "write_in_loop_then_store": (write_in_loop_then_store, {"x": torch.randn(3), "n": 3}),
    "write_then_store_merged_t": (write_then_store_merged, {"x": torch.randn(3), "c": True}),
    "write_then_store_merged_f": (write_then_store_merged, {"x": torch.randn(3), "c": False}),
}
