"""Greedy decoding that keeps its state in Python lists, as small
autoregressive samplers do: the token history grows with `append` and is
read back inside the loop that grows it (`tokens[-1]`), per-step scores are
collected with `scores += [s]`, and a clean-up pass assigns items in place
(`tokens[i] = -1` under a branch, with an index known only at run time).
Written for tssa-stream's list versions (functionalize/list_versions.c)."""
from typing import List

import torch
from torch import nn


class TokenDecoder(nn.Module):
    def __init__(self, vocab: int = 6, hidden: int = 5):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, h, steps: int):
        tokens: List[int] = [0]
        scores: List[torch.Tensor] = []
        for _ in range(steps):
            e = self.embed(torch.tensor([tokens[-1]]))
            h = torch.tanh(self.cell(e) + h)
            logits = self.out(h)
            tokens.append(int(logits.argmax()))
            scores += [logits.max()]
        for i in range(len(tokens) - 1, 0, -1):
            if tokens[i] == tokens[i - 1]:
                tokens[i] = -1
        return tokens, torch.stack(scores), h


def example():
    return TokenDecoder(), {"h": torch.randn(1, 5), "steps": 7}
