"""fairseq's beam search step (facebookresearch/fairseq, fairseq/search.py:
BeamSearch.step, revision 038e491e29bce0a2792cf99d5cec1a4531c273ae) driven
for max_len steps by a tiny recurrent decoder (issue 30's public code).

BeamSearch.step: at step 0 only the first beam of each sentence is read
(`lprobs[:, ::beam_size, :]`, all beams being equal); later the running
scores are added; the best 2 x beam_size of beam x vocab are taken with one
top-k and split into beam (integer division) and token (fmod).

Changes:
- BeamSearch.step is a free function: it reads nothing of `self` (the
  Search module's fields come from a fairseq Dictionary, which is not
  ported);
- the driver around it is written for this port after
  sequence_generator._generate's bookkeeping (tokens start with eos,
  `lprobs[:, pad] = -inf`, `cand_bbsz_idx = cand_beams + bbsz_offsets`,
  tokens, scores and decoder state reordered with index_select), keeping
  the first beam_size candidates of each sentence: no EOS finalization,
  length penalty or unk penalty; its decoder (embedding, tanh recurrence,
  output projection, log_softmax) is a stand-in for a fairseq model.
"""
import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


def beam_search_step(step: int, lprobs: Tensor, scores: Optional[Tensor]) -> Tuple[Tensor, Tensor, Tensor]:
    bsz, beam_size, vocab_size = lprobs.size()

    if step == 0:
        # at the first step all hypotheses are equally likely, so use
        # only the first beam
        lprobs = lprobs[:, ::beam_size, :].contiguous()
    else:
        # make probs contain cumulative scores for each hypothesis
        assert scores is not None
        lprobs = lprobs + scores[:, :, step - 1].unsqueeze(-1)

    top_prediction = torch.topk(
        lprobs.view(bsz, -1),
        k=min(
            # Take the best 2 x beam_size predictions. We'll choose the first
            # beam_size of these which don't predict eos to continue with.
            beam_size * 2,
            lprobs.view(bsz, -1).size(1) - 1,  # -1 so we never select pad
        ),
    )
    scores_buf = top_prediction[0]
    indices_buf = top_prediction[1]
    # Project back into relative indices and beams
    beams_buf = torch.div(indices_buf, vocab_size, rounding_mode='trunc')
    indices_buf = indices_buf.fmod(vocab_size)

    # At this point, beams_buf and indices_buf are single-dim and contain relative indices
    return scores_buf, indices_buf, beams_buf


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.w_in = nn.Linear(hidden, hidden)
        self.w_h = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token: Tensor, h: Tensor) -> Tuple[Tensor, Tensor]:
        h = torch.tanh(self.w_in(self.embed(token)) + self.w_h(h))
        return F.log_softmax(self.out(h), dim=-1), h


class BeamGenerator(nn.Module):
    def __init__(self, vocab: int = 40, hidden: int = 32, beam_size: int = 4, pad: int = 1,
                 eos: int = 2):
        super().__init__()
        self.decoder = TinyDecoder(vocab, hidden)
        self.vocab = vocab
        self.beam_size = beam_size
        self.pad = pad
        self.eos = eos

    def forward(self, src_h: Tensor, max_len: int) -> Tuple[Tensor, Tensor]:
        bsz = src_h.size(0)
        beam_size = self.beam_size
        new_order = torch.arange(bsz).view(-1, 1).repeat(1, beam_size).view(-1)
        h = src_h.index_select(0, new_order)
        tokens = torch.full((bsz * beam_size, max_len + 1), self.pad, dtype=torch.long)
        tokens[:, 0] = self.eos
        scores = torch.zeros(bsz * beam_size, max_len)
        bbsz_offsets = (torch.arange(0, bsz) * beam_size).unsqueeze(1)
        for step in range(max_len):
            lprobs, h = self.decoder(tokens[:, step], h)
            lprobs[:, self.pad] = -math.inf  # never select pad
            cand_scores, cand_indices, cand_beams = beam_search_step(
                step, lprobs.view(bsz, -1, self.vocab),
                scores.view(bsz, beam_size, -1)[:, :, :step])
            cand_bbsz_idx = cand_beams.add(bbsz_offsets)
            active_bbsz_idx = cand_bbsz_idx[:, :beam_size].reshape(-1)
            tokens = tokens.index_select(0, active_bbsz_idx)
            tokens[:, step + 1] = cand_indices[:, :beam_size].reshape(-1)
            scores = scores.index_select(0, active_bbsz_idx)
            scores[:, step] = cand_scores[:, :beam_size].reshape(-1)
            h = h.index_select(0, active_bbsz_idx)
        return tokens, scores


def example():
    gen = BeamGenerator().eval()
    return gen, {"src_h": torch.randn(3, 32), "max_len": 8}
