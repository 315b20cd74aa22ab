"""The greedy CTC decoder of torchaudio's speech recognition tutorial
(GreedyCTCDecoder): argmax per frame, unique_consecutive to merge repeats,
blanks dropped, labels looked up in a list of strings (issue 11's public
programs). It returns the kept label indices and the transcript's length
instead of the joined string, which tssa-stream cannot write as an
output, and with the filtering comprehension written as a loop
(TorchScript has no comprehension ifs)."""
from typing import List, Tuple

import torch


class GreedyCTCDecoder(torch.nn.Module):
    def __init__(self, labels: List[str], blank: int = 0):
        super().__init__()
        self.labels = labels
        self.blank = blank

    def forward(self, emission: torch.Tensor) -> Tuple[List[int], int]:
        """Given a sequence emission over labels, get the best path
        Args:
          emission (Tensor): Logit tensors. Shape `[num_seq, num_label]`.

        Returns:
          List[str]: The resulting transcript
        """
        indices = torch.argmax(emission, dim=-1)  # [num_seq,]
        indices = torch.unique_consecutive(indices, dim=-1)
        kept: List[int] = []
        for i in indices:
            if i != self.blank:
                kept.append(int(i))
        joined = "".join([self.labels[i] for i in kept])
        return kept, len(joined.replace("|", " ").strip().split())


def example():
    labels = ["-", "|", "A", "B", "C", "D", "E"]
    frames = torch.tensor([0, 2, 2, 0, 3, 1, 1, 4, 0, 4, 5, 1, 6, 6, 0])
    emission = torch.randn(15, 7) + 6.0 * torch.nn.functional.one_hot(frames, 7).float()
    return GreedyCTCDecoder(labels), {"emission": emission}
