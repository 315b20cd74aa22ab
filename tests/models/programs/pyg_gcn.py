"""PyTorch Geometric's two-layer GCN (examples/gcn.py) with GCNConv's
symmetric normalization (gcn_norm: self-loops added where missing, degrees
by scatter-add, D^-1/2 with infinities zeroed) and its message passing
written out as PyG's MessagePassing runs it for this layer: gather the
source rows with index_select, scale by the edge weight, scatter-add into
the targets (issue 30's public code).

Origin: pyg-team/pytorch_geometric, revision
5c6461b2305ad068a6d61165b3c55852a11aaa41: examples/gcn.py, class GCN;
torch_geometric/nn/conv/gcn_conv.py, gcn_norm (its edge_index-tensor path)
and GCNConv (__init__, forward, message); torch_geometric/utils/loop.py,
add_remaining_self_loops (edge_attr None path); torch_geometric/utils/
_scatter.py, scatter (reduce 'sum') and broadcast;
torch_geometric/nn/conv/message_passing.py, propagate's collect (x_j =
x.index_select(node_dim, edge_index[0]) for flow source_to_target) and the
'add' aggregation (scatter into edge_index[1], dim_size = number of nodes).

Changes:
- MessagePassing.propagate is generated per layer by PyG's template
  machinery (jinja, inspect); it is written out here as the three steps it
  performs for GCNConv: collect (index_select), message, aggregate
  (scatter with reduce 'sum').
- gcn_norm keeps the edge_index-tensor path only (the SparseTensor and
  torch.sparse branches need types TorchScript-exported graphs cannot
  carry); add_remaining_self_loops keeps its plain-tensor path (EdgeIndex is
  a Tensor subclass TorchScript does not see) without edge_attr (GCN passes
  none); maybe_num_nodes(edge_index, num_nodes) returns the num_nodes that
  GCNConv always passes.
- GCNConv's cache (cached=False by default) and the SparseTensor branch of
  forward are dropped; the Linear is torch.nn.Linear(bias=False) (PyG's
  Linear with glorot init computes the same F.linear).
- examples/gcn.py's `normalize=not args.use_gdc` is normalize=True (GDC
  off); dropout runs in eval mode.
"""
from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Parameter


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    dim = ref.dim() + dim if dim < 0 else dim
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter_sum(src: Tensor, index: Tensor, dim: int, dim_size: int) -> Tensor:
    # scatter(src, index, dim, dim_size, reduce='sum')
    dim = src.dim() + dim if dim < 0 else dim
    size = src.size()[:dim] + (dim_size, ) + src.size()[dim + 1:]
    index = broadcast(index, src, dim)
    return src.new_zeros(size).scatter_add_(dim, index, src)


def add_remaining_self_loops(edge_index: Tensor, N: int) -> Tensor:
    mask = edge_index[0] != edge_index[1]
    device = edge_index.device
    loop_index = torch.arange(0, N, device=device).view(1, -1).repeat(2, 1)
    edge_index = edge_index[:, mask]
    edge_index = torch.cat([edge_index, loop_index], dim=1)
    return edge_index


def gcn_norm(
    edge_index: Tensor,
    edge_weight: Optional[Tensor],
    num_nodes: int,
    improved: bool = False,
    add_self_loops: bool = True,
    flow: str = "source_to_target",
    dtype: Optional[torch.dtype] = None,
) -> Tuple[Tensor, Tensor]:
    fill_value = 2. if improved else 1.
    assert flow in ['source_to_target', 'target_to_source']

    if add_self_loops:
        edge_index = add_remaining_self_loops(edge_index, num_nodes)

    if edge_weight is None:
        edge_weight = torch.ones((edge_index.size(1), ), dtype=dtype,
                                 device=edge_index.device)

    row, col = edge_index[0], edge_index[1]
    idx = col if flow == 'source_to_target' else row
    deg = scatter_sum(edge_weight, idx, 0, num_nodes)
    deg_inv_sqrt = deg.pow_(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float('inf'), 0)
    edge_weight = deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]
    return edge_index, edge_weight


class GCNConv(torch.nn.Module):
    def __init__(self, in_channels: int, out_channels: int,
                 improved: bool = False, add_self_loops: bool = True,
                 normalize: bool = True, bias: bool = True):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.improved = improved
        self.add_self_loops = add_self_loops
        self.normalize = normalize
        self.flow = "source_to_target"
        self.node_dim = -2

        self.lin = torch.nn.Linear(in_channels, out_channels, bias=False)
        torch.nn.init.xavier_uniform_(self.lin.weight)
        if bias:
            self.bias = Parameter(torch.empty(out_channels))
            torch.nn.init.uniform_(self.bias, -0.1, 0.1)
        else:
            self.register_parameter('bias', None)

    def message(self, x_j: Tensor, edge_weight: Optional[Tensor]) -> Tensor:
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j

    def propagate(self, edge_index: Tensor, x: Tensor,
                  edge_weight: Optional[Tensor]) -> Tensor:
        x_j = x.index_select(self.node_dim, edge_index[0])
        out = self.message(x_j, edge_weight)
        return scatter_sum(out, edge_index[1], self.node_dim, x.size(self.node_dim))

    def forward(self, x: Tensor, edge_index: Tensor,
                edge_weight: Optional[Tensor] = None) -> Tensor:
        if self.normalize:
            edge_index, edge_weight = gcn_norm(  # yapf: disable
                edge_index, edge_weight, x.size(self.node_dim),
                self.improved, self.add_self_loops, self.flow, x.dtype)

        x = self.lin(x)

        # propagate_type: (x: Tensor, edge_weight: OptTensor)
        out = self.propagate(edge_index, x=x, edge_weight=edge_weight)

        if self.bias is not None:
            out = out + self.bias

        return out


class GCN(torch.nn.Module):
    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden_channels, normalize=True)
        self.conv2 = GCNConv(hidden_channels, out_channels, normalize=True)

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        x = F.dropout(x, p=0.5, training=self.training)
        x = self.conv1(x, edge_index, None).relu()
        x = F.dropout(x, p=0.5, training=self.training)
        x = self.conv2(x, edge_index, None)
        return x


def example():
    num_nodes, num_edges = 60, 240
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    # a few explicit self-loops, which add_remaining_self_loops must drop
    src[:5] = dst[:5]
    edge_index = torch.stack([src, dst])
    model = GCN(16, 32, 7).eval()
    return model, {"x": torch.randn(num_nodes, 16), "edge_index": edge_index}
