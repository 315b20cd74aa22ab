"""pytorch-crf's CRF._viterbi_decode (torchcrf/__init__.py): the Viterbi
recursion over time with a mask, a history of best previous tags, and the
backtrace per sequence into Python lists (issue 11's public programs).
Written for TorchScript as the original is, but for `reversed()` (not
scriptable): the backtrace walks the history by index."""
from typing import List

import torch
from torch import nn


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.end_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))

    def forward(self, emissions: torch.Tensor, mask: torch.Tensor) -> List[List[int]]:
        # emissions: (seq_length, batch_size, num_tags)
        # mask: (seq_length, batch_size)
        seq_length, batch_size = mask.shape

        # Start transition and first emission
        # shape: (batch_size, num_tags)
        score = self.start_transitions + emissions[0]
        history: List[torch.Tensor] = []

        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emission = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emission
            next_score, indices = next_score.max(dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
            history.append(indices)

        # End transition score
        score += self.end_transitions

        # Now, compute the best path for each sample
        seq_ends = mask.long().sum(dim=0) - 1
        best_tags_list: List[List[int]] = []

        for idx in range(batch_size):
            # Find the tag which maximizes the score at the last timestep
            _, best_last_tag = score[idx].max(dim=0)
            best_tags = [int(best_last_tag.item())]

            # Trace back where the best last tag comes from
            hist_list = history[:int(seq_ends[idx])]
            for k in range(len(hist_list) - 1, -1, -1):
                hist = hist_list[k]
                best_last_tag = hist[idx][best_tags[-1]]
                best_tags.append(int(best_last_tag.item()))

            best_tags.reverse()
            best_tags_list.append(best_tags)

        return best_tags_list


def example():
    mask = torch.tensor([[True, True], [True, True], [True, True], [True, False], [True, False]])
    return CRF(4), {"emissions": torch.randn(5, 2, 4), "mask": mask}
