"""What real forward methods return and check (issue 30): a NamedTuple of
tensors and an int (torchvision's and Hugging Face's output records), an
`assert` with an f-string message, a typing.Final class constant, a
__constants__ string, a @torch.jit.unused debugging method, and a dict
comprehension over zip. export.py copies a NamedTuple output field by
field (it used to fail rebuilding it: `Out.__new__() missing 2 required
positional arguments`); tssa-stream writes its fields as out0..outN."""
from typing import NamedTuple

import torch
from typing_extensions import Final


class Detections(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor
    count: int


class ScoreFilter(torch.nn.Module):
    scale: Final[float] = 2.5
    __constants__ = ["mode"]

    def __init__(self):
        super().__init__()
        self.mode = "sum"
        self.proj = torch.nn.Linear(5, 5)

    @torch.jit.unused
    def debug(self, x):
        return x.numpy()

    def forward(self, x, threshold: float) -> Detections:
        assert x.dim() == 2, f"expected a 2-D input, got {x.dim()}-D"
        y = self.proj(x) * self.scale
        parts = {k: v for k, v in zip(["a", "b"], [y, y * 2.0])}
        total = torch.zeros(x.size(0))
        for i, (k, v) in enumerate(parts.items()):
            total = total + v.sum(1) * float(i + 1)
        if self.mode == "sum":
            scores = torch.sigmoid(total)
        else:
            scores = total
        keep = scores > threshold
        return Detections(x[keep, :4], scores[keep], int(keep.sum()))


def example():
    return ScoreFilter(), {"x": torch.randn(8, 5), "threshold": 0.5}
