"""DeepCTR-Torch's interest layers of DIN and DIEN: the attentional sequence
pooling of DIN (a local activation unit, an MLP with Dice activations over
[query, key, query - key, query * key], scores masked by each user's
behaviour length and softmax-normalized, then a weighted sum of the keys)
and DIEN's interest evolution, a GRU with an attentional update gate
(AUGRU) run over a packed sequence: one step per time, each on the batch's
first batch_sizes[t] rows, written into the packed output by slices whose
bounds the data decides (issue 30's public code).

Origin: shenweichen/DeepCTR-Torch:
deepctr_torch/layers/sequence.py, AttentionSequencePoolingLayer, AUGRUCell
and DynamicGRU (revision 7121d8fe8001c5166368b36e441f72a6591ebb0c);
deepctr_torch/layers/core.py, LocalActivationUnit and DNN (revision
bb29fb162934a3277a604e52b862b26278fad073); deepctr_torch/layers/
activation.py, Dice and activation_layer (revision
7121d8fe8001c5166368b36e441f72a6591ebb0c).

Changes:
- DNN.forward: `self.linears[i](...)` and `self.activation_layers[i](...)`
  (TorchScript indexes a ModuleList only by literal) -> a loop over
  `zip(self.linears, self.activation_layers)`; its `if self.use_bn:
  fc = self.bn[i](fc)` is dropped (use_bn is False here, and TorchScript
  compiles the branch, which reads `self.bn`, an attribute that then does
  not exist); dropout stays (eval mode), as `nn.Dropout(float(dropout_rate))`:
  the callers' `dropout_rate=0` is an int, which TorchScript refuses as
  F.dropout's float p;
- activation_layer keeps only the branches this program takes ('dice',
  'sigmoid'; it runs in __init__, outside TorchScript);
- DynamicGRU.forward takes the packed sequences' data and batch_sizes as
  tensors and returns the packed output's data (the isinstance checks on
  PackedSequence, a NamedTuple the command line cannot bind, are
  dropped); `for batch in batch_sizes` iterates 0-d tensors, so the step
  takes `batch = int(batch_t)` (TorchScript slices with ints only, and
  `begin += batch` would make the int begin a tensor); hx is typed
  Optional[Tensor];
- AUGRUCell's weights are initialized (normal, std 0.1) by the example:
  the original leaves `torch.Tensor(3 * hidden_size, ...)` uninitialized
  until training; its `self.register_parameter('bias_ih', self.bias_hh)`
  (which makes bias_ih and bias_hh one tensor) is kept as written;
- AttentionSequencePoolingLayer.forward's `mask=None` is typed
  Optional[Tensor] (TorchScript types an unannotated default None as
  NoneType), and the entry point passes it as None, the DIN/DIEN models'
  default (supports_masking False).
"""
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class Dice(nn.Module):
    def __init__(self, emb_size: int, dim: int = 2, epsilon: float = 1e-8):
        super(Dice, self).__init__()
        assert dim == 2 or dim == 3

        self.bn = nn.BatchNorm1d(emb_size, eps=epsilon)
        self.sigmoid = nn.Sigmoid()
        self.dim = dim

        # wrap alpha in nn.Parameter to make it trainable
        if self.dim == 2:
            self.alpha = nn.Parameter(torch.zeros((emb_size,)))
        else:
            self.alpha = nn.Parameter(torch.zeros((emb_size, 1)))

    def forward(self, x: Tensor) -> Tensor:
        assert x.dim() == self.dim
        if self.dim == 2:
            x_p = self.sigmoid(self.bn(x))
            out = self.alpha * (1 - x_p) * x + x_p * x
        else:
            x = torch.transpose(x, 1, 2)
            x_p = self.sigmoid(self.bn(x))
            out = self.alpha * (1 - x_p) * x + x_p * x
            out = torch.transpose(out, 1, 2)
        return out


def activation_layer(act_name, hidden_size=None, dice_dim=2):
    if act_name.lower() == 'sigmoid':
        act_layer = nn.Sigmoid()
    elif act_name.lower() == 'dice':
        assert dice_dim
        act_layer = Dice(hidden_size, dice_dim)
    else:
        raise NotImplementedError
    return act_layer


class DNN(nn.Module):
    def __init__(self, inputs_dim, hidden_units, activation='relu', l2_reg=0, dropout_rate=0, use_bn=False,
                 init_std=0.0001, dice_dim=3, seed=1024):
        super(DNN, self).__init__()
        self.dropout_rate = dropout_rate
        self.dropout = nn.Dropout(float(dropout_rate))
        self.seed = seed
        self.l2_reg = l2_reg
        self.use_bn = use_bn
        if len(hidden_units) == 0:
            raise ValueError("hidden_units is empty!!")
        hidden_units = [inputs_dim] + list(hidden_units)

        self.linears = nn.ModuleList(
            [nn.Linear(hidden_units[i], hidden_units[i + 1]) for i in range(len(hidden_units) - 1)])

        self.activation_layers = nn.ModuleList(
            [activation_layer(activation, hidden_units[i + 1], dice_dim) for i in range(len(hidden_units) - 1)])

        for name, tensor in self.linears.named_parameters():
            if 'weight' in name:
                nn.init.normal_(tensor, mean=0, std=init_std)

    def forward(self, inputs: Tensor) -> Tensor:
        deep_input = inputs

        for linear, act in zip(self.linears, self.activation_layers):

            fc = linear(deep_input)

            fc = act(fc)

            fc = self.dropout(fc)
            deep_input = fc
        return deep_input


class LocalActivationUnit(nn.Module):
    def __init__(self, hidden_units=(64, 32), embedding_dim=4, activation='sigmoid', dropout_rate=0, dice_dim=3,
                 l2_reg=0, use_bn=False):
        super(LocalActivationUnit, self).__init__()

        self.dnn = DNN(inputs_dim=4 * embedding_dim,
                       hidden_units=hidden_units,
                       activation=activation,
                       l2_reg=l2_reg,
                       dropout_rate=dropout_rate,
                       dice_dim=dice_dim,
                       use_bn=use_bn)

        self.dense = nn.Linear(hidden_units[-1], 1)

    def forward(self, query: Tensor, user_behavior: Tensor) -> Tensor:
        # query ad            : size -> batch_size * 1 * embedding_size
        # user behavior       : size -> batch_size * time_seq_len * embedding_size
        user_behavior_len = user_behavior.size(1)

        queries = query.expand(-1, user_behavior_len, -1)

        attention_input = torch.cat([queries, user_behavior, queries - user_behavior, queries * user_behavior], dim=-1)   # as the source code, subtraction simulates verctors' difference
        attention_output = self.dnn(attention_input)

        attention_score = self.dense(attention_output)    # [B, T, 1]

        return attention_score


class AttentionSequencePoolingLayer(nn.Module):
    def __init__(self, att_hidden_units=(80, 40), att_activation='sigmoid', weight_normalization=False,
                 return_score=False, supports_masking=False, embedding_dim=4, **kwargs):
        super(AttentionSequencePoolingLayer, self).__init__()
        self.return_score = return_score
        self.weight_normalization = weight_normalization
        self.supports_masking = supports_masking
        self.local_att = LocalActivationUnit(hidden_units=att_hidden_units, embedding_dim=embedding_dim,
                                             activation=att_activation,
                                             dropout_rate=0, use_bn=False)

    def forward(self, query: Tensor, keys: Tensor, keys_length: Tensor, mask: Optional[Tensor] = None) -> Tensor:
        batch_size, max_length, _ = keys.size()

        # Mask
        if self.supports_masking:
            if mask is None:
                raise ValueError("When supports_masking=True,input must support masking")
            keys_masks = mask.unsqueeze(1)
        else:
            keys_masks = torch.arange(max_length, device=keys_length.device, dtype=keys_length.dtype).repeat(batch_size,
                                                                                                             1)  # [B, T]
            keys_masks = keys_masks < keys_length.view(-1, 1)  # 0, 1 mask
            keys_masks = keys_masks.unsqueeze(1)  # [B, 1, T]

        attention_score = self.local_att(query, keys)  # [B, T, 1]

        outputs = torch.transpose(attention_score, 1, 2)  # [B, 1, T]

        if self.weight_normalization:
            paddings = torch.ones_like(outputs) * (-2 ** 32 + 1)
        else:
            paddings = torch.zeros_like(outputs)

        outputs = torch.where(keys_masks, outputs, paddings)  # [B, 1, T]

        # Scale
        # outputs = outputs / (keys.shape[-1] ** 0.05)

        if self.weight_normalization:
            outputs = F.softmax(outputs, dim=-1)  # [B, 1, T]

        if not self.return_score:
            # Weighted sum
            outputs = torch.matmul(outputs, keys)  # [B, 1, E]

        return outputs


class AUGRUCell(nn.Module):
    def __init__(self, input_size, hidden_size, bias=True):
        super(AUGRUCell, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        # (W_ir|W_iz|W_ih)
        self.weight_ih = nn.Parameter(torch.Tensor(3 * hidden_size, input_size))
        self.register_parameter('weight_ih', self.weight_ih)
        # (W_hr|W_hz|W_hh)
        self.weight_hh = nn.Parameter(torch.Tensor(3 * hidden_size, hidden_size))
        self.register_parameter('weight_hh', self.weight_hh)
        if bias:
            # (b_ir|b_iz|b_ih)
            self.bias_ih = nn.Parameter(torch.Tensor(3 * hidden_size))
            self.register_parameter('bias_ih', self.bias_ih)
            # (b_hr|b_hz|b_hh)
            self.bias_hh = nn.Parameter(torch.Tensor(3 * hidden_size))
            self.register_parameter('bias_ih', self.bias_hh)
            for tensor in [self.bias_ih, self.bias_hh]:
                nn.init.zeros_(tensor, )
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)

    def forward(self, inputs: Tensor, hx: Tensor, att_score: Tensor) -> Tensor:
        gi = F.linear(inputs, self.weight_ih, self.bias_ih)
        gh = F.linear(hx, self.weight_hh, self.bias_hh)
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)

        reset_gate = torch.sigmoid(i_r + h_r)
        update_gate = torch.sigmoid(i_z + h_z)
        new_state = torch.tanh(i_n + reset_gate * h_n)

        att_score = att_score.view(-1, 1)
        update_gate = att_score * update_gate
        hy = (1. - update_gate) * hx + update_gate * new_state
        return hy


class DynamicGRU(nn.Module):
    def __init__(self, input_size, hidden_size, bias=True, gru_type='AUGRU'):
        super(DynamicGRU, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size

        if gru_type == 'AUGRU':
            self.rnn = AUGRUCell(input_size, hidden_size, bias)

    def forward(self, inputs: Tensor, batch_sizes: Tensor, att_scores: Tensor,
                hx: Optional[Tensor] = None) -> Tensor:
        max_batch_size = int(batch_sizes[0])
        if hx is None:
            hx = torch.zeros(max_batch_size, self.hidden_size,
                             dtype=inputs.dtype, device=inputs.device)

        outputs = torch.zeros(inputs.size(0), self.hidden_size,
                              dtype=inputs.dtype, device=inputs.device)

        begin = 0
        for batch_t in batch_sizes:
            batch = int(batch_t)
            new_hx = self.rnn(
                inputs[begin:begin + batch],
                hx[0:batch],
                att_scores[begin:begin + batch])
            outputs[begin:begin + batch] = new_hx
            hx = new_hx
            begin += batch
        return outputs


class InterestLayers(nn.Module):
    """DIN's attentional pooling and DIEN's AUGRU interest evolution."""

    def __init__(self, embedding_dim: int):
        super().__init__()
        self.attention = AttentionSequencePoolingLayer(att_hidden_units=(64, 16), att_activation='Dice',
                                                       weight_normalization=True,
                                                       embedding_dim=embedding_dim)
        self.interest_evolution = DynamicGRU(embedding_dim, embedding_dim, gru_type='AUGRU')

    def forward(self, query: Tensor, keys: Tensor, keys_length: Tensor, packed_keys: Tensor,
                batch_sizes: Tensor, packed_scores: Tensor) -> Tuple[Tensor, Tensor]:
        pooled = self.attention(query, keys, keys_length, None)
        evolved = self.interest_evolution(packed_keys, batch_sizes, packed_scores, None)
        return pooled, evolved


def example():
    B, T, E = 6, 7, 8
    model = InterestLayers(E)
    with torch.no_grad():
        nn.init.normal_(model.interest_evolution.rnn.weight_ih, std=0.1)
        nn.init.normal_(model.interest_evolution.rnn.weight_hh, std=0.1)
        for m in model.modules():
            if isinstance(m, Dice):
                nn.init.uniform_(m.alpha, -0.5, 0.5)
                m.bn.running_mean.uniform_(-0.1, 0.1)
                m.bn.running_var.uniform_(0.5, 1.5)
    model.eval()
    keys = torch.randn(B, T, E)
    keys_length = torch.tensor([7, 3, 5, 1, 6, 2])
    scores = torch.rand(B, T)
    # DIEN packs the behaviours and the attention scores by length (the
    # interest extractor's output and InterestEvolving's scores)
    packed = nn.utils.rnn.pack_padded_sequence(keys, keys_length, batch_first=True, enforce_sorted=False)
    packed_scores = nn.utils.rnn.pack_padded_sequence(scores, keys_length, batch_first=True,
                                                      enforce_sorted=False)
    return model, {"query": torch.randn(B, 1, E), "keys": keys, "keys_length": keys_length,
                   "packed_keys": packed.data, "batch_sizes": packed.batch_sizes,
                   "packed_scores": packed_scores.data}
