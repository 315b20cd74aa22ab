"""Tied weights written in place in a loop, in a branch and through views
(issue 30): three paths hold one tensor (an embedding shared by two output
heads, as GPT-2 and nanoGPT tie theirs), and every read under any path after
a write through any other path sees it. The loops' trip counts are an int
attribute and an input's size; the branch depends on the data."""
import torch


class TiedWrites(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(5, 3)
        self.head = torch.nn.Linear(3, 5, bias=False)
        self.out = torch.nn.Linear(3, 5, bias=False)
        self.head.weight = self.embed.weight
        self.out.weight = self.embed.weight
        self.steps = 3

    def forward(self, tokens, x):
        before = self.embed(tokens)
        for i in range(self.steps):
            self.head.weight.mul_(0.5)              # the whole tensor, in a loop
            self.embed.weight[i].add_(1.0)          # a row, through a view, in the loop
        if bool(x.sum() > 0):
            self.out.weight[0].sub_(x[0])           # through a view, in a branch
        else:
            self.head.weight.add_(x[1])
        mid = self.embed(tokens)
        logits = self.out(mid)
        for i in range(x.size(0)):
            self.embed.weight[:, 1:].add_(x[i, 1:])  # a column slice, in a loop
        after = self.head(mid)
        return before, mid, logits, after, self.out.weight * 1.0


def example():
    return TiedWrites(), {"tokens": torch.tensor([1, 4, 0, 2, 1]), "x": torch.randn(2, 3)}
