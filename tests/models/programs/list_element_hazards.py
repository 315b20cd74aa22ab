"""In-place writes through list elements where another name of the written
tensor is observed (issue 30): the same tensor appended twice, a tensor read
again after the write through the list, a second list holding the same
tensors (a slice copy of the first), and an element taken at an index from
the arguments (-1 here) before the list grows, so that the index names
another slot by the time of the write. PyTorch's results show every write
through every name; TensorSSA must keep each of these writes imperative and
say why (functionalize/list_elements.c), never write back to the wrong slot
or lose the write seen through the other name. The writes through `clean`,
a list of fresh tensors of its own, stay functional beside them."""
from typing import List

import torch


def list_element_hazards(x, j: int):
    t = x * 2.0
    twice: List[torch.Tensor] = [t]
    twice.append(t)
    twice[0].add_(1.0)
    kept = x + 1.0
    named: List[torch.Tensor] = [kept]
    named[0].mul_(3.0)
    read_again = kept * 1.0
    base: List[torch.Tensor] = [x * 3.0, x * 4.0]
    copied = base[:]
    base[1].sub_(1.0)
    through_copy = copied[1] * 1.0
    grow: List[torch.Tensor] = [x * 5.0]
    element = grow[j]
    grow.append(x * 6.0)
    element.add_(1.0)
    clean: List[torch.Tensor] = [x * 7.0, x * 8.0]
    for i in range(2):
        clean[i].add_(1.0)
    return torch.stack(twice), read_again, through_copy, torch.stack(grow), torch.stack(clean)


def example():
    return list_element_hazards, {"x": torch.randn(4), "j": -1}
