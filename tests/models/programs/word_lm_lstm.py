"""pytorch/examples' word-level language model: an embedding, a two-layer
nn.LSTM (seq-first, no packing), dropout and a linear decoder, then the
log-softmax over the vocabulary (issue 30's public code).

Origin: pytorch/examples, word_language_model/model.py, class RNNModel
(__init__ with rnn_type 'LSTM', init_weights, forward, init_hidden),
revision 61176010ea6cfebc8127be8f965424d5f1838387.

Changes:
- `__init__` keeps the LSTM branch (`getattr(nn, rnn_type)(ninp, nhid,
  nlayers, dropout=dropout)`) and the tie_weights branch off; the
  RNN_TANH/RNN_RELU branch, the ValueError on a bad rnn_type and the
  "tied" size check are not ported (not taken);
- forward takes the LSTM state as two tensors h0 and c0 and builds the
  tuple `hidden = (h0, c0)` it passes to the LSTM: tssa-stream's command
  line binds no tuple of tensors (the original takes `hidden`, the tuple
  init_hidden returns);
- `F.log_softmax(decoded, dim=1)` as written; the module runs in eval mode
  (its nn.Dropout layers are identities, as generate.py's main does for
  evaluation).
"""
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type: str, ntoken: int, ninp: int, nhid: int, nlayers: int,
                 dropout: float = 0.5):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        self.init_weights()

        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input: Tensor, h0: Tensor, c0: Tensor):
        hidden = (h0, c0)
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz: int):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def example():
    model = RNNModel("LSTM", 200, 32, 48, 2, dropout=0.2).eval()
    seq_len, bsz = 35, 4
    data = torch.randint(0, 200, (seq_len, bsz))
    h0, c0 = model.init_hidden(bsz)
    return model, {"input": data, "h0": h0 + 0.1 * torch.randn_like(h0), "c0": c0}
