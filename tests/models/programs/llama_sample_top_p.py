"""LLaMA's generation loop with nucleus (top-p) sampling: per position,
the model's logits for the tokens so far, softmax at a temperature, the
probabilities sorted, the tail past p zeroed through a boolean mask and the
rest renormalized in place, one token drawn and mapped back through the
sort's indices; prompt positions keep their tokens (torch.where on the
prompt mask), and the token is written into the running token matrix by
a column assignment (issue 30's public code).

Origin: meta-llama/llama, llama/generation.py, LLaMA.generate (the token
loop) and sample_top_p, revision 0504cf440a50aab815cadccd10a46e7ba70ff344.

Changes:
- sample_top_p's `torch.multinomial(probs_sort, num_samples=1)` draws
  through the generator; here the draw is an input: `uniform` holds one
  U[0, 1) value per row and position, and the token is the first index
  whose cumulative probability exceeds it (inverse-CDF sampling, which is
  what a multinomial draw of one sample is), clamped to the last index.
  sample_top_p takes the row of draws as an argument.
- the Transformer (self.model.forward(tokens[:, prev_pos:cur_pos],
  prev_pos), with its KV cache) is a stand-in bigram model: an embedding of
  the last token of the slice, a tanh layer and an output projection, so
  the loop's shape (slice, forward, sample, write back) is kept.
- tokenization and decoding to strings are left out: the program takes the
  prompt token matrix (padded with pad_id) and min_prompt_size, and returns
  the token matrix.
"""
import torch
import torch.nn as nn
from torch import Tensor


def sample_top_p(probs, p: float, uniform: Tensor):
    probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
    probs_sum = torch.cumsum(probs_sort, dim=-1)
    mask = probs_sum - probs_sort > p
    probs_sort[mask] = 0.0
    probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True))
    # torch.multinomial(probs_sort, num_samples=1) by inverse CDF
    next_token = (torch.cumsum(probs_sort, dim=-1) <= uniform[:, None]).sum(dim=-1, keepdim=True)
    next_token = next_token.clamp(max=probs_sort.size(-1) - 1)
    next_token = torch.gather(probs_idx, -1, next_token)
    return next_token


class BigramLM(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.hidden = nn.Linear(dim, dim)
        self.output = nn.Linear(dim, vocab)

    def forward(self, tokens: Tensor, start_pos: int) -> Tensor:
        h = torch.tanh(self.hidden(self.embed(tokens[:, -1])))
        return self.output(h)


class Generator(nn.Module):
    def __init__(self, vocab: int, dim: int, pad_id: int):
        super().__init__()
        self.model = BigramLM(vocab, dim)
        self.pad_id = pad_id

    def forward(self, tokens: Tensor, min_prompt_size: int, uniform: Tensor,
                temperature: float, top_p: float) -> Tensor:
        total_len = tokens.size(1)
        input_text_mask = tokens != self.pad_id
        start_pos = min_prompt_size
        prev_pos = 0
        for cur_pos in range(start_pos, total_len):
            logits = self.model.forward(tokens[:, prev_pos:cur_pos], prev_pos)
            if temperature > 0:
                probs = torch.softmax(logits / temperature, dim=-1)
                next_token = sample_top_p(probs, top_p, uniform[:, cur_pos])
            else:
                next_token = torch.argmax(logits, dim=-1)
            next_token = next_token.reshape(-1)
            # only replace token if prompt has already been generated
            next_token = torch.where(
                input_text_mask[:, cur_pos], tokens[:, cur_pos], next_token
            )
            tokens[:, cur_pos] = next_token
            prev_pos = cur_pos
        return tokens


def example():
    vocab, pad_id, bsz, total_len = 64, 0, 4, 24
    gen = Generator(vocab, 32, pad_id)
    tokens = torch.full((bsz, total_len), pad_id, dtype=torch.long)
    for k, n in enumerate([3, 5, 4, 7]):
        tokens[k, :n] = torch.randint(1, vocab, (n,))
    return gen, {"tokens": tokens, "min_prompt_size": 3, "uniform": torch.rand(bsz, total_len),
                 "temperature": 0.8, "top_p": 0.9}
