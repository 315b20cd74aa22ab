#!/usr/bin/python3
"""gen_ops.py — the per-op table: one tiny TorchScript function per op and
case, exported as tests/ops/<op>__<case>/ with the corpus layout.

How it works: TABLE holds one row per case, written with R(...) (a case
that must run) or E(...) (a case that must fail), in this file and, for the
op families added for OpInfo coverage (one section each), in
family_rows.py; op_rows.py defines R, E and the input factories:

    R(op, case, params, body, **inputs)
    E(op, case, params, body, (exit_status, message_substring), **inputs)

`params` is the function's parameter list ("x, y", "x, n: int"); `body` is an
expression (it becomes `return <body>`) or statements that end in a return.
Each input is a factory (F(2, 3): float32 normal values, L(4): int64, U(5):
distinct values, T([...]): a literal...) or a Python scalar. For every row the
generator writes <case dir>/program.py (the function, so a reader sees it),
seeds torch from the case name (so a row's data never depends on other rows),
builds the inputs and calls frontend/export.py's export(). Source comments
in model.ir name `program.py` in the same directory.

Every op kind in a generated graph must be listed in include/tssa/ops.h; the
run fails naming any that is not. Rows whose results have ties (topk, sort,
argmax, max with indices) use U(...) inputs, so expected indices are
unambiguous. Inputs always arrive contiguous (.npy files), so non-contiguous
cases make their strided views inside the function (x.t(), x[:, ::2]).

    /usr/bin/python3 tests/ops/gen_ops.py             # every row
    /usr/bin/python3 tests/ops/gen_ops.py add mm      # rows of these ops
    /usr/bin/python3 tests/ops/gen_ops.py --list      # list the rows
"""

import argparse
import importlib.util
import os
import shutil
import sys
import zlib

import torch

sys.dont_write_bytecode = True  # keep the case directories free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "frontend"))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

import export  # noqa: E402  (frontend/export.py)
import op_table  # noqa: E402  (tests/models/op_table.py)


# The row vocabulary (input factories, R, E, TABLE) lives in op_rows.py.
from op_rows import B, E, F, F64, I32, IDX, L, PERM, POS, R, SPD, T, TABLE, U, UNLISTED, FUNCTION_NAME  # noqa: E402,F401


# ------------------------------------------------------------------ creation
R("zeros", "shape", "", "torch.zeros(2, 3)")
R("zeros", "dtype_long", "", "torch.zeros([2, 3], dtype=torch.long)")
R("zeros", "from_size", "x", "torch.zeros(x.size()) + x", x=F(2, 3))
R("zeros", "empty_dim", "", "torch.zeros(0, 3)")
R("ones", "shape", "n: int", "torch.ones(n, 2)", n=3)
R("ones", "dtype_bool", "", "torch.ones(4, dtype=torch.bool)")
R("full", "float", "", "torch.full((2, 3), 1.5)")
R("full", "int_fill", "", "torch.full((3,), 7)")
R("full", "dtype", "v: float", "torch.full([2, 2], v, dtype=torch.float64)", v=-2.25)
R("empty", "shape_only", "n: int", "e = torch.empty(n, 4)\nreturn e.size(0), e.size(1), e.dim(), e.dtype == torch.float32", n=3)
R("empty", "overwritten", "x", "e = torch.empty(2, 3)\ne.fill_(2.0)\nreturn e + x", x=F(2, 3))
R("empty", "copy_into", "x", "e = torch.empty(x.size(0), x.size(1), dtype=torch.long)\ne.copy_(x)\nreturn e", x=L(3, 2))
R("empty_like", "overwritten", "x", "e = torch.empty_like(x)\ne.copy_(x * 2.0)\nreturn e", x=F(2, 3))
R("arange", "end", "", "torch.arange(5)")
R("arange", "start_end_step", "", "torch.arange(1, 10, 3)")
R("arange", "float_step", "", "torch.arange(0.0, 1.0, 0.25)")
R("arange", "negative_step", "", "torch.arange(5, 0, -2)")
R("arange", "dtype", "n: int", "torch.arange(n, dtype=torch.float32) * 0.5", n=4)
R("arange", "empty", "n: int", "torch.arange(n, n)", n=5)
R("linspace", "basic", "", "torch.linspace(0.0, 1.0, 5)")
R("zeros_like", "basic", "x", "torch.zeros_like(x)", x=F(2, 3))
R("zeros_like", "dtype", "x", "torch.zeros_like(x, dtype=torch.long)", x=F(3))
R("ones_like", "int", "x", "torch.ones_like(x) + x", x=L(2, 2))
R("ones_like", "bool", "x", "torch.ones_like(x)", x=B(3))
R("full_like", "float", "x", "torch.full_like(x, 3.5)", x=F(2, 2))
R("full_like", "int_input_float_fill", "x", "torch.full_like(x, 2.7)", x=L(3))
R("new_zeros", "basic", "x", "x.new_zeros((2, 3))", x=F64(1))
R("new_ones", "basic", "x", "x.new_ones([3])", x=L(2))
R("new_full", "basic", "x", "x.new_full([2, 2], 4.0)", x=F(1))
R("tensor", "int_list", "", "torch.tensor([1, 2, 3])")
R("new_empty", "shape_only", "x", "e = x.new_empty([2, 3])\nreturn e.size(0), e.size(1), e.dtype == torch.int64", x=L(2))
R("as_tensor", "float_list", "", "torch.as_tensor([1.0, 2.0])")
R("as_tensor", "dtype", "x", "torch.as_tensor(x, dtype=torch.float64)", x=F(3))
R("arange", "tensor_end", "t", "torch.arange(t)", t=T(4))
R("tensor", "float_list", "", "torch.tensor([1.5, -2.0])")
R("tensor", "nested_list", "", "torch.tensor([[1.0, 2.0], [3.0, 4.0]])")
R("tensor", "scalar", "v: float", "torch.tensor(v)", v=2.5)
R("tensor", "int_input", "n: int", "torch.tensor(n) * 2", n=21)
R("tensor", "dtype", "", "torch.tensor([1, 2], dtype=torch.float32)")
R("tensor", "bool_list", "", "torch.tensor([True, False, True])")
R("scalar_tensor", "basic", "v: float", "torch.scalar_tensor(v)", v=-1.5)
R("meshgrid", "ij", "a, b", "torch.meshgrid(a, b, indexing='ij')", a=F(3), b=F(4))
R("meshgrid", "xy", "a, b", "torch.meshgrid(a, b, indexing='xy')", a=L(2), b=L(3))
R("meshgrid", "three", "a, b, c", "torch.meshgrid([a, b, c], indexing='ij')", a=F(2), b=F(3), c=F(2))
R("eye", "square", "", "torch.eye(3)")
R("eye", "rect", "n: int", "torch.eye(n, 4)", n=2)

# ------------------------------------------------------------------ views
R("select", "first", "x", "x[0]", x=F(3, 4))
R("select", "negative_index", "x", "x[-1]", x=F(3, 4))
R("select", "dim1", "x", "x.select(1, 2)", x=F(3, 4))
R("select", "negative_dim", "x", "x.select(-1, 0)", x=F(2, 3, 4))
R("select", "int_input", "x, i: int", "x[:, i]", x=F(3, 4), i=3)
R("select", "to_scalar", "x", "x[1, 2]", x=F(3, 4))
R("slice", "basic", "x", "x[1:3]", x=F(5, 2))
R("slice", "negative_bounds", "x", "x[-3:-1]", x=F(5, 2))
R("slice", "none_start", "x", "x[:2]", x=F(5, 2))
R("slice", "none_end", "x", "x[2:]", x=F(5, 2))
R("slice", "step", "x", "x[::2]", x=F(5, 2))
R("slice", "step_offset", "x", "x[1::3]", x=F(7))
R("slice", "out_of_range_end", "x", "x[1:100]", x=F(4))
R("slice", "start_beyond_end", "x", "x[10:]", x=F(4, 2))
R("slice", "reversed_bounds", "x", "x[3:1]", x=F(5))
R("slice", "negative_out_of_range", "x", "x[-100:2]", x=F(4))
R("slice", "dim1", "x", "x[:, 1:]", x=F(3, 4))
R("slice", "dim1_step", "x", "x[:, ::3]", x=F(2, 7))
R("slice", "ellipsis_last", "x", "x[..., 1:3]", x=F(2, 3, 4))
R("slice", "int_inputs", "x, a: int, b: int", "x[a:b]", x=F(6), a=1, b=-2)
R("slice", "of_slice", "x", "x[1:][::2][1:]", x=F(9))
R("view", "flatten", "x", "x.view(-1)", x=F(2, 3))
R("view", "infer", "x", "x.view(3, -1)", x=F(2, 6))
R("view", "add_unit_dims", "x", "x.view(1, 6, 1)", x=F(2, 3))
R("view", "list_arg", "x", "x.view([4, 2])", x=F(8))
R("view_as", "basic", "x, y", "x.view_as(y)", x=F(6), y=F(2, 3))
R("reshape", "contiguous", "x", "x.reshape(3, 4)", x=F(2, 6))
R("reshape", "noncontiguous", "x", "x.t().reshape(-1)", x=F(3, 4))
R("reshape", "infer", "x", "x.reshape(-1, 2)", x=F(2, 3, 2))
R("reshape", "to_scalar", "x", "x.reshape([])", x=F(1, 1))
R("reshape_as", "basic", "x, y", "x.reshape_as(y)", x=F(2, 6), y=F(4, 3))
R("squeeze", "all", "x", "x.squeeze()", x=F(1, 3, 1, 2))
R("squeeze", "dim", "x", "x.squeeze(2)", x=F(1, 3, 1, 2))
R("squeeze", "negative_dim", "x", "x.squeeze(-2)", x=F(3, 1, 2))
R("squeeze", "non_unit_dim", "x", "x.squeeze(1)", x=F(2, 3))
R("unsqueeze", "front", "x", "x.unsqueeze(0)", x=F(2, 3))
R("unsqueeze", "back", "x", "x.unsqueeze(-1)", x=F(2, 3))
R("unsqueeze", "middle", "x", "x.unsqueeze(1)", x=F(2, 3))
R("unsqueeze", "none_index", "x", "x[None, :, None]", x=F(3))
R("expand", "basic", "x", "x.expand(3, 4)", x=F(1, 4))
R("expand", "minus_one", "x", "x.expand(2, -1)", x=F(1, 3))
R("expand", "new_dims", "x", "x.expand(2, 3, 4)", x=F(4))
R("expand", "then_compute", "x, y", "x.expand(3, 2) * y", x=F(3, 1), y=F(3, 2))
R("expand_as", "basic", "x, y", "x.expand_as(y)", x=F(3, 1), y=F(3, 4))
R("permute", "3d", "x", "x.permute(2, 0, 1)", x=F(2, 3, 4))
R("permute", "negative", "x", "x.permute(-1, -3, -2)", x=F(2, 3, 4))
R("transpose", "basic", "x", "x.transpose(0, 1)", x=F(2, 3))
R("transpose", "negative", "x", "x.transpose(-1, -3)", x=F(2, 3, 4))
R("t", "2d", "x", "x.t()", x=F(2, 3))
R("t", "1d", "x", "x.t()", x=F(4))
R("numpy_T", "2d", "x", "x.T", x=F(3, 2))
R("movedim", "basic", "x", "torch.movedim(x, 0, 2)", x=F(2, 3, 4))
R("contiguous", "of_transpose", "x", "x.t().contiguous()", x=F(3, 4))
R("contiguous", "already", "x", "x.contiguous() * 2.0", x=F(3))
R("flatten", "all", "x", "torch.flatten(x)", x=F(2, 3, 2))
R("flatten", "start", "x", "torch.flatten(x, 1)", x=F(2, 3, 2))
R("flatten", "range", "x", "x.flatten(0, 1)", x=F(2, 3, 2))
R("flatten", "noncontiguous", "x", "x.transpose(0, 2).flatten()", x=F(2, 3, 2))
R("unflatten", "basic", "x", "x.unflatten(1, (2, 3))", x=F(2, 6))
R("narrow", "basic", "x", "x.narrow(0, 1, 2)", x=F(4, 2))
R("narrow", "negative_dim", "x", "torch.narrow(x, -1, 1, 2)", x=F(2, 4))
R("chunk", "even", "x", "x.chunk(2)", x=F(4, 2))
R("chunk", "uneven", "x", "x.chunk(3)", x=F(5))
R("chunk", "dim1", "x", "torch.chunk(x, 2, dim=1)", x=F(2, 4))
R("chunk", "fewer_chunks", "x", "x.chunk(4)", x=F(3))
R("split", "size", "x", "x.split(2)", x=F(5, 2))
R("split", "sizes", "x", "torch.split(x, [1, 3], dim=1)", x=F(2, 4))
R("split", "getitem", "x", "parts = x.split(3)\nreturn parts[-1]", x=F(7))
R("split_with_sizes", "basic", "x", "x.split_with_sizes([2, 1])", x=F(3, 2))
R("unbind", "dim0", "x", "x.unbind(0)", x=F(3, 2))
R("unbind", "dim1", "x", "a, b = x.unbind(1)\nreturn a - b", x=F(3, 2))
R("diagonal", "main", "x", "x.diagonal()", x=F(3, 3))
R("diagonal", "offset", "x", "x.diagonal(1)", x=F(3, 4))
R("diagonal", "negative_offset", "x", "torch.diagonal(x, -1)", x=F(4, 3))
R("diagonal", "dims", "x", "x.diagonal(0, 1, 2)", x=F(2, 3, 3))
R("detach", "basic", "x", "x.detach()", x=F(3))
R("view", "chain", "x", "x.t()[1:].unsqueeze(0).expand(2, 2, 3)", x=F(3, 3))

# ------------------------------------------------------------------ indexing
R("index", "long", "x, i", "x[i]", x=F(5, 2), i=IDX(5, 3))
R("index", "long_repeated", "x, i", "x[i]", x=F(4), i=T([1, 1, 3, 0, 1]))
R("index", "long_2d_index", "x, i", "x[i]", x=F(4, 3), i=IDX(4, 2, 2))
R("index", "negative_indices", "x, i", "x[i]", x=F(5), i=T([-1, 0, -5]))
R("index", "bool", "x, m", "x[m]", x=F(6), m=T([True, False, True, True, False, False]))
R("index", "bool_rows", "x, m", "x[m]", x=F(4, 2), m=T([False, True, True, False]))
R("index", "bool_full", "x", "x[x > 0]", x=F(3, 4))
R("index", "bool_none_true", "x", "x[x > 100]", x=F(3))
R("index", "two_tensors", "x, i, j", "x[i, j]", x=F(3, 4), i=IDX(3, 5), j=IDX(4, 5))
R("index", "broadcast_indices", "x, i, j", "x[i, j]", x=F(3, 4), i=T([[0], [2]]), j=T([1, 3, 0]))
R("index", "none_then_tensor", "x, j", "x[:, j]", x=F(3, 4), j=T([3, 1]))
R("index", "tensor_then_slice", "x, i", "x[i, 1:]", x=F(3, 4), i=T([2, 0]))
R("index", "two_none_then_tensor", "x, i", "x[:, :, i]", x=F(2, 3, 4), i=T([0, 3]))
R("index", "int_and_tensor", "x, j", "x[1, j]", x=F(3, 4), j=T([2, 2, 0]))
R("index", "empty_index", "x, i", "x[i]", x=F(3, 2), i=T([], dtype=torch.int64))
R("index_select", "dim0", "x, i", "x.index_select(0, i)", x=F(4, 3), i=T([3, 0, 0]))
R("index_select", "dim1", "x, i", "torch.index_select(x, 1, i)", x=F(2, 4), i=T([1, 3]))
R("index_select", "negative_dim", "x, i", "x.index_select(-1, i)", x=F(2, 3), i=T([2]))
R("masked_select", "basic", "x, m", "x.masked_select(m)", x=F(2, 3), m=B(2, 3))
R("masked_select", "broadcast_mask", "x, m", "torch.masked_select(x, m)", x=F(3, 4), m=T([True, False, False, True]))
R("gather", "dim0", "x, i", "x.gather(0, i)", x=F(3, 4), i=IDX(3, 2, 4))
R("gather", "dim1", "x, i", "torch.gather(x, 1, i)", x=F(3, 4), i=IDX(4, 3, 2))
R("gather", "negative_dim", "x, i", "x.gather(-1, i)", x=F(2, 5), i=IDX(5, 2, 5))
R("index_put", "functional", "x, i, v", "x.index_put((i,), v)", x=F(5), i=T([4, 0]), v=F(2))
R("index_put", "functional_accumulate", "x, i, v", "x.index_put((i,), v, accumulate=True)", x=F(3), i=T([1, 1, 2]), v=F(3))
R("scatter", "dim1", "x, i, s", "x.scatter(1, i, s)", x=F(2, 4), i=T([[3, 0], [1, 2]]), s=F(2, 2))
R("scatter", "value", "x, i", "x.scatter(0, i, -1.0)", x=F(3, 2), i=T([[2, 0]]))
R("scatter_inplace", "dim0", "x, i, s", "x.scatter_(0, i, s)\nreturn x", x=F(3, 2), i=T([[1, 2], [0, 1]]), s=F(2, 2))
R("masked_fill", "scalar", "x, m", "x.masked_fill(m, -1.0)", x=F(3, 4), m=B(3, 4))
R("masked_fill", "broadcast_mask", "x, m", "x.masked_fill(m, 0.0)", x=F(3, 4), m=T([True, False, True, False]))
R("masked_fill", "tensor_value", "x, m, v", "x.masked_fill(m, v)", x=F(2, 3), m=B(2, 3), v=T(7.5))
R("masked_fill", "int_tensor", "x", "x.masked_fill(x < 0, 0)", x=L(2, 4))

# ------------------------------------------------------------------ in-place
R("copy_inplace", "same_shape", "x, y", "x.copy_(y)\nreturn x", x=F(2, 3), y=F(2, 3))
R("copy_inplace", "broadcast", "x, y", "x.copy_(y)\nreturn x", x=F(2, 3), y=F(3))
R("copy_inplace", "dtype_convert", "x, y", "x.copy_(y)\nreturn x", x=F(2, 3), y=L(2, 3))
R("copy_inplace", "float_to_long", "x, y", "x.copy_(y)\nreturn x", x=L(4), y=F(4) )
R("copy_inplace", "into_slice", "x, y", "x[1:3].copy_(y)\nreturn x", x=F(4, 2), y=F(2, 2))
R("copy_inplace", "into_transpose", "x, y", "x.t().copy_(y)\nreturn x", x=F(2, 3), y=F(3, 2))
R("copy_inplace", "returns_self", "x, y", "return x.copy_(y) * 2.0", x=F(2), y=F(2))
R("fill_inplace", "scalar", "x", "x.fill_(2.5)\nreturn x", x=F(2, 3))
R("fill_inplace", "int_on_float", "x", "x.fill_(3)\nreturn x", x=F(3))
R("fill_inplace", "float_on_int", "x", "x.fill_(2.7)\nreturn x", x=L(3))
R("fill_inplace", "on_view", "x", "x[:, 1].fill_(-1.0)\nreturn x", x=F(3, 3))
R("fill_inplace", "tensor_value", "x, v", "x.fill_(v)\nreturn x", x=F(2, 2), v=T(4.0))
R("zero_inplace", "basic", "x", "x.zero_()\nreturn x", x=F(2, 3))
R("zero_inplace", "on_view", "x", "x[1:, ::2].zero_()\nreturn x", x=F(3, 4))
R("add_inplace", "tensor", "x, y", "x.add_(y)\nreturn x", x=F(2, 3), y=F(2, 3))
R("add_inplace", "alpha", "x, y", "x.add_(y, alpha=-0.5)\nreturn x", x=F(2, 3), y=F(2, 3))
R("add_inplace", "scalar", "x", "x.add_(1.5)\nreturn x", x=F(4))
R("add_inplace", "broadcast", "x, y", "x.add_(y)\nreturn x", x=F(2, 3), y=F(3))
R("add_inplace", "augmented", "x, y", "x += y\nreturn x", x=F(3), y=F(3))
R("add_inplace", "int_tensor", "x, y", "x.add_(y)\nreturn x", x=L(3), y=L(3))
R("sub_inplace", "tensor", "x, y", "x.sub_(y)\nreturn x", x=F(2, 3), y=F(2, 3))
R("sub_inplace", "alpha", "x, y", "x.sub_(y, alpha=2)\nreturn x", x=F(3), y=F(3))
R("mul_inplace", "scalar", "x", "x.mul_(3.0)\nreturn x", x=F(2, 2))
R("mul_inplace", "tensor", "x, y", "x.mul_(y)\nreturn x", x=F(2, 3), y=F(1, 3))
R("mul_inplace", "augmented_view", "x", "x[0] *= 2.0\nreturn x", x=F(2, 3))
R("div_inplace", "tensor", "x, y", "x.div_(y)\nreturn x", x=F(2, 3), y=POS(2, 3))
R("div_inplace", "scalar", "x", "x.div_(4.0)\nreturn x", x=F(3))
R("div_inplace", "floor", "x, y", "x.div_(y, rounding_mode='floor')\nreturn x", x=F(4) , y=POS(4))
R("clamp_inplace", "min_max", "x", "x.clamp_(-0.5, 0.5)\nreturn x", x=F(2, 4))
R("clamp_inplace", "min_only", "x", "x.clamp_(min=0.0)\nreturn x", x=F(5))
R("clamp_min_inplace", "basic", "x", "x.clamp_min_(0.25)\nreturn x", x=F(5))
R("clamp_max_inplace", "basic", "x", "x.clamp_max_(0.25)\nreturn x", x=F(5))
R("sigmoid_inplace", "basic", "x", "x.sigmoid_()\nreturn x", x=F(2, 3))
R("relu_inplace", "basic", "x", "x.relu_()\nreturn x", x=F(2, 3))
R("relu_inplace", "on_view", "x", "torch.relu_(x[1])\nreturn x", x=F(2, 3))
R("tanh_inplace", "basic", "x", "x.tanh_()\nreturn x", x=F(4))
R("exp_inplace", "basic", "x", "x.exp_()\nreturn x", x=F(4))
R("neg_inplace", "basic", "x", "x.neg_()\nreturn x", x=F(4))
R("sqrt_inplace", "basic", "x", "x.sqrt_()\nreturn x", x=POS(4))
R("masked_fill_inplace", "scalar", "x, m", "x.masked_fill_(m, 9.0)\nreturn x", x=F(2, 3), m=B(2, 3))
R("masked_fill_inplace", "on_view", "x", "v = x[:, 1:]\nv.masked_fill_(v > 0, 0.0)\nreturn x", x=F(3, 3))
R("index_put_inplace", "basic", "x, i, v", "x.index_put_((i,), v)\nreturn x", x=F(5), i=T([0, 3]), v=F(2))
R("index_put_inplace", "accumulate", "x, i, v", "x.index_put_((i,), v, accumulate=True)\nreturn x", x=F(4), i=T([1, 3, 1, 1]), v=F(4))
R("index_put_inplace", "accumulate_2d", "x, i, j, v", "x.index_put_((i, j), v, accumulate=True)\nreturn x", x=F(3, 3), i=T([0, 2, 0]), j=T([1, 1, 1]), v=F(3))
R("index_put_inplace", "rows", "x, i, v", "x.index_put_((i,), v)\nreturn x", x=F(4, 2), i=T([3, 1]), v=F(2, 2))
R("index_put_inplace", "broadcast_value", "x, i", "x[i] = 5.0\nreturn x", x=F(3, 2), i=T([2, 0]))
R("index_put_inplace", "bool_mask", "x", "x[x < 0] = 0.0\nreturn x", x=F(3, 3))
R("index_put_inplace", "bool_mask_values", "x, m, v", "x[m] = v\nreturn x", x=F(4), m=T([True, False, True, False]), v=F(2))
R("index_put_inplace", "none_entry", "x, j, v", "x[:, j] = v\nreturn x", x=F(3, 4), j=T([0, 2]), v=F(3, 2))
R("abs_inplace", "basic", "x", "x.abs_()\nreturn x", x=F(4))
R("ceil_inplace", "basic", "x", "x.mul_(3.0).ceil_()\nreturn x", x=F(4))
R("floor_inplace", "basic", "x", "x.mul_(3.0).floor_()\nreturn x", x=F(4))
R("round_inplace", "basic", "x", "x.round_()\nreturn x", x=T([0.5, 1.5, -2.5, 0.7]))
R("trunc_inplace", "basic", "x", "x.mul_(3.0).trunc_()\nreturn x", x=F(4))
R("sign_inplace", "basic", "x", "x.sign_()\nreturn x", x=T([-3.0, 0.0, 2.0]))
R("log_inplace", "basic", "x", "x.log_()\nreturn x", x=POS(4))
R("log2_inplace", "basic", "x", "x.log2_()\nreturn x", x=POS(4))
R("log1p_inplace", "basic", "x", "x.log1p_()\nreturn x", x=POS(4))
R("expm1_inplace", "basic", "x", "x.expm1_()\nreturn x", x=F(4))
R("erf_inplace", "basic", "x", "x.erf_()\nreturn x", x=F(4))
R("sin_inplace", "basic", "x", "x.sin_()\nreturn x", x=F(4))
R("cos_inplace", "on_view", "x", "x[1].cos_()\nreturn x", x=F(2, 3))
R("tan_inplace", "basic", "x", "x.tan_()\nreturn x", x=F(4))
R("rsqrt_inplace", "basic", "x", "x.rsqrt_()\nreturn x", x=POS(4))
R("reciprocal_inplace", "basic", "x", "x.reciprocal_()\nreturn x", x=POS(4))
R("pow_inplace", "scalar", "x", "x.pow_(3)\nreturn x", x=F(4))
R("pow_inplace", "tensor", "x, y", "x.pow_(y)\nreturn x", x=POS(4), y=F(4))
R("remainder_inplace", "scalar", "x", "x.remainder_(0.75)\nreturn x", x=F(4))
R("fmod_inplace", "int", "x, y", "x.fmod_(y)\nreturn x", x=T([7, -7, 5]), y=T([3, 3, -2]))
R("floor_divide_inplace", "int", "x, y", "x.floor_divide_(y)\nreturn x", x=T([7, -7, 6]), y=T([2, 2, -4]))
R("lerp_inplace", "scalar_weight", "x, y", "x.lerp_(y, 0.75)\nreturn x", x=F(4), y=F(4))
R("lt_inplace", "tensor", "x, y", "x.lt_(y)\nreturn x", x=F(5), y=F(5))
R("le_inplace", "scalar", "x", "x.le_(0.0)\nreturn x", x=F(5))
R("gt_inplace", "int", "x, y", "x.gt_(y)\nreturn x", x=L(5), y=L(5))
R("ge_inplace", "scalar", "x", "x.ge_(0.5)\nreturn x", x=F(5))
R("eq_inplace", "int", "x, y", "x.eq_(y)\nreturn x", x=L(6, low=0, high=3), y=L(6, low=0, high=3))
R("ne_inplace", "scalar", "x", "x.ne_(1)\nreturn x", x=L(6, low=0, high=3))
R("logical_not_inplace", "bool", "x", "x.logical_not_()\nreturn x", x=B(5))
R("logical_and_inplace", "bool", "x, y", "x.logical_and_(y)\nreturn x", x=B(5), y=B(5))
R("logical_or_inplace", "bool", "x, y", "x.logical_or_(y)\nreturn x", x=B(5), y=B(5))
R("logical_xor_inplace", "float", "x, y", "x.logical_xor_(y)\nreturn x", x=T([0.0, 1.0, 2.0, 0.0]), y=T([0.0, 0.0, 3.0, 1.0]))
R("bitwise_and_inplace", "int", "x, y", "x.bitwise_and_(y)\nreturn x", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("bitwise_or_inplace", "bool", "x, y", "x.bitwise_or_(y)\nreturn x", x=B(5), y=B(5))
R("bitwise_xor_inplace", "int", "x, y", "x.bitwise_xor_(y)\nreturn x", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("bitwise_not_inplace", "int", "x", "x.bitwise_not_()\nreturn x", x=L(5))
R("setitem", "scalar", "x", "x[0, 1] = 5.0\nreturn x", x=F(2, 3))
R("setitem", "int_scalar_on_float", "x, n: int", "x[1] = n\nreturn x", x=F(2, 2), n=7)
R("setitem", "slice_tensor", "x, y", "x[:, 1:3] = y\nreturn x", x=F(3, 4), y=F(3, 2))
R("setitem", "broadcast_tensor", "x, y", "x[1:] = y\nreturn x", x=F(3, 4), y=F(4))
R("setitem", "ellipsis", "x", "x[..., 0] = -1.0\nreturn x", x=F(2, 2, 3))
R("setitem", "step_slice", "x, y", "x[::2] = y\nreturn x", x=F(5), y=F(3))

# ------------------------------------------------------------------ elementwise
R("add", "tensor", "x, y", "x + y", x=F(2, 3), y=F(2, 3))
R("add", "broadcast", "x, y", "x + y", x=F(2, 1, 3), y=F(4, 1))
R("add", "alpha", "x, y", "torch.add(x, y, alpha=2)", x=F(2, 3), y=F(2, 3))
R("add", "alpha_float", "x, y", "x.add(y, alpha=0.5)", x=F(3), y=F(3))
R("add", "scalar_int", "x", "x + 2", x=F(3))
R("add", "int_tensor_scalar_float", "x", "x + 2.5", x=L(3))
R("add", "int_tensor_scalar_int", "x", "x + 2", x=L(3))
R("add", "int32_tensor_scalar", "x", "x + 1", x=I32(3))
R("add", "long_float_promote", "x, y", "x + y", x=L(3), y=F(3))
R("add", "float64_float32_promote", "x, y", "x + y", x=F64(2), y=F(2))
R("add", "bool_int_promote", "x, y", "x + y", x=B(4), y=L(4))
R("add", "int32_int64_promote", "x, y", "x + y", x=I32(3), y=L(3))
R("add", "zero_dim_float64_with_float32", "x, y", "x + y", x=F(3), y=T(1.5, torch.float64))
R("add", "empty", "x, y", "x + y", x=F(0, 3), y=F(3))
R("add", "noncontiguous", "x, y", "x.t() + y", x=F(3, 2), y=F(2, 3))
R("add", "expanded_operand", "x, y", "x.expand(3, 4) + y[:, ::2]", x=F(4), y=F(3, 8))
R("add", "scalar_input", "x, s: float", "x + s", x=F(3), s=0.125)
R("sub", "tensor", "x, y", "x - y", x=F(2, 3), y=F(2, 3))
R("sub", "alpha", "x, y", "torch.sub(x, y, alpha=3)", x=F(3), y=F(3))
R("sub", "scalar", "x", "x - 1.5", x=F(3))
R("sub", "int", "x, y", "x - y", x=L(4), y=L(4))
R("rsub", "scalar", "x", "2.0 - x", x=F(3))
R("rsub", "int_scalar", "x", "1 - x", x=L(3))
R("rsub", "explicit", "x", "torch.rsub(x, 2.0)", x=F(3))
R("rsub", "tensor_alpha", "x, y", "torch.rsub(x, y, alpha=2)", x=F(3), y=F(3))
R("mul", "tensor", "x, y", "x * y", x=F(2, 3), y=F(2, 3))
R("mul", "scalar", "x", "x * 0.5", x=F(3))
R("mul", "bool", "x, y", "x * y", x=B(5), y=B(5))
R("mul", "int", "x, y", "x * y", x=L(3), y=L(3))
R("mul", "int_tensor_float_scalar", "x", "x * 1.5", x=L(4))
R("div", "true", "x, y", "x / y", x=F(2, 3), y=POS(2, 3))
R("div", "int_tensors", "x, y", "x / y", x=L(4), y=T([2, -3, 4, 7]))
R("div", "floor", "x, y", "torch.div(x, y, rounding_mode='floor')", x=F(4), y=POS(4))
R("div", "floor_int", "x, y", "torch.div(x, y, rounding_mode='floor')", x=T([7, -7, 7, -7]), y=T([2, 2, -2, -2]))
R("div", "trunc", "x, y", "x.div(y, rounding_mode='trunc')", x=F(4), y=POS(4))
R("div", "trunc_int", "x, y", "torch.div(x, y, rounding_mode='trunc')", x=T([7, -7, 7, -7]), y=T([2, 2, -2, -2]))
R("div", "scalar", "x", "x / 4", x=F(3))
R("div", "int_tensor_int_scalar", "x", "x / 2", x=L(4))
R("floor_divide", "int", "x, y", "torch.floor_divide(x, y)", x=T([7, -7, 6]), y=T([2, 2, -4]))
R("remainder", "tensor", "x, y", "torch.remainder(x, y)", x=F(4), y=POS(4))
R("remainder", "negative_int", "x, y", "x % y", x=T([7, -7, 7, -7]), y=T([3, 3, -3, -3]))
R("remainder", "scalar", "x", "x % 1.5", x=F(4))
R("fmod", "int", "x, y", "torch.fmod(x, y)", x=T([7, -7, 7, -7]), y=T([3, 3, -3, -3]))
R("neg", "float", "x", "-x", x=F(3))
R("neg", "int", "x", "torch.neg(x)", x=L(3))
R("abs", "float", "x", "x.abs()", x=F(4))
R("abs", "int", "x", "torch.abs(x)", x=L(4))
R("exp", "basic", "x", "torch.exp(x)", x=F(2, 3))
R("exp", "int_input", "x", "torch.exp(x)", x=L(3, low=-2, high=3))
R("log", "basic", "x", "torch.log(x)", x=POS(4))
R("log", "zero_and_negative", "x", "torch.log(x)", x=T([0.0, -1.0, 1.0]))
R("log2", "basic", "x", "torch.log2(x)", x=POS(3))
R("log1p", "basic", "x", "torch.log1p(x)", x=POS(3))
R("expm1", "basic", "x", "torch.expm1(x)", x=F(3))
R("sqrt", "basic", "x", "torch.sqrt(x)", x=POS(4))
R("sqrt", "int_input", "x", "x.sqrt()", x=T([4, 9, 2]))
R("rsqrt", "basic", "x", "torch.rsqrt(x)", x=POS(4))
R("pow", "scalar_exponent", "x", "x ** 2", x=F(4))
R("pow", "float_exponent", "x", "torch.pow(x, 0.5)", x=POS(4))
R("pow", "tensor_exponent", "x, y", "x.pow(y)", x=POS(4), y=F(4))
R("pow", "scalar_base", "x", "torch.pow(2.0, x)", x=F(3))
R("pow", "int", "x", "x ** 2", x=L(4))
R("pow", "negative_exponent", "x", "x ** -1.0", x=POS(3))
# integer pow as c10's powi: a negative exponent gives 0 but for bases 1 and -1
# (0 ** -1 too), exact past 2^53 (3 ** 39) and wrapping past 2^63 (3 ** 41)
R("pow", "int_negative_exponent", "x, y", "x ** y, 2 ** y, torch.pow(x, 3)",
  x=T([0, 1, -1, -1, 2, -3, 0, 5, 3, 3], torch.int64), y=T([-1, -2, -3, -2, -1, 0, 2, 3, 39, 41], torch.int64))
R("sin", "basic", "x", "torch.sin(x)", x=F(4))
R("cos", "basic", "x", "torch.cos(x)", x=F(4))
R("tan", "basic", "x", "torch.tan(x)", x=F(3))
R("tanh", "basic", "x", "torch.tanh(x)", x=F(4))
R("erf", "basic", "x", "torch.erf(x)", x=F(4))
R("sigmoid", "basic", "x", "torch.sigmoid(x)", x=F(4))
R("sigmoid", "large", "x", "torch.sigmoid(x)", x=T([-100.0, 100.0, 0.0]))
R("relu", "basic", "x", "torch.relu(x)", x=F(2, 3))
R("relu", "int", "x", "F.relu(x)", x=L(4))
R("relu6", "basic", "x", "F.relu6(x * 4.0)", x=F(5))
R("leaky_relu", "basic", "x", "F.leaky_relu(x, 0.1)", x=F(5))
R("hardtanh", "basic", "x", "F.hardtanh(x, -0.5, 0.5)", x=F(5))
R("gelu", "none", "x", "F.gelu(x)", x=F(5))
R("gelu", "tanh", "x", "F.gelu(x, approximate='tanh')", x=F(5))
R("silu", "basic", "x", "F.silu(x)", x=F(5))
R("elu", "basic", "x", "F.elu(x)", x=F(5))
R("softplus", "basic", "x", "F.softplus(x)", x=F(5))
R("hardsigmoid", "basic", "x", "F.hardsigmoid(x * 4.0)", x=F(5))
R("hardswish", "basic", "x", "F.hardswish(x * 4.0)", x=F(5))
R("clamp", "both", "x", "torch.clamp(x, -0.5, 0.5)", x=F(6))
R("clamp", "min", "x", "x.clamp(min=0.0)", x=F(6))
R("clamp", "max", "x", "x.clamp(max=0.1)", x=F(6))
R("clamp", "int", "x", "x.clamp(-2, 2)", x=L(6))
R("clamp", "int_tensor_float_bounds", "x", "x.clamp(-1.5, 2.5)", x=L(6))
R("clamp_min", "basic", "x", "x.clamp_min(0.2)", x=F(4))
R("clamp_max", "basic", "x", "x.clamp_max(0.2)", x=F(4))
R("floor", "basic", "x", "torch.floor(x * 3.0)", x=F(5))
R("ceil", "basic", "x", "torch.ceil(x * 3.0)", x=F(5))
R("round", "basic", "x", "torch.round(x * 3.0)", x=F(5))
R("round", "half_to_even", "x", "torch.round(x)", x=T([0.5, 1.5, 2.5, -0.5, -1.5, -2.5]))
R("trunc", "basic", "x", "torch.trunc(x * 3.0)", x=F(5))
R("sign", "basic", "x", "torch.sign(x)", x=T([-2.0, 0.0, 3.5]))
R("reciprocal", "basic", "x", "torch.reciprocal(x)", x=POS(3))
R("lerp", "scalar_weight", "x, y", "torch.lerp(x, y, 0.25)", x=F(4), y=F(4))
R("atan2", "basic", "x, y", "torch.atan2(x, y)", x=F(4), y=F(4))
R("where", "tensor", "c, x, y", "torch.where(c, x, y)", c=B(2, 3), x=F(2, 3), y=F(2, 3))
R("where", "scalar_other", "x", "torch.where(x > 0, x, 0.0)", x=F(5))
R("where", "broadcast", "c, x, y", "torch.where(c, x, y)", c=B(3, 1), x=F(1, 4), y=F(4))
R("where", "int_float_promote", "c, x, y", "torch.where(c, x, y)", c=B(4), x=L(4), y=F(4))
R("maximum", "basic", "x, y", "torch.maximum(x, y)", x=F(4), y=F(4))
R("maximum", "broadcast", "x, y", "torch.maximum(x, y)", x=F(2, 1), y=F(3))
R("minimum", "basic", "x, y", "torch.minimum(x, y)", x=F(4), y=F(4))
R("eq", "tensor", "x, y", "x == y", x=L(6, low=0, high=3), y=L(6, low=0, high=3))
R("eq", "scalar", "x", "x == 1", x=L(6, low=0, high=3))
R("eq", "bool", "x, y", "torch.eq(x, y)", x=B(4), y=B(4))
R("ne", "tensor", "x, y", "x != y", x=L(6, low=0, high=3), y=L(6, low=0, high=3))
R("lt", "tensor", "x, y", "x < y", x=F(5), y=F(5))
R("lt", "scalar", "x", "torch.lt(x, 0.5)", x=F(5))
R("le", "int", "x, y", "x <= y", x=L(6, low=0, high=3), y=L(6, low=0, high=3))
R("gt", "broadcast", "x, y", "x > y", x=F(3, 1), y=F(4))
R("gt", "int_tensor_float_scalar", "x", "x > 0.5", x=L(5))
R("ge", "scalar", "x", "x >= 0.0", x=F(5))
R("logical_and", "basic", "x, y", "torch.logical_and(x, y)", x=B(5), y=B(5))
R("logical_or", "basic", "x, y", "torch.logical_or(x, y)", x=B(5), y=B(5))
R("logical_not", "bool", "x", "torch.logical_not(x)", x=B(5))
R("logical_not", "float", "x", "torch.logical_not(x)", x=T([0.0, 1.5, -2.0, 0.0]))
R("logical_xor", "basic", "x, y", "torch.logical_xor(x, y)", x=B(5), y=B(5))
R("bitwise_and", "int", "x, y", "torch.bitwise_and(x, y)", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("bitwise_or", "int", "x, y", "torch.bitwise_or(x, y)", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("bitwise_xor", "int", "x, y", "torch.bitwise_xor(x, y)", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("bitwise_not", "int", "x", "torch.bitwise_not(x)", x=L(5))
R("bitwise_not", "bool", "x", "torch.bitwise_not(x)", x=B(5))
R("and_operator", "bool", "x, y", "x & y", x=B(5), y=B(5))
R("and_operator", "int", "x, y", "x & y", x=L(5, low=0, high=16), y=L(5, low=0, high=16))
R("or_operator", "bool", "x, y", "x | y", x=B(5), y=B(5))
R("xor_operator", "bool", "x, y", "x ^ y", x=B(5), y=B(5))
R("invert_operator", "bool", "x", "~x", x=B(5))
R("invert_operator", "int", "x", "~x", x=L(5))
R("to", "float_to_long", "x", "(x * 3.0).to(torch.long)", x=F(6))
R("to", "float_to_bool", "x", "x.to(torch.bool)", x=T([0.0, -0.5, 2.0]))
R("to", "float_to_float64", "x", "x.to(torch.float64)", x=F(3))
# the edges of the contiguous fast casts (tensor/copy.c): truncation toward
# zero, out of range and NaN, and one rounding from int64 to float32
R("to", "float_to_long_edges", "x", "x.to(torch.long)",
  x=T([1.5, -2.7, -0.0, 3e9, -5e18, 1e30, float("inf"), float("nan")]))
R("to", "long_to_float_rounding", "x", "x.to(torch.float32)",
  x=T([1152921573326323713, -3, 123456789123, 16777217]))
R("to", "long_to_int32", "x", "x.to(torch.int32)", x=L(3))
R("to", "bool_to_float", "x", "x.to(torch.float32)", x=B(4))
R("to", "other_tensor", "x, y", "x.to(y)", x=F(3), y=L(1))
R("to", "dtype_of", "x, y", "x.to(y.dtype)", x=L(3), y=F64(1))
R("to", "same_dtype", "x", "x.to(torch.float32) * 2.0", x=F(3))
R("float", "from_long", "x", "x.float() / 2", x=L(3))
R("long", "from_float", "x", "(x * 4.0).long()", x=F(4))
R("double", "from_float", "x", "x.double()", x=F(3))
R("int", "from_float", "x", "(x * 4.0).int()", x=F(4))
R("type_as", "basic", "x, y", "x.type_as(y)", x=F(3), y=L(1))

# ------------------------------------------------------------------ reductions
R("sum", "all", "x", "x.sum()", x=F(3, 4))
R("sum", "dim", "x", "x.sum(0)", x=F(3, 4))
R("sum", "keepdim", "x", "torch.sum(x, 1, keepdim=True)", x=F(3, 4))
R("sum", "negative_dim", "x", "x.sum(-1)", x=F(2, 3, 4))
R("sum", "multi_dims", "x", "x.sum(dim=(0, 2))", x=F(2, 3, 4))
R("sum", "int", "x", "x.sum()", x=L(5))
R("sum", "int32_dim", "x", "x.sum(0)", x=I32(3, 2))
R("sum", "bool", "x", "x.sum()", x=B(7))
R("sum", "dtype", "x", "x.sum(dtype=torch.float64)", x=F(4))
R("sum", "empty", "x", "x.sum()", x=F(0, 3))
R("sum", "empty_dim", "x", "x.sum(0)", x=F(0, 3))
R("sum", "noncontiguous", "x", "x.t()[::2].sum(1)", x=F(3, 4))
R("mean", "all", "x", "x.mean()", x=F(3, 4))
R("mean", "dim", "x", "x.mean(1)", x=F(3, 4))
R("mean", "keepdim", "x", "torch.mean(x, -1, keepdim=True)", x=F(3, 4))
R("mean", "multi_dims", "x", "x.mean([0, 1])", x=F(2, 3, 2))
R("prod", "all", "x", "x.prod()", x=POS(4))
R("prod", "dim", "x", "torch.prod(x, 1)", x=POS(2, 3))
R("max", "all", "x", "x.max()", x=U(3, 4))
R("max", "dim", "x", "x.max(1)", x=U(3, 4))
R("max", "dim_keepdim", "x", "torch.max(x, 0, keepdim=True)", x=U(3, 4))
R("max", "binary", "x, y", "torch.max(x, y)", x=F(4), y=F(4))
R("max", "int", "x", "x.max()", x=L(6))
R("min", "all", "x", "x.min()", x=U(3, 4))
R("min", "dim", "x", "x.min(-1)", x=U(3, 4))
R("argmax", "all", "x", "x.argmax()", x=U(3, 4))
R("argmax", "dim", "x", "torch.argmax(x, 1)", x=U(3, 4))
R("argmax", "keepdim", "x", "x.argmax(0, keepdim=True)", x=U(3, 4))
R("argmin", "dim", "x", "x.argmin(dim=1)", x=U(3, 4))
R("amax", "dim", "x", "x.amax(1)", x=F(3, 4))
# NaNs and ties inside rows long enough that the fused kernels' max, min and
# sum loops run as vectorized (OpenMP simd) reductions
R("max", "dim_nan_ties", "x", "x.max(1)", x=T([[1.0, 3.0, 3.0, 2.0, 0.0, 3.0, 1.0, 2.0, 3.0, 1.0], [float("nan"), 5.0, float("nan"), 1.0, 9.0, 1.0, 2.0, 3.0, 4.0, 5.0], [-1.0, -1.0, -2.0, float("-inf"), -3.0, -1.0, -4.0, -5.0, -6.0, -7.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, float("nan")]]))
R("amax", "nan_rows", "x", "x.amax(1), x.amin(1), x.sum(1)", x=T([[1.0, float("nan"), 2.0, 0.5, 3.0, 1.0, 2.0, 9.0, 1.0, 4.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, float("nan")]]))
R("softmax", "rows_max", "x", "torch.softmax(x, 1)[:, 1:].max(1)", x=F(6, 21))
R("amax", "multi_dims", "x", "torch.amax(x, (0, 2))", x=F(2, 3, 2))
R("amin", "keepdim", "x", "x.amin(0, keepdim=True)", x=F(3, 4))
# over an empty dim these raise (fused, they gave -inf and index 0); over
# another dim of an input with an empty dim their results are empty
E("amax", "empty_dim", "x", "x.amax(1) * 2.0", (1, "non-zero size"), x=F(3, 0))
E("max", "empty_dim", "x", "x.max(1)[0] + 1.0", (1, "non-zero size"), x=F(3, 0))
E("argmin", "empty_dim", "x", "torch.argmin(x, 1, keepdim=True) * 2", (1, "non-zero size"), x=F(3, 0))
R("amax", "empty_rows", "x", "x.amax(1) * 2.0, x.max(1)[1] + 1", x=F(0, 3))
R("softmax", "last", "x", "torch.softmax(x, -1)", x=F(3, 4))
R("softmax", "dim0", "x", "x.softmax(0)", x=F(3, 4))
R("softmax", "large_values", "x", "torch.softmax(x * 100.0, 1)", x=F(2, 5))
R("softmax", "functional", "x", "F.softmax(x, dim=1)", x=F(2, 3))
R("log_softmax", "last", "x", "torch.log_softmax(x, -1)", x=F(3, 4))
R("log_softmax", "functional", "x", "F.log_softmax(x, dim=0)", x=F(3, 4))
# A 0-d tensor is one row of one element (OpInfo's sample 5 of the softmax
# family): softmax 1, log_softmax 0, with and without a dtype.
R("softmax", "zero_dim", "x, y",
  "torch.softmax(x, 0), torch.softmax(y, -1), torch.softmax(x, 0, dtype=torch.float64)",
  x=T(0.75), y=T(-2.5, torch.float64))
R("log_softmax", "zero_dim", "x, y",
  "torch.log_softmax(x, 0), torch.log_softmax(y, -1), torch.log_softmax(x, -1, dtype=torch.float64)",
  x=T(0.75), y=T(-2.5, torch.float64))
R("softmin", "zero_dim", "x, y", "F.softmin(x, 0), F.softmin(y, -1), F.softmin(x, 0, dtype=torch.float64)",
  x=T(0.75), y=T(-2.5, torch.float64))
E("softmax", "dim_out_of_range", "x", "torch.softmax(x, 5)",
  (1, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"), x=F(2, 3))
E("softmax", "zero_dim_dim_out_of_range", "x", "torch.softmax(x * 2.0, 1)",
  (1, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"), x=T(0.5))
E("log_softmax", "negative_dim_out_of_range", "x", "torch.log_softmax(x, -3)",
  (1, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"), x=F(2, 3))
R("cumsum", "dim0", "x", "x.cumsum(0)", x=F(3, 4))
R("cumsum", "dim1", "x", "torch.cumsum(x, 1)", x=F(3, 4))
R("cumsum", "int", "x", "x.cumsum(0)", x=L(6))
R("cumprod", "basic", "x", "torch.cumprod(x, 0)", x=POS(5))
R("all", "all", "x", "x.all()", x=B(5))
R("all", "dim", "x", "torch.all(x, 1)", x=B(3, 4))
R("all", "float", "x", "(x > -10.0).all()", x=F(4))
R("any", "all", "x", "x.any()", x=B(5))
R("any", "dim", "x", "x.any(0)", x=B(3, 4))
R("topk", "largest", "x", "torch.topk(x, 3)", x=U(8))
R("topk", "smallest", "x", "x.topk(2, largest=False)", x=U(6))
R("topk", "dim0", "x", "torch.topk(x, 2, dim=0)", x=U(4, 3))
R("topk", "rows", "x", "x.topk(2)", x=U(3, 5))
R("sort", "ascending", "x", "torch.sort(x)", x=U(6))
R("sort", "descending", "x", "x.sort(descending=True)", x=U(6))
R("sort", "dim0", "x", "torch.sort(x, 0)", x=U(4, 3))
R("argsort", "basic", "x", "torch.argsort(x)", x=U(3, 4))
R("nonzero", "1d", "x", "torch.nonzero(x)", x=T([0.0, 1.0, 0.0, -2.0]))
R("nonzero", "2d", "x", "x.nonzero()", x=B(3, 4))
R("nonzero", "none", "x", "torch.nonzero(x)", x=T([0, 0, 0]))
R("norm", "all", "x", "x.norm()", x=F(3, 4))
R("var", "dim", "x", "x.var(1)", x=F(3, 5))
R("std", "all", "x", "x.std()", x=F(6))
R("logsumexp", "dim", "x", "torch.logsumexp(x, 1)", x=F(3, 4))

# ------------------------------------------------------------------ linear algebra and nn
R("mm", "basic", "x, y", "torch.mm(x, y)", x=F(2, 3), y=F(3, 4))
R("mm", "noncontiguous", "x, y", "x.t().mm(y[:, ::2])", x=F(3, 2), y=F(3, 6))
R("mm", "int", "x, y", "torch.mm(x, y)", x=L(2, 3), y=L(3, 2))
R("mm", "empty_inner", "x, y", "torch.mm(x, y)", x=F(2, 0), y=F(0, 3))
R("bmm", "basic", "x, y", "torch.bmm(x, y)", x=F(2, 3, 4), y=F(2, 4, 2))
R("matmul", "2d", "x, y", "x @ y", x=F(2, 3), y=F(3, 4))
R("matmul", "1d_2d", "x, y", "torch.matmul(x, y)", x=F(3), y=F(3, 2))
R("matmul", "2d_1d", "x, y", "torch.matmul(x, y)", x=F(2, 3), y=F(3))
R("matmul", "vec_vec", "x, y", "torch.matmul(x, y)", x=F(4), y=F(4))
R("matmul", "batched_broadcast", "x, y", "torch.matmul(x, y)", x=F(2, 3, 4), y=F(4, 2))
R("matmul", "batch_broadcast_both", "x, y", "torch.matmul(x, y)", x=F(2, 1, 3, 4), y=F(3, 4, 2))
# a matrix times a batch of columns (one GEMM of the columns as rows), and
# the same with batch dims that do not merge (one product per entry)
R("matmul", "matrix_batched_columns", "x, y", "torch.matmul(x, y)", x=F(3, 4), y=F(2, 5, 4, 1))
R("matmul", "matrix_strided_columns", "x, y", "torch.matmul(x, y.transpose(0, 1))", x=F(3, 4),
  y=F(5, 2, 4, 1))
R("addmm", "basic", "b, x, y", "torch.addmm(b, x, y)", b=F(4), x=F(2, 3), y=F(3, 4))
R("addmm", "beta_alpha", "b, x, y", "torch.addmm(b, x, y, beta=0.5, alpha=2.0)", b=F(2, 4), x=F(2, 3), y=F(3, 4))
R("linear", "bias", "x, w, b", "F.linear(x, w, b)", x=F(2, 3), w=F(4, 3), b=F(4))
R("linear", "no_bias", "x, w", "F.linear(x, w)", x=F(2, 3, 3), w=F(2, 3))
R("dot", "basic", "x, y", "torch.dot(x, y)", x=F(5), y=F(5))
R("outer", "basic", "x, y", "torch.outer(x, y)", x=F(3), y=F(2))
R("conv2d", "basic", "x, w, b", "F.conv2d(x, w, b)", x=F(1, 2, 5, 5), w=F(3, 2, 3, 3), b=F(3))
R("conv2d", "stride_padding", "x, w, b", "F.conv2d(x, w, b, stride=2, padding=1)", x=F(2, 2, 5, 6), w=F(3, 2, 3, 3), b=F(3))
R("conv2d", "groups", "x, w", "F.conv2d(x, w, groups=2)", x=F(1, 4, 4, 4), w=F(2, 2, 3, 3))
# conv3d: depth slices of 2-d convolutions (tensor/nn.c), with stride,
# padding and dilation in depth, groups, unbatched input, 'same' padding,
# and a kernel deeper than the padded input
R("conv3d", "basic", "x, w, b", "F.conv3d(x, w, b)", x=F(2, 2, 4, 5, 5), w=F(3, 2, 3, 3, 3), b=F(3))
R("conv3d", "stride_padding_dilation", "x, w, b",
  "F.conv3d(x, w, b, stride=(2, 1, 2), padding=(2, 1, 0), dilation=(2, 1, 1), groups=2)",
  x=F(1, 4, 5, 4, 6), w=F(4, 2, 2, 3, 2), b=F(4))
R("conv3d", "unbatched_same", "x, w", "F.conv3d(x, w, padding='same')", x=F(2, 3, 4, 4), w=F(2, 2, 2, 3, 3))
# l.copy() and d.copy() (aten::copy of a container) run as list(l) and a
# new dict updated from d (frontend/decompose.c): shallow copies whose
# elements are the original's tensors
R("copy", "list_shallow", "x", "l = [x * 1.0, x * 2.0]\nm = l.copy()\nm.append(x)\nm[0].add_(1.0)\n"
  "return len(l), len(m), l[0], torch.stack(m)", x=F(3))
R("copy", "dict_shallow", "x", "d = {'a': x * 1.0}\ne = d.copy()\ne['b'] = x * 3.0\ne['a'].sub_(0.5)\n"
  "return len(d), len(e), d['a'], e['b']", x=F(3))
# uint8, int8 and int16 tensors in and out (.npy |u1 |i1 <i2): an image's
# normalization and its way back, wrapping integer arithmetic
R("to", "uint8_image_round_trip", "img",
  "x = (img.float().div(255) - 0.5) / 0.25\nback = (x * 0.25 + 0.5).mul(255).round().clamp(0, 255).to(torch.uint8)\n"
  "return x, back, img.max(), (img > 128).sum(), img + img",
  img=T([[0, 17, 128], [200, 254, 255]], dtype=torch.uint8))
R("to", "int8_int16_wrap", "x", "return x.to(torch.int8) * 3, x.to(torch.int16) * 300, torch.zeros(3, dtype=torch.int8) - 5",
  x=T([[-100, 5, 127], [60, -128, 1]], dtype=torch.int64))
# t.tolist() with its annotation (prim::tolist: depth and element type;
# TorchScript's checks of both against the tensor have no eager
# counterpart to take expected errors from), and sorted() of int, float and str lists
# (list(l) sorted in place: frontend/decompose.c)
R("tolist", "nested_float", "x", "l: List[List[float]] = x.tolist()\nreturn l[1][2], len(l), len(l[0]), sum(l[0])",
  x=F(2, 3))
R("tolist", "ints_strided_bools", "x, m",
  "a: List[int] = x.t()[1].tolist()\nb: List[bool] = m.tolist()\nz: int = x[0, 0].tolist()\n"
  "return a[0] + a[-1], b[0], b[1], z", x=L(3, 2), m=T([True, False]))
R("sorted", "ints_floats_strs", "x, n: int",
  "a = sorted([n, 3, -1, n * 2])\nb = sorted([2.5, -0.5, float(n)])\nc = sorted(['b', 'a', 'c'])\n"
  "return x * float(a[0] + a[-1]), b[0], c[0] == 'a', len(c)", x=F(2), n=4)
# an empty index of another dtype than int64 passes gather's and scatter's
# dtype check, as ATen checks a non-empty index only (OpInfo's gather sample)
R("gather", "empty_uint8_index", "x, i", "return torch.gather(x, 0, i), torch.scatter(x, 0, i, x[:0]), "
  "torch.scatter_reduce(x, 0, i, x[:0], 'sum')", x=F(5), i=T([], dtype=torch.uint8))
# dict(): from (key, value) pairs as OrderedDict([...]) scripts (a later
# pair overwrites an earlier key in place), a shallow copy, and empty
R("dict", "pairs_copy_empty", "x",
  "d = dict([('a', x), ('b', x * 2.0), ('a', x + 1.0)])\ne = dict(d)\ne['c'] = x\nf: Dict[str, int] = dict()\n"
  "return d['a'], list(d.keys()) == ['a', 'b'], len(e), len(d), len(f)", x=F(3))
# channel_shuffle runs as its definition (frontend/decompositions.inc)
R("channel_shuffle", "groups", "x", "torch.channel_shuffle(x, 3)", x=F(2, 6, 3, 2))
R("channel_shuffle", "one_group_fresh", "x", "y = torch.channel_shuffle(x, 1)\ny.add_(1.0)\nreturn x, y",
  x=F(2, 4, 3))
E("channel_shuffle", "not_divisible", "x", "torch.channel_shuffle(x, 4)",
  (1, "Number of channels must be divisible by groups. Got 6 channels and 4 groups."), x=F(2, 6, 3))
E("conv3d", "kernel_too_deep", "x, w", "F.conv3d(x, w)",
  (1, "Kernel size can't be greater than actual input size"), x=F(1, 1, 2, 4, 4), w=F(1, 1, 3, 2, 2))
R("conv2d", "dilation", "x, w", "F.conv2d(x, w, dilation=2, padding=(2, 1))", x=F(1, 1, 6, 6), w=F(2, 1, 3, 3))
R("conv2d", "rect_kernel_stride", "x, w, b", "F.conv2d(x, w, b, stride=(1, 2))", x=F(1, 2, 4, 7), w=F(2, 2, 1, 3), b=F(2))
R("conv1d", "basic", "x, w, b", "F.conv1d(x, w, b, padding=1)", x=F(2, 2, 6), w=F(3, 2, 3), b=F(3))
# Pointwise convolutions (nn.c reads the channels in place, no im2col): a
# Conv1d(k=1) over batches, grouped 1x1 conv2d, planes not stored row after
# row (a transposed input: the im2col path), one output row (h == 1).
R("conv1d", "pointwise", "x, w, b", "F.conv1d(x, w, b)", x=F(3, 6, 5), w=F(4, 6, 1), b=F(4))
R("conv2d", "pointwise_groups", "x, w, b", "F.conv2d(x, w, b, groups=2)", x=F(2, 4, 3, 5), w=F(6, 2, 1, 1), b=F(6))
R("conv2d", "pointwise_transposed_input", "x, w", "F.conv2d(x.transpose(2, 3), w)", x=F(2, 3, 4, 5), w=F(2, 3, 1, 1))
R("conv2d", "pointwise_one_row", "x, w", "F.conv2d(x, w)", x=F(1, 3, 1, 7), w=F(2, 3, 1, 1))
# 1x1 convolutions read the input as the unrolled columns (tensor/nn.c):
# batched with a bias, grouped, channels not adjacent (a channel slice), and
# a 1x1 kernel that still needs im2col (padding) for contrast
R("conv2d", "pointwise_bias", "x, w, b", "F.conv2d(x, w, b)", x=F(2, 4, 3, 5), w=F(6, 4, 1, 1), b=F(6))
R("conv2d", "pointwise_groups_square", "x, w", "F.conv2d(x, w, groups=2)", x=F(1, 4, 3, 3), w=F(4, 2, 1, 1))
R("conv2d", "pointwise_channel_slice", "x, w, b", "F.conv2d(x[:, 1:4], w, b)", x=F(2, 5, 2, 3), w=F(2, 3, 1, 1),
  b=F(2))
R("conv2d", "pointwise_padded", "x, w", "F.conv2d(x, w, padding=1)", x=F(1, 2, 3, 3), w=F(3, 2, 1, 1))
R("conv1d", "pointwise_batched", "x, w, b", "F.conv1d(x, w, b)", x=F(2, 3, 7), w=F(4, 3, 1), b=F(4))
R("conv1d", "depthwise", "x, w, b", "F.conv1d(x, w, b, stride=2, padding=2, dilation=2, groups=4)",
  x=F(2, 4, 11), w=F(4, 1, 3), b=F(4))
R("conv1d", "depthwise_strided_input", "x, w", "F.conv1d(x.transpose(1, 2), w, padding=1, groups=3)",
  x=F(2, 9, 3), w=F(3, 1, 4))
R("conv2d", "depthwise", "x, w", "F.conv2d(x, w, stride=(2, 1), padding=(1, 2), groups=3)",
  x=F(1, 3, 6, 5), w=F(3, 1, 3, 2))
# taps that fall wholly in the padding for some outputs (the depthwise
# kernel's per-tap output range), and a long row as compute_deltas makes
R("conv1d", "depthwise_wide_padding", "x, w", "F.conv1d(x, w, stride=3, padding=7, dilation=3, groups=2)",
  x=F(1, 2, 7), w=F(2, 1, 5))
R("conv1d", "depthwise_long_rows", "x, w", "F.conv1d(F.pad(x, (4, 4)), w, groups=6) / 60.0",
  x=F(1, 6, 300), w=F(6, 1, 9))
R("batch_norm", "eval_conv_features", "x, m, v, w, b", "F.batch_norm(x, m, v, w, b, False, 0.1, 1e-5)",
  x=F(2, 5, 7, 3), m=F(5), v=POS(5), w=F(5), b=F(5))
R("batch_norm", "eval", "x, m, v, w, b", "F.batch_norm(x, m, v, w, b, False, 0.1, 1e-5)",
  x=F(2, 3, 2, 2), m=F(3), v=POS(3), w=F(3), b=F(3))
R("batch_norm", "no_affine", "x, m, v", "F.batch_norm(x, m, v, None, None, False, 0.1, 1e-3)",
  x=F(2, 3, 4), m=F(3), v=POS(3))
R("layer_norm", "last", "x, w, b", "F.layer_norm(x, [4], w, b)", x=F(3, 4), w=F(4), b=F(4))
R("layer_norm", "two_dims", "x, w, b", "F.layer_norm(x, [2, 3], w, b, 1e-3)", x=F(2, 2, 3), w=F(2, 3), b=F(2, 3))
R("layer_norm", "no_affine", "x", "F.layer_norm(x, [5])", x=F(2, 5))
R("group_norm", "basic", "x, w, b", "F.group_norm(x, 2, w, b)", x=F(2, 4, 3), w=F(4), b=F(4))
R("max_pool2d", "basic", "x", "F.max_pool2d(x, 2)", x=U(1, 2, 4, 4))
R("max_pool2d", "stride_padding", "x", "F.max_pool2d(x, 3, stride=2, padding=1)", x=U(1, 1, 5, 5))
R("max_pool2d", "ceil_mode", "x", "F.max_pool2d(x, 2, ceil_mode=True)", x=U(1, 1, 5, 5))
R("avg_pool2d", "basic", "x", "F.avg_pool2d(x, 2)", x=F(1, 2, 4, 4))
R("avg_pool2d", "padding_exclude", "x", "F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)", x=F(1, 1, 5, 5))
R("avg_pool2d", "padding_include", "x", "F.avg_pool2d(x, 3, stride=2, padding=1)", x=F(1, 1, 5, 5))
R("adaptive_avg_pool2d", "one", "x", "F.adaptive_avg_pool2d(x, 1)", x=F(2, 3, 4, 4))
R("adaptive_avg_pool2d", "uneven", "x", "F.adaptive_avg_pool2d(x, (2, 3))", x=F(1, 2, 5, 5))
R("embedding", "basic", "i, w", "F.embedding(i, w)", i=IDX(5, 4), w=F(5, 3))
R("embedding", "2d_indices", "i, w", "F.embedding(i, w)", i=IDX(6, 2, 3), w=F(6, 2))
R("dropout", "eval", "x", "torch.dropout(x, 0.5, False)", x=F(3, 4))
R("cat", "dim0", "x, y", "torch.cat([x, y])", x=F(2, 3), y=F(1, 3))
R("cat", "dim1", "x, y", "torch.cat((x, y), 1)", x=F(2, 3), y=F(2, 1))
R("cat", "negative_dim", "x, y", "torch.cat([x, y], dim=-1)", x=F(2, 2, 1), y=F(2, 2, 3))
R("cat", "three", "x, y, z", "torch.cat([x, y, z])", x=F(1), y=F(2), z=F(3))
R("cat", "empty_piece", "x, y", "torch.cat([x, y])", x=F(0, 3), y=F(2, 3))
R("cat", "int", "x, y", "torch.cat([x, y])", x=L(2), y=L(3))
R("cat", "noncontiguous", "x, y", "torch.cat([x.t(), y])", x=F(3, 2), y=F(1, 3))
R("cat", "list_built_in_loop", "x, n: int",
  "parts: List[torch.Tensor] = []\nfor i in range(n):\n    parts.append(x * float(i))\nreturn torch.cat(parts, 1)",
  x=F(2, 2), n=3)
R("stack", "dim0", "x, y", "torch.stack([x, y])", x=F(2, 3), y=F(2, 3))
R("stack", "dim1", "x, y", "torch.stack((x, y), 1)", x=F(2, 3), y=F(2, 3))
R("stack", "last", "x, y, z", "torch.stack([x, y, z], -1)", x=F(2), y=F(2), z=F(2))
R("repeat", "basic", "x", "x.repeat(2, 3)", x=F(2, 2))
R("repeat", "new_dims", "x", "x.repeat(2, 1, 2)", x=F(3))
R("repeat", "int_middle_dim", "x", "x.repeat(1, 3, 1)", x=L(2, 2, 3))
R("repeat", "bool_leading_dims", "x", "(x > 0).repeat(2, 1, 2, 1)", x=F(3, 2))
R("repeat", "zero_dim", "x", "x.sum().repeat(4)", x=F(3))
R("repeat", "strided_input", "x", "x.t().repeat(2, 2)", x=F(2, 3))
R("repeat", "all_ones", "x", "x.repeat(1, 1)", x=F(2, 3))
R("flip", "basic", "x", "torch.flip(x, [0, 1])", x=F(2, 3))
R("roll", "basic", "x", "torch.roll(x, 1, 0)", x=F(4, 2))
R("tril", "basic", "x", "torch.tril(x)", x=F(3, 4))
# Linear algebra through LAPACK (tensor/lapack.c). A symmetric positive-
# definite matrix is made inside the function (SPD, op_rows.py).
R("linalg_cholesky", "basic", "x", SPD + "return torch.linalg.cholesky(a)", x=F(4, 4))
R("linalg_cholesky", "upper_f64", "x", SPD + "return torch.linalg.cholesky(a, upper=True)", x=F64(3, 3))
R("linalg_cholesky", "batched", "x", SPD + "return torch.linalg.cholesky(a)", x=F(2, 3, 3))
R("cholesky_solve", "basic", "x, b", SPD + "return torch.cholesky_solve(b, torch.linalg.cholesky(a))",
  x=F(4, 4), b=F(4, 2))
R("cholesky_solve", "upper_broadcast", "x, b",
  SPD + "return torch.cholesky_solve(b, torch.linalg.cholesky(a, upper=True), upper=True)",
  x=F64(3, 3), b=F64(2, 3, 2))
R("linalg_solve", "matrix", "x, b", SPD + "return torch.linalg.solve(a, b)", x=F(4, 4), b=F(4, 3))
R("linalg_solve", "vector", "x, b", SPD + "return torch.linalg.solve(a, b)", x=F64(3, 3), b=F64(3))
R("linalg_solve", "batched", "x, b", SPD + "return torch.linalg.solve(a, b)", x=F(2, 3, 3), b=F(2, 3))
R("linalg_inv", "basic", "x", SPD + "return torch.linalg.inv(a)", x=F(4, 4))
R("linalg_inv", "batched_f64", "x", SPD + "return torch.linalg.inv(a)", x=F64(2, 3, 3))
R("linalg_det", "basic", "x", "torch.det(x)", x=F64(4, 4))
R("linalg_det", "batched", "x", "torch.linalg.det(x)", x=F(3, 2, 2))
R("linalg_det", "singular", "x", "torch.det(torch.stack([x, x]))", x=F64(2))
R("linalg_slogdet", "basic", "x", "torch.linalg.slogdet(x)", x=F64(3, 3))
R("linalg_slogdet", "batched", "x", "torch.linalg.slogdet(x)", x=F(2, 4, 4))
R("logdet", "spd", "x", SPD + "return torch.logdet(a)", x=F64(3, 3))
R("linalg_qr", "tall", "x", "torch.linalg.qr(x)", x=F64(5, 3))
R("linalg_qr", "wide_complete", "x", "torch.linalg.qr(x, mode='complete')", x=F(3, 4))
R("linalg_qr", "complete_tall_batched", "x", "torch.linalg.qr(x, mode='complete')", x=F64(2, 4, 2))
R("linalg_qr", "r_only", "x", "torch.linalg.qr(x, mode='r')[1]", x=F(4, 4))
R("linalg_eigh", "spd", "x",
  SPD + "w, v = torch.linalg.eigh(a)\nreturn w, v * torch.sign(v[..., 0:1, :])", x=F64(4, 4))
R("linalg_eigh", "upper_batched", "x",
  SPD + "w, v = torch.linalg.eigh(a, UPLO='U')\nreturn w, v * torch.sign(v[..., 0:1, :])", x=F(2, 3, 3))
R("diag_embed", "basic", "x", "torch.diag_embed(x), torch.diag_embed(x, 1)", x=F(2, 3))
R("diag", "vector", "x", "torch.diag(x)", x=F(3))
R("diag", "vector_offset", "x", "torch.diag(x, -2)", x=L(3))
R("diag", "matrix", "x", "torch.diag(x, 1)", x=F(3, 4))
R("unique_consecutive", "flat", "x", "torch.unique_consecutive(x)", x=T([1, 1, 2, 2, 3, 1, 1, 2]))
R("unique_consecutive", "inverse_counts", "x",
  "torch.unique_consecutive(x, return_inverse=True, return_counts=True)", x=T([[1, 1, 2], [2, 2, 5]]))
R("unique_consecutive", "dim0", "x", "torch.unique_consecutive(x, return_counts=True, dim=0)",
  x=T([[1.0, 1.0], [1.0, 1.0], [2.0, 3.0], [1.0, 1.0]]))
R("unique_consecutive", "ctc_greedy", "logits",
  "best = logits.argmax(-1)\nids = torch.unique_consecutive(best)\nreturn ids[ids != 0]", logits=U(12, 5))
R("scatter_add", "basic", "x, i, src", "torch.scatter_add(x, 1, i, src)", x=F(2, 4), i=IDX(4, 2, 3), src=F(2, 3))
R("scatter_add_inplace", "basic", "x, i, src", "y = x.clone()\ny.scatter_add_(0, i, src)\nreturn y", x=F(3, 2), i=IDX(3, 4, 2), src=F(4, 2))
# whole rows with an expanded index (PyG's scatter; tensor/index.c's
# scatter_add_rows), float32 and float64, repeated rows, and one out of range
R("scatter_add_inplace", "rows_expanded", "x, i, src",
  "y = x.clone()\ny.scatter_add_(0, i.view(-1, 1, 1).expand(-1, 3, 2), src)\nreturn y",
  x=F(4, 3, 2), i=T([3, 0, 3, 1, 3]), src=F(5, 3, 2))
R("scatter_add_inplace", "rows_expanded_f64", "x, i, src",
  "y = x.clone()\ny.scatter_add_(0, i.unsqueeze(1).expand(-1, 6), src)\nreturn y",
  x=F64(3, 6), i=T([2, 2, 0, 2]), src=F64(4, 6))
E("scatter_add_inplace", "rows_out_of_range", "x, i, src",
  "y = x.clone()\ny.scatter_add_(0, i.unsqueeze(1).expand(-1, 2), src)\nreturn y", (1, "aten::scatter_add_"),
  x=F(3, 2), i=T([0, 3]), src=F(2, 2))
R("index_add", "alpha", "x, i, src", "x.index_add(0, i, src, alpha=2.0)", x=F(4, 3), i=T([0, 2, 0]), src=F(3, 3))
R("index_add_inplace", "dim1", "x, i, src", "y = x.clone()\ny.index_add_(1, i, src)\nreturn y", x=L(2, 3), i=T([2, 2]), src=L(2, 2))
R("bincount", "counts", "x", "torch.bincount(x)", x=IDX(6, 20))
R("bincount", "weights_minlength", "x, w", "torch.bincount(x, w, 8)", x=IDX(5, 10), w=F(10))
R("searchsorted", "left_right", "s, v", "torch.searchsorted(s, v), torch.searchsorted(s, v, right=True)", s=T([1.0, 2.0, 2.0, 5.0]), v=T([[0.0, 2.0], [3.0, 6.0]]))
R("searchsorted", "rows_int32", "s, v", "torch.searchsorted(s, v, out_int32=True)", s=T([[1, 3, 5], [2, 4, 6]]), v=T([[3, 6], [1, 4]]))
R("list_ops", "remove_count_clear", "n: int", "l = [1, 2, 3, 2, n]\nl.remove(2)\nc = l.count(2)\nm = len(l)\nl.clear()\nreturn c, m, len(l)", n=2)
R("acos", "basic", "x", "torch.acos(x.tanh()), x.tanh().acos()", x=F(5))
R("asin", "basic", "x", "torch.asin(x.tanh())", x=F(5))
R("atan", "int", "x", "torch.atan(x)", x=L(5))
R("sinh", "basic", "x", "torch.sinh(x)", x=F64(5))
R("cosh", "basic", "x", "torch.cosh(x)", x=F(5))
R("asinh", "basic", "x", "torch.asinh(x)", x=F(5))
R("acosh", "basic", "x", "torch.acosh(x.abs() + 1.0)", x=F(5))
R("atanh", "inplace", "x", "y = x.tanh() * 0.9\ny.atanh_()\nreturn y", x=F(5))
R("erfc", "basic", "x", "torch.erfc(x)", x=F64(5))
R("exp2", "int", "x", "torch.exp2(x)", x=L(5))
R("log10", "basic", "x", "torch.log10(x.abs() + 0.5)", x=F(5))
R("lgamma", "basic", "x", "torch.lgamma(x.abs() + 0.25)", x=F64(5))
R("deg2rad", "rad2deg", "x", "torch.deg2rad(x), torch.rad2deg(x)", x=F(5))
R("sinc", "with_zero", "x", "torch.sinc(torch.cat([x, torch.zeros(1)]))", x=F(4))
R("math_functions", "scalar", "f: float", "math.acos(0.5), math.sinh(f), math.log10(f), math.erfc(f), math.atanh(0.25)", f=2.5)
R("einsum", "matmul", "x, y", "torch.einsum('ij,jk->ik', x, y)", x=F(3, 4), y=F(4, 5))
R("einsum", "batched", "x, y", "torch.einsum('bij,bjk->bik', x, y)", x=F(2, 3, 4), y=F(2, 4, 2))
R("einsum", "attention", "q, k", "torch.einsum('bhqd,bhkd->bhqk', q, k)", q=F(2, 3, 4, 5), k=F(2, 3, 6, 5))
R("einsum", "implicit_dot", "x, y", "torch.einsum('i,i', x, y)", x=F(5), y=F(5))
R("einsum", "trace_diag", "x", "torch.einsum('ii->i', x), torch.einsum('ii', x)", x=F(4, 4))
R("einsum", "transpose_sum", "x", "torch.einsum('ijk->kj', x)", x=F(2, 3, 4))
R("einsum", "ellipsis_broadcast", "x, y", "torch.einsum('...ij,jk->...ik', x, y)", x=F(2, 1, 3, 4), y=F(4, 2))
R("einsum", "outer_int", "x, y", "torch.einsum('i,j->ij', x, y)", x=L(3), y=L(4))
R("einsum", "three_operands", "x, y, z", "torch.einsum('bdn,bn,dn->bd', x, y, z)", x=F(2, 3, 4), y=F(2, 4), z=F(3, 4))
# Pairs that contract nothing (einsum.c's broadcast product): xDeepFM's CIN
# outer product per (b, d), with a broadcast size-1 batch dim; an outer
# product whose label j a later operand contracts; an output order that
# is not the operands' (the product is made in the output's order).
R("einsum", "batch_outer", "h, x", "torch.einsum('bhd,bmd->bhmd', h, x)", h=F(3, 4, 5), x=F(3, 2, 5))
R("einsum", "batch_outer_broadcast", "h, x", "torch.einsum('bhd,bmd->bhmd', h, x)", h=F(1, 4, 5), x=F(3, 2, 5))
R("einsum", "outer_then_contract", "x, y, z", "torch.einsum('i,j,jk->ik', x, y, z)", x=F(3), y=F(4), z=F(4, 2))
R("einsum", "outer_reordered", "x, y", "torch.einsum('ab,c->cba', x, y)", x=F(2, 3), y=F(4))
R("einsum", "mamba_scan_step", "dA, dB, u, C", "torch.einsum('bdn,bd->bdn', dA, u) + torch.einsum('bdn,bn->bd', dB, C).unsqueeze(-1)", dA=F(2, 3, 4), dB=F(2, 3, 4), u=F(2, 3), C=F(2, 4))


R("triu", "offset", "x", "torch.triu(x, 1)", x=F(4, 3))
R("pad", "constant", "x", "F.pad(x, (1, 2))", x=F(2, 3))
R("pad", "two_dims_value", "x", "F.pad(x, [1, 0, 0, 2], value=-1.0)", x=F(2, 2))
R("constant_pad_nd", "basic", "x", "torch.constant_pad_nd(x, [0, 1], 0.5)", x=F(3))
R("pad", "last_dim_int_value", "x", "F.pad(x, (2, 1), value=7.0)", x=L(2, 3, 4))
R("pad", "last_dim_left_only_bool", "x", "F.pad(x > 0, (3, 0))", x=F(3, 2))
R("pad", "last_dim_of_strided", "x", "F.pad(x.t(), (1, 2), value=0.5)", x=F(3, 4))
R("lstm_cell", "basic", "x, h, c, wi, wh, bi, bh", "torch.lstm_cell(x, [h, c], wi, wh, bi, bh)",
  x=F(2, 3), h=F(2, 4), c=F(2, 4), wi=F(16, 3), wh=F(16, 4), bi=F(16), bh=F(16))
R("gru_cell", "basic", "x, h, wi, wh, bi, bh", "torch.gru_cell(x, h, wi, wh, bi, bh)",
  x=F(2, 3), h=F(2, 4), wi=F(12, 3), wh=F(12, 4), bi=F(12), bh=F(12))
R("rnn_tanh_cell", "basic", "x, h, wi, wh, bi, bh", "torch.rnn_tanh_cell(x, h, wi, wh, bi, bh)",
  x=F(2, 3), h=F(2, 4), wi=F(4, 3), wh=F(4, 4), bi=F(4), bh=F(4))

# The op families added for OpInfo coverage: their rows, in this place of
# the table, are in family_rows.py.
import family_rows  # noqa: E402,F401

# One case per in-place variant of a listed op (inplace_rows.py).
import inplace_rows  # noqa: E402,F401

# ------------------------------------------------------------------ ops the table does not list
# Refused before the run only where they must run; in a branch or loop body
# a run may not reach, they fail when reached (exit 1, naming the op, the
# types it was called with and its line) and cost nothing otherwise.
# The flag is a tensor, as a run-time flag is: a bound bool would let the
# compiler fold the If for the run. The must-fail rows give poisson a
# negative rate, so that PyTorch fails at the same node. (poisson is an op
# the table does not list; pick another if it ever does.)
UNLISTED_SAMPLE = ("if bool(flag[0]):\n"
                   "    return torch.poisson(x)\n"
                   "return x * 2.0")
UNLISTED_X = T([[-1.0, 2.0, 0.5], [0.5, 0.25, 1.0]])
R("unlisted_op", "branch_not_taken", "x, flag", UNLISTED_SAMPLE, x=UNLISTED_X, flag=T([False]))
UNLISTED("aten::poisson")
E("unlisted_op", "branch_taken", "x, flag", UNLISTED_SAMPLE,
  (1, "unknown op 'aten::poisson': the op table does not list it"), x=UNLISTED_X, flag=T([True]))
UNLISTED("aten::poisson")
R("unlisted_op", "bool_flag_off", "x, sample: bool",
  "if sample:\n    return torch.poisson(x)\nreturn x * 2.0", x=UNLISTED_X, sample=False)
UNLISTED("aten::poisson")
R("unlisted_op", "loop_not_entered", "x, n: int",
  "for _ in range(n):\n    x = torch.poisson(x)\nreturn x + 1.0",
  x=UNLISTED_X, n=0)
UNLISTED("aten::poisson")
E("unlisted_op", "straight_line", "x", "torch.poisson(x)",
  (2, "unknown op 'aten::poisson'"), x=UNLISTED_X)
UNLISTED("aten::poisson")

# ------------------------------------------------------------------ scalars

# str methods; a string result is returned as its bytes (ord of each
# character) since outputs are numbers and tensors
STR_TEXT = '" a b  c "'
for op, case, expr in [
        ("split", "str_whitespace", "s.split()"),
        ("split", "str_separator", "s.split(' ')"),
        ("split", "str_separator_max", "s.split('b', 1)"),
        ("strip", "default", "[s.strip()]"),
        ("lstrip", "chars", "[s.lstrip('x a')]"),
        ("rstrip", "default", "[s.rstrip()]"),
        ("replace", "all", "[s.replace('b', 'QQ')]"),
        ("join", "basic", "['|'.join(s.split())]"),
        ("upper", "basic", "[s.upper()]"),
        ("lower", "basic", "[s.upper().lower()]"),
        ("chr", "basic", "[chr(65) + chr(122)]")]:
    R(op, case, "x", f"s = {STR_TEXT}\nreturn [[ord(ch) for ch in piece] for piece in {expr}]", x=F(1))
R("startswith", "window", "x", f"s = {STR_TEXT}\nreturn s.startswith('a', 1), s.startswith(' a'), s.startswith('b')", x=F(1))
R("endswith", "basic", "x", f"s = {STR_TEXT}\nreturn s.endswith('c '), s.endswith('c')", x=F(1))
R("find", "window", "x", f"s = {STR_TEXT}\nreturn s.find('b'), s.find('b', 4, -1), s.find('z'), s.find('c', -3)", x=F(1))
R("ord", "basic", "x", "return ord('A') + ord('z')", x=F(1))
R("meshgrid", "input_written_after", "a, b", "a = a.clone()\nx, y = torch.meshgrid(a, b, indexing='ij')\na.add_(1)\nreturn x + y", a=F(3), b=F(4))
R("no_grad", "scope", "x", "with torch.no_grad():\n    y = x * 2\nreturn y + 1", x=F(3))
R("no_grad", "inplace_inside", "x", "y = x.clone()\nwith torch.no_grad():\n    y.mul_(3)\n    y.add_(1)\nreturn y", x=F(3))
R("int_add", "basic", "a: int, b: int", "a + b", a=7, b=-3)
R("int_sub", "basic", "a: int, b: int", "a - b", a=7, b=12)
R("int_mul", "basic", "a: int, b: int", "a * b", a=-6, b=7)
R("int_neg", "basic", "a: int", "-a", a=5)
R("floordiv", "positive", "a: int, b: int", "a // b", a=7, b=2)
R("floordiv", "negative", "a: int, b: int", "a // b, (-a) // b, a // (-b)", a=7, b=2)
R("floordiv", "float", "a: float, b: float", "a // b, (-a) // b", a=7.5, b=2.0)
R("remainder_scalar", "negative", "a: int, b: int", "a % b, (-a) % b, a % (-b)", a=7, b=3)
R("remainder_scalar", "float", "a: float, b: float", "a % b, (-a) % b", a=7.5, b=2.0)
R("int_compare", "all", "a: int, b: int", "a < b, a <= b, a > b, a >= b, a == b, a != b", a=3, b=4)
R("float_arith", "basic", "a: float, b: float", "a * 2.5 + b, a - b / 4.0", a=1.25, b=-3.5)
R("float_arith", "int_true_div", "a: int, b: int", "a / b", a=7, b=2)
R("float_arith", "mixed_int_float", "a: int, b: float", "a + b, a * b, b - a", a=3, b=0.5)
R("float_compare", "basic", "a: float, b: float", "a < b, a == b, a >= b", a=0.1, b=0.2)
R("bool_scalar", "logic", "a: bool, b: bool", "a and b, a or b, not a", a=True, b=False)
R("bool_scalar", "branch", "x, flag: bool", "if flag:\n    return x * 2.0\nreturn x - 1.0", x=F(3), flag=False)
R("prim_min_max", "int", "a: int, b: int", "min(a, b), max(a, b)", a=4, b=-2)
R("prim_min_max", "float", "a: float, b: float", "min(a, b), max(a, b)", a=1.5, b=2.5)
R("Int", "from_tensor", "x", "int(x.sum())", x=L(4))
R("Int", "from_float_tensor", "x", "int(x.max())", x=T([-2.7, -3.5]))
R("Int", "from_float", "a: float", "int(a), int(-a)", a=2.7)
R("Float", "from_tensor", "x", "float(x.sum())", x=F(3))
R("Float", "from_int", "n: int", "float(n) / 4.0", n=7)
R("Bool", "from_tensor", "x", "bool(x.any())", x=B(4))
R("item", "float", "x", "float(x.sum().item())", x=F(3))
# prim::tolist: Tensor.tolist() with the annotated type (dims, int / float / bool)
R("tolist", "int_1d", "x", "v: List[int] = x.tolist()\nreturn v[0] + 2 * v[-1], len(v)", x=L(5))
R("tolist", "float32_2d", "x",
  "v: List[List[float]] = x.tolist()\nreturn v[1][2] * 2.0, len(v), len(v[0]), v[0][0] + v[2][3]", x=F(3, 4))
R("tolist", "strided_float64", "x", "v: List[float] = x.t()[1].tolist()\nreturn v[0] - v[2], len(v)", x=F64(3, 2))
R("tolist", "bool_1d", "x", "v: List[bool] = (x > 0).tolist()\nreturn v[0], v[1] or v[2], len(v)", x=F(4))
R("tolist", "zero_dim", "x", "v: float = x.sum().tolist()\nreturn v * 3.0", x=F(3))
R("tolist", "loop_count", "x",
  "ks: List[int] = x.long().tolist()\ntotal = 0\nfor k in ks:\n    total += k * k\nreturn total", x=L(4))
R("len", "tensor", "x", "len(x)", x=F(4, 2))
R("len", "list", "x", "sizes = x.size()\nreturn len(sizes)", x=F(2, 3, 4))
R("getitem", "list_negative", "x", "sizes = x.size()\nreturn sizes[-1], sizes[0]", x=F(2, 3, 4))
R("getitem", "shape", "x", "x.shape[1]", x=F(2, 3))
R("size", "dim", "x", "x.size(1), x.size(-1)", x=F(2, 3, 4))
R("size", "drives_creation", "x", "torch.zeros(x.size(0) * 2, x.size(1) + 1)", x=F(2, 3))
R("dim", "basic", "x", "x.dim()", x=F(2, 3, 4))
R("numel", "basic", "x", "x.numel()", x=F(2, 3, 4))
# prim::type: `x.device.type` (Detectron2's paste_masks_in_image picks its
# CPU branch by it); the ref backend keeps tensors on the host
R("device_type", "cpu_branch", "x", 'x * 2.0 if x.device.type == "cpu" else x - 1.0', x=F(2, 3))
R("list_append", "to_tensor", "n: int",
  "values: List[int] = []\nfor i in range(n):\n    values.append(i * i - 2)\nreturn torch.tensor(values)", n=5)
R("list_append", "floats", "x",
  "values: List[float] = []\nfor i in range(x.size(0)):\n    values.append(float(x[i]))\nreturn torch.tensor(values) * 2.0", x=F(3))
R("format", "not_taken", "x, n: int",
  "if n > 10:\n    raise ValueError('too many: {} > {}'.format(n, 10))\nreturn x * float(n)", x=F(2), n=3)
# aten::percentFormat: `"..." % (values)` (DeepCTR-Torch's CIN raises with one)
R("percent_format", "not_taken", "x, n: int",
  "if n > 10:\n    raise ValueError('too many: %d > %d' % (n, 10))\nreturn x * float(n)", x=F(2), n=3)
R("loop", "carried_int", "n: int", "total = 0\nfor i in range(n):\n    total += i * 3 % 4\nreturn total", n=9)
R("loop", "zero_trips", "x, n: int", "for i in range(n):\n    x = x + 1.0\nreturn x", x=F(2), n=0)
R("loop", "while_counter", "n: int", "i = 1\nwhile i < n:\n    i = i * 3\nreturn i", n=50)
R("tuple", "nested_output", "x, n: int", "return x, (x * 2.0, (n, x.sum() > 0))", x=F(2), n=4)
R("tuple", "list_output", "x, y", "return [x + y, x - y]", x=F(2), y=F(2))
R("tuple", "unpack", "x", "pair = (x, x * 3.0)\na, b = pair\nreturn b - a", x=F(3))
R("num_to_tensor", "int", "x, n: int", "x * torch.tensor(n)", x=L(3), n=3)
R("prim_attributes", "basic", "x", "x.is_cuda, x.requires_grad, x.dtype == torch.float32", x=F(2))
R("uninitialized", "raise_in_else", "x, n: int", "if n > 0:\n    y = x * 2.0\nelse:\n    raise ValueError('n must be positive')\nreturn y", x=F(3), n=2)
R("str", "not_taken", "x, n: int", "if n < 0:\n    raise ValueError('negative: ' + str(n))\nreturn x + 1.0", x=F(2), n=1)

# ------------------------------------------------------------------ errors (the case must fail)
E("add", "shape_mismatch", "x, y", "x + y", (1, "aten::add"), x=F(2, 3), y=F(4))
E("mm", "shape_mismatch", "x, y", "torch.mm(x, y)", (1, "aten::mm"), x=F(2, 3), y=F(2, 3))
E("linalg_cholesky", "not_positive_definite", "x", "torch.linalg.cholesky(x - 10 * torch.eye(3))",
  (1, "the leading minor of order 1 is not positive-definite"), x=F(3, 3))
E("linalg_cholesky", "int", "x", "torch.linalg.cholesky(x)",
  (1, "Expected a floating point or complex tensor as input. Got Long"), x=L(2, 2))
E("linalg_cholesky", "not_square", "x", "torch.linalg.cholesky(x)",
  (1, "A must be batches of square matrices, but they are 2 by 3 matrices"), x=F(2, 3))
E("linalg_inv", "singular", "x", "torch.linalg.inv(x * 0)",
  (1, "the inversion could not be completed because the input matrix is singular"), x=F(3, 3))
E("linalg_solve", "singular", "x, b", "torch.linalg.solve(x * 0, b)",
  (1, "The solver failed because the input matrix is singular"), x=F(3, 3), b=F(3))
E("cholesky_solve", "size_mismatch", "b, l", "torch.cholesky_solve(b, l)",
  (1, "Incompatible matrix sizes for cholesky_solve"), b=F(3, 2), l=F(2, 2))
E("diag", "three_dims", "x", "torch.diag(x)", (1, "diag(): Supports 1D or 2D tensors. Got 3D"), x=F(2, 2, 2))
E("bincount", "negative", "x", "torch.bincount(x)", (1, "bincount only supports 1-d non-negative integral inputs."), x=T([1, -1]))
E("list_ops", "remove_missing", "n: int", "l = [1, 2]\nl.remove(n)\nreturn len(l)", (1, "list.remove(x): x not in list"), n=3)
E("einsum", "size_mismatch", "x, y", "torch.einsum('ij,jk->ik', x, y)",
  (1, "subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3"),
  x=F(2, 3), y=F(4, 4))
E("einsum", "unknown_output", "x", "torch.einsum('ij->ik', x)",
  (1, "output subscript k does not appear in the equation for any input operand"), x=F(2, 3))


E("view", "bad_shape", "x", "x.view(4, 2)", (1, "aten::view"), x=F(2, 3))
E("view", "noncontiguous", "x", "x.t().view(-1)", (1, "aten::view"), x=F(2, 3))
E("reshape", "bad_numel", "x", "x.reshape(5, -1)", (1, "aten::reshape"), x=F(2, 3))
E("cat", "shape_mismatch", "x, y", "torch.cat([x, y], 1)", (1, "aten::cat"), x=F(2, 3), y=F(3, 3))
E("select", "out_of_range", "x, i: int", "x[i]", (1, "aten::select"), x=F(3), i=3)
E("index_select", "out_of_range", "x, i", "x.index_select(0, i)", (1, "aten::index_select"), x=F(3), i=T([0, 5]))
E("index", "out_of_range", "x, i", "x[i]", (1, "aten::index"), x=F(4), i=T([1, -5]))
E("expand", "bad_size", "x", "x.expand(2, 4)", (1, "aten::expand"), x=F(3))
E("copy_inplace", "shape_mismatch", "x, y", "x.copy_(y)\nreturn x", (1, "aten::copy_"), x=F(2, 3), y=F(2))
E("embedding", "out_of_range", "i, w", "F.embedding(i, w)", (1, "aten::embedding"), i=T([0, 4]), w=F(4, 2))
E("gather", "out_of_range", "x, i", "x.gather(1, i)", (1, "aten::gather"), x=F(2, 3), i=T([[0], [3]]))
E("conv2d", "channel_mismatch", "x, w", "F.conv2d(x, w)", (1, "aten::conv2d"), x=F(1, 2, 4, 4), w=F(1, 3, 3, 3))
E("floordiv", "by_zero", "a: int, b: int", "a // b", (1, "aten::floordiv"), a=5, b=0)
E("str", "taken", "x, n: int", "if n != x.size(0):\n    raise ValueError('got ' + str(n) + ' rows')\nreturn x", (1, "got 7 rows"), x=F(2), n=7)
E("uninitialized", "raise_taken", "x, n: int", "if n > 0:\n    y = x * 2.0\nelse:\n    raise ValueError('n must be positive')\nreturn y", (1, "n must be positive"), x=F(3), n=0)
E("percent_format", "taken", "x, n: int, s: float",
  "if n > 2:\n    raise ValueError('bad size %d (%i), %s %f %e %c %s 100%%' % (n, s, s, s, s, n + 60, 'rows'))\nreturn x",
  (1, "bad size 5 (2), 2.5 2.500000 2.500000e+00 A rows 100%"), x=F(2), n=5, s=2.5)
E("percent_format", "one_value", "x, n: int",
  "if n > 2:\n    raise ValueError('got %d rows' % n)\nreturn x", (1, "got 7 rows"), x=F(2), n=7)
E("format", "taken", "x, n: int",
  "if n > 2:\n    raise ValueError('bad size {}'.format(n))\nreturn x", (1, "bad size 5"), x=F(2), n=5)


# ------------------------------------------------------------------ generation

def seed_for(name):
    """A seed that depends on the row's name only."""
    return zlib.crc32(name.encode("utf-8"))


def build_inputs(row):
    torch.manual_seed(seed_for(row.name))
    return {name: factory() if callable(factory) else factory
            for name, factory in row.inputs.items()}


def load_case_program(row, case_dir):
    path = os.path.join(case_dir, "program.py")
    module_name = "tssa_ops_" + row.name
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # TorchScript reads the source through it
    spec.loader.exec_module(module)
    return getattr(module, FUNCTION_NAME)


def generate_row(row, known_kinds):
    """Write tests/ops/<row>/; returns the op kinds not in ops.h."""
    case_dir = os.path.join(HERE, row.name)
    staging = os.path.join(HERE, ".staging", row.name)
    if os.path.isdir(staging):
        shutil.rmtree(staging)
    os.makedirs(staging)
    with open(os.path.join(staging, "program.py"), "w") as f:
        f.write(row.source())
    program = load_case_program(row, staging)
    kinds = export.export(program, build_inputs(row), case_dir,
                          source_root=staging, expect_error=row.expect_error)
    shutil.move(os.path.join(staging, "program.py"), os.path.join(case_dir, "program.py"))
    return [k for k in op_table.unknown_kinds(kinds, known_kinds) if k not in row.unlisted]


def main():
    parser = argparse.ArgumentParser(description="Regenerate the tssa-stream per-op table.")
    parser.add_argument("ops", nargs="*", help="only rows of these ops (default: all)")
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    args = parser.parse_args()

    names = [row.name for row in TABLE]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        sys.exit("gen_ops.py: duplicate rows: " + ", ".join(duplicates))
    rows = [row for row in TABLE if not args.ops or row.op in args.ops]
    if args.list:
        for row in rows:
            print(row.name + ("  (must fail)" if row.expect_error else ""))
        return

    known = op_table.known_op_kinds()
    failures = []
    for row in rows:
        try:
            unknown = generate_row(row, known)
        except export.ExportError as err:
            failures.append(f"{row.name}: {err}")
            continue
        if unknown:
            failures.append(f"{row.name}: op kinds not in include/tssa/ops.h: " + ", ".join(unknown))
    shutil.rmtree(os.path.join(HERE, ".staging"), ignore_errors=True)
    if not args.ops:
        # Drop case directories whose row left the table.
        for entry in sorted(os.listdir(HERE)):
            if "__" in entry and os.path.isdir(os.path.join(HERE, entry)) and entry not in names:
                shutil.rmtree(os.path.join(HERE, entry))
    errors = sum(1 for row in rows if row.expect_error)
    print(f"{len(rows) - len(failures)} of {len(rows)} rows exported "
          f"({errors} must-fail rows)")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
