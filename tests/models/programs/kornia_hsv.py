"""kornia's RGB <-> HSV colour conversions, run back to back (issue 30's
public code).

Origin: kornia/kornia, kornia/color/hsv.py, functions rgb_to_hsv and
hsv_to_rgb, revision 04840dc5ffc63aade828c454e7f7bc7336b9e8bd. The hue's
channel is chosen by a first-occurrence argmax built from a cumsum of the
equality mask and gathered from a stack; the inverse gathers from an
18-way stack with sector indices from floor and remainder.

Changes:
- the `isinstance(image, torch.Tensor)` checks raising TypeError are
  dropped (the argument is annotated Tensor, so TorchScript knows it is
  one); the shape check raising ValueError is kept, its message's
  `.format(image.shape)` kept as written;
- one entry point, hsv_roundtrip, returns rgb_to_hsv's result and
  hsv_to_rgb of it, so one case checks both functions.
"""
import math
from typing import Tuple

import torch


def rgb_to_hsv(image: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError("Input size must have a shape of (*, 3, H, W). Got {}"
                         .format(image.shape))

    # The first or last occurance is not guarenteed before 1.6.0
    # https://github.com/pytorch/pytorch/issues/20414
    maxc, _ = image.max(-3)
    maxc_mask = image == maxc.unsqueeze(-3)
    _, max_indices = ((maxc_mask.cumsum(-3) == 1) & maxc_mask).max(-3)
    minc: torch.Tensor = image.min(-3)[0]

    v: torch.Tensor = maxc  # brightness

    deltac: torch.Tensor = maxc - minc
    s: torch.Tensor = deltac / (v + eps)

    # avoid division by zero
    deltac = torch.where(
        deltac == 0, torch.ones_like(deltac, device=deltac.device, dtype=deltac.dtype), deltac)

    maxc_tmp = maxc.unsqueeze(-3) - image
    rc: torch.Tensor = maxc_tmp[..., 0, :, :]
    gc: torch.Tensor = maxc_tmp[..., 1, :, :]
    bc: torch.Tensor = maxc_tmp[..., 2, :, :]

    h = torch.stack([
        bc - gc,
        2.0 * deltac + rc - bc,
        4.0 * deltac + gc - rc,
    ], dim=-3)

    h = torch.gather(h, dim=-3, index=max_indices[..., None, :, :])
    h = h.squeeze(-3)
    h = h / deltac

    h = (h / 6.0) % 1.0

    h = 2 * math.pi * h

    return torch.stack([h, s, v], dim=-3)


def hsv_to_rgb(image: torch.Tensor) -> torch.Tensor:
    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError("Input size must have a shape of (*, 3, H, W). Got {}"
                         .format(image.shape))

    h: torch.Tensor = image[..., 0, :, :] / (2 * math.pi)
    s: torch.Tensor = image[..., 1, :, :]
    v: torch.Tensor = image[..., 2, :, :]

    hi: torch.Tensor = torch.floor(h * 6) % 6
    f: torch.Tensor = ((h * 6) % 6) - hi
    one: torch.Tensor = torch.tensor(1.).to(image.device)
    p: torch.Tensor = v * (one - s)
    q: torch.Tensor = v * (one - f * s)
    t: torch.Tensor = v * (one - (one - f) * s)

    hi = hi.long()
    indices: torch.Tensor = torch.stack([hi, hi + 6, hi + 12], dim=-3)
    out = torch.stack((
        v, q, p, p, t, v,
        t, v, v, q, p, p,
        p, p, t, v, v, q,
    ), dim=-3)
    out = torch.gather(out, -3, indices)

    return out


def hsv_roundtrip(image: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    hsv = rgb_to_hsv(image)
    return hsv, hsv_to_rgb(hsv)


def example():
    image = torch.rand(2, 3, 24, 32)
    # grey pixels (deltac == 0) and ties between channels
    image[0, :, :4, :4] = 0.5
    image[1, 1, :3, :] = image[1, 0, :3, :]
    return hsv_roundtrip, {"image": image}
