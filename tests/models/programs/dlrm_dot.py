"""DLRM's single-device forward pass (facebookresearch/dlrm): the bottom MLP
on dense features, one sum-pooled EmbeddingBag per sparse feature driven by
indices and per-sample offsets, the "dot" interaction (pairwise dot products
of all feature vectors by one bmm, the strictly lower triangle gathered with
index tensors built in Python loops), and the top MLP ending in a sigmoid
(issue 30's public code).

Origin: facebookresearch/dlrm, dlrm_s_pytorch.py, class DLRM_Net: methods
create_mlp, create_emb, apply_mlp, apply_emb, interact_features and
sequential_forward, revision 2ba64cbff50414687ae069e99be3adbf10ffae35.

Changes:
- __init__ keeps only what the single-device float path uses: create_mlp
  and create_emb as written (np.random initialisation replaced by the
  modules' own, seeded by the generator), without the quantized, QR, MD,
  distributed and weighted-pooling options; v_W_l is therefore all None
  and apply_emb's per_sample_weights is None, as the original computes it.
- apply_mlp(x, layers), which returns layers(x), is inlined at its two
  calls (TorchScript cannot pass a module as an argument).
- forward is sequential_forward (the original dispatches to it when there
  is one device and one rank).
- lS_o and lS_i are 2-D tensors, one row per table, instead of a list of
  tensors (the exporter binds only tensor inputs; DLRM's own random data
  generator also stacks the offsets into one tensor); apply_emb iterates
  the ModuleList with enumerate and takes row k of each (TorchScript indexes
  a ModuleList only by literal, so `emb_l[k]` becomes the enumerated E).
- interact_features: the two nested list comprehensions that build li and
  lj become explicit loops (TorchScript has no comprehension with two
  `for`s), `torch.cat([x] + ly)` takes an annotated List[Tensor], and the
  `sys.exit` on an unknown interaction op becomes a raise.
- the loss_threshold clamp is kept, with the default threshold 0.0 (no clamp).
"""
from typing import List

import torch
import torch.nn as nn
from torch import Tensor


class DLRM_Net(nn.Module):
    def create_mlp(self, ln: List[int], sigmoid_layer: int):
        # build MLP layer by layer
        layers = nn.ModuleList()
        for i in range(0, len(ln) - 1):
            n = ln[i]
            m = ln[i + 1]

            # construct fully connected operator
            LL = nn.Linear(int(n), int(m), bias=True)
            layers.append(LL)

            # construct sigmoid or relu operator
            if i == sigmoid_layer:
                layers.append(nn.Sigmoid())
            else:
                layers.append(nn.ReLU())

        # approach 2: use Sequential container to wrap all layers
        return torch.nn.Sequential(*layers)

    def create_emb(self, m: int, ln: List[int]):
        emb_l = nn.ModuleList()
        for i in range(0, len(ln)):
            n = ln[i]
            EE = nn.EmbeddingBag(n, m, mode="sum", sparse=True)
            emb_l.append(EE)
        return emb_l

    def __init__(self, m_spa: int, ln_emb: List[int], ln_bot: List[int],
                 ln_top: List[int], arch_interaction_op: str = "dot",
                 arch_interaction_itself: bool = False,
                 sigmoid_bot: int = -1, sigmoid_top: int = -1,
                 loss_threshold: float = 0.0):
        super().__init__()
        self.loss_threshold = loss_threshold
        self.arch_interaction_op = arch_interaction_op
        self.arch_interaction_itself = arch_interaction_itself
        self.emb_l = self.create_emb(m_spa, ln_emb)
        self.bot_l = self.create_mlp(ln_bot, sigmoid_bot)
        self.top_l = self.create_mlp(ln_top, sigmoid_top)

    def apply_emb(self, lS_o: Tensor, lS_i: Tensor) -> List[Tensor]:
        ly: List[Tensor] = []
        for k, E in enumerate(self.emb_l):
            sparse_index_group_batch = lS_i[k]
            sparse_offset_group_batch = lS_o[k]

            V = E(
                sparse_index_group_batch,
                sparse_offset_group_batch,
                per_sample_weights=None,
            )

            ly.append(V)

        return ly

    def interact_features(self, x: Tensor, ly: List[Tensor]) -> Tensor:
        if self.arch_interaction_op == "dot":
            # concatenate dense and sparse features
            (batch_size, d) = x.shape
            T = torch.cat([x] + ly, dim=1).view((batch_size, -1, d))
            # perform a dot product
            Z = torch.bmm(T, torch.transpose(T, 1, 2))
            # append dense feature with the interactions (into a row vector)
            # approach 2: unique
            _, ni, nj = Z.shape
            # approach 2: custom
            offset = 1 if self.arch_interaction_itself else 0
            li_list: List[int] = []
            for i in range(ni):
                for j in range(i + offset):
                    li_list.append(i)
            lj_list: List[int] = []
            for i in range(nj):
                for j in range(i + offset):
                    lj_list.append(j)
            li = torch.tensor(li_list)
            lj = torch.tensor(lj_list)
            Zflat = Z[:, li, lj]
            # concatenate dense features and interactions
            R = torch.cat([x] + [Zflat], dim=1)
        elif self.arch_interaction_op == "cat":
            # concatenation features (into a row vector)
            R = torch.cat([x] + ly, dim=1)
        else:
            raise RuntimeError(
                "ERROR: --arch-interaction-op="
                + self.arch_interaction_op
                + " is not supported"
            )

        return R

    def forward(self, dense_x: Tensor, lS_o: Tensor, lS_i: Tensor) -> Tensor:
        # process dense features (using bottom mlp), resulting in a row vector
        x = self.bot_l(dense_x)

        # process sparse features(using embeddings), resulting in a list of row vectors
        ly = self.apply_emb(lS_o, lS_i)

        # interact features (dense and sparse)
        z = self.interact_features(x, ly)

        # obtain probability of a click (using top mlp)
        p = self.top_l(z)

        # clamp output if needed
        if 0.0 < self.loss_threshold and self.loss_threshold < 1.0:
            z = torch.clamp(p, min=self.loss_threshold, max=(1.0 - self.loss_threshold))
        else:
            z = p

        return z


def example():
    batch, m_spa = 16, 8
    ln_emb = [40, 60, 30]
    # DLRM's small test configuration: --arch-mlp-bot 13-16-8,
    # --arch-mlp-top (8 + 4*3/2 interactions)-16-1, sigmoid on the last layer
    ln_bot = [13, 16, m_spa]
    num_fea = len(ln_emb) + 1
    ln_top = [m_spa + num_fea * (num_fea - 1) // 2, 16, 1]
    net = DLRM_Net(m_spa, ln_emb, ln_bot, ln_top, sigmoid_bot=-1,
                   sigmoid_top=len(ln_top) - 2).eval()
    dense_x = torch.rand(batch, 13)
    # 3 lookups per sample in every table: offsets 0, 3, 6, ...
    lookups = 3
    lS_o = torch.arange(0, batch * lookups, lookups).repeat(len(ln_emb), 1)
    lS_i = torch.stack([torch.randint(0, n, (batch * lookups,)) for n in ln_emb])
    return net, {"dense_x": dense_x, "lS_o": lS_o, "lS_i": lS_i}
