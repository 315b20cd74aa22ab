"""Greedy seq2seq decoding (TensorSSA paper workload), as a module.

Each step embeds the previous token, runs a GRU cell and a linear layer,
takes the argmax and writes it into a preallocated token tensor
`tokens[:, t] = token`: the argmax feeds the next step's embedding lookup.
"""
import torch
from torch import nn


class GreedyDecoder(nn.Module):
    def __init__(self, vocab: int, hidden: int, start_token: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)
        self.start_token = start_token

    def forward(self, h, steps: int):
        # h: [B, H] the encoder's final state
        batch = h.size(0)
        tokens = torch.zeros(batch, steps, dtype=torch.long, device=h.device)
        scores = torch.zeros(batch, steps, device=h.device)
        token = torch.full((batch,), self.start_token, dtype=torch.long, device=h.device)
        for t in range(steps):
            h = self.cell(self.embed(token), h)
            logits = torch.log_softmax(self.out(h), dim=1)
            best, token = logits.max(dim=1)
            tokens[:, t] = token
            scores[:, t] = best
        return tokens, scores


def example():
    model = GreedyDecoder(vocab=7, hidden=6, start_token=1)
    inputs = {"h": torch.randn(3, 6), "steps": 5}
    return model, inputs
