"""The expected calibration error of a classifier, as the temperature
scaling paper's reference code computes it: softmax confidences and
predictions, then a loop over equal-width confidence bins reading each
bin's bounds with .item(), skipping empty bins by a data-dependent if, and
accumulating |confidence - accuracy| weighted by the bin's share in place
(issue 30's public code).

Origin: gpleiss/temperature_scaling, temperature_scaling.py, class _ECELoss
(__init__ and forward), revision 126a50975e0cd76c0496c44080bcaf7defca42b3.

Changes:
- `zip(self.bin_lowers, self.bin_uppers)` over two tensors becomes a loop
  over the bin index reading `self.bin_lowers[i]` and `self.bin_uppers[i]`
  (TorchScript iterates a tensor but does not zip two); bin_lowers and
  bin_uppers stay plain tensor attributes set in __init__, as written;
- the module also returns the logits scaled by a temperature, as
  ModelWithTemperature.temperature_scale does (`logits /
  temperature.unsqueeze(1).expand(...)`), and the ECE after scaling, since
  set_temperature reports both (its LBFGS optimisation is not ported; the
  temperature is a parameter).
"""
from typing import Tuple

import torch
from torch import nn
from torch.nn import functional as F


class _ECELoss(nn.Module):
    def __init__(self, n_bins: int = 15):
        super(_ECELoss, self).__init__()
        bin_boundaries = torch.linspace(0, 1, n_bins + 1)
        self.bin_lowers = bin_boundaries[:-1]
        self.bin_uppers = bin_boundaries[1:]

    def forward(self, logits, labels):
        softmaxes = F.softmax(logits, dim=1)
        confidences, predictions = torch.max(softmaxes, 1)
        accuracies = predictions.eq(labels)

        ece = torch.zeros(1, device=logits.device)
        for i in range(self.bin_lowers.size(0)):
            bin_lower, bin_upper = self.bin_lowers[i], self.bin_uppers[i]
            # Calculated |confidence - accuracy| in each bin
            in_bin = confidences.gt(bin_lower.item()) * confidences.le(bin_upper.item())
            prop_in_bin = in_bin.float().mean()
            if prop_in_bin.item() > 0:
                accuracy_in_bin = accuracies[in_bin].float().mean()
                avg_confidence_in_bin = confidences[in_bin].mean()
                ece += torch.abs(avg_confidence_in_bin - accuracy_in_bin) * prop_in_bin

        return ece


class CalibrationReport(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1) * 1.5)
        self.ece_criterion = _ECELoss()

    def temperature_scale(self, logits):
        # Expand temperature to match the size of logits
        temperature = self.temperature.unsqueeze(1).expand(logits.size(0), logits.size(1))
        return logits / temperature

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        before = self.ece_criterion(logits, labels)
        after = self.ece_criterion(self.temperature_scale(logits), labels)
        return before, after


def example():
    labels = torch.randint(0, 10, (1000,))
    logits = torch.randn(1000, 10) * 2
    # an over-confident classifier, right 70% of the time
    right = torch.rand(1000) < 0.7
    logits[right, labels[right]] += 4.0
    return CalibrationReport().eval(), {"logits": logits, "labels": labels}
