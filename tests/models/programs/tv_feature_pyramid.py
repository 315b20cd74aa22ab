"""torchvision's FeaturePyramidNetwork with its LastLevelMaxPool block
(torchvision 0.14, torchvision/ops/feature_pyramid_network.py), fed a
feature pyramid as torchvision's detection backbones hand it over: an
OrderedDict of named levels, a graph input of type Dict[str, Tensor]
(bound as `x={feat0:...,feat1:...}`). Issue 30's unseen-code check: before,
export.py refused a Dict[str, Tensor] input.

It exercises module lists indexed by a run-time-free loop
(get_result_from_inner_blocks walks `for i, module in enumerate(...)`
until `i == idx`), F.interpolate to a size read from a tensor's shape,
dict keys and values read back as lists, and a max-pool extra level.

Changes: Conv2dNormActivation is replaced by the plain nn.Conv2d it is
with norm_layer=None and no activation (torchvision builds it so here);
the output OrderedDict is returned as a list of its values (tssa-stream
writes tensors, not dicts); _load_from_state_dict (checkpoint
compatibility) and the weight init's kaiming_uniform_ (the example seeds
the default init) are left out."""
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ExtraFPNBlock(nn.Module):
    def forward(self, results: List[Tensor], x: List[Tensor],
                names: List[str]) -> Tuple[List[Tensor], List[str]]:
        pass


class LastLevelMaxPool(ExtraFPNBlock):
    def forward(self, x: List[Tensor], y: List[Tensor], names: List[str]) -> Tuple[List[Tensor], List[str]]:
        names.append("pool")
        x.append(F.max_pool2d(x[-1], 1, 2, 0))
        return x, names


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels_list: List[int], out_channels: int,
                 extra_blocks: Optional[ExtraFPNBlock] = None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(nn.Conv2d(in_channels, out_channels, kernel_size=1, padding=0))
            self.layer_blocks.append(nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1))
        self.extra_blocks = extra_blocks

    def get_result_from_inner_blocks(self, x: Tensor, idx: int) -> Tensor:
        num_blocks = len(self.inner_blocks)
        if idx < 0:
            idx += num_blocks
        out = x
        for i, module in enumerate(self.inner_blocks):
            if i == idx:
                out = module(x)
        return out

    def get_result_from_layer_blocks(self, x: Tensor, idx: int) -> Tensor:
        num_blocks = len(self.layer_blocks)
        if idx < 0:
            idx += num_blocks
        out = x
        for i, module in enumerate(self.layer_blocks):
            if i == idx:
                out = module(x)
        return out

    def forward(self, x: Dict[str, Tensor]) -> List[Tensor]:
        names = list(x.keys())
        x = list(x.values())

        last_inner = self.get_result_from_inner_blocks(x[-1], -1)
        results = []
        results.append(self.get_result_from_layer_blocks(last_inner, -1))

        for idx in range(len(x) - 2, -1, -1):
            inner_lateral = self.get_result_from_inner_blocks(x[idx], idx)
            feat_shape = inner_lateral.shape[-2:]
            inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            last_inner = inner_lateral + inner_top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))

        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, x, names)

        # make it back an OrderedDict (here: its values, in order)
        out = OrderedDict([(k, v) for k, v in zip(names, results)])
        return list(out.values())


def example():
    torch.manual_seed(0)
    m = FeaturePyramidNetwork([8, 16, 32], 8, extra_blocks=LastLevelMaxPool())
    m.eval()
    x = OrderedDict()
    x["feat0"] = torch.rand(1, 8, 32, 32)
    x["feat2"] = torch.rand(1, 16, 16, 16)
    x["feat3"] = torch.rand(1, 32, 8, 8)
    return m, {"x": x}
