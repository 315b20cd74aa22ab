"""DeepCTR-Torch's MMOE multi-task model: shared experts (DNNs) over one
input, a softmax gate per task mixing the experts' outputs by a batched
matmul, a tower and a sigmoid prediction per task; the input built from
sparse features as nn.EmbeddingBag lookups by offsets (a mean-pooled
multi-hot feature and two sum-pooled single-id features with
per-sample weights) next to dense features, as combined_dnn_input
concatenates them (issue 30's public code).

Origin: shenweichen/DeepCTR-Torch, deepctr_torch/models/multitask/mmoe.py,
MMOE.__init__ and MMOE.forward, revision
f6854257b1fc29caab655ce72c6b5528b7432574; deepctr_torch/layers/core.py,
DNN.forward (revision bb29fb162934a3277a604e52b862b26278fad073) and
PredictionLayer (binary: sigmoid).

Changes:
- `for i in range(self.num_experts): self.expert_dnn[i](dnn_input)` and
  the task loops index ModuleLists by a variable (TorchScript indexes them
  only by literal) -> loops over the ModuleLists themselves (expert_dnn,
  and zip over gate_dnn, gate_dnn_final_layer; tower_dnn,
  tower_dnn_final_layer, out), same order;
- the list names expert_outs / task_outs are rebound to stacked tensors in
  the original; here the tensors are expert_outs_t / task_outs_t (one type
  per name in TorchScript);
- input_from_feature_columns + combined_dnn_input over feature columns ->
  nn.EmbeddingBag lookups (DeepCTR's VarLenSparseFeat 'mean' pooling as
  EmbeddingBag(mode='mean') by offsets), flattened and concatenated with
  the dense values;
- DNN is Linear + ReLU per hidden unit (dropout 0, no batch norm: DNN's
  defaults), written as an nn.Sequential;
- `mmoe_outs.append(gate_mul_expert.squeeze())` keeps squeeze() as is
  (batch > 1 here).
"""
from typing import List

import torch
import torch.nn as nn


def dnn(inputs_dim: int, hidden_units: List[int]) -> nn.Sequential:
    layers: List[nn.Module] = []
    dims = [inputs_dim] + hidden_units
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class MMOE(nn.Module):
    def __init__(self, n_items=50, n_cats=12, n_users=30, embedding_dim=8, dense_dim=5,
                 num_experts=3, expert_dnn_hidden_units=(32, 16),
                 gate_dnn_hidden_units=(16,), tower_dnn_hidden_units=(8,),
                 num_tasks=2):
        super(MMOE, self).__init__()
        self.num_experts = num_experts
        self.num_tasks = num_tasks
        self.history = nn.EmbeddingBag(n_items, embedding_dim, mode="mean")
        self.category = nn.EmbeddingBag(n_cats, embedding_dim, mode="sum")
        self.user = nn.EmbeddingBag(n_users, embedding_dim, mode="sum")
        self.input_dim = 3 * embedding_dim + dense_dim
        self.expert_dnn_hidden_units = list(expert_dnn_hidden_units)
        self.gate_dnn_hidden_units = list(gate_dnn_hidden_units)
        self.tower_dnn_hidden_units = list(tower_dnn_hidden_units)

        # expert dnn
        self.expert_dnn = nn.ModuleList([dnn(self.input_dim, self.expert_dnn_hidden_units)
                                         for _ in range(self.num_experts)])

        # gate dnn
        if len(gate_dnn_hidden_units) > 0:
            self.gate_dnn = nn.ModuleList([dnn(self.input_dim, self.gate_dnn_hidden_units)
                                           for _ in range(self.num_tasks)])
        self.gate_dnn_final_layer = nn.ModuleList(
            [nn.Linear(gate_dnn_hidden_units[-1] if len(gate_dnn_hidden_units) > 0 else self.input_dim,
                       self.num_experts, bias=False) for _ in range(self.num_tasks)])

        # tower dnn (task-specific)
        if len(tower_dnn_hidden_units) > 0:
            self.tower_dnn = nn.ModuleList(
                [dnn(expert_dnn_hidden_units[-1], self.tower_dnn_hidden_units)
                 for _ in range(self.num_tasks)])
        self.tower_dnn_final_layer = nn.ModuleList([nn.Linear(
            tower_dnn_hidden_units[-1] if len(tower_dnn_hidden_units) > 0 else expert_dnn_hidden_units[-1], 1,
            bias=False) for _ in range(self.num_tasks)])

        self.out = nn.ModuleList([nn.Sigmoid() for _ in range(self.num_tasks)])

    def forward(self, history_ids, history_offsets, category_ids, category_weights, user_ids, dense):
        batch = dense.size(0)
        sparse_embedding_list = [
            self.history(history_ids, history_offsets),
            self.category(category_ids, torch.arange(batch), per_sample_weights=category_weights),
            self.user(user_ids, torch.arange(batch)),
        ]
        dnn_input = torch.cat([torch.flatten(torch.cat(sparse_embedding_list, dim=-1), start_dim=1),
                               torch.flatten(dense, start_dim=1)], dim=-1)

        # expert dnn
        expert_outs = []
        for expert in self.expert_dnn:
            expert_out = expert(dnn_input)
            expert_outs.append(expert_out)
        expert_outs_t = torch.stack(expert_outs, 1)  # (bs, num_experts, dim)

        # gate dnn
        mmoe_outs = []
        for gate_dnn, gate_final in zip(self.gate_dnn, self.gate_dnn_final_layer):
            gate_dnn_out = gate_dnn(dnn_input)
            gate_dnn_out = gate_final(gate_dnn_out)
            gate_mul_expert = torch.matmul(gate_dnn_out.softmax(1).unsqueeze(1), expert_outs_t)  # (bs, 1, dim)
            mmoe_outs.append(gate_mul_expert.squeeze())

        # tower dnn (task-specific)
        task_outs = []
        i = 0
        for tower, tower_final, out in zip(self.tower_dnn, self.tower_dnn_final_layer, self.out):
            tower_dnn_out = tower(mmoe_outs[i])
            tower_dnn_logit = tower_final(tower_dnn_out)
            output = out(tower_dnn_logit)
            task_outs.append(output)
            i += 1
        task_outs_t = torch.cat(task_outs, -1)
        return task_outs_t


def example():
    model = MMOE()
    batch = 32
    lengths = torch.randint(1, 6, (batch,))
    history_offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    history_ids = torch.randint(0, 50, (int(lengths.sum()),))
    return model, {"history_ids": history_ids, "history_offsets": history_offsets,
                   "category_ids": torch.randint(0, 12, (batch,)),
                   "category_weights": torch.rand(batch),
                   "user_ids": torch.randint(0, 30, (batch,)),
                   "dense": torch.randn(batch, 5)}
