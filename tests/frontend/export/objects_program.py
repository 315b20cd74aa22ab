"""Programs for test_export_objects.py: modules holding objects of
TorchScript classes, whose attributes export.py must write (or refuse, for
a declared type tssa-stream cannot read). TorchScript finds a class's
source through its file, so they live in a file of their own."""
from typing import List, Optional, Tuple

import torch


class Coder:
    def __init__(self, weights: Tuple[float, float], clip: float) -> None:
        self.weights = weights
        self.clip = clip
        self.scale = torch.tensor([2.0, 3.0])
        self.label = "coder"
        self.steps: List[int] = [1, 2]


class Holder:
    def __init__(self) -> None:
        self.coder = Coder((1.0, 2.0), 4.0)
        self.coders: List[Coder] = [Coder((3.0, 4.0), 1.0), Coder((5.0, 6.0), 2.0)]
        self.maybe: Optional[float] = None


class Nested(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.holder = Holder()

    def forward(self, x):
        y = x * self.holder.coder.scale + self.holder.coder.weights[1]
        for c in self.holder.coders:
            y = y + c.clip + float(c.steps[0])
        if self.holder.maybe is not None:
            y = y + 1.0
        if self.holder.coder.label == "coder":
            y = y * 2.0
        return y


class Odd:
    def __init__(self) -> None:
        self.k = 2
        self.z = 1j                                  # complex: no tssa-stream value
        self.pair = (3, 2j)                          # a tuple holding a complex


class ReadsComplex(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.odd = Odd()

    def forward(self, x):
        return x * self.odd.z


class ReadsTupleOfComplex(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.odd = Odd()

    def forward(self, x):
        return x * self.odd.pair[1]


class ReadsOnlyInt(torch.nn.Module):
    """Holds an Odd but reads only its int: the unreadable ones are never
    needed."""
    def __init__(self):
        super().__init__()
        self.odd = Odd()

    def forward(self, x):
        return x * self.odd.k


class ReadsComplexInList(torch.nn.Module):
    """Reads the complex of an object in a list: refused through the
    list element's path (odds.0.z)."""
    odds: List[Odd]

    def __init__(self):
        super().__init__()
        self.odds = [Odd()]

    def forward(self, x):
        return x * self.odds[0].z


class OptionalObject(torch.nn.Module):
    """An Optional object that is set, read under `is not None` (through
    prim::unchecked_cast): its complex `odd.z` is refused."""
    odd: Optional[Odd]

    def __init__(self):
        super().__init__()
        self.odd = Odd()

    def forward(self, x):
        odd = self.odd
        if odd is not None:
            x = x * odd.k * odd.z
        return x


class NoneObject(torch.nn.Module):
    """An Optional object that is None, read under `is not None`: "None",
    and `none.clip` needs nothing (its branch is never taken)."""
    none: Optional[Coder]

    def __init__(self):
        super().__init__()
        self.none = None

    def forward(self, x):
        none = self.none
        if none is not None:
            x = x + none.clip
        return x
