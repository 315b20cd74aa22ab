"""Greedy decoding until an end-of-sequence token, with `break`.

A toy RNN decoder as seq2seq tutorials write it: embed the last token, one
tanh cell step, project to the vocabulary, take the argmax, stop when it is
EOS. TorchScript turns the `break` into the loop's condition, so the trip
count is decided at run time by tensor data.
"""
import torch


def greedy_decode_break(emb, w_ih, w_hh, w_out, h0, bias, eos: int, max_len: int):
    h = h0
    tok = 0
    tokens = torch.zeros(max_len, dtype=torch.long)
    n = 0
    for t in range(max_len):
        x = emb[tok]
        h = torch.tanh(x @ w_ih + h @ w_hh + bias * t)
        logits = h @ w_out
        tok = int(logits.argmax())
        tokens[t] = tok
        n = t + 1
        if tok == eos:
            break
    return tokens, n, h


def example():
    vocab, dim, max_len = 12, 32, 40
    emb = torch.randn(vocab, dim)
    w_ih = torch.randn(dim, dim) * 0.3
    w_hh = torch.randn(dim, dim) * 0.3
    w_out = torch.randn(dim, vocab)
    h0 = torch.randn(dim) * 0.1
    inputs = {"emb": emb, "w_ih": w_ih, "w_hh": w_hh, "w_out": w_out, "h0": h0,
              "bias": torch.randn(dim) * 0.2,
              "eos": -1, "max_len": max_len}
    # EOS: the first token the decoder emits only from its 8th step on (a
    # run-time stop after several steps)
    tokens = greedy_decode_break(**inputs)[0].tolist()
    late = [tok for t, tok in enumerate(tokens) if t >= 7 and tok not in tokens[:t]]
    inputs["eos"] = late[0] if late else tokens[-1]
    return greedy_decode_break, inputs
