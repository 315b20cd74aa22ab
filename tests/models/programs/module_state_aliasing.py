"""Module state written in forward (issue 30): a tensor attribute assigned
and then written in place, where PyTorch's attribute holds a reference.

`self.buf = t` makes the attribute the same tensor as `t`: writing `t` in
place afterwards (`t.mul_(2)`) changes what `self.buf` reads, and writing
through the attribute (`self.buf.add_(1)`) changes `t`. A module attribute
that is only written in place (`self.total.add_`, a buffer) and one
assigned inside `with torch.no_grad()` (whose scope has its own
prim::SetAttr bookkeeping) sit beside them, and an int attribute decides a
branch after it was incremented (the read must not be folded from the
weights file). The state after the call is returned."""
import torch


class Aliasing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(3))
        self.register_buffer("total", torch.zeros(3))
        self.register_buffer("ema", torch.ones(3))
        self.calls = 1

    def forward(self, x):
        t = x * 1.0
        self.buf = t
        t.mul_(2.0)               # self.buf sees it
        seen = self.buf * 1.0
        self.buf.add_(1.0)        # t sees it
        self.total.add_(t)
        with torch.no_grad():
            self.ema = 0.5 * self.ema + 0.5 * x
        self.calls += 1
        if self.calls == 2:
            y = t + self.ema
        else:
            y = t - self.ema
        return seen, t, y, self.buf, self.total, self.ema, self.calls


def example():
    return Aliasing(), {"x": torch.randn(3)}
