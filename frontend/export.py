#!/usr/bin/python3
"""export.py — turn a PyTorch program into a tssa-stream test case.

How it works: the program (a Python function, or an nn.Module put in eval
mode) is scripted with torch.jit.script, every call inside it is inlined
(torch._C._jit_pass_inline, so no prim::CallFunction / prim::CallMethod is
left) and the graph text is written as model.ir. Source-location comments are
rewritten to relative paths so a committed case never names the machine it was
made on. The example inputs are saved as .npy files, a module's parameters and
buffers go to weights.safetensors (its plain attributes, `training` included,
to the file's __metadata__ map under their dotted paths), and args.txt holds
the command-line bindings that reproduce the run:

    tssa-stream model.ir $(cat args.txt) -o out/

The expected outputs are PyTorch's *eager* results of the original, unscripted
program, computed on fresh contiguous clones of the inputs (a program may
mutate its inputs). The scripted program is run as well and must agree with
eager mode, which catches programs whose TorchScript meaning differs from
their Python meaning before they become test cases.

Case layout (paths relative to OUTDIR):
    model.ir               the inlined TorchScript graph text
    weights.safetensors    modules only
    inputs/<name>.npy      tensor inputs
    args.txt               one line of bindings: x=inputs/x.npy n=4 --weights ...;
                           every graph input is bound, those the example
                           inputs leave out with the signature's default
                           (h=None for `h: Optional[Tensor] = None`,
                           k=[2,2] for `k: Tuple[int, int] = (2, 2)`): the
                           graph text keeps no defaults
    expected/outN.npy      eager outputs, flattened (tuples/lists in order;
                           int -> 0-d int64, float -> 0-d float64, bool -> 0-d bool)
    expect_error.txt       instead of expected/, for a case that must fail:
                           line 1 the exit status, line 2 a substring of the message

Command line:
    export.py FILE.py:function --inputs x='torch.randn(2, 3)' n=3 -o OUTDIR
    export.py FILE.py:'Net(4, 8)' --inputs x=x.npy -o OUTDIR
As a module:
    export(program, {"x": tensor, "n": 3}, outdir, source_root)
"""

import argparse
import importlib.util
import inspect
import json
import math
import os
import re
import struct
import sys

import numpy as np
import torch


class ExportError(Exception):
    """A program or input the exporter cannot turn into a test case."""


# Tensor dtypes tssa-stream reads and writes (.npy and safetensors).
NPY_DTYPES = {
    torch.float32: np.float32,
    torch.float64: np.float64,
    torch.int32: np.int32,
    torch.int64: np.int64,
    torch.int16: np.int16,
    torch.int8: np.int8,
    torch.uint8: np.uint8,
    torch.bool: np.bool_,
}
SAFETENSORS_DTYPES = {
    torch.float32: "F32",
    torch.float64: "F64",
    torch.int32: "I32",
    torch.int64: "I64",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
SCALAR_TYPES = {"int": int, "float": float, "bool": bool}


# ------------------------------------------------------------------ arrays

def tensor_to_array(tensor, what):
    """A C-ordered little-endian NumPy copy of `tensor`; refuses dtypes
    tssa-stream cannot read."""
    tensor = tensor.detach()
    if tensor.dtype not in NPY_DTYPES:
        raise ExportError(
            f"{what} has dtype {tensor.dtype}; tssa-stream supports "
            + ", ".join(str(d) for d in NPY_DTYPES))
    if tensor.is_quantized or tensor.layout != torch.strided:
        raise ExportError(f"{what} is not a dense strided tensor")
    # np.array(order="C") keeps 0-d arrays 0-d (np.ascontiguousarray would not).
    return np.array(tensor.cpu().numpy(), order="C", copy=True,
                    dtype=np.dtype(NPY_DTYPES[tensor.dtype]).newbyteorder("<"))


def save_npy(path, array):
    # np.save writes Fortran order for F-contiguous arrays; the caller hands
    # C-ordered arrays only, so the header always says fortran_order False.
    assert array.flags.c_contiguous
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)


def value_to_array(value, what):
    """One flattened output (a tensor or a Python scalar) as an array."""
    if isinstance(value, torch.Tensor):
        return tensor_to_array(value, what)
    # bool before int: bool is a subclass of int in Python.
    if isinstance(value, bool):
        return np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        if not -2**63 <= value < 2**63:
            raise ExportError(f"{what} = {value} does not fit in int64")
        return np.array(value, dtype="<i8")
    if isinstance(value, float):
        return np.array(value, dtype="<f8")
    raise ExportError(f"{what} is a {type(value).__name__}; outputs must be tensors, "
                      "ints, floats, bools, or tuples/lists of them")


def clone_outputs(value):
    """Outputs that no later run can change: a returned buffer or parameter
    is copied before the module state is restored."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):     # a NamedTuple
        return type(value)(*(clone_outputs(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(clone_outputs(v) for v in value)
    return value


def flatten_outputs(value):
    """Tuples and lists flatten in order, recursively; anything else is a leaf."""
    if isinstance(value, (tuple, list)):
        leaves = []
        for item in value:
            leaves.extend(flatten_outputs(item))
        return leaves
    return [value]


# ------------------------------------------------------------------ safetensors

def safetensors_bytes(tensors, metadata):
    """`tensors` (name -> tensor) and `metadata` (str -> str) in the
    safetensors format: an 8-byte little-endian header length, a JSON header
    (dtype, shape, data_offsets per tensor; __metadata__), padded with spaces
    to a multiple of 8 bytes, then the raw little-endian C-ordered data.

    Written by hand (the format is small) so the bytes are the same whether or
    not the `safetensors` package is installed: the committed corpus stays
    reproducible on any machine."""
    header = {"__metadata__": dict(sorted(metadata.items()))}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        tensor = tensors[name]
        if tensor.dtype not in SAFETENSORS_DTYPES:
            raise ExportError(f"weight '{name}' has dtype {tensor.dtype}; tssa-stream supports "
                              + ", ".join(str(d) for d in SAFETENSORS_DTYPES))
        data = tensor_to_array(tensor, f"weight '{name}'").tobytes(order="C")
        header[name] = {
            "dtype": SAFETENSORS_DTYPES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def read_safetensors(path):
    """(tensors as NumPy arrays, metadata) from a safetensors file; used by the
    corpus checks and handy when inspecting a case."""
    dtypes = {"F32": "<f4", "F64": "<f8", "I32": "<i4", "I64": "<i8", "BOOL": "?"}
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    metadata = header.pop("__metadata__", {})
    base = 8 + length
    arrays = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        arrays[name] = np.frombuffer(blob[base + begin:base + end],
                                     dtype=dtypes[entry["dtype"]]).reshape(entry["shape"])
    return arrays, metadata


def format_attribute(value):
    """A scalar module attribute as its __metadata__ string, or None when it
    is not a scalar."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    return None


class AttributeEncoder:
    """Containers (lists, tuples, dicts, nested) of module attributes as JSON
    text for __metadata__: tuples become arrays, dict keys (str, int, bool or
    float) become strings that the reader parses back by the graph's key type,
    a tensor inside a container is stored in the weights file under
    "<path>.<index or key>" and written as {"__tensor__": "<that name>"}, and
    an object of a TorchScript class inside one is written as
    {"__object__": "<path>.<index or key>"}, its attributes going under that
    path (`objects` collects (path, object, class type) for the caller).
    `why` holds the reason when the value cannot be written."""

    def __init__(self, path, tensors):
        self.path = path
        self.tensors = tensors
        self.objects = []
        self.why = None

    def encode(self, value, where):
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                self.why = f"{where} is {value!r}, which JSON cannot hold"
            return value
        if isinstance(value, torch.Tensor):
            self.tensors[where] = value.detach()
            return {"__tensor__": where}
        if isinstance(value, (list, tuple)):
            return [self.encode(v, f"{where}.{i}") for i, v in enumerate(value)]
        if isinstance(value, dict):
            out = {}
            for key, v in value.items():
                if not isinstance(key, (str, int, float, bool)):
                    self.why = f"{where} has a key of type {type(key).__name__}"
                    return None
                text = format_attribute(key)
                out[text] = self.encode(v, f"{where}.{text}")
            return out
        class_type = script_class_type(value)
        if class_type is not None:
            self.objects.append((where, value, class_type))
            return {"__object__": where}
        self.why = f"{where} is a {type(value).__name__}, which has no TorchScript value tssa-stream reads"
        return None


def attribute_metadata(path, value, tensors):
    """(metadata text, None, objects) for a non-tensor attribute, or (None,
    why, []); objects lists the TorchScript class objects inside a container
    as (path, object, class type)."""
    text = format_attribute(value)
    if text is not None:
        return text, None, []
    if isinstance(value, (list, tuple, dict)):
        encoder = AttributeEncoder(path, tensors)
        encoded = encoder.encode(value, path)
        if encoder.why:
            return None, encoder.why, []
        return json.dumps(encoded), None, encoder.objects
    return None, f"it is a {type(value).__name__}, which has no TorchScript value tssa-stream reads", []


# ------------------------------------------------------------------ TorchScript class objects
#
# A module may hold objects of plain Python classes that TorchScript compiles
# (torchvision's detection models hold a BoxCoder and a Matcher). An object
# is written as its attributes: attribute `a` of the object at path `p` goes
# under `p.a`, exactly like a submodule's, so a prim::GetAttr chain through
# it resolves to a dotted name. The object itself has no entry (a None in an
# Optional slot is "None"); inside a container it is {"__object__": "p"}.
# Each attribute is checked against the type TorchScript declared for it:
# a type tssa-stream cannot read makes the attribute unexportable (refused
# when the graph reads it).

# Declared types tssa-stream reads, by TorchScript kind; containers are
# readable when what they hold is.
READABLE_TYPE_KINDS = frozenset(("TensorType", "IntType", "FloatType", "BoolType", "StringType",
                                 "NoneType", "DeviceObjType", "ClassType"))
CONTAINER_TYPE_KINDS = frozenset(("OptionalType", "TupleType", "ListType", "DictType"))


def script_class_type(value):
    """The TorchScript ClassType of `value` when it is an object of a Python
    class that torch.jit.script compiled (for the module holding it), else
    None."""
    if isinstance(value, (torch.nn.Module, torch.Tensor, type)):
        return None
    cls = type(value)
    if cls.__module__ == "builtins" or torch.jit._state._get_script_class(cls) is None:
        return None
    return torch.jit._state._python_cu.get_class(torch._jit_internal._qualified_name(cls))


def first_setattr_names(block, target, names):
    for node in block.nodes():
        if (node.kind() == "prim::SetAttr" and node.inputsAt(0) == target
                and node.s("name") not in names):
            names.append(node.s("name"))
        for sub in node.blocks():
            first_setattr_names(sub, target, names)
    return names


def class_attribute_types(class_type):
    """{name: declared TorchScript type} of a class's attributes.
    ClassType.containedTypes() lists the attribute types in slot order, and
    TorchScript adds a slot at an attribute's first assignment in __init__,
    so the names come from __init__'s graph, in program order."""
    init = torch.jit._state._python_cu.find_function(class_type.qualified_name() + ".__init__")
    types = class_type.containedTypes()
    names = []
    if init is not None:
        graph = init.graph
        names = first_setattr_names(graph.block(), next(graph.inputs()), [])
    if len(names) != len(types):
        raise ExportError(f"cannot tell the attribute types of class {class_type.qualified_name()} "
                          f"({len(types)} attributes, {len(names)} assigned in __init__)")
    return dict(zip(names, types))


def unreadable_part(declared):
    """None when tssa-stream reads values of the declared type, else the
    part of it that it cannot read (the type itself or one it holds)."""
    kind = declared.kind()
    if kind in READABLE_TYPE_KINDS:
        return None
    if kind in CONTAINER_TYPE_KINDS:
        for inner in declared.containedTypes():
            part = unreadable_part(inner)
            if part is not None:
                return part
        return None
    return declared.annotation_str


def export_attribute(path, value, found, depth=0):
    """One non-module attribute at `path` into `found` (tensors, metadata,
    objects, unexportable): a tensor by its name, a TorchScript class object
    as its attributes under the path, anything else as metadata text."""
    tensors, metadata, objects, unexportable = found
    if isinstance(value, torch.Tensor):
        tensors.setdefault(path, value.detach())
        return
    class_type = script_class_type(value)
    if class_type is not None:
        export_object(path, value, class_type, found, depth)
        return
    text, why, inner = attribute_metadata(path, value, tensors)
    if text is None:
        unexportable[path] = why
        return
    metadata[path] = text
    for where, obj, obj_type in inner:
        export_object(where, obj, obj_type, found, depth)


# TorchScript class types cannot contain themselves, but one object can be
# held in a chain of others; a chain this deep is a cycle.
OBJECT_DEPTH_LIMIT = 32


def export_object(path, obj, class_type, found, depth):
    tensors, metadata, objects, unexportable = found
    if depth > OBJECT_DEPTH_LIMIT:
        unexportable[path] = f"objects nest more than {OBJECT_DEPTH_LIMIT} deep here (a cycle?)"
        return
    objects.add(path)
    for name, declared in class_attribute_types(class_type).items():
        where = f"{path}.{name}"
        part = unreadable_part(declared)
        if part is not None:
            unexportable[where] = (f"class {class_type.qualified_name()} declares it "
                                   f"{declared.annotation_str}"
                                   + (f" (holding {part})" if part != declared.annotation_str else "")
                                   + ", a type tssa-stream cannot read")
            continue
        if not hasattr(obj, name):
            unexportable[where] = f"the {type(obj).__name__} object has no attribute '{name}'"
            continue
        export_attribute(where, getattr(obj, name), found, depth + 1)


# The private attributes every nn.Module has from its constructor (training,
# the one public one, is exported like any attribute).
MODULE_INTERNALS = frozenset(n for n in vars(torch.nn.Module()) if n.startswith("_"))
# What torch.jit.script itself sets on a module it compiles (__overloads__):
# no attribute of the program.
TORCHSCRIPT_BOOKKEEPING = re.compile(r"__\w+__")


def storage_key(tensor):
    """What makes two tensors the same memory: storage, offset, shape, strides, dtype."""
    return (tensor.untyped_storage().data_ptr() if hasattr(tensor, "untyped_storage")
            else tensor.storage().data_ptr(),
            tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype)


# Types whose values hold no tensor: what flows through them cannot alias
# a module's tensors (`self.bin_lowers[i].item()` is a float).
TENSORLESS_TYPE_KINDS = frozenset(("IntType", "FloatType", "BoolType", "NumberType", "StringType",
                                   "NoneType", "DeviceType", "ComplexType"))


def node_schema(node):
    """The node's schema text, or None (prim:: ops, If, Loop)."""
    try:
        schema = node.schema()
    except RuntimeError:
        return None
    return None if schema == "(no schema)" or "(" not in schema else schema


def written_arguments(node):
    """Indices of the inputs the node writes in place: its schema's
    arguments annotated `(a!)`; none for a node without a schema."""
    schema = node_schema(node)
    if schema is None:
        return []
    inside, depth, start, arguments = schema[schema.index("(") + 1:], 0, 0, []
    for i, ch in enumerate(inside):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                arguments.append(inside[start:i])
                break
            depth -= 1
        elif ch == "," and depth == 0:
            arguments.append(inside[start:i])
            start = i + 1
    arguments = [a.strip() for a in arguments if a.strip() not in ("*", "")]
    return [i for i, a in enumerate(arguments) if "!" in a.split(" ")[0]]


def may_write_module_tensors(graph):
    """Whether the program may write one of its module's tensors: a
    prim::SetAttr anywhere, or an op writing in place an input that may
    alias a tensor reached from %self. The aliasing is over-approximated:
    the outputs of an op whose schema's results carry an alias annotation
    (select's `Tensor(a)`, a list __getitem__'s `t(*)`) and of every node
    without a schema (GetAttr, ListConstruct, If, Loop) may alias what it
    reads, and so may a block's parameters; an op whose results carry none
    (mul, and an in-place op's result when what it writes is fresh) makes
    new values; values of tensorless types (ints, floats) alias nothing."""
    inputs = list(graph.inputs())
    if not inputs or inputs[0].debugName() != "self":
        return False
    tainted = {inputs[0]}

    def taint(value):
        if value in tainted or value.type().kind() in TENSORLESS_TYPE_KINDS:
            return False
        tainted.add(value)
        return True

    def visit(block):
        changed = False
        for node in block.nodes():
            if node.kind() == "prim::SetAttr":
                raise StopIteration
            for sub in node.blocks():
                changed |= visit(sub)
            reads = [i for i in node.inputs() if i in tainted]
            reads += [r for sub in node.blocks() for r in sub.returnNode().inputs() if r in tainted]
            if not reads:
                continue
            node_inputs = list(node.inputs())
            written = written_arguments(node)
            if any(i < len(node_inputs) and node_inputs[i] in tainted for i in written):
                raise StopIteration
            schema = node_schema(node)
            if schema is not None and (written or "(" not in schema.rsplit("->", 1)[-1]):
                continue
            for out in node.outputs():
                changed |= taint(out)
            for sub in node.blocks():
                for param in sub.paramNode().outputs():
                    changed |= taint(param)
        return changed

    try:
        while visit(graph.block()):
            pass
    except StopIteration:
        return True
    return False


def share_tied_tensors(tensors, metadata, unexportable, may_write=True):
    """Tensors that are the same memory under several names (tied weights,
    `self.head.weight = self.embed.weight`) are written once; every other
    name becomes {"__tensor__": "<first name>"} in __metadata__, so the
    reader hands out one tensor and an in-place update through one name is
    seen through all, as in PyTorch. Names that overlap in memory as
    different views cannot be expressed: they go to `unexportable` when the
    program may write the module's tensors (may_write); when it cannot,
    no write can show through the other name, and each view is written as
    a tensor of its own (gpleiss's _ECELoss keeps `bin_boundaries[:-1]`
    and `bin_boundaries[1:]`)."""
    first = {}
    spans = []
    for name in sorted(tensors):
        tensor = tensors[name]
        if tensor.numel() == 0:
            continue
        key = storage_key(tensor)
        if key in first:
            metadata[name] = json.dumps({"__tensor__": first[key]})
            del tensors[name]
            continue
        first[key] = name
        begin = tensor.data_ptr()
        end = begin + tensor.element_size() * (1 + sum((s - 1) * st for s, st in zip(tensor.shape, tensor.stride())))
        for other, other_begin, other_end in spans:
            if may_write and begin < other_end and other_begin < end:
                unexportable[name] = (f"it shares memory with '{other}' as a different view, "
                                      "which a weights file cannot express")
        spans.append((name, begin, end))


def module_weights(module, may_write=True):
    """(tensors, metadata, objects, unexportable) of a module tree under
    dotted paths: parameters, buffers (persistent or not: a graph may read
    either) and plain tensor attributes, and every other attribute of every
    submodule, whatever its name (leading underscores included): scalars as
    text, containers as JSON (AttributeEncoder), objects of TorchScript
    classes as their attributes under the object's path (export_object;
    `objects` holds those paths). A parameter or buffer that is None
    (Conv2d(bias=False)) is recorded in the metadata as "None".
    unexportable maps the paths of attributes that cannot be written to the
    reason."""
    tensors = {}
    metadata = {}
    objects = set()
    unexportable = {}
    found = (tensors, metadata, objects, unexportable)
    for prefix, sub in module.named_modules(remove_duplicate=False):
        dot = prefix + "." if prefix else ""
        for table in (sub._parameters, sub._buffers):
            for name, tensor in table.items():
                if tensor is None:
                    metadata[dot + name] = "None"
                else:
                    tensors[dot + name] = tensor.detach()
        for name, value in vars(sub).items():
            # nn.Module's own bookkeeping (_parameters, _forward_hooks, ...),
            # not the user's attributes, which may start with "_" too
            # (self._std_weight_position).
            if (name in MODULE_INTERNALS or isinstance(value, torch.nn.Module)
                    or TORCHSCRIPT_BOOKKEEPING.fullmatch(name)):
                continue
            # A plain tensor attribute (neither parameter nor buffer), a
            # scalar, a container, an object of a TorchScript class.
            export_attribute(dot + name, value, found)
    share_tied_tensors(tensors, metadata, unexportable, may_write)
    return tensors, metadata, objects, unexportable


# ------------------------------------------------------------------ graph

def remove_dead_function_constants(block):
    """Inlining leaves `prim::Constant[name="relu"]()` nodes of Function type
    behind with no uses; they carry no meaning, so drop them."""
    for node in list(block.nodes()):
        for sub in node.blocks():
            remove_dead_function_constants(sub)
        if (node.kind() == "prim::Constant" and node.outputsSize() == 1
                and node.output().type().kind() == "FunctionType"
                and not node.output().uses()):
            node.destroy()


def collect_kinds(block, kinds):
    for node in block.nodes():
        kinds.add(node.kind())
        for sub in node.blocks():
            collect_kinds(sub, kinds)
    return kinds


def collect_getattr_paths(graph):
    """Dotted paths of every prim::GetAttr chain rooted at %self. An element
    taken from a list, dict or tuple of objects (aten::__getitem__,
    prim::ListUnpack, prim::TupleUnpack, prim::TupleIndex)
    continues the chain with a `*` segment: coders.*.weights."""
    paths = {}
    inputs = list(graph.inputs())
    if not inputs or inputs[0].debugName() != "self":
        return set()
    paths[inputs[0]] = ""

    def visit(block):
        for node in block.nodes():
            if node.kind() == "prim::GetAttr" and node.input() in paths:
                base = paths[node.input()]
                name = node.s("name")
                paths[node.output()] = base + "." + name if base else name
            elif node.kind() == "prim::unchecked_cast" and node.input() in paths:
                # `if self.o is not None: self.o.k`: the Optional object, cast.
                paths[node.output()] = paths[node.input()]
            elif (node.kind() in ("aten::__getitem__", "prim::ListUnpack", "prim::TupleUnpack",
                                  "prim::TupleIndex")
                  and node.inputsSize() > 0 and node.inputsAt(0) in paths):
                for out in node.outputs():
                    paths[out] = paths[node.inputsAt(0)] + ".*"
            for sub in node.blocks():
                visit(sub)

    visit(graph.block())
    return {path for value, path in paths.items()
            if path and value.type().kind() != "ClassType" and not path.endswith("*")}


def path_matches(pattern, path):
    """Whether a dotted path matches a read path whose `*` segments stand for
    any one segment."""
    want, have = pattern.split("."), path.split(".")
    return len(want) == len(have) and all(w in ("*", h) for w, h in zip(want, have))


def argument_takes(arg, value):
    """Whether a TorchScript schema argument can be bound to an example input."""
    kind = arg.type
    if isinstance(kind, torch._C.OptionalType):
        if value is None:
            return True
        kind = kind.getElementType()
    if isinstance(value, torch.Tensor):
        return isinstance(kind, torch._C.TensorType)
    return not isinstance(kind, (torch._C.TensorType, torch._C.ClassType))


def forward_method(scripted, example_inputs):
    """The scripted module's forward. A module with @overload'ed forwards
    (nn.GRU, nn.LSTM and nn.RNN: a Tensor and a PackedSequence overload)
    has forward__0, forward__1, ... instead: the first whose arguments take
    the example inputs (by name; the others must have defaults)."""
    if scripted._c._has_method("forward"):
        return scripted.forward
    names = sorted((n for n in scripted._c._method_names() if re.fullmatch(r"forward__\d+", n)),
                   key=lambda n: int(n.split("__")[1]))
    for name in names:
        method = getattr(scripted, name)
        arguments = method.schema.arguments[1:]
        if (all(a.name in example_inputs or a.has_default_value() for a in arguments) and
                all(argument_takes(a, example_inputs[a.name]) for a in arguments if a.name in example_inputs)):
            return method
    if not names:
        raise ExportError("the module has no forward method")
    given = ", ".join(sorted(example_inputs)) or "none"
    raise ExportError("the module's forward is overloaded and no overload takes the inputs given "
                      f"({given}): " + "; ".join(str(getattr(scripted, n).schema) for n in names))


def script_and_inline(program, example_inputs):
    """The scripted program, the method that is its forward (the function
    itself for a function) and that method's inlined graph."""
    try:
        scripted = torch.jit.script(program)
    except Exception as err:  # TorchScript frontend errors come in many types
        raise ExportError(f"torch.jit.script failed:\n{err}") from err
    method = forward_method(scripted, example_inputs) if isinstance(program, torch.nn.Module) else scripted
    graph = method.graph
    torch._C._jit_pass_inline(graph)
    remove_dead_function_constants(graph.block())
    left = collect_kinds(graph.block(), set()) & {"prim::CallFunction", "prim::CallMethod"}
    if left:
        raise ExportError("calls remain after inlining (" + ", ".join(sorted(left)) +
                          "); interface and recursive calls are not supported")
    return scripted, method, graph


TORCH_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
SOURCE_COMMENT = re.compile(r"# (/[^\s]*?):(\d+):(\d+)$")


def relative_source_path(path, source_root):
    """A source path as the committed corpus spells it: relative to the
    program's directory, or `torch/...` for PyTorch's own sources."""
    path = os.path.abspath(path)
    root = os.path.abspath(source_root)
    if os.path.commonpath([path, root]) == root:
        return os.path.relpath(path, root)
    if os.path.commonpath([path, TORCH_PACKAGE_PARENT]) == TORCH_PACKAGE_PARENT:
        return os.path.relpath(path, TORCH_PACKAGE_PARENT)
    return os.path.relpath(path, root)


def rewrite_source_comments(text, source_root):
    lines = []
    for line in text.splitlines():
        lines.append(SOURCE_COMMENT.sub(
            lambda m: "# {}:{}:{}".format(relative_source_path(m.group(1), source_root),
                                          m.group(2), m.group(3)), line))
    return "\n".join(lines) + "\n"


def graph_input_names(graph):
    """(name, TorchScript type) of each graph input except %self, the name
    being the debug name without its `.N` suffix (`%x.1` binds `x`)."""
    names = []
    for value in graph.inputs():
        if value.debugName() == "self" and value.type().kind() == "ClassType":
            continue
        names.append((re.sub(r"\.\d+$", "", value.debugName()), value.type()))
    return names


# ------------------------------------------------------------------ inputs

def format_scalar(value):
    """A Python scalar as a command-line literal (floats round-trip: repr)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ExportError(f"float input {value!r} is not finite; tssa-stream takes finite literals")
    return repr(value)


# str values the command line carries as they are: args.txt is split at
# blanks and read by a shell, so a value with blanks, quotes, globs or `$`
# could not come back unchanged.
PLAIN_STR = re.compile(r"[A-Za-z0-9_.:/+-]*")
# ints past 2**53 do not survive JSON's doubles (tssa-stream reads lists as JSON).
JSON_EXACT_INT = 2**53


def json_scalar(value, kind, what):
    """One element of a list or tuple binding as its JSON text."""
    if kind == "BoolType" and isinstance(value, bool):
        return "true" if value else "false"
    if kind == "IntType" and isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > JSON_EXACT_INT:
            raise ExportError(f"{what} = {value} is past 2**53; tssa-stream reads list "
                              "bindings as JSON numbers")
        return str(value)
    if kind == "FloatType" and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = float(value)
        if not math.isfinite(value):
            raise ExportError(f"{what} = {value!r} is not finite; JSON has no literal for it")
        return repr(value)
    raise ExportError(f"{what} is a {type(value).__name__}, the graph declares "
                      + kind.replace("Type", "").lower())


def bind_input(name, ts_type, value):
    """(the value the program is called with, its args.txt text), the text
    None for a tensor (it goes to inputs/NAME.npy). Follows the graph's
    declared type as tssa-stream's bindings read it (frontend/bindings.c):
    None for an Optional left at None, JSON arrays for lists and tuples of
    int, float or bool."""
    kind = ts_type.kind()
    type_name = str(ts_type)
    mismatch = f"input '{name}' is {type_name} in the graph but the example is a {type(value).__name__}"
    if kind == "OptionalType":
        if value is None:
            return None, "None"
        return bind_input(name, ts_type.getElementType(), value)
    if kind == "TensorType":
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(value)
        if not isinstance(value, torch.Tensor):
            raise ExportError(mismatch)
        return value, None
    if kind in ("IntType", "FloatType", "BoolType", "NumberType"):
        if kind == "NumberType":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            wanted = SCALAR_TYPES[type_name]
            ok = isinstance(value, wanted) and not (wanted is int and isinstance(value, bool))
            if wanted is float and isinstance(value, int) and not isinstance(value, bool):
                value, ok = float(value), True
        if not ok:
            raise ExportError(mismatch)
        return value, format_scalar(value)
    if kind == "AnyType":
        if value is None:
            return None, "None"
        if isinstance(value, (torch.Tensor, np.ndarray)):
            return bind_input(name, torch._C.TensorType.get(), value)
        if isinstance(value, (bool, int, float)):
            return value, format_scalar(value)
        raise ExportError(f"input '{name}' is Any in the graph; the tssa-stream command line "
                          "binds it from None, a tensor, an int, a float or a bool, not a "
                          + type(value).__name__)
    if kind == "StringType":
        if not isinstance(value, str):
            raise ExportError(mismatch)
        if not PLAIN_STR.fullmatch(value):
            raise ExportError(f"input '{name}' = {value!r}: args.txt carries only strings of "
                              "letters, digits and _ . : / + -")
        return value, value
    if kind in ("ListType", "TupleType"):
        if not isinstance(value, (list, tuple)):
            raise ExportError(mismatch)
        if kind == "ListType":
            types = [ts_type.getElementType()] * len(value)
        else:
            types = list(ts_type.elements())
            if len(types) != len(value):
                raise ExportError(f"input '{name}' is {type_name} in the graph but the example "
                                  f"has {len(value)} elements")
        kinds = [t.kind() for t in types]
        item_types = [t.getElementType() if t.kind() == "OptionalType" else t for t in types]
        if types and all(t.kind() == "TensorType" for t in item_types):
            # tensors in a list or tuple (a feature pyramid): one file each,
            # inputs/NAME.K.npy, bound as [inputs/NAME.0.npy,...]; None for
            # an Optional item left at None
            items, texts = [], []
            for i, (v, t) in enumerate(zip(value, types)):
                item, text = bind_input(f"{name}[{i}]", t, v)
                items.append(item)
                texts.append(f"inputs/{name}.{i}.npy" if text is None else text)
            return (tuple(items) if kind == "TupleType" else items), "[" + ",".join(texts) + "]"
        if kind == "ListType" and not value and ts_type.getElementType().kind() == "TensorType":
            return [], "[]"
        if any(k not in ("IntType", "FloatType", "BoolType") for k in kinds):
            raise ExportError(f"input '{name}' has type {type_name}; the tssa-stream command "
                              "line binds lists and tuples of int, float and bool, and of tensors")
        items = [json_scalar(v, k, f"input '{name}'[{i}]")
                 for i, (v, k) in enumerate(zip(value, kinds))]
        converted = [float(v) if k == "FloatType" else v for v, k in zip(value, kinds)]
        return (tuple(converted) if kind == "TupleType" else converted), "[" + ",".join(items) + "]"
    if (kind == "DictType" and ts_type.getKeyType().kind() == "StringType"
            and ts_type.getValueType().kind() == "TensorType"):
        # a feature pyramid keyed by level name: inputs/NAME.KEY.npy each,
        # bound as {KEY:inputs/NAME.KEY.npy,...}
        if not isinstance(value, dict):
            raise ExportError(mismatch)
        items, texts = {}, []
        for key, v in value.items():
            if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z0-9_.]+", key):
                raise ExportError(f"input '{name}': key {key!r}: args.txt carries keys of letters, "
                                  "digits, _ and . only")
            items[key], _ = bind_input(f"{name}[{key!r}]", ts_type.getValueType(), v)
            texts.append(f"{key}:inputs/{name}.{key}.npy")
        return items, "{" + ",".join(texts) + "}"
    raise ExportError(f"input '{name}' has type {type_name}; the tssa-stream command line "
                      "binds Tensor, int, float, bool, Scalar, str, Any, lists and tuples "
                      "of int, float and bool, lists and tuples of tensors, Dict[str, Tensor], "
                      "and Optional of each")


def check_inputs(graph, arguments, example_inputs):
    """Graph inputs paired with their values, in graph order, as (name,
    value, args.txt text or None for a tensor); refuses types the
    tssa-stream command line cannot bind.

    `arguments` is the scripted signature's argument list (without self),
    in graph order: an input the examples leave out takes its declared
    default (a forward's `state: Optional[Tensor] = None`). The graph text
    carries no defaults, so they are written into args.txt like any other
    value."""
    signature = graph_input_names(graph)
    declared = [name for name, _ in signature]
    if len(arguments) != len(signature):
        raise ExportError(f"the scripted signature has {len(arguments)} arguments, "
                          f"the graph {len(signature)} inputs")
    defaults = {name: arg.default_value for (name, _), arg in zip(signature, arguments)
                if arg.has_default_value()}
    missing = [n for n in declared if n not in example_inputs and n not in defaults]
    extra = [n for n in example_inputs if n not in declared]
    if missing or extra:
        raise ExportError("example inputs do not match the graph inputs ("
                          + ", ".join(declared) + ")"
                          + (": missing " + ", ".join(missing) if missing else "")
                          + (": unknown " + ", ".join(extra) if extra else ""))
    bound = []
    for name, ts_type in signature:
        value = example_inputs[name] if name in example_inputs else defaults[name]
        value, text = bind_input(name, ts_type, value)
        bound.append((name, value, text))
    return bound


def fresh_arguments(bound):
    """Contiguous clones of the tensor inputs (what the .npy files hold), and
    fresh copies of list inputs (a program may append to them)."""
    def fresh(value):
        if isinstance(value, torch.Tensor):
            return value.detach().clone(memory_format=torch.contiguous_format)
        if isinstance(value, tuple):
            return tuple(fresh(v) for v in value)
        if isinstance(value, dict):
            return {k: fresh(v) for k, v in value.items()}
        return [fresh(v) for v in value] if isinstance(value, list) else value
    return [fresh(v) for _, v, _ in bound]


def outputs_agree(eager, scripted):
    if isinstance(eager, torch.Tensor) and isinstance(scripted, torch.Tensor):
        if eager.dtype != scripted.dtype or eager.shape != scripted.shape:
            return False
        if eager.dtype.is_floating_point:
            return torch.allclose(eager, scripted, rtol=1e-5, atol=1e-6, equal_nan=True)
        return torch.equal(eager, scripted)
    if isinstance(eager, float) and isinstance(scripted, float):
        return eager == scripted or (math.isnan(eager) and math.isnan(scripted))
    return type(eager) is type(scripted) and eager == scripted


CASE_FILES = ("model.ir", "weights.safetensors", "args.txt", "expect_error.txt")
CASE_ARRAY_DIRS = ("inputs", "expected")


def prepare_case_directory(outdir):
    """Create OUTDIR, or clear the files an earlier export wrote there (other
    files, such as the program's source, stay). A non-empty directory that
    is not a case directory is refused rather than touched."""
    if not os.path.exists(outdir):
        os.makedirs(outdir)
        return
    if not os.path.isdir(outdir):
        raise ExportError(f"{outdir} exists and is not a directory")
    if os.listdir(outdir) and not os.path.isfile(os.path.join(outdir, "model.ir")):
        raise ExportError(f"{outdir} is not empty and holds no model.ir: "
                          "refusing to write a case over it")
    for name in CASE_FILES:
        path = os.path.join(outdir, name)
        if os.path.isfile(path):
            os.remove(path)
    for name in CASE_ARRAY_DIRS:
        path = os.path.join(outdir, name)
        if not os.path.isdir(path):
            continue
        for entry in os.listdir(path):
            if entry.endswith(".npy"):
                os.remove(os.path.join(path, entry))
        if not os.listdir(path):
            os.rmdir(path)


# ------------------------------------------------------------------ export

def export(program, example_inputs, outdir, source_root=None, expect_error=None, seed=None):
    """Write the test case for `program` run on `example_inputs` to `outdir`.

    program        a Python function or an nn.Module (exported in eval mode)
    example_inputs dict: graph input name -> tensor (or ndarray), int, float, bool,
                   None (an Optional input), list or tuple of int, float,
                   bool, str; an input left out takes its declared default
    source_root    directory that source comments are made relative to
                   (default: the directory of the program's source file)
    expect_error   None, or (exit_status, message_substring) for a case that
                   must fail: the eager program must raise, and
                   expect_error.txt replaces expected/
    seed           None, or the torch.manual_seed set before the eager and
                   before the scripted call, so that a random program draws
                   the same numbers in both

    Returns the set of op kinds in the graph. Raises ExportError."""
    if isinstance(program, (torch.jit.ScriptModule, torch.jit.ScriptFunction)):
        raise ExportError("pass the original Python program, not a scripted one: "
                          "expected outputs come from eager mode")
    is_module = isinstance(program, torch.nn.Module)
    if is_module:
        program.eval()
    if source_root is None:
        target = type(program) if is_module else program
        source_root = os.path.dirname(os.path.abspath(inspect.getsourcefile(target)))

    scripted, method, graph = script_and_inline(program, example_inputs)
    arguments = method.schema.arguments
    bound = check_inputs(graph, arguments[1:] if is_module else arguments, example_inputs)

    tensors, metadata, objects, unexportable = (module_weights(program, may_write_module_tensors(graph))
                                                if is_module
                                                else ({}, {}, set(), {}))
    read = collect_getattr_paths(graph)
    refused = sorted(p for p in unexportable if any(path_matches(r, p) for r in read))
    if refused:
        raise ExportError("cannot export module attribute "
                          + "; ".join(f"'{p}': {unexportable[p]}" for p in refused))
    # Paths through list elements (`*`) are checked element by element above;
    # an empty list has none to check.
    # A read below an Optional object that is None is in a branch the
    # `is not None` test never takes.
    def under_none(path):
        parts = path.split(".")
        return any(metadata.get(".".join(parts[:i])) == "None" for i in range(1, len(parts)))
    unresolved = sorted(p for p in read if "*" not in p and p not in tensors
                        and p not in metadata and p not in objects and not under_none(p))
    if unresolved:
        raise ExportError("the graph reads module attributes with no exportable value: "
                          + ", ".join(unresolved))

    # A program may update its module's state in place (buffers, tied
    # weights): the weights file gets the state before the run, and the eager
    # and the scripted run each start from it; the caller's module is left as
    # it was.
    snapshot = {name: tensor.clone() for name, tensor in tensors.items()}

    def restore_module_state():
        for name, tensor in tensors.items():
            tensor.copy_(snapshot[name])

    with torch.no_grad():
        if seed is not None:
            torch.manual_seed(seed)
        try:
            eager_result = program(*fresh_arguments(bound))
            eager_error = None
        except Exception as err:  # the program's own failure is data here
            eager_result, eager_error = None, err
        eager_result = clone_outputs(eager_result)
        restore_module_state()
        if seed is not None:
            torch.manual_seed(seed)
        try:
            scripted_result = method(*fresh_arguments(bound))
            scripted_error = None
        except Exception as err:
            scripted_result, scripted_error = None, err
        # (a result may be a buffer the run wrote in place: keep what it
        # returned, not the restored state)
        scripted_result = clone_outputs(scripted_result)
        restore_module_state()
    tensors = snapshot

    if expect_error is None:
        if eager_error is not None:
            raise ExportError(f"the eager program failed: {eager_error!r}")
        if scripted_error is not None:
            raise ExportError(f"the scripted program failed: {scripted_error!r}")
        outputs = flatten_outputs(eager_result)
        scripted_outputs = flatten_outputs(scripted_result)
        if len(outputs) != len(scripted_outputs) or not all(
                outputs_agree(e, s) for e, s in zip(outputs, scripted_outputs)):
            raise ExportError("eager and scripted outputs differ: TorchScript gives this "
                              "program another meaning")
        arrays = [value_to_array(v, f"output {i}") for i, v in enumerate(outputs)]
    else:
        status, substring = expect_error
        if eager_error is None or scripted_error is None:
            raise ExportError("the case is marked as failing, but the "
                              + ("eager" if eager_error is None else "scripted")
                              + " program ran without error")
        if "\n" in substring:
            raise ExportError("the expected error substring must be one line")

    # Everything that can fail is computed before the first file is written,
    # so a refused export leaves OUTDIR as it was.
    text = rewrite_source_comments(str(graph), source_root)
    input_arrays = {}
    bindings = []
    for name, value, literal in bound:
        if literal is None:
            input_arrays[name] = tensor_to_array(value, f"input '{name}'")
            bindings.append(f"{name}=inputs/{name}.npy")
        else:
            if isinstance(value, (list, tuple)):    # tensors in a list: inputs/NAME.K.npy
                for i, item in enumerate(value):
                    if isinstance(item, torch.Tensor):
                        input_arrays[f"{name}.{i}"] = tensor_to_array(item, f"input '{name}'[{i}]")
            if isinstance(value, dict):             # tensors by key: inputs/NAME.KEY.npy
                for key, item in value.items():
                    input_arrays[f"{name}.{key}"] = tensor_to_array(item, f"input '{name}'[{key!r}]")
            bindings.append(f"{name}={literal}")
    weights_blob = None
    if is_module:
        weights_blob = safetensors_bytes(tensors, metadata)
        bindings.append("--weights weights.safetensors")

    prepare_case_directory(outdir)
    with open(os.path.join(outdir, "model.ir"), "w") as f:
        f.write(text)
    if input_arrays:
        os.makedirs(os.path.join(outdir, "inputs"), exist_ok=True)
    for name, array in input_arrays.items():
        save_npy(os.path.join(outdir, "inputs", name + ".npy"), array)
    if weights_blob is not None:
        with open(os.path.join(outdir, "weights.safetensors"), "wb") as f:
            f.write(weights_blob)
    with open(os.path.join(outdir, "args.txt"), "w") as f:
        f.write(" ".join(bindings) + "\n")
    if expect_error is None:
        os.makedirs(os.path.join(outdir, "expected"), exist_ok=True)
        for i, array in enumerate(arrays):
            save_npy(os.path.join(outdir, "expected", f"out{i}.npy"), array)
    else:
        with open(os.path.join(outdir, "expect_error.txt"), "w") as f:
            f.write(f"{status}\n{substring}\n")
    return collect_kinds(graph.block(), set())


# ------------------------------------------------------------------ command line

def load_source_file(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ExportError(f"{path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    # TorchScript finds a program's source through its module: register it.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def resolve_program(spec):
    """FILE.py:function, FILE.py:Module or FILE.py:Module(args) -> (program, file)."""
    match = re.fullmatch(r"(.+?\.py):(.+)", spec)
    if not match:
        raise ExportError(f"'{spec}': expected FILE.py:function or FILE.py:Module(args)")
    path, expression = match.groups()
    if not os.path.isfile(path):
        raise ExportError(f"{path}: no such file")
    source = load_source_file(path)
    try:
        program = eval(expression, vars(source))  # the user's own expression
    except Exception as err:
        raise ExportError(f"'{expression}' in {path}: {err!r}") from err
    if inspect.isclass(program) and issubclass(program, torch.nn.Module):
        program = program()
    if not (isinstance(program, torch.nn.Module) or inspect.isfunction(program)):
        raise ExportError(f"'{expression}' in {path} is neither a function nor an nn.Module")
    return program, path


def parse_input(binding, namespace):
    """NAME=VALUE: VALUE is a .npy path, or a Python expression evaluated with
    torch, np and math (and the program file's globals) in scope."""
    name, sep, text = binding.partition("=")
    if not sep or not name.isidentifier():
        raise ExportError(f"'{binding}': expected NAME=VALUE")
    if text.endswith(".npy"):
        if not os.path.isfile(text):
            raise ExportError(f"input '{name}': {text}: no such file")
        return name, torch.from_numpy(np.load(text, allow_pickle=False))
    try:
        value = eval(text, dict(namespace, torch=torch, np=np, math=math))
    except Exception as err:
        raise ExportError(f"input '{name}': cannot evaluate '{text}': {err!r}") from err
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(value)
    return name, value


# Ops that draw from the random generator (tssa-stream's OPC_RANDOM ops).
RANDOM_OPS = {f"aten::{name}" for name in (
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "multinomial", "bernoulli", "bernoulli_", "normal", "normal_", "uniform_", "dropout",
    "dropout_", "feature_dropout", "alpha_dropout", "rrelu", "rrelu_", "exponential_",
    "geometric_", "cauchy_", "log_normal_", "random_", "poisson")}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="export.py",
        description="Export a PyTorch function or module as a tssa-stream test case: "
                    "model.ir (inlined TorchScript graph), inputs/*.npy, args.txt, "
                    "weights.safetensors (modules) and expected/outN.npy (eager outputs).",
        epilog="example: export.py decode.py:decode --inputs 'x=torch.randn(2, 8)' n=3 -o case/")
    parser.add_argument("program", metavar="FILE.py:NAME",
                        help="a function (decode.py:decode) or a module class, called with "
                             "arguments if given (net.py:'Net(4, 8)'); modules are put in eval mode")
    parser.add_argument("--inputs", nargs="*", default=[], metavar="NAME=VALUE",
                        help="one per graph input: a .npy path or a Python expression "
                             "(torch, np, math in scope): x=x.npy, 'x=torch.randn(2, 3)', n=4; "
                             "an input with a default may be left out (it takes the default)")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="case directory to (re)create")
    parser.add_argument("--source-root", metavar="DIR",
                        help="make source comments relative to DIR (default: FILE.py's directory)")
    parser.add_argument("--seed", type=int, default=0,
                        help="torch.manual_seed before building the module and inputs, and "
                             "again before the eager and the scripted call, so that a program "
                             "that draws random numbers draws the same in both (default 0)")
    parser.add_argument("--expect-error", metavar="STATUS:TEXT",
                        help="the case must fail with exit STATUS and a message containing TEXT; "
                             "writes expect_error.txt instead of expected/")
    args = parser.parse_args(argv)
    try:
        expect_error = None
        if args.expect_error is not None:
            status, sep, substring = args.expect_error.partition(":")
            if not sep or not status.isdigit():
                raise ExportError("--expect-error: expected STATUS:TEXT, e.g. 1:aten::add")
            expect_error = (int(status), substring)
        torch.manual_seed(args.seed)
        program, path = resolve_program(args.program)
        namespace = vars(sys.modules[os.path.splitext(os.path.basename(path))[0]])
        inputs = {}
        for binding in args.inputs:
            name, value = parse_input(binding, namespace)
            if name in inputs:
                raise ExportError(f"input '{name}' given twice")
            inputs[name] = value
        source_root = args.source_root or os.path.dirname(os.path.abspath(path))
        kinds = export(program, inputs, args.output, source_root, expect_error, seed=args.seed)
        random_ops = sorted(k for k in kinds if k in RANDOM_OPS)
        if random_ops:
            print(f"export.py: note: the program may draw random numbers ({', '.join(random_ops)}): "
                  "expected/ holds PyTorch's draws; tssa-stream draws from its own generator "
                  "(Philox, keyed by --seed), the same on every backend and rank count, but not "
                  "PyTorch's numbers", file=sys.stderr)
    except ExportError as err:
        print(f"export.py: error: {err}", file=sys.stderr)
        return 2
    print(f"export.py: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
