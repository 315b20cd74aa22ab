"""A loop over the rows of a computed tensor with enumerate, as torchaudio's
lfilter loops over conv1d's output: TorchScript's trip count is
min([INT_MAX, len(y)]), known once y's shape is inferred, so the loop must
be a feedback loop (carried state h), not one filter (the golden
tests/streamit/golden/enumerate_rows_loop.expected shows it)."""
import torch


def enumerate_rows_loop(x: torch.Tensor, w: torch.Tensor):
    y = torch.tanh(x) * 0.5
    h = torch.zeros(x.size(1))
    for i, row in enumerate(y):
        h = torch.tanh(torch.mv(w, h) + row) * float(i + 1)
    return h


def example():
    return enumerate_rows_loop, {"x": torch.randn(5, 3), "w": torch.randn(3, 3) * 0.5}
