"""Hugging Face's sampling logits processors, chained as generate() chains
them (huggingface/transformers, src/transformers/generation/logits_process.py:
RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper
and TopPLogitsWarper, their __call__, revision
aa5108b449965084a90a4c8ce130a156aebf28f1) (issue 30's public code).

The scores of tokens already in input_ids are penalized (gather, a where on
the sign, scatter back), divided by the temperature, cut to the top k
(masked_fill below the k-th score) and to the smallest set whose
probability reaches top_p (an ascending sort, softmax, cumsum, the last
min_tokens_to_keep always kept by a slice write, the mask scattered back to
vocabulary order).

Changes:
- the processors are plain Python classes: each __call__ is a function
  taking what its __init__ stored (penalty, prompt_ignore_length,
  temperature, top_k, top_p, filter_value, min_tokens_to_keep); the
  constructors' argument checks (ValueError on a bad penalty, top_k, top_p)
  are not ported, the entry point passing valid values;
- RepetitionPenaltyLogitsProcessor's `if self.prompt_ignore_length:` on an
  Optional[int] is `is not None and != 0` (TorchScript needs a bool);
- TopKLogitsWarper's `self.top_k = max(top_k, min_tokens_to_keep)` is done
  in the function; the -inf filter value is `-float("Inf")` as written;
- the entry point `sample_logits` applies them in generate()'s order
  (repetition penalty among the processors, then the warpers temperature,
  top-k, top-p).
"""
from typing import Optional

import torch
from torch import Tensor


def repetition_penalty(input_ids: Tensor, scores: Tensor, penalty: float,
                       prompt_ignore_length: Optional[int] = None) -> Tensor:
    if prompt_ignore_length is not None and prompt_ignore_length != 0:
        input_ids = input_ids[:, prompt_ignore_length:]

    score = torch.gather(scores, 1, input_ids)

    # if score < 0 then repetition penalty has to be multiplied to reduce the token probabilities
    score = torch.where(score < 0, score * penalty, score / penalty)

    scores_processed = scores.scatter(1, input_ids, score)
    return scores_processed


def temperature_warper(input_ids: Tensor, scores: Tensor, temperature: float) -> Tensor:
    scores_processed = scores / temperature
    return scores_processed


def top_k_warper(input_ids: Tensor, scores: Tensor, top_k: int, filter_value: float = -float("Inf"),
                 min_tokens_to_keep: int = 1) -> Tensor:
    top_k = max(top_k, min_tokens_to_keep)
    top_k = min(top_k, scores.size(-1))  # Safety check
    # Remove all tokens with a probability less than the last token of the top-k
    indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
    scores_processed = scores.masked_fill(indices_to_remove, filter_value)
    return scores_processed


def top_p_warper(input_ids: Tensor, scores: Tensor, top_p: float, filter_value: float = -float("Inf"),
                 min_tokens_to_keep: int = 1) -> Tensor:
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)

    # Remove tokens with cumulative top_p above the threshold (token with 0 are kept)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    # Keep at least min_tokens_to_keep
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0

    # scatter sorted tensors to original indexing
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    scores_processed = scores.masked_fill(indices_to_remove, filter_value)
    return scores_processed


def sample_logits(input_ids: Tensor, scores: Tensor, penalty: float, temperature: float,
                  top_k: int, top_p: float) -> Tensor:
    scores = repetition_penalty(input_ids, scores, penalty)
    scores = temperature_warper(input_ids, scores, temperature)
    scores = top_k_warper(input_ids, scores, top_k)
    scores = top_p_warper(input_ids, scores, top_p)
    return scores


def example():
    b, length, vocab = 4, 12, 200
    return sample_logits, {"input_ids": torch.randint(0, vocab, (b, length)),
                           "scores": torch.randn(b, vocab) * 3, "penalty": 1.2,
                           "temperature": 0.7, "top_k": 50, "top_p": 0.9}
