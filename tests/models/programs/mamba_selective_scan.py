"""Mamba's reference selective scan (mamba_ssm/ops/selective_scan_interface.py,
selective_scan_ref): discretization with einsum, the recurrence over the
sequence, input-dependent B and C (issue 11's public programs). The einops
rearrange/repeat calls of the grouped 4-d B/C path are not scriptable, so
that path is left out, and D broadcasts with [:, None] as rearrange(D,
"d -> d 1") does; the output is always (out, last_state)."""
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F


def selective_scan_ref(u, delta, A, B, C, D: Optional[torch.Tensor] = None, z: Optional[torch.Tensor] = None,
                       delta_bias: Optional[torch.Tensor] = None, delta_softplus: bool = False
                       ) -> Tuple[torch.Tensor, torch.Tensor]:
    """
    u: r(B D L)
    delta: r(B D L)
    A: c(D N) or r(D N)
    B: c(D N) or r(B N L) or r(B N 2L) or r(B G N L) or (B G N L)
    C: c(D N) or r(B N L) or r(B N 2L) or r(B G N L) or (B G N L)
    D: r(D)
    z: r(B D L)
    delta_bias: r(D), fp32

    out: r(B D L)
    last_state (optional): r(B D dstate) or c(B D dstate)
    """
    dtype_in = u.dtype
    u = u.float()
    delta = delta.float()
    if delta_bias is not None:
        delta = delta + delta_bias[..., None].float()
    if delta_softplus:
        delta = F.softplus(delta)
    batch, dim, dstate = u.shape[0], A.shape[0], A.shape[1]
    is_variable_B = B.dim() >= 3
    is_variable_C = C.dim() >= 3
    B = B.float()
    C = C.float()
    x = A.new_zeros((batch, dim, dstate))
    ys: List[torch.Tensor] = []
    deltaA = torch.exp(torch.einsum('bdl,dn->bdln', delta, A))
    if not is_variable_B:
        deltaB_u = torch.einsum('bdl,dn,bdl->bdln', delta, B, u)
    else:
        deltaB_u = torch.einsum('bdl,bnl,bdl->bdln', delta, B, u)
    last_state = x
    for i in range(u.shape[2]):
        x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
        if not is_variable_C:
            y = torch.einsum('bdn,dn->bd', x, C)
        else:
            y = torch.einsum('bdn,bn->bd', x, C[:, :, i])
        if i == u.shape[2] - 1:
            last_state = x
        ys.append(y)
    y = torch.stack(ys, dim=2)  # (batch dim L)
    out = y if D is None else y + u * D[:, None]
    if z is not None:
        out = out * F.silu(z)
    out = out.to(dtype=dtype_in)
    return out, last_state


def scan(u, delta, A, B, C, D, z, delta_bias):
    return selective_scan_ref(u, delta, A, B, C, D, z, delta_bias, True)


def example():
    batch, dim, dstate, length = 2, 4, 3, 6
    return scan, {"u": torch.randn(batch, dim, length), "delta": torch.rand(batch, dim, length),
                  "A": -torch.rand(dim, dstate), "B": torch.randn(batch, dstate, length),
                  "C": torch.randn(batch, dstate, length), "D": torch.randn(dim),
                  "z": torch.randn(batch, dim, length), "delta_bias": torch.rand(dim)}
