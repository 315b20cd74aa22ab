#!/usr/bin/python3
"""Writes tests/frontend/golden/<name>.ir for every tests/frontend/programs/<name>.py.

Each program module defines MODEL: a function (scripted), or an nn.Module
(scripted, or traced when TRACE_INPUTS is given, or frozen when FREEZE is
true). Module graphs are inlined with torch._C._jit_pass_inline so their
submodule calls show as ops. The file holds str(graph) exactly as torch
prints it, which is what the round-trip test compares against.

Run with Debian's PyTorch: /usr/bin/python3 tests/frontend/dump_graphs.py
"""
import importlib.util
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent


def graph_of(mod):
    model = mod.MODEL
    if isinstance(model, torch.nn.Module):
        if hasattr(mod, "TRACE_INPUTS"):
            scripted = torch.jit.trace(model, mod.TRACE_INPUTS)
        else:
            scripted = torch.jit.script(model)
        if getattr(mod, "FREEZE", False):
            scripted = torch.jit.freeze(scripted.eval())
        graph = scripted.graph
        torch._C._jit_pass_inline(graph)
        return graph
    return torch.jit.script(model).graph


def main():
    out_dir = HERE / "golden"
    out_dir.mkdir(exist_ok=True)
    for path in sorted((HERE / "programs").glob("*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        # Registered so TorchScript can find the source of classes (NamedTuple, Enum).
        sys.modules[path.stem] = mod
        spec.loader.exec_module(mod)
        text = str(graph_of(mod))
        (out_dir / (path.stem + ".ir")).write_text(text)
        print(f"{path.stem}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
