"""op_table.py — the op kinds tssa-stream knows, read from include/tssa/ops.h.

The corpus and the per-op table must use only ops the reference interpreter
implements, and that set is exactly the X-macro table in ops.h. This module
reads the table's names (plain X(...) rows and the ELEMENTWISE_*/IMMUT_PAIR
shorthands, and the in-place twins ir/gen_inplace_ops.py derives from them) so the generators can refuse a graph with an unlisted op kind.
"""

import os
import re

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS_HEADER = os.path.join(REPO_ROOT, "include", "tssa", "ops.h")
DERIVED_INPLACE = os.path.join(REPO_ROOT, "include", "tssa", "ops_inplace.inc")
DECOMPOSITIONS = os.path.join(REPO_ROOT, "frontend", "decompositions.inc")


def _table_text(header):
    with open(header) as f:
        text = f.read()
    # The table starts at its #define; the header comment above it shows the
    # row syntax with placeholder names that must not count as ops.
    start = text.find("#define TSSA_OPS(X)")
    if start < 0:
        raise RuntimeError(f"{header}: no TSSA_OPS table")
    return text[start:]


_ROW = re.compile(r'\bX\((\w+),\s*"([a-z]+::[^"]+)",\s*(\w+),\s*[-\w]+,\s*(\w+),\s*\w+\)')


def hand_written_rows(header=OPS_HEADER):
    """(id, name, class, alias) of every op ops.h lists itself: plain X(...)
    rows and the ELEMENTWISE_*/IMMUT_PAIR shorthands, not the derived
    in-place twins of ops_inplace.inc (ir/gen_inplace_ops.py makes those
    from these)."""
    text = _table_text(header)
    rows = [m.groups() for m in _ROW.finditer(text)]
    for op_id, name in re.findall(r'ELEMENTWISE_PAIR\(X,\s*(\w+),\s*"([^"]+)",\s*\w+\)', text):
        rows.append(("ATEN_" + op_id, "aten::" + name, "OPC_ELEMENTWISE", "ALIAS_NONE"))
        rows.append(("ATEN_" + op_id + "_", "aten::" + name + "_", "OPC_ELEMENTWISE", "ALIAS_SELF"))
    for op_id, name in re.findall(r'ELEMENTWISE_ONLY\(X,\s*(\w+),\s*"([^"]+)",\s*\w+\)', text):
        rows.append(("ATEN_" + op_id, "aten::" + name, "OPC_ELEMENTWISE", "ALIAS_NONE"))
    for op_id, name in re.findall(r'IMMUT_PAIR\(X,\s*(\w+),\s*"([^"]+)"\)', text):
        rows.append(("IMMUT_" + op_id, "immut::" + name, "OPC_ACCESS", "ALIAS_NONE"))
        rows.append(("IMMUT_" + op_id + "_REV", "immut::" + name + "_rev", "OPC_ASSIGN", "ALIAS_NONE"))
    return rows


def derived_inplace_kinds(inc=DERIVED_INPLACE):
    """The in-place twins ir/gen_inplace_ops.py derived (ops_inplace.inc)."""
    with open(inc) as f:
        return set(re.findall(r'\bX\(\w+,\s*"([a-z]+::[^"]+)"', f.read()))


def decomposed_kinds(inc=DECOMPOSITIONS):
    """The composite ops frontend/decompose.c replaces by their definitions
    (frontend/decompositions.inc) before any backend runs."""
    with open(inc) as f:
        return set(re.findall(r'^DECOMPOSITION\("([a-z]+::[^"]+)"', f.read(), re.M))


# Rewritten by decompose.c's own code for some overloads only: l.copy() and
# d.copy() (not the tensor aten::copy), sorted(l). Not op-table kinds (the
# in-place twins' check would take copy_ for aten::copy's), but a graph may
# hold them.
REWRITTEN_KINDS = {"aten::copy", "aten::sorted"}


def known_op_kinds(header=OPS_HEADER):
    kinds = {name for _, name, _, _ in hand_written_rows(header)}
    if header == OPS_HEADER:
        kinds |= derived_inplace_kinds() | decomposed_kinds()
    if len(kinds) < 100:
        raise RuntimeError(f"{header}: read only {len(kinds)} op names; has its layout changed?")
    return kinds


def unknown_kinds(kinds, known=None):
    """The kinds (from export()) that the op table does not list."""
    known = known_op_kinds() if known is None else known
    return sorted(k for k in kinds if k not in known and k not in REWRITTEN_KINDS)
