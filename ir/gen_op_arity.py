#!/usr/bin/python3
"""gen_op_arity.py — writes ir/op_arity_table.inc: for every op of the op table
(include/tssa/ops.h), the fewest arguments any of its TorchScript schemas
accepts, and that schema, so that ir_check_ops can refuse a node called with
too few (`aten::mm()`) before a pass indexes inputs it does not have, and
the most arguments any of them takes, so that it refuses a node called with
too many (`aten::softmax(%x, %dim, %none, %one, %one)`), which the fused
backends used to run with the extra arguments ignored.

The fewest arguments of an op is the minimum, over its overloads in PyTorch's
registry (torch._C._jit_get_all_schemas()), of the number of arguments
without a default value. A second count takes only the overloads whose first
argument is a Tensor: an op such as aten::select has a list overload with
fewer arguments (select(t[] list, int idx)) than its tensor one
(select(Tensor self, int dim, int index)), and a node whose first input is a
Tensor must have the tensor one's. TorchScript prints every argument of the overload it
chose, defaults included, so any graph it prints passes; a hand-written graph
may leave trailing defaults out, as the evaluator allows.

Ops the registry does not know (the project's own immut:: and tssa:: ops,
structural prim:: ops, the dtype conversions it names aten::float...) take
their count from OWN_OPS below: immut::<view> takes its view's arguments,
immut::<view>_rev the root and source before them.

    /usr/bin/python3 ir/gen_op_arity.py      # rewrites ir/op_arity_table.inc
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import op_table  # noqa: E402  (tests/models/op_table.py: the names in ops.h)

# op -> (fewest arguments, what they are), for ops PyTorch's registry lacks.
OWN_OPS = {
    "prim::Param": (0, "prim::Param() (the block's inputs)"),
    "prim::Return": (0, "prim::Return(...) (the block's results)"),
    "prim::If": (1, "prim::If(bool cond)"),
    "prim::Loop": (2, "prim::Loop(int max_trip_count, bool start_condition, ...)"),
    "prim::Constant": (0, "prim::Constant()"),
    "prim::GetAttr": (1, "prim::GetAttr[name=...](object self)"),
    "prim::SetAttr": (2, "prim::SetAttr[name=...](object self, t value)"),
    "prim::ListConstruct": (0, "prim::ListConstruct(t... items)"),
    "prim::ListUnpack": (1, "prim::ListUnpack(t[] list)"),
    "prim::TupleConstruct": (0, "prim::TupleConstruct(t... items)"),
    "prim::DictConstruct": (0, "prim::DictConstruct(k key, v value, ...)"),
    "prim::shape": (1, "prim::shape(Tensor self)"),
    "prim::isinstance": (1, "prim::isinstance[types=...](t self)"),
    "prim::CreateObject": (0, "prim::CreateObject()"),
    "prim::Enter": (1, "prim::Enter(object self)"),
    "prim::Exit": (1, "prim::Exit(object self)"),
    "tssa::update": (2, "tssa::update(t new_version, t key)"),
    "tssa::inplace_check": (2, "tssa::inplace_check(Tensor result, Tensor self)"),
    "tssa::FusionGroup": (0, "tssa::FusionGroup(Tensor... inputs)"),
    "immut::assign": (2, "immut::assign(Tensor root, Tensor src)"),
    "immut::list_set_item": (3, "immut::list_set_item(t[] list, int index, t value)"),
    "immut::dict_set_item": (3, "immut::dict_set_item(Dict(k, v) self, k key, v value)"),
    "immut::list_insert": (3, "immut::list_insert(t[] list, int index, t value) -> t[]"),
    "immut::list_pop": (1, "immut::list_pop(t[] list, int index=-1) -> (t[], t)"),
    "immut::list_remove": (2, "immut::list_remove(t[] list, t value) -> t[]"),
    "immut::list_sort": (1, "immut::list_sort(t[] list, bool reverse=False) -> t[]"),
    "immut::list_delete": (2, "immut::list_delete(t[] list, int index) -> t[]"),
    "immut::dict_pop": (2, "immut::dict_pop(Dict(k, v) self, k key, v? default_value) -> (Dict(k, v), v)"),
    "immut::dict_setdefault": (3, "immut::dict_setdefault(Dict(k, v) self, k key, v default_value) -> Dict(k, v)"),
    "immut::dict_update": (2, "immut::dict_update(Dict(k, v) self, Dict(k, v) to_add) -> Dict(k, v)"),
    "immut::dict_popitem": (1, "immut::dict_popitem(Dict(k, v) self) -> (Dict(k, v), (k, v))"),
    "aten::__invert__": (1, "aten::__invert__(t self)"),
    "aten::float": (1, "aten::float(Tensor self)"),
    "aten::double": (1, "aten::double(Tensor self)"),
    "aten::long": (1, "aten::long(Tensor self)"),
    "aten::int": (1, "aten::int(Tensor self)"),
    "aten::bool": (1, "aten::bool(Tensor self)"),
}


def required(schema):
    return sum(1 for a in schema.arguments if not a.has_default_value())


def fewest_by_name(tensor_self_only=False):
    """op name -> (fewest arguments, the schema that takes them); with
    tensor_self_only, over the overloads whose first argument is a Tensor."""
    best = {}
    for schema in torch._C._jit_get_all_schemas():
        if tensor_self_only and (not schema.arguments or
                                 not str(schema.arguments[0].type).startswith("Tensor")):
            continue
        n = required(schema)
        if schema.name not in best or n < best[schema.name][0]:
            best[schema.name] = (n, str(schema))
    return best


def most_by_name():
    """op name -> (most arguments any overload takes, that schema), -1 when
    an overload takes a variable number (`...`, aten::einsum, prim::Print).
    The out= overloads count: TorchScript's inliner leaves them in the dead
    branches of torch/functional.py (torch.norm's `out is not None` path)."""
    most = {}
    for schema in torch._C._jit_get_all_schemas():
        text = str(schema)
        n = -1 if "..." in text.split("->")[0] else len(schema.arguments)
        if schema.name in most and (most[schema.name][0] == -1 or (n != -1 and n <= most[schema.name][0])):
            continue
        most[schema.name] = (n, text)
    return most


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    best = fewest_by_name()
    views = fewest_by_name(tensor_self_only=True)
    most = most_by_name()
    rows, missing = {}, []
    # (fewest, schema) over every overload, and over the Tensor-first ones
    # (None when that is the same or there are none).
    for name in sorted(op_table.known_op_kinds()):
        if name in OWN_OPS:
            rows[name] = OWN_OPS[name]
        elif name in best:
            rows[name] = best[name]
        elif name.startswith("immut::"):
            view = name[len("immut::"):]
            rev = view.endswith("_rev")
            base = "aten::" + (view[:-len("_rev")] if rev else view)
            if base not in views:
                missing.append(name)
                continue
            n, schema = views[base]
            rows[name] = ((n + 1, f"{name}(Tensor root, Tensor src, <the arguments after self of {schema}>)")
                          if rev else (n, f"{name}(<the arguments of {schema}>)"))
        else:
            missing.append(name)
    if missing:
        sys.exit("gen_op_arity.py: no schema for " + ", ".join(missing) + ": add them to OWN_OPS")
    out = os.path.join(HERE, "op_arity_table.inc")
    with open(out, "w") as f:
        f.write("/* op_arity_table.inc — generated by ir/gen_op_arity.py from PyTorch "
                f"{torch.__version__}'s\n * schemas; do not edit. Sorted by name (op_arity.c "
                "searches it). */\n")
        for name, (n, schema) in sorted(rows.items()):
            tensor_n, tensor_schema = views.get(name, (n, schema)) if name in best else (n, schema)
            if tensor_n <= n:
                tensor_n, tensor_schema = n, schema
            # The most arguments: only for ops of PyTorch's registry; the
            # project's own ops (OWN_OPS, immut::) are not limited.
            max_n, max_schema = most[name] if name in best and name not in OWN_OPS else (-1, None)
            f.write(f"{{{c_string(name)}, {n}, {c_string(schema)}, {tensor_n}, "
                    f"{c_string(tensor_schema)}, {max_n}, "
                    f"{c_string(max_schema) if max_schema else 'NULL'}}},\n")
    print(f"gen_op_arity.py: {len(rows)} ops written to {os.path.relpath(out, REPO)}")


if __name__ == "__main__":
    main()
