"""torchvision's AnchorGenerator with its anchor cache (pytorch/vision,
torchvision/models/detection/anchor_utils.py: AnchorGenerator, revision
017c63441e55d90bef39128bbe69bfc2c9bc8f60), as RetinaNet and Faster R-CNN
call it on an image batch and two feature maps (issue 30's public code).

forward builds the stride tensors per feature map, sets the cell anchors
in the module (prim::SetAttr on an Optional[List[Tensor]] attribute unless
already set for the device), looks the grid anchors up in a dict cache
keyed by str() of the grid sizes and strides, fills the cache, copies the
per-level anchors for every image and clears the cache again.

Changes:
- forward takes the batch tensor, the image sizes and the two feature maps
  (`images`, `image_heights`, `f0`, `f1`) where the original takes an
  ImageList and List[Tensor]: `image_list.tensors` is `images`,
  `feature_maps` is `[f0, f1]`, and `image_list.image_sizes` (a
  List[Tuple[int, int]], of which forward reads only the length) is
  `image_heights`, a List[int] (the command line binds flat lists only);
- the cache key concatenates str() of the grid sizes and of the strides'
  values (`[[int(s) for s in ss] for ss in strides]`): str() of a tensor
  prints its value and dtype in PyTorch, a text tssa-stream does not
  reproduce; the key's role (equal inputs, equal key) is kept;
- `assert` statements are kept; the ValueError's message is shortened.
"""
from typing import Dict, List, Optional

import torch
from torch import nn, Tensor


class AnchorGenerator(nn.Module):
    __annotations__ = {
        "cell_anchors": Optional[List[torch.Tensor]],
        "_cache": Dict[str, List[torch.Tensor]],
    }

    def __init__(self, sizes=((32,), (64,)), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        if len(aspect_ratios) == 1 and len(sizes) > 1:
            aspect_ratios = aspect_ratios * len(sizes)
        assert len(sizes) == len(aspect_ratios)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = None
        self._cache = {}

    def generate_anchors(self, scales: List[int], aspect_ratios: List[float],
                         dtype: torch.dtype = torch.float32,
                         device: torch.device = torch.device("cpu")):
        scales = torch.as_tensor(scales, dtype=dtype, device=device)
        aspect_ratios = torch.as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratios = torch.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        base_anchors = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
        return base_anchors.round()

    def set_cell_anchors(self, dtype: torch.dtype, device: torch.device):
        if self.cell_anchors is not None:
            cell_anchors = self.cell_anchors
            assert cell_anchors is not None
            if cell_anchors[0].device == device:
                return
        cell_anchors = [
            self.generate_anchors(sizes, aspect_ratios, dtype, device)
            for sizes, aspect_ratios in zip(self.sizes, self.aspect_ratios)
        ]
        self.cell_anchors = cell_anchors

    def grid_anchors(self, grid_sizes: List[List[int]], strides: List[List[Tensor]]) -> List[Tensor]:
        anchors = []
        cell_anchors = self.cell_anchors
        assert cell_anchors is not None
        if not (len(grid_sizes) == len(strides) == len(cell_anchors)):
            raise ValueError("Anchors should be Tuple[Tuple[int]]: one per feature map")
        for size, stride, base_anchors in zip(grid_sizes, strides, cell_anchors):
            grid_height, grid_width = size
            stride_height, stride_width = stride
            device = base_anchors.device
            shifts_x = torch.arange(0, grid_width, dtype=torch.float32, device=device) * stride_width
            shifts_y = torch.arange(0, grid_height, dtype=torch.float32, device=device) * stride_height
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x)
            shift_x = shift_x.reshape(-1)
            shift_y = shift_y.reshape(-1)
            shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base_anchors.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def cached_grid_anchors(self, grid_sizes: List[List[int]], strides: List[List[Tensor]]) -> List[Tensor]:
        key = str(grid_sizes) + str([[int(s) for s in ss] for ss in strides])
        if key in self._cache:
            return self._cache[key]
        anchors = self.grid_anchors(grid_sizes, strides)
        self._cache[key] = anchors
        return anchors

    def forward(self, images, image_heights: List[int], f0, f1) -> List[Tensor]:
        feature_maps = [f0, f1]
        grid_sizes = list([feature_map.shape[-2:] for feature_map in feature_maps])
        image_size = images.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        strides = [[torch.tensor(image_size[0] // g[0], dtype=torch.int64, device=device),
                    torch.tensor(image_size[1] // g[1], dtype=torch.int64, device=device)] for g in grid_sizes]
        self.set_cell_anchors(dtype, device)
        anchors_over_all_feature_maps = self.cached_grid_anchors(grid_sizes, strides)
        anchors: List[List[torch.Tensor]] = []
        for i in range(len(image_heights)):
            anchors_in_image = [anchors_per_feature_map for anchors_per_feature_map in anchors_over_all_feature_maps]
            anchors.append(anchors_in_image)
        anchors = [torch.cat(anchors_per_image) for anchors_per_image in anchors]
        self._cache.clear()
        return anchors


def example():
    return AnchorGenerator(), {"images": torch.randn(2, 3, 64, 48), "image_heights": [64, 60],
                               "f0": torch.randn(2, 4, 8, 6), "f1": torch.randn(2, 4, 4, 3)}
