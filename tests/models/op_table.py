"""op_table.py — the op kinds tssa-stream knows, read from include/tssa/ops.h.

The corpus and the per-op table must use only ops the reference interpreter
implements, and that set is exactly the X-macro table in ops.h. This module
reads the table's names (plain X(...) rows and the ELEMENTWISE_*/IMMUT_PAIR
shorthands) so the generators can refuse a graph with an unlisted op kind.
"""

import os
import re

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS_HEADER = os.path.join(REPO_ROOT, "include", "tssa", "ops.h")


def known_op_kinds(header=OPS_HEADER):
    with open(header) as f:
        text = f.read()
    # The table starts at its #define; the header comment above it shows the
    # row syntax with placeholder names that must not count as ops.
    start = text.find("#define TSSA_OPS(X)")
    if start < 0:
        raise RuntimeError(f"{header}: no TSSA_OPS table")
    text = text[start:]
    kinds = set(re.findall(r'\bX\(\w+,\s*"([a-z]+::[^"]+)"', text))
    for name in re.findall(r'ELEMENTWISE_PAIR(?:_VIA_COPY)?\(X,\s*\w+,\s*"([^"]+)",\s*\w+\)', text):
        kinds.update({"aten::" + name, "aten::" + name + "_"})
    for name in re.findall(r'ELEMENTWISE_ONLY\(X,\s*\w+,\s*"([^"]+)",\s*\w+\)', text):
        kinds.add("aten::" + name)
    for name in re.findall(r'IMMUT_PAIR\(X,\s*\w+,\s*"([^"]+)"\)', text):
        kinds.update({"immut::" + name, "immut::" + name + "_rev"})
    if len(kinds) < 100:
        raise RuntimeError(f"{header}: read only {len(kinds)} op names; has its layout changed?")
    return kinds


def unknown_kinds(kinds, known=None):
    """The kinds (from export()) that the op table does not list."""
    known = known_op_kinds() if known is None else known
    return sorted(k for k in kinds if k not in known)
