"""Dicts as detection post-processing code uses them (DETR-style outputs
keyed by name, per-class thresholds keyed by id): construction, d[k] = v,
items() and keys() iteration in insertion order, get with a default,
setdefault, pop, `in`, len and clear, with tensors and floats as values."""
from typing import Dict

import torch


def dict_postprocess(logits, boxes, n: int):
    out: Dict[str, torch.Tensor] = {"scores": logits.softmax(-1), "boxes": boxes}
    out["labels"] = out["scores"].argmax(-1)
    thresholds = {0: 0.5, 1: 0.25}
    thresholds[2] = 0.75
    total = 0.0
    for k in thresholds:
        total += thresholds[k] * (k + 1)
    scaled = boxes
    for name, value in out.items():
        if name == "boxes":
            scaled = value * 2.0
    missing = thresholds.get(n, -1.0)
    present = thresholds.get(1, -1.0)
    added = thresholds.setdefault(7, 0.125)
    kept = thresholds.setdefault(0, 9.0)
    dropped = thresholds.pop(2)
    has = 2 in thresholds
    size = len(thresholds)
    out.clear()
    return scaled, total, missing, present, added, kept, dropped, has, size, len(out)


def example():
    return dict_postprocess, {"logits": torch.randn(4, 3), "boxes": torch.rand(4, 4), "n": 5}
