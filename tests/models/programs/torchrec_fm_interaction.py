"""TorchRec's DeepFM interaction: dense features and the pooled embeddings
of the sparse features go, as one list, through DeepFM (flatten, concatenate,
a Linear+ReLU "deep" tower) and through FactorizationMachine (the FM
second-order term: square of the sum minus sum of squares, halved), and
both are concatenated to the dense features (issue 30's public code).

Origin: pytorch/torchrec, torchrec/modules/deepfm.py, _get_flatten_input,
classes DeepFM and FactorizationMachine (revision
b7f5dd6972c1fcca8cd6762615dec0e51904c90a), and torchrec/models/deepfm.py,
class FMInteractionArch (revision cf492913fb3a4304adf9ef7c04d11b616e66dc09).

Changes:
- FMInteractionArch.forward takes its sparse features as a KeyedTensor (a
  TorchRec class, looked up by feature name); here they are one
  (B, F, D) tensor whose F slices are the features in sparse_feature_names'
  order, and the loop over the names takes slice i for name i (the
  exporter binds only tensor inputs). The names list stays an attribute
  and still drives the loop and the empty-list early return.
- _get_flatten_input's `@torch.fx.wrap` decorator (an FX tracing hint) is
  dropped.
"""
from typing import List

import torch
from torch import nn


def _get_flatten_input(inputs: List[torch.Tensor]) -> torch.Tensor:
    return torch.cat(
        [input.flatten(1) for input in inputs],
        dim=1,
    )


class DeepFM(nn.Module):
    def __init__(
        self,
        dense_module: nn.Module,
    ) -> None:
        super().__init__()
        self.dense_module = dense_module

    def forward(
        self,
        embeddings: List[torch.Tensor],
    ) -> torch.Tensor:
        deepfm_input = _get_flatten_input(embeddings)
        deepfm_output = self.dense_module(deepfm_input)
        return deepfm_output


class FactorizationMachine(nn.Module):
    def __init__(
        self,
    ) -> None:
        super().__init__()

    def forward(
        self,
        embeddings: List[torch.Tensor],
    ) -> torch.Tensor:
        fm_input = _get_flatten_input(embeddings)
        sum_of_input = torch.sum(fm_input, dim=1, keepdim=True)
        sum_of_square = torch.sum(fm_input * fm_input, dim=1, keepdim=True)
        square_of_sum = sum_of_input * sum_of_input
        cross_term = square_of_sum - sum_of_square
        cross_term = torch.sum(cross_term, dim=1, keepdim=True) * 0.5  # [B, 1]
        return cross_term


class FMInteractionArch(nn.Module):
    def __init__(
        self,
        fm_in_features: int,
        sparse_feature_names: List[str],
        deep_fm_dimension: int,
    ) -> None:
        super().__init__()
        self.sparse_feature_names: List[str] = sparse_feature_names
        self.deep_fm = DeepFM(
            dense_module=nn.Sequential(
                nn.Linear(fm_in_features, deep_fm_dimension),
                nn.ReLU(),
            )
        )
        self.fm = FactorizationMachine()

    def forward(
        self, dense_features: torch.Tensor, sparse_features: torch.Tensor
    ) -> torch.Tensor:
        if len(self.sparse_feature_names) == 0:
            return dense_features

        tensor_list: List[torch.Tensor] = [dense_features]
        # dense/sparse interaction
        # tensor_list is a list of tensors with shape [B, D]
        for i, feature_name in enumerate(self.sparse_feature_names):
            tensor_list.append(sparse_features[:, i, :])

        deep_interaction = self.deep_fm(tensor_list)
        fm_interaction = self.fm(tensor_list)

        return torch.cat([dense_features, deep_interaction, fm_interaction], dim=1)


def example():
    batch, dim = 32, 16
    names = ["f1", "f2", "f3", "f4"]
    arch = FMInteractionArch(fm_in_features=dim * (len(names) + 1),
                             sparse_feature_names=names, deep_fm_dimension=24)
    return arch, {"dense_features": torch.randn(batch, dim) * 0.3,
                  "sparse_features": torch.randn(batch, len(names), dim) * 0.3}
