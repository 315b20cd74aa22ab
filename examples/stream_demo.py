"""The program scripts/demo.sh compiles: a small sequence model whose stream
graph has the three shapes StreamIt builds programs from.

- a data-parallel region: every time step's features are normalised on their
  own (`for t in range(steps)` with no state carried between iterations);
- a split-join: two independent branches (a tanh projection and a sigmoid
  gate) read the normalised features and are joined by a product;
- a feedback loop: an Elman RNN, whose hidden state `h` is carried from one
  step to the next.

Written as imperative PyTorch, as a user would write it: preallocated
outputs filled by index, a Python loop per time step.

examples/stream_demo/ is this program exported with the inputs scripts/demo.sh
gives it, for machines without PyTorch; the ctest demo checks that it is still
what the export makes. After a change here, refresh it:
    scripts/demo.sh /tmp/demo && rm -r examples/stream_demo &&
    cp -r /tmp/demo/case examples/stream_demo
"""
import torch


def stream_demo(x, h0, w_value, w_gate, w_ih, w_hh, bias):
    # x: [T, B, I]; h0: [B, H]; w_value, w_gate: [I, I]; w_ih: [H, I];
    # w_hh: [H, H]; bias: [H]
    steps = x.size(0)

    # Data-parallel: each step normalised independently of the others.
    normed = torch.empty_like(x)
    for t in range(steps):
        xt = x[t]
        centered = xt - xt.mean(dim=1, keepdim=True)
        normed[t] = centered / torch.sqrt((centered * centered).mean(dim=1, keepdim=True) + 1e-5)

    # Split-join: two branches of the same features, joined by a product.
    value = torch.tanh(torch.matmul(normed, w_value))
    gate = torch.sigmoid(torch.matmul(normed, w_gate))
    gated = value * gate

    # Feedback loop: the hidden state feeds the next step.
    out = torch.zeros(steps, h0.size(0), h0.size(1))
    h = h0
    for t in range(steps):
        h = torch.tanh(torch.mm(gated[t], w_ih.t()) + torch.mm(h, w_hh.t()) + bias)
        out[t] = h
    return out, h
