"""k-means clustering as kmeans_pytorch runs it: assign every point to its
nearest centre (pairwise Euclidean distance, argmin), move each centre to
the mean of its points (nonzero + index_select per cluster), stop when the
squared centre shift falls below tol — a while True loop that ends with
break, its trip count decided by the data (issue 30's public code).

Origin: subhadarship/kmeans_pytorch, kmeans_pytorch/__init__.py, functions
kmeans, pairwise_distance and initialize, revision
85de2937abe2cb9da26aa18625ac2901b8445db6.

Changes:
- `initialize(X, num_clusters)` draws np.random.choice indices; here the
  initial indices are an input (`initial_indices`), so the run is
  deterministic and reproducible without numpy;
- tqdm's progress bar (`tqdm_meter.set_postfix`/`update`) and the
  `print(f'running k-means on {device}..')` are dropped, as is the
  `X = X.float()` / `.to(device)` device shuffling (the input is float32 on
  the CPU already); distance='euclidean' is the branch kept
  (pairwise_cosine is not ported);
- `choice_cluster.cpu(), initial_state.cpu()` are returned without .cpu()
  (already there); the iteration count is returned too, so the case
  checks the trip count the data decided;
- `choice_cluster = torch.empty(0, dtype=torch.long)` before the loop:
  TorchScript rejects a name first assigned inside `while True` and read
  after it (`undefined value choice_cluster`), though the loop always runs
  once;
- pairwise_distance's `data1.to(device), data2.to(device)` and its device
  argument are dropped (CPU only); the rest is as written.
"""
from typing import Tuple

import torch
from torch import Tensor


def pairwise_distance(data1: Tensor, data2: Tensor) -> Tensor:
    # N*1*M
    A = data1.unsqueeze(dim=1)

    # 1*N*M
    B = data2.unsqueeze(dim=0)

    dis = (A - B) ** 2.0
    # return N*N matrix for pairwise distance
    dis = dis.sum(dim=-1).squeeze()
    return dis


def kmeans(X: Tensor, num_clusters: int, initial_indices: Tensor,
           tol: float = 1e-4) -> Tuple[Tensor, Tensor, int]:
    initial_state = X[initial_indices]

    iteration = 0
    choice_cluster = torch.empty(0, dtype=torch.long)
    while True:
        dis = pairwise_distance(X, initial_state)

        choice_cluster = torch.argmin(dis, dim=1)

        initial_state_pre = initial_state.clone()

        for index in range(num_clusters):
            selected = torch.nonzero(choice_cluster == index).squeeze()

            selected = torch.index_select(X, 0, selected)

            initial_state[index] = selected.mean(dim=0)

        center_shift = torch.sum(
            torch.sqrt(
                torch.sum((initial_state - initial_state_pre) ** 2, dim=1)
            ))

        # increment iteration
        iteration = iteration + 1

        if center_shift ** 2 < tol:
            break

    return choice_cluster, initial_state, iteration


def example():
    centres = torch.tensor([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0], [6.0, -1.0]])
    X = torch.cat([c + 0.8 * torch.randn(100, 2) for c in centres])
    X = X[torch.randperm(X.shape[0])]
    return kmeans, {"X": X, "num_clusters": 4,
                    "initial_indices": torch.tensor([0, 1, 2, 3]),
                    "tol": 1e-6}
