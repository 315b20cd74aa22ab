"""mmdetection's path aggregation neck (PAFPN): an FPN top-down pathway
`laterals[i - 1] += upsampled`, then a bottom-up pathway written in place
on the list of intermediate outputs, `inter_outs[i + 1] +=
downsample(inter_outs[i])`, each level reading the one just updated (issue
30: in-place writes through tensors kept in lists made the loops one opaque
filter). The four backbone levels go through 1x1 lateral convolutions, the
top-down and bottom-up passes, 3x3 output convolutions, and one extra level
from max pooling.

Origin: open-mmlab/mmdetection, mmdet/models/necks/pafpn.py, class PAFPN
(and the FPN.__init__ it extends, mmdet/models/necks/fpn.py), methods
__init__ and forward, revision v2.0.0 (tag, 2020-05-06).

Changes: ConvModule (conv + optional norm/activation, none configured by
default) is a plain nn.Conv2d; the configuration is fixed to the defaults
with in_channels=[4, 8, 16, 32], out_channels=8, num_outs=5, start_level=0,
add_extra_convs=False, so the branches for other configurations are left
out; the list comprehensions over enumerate(self.lateral_convs) and over
range(...) indexing self.fpn_convs, self.downsample_convs and
self.pafpn_convs with a loop variable (which TorchScript cannot do) are
loops over the ModuleLists with a counter; outs.extend([...]) is one append
per level; the result is the five outputs (the original's tuple(outs),
which TorchScript cannot build from a list); @auto_fp16 is dropped.
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class PAFPN(nn.Module):
    def __init__(self, in_channels: List[int], out_channels: int, num_outs: int):
        super().__init__()
        self.in_channels = in_channels
        self.num_ins = len(in_channels)
        self.num_outs = num_outs
        self.start_level = 0
        self.backbone_end_level = self.num_ins
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for i in range(self.start_level, self.backbone_end_level):
            self.lateral_convs.append(nn.Conv2d(in_channels[i], out_channels, 1))
            self.fpn_convs.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))
        # add extra bottom up pathway
        self.downsample_convs = nn.ModuleList()
        self.pafpn_convs = nn.ModuleList()
        for i in range(self.start_level + 1, self.backbone_end_level):
            self.downsample_convs.append(
                nn.Conv2d(out_channels, out_channels, 3, stride=2, padding=1))
            self.pafpn_convs.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))

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
        inter_outs: List[Tensor] = []
        i = 0
        for fpn_conv in self.fpn_convs:
            inter_outs.append(fpn_conv(laterals[i]))
            i += 1

        # part 2: add bottom-up path
        i = 0
        for downsample_conv in self.downsample_convs:
            inter_outs[i + 1] += downsample_conv(inter_outs[i])
            i += 1

        outs: List[Tensor] = []
        outs.append(inter_outs[0])
        i = 1
        for pafpn_conv in self.pafpn_convs:
            outs.append(pafpn_conv(inter_outs[i]))
            i += 1

        # part 3: add extra levels
        if self.num_outs > len(outs):
            # use max pool to get more levels on top of outputs
            # (e.g., Faster R-CNN, Mask R-CNN)
            for i in range(self.num_outs - used_backbone_levels):
                outs.append(F.max_pool2d(outs[-1], 1, stride=2))
        return outs[0], outs[1], outs[2], outs[3], outs[4]


class Neck(nn.Module):
    """The four backbone levels as separate arguments (the corpus binds
    tensors, not lists of them)."""

    def __init__(self):
        super().__init__()
        self.neck = PAFPN([4, 8, 16, 32], 8, 5)

    def forward(self, c2: Tensor, c3: Tensor, c4: Tensor, c5: Tensor):
        return self.neck([c2, c3, c4, c5])


def example():
    neck = Neck().eval()
    return neck, {"c2": torch.randn(1, 4, 16, 16), "c3": torch.randn(1, 8, 8, 8),
                  "c4": torch.randn(1, 16, 4, 4), "c5": torch.randn(1, 32, 2, 2)}
