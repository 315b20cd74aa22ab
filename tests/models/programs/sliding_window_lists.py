"""A sliding window over frames kept as a list, as streaming feature code
does: each frame is appended, the window is cut back with a slice once it
is too long (so the loop carries either the appended list or a new one),
every step's mean is collected, and the collected list is copied, reversed
in place and extended. Written for tssa-stream's list versions
(functionalize/list_versions.c)."""
from typing import List

import torch


def sliding_window_lists(x, k: int):
    window: List[torch.Tensor] = []
    means: List[torch.Tensor] = []
    for i in range(x.size(0)):
        window.append(x[i])
        if len(window) > k:
            window = window[1:]
        means.append(torch.stack(window).mean(0))
    history = list(means)
    history.reverse()
    history.extend(means[:1])
    return torch.stack(means), torch.stack(history), len(window)


def example():
    return sliding_window_lists, {"x": torch.randn(6, 3), "k": 3}
