"""Loops for the loop lowering (streamit/lower_loop.c).

Each function is one case; PARALLEL says whether the lowering must make its
loop one data-parallel body filter with repetitions (True) or not (False),
FEEDBACK whether it must make it a feedback loop (real carried state with a
static trip count) rather than keep it as one filter. The cases are built
so that a wrong decision gives wrong results: iterations that overlap give
a different answer unless the Stack applies their writes in iteration
order, iterations that read each other's writes a different answer when
run as independent, state read from two steps back or a trip count taken
from tensor data a different answer when a step reads the wrong state or
the loop runs a compile-time guess of its trip count."""
import warnings
from typing import List

import torch

PARALLEL = {}
FEEDBACK = {}


def case(parallel, feedback=False):
    def mark(f):
        PARALLEL[f.__name__] = parallel
        FEEDBACK[f.__name__] = feedback
        return f
    return mark


@case(True)
def rows_select(x: torch.Tensor, n: int):
    # out[i] = f(x[i]): immut::select_rev at index i.
    out = torch.zeros_like(x)
    for i in range(n):
        out[i] = x[i] * 2.0 + float(i)
    return out


@case(True)
def head_slices(x: torch.Tensor, heads: int):
    # A head loop: out[:, h*D:(h+1)*D] = g(x[:, h*D:(h+1)*D]).
    D = x.size(1) // heads
    out = torch.zeros_like(x)
    for h in range(heads):
        out[:, h * D:(h + 1) * D] = torch.tanh(x[:, h * D:(h + 1) * D]) * (h + 1)
    return out


@case(True)
def strided_rows(x: torch.Tensor, n: int):
    # Index 2*i+1: affine with stride 2, still disjoint.
    out = torch.zeros(2 * n + 1, x.size(1))
    for i in range(n):
        out[2 * i + 1] = torch.sigmoid(x[i])
    return out


@case(True)
def overlapping_slices(x: torch.Tensor, n: int):
    # Each iteration writes rows [i, i+2): neighbours overlap, the later
    # write wins. The iterations are still independent (none reads out);
    # the Stack must apply their writes in iteration order.
    out = torch.zeros_like(x)
    for i in range(n):
        out[i:i + 2] = x[i:i + 2] * float(i + 1)
    return out


@case(False, feedback=True)
def reads_previous(x: torch.Tensor, n: int):
    # out[i] depends on out[i-1]: real carried state.
    out = torch.zeros_like(x)
    for i in range(1, n):
        out[i] = out[i - 1] * 0.5 + x[i]
    return out


@case(True)
def same_row(x: torch.Tensor, n: int):
    # Every iteration writes row 0: only the last write survives (the
    # Stack applies the writes in iteration order).
    out = torch.zeros_like(x)
    for i in range(n):
        out[0] = x[i] * float(i + 1)
    return out


@case(True)
def negative_index(x: torch.Tensor, n: int):
    # out[-1 - i]: a negative index wraps by the tensor's size, which the
    # Stack's write does at run time as the loop would.
    out = torch.zeros_like(x)
    for i in range(n):
        out[-1 - i] = x[i] + 1.0
    return out


@case(False, feedback=True)
def two_steps_back(x: torch.Tensor, h0: torch.Tensor, w: torch.Tensor):
    # h[t] = tanh(x[t] @ w + 0.5 h[t-1] - 0.25 h[t-2]): two state values,
    # the older one taking the newer one's place each step (a step that
    # read the wrong one, or a state passed as if invariant, changes it).
    steps = x.size(0)
    out = torch.zeros(steps, h0.size(0), h0.size(1))
    h1 = h0
    h2 = torch.zeros_like(h0)
    for t in range(steps):
        h = torch.tanh(torch.mm(x[t], w) + 0.5 * h1 - 0.25 * h2)
        h2 = h1
        h1 = h
        out[t] = h
    return out, h1, h2


@case(False, feedback=True)
def static_start_state(x: torch.Tensor, h0: torch.Tensor):
    # An int state that starts as a compile-time constant (no item carries
    # its first value) and a body that reads the initial tensor h0 beside
    # the state that starts from it.
    acc = 0
    h = h0
    for t in range(x.size(0)):
        acc = acc + t + 1
        h = h * 0.5 + x[t] * float(acc) + h0
    return h, acc


@case(False, feedback=True)
def overlapping_state(x: torch.Tensor):
    # State plus writes of rows [t, t+2) that overlap their neighbours: the
    # writes must be applied in iteration order (the later one wins).
    out = torch.zeros(x.size(0) + 1, x.size(1))
    h = torch.zeros(x.size(1))
    for t in range(x.size(0)):
        h = torch.sigmoid(h + x[t])
        out[t:t + 2] = h * float(t + 1)
    return out, h


@case(False)
def data_dependent_trips(x: torch.Tensor, h0: torch.Tensor):
    # The trip count is the number of positive entries of x: known only
    # when the program runs, so the loop stays one filter.
    n = int((x > 0).sum())
    h = h0
    for t in range(n):
        h = torch.tanh(h * 0.9 + float(t))
    return h


@case(False)
def while_state(x: torch.Tensor):
    # A while loop carrying state: its trip count depends on the values.
    h = x
    steps = 0
    while bool(h.abs().sum() > 1.0) and steps < 50:
        h = h * 0.5 + 0.01
        steps += 1
    return h, steps


@case(True)
def append_concat(x: torch.Tensor, n: int):
    # ys = ys + [f(x[i])]: a list only extended (TorchScript's functional
    # append), stacked after the loop; iterations are independent.
    ys: List[torch.Tensor] = []
    for i in range(n):
        ys = ys + [torch.tanh(x[i]) * float(i + 1)]
    return torch.stack(ys)


class AppendInvariant(torch.nn.Module):
    # [self.w for _ in range(n)] (torchvision RetinaNet's per-image anchors,
    # `[anchors for _ in range(n)]`): an iteration reads nothing but a
    # compile-time value (the weight), which is no item, yet the loop is
    # still n firings of a body; it carries a list of tensors, so it is not
    # run at compile time.
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3))

    def forward(self, x: torch.Tensor, n: int):
        ws = [self.w for _ in range(n)]
        return torch.stack(ws) * x


PARALLEL["append_invariant"] = True
FEEDBACK["append_invariant"] = False


@case(False)
def scalar_list_build(x: torch.Tensor, feat0: torch.Tensor, feat1: torch.Tensor):
    # torchvision's DBoxGenerator: nested loops over the feature maps'
    # sizes build a list of float lists; only scalars and the bound tensors'
    # sizes, so the lowering runs the loops once, at compile time
    # (lower_specialize.c's fold_scalar_loop), and no loop is left.
    feats = [feat0, feat1]
    boxes: List[List[float]] = []
    for k in range(len(feats)):
        f_k = feats[k].shape[-2:]
        for j in range(f_k[0]):
            cy = (j + 0.5) / f_k[0]
            for i in range(f_k[1]):
                boxes.append([(i + 0.5) / f_k[1], cy, float(k)])
    return torch.tensor(boxes) * x


class LstmInLoop(torch.nn.Module):
    # PyG's Set2Set: an nn.LSTM called once per step of a loop carrying its
    # (h, c) and the query. The layer, expanded inside the body, unpacks its
    # weights there: compile-time values, which the Unstack ran and then
    # cleared as hoisted nodes ("aten::linear: input %9 has no value here").
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 4)

    def forward(self, x: torch.Tensor, n: int):
        h = (x.new_zeros((1, 3, 4)), x.new_zeros((1, 3, 4)))
        q_star = x.new_zeros(3, 8)
        for _ in range(n):
            q, h = self.lstm(q_star.unsqueeze(0), h)
            q = q.view(3, 4)
            q_star = torch.cat([q, q * x], dim=-1)
        return q_star


PARALLEL["lstm_in_loop"] = False
FEEDBACK["lstm_in_loop"] = True


@case(False, feedback=True)
def append_state(x: torch.Tensor, h0: torch.Tensor, n: int):
    # State and a list of every step's state: a feedback loop whose steps
    # also extend a list; the Stack joins the lists in step order.
    h = h0
    hs: List[torch.Tensor] = [h0 * 0.0]
    for t in range(n):
        h = torch.tanh(x[t] + h * 0.5)
        hs = hs + [h, h * 2.0]
    return torch.cat(hs), h


@case(True)
def list_index_write(x: torch.Tensor, n: int):
    # ys[i] = f(x[i]) into a list made before the loop: a list written by
    # index, a stream of slices the Stack puts in place in order.
    ys: List[torch.Tensor] = [x[0] * 0.0] * n
    for i in range(n):
        ys[i] = torch.sigmoid(x[i]) + float(i)
    return torch.stack(ys)


@case(False)
def warn_in_branch(x: torch.Tensor, n: int):
    # A deprecation warning in a branch of a loop and a print: the loop is
    # one filter (its messages in iteration order) beside the sigmoid's, and
    # on 2 ranks it would land on rank 1 (whose output is not shown) unless
    # placement keeps a printing program on rank 0.
    u = torch.sigmoid(x) * 2.0
    y = x
    for i in range(n):
        if i >= 3:
            warnings.warn("step past 3 is deprecated")
        if i == 1:
            print("loop step", i)
        y = y * 2.0 + 1.0
    return u, y


@case(True)
def after_embedding_bag(idx: torch.Tensor, offsets: torch.Tensor, w: torch.Tensor):
    # F.embedding_bag's argument checks leave prim::Uninitialized at the top
    # level (the value of the branches that raise); once the checks fold
    # nothing reads it, and it must not keep the program whole: the loop
    # after it is still one data-parallel body filter.
    pooled = torch.nn.functional.embedding_bag(idx, w, offsets, mode="sum")
    out = torch.zeros_like(pooled)
    for i in range(offsets.size(0)):
        out[i] = pooled[i] * float(i + 1)
    return out


@case(False, feedback=True)
def device_checked_state(x: torch.Tensor, w: torch.Tensor):
    # torchaudio's lfilter picks its loop by `y.device == torch.device('cpu')`
    # on a computed tensor: the answer is known at compile time (every
    # backend computes as PyTorch on the CPU), so the If folds and its loop
    # is a feedback loop, not one filter holding the whole If.
    y = torch.tanh(x) * 0.5
    h = torch.zeros(x.size(1))
    if y.device == torch.device('cpu'):
        for i in range(x.size(0)):
            h = torch.tanh(torch.mv(w, h) + y[i])
    else:
        h = h + 1.0
    return h


@case(False)
def top_level_prints(x: torch.Tensor, n: int):
    # Prints and a warning in several top-level statements, between tensor
    # work, one of constants only, and one inside a loop: ordered host
    # actions (an ordering token threaded between their filters), the rest
    # taken apart; their messages in program order, as in PyTorch.
    print("start", n)
    a = torch.sigmoid(x)
    warnings.warn("top-level warning")
    b = a * 2.0 + 1.0
    print("positive", bool(b.sum() > 0))
    y = x
    for i in range(n):
        if i == 2:
            print("loop step", i)
        y = y * 0.5 + b
    print("done")
    return y, a


@case(False, feedback=True)
def writes_through_views(x: torch.Tensor, y: torch.Tensor):
    # torchaudio's lfilter writes its output column through views that cover
    # the whole tensor (squeeze -> t -> select); so do transpose, unsqueeze
    # and a squeeze of a dim that is not 1 (no-op). TensorSSA's assigns for
    # those views replace the whole base: kernels/invert_whole_assigns.c
    # makes them views of the written value, which fuse. Each step reads
    # what the earlier ones wrote, through other views.
    for i in range(8):
        o = x.squeeze(1).t()[i]
        o.mul_(2.0)
        x.squeeze(1).t()[i] = o + 1.0
        yt = y.transpose(0, 1)
        yt[i % 4].add_(x[:, 0, i])
        z = y.unsqueeze(0)
        z[0, i % 3] = z[0, i % 3] * 0.5
        w = y.squeeze(0)
        w[i % 3, 1] = w[i % 3, 2] - 1.0
    return x, y


def examples():
    torch.manual_seed(0)
    x = torch.randn(6, 4)
    return {
        "rows_select": (rows_select, {"x": x, "n": 6}),
        "head_slices": (head_slices, {"x": torch.randn(3, 8), "heads": 4}),
        "strided_rows": (strided_rows, {"x": torch.randn(4, 3), "n": 4}),
        "overlapping_slices": (overlapping_slices, {"x": x, "n": 5}),
        "reads_previous": (reads_previous, {"x": x, "n": 6}),
        "same_row": (same_row, {"x": x, "n": 6}),
        "negative_index": (negative_index, {"x": x, "n": 6}),
        "two_steps_back": (two_steps_back, {"x": torch.randn(6, 2, 3), "h0": torch.randn(2, 4),
                                            "w": torch.randn(3, 4)}),
        "static_start_state": (static_start_state, {"x": torch.randn(5, 3),
                                                    "h0": torch.randn(3)}),
        "overlapping_state": (overlapping_state, {"x": torch.randn(5, 3)}),
        "data_dependent_trips": (data_dependent_trips, {"x": torch.randn(3, 3),
                                                        "h0": torch.randn(2)}),
        "while_state": (while_state, {"x": torch.randn(4) * 3.0}),
        "append_concat": (append_concat, {"x": x, "n": 5}),
        "scalar_list_build": (scalar_list_build, {"x": torch.randn(3), "feat0": torch.randn(1, 2, 3, 4),
                                                  "feat1": torch.randn(1, 2, 2, 1)}),
        "lstm_in_loop": (LstmInLoop().eval(), {"x": torch.randn(3, 4), "n": 3}),
        "append_invariant": (AppendInvariant().eval(), {"x": torch.randn(3), "n": 4}),
        "list_index_write": (list_index_write, {"x": x, "n": 6}),
        "warn_in_branch": (warn_in_branch, {"x": x, "n": 5}),
        "after_embedding_bag": (after_embedding_bag, {"idx": torch.randint(0, 10, (12,)),
                                                      "offsets": torch.tensor([0, 3, 5, 9]),
                                                      "w": torch.randn(10, 4)}),
        "device_checked_state": (device_checked_state, {"x": torch.randn(6, 3),
                                                        "w": torch.randn(3, 3) * 0.5}),
        "top_level_prints": (top_level_prints, {"x": x, "n": 4}),
        "writes_through_views": (writes_through_views,
                                 {"x": torch.arange(24, dtype=torch.float32).view(3, 1, 8) / 7.0,
                                  "y": torch.randn(3, 4)}),
        "append_state": (append_state, {"x": torch.randn(5, 3), "h0": torch.randn(3), "n": 5}),
    }
