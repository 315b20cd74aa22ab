"""DeepCTR-Torch's AutoInt: field embeddings looked up per field, then a
stack of InteractingLayers (multi-head self-attention over the fields:
tensordot projections, heads made by split + stack, an einsum score,
softmax, the heads joined by split + cat, a residual projection and ReLU),
each layer keeping its attention scores in an attribute as the original
does (`self.normalized_att_scores = ...`, a prim::SetAttr in forward), and
AutoInt's output head on the flattened fields (issue 30's public code).

Origin: shenweichen/DeepCTR-Torch, deepctr_torch/layers/interaction.py,
class InteractingLayer, revision b4d8181e86c2165722fa9331bc16185832596232;
deepctr_torch/models/autoint.py, AutoInt.forward's attention path
(att_layer_num layers, then `torch.flatten(att_input, start_dim=1)` and
dnn_linear), revision d41a9d1ef05bf0fdedb754f4ed9420e9430d121b.

Changes:
- InteractingLayer.__init__ declares `self.normalized_att_scores =
  torch.zeros(0)` (TorchScript types an attribute from __init__; the
  original creates it in forward), and drops `seed` and `self.to(device)`.
- AutoInt's feature-column machinery (input_from_feature_columns over
  SparseFeat columns) is one nn.Embedding table indexed by field ids
  offset per field (the same lookup, one table); the DNN branch and the
  linear logit are left out (dnn_hidden_units=() and a 0 linear part),
  and the ModuleList of layers is iterated (`for layer in
  self.int_layers`, as the original does).
- the output is sigmoid(dnn_linear(...)) as PredictionLayer('binary')
  computes it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class InteractingLayer(nn.Module):
    def __init__(self, embedding_size, head_num=2, use_res=True, scaling=False):
        super(InteractingLayer, self).__init__()
        if head_num <= 0:
            raise ValueError('head_num must be a int > 0')
        if embedding_size % head_num != 0:
            raise ValueError('embedding_size is not an integer multiple of head_num!')
        self.att_embedding_size = embedding_size // head_num
        self.head_num = head_num
        self.use_res = use_res
        self.scaling = scaling
        self.normalized_att_scores = torch.zeros(0)

        self.W_Query = nn.Parameter(torch.Tensor(embedding_size, embedding_size))
        self.W_key = nn.Parameter(torch.Tensor(embedding_size, embedding_size))
        self.W_Value = nn.Parameter(torch.Tensor(embedding_size, embedding_size))

        if self.use_res:
            self.W_Res = nn.Parameter(torch.Tensor(embedding_size, embedding_size))
        for tensor in self.parameters():
            nn.init.normal_(tensor, mean=0.0, std=0.05)

    def forward(self, inputs):

        if len(inputs.shape) != 3:
            raise ValueError(
                "Unexpected inputs dimensions %d, expect to be 3 dimensions" % (len(inputs.shape)))

        # None F D
        querys = torch.tensordot(inputs, self.W_Query, dims=([-1], [0]))
        keys = torch.tensordot(inputs, self.W_key, dims=([-1], [0]))
        values = torch.tensordot(inputs, self.W_Value, dims=([-1], [0]))

        # head_num None F D/head_num
        querys = torch.stack(torch.split(querys, self.att_embedding_size, dim=2))
        keys = torch.stack(torch.split(keys, self.att_embedding_size, dim=2))
        values = torch.stack(torch.split(values, self.att_embedding_size, dim=2))

        inner_product = torch.einsum('bnik,bnjk->bnij', querys, keys)  # head_num None F F
        if self.scaling:
            inner_product /= self.att_embedding_size ** 0.5
        self.normalized_att_scores = F.softmax(inner_product, dim=-1)  # head_num None F F
        result = torch.matmul(self.normalized_att_scores, values)  # head_num None F D/head_num

        result = torch.cat(torch.split(result, 1, ), dim=-1)
        result = torch.squeeze(result, dim=0)  # None F D
        if self.use_res:
            result += torch.tensordot(inputs, self.W_Res, dims=([-1], [0]))
        result = F.relu(result)

        return result


class AutoInt(nn.Module):
    def __init__(self, field_sizes, embedding_size=8, att_layer_num=3, att_head_num=2,
                 att_res=True):
        super(AutoInt, self).__init__()
        offsets = [0]
        for size in field_sizes[:-1]:
            offsets.append(offsets[-1] + size)
        self.register_buffer("field_offsets", torch.tensor(offsets))
        self.embedding = nn.Embedding(sum(field_sizes), embedding_size)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=0.1)
        self.int_layers = nn.ModuleList(
            [InteractingLayer(embedding_size, att_head_num, att_res, scaling=True)
             for _ in range(att_layer_num)])
        self.dnn_linear = nn.Linear(len(field_sizes) * embedding_size, 1, bias=False)

    def forward(self, X):
        att_input = self.embedding(X + self.field_offsets)  # None F D
        for layer in self.int_layers:
            att_input = layer(att_input)
        att_output = torch.flatten(att_input, start_dim=1)
        logit = self.dnn_linear(att_output)
        return torch.sigmoid(logit)


def example():
    sizes = [10, 7, 12, 5, 9, 6]
    model = AutoInt(sizes, embedding_size=16, att_layer_num=3, att_head_num=2)
    X = torch.stack([torch.randint(0, s, (128,)) for s in sizes], dim=1)
    return model, {"X": X}
