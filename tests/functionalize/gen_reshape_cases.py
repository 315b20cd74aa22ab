#!/usr/bin/python3
"""gen_reshape_cases.py — writes reshape_cases.inc, the table test_reshape_decide.c
checks functionalize/reshape_decide.c against: for each case, a graph that
makes a chain of views of its input %x and then a reshape-like op, the
input's sizes, and what PyTorch (this file runs it) does: "view" when the
result shares the input's storage (y._base is x, or y is the input itself
for contiguous()), "copy" otherwise.

    /usr/bin/python3 tests/functionalize/gen_reshape_cases.py
"""
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, input sizes, [(view op, args)...], (reshape-like op, args))
CASES = [
    ("contiguous_reshape", (3, 4), [], ("reshape", [[2, 6]])),
    ("t_reshape_flat", (3, 4), [("t", [])], ("reshape", [[-1]])),
    ("t_reshape_same", (3, 4), [("t", [])], ("reshape", [[4, 3]])),
    ("t_reshape_split_last", (3, 4), [("t", [])], ("reshape", [[2, 2, 3]])),
    ("t_of_row_reshape", (1, 4), [("t", [])], ("reshape", [[-1]])),
    ("t_of_column_reshape", (4, 1), [("t", [])], ("reshape", [[4]])),
    ("slice_step_dim0_flat", (4, 4), [("slice", [0, 0, 4, 2])], ("reshape", [[-1]])),
    ("slice_step_dim0_split", (4, 4), [("slice", [0, 0, 4, 2])], ("reshape", [[2, 2, 2]])),
    ("slice_step_dim1_flat", (3, 4), [("slice", [1, 0, 4, 2])], ("reshape", [[6]])),
    ("slice_dim0_flat", (4, 3), [("slice", [0, 1, 3, 1])], ("reshape", [[6]])),
    ("slice_clamped_end", (4, 3), [("slice", [1, 1, 100, 1])], ("reshape", [[8]])),
    ("expand_flat", (3, 1), [("expand", [[3, 4]])], ("reshape", [[12]])),
    ("expand_split_kept", (1, 4), [("expand", [[3, 4]])], ("reshape", [[3, 2, 2]])),
    ("expand_leading", (4,), [("expand", [[2, 4]])], ("reshape", [[8]])),
    ("expand_leading_split", (4,), [("expand", [[2, 4]])], ("reshape", [[2, 2, 2]])),
    ("permute_merge", (2, 3, 4), [("permute", [[2, 0, 1]])], ("reshape", [[4, 6]])),
    ("permute_keep_first", (2, 3, 4), [("permute", [[0, 2, 1]])], ("reshape", [[2, 12]])),
    ("transpose_no_merge", (2, 3, 4), [("transpose", [1, 2])], ("reshape", [[2, 4, 3]])),
    ("transpose_merge_front", (2, 3, 4), [("transpose", [1, 2])], ("reshape", [[8, 3]])),
    ("unsqueeze_flat", (3, 4), [("unsqueeze", [1])], ("reshape", [[12]])),
    ("squeeze_t", (3, 1, 4), [("squeeze", [1]), ("t", [])], ("reshape", [[12]])),
    ("select_inner", (3, 4, 5), [("select", [1, 2])], ("reshape", [[15]])),
    ("select_outer", (3, 4, 5), [("select", [0, 1])], ("reshape", [[20]])),
    ("narrow_inner_flat", (3, 4), [("narrow", [1, 1, 2])], ("reshape", [[6]])),
    ("narrow_inner_unit", (3, 4), [("narrow", [1, 1, 2])], ("reshape", [[3, 2, 1]])),
    ("diagonal_column", (3, 3), [("diagonal", [0, 0, 1])], ("reshape", [[3, 1]])),
    ("diagonal_offset", (3, 4), [("diagonal", [1, 0, 1])], ("reshape", [[1, 3]])),
    ("size1_dims_transposed", (1, 3, 1, 4), [("transpose", [0, 2])], ("reshape", [[12]])),
    ("size1_dims_permuted", (3, 1, 4), [("permute", [[1, 0, 2]])], ("reshape", [[12]])),
    ("empty_transposed", (0, 3), [("t", [])], ("reshape", [[3, 0]])),
    ("empty_transposed_other", (0, 3), [("t", [])], ("reshape", [[0, 3]])),
    ("view_then_t", (2, 6), [("view", [[3, 4]]), ("t", [])], ("reshape", [[-1]])),
    ("as_strided_overlap", (6,), [("as_strided", [[3, 2], [1, 1]])], ("reshape", [[6]])),
    ("as_strided_dense", (6,), [("as_strided", [[2, 3], [3, 1]])], ("reshape", [[6]])),
    ("flatten_all", (2, 3, 4), [], ("flatten", [0, -1])),
    ("flatten_transposed_tail", (2, 3, 4), [("transpose", [0, 1])], ("flatten", [1, 2])),
    ("flatten_transposed_head", (2, 3, 4), [("transpose", [0, 1])], ("flatten", [0, 1])),
    ("flatten_transposed_kept", (2, 3, 4), [("transpose", [0, 1])], ("flatten", [2, 2])),
    ("flatten_slice_step", (4, 3), [("slice", [0, 0, 4, 2])], ("flatten", [0, -1])),
    ("ravel_t", (3, 4), [("t", [])], ("ravel", [])),
    ("ravel_select", (3, 4), [("select", [0, 1])], ("ravel", [])),
    ("contiguous_t", (3, 4), [("t", [])], ("contiguous", [])),
    ("contiguous_select", (3, 4), [("select", [0, 1])], ("contiguous", [])),
    ("contiguous_t_of_row", (1, 4), [("t", [])], ("contiguous", [])),
    ("contiguous_slice_step", (4, 3), [("slice", [0, 0, 4, 2])], ("contiguous", [])),
]


def apply(t, op, args):
    if op == "slice":
        dim, start, end, step = args
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, end, step)
        return t[tuple(index)]
    return getattr(t, op)(*args)


def literal(v):
    return str(v).replace(" ", "")


def graph_text(chain, final):
    lines, consts, count = [], {}, [0]

    def const(v):
        key = literal(v)
        if key not in consts:
            items = [const(i) for i in v] if isinstance(v, list) else None
            name = "%%c%d" % len(consts)
            if items is not None:
                lines.append("  %s : int[] = prim::ListConstruct(%s)" % (name, ", ".join(items)))
            else:
                lines.append("  %s : int = prim::Constant[value=%d]()" % (name, v))
            consts[key] = name
        return consts[key]

    cur = "%x"
    for op, args in chain + [final]:
        names = [const(a) for a in args]
        if op == "contiguous":
            names.append(const(0))          # memory_format=contiguous_format
        count[0] += 1
        out = "%%v%d" % count[0]
        lines.append("  %s : Tensor = aten::%s(%s)" % (out, op, ", ".join([cur] + names)))
        cur = out
    return "graph(%x : Tensor):\n" + "\n".join(lines) + "\n  return (%s)\n" % cur


def main():
    rows = []
    for name, sizes, chain, final in CASES:
        x = torch.arange(float(torch.Size(sizes).numel())).reshape(sizes).clone()   # no _base
        v = x
        for op, args in chain:
            v = apply(v, op, args)
        y = apply(v, final[0], final[1])
        view = y is x or y._base is x or (final[0] == "contiguous" and y is v)
        if y.numel() > 0:     # a second witness where storage has an address
            assert view == (y.storage().data_ptr() == x.storage().data_ptr()), name
        text = graph_text(chain, final).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        dims = ", ".join(str(s) for s in sizes) or "0"
        rows.append('    {"%s", "%s", %d, {%s}, "%s"},' % (name, text, len(sizes), dims,
                                                            "view" if view else "copy"))
    with open(os.path.join(HERE, "reshape_cases.inc"), "w") as f:
        f.write("/* reshape_cases.inc — generated by gen_reshape_cases.py from PyTorch %s:\n"
                " * {name, graph, input ndim, input sizes, what PyTorch's op gives}. */\n"
                % torch.__version__)
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
