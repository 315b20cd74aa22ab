"""DeepCTR-Torch's Compressed Interaction Network (xDeepFM's CIN): each layer
takes the outer product of the last hidden feature maps with the input
fields per embedding dimension (einsum 'bhd,bmd->bhmd'), compresses it with
a 1x1 Conv1d, applies the activation and, with split_half, sends half the
maps to the next layer and half to the output; the outputs of every layer
are concatenated and summed over the embedding dimension (issue 30's public
code).

Origin: shenweichen/DeepCTR-Torch, deepctr_torch/layers/interaction.py,
class CIN (__init__ and forward), revision
05b52820691e10987ae7cc1aefc48e10c7ea0983.

Changes:
- `self.activation = activation` (a Python function held as an attribute,
  which TorchScript cannot hold) is dropped and forward calls F.relu, the
  default activation; l2_reg, seed and device (unused by forward; device
  only moves the module) are not kept;
- `self.conv1ds[i](x)` (TorchScript indexes a ModuleList only by literal)
  -> `for i, conv in enumerate(self.conv1ds)` with `size =
  self.layer_size[i]`, the same pairs as `enumerate(self.layer_size)`;
- the last layer's `next_hidden = 0` (an int in a list of tensors, never
  read) is not appended: TorchScript's List[Tensor] holds no int;
- the constructor's layer_size default `(128, 128)` is the list
  `[128, 128]` and typed List[int] (the examples pass lists), its
  activation, l2_reg, seed and device parameters dropped with the
  attributes above (and `self.to(device)`).
"""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class CIN(nn.Module):
    def __init__(self, field_nums: int, layer_size: List[int] = [128, 128], split_half: bool = True):
        super(CIN, self).__init__()
        if len(layer_size) == 0:
            raise ValueError(
                "layer_size must be a list(tuple) of length greater than 1")

        self.layer_size = layer_size
        self.field_nums = [field_nums]
        self.split_half = split_half

        self.conv1ds = nn.ModuleList()
        for i, size in enumerate(self.layer_size):
            self.conv1ds.append(
                nn.Conv1d(self.field_nums[-1] * self.field_nums[0], size, 1))

            if self.split_half:
                if i != len(self.layer_size) - 1 and size % 2 > 0:
                    raise ValueError(
                        "layer_size must be even number except for the last layer when split_half=True")

                self.field_nums.append(size // 2)
            else:
                self.field_nums.append(size)

    def forward(self, inputs: Tensor) -> Tensor:
        if len(inputs.shape) != 3:
            raise ValueError(
                "Unexpected inputs dimensions %d, expect to be 3 dimensions" % (len(inputs.shape)))
        batch_size = inputs.shape[0]
        dim = inputs.shape[-1]
        hidden_nn_layers = [inputs]
        final_result: List[Tensor] = []

        for i, conv in enumerate(self.conv1ds):
            size = self.layer_size[i]
            # x^(k-1) * x^0
            x = torch.einsum(
                'bhd,bmd->bhmd', hidden_nn_layers[-1], hidden_nn_layers[0])
            # x.shape = (batch_size , hi * m, dim)
            x = x.reshape(
                batch_size, hidden_nn_layers[-1].shape[1] * hidden_nn_layers[0].shape[1], dim)
            # x.shape = (batch_size , hi, dim)
            x = conv(x)
            curr_out = F.relu(x)

            if self.split_half:
                if i != len(self.layer_size) - 1:
                    next_hidden, direct_connect = torch.split(
                        curr_out, 2 * [size // 2], 1)
                    hidden_nn_layers.append(next_hidden)
                else:
                    direct_connect = curr_out
            else:
                direct_connect = curr_out
                hidden_nn_layers.append(curr_out)

            final_result.append(direct_connect)

        result = torch.cat(final_result, dim=1)
        result = torch.sum(result, -1)

        return result


class CINPair(nn.Module):
    """The split_half CIN xDeepFM builds by default and one without split."""

    def __init__(self, field_nums: int):
        super().__init__()
        self.cin = CIN(field_nums, [32, 32, 16], split_half=True)
        self.cin_full = CIN(field_nums, [16, 8], split_half=False)

    def forward(self, inputs: Tensor):
        return self.cin(inputs), self.cin_full(inputs)


def example():
    return CINPair(10).eval(), {"inputs": torch.randn(32, 10, 8)}
