"""Objects of TorchScript classes held by a module directly in its list,
dict and tuple attributes (TorchScript types them BoxCoder[],
Dict(str, BoxCoder), (BoxCoder, int)): the exporter writes each container as
JSON with {"__object__": "coders.1"} for an object and the object's
attributes under that path; the graph reaches them through
aten::__getitem__ in a loop, a dict lookup and prim::TupleIndex. One
object appears twice (in the list and in the dict), as a detector that
shares one coder between heads would hold it; it is written under both
paths. The per-level coder weights follow torchvision's RoIHeads (10, 10,
5, 5) doubled per level, as cascade heads do."""
from typing import Dict, List, Tuple

import torch
from torch import Tensor


class LevelCoder:
    def __init__(self, weights: Tuple[float, float], clip: float) -> None:
        self.weights = weights
        self.clip = clip

    def decode_shift(self, deltas: Tensor, sizes: Tensor) -> Tensor:
        wx, ww = self.weights
        shift = deltas[:, 0] / wx * sizes
        scale = torch.exp(torch.clamp(deltas[:, 1] / ww, max=self.clip)) * sizes
        return torch.stack((shift, scale), dim=1)


class MultiLevelDecoder(torch.nn.Module):
    coders: List[LevelCoder]
    by_name: Dict[str, LevelCoder]

    def __init__(self):
        super().__init__()
        self.coders = [LevelCoder((10.0, 5.0), 4.0), LevelCoder((20.0, 10.0), 2.0),
                       LevelCoder((40.0, 20.0), 1.0)]
        self.by_name = {"fine": self.coders[0], "coarse": LevelCoder((80.0, 40.0), 0.5)}
        self.fallback = (LevelCoder((1.0, 1.0), 8.0), 3)

    def forward(self, deltas, sizes):
        outs: List[Tensor] = []
        for level, coder in enumerate(self.coders):
            outs.append(coder.decode_shift(deltas[level], sizes))
        fine = self.by_name["fine"].decode_shift(deltas[0], sizes)
        coarse = self.by_name["coarse"].decode_shift(deltas[1], sizes)
        fallback_coder, repeats = self.fallback
        extra = fallback_coder.decode_shift(deltas[2], sizes) * float(repeats)
        return torch.stack(outs), fine, coarse, extra


def example():
    deltas = torch.randn(3, 5, 2) * 4.0
    return MultiLevelDecoder(), {"deltas": deltas, "sizes": torch.rand(5) * 16.0 + 1.0}
