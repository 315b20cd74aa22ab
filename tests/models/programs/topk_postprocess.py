"""NMS-free top-k post-processing (TensorSSA paper workload).

Scores of all (box, class) pairs are flattened and the k best taken; the box
index and the label come back from the flat index with floor division and
remainder; rows are written into a preallocated result, and rows below the
threshold are cleared through a boolean-mask assignment.
"""
import torch


def topk_postprocess(boxes, logits, k: int, threshold: float):
    # boxes: [N, 4]; logits: [N, C]
    N, C = logits.shape
    scores = torch.sigmoid(logits).flatten()
    top_scores, top_index = torch.topk(scores, k)
    box_index = torch.div(top_index, C, rounding_mode="floor")
    labels = top_index % C
    out = torch.zeros(k, 6)
    out[:, 0:4] = boxes[box_index]
    out[:, 4] = top_scores
    out[:, 5] = labels.to(torch.float32)
    keep = top_scores > threshold
    out[~keep] = 0.0
    return out, keep.sum()


def example():
    inputs = {
        "boxes": torch.rand(10, 4) * 100.0,
        "logits": torch.randn(10, 4),
        "k": 8,
        "threshold": 0.75,
    }
    return topk_postprocess, inputs
