"""mmdetection's feature pyramid neck (FPN) with its top-down pathway written
in place on the list of lateral features, `laterals[i - 1] += upsampled`
(issue 30: "an index_put_ on a tensor kept in a list" and in-place writes
through list elements made one opaque filter of the loop). The laterals are
1x1 convolutions of four backbone levels, each level's lateral is updated in
place with the nearest upsampling of the level above, the outputs are 3x3
convolutions of the updated laterals, and one extra level comes from max
pooling the last output.

Origin: open-mmlab/mmdetection, mmdet/models/necks/fpn.py, class FPN,
methods __init__ and forward, revision v2.0.0 (tag, 2020-05-06), where the
top-down path is still `laterals[i - 1] += F.interpolate(laterals[i],
size=prev_shape, **self.upsample_cfg)` (later revisions write
`laterals[i - 1] = laterals[i - 1] + ...` to avoid that in-place op).

Changes: ConvModule (conv + optional norm/activation, none configured by
default) is a plain nn.Conv2d; the configuration is fixed to the defaults
with in_channels=[4, 8, 16, 32], out_channels=8, num_outs=5, start_level=0,
end_level=-1, add_extra_convs=False, upsample_cfg=dict(mode='nearest'), so
the branches for other configurations (extra convs, relu before extra convs,
start/end levels) are left out; `**self.upsample_cfg` is written out as
mode="nearest"; the list comprehensions over enumerate(self.lateral_convs)
and range(used_backbone_levels) are loops over the ModuleLists (TorchScript
cannot index a ModuleList with a loop variable); the result is the five outputs (the
original's tuple(outs), which TorchScript cannot build from a list).
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class FPN(nn.Module):
    def __init__(self, in_channels: List[int], out_channels: int, num_outs: int):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.num_ins = len(in_channels)
        self.num_outs = num_outs
        self.start_level = 0
        self.backbone_end_level = self.num_ins
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for i in range(self.start_level, self.backbone_end_level):
            self.lateral_convs.append(nn.Conv2d(in_channels[i], out_channels, 1))
            self.fpn_convs.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))

    def forward(self, inputs: List[Tensor]):
        assert len(inputs) == len(self.in_channels)

        # build laterals
        laterals: List[Tensor] = []
        i = 0
        for lateral_conv in self.lateral_convs:
            laterals.append(lateral_conv(inputs[i + self.start_level]))
            i += 1

        # build top-down path
        used_backbone_levels = len(laterals)
        for i in range(used_backbone_levels - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode="nearest")

        # build outputs
        # part 1: from original levels
        outs: List[Tensor] = []
        i = 0
        for fpn_conv in self.fpn_convs:
            outs.append(fpn_conv(laterals[i]))
            i += 1
        # part 2: add extra levels
        if self.num_outs > len(outs):
            for i in range(self.num_outs - used_backbone_levels):
                outs.append(F.max_pool2d(outs[-1], 1, stride=2))
        return outs[0], outs[1], outs[2], outs[3], outs[4]


class Neck(nn.Module):
    """The four backbone levels as separate arguments (the corpus binds
    tensors, not lists of them)."""

    def __init__(self):
        super().__init__()
        self.fpn = FPN([4, 8, 16, 32], 8, 5)

    def forward(self, c2: Tensor, c3: Tensor, c4: Tensor, c5: Tensor):
        return self.fpn([c2, c3, c4, c5])


def example():
    neck = Neck().eval()
    return neck, {"c2": torch.randn(1, 4, 16, 16), "c3": torch.randn(1, 8, 8, 8),
                  "c4": torch.randn(1, 16, 4, 4), "c5": torch.randn(1, 32, 2, 2)}
