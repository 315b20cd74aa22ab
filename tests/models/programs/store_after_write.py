"""Tensors written in place and only then put into a list (issue 30): the
stride tensors of torchvision's AnchorGenerator.forward (revision v0.14,
`torch.empty((), dtype=torch.int64).fill_(image_size[0] // g[0])` in a
list comprehension), a padded buffer filled through a slice and then cut
into windows kept in a list, as torchaudio's lfilter pads a waveform, and
a tensor updated by a loop and stored after it. Each store comes after
the write and is not inside a loop around it that the tensor was made
outside of, so the list holds the written version: TensorSSA gives the
store the new version (functionalize/alias.c) and nothing stays
imperative. A write after a store would be seen through the list; the
list_element_* cases keep those imperative."""
from typing import List

import torch


def store_after_write(image, f0, f1, wave, n_order: int):
    grid_sizes = [f0.shape[-2:], f1.shape[-2:]]
    image_size = image.shape[-2:]
    strides = [
        [
            torch.empty((), dtype=torch.int64).fill_(image_size[0] // g[0]),
            torch.empty((), dtype=torch.int64).fill_(image_size[1] // g[1]),
        ]
        for g in grid_sizes
    ]
    flat = torch.stack([torch.stack(s) for s in strides])
    n = wave.size(1)
    padded = torch.zeros(wave.size(0), n + n_order - 1)
    padded[:, n_order - 1:] = wave
    windows = [padded[:, i:i + n_order] for i in range(n)]
    framed = torch.stack(windows, 1).sum(-1)
    acc = wave * 0.5
    for k in range(3):
        acc.mul_(1.5).add_(wave)
    kept: List[torch.Tensor] = [acc, padded]
    return flat, framed, torch.cat(kept, 1)


def example():
    return store_after_write, {"image": torch.randn(1, 3, 32, 24), "f0": torch.randn(1, 4, 8, 6),
                               "f1": torch.randn(1, 4, 4, 3), "wave": torch.randn(2, 12), "n_order": 3}
