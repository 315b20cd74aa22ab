"""torchvision's SSD default-box generator (pytorch/vision,
torchvision/models/detection/anchor_utils.py: DBoxGenerator.__init__ and
DBoxGenerator.forward, revision 017c63441e55d90bef39128bbe69bfc2c9bc8f60)
(issue 30's public code).

__init__ estimates the scales between min_ratio and max_ratio and builds
the (w, h) pairs of every feature map; forward walks every cell of every
feature map (loops whose trip counts are the feature maps' shapes),
extends a Python list with one [cx, cy, w, h] per pair, turns it into a
tensor, clamps it, converts to corners and scales x and y by the image size
through strided in-place writes.

Changes:
- forward takes the batch of images as one [N, C, H, W] tensor and the
  feature maps as two tensors (an ImageList is a plain Python class, and
  the command line binds tensors, not lists); the entry point
  `default_boxes` builds the module's list from them;
- `for k, f_k in enumerate(grid_sizes)` over torch.Size objects ->
  `for k in range(len(feature_maps))` with `f_k = feature_maps[k].shape[-2:]`
  (the same values);
- `for _ in image_list.image_sizes` -> `for _ in range(images.size(0))`;
- `default_boxes.extend([[cx, cy, w, h] for w, h in self._wh_pairs[k]])`
  -> a loop appending each [cx, cy, w, h] (TorchScript has no tuple
  unpacking in comprehension targets);
- _wh_pairs is typed List[List[Tuple[float, float]]], steps Optional[List[int]].
"""
import math
from typing import List, Optional, Tuple

import torch
from torch import nn, Tensor


class DBoxGenerator(nn.Module):
    _wh_pairs: List[List[Tuple[float, float]]]
    steps: Optional[List[int]]

    def __init__(self, aspect_ratios: List[List[int]], min_ratio: float = 0.15, max_ratio: float = 0.9,
                 steps: Optional[List[int]] = None, clip: bool = True):
        super().__init__()
        if steps is not None:
            assert len(aspect_ratios) == len(steps)
        self.aspect_ratios = aspect_ratios
        self.steps = steps
        self.clip = clip
        num_outputs = len(aspect_ratios)

        # Estimation of default boxes scales
        # Inspired from https://github.com/weiliu89/caffe/blob/ssd/examples/ssd/ssd_pascal.py#L311-L317
        min_centile = int(100 * min_ratio)
        max_centile = int(100 * max_ratio)
        conv4_centile = min_centile // 2  # assume half of min_ratio as in paper
        step = (max_centile - min_centile) // (num_outputs - 2)
        centiles = [conv4_centile, min_centile]
        for c in range(min_centile, max_centile + 1, step):
            centiles.append(c + step)
        self.scales = [c / 100 for c in centiles]

        self._wh_pairs = []
        for k in range(num_outputs):
            # Adding the 2 default width-height pairs for aspect ratio 1 and scale s'k
            s_k = self.scales[k]
            s_prime_k = math.sqrt(self.scales[k] * self.scales[k + 1])
            wh_pairs = [(s_k, s_k), (s_prime_k, s_prime_k)]

            # Adding 2 pairs for each aspect ratio of the feature map k
            for ar in self.aspect_ratios[k]:
                sq_ar = math.sqrt(ar)
                w = self.scales[k] * sq_ar
                h = self.scales[k] / sq_ar
                wh_pairs.extend([(w, h), (h, w)])

            self._wh_pairs.append(wh_pairs)

    def forward(self, images: Tensor, feature_maps: List[Tensor]) -> List[Tensor]:
        image_size = images.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device

        # Default Boxes calculation based on page 6 of SSD paper
        default_boxes: List[List[float]] = []
        for k in range(len(feature_maps)):
            f_k = feature_maps[k].shape[-2:]
            # Now add the default boxes for each width-height pair
            steps = self.steps
            for j in range(f_k[0]):
                cy = (j + 0.5) / (float(f_k[0]) if steps is None else image_size[1] / steps[k])
                for i in range(f_k[1]):
                    cx = (i + 0.5) / (float(f_k[1]) if steps is None else image_size[0] / steps[k])
                    for wh in self._wh_pairs[k]:
                        w, h = wh
                        default_boxes.append([cx, cy, w, h])

        dboxes = []
        for _ in range(images.size(0)):
            dboxes_in_image = torch.tensor(default_boxes, dtype=dtype, device=device)
            if self.clip:
                dboxes_in_image.clamp_(min=0, max=1)
            dboxes_in_image = torch.cat([dboxes_in_image[:, :2] - 0.5 * dboxes_in_image[:, 2:],
                                         dboxes_in_image[:, :2] + 0.5 * dboxes_in_image[:, 2:]], -1)
            dboxes_in_image[:, 0::2] *= image_size[1]
            dboxes_in_image[:, 1::2] *= image_size[0]
            dboxes.append(dboxes_in_image)
        return dboxes


class DefaultBoxes(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = DBoxGenerator([[2], [2, 3], [2, 3], [2]], steps=[8, 16, 32, 64])

    def forward(self, images: Tensor, feat0: Tensor, feat1: Tensor, feat2: Tensor,
                feat3: Tensor) -> List[Tensor]:
        return self.generator(images, [feat0, feat1, feat2, feat3])


def example():
    # Only the shapes of the images and feature maps are read.
    return DefaultBoxes(), {"images": torch.rand(2, 1, 96, 64),
                            "feat0": torch.rand(2, 1, 12, 8), "feat1": torch.rand(2, 1, 6, 4),
                            "feat2": torch.rand(2, 1, 3, 2), "feat3": torch.rand(2, 1, 2, 1)}
