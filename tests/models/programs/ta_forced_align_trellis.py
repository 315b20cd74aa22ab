"""torchaudio's CTC forced alignment tutorial: the trellis of the
transcript's tokens over the frames (a recurrence over time: stay on the
token through a blank, or move to the next), the backtracking of the most
likely path from the last frame and token (a while loop whose trip count
the data decides, then a loop filling the frames before the start), and the
merging of repeated tokens into segments with their mean frame probability
(issue 30's public code).

Origin: pytorch/audio, examples/tutorials/forced_alignment_tutorial.py:
get_trellis, class Point, backtrack, class Segment and merge_repeats,
revision 03bf124f7f07fe77968a61e79694e683104f66af.

Changes:
- the emission comes in as a tensor (the tutorial runs Wav2Vec2 on a
  downloaded file) and the transcript as its token ids (`tokens`, typed
  List[int]), as the tutorial computes them from the labels;
- Point and Segment are plain classes with an __init__ instead of
  @dataclass (TorchScript 1.13 cannot script a dataclass: it looks for the
  source of the generated __init__); Segment's __repr__ is dropped
  (TorchScript has no format specs such as `{self.score:4.2f}`), and its
  `label` is the token index, not the transcript character
  `transcript[path[i1].token_index]` (the transcript string is not an
  input);
- `sum(path[k].score for k in range(i1, i2))` -> an explicit loop
  (TorchScript has no generator expressions);
- the result is tensors (the path's token indices, time indices and
  scores; the segments' labels, starts, ends and scores) instead of the
  list of objects, and the visualisation is not ported.
"""
from typing import List, Tuple

import torch
from torch import Tensor


def get_trellis(emission: Tensor, tokens: List[int], blank_id: int = 0) -> Tensor:
    num_frame = emission.size(0)
    num_tokens = len(tokens)

    trellis = torch.zeros((num_frame, num_tokens))
    trellis[1:, 0] = torch.cumsum(emission[1:, blank_id], 0)
    trellis[0, 1:] = -float("inf")
    trellis[-num_tokens + 1:, 0] = float("inf")

    for t in range(num_frame - 1):
        trellis[t + 1, 1:] = torch.maximum(
            # Score for staying at the same token
            trellis[t, 1:] + emission[t, blank_id],
            # Score for changing to the next token
            trellis[t, :-1] + emission[t, tokens[1:]],
        )
    return trellis


class Point:
    def __init__(self, token_index: int, time_index: int, score: float):
        self.token_index = token_index
        self.time_index = time_index
        self.score = score


def backtrack(trellis: Tensor, emission: Tensor, tokens: List[int], blank_id: int = 0) -> List[Point]:
    t, j = trellis.size(0) - 1, trellis.size(1) - 1

    path = [Point(j, t, emission[t, blank_id].exp().item())]
    while j > 0:
        # Should not happen but just in case
        assert t > 0

        # 1. Figure out if the current position was stay or change
        # Frame-wise score of stay vs change
        p_stay = emission[t - 1, blank_id]
        p_change = emission[t - 1, tokens[j]]

        # Context-aware score for stay vs change
        stayed = trellis[t - 1, j] + p_stay
        changed = trellis[t - 1, j - 1] + p_change

        # Update position
        t -= 1
        if changed > stayed:
            j -= 1

        # Store the path with frame-wise probability.
        prob = (p_change if changed > stayed else p_stay).exp().item()
        path.append(Point(j, t, prob))

    # Now j == 0, which means, it reached the SoS.
    # Fill up the rest for the sake of visualization
    while t > 0:
        prob = emission[t - 1, blank_id].exp().item()
        path.append(Point(j, t - 1, prob))
        t -= 1

    return path[::-1]


class Segment:
    def __init__(self, label: int, start: int, end: int, score: float):
        self.label = label
        self.start = start
        self.end = end
        self.score = score

    @property
    def length(self) -> int:
        return self.end - self.start


def merge_repeats(path: List[Point]) -> List[Segment]:
    i1, i2 = 0, 0
    segments: List[Segment] = []
    while i1 < len(path):
        while i2 < len(path) and path[i1].token_index == path[i2].token_index:
            i2 += 1
        total = 0.0
        for k in range(i1, i2):
            total += path[k].score
        score = total / (i2 - i1)
        segments.append(
            Segment(
                path[i1].token_index,
                path[i1].time_index,
                path[i2 - 1].time_index + 1,
                score,
            )
        )
        i1 = i2
    return segments


def align(emission: Tensor, tokens: List[int]) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    trellis = get_trellis(emission, tokens)
    path = backtrack(trellis, emission, tokens)
    segments = merge_repeats(path)
    token_index: List[int] = []
    time_index: List[int] = []
    scores: List[float] = []
    for p in path:
        token_index.append(p.token_index)
        time_index.append(p.time_index)
        scores.append(p.score)
    labels: List[int] = []
    starts: List[int] = []
    ends: List[int] = []
    seg_scores: List[float] = []
    for seg in segments:
        labels.append(seg.label)
        starts.append(seg.start)
        ends.append(seg.end)
        seg_scores.append(seg.score)
    return (trellis, torch.tensor(token_index), torch.tensor(time_index), torch.tensor(scores),
            torch.tensor(labels), torch.tensor(starts), torch.tensor(ends), torch.tensor(seg_scores))


def example():
    # A stand-in for Wav2Vec2's log-softmax emission over 12 labels: the
    # transcript's tokens are made likely in turn, so the path is a real one.
    num_frame, num_labels = 60, 12
    tokens = [1, 4, 7, 1, 3, 9, 5, 1]
    logits = torch.randn(num_frame, num_labels)
    for k in range(len(tokens)):
        lo = 2 + k * 7
        logits[lo:lo + 4, tokens[k]] += 4.0
    emission = torch.log_softmax(logits, dim=-1)
    return align, {"emission": emission, "tokens": tokens}
