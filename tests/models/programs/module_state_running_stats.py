"""Module state written in forward (issue 30): BatchNorm-like running
statistics and counters assigned with prim::SetAttr inside a loop, as
online normalisers and tracking filters in public code write them
(`self.running_mean = (1 - m) * self.running_mean + m * mean`, not in place).

Over the `steps` rows of `x` the loop updates a tensor buffer
(running_mean, running_var), an int counter (`self.steps_seen += 1`), a
tensor counter (`self.num_batches_tracked = self.num_batches_tracked + 1`),
a float (`self.last_scale`) and, in a branch taken on some iterations
only, a bool flag toggled and a Python float accumulated (SetAttr inside an
If inside a Loop). Each row is normalised with the statistics as they are
at that point (reads after writes in program order), and the module's state
after the call is returned."""
import torch


class RunningStats(torch.nn.Module):
    def __init__(self, features: int, momentum: float):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("running_var", torch.ones(features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        self.steps_seen = 0
        self.flipped = False
        self.last_scale = 1.0
        self.big_total = 0.0

    def forward(self, x, threshold: float):
        outs = []
        for i in range(x.size(0)):
            row = x[i]
            m = self.momentum
            self.running_mean = (1.0 - m) * self.running_mean + m * row
            centred = row - self.running_mean
            self.running_var = (1.0 - m) * self.running_var + m * centred * centred
            self.steps_seen += 1
            self.num_batches_tracked = self.num_batches_tracked + 1
            scale = float(row.abs().max())
            if scale > threshold:
                self.flipped = not self.flipped
                self.big_total = self.big_total + scale
            self.last_scale = scale
            outs.append((row - self.running_mean) / torch.sqrt(self.running_var + 1e-5))
        return (torch.stack(outs), self.running_mean, self.running_var, self.num_batches_tracked,
                self.steps_seen, self.flipped, self.last_scale, self.big_total)


def example():
    return RunningStats(5, 0.25), {"x": torch.randn(6, 5), "threshold": 1.5}
