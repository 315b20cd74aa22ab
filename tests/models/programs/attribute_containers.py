"""Module attributes of every kind the exporter must write (issue 11): a list
of strings (a CTC decoder's labels), a dict of floats, a tuple of ints, a
list of tensors, None, a ModuleList, and tied weights (an output head
sharing the embedding's weight, as GPT-2 and nanoGPT do): the head's
weight is updated in place and a later read of the embedding's must see it."""
from typing import Dict, List, Optional, Tuple

import torch


class AttributeContainers(torch.nn.Module):
    labels: List[str]
    scales: Dict[str, float]
    window: Tuple[int, int]
    offset: Optional[float]

    def __init__(self):
        super().__init__()
        self.labels = ["-", "a", "b", "c"]
        self.scales = {"x": 0.5, "y": 2.0}
        self.window = (1, 3)
        self.offset = None
        self.anchors = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]
        self.embed = torch.nn.Embedding(4, 3)
        self.head = torch.nn.Linear(3, 4, bias=False)
        self.head.weight = self.embed.weight
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])

    def forward(self, tokens, x):
        h = self.embed(tokens)
        for block in self.blocks:
            h = torch.relu(block(h))
        picked = [self.labels[int(t)] for t in tokens]
        n_a = 0
        for s in picked:
            if s == "a":
                n_a += 1
        lo, hi = self.window
        y = x[:, lo:hi] * self.scales["x"] + self.scales["y"]
        offset = self.offset
        if offset is not None:
            y = y + offset
        anchored = y + self.anchors[0][0] + self.anchors[1][1]
        logits = self.head(h)
        self.head.weight.mul_(2.0)
        tied = self.embed(tokens)   # the same tensor as head.weight: doubled
        return logits, anchored, n_a, len(self.labels), tied


def example():
    return AttributeContainers(), {"tokens": torch.tensor([1, 2, 1, 3]), "x": torch.randn(2, 4)}
