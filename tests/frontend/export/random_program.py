"""A sampling step as GPT generation code writes it (issue 30): top-k
filtering, softmax, then torch.multinomial, used by test_export_random.py."""
import torch


def sample_tokens(logits, top_k: int):
    v, _ = torch.topk(logits, top_k)
    logits = logits.masked_fill(logits < v[:, -1:], -float("inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1), probs
