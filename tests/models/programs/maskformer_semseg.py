"""MaskFormer's semantic-segmentation inference (facebookresearch/MaskFormer,
mask_former/mask_former_model.py: the inference branch of
MaskFormer.forward (the mask logits upsampled to the image with bilinear
interpolation, then one result per image) and
MaskFormer.semantic_probabilistic_iterative_inference, revision
f2d27b2e2f8d2919df27336b51454beffd0cf2e1) (issue 30's public code).

Per image: class probabilities without the no-object column, mask
probabilities, their per-pixel mixture einsum("qc,qhw->chw"); then every
query whose mask mostly disagrees with the mixture's argmax for its class
(overlap below overlap_threshold) is dropped (a bool written per query in a
loop over the queries) and the mixture recomputed from the queries kept
(boolean-mask indexing: a data-dependent count).

Changes:
- the module around it (backbone, pixel decoder, transformer head, the
  ImageList padding, the criterion) is not ported: the entry point takes
  the head's pred_logits and pred_masks and the padded image size, and
  returns one semseg tensor per image instead of a list of dicts;
  sem_seg_postprocess_before_inference is False and the method
  "iterative", so sem_seg_postprocess (a crop and resize to each input's
  own height and width) runs after inference: it is left out, the inputs
  having no other size;
- `for k, cat in enumerate(labels)` -> `for k in range(len(labels))` with
  `cat = labels[k]` (TorchScript iterates tensors only through range);
  self.overlap_threshold is an argument;
- `zip(mask_cls_results, mask_pred_results, batched_inputs, images.image_sizes)`
  -> a loop over the batch index.
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import Tensor


def semantic_probabilistic_iterative_inference(mask_cls: Tensor, mask_pred: Tensor,
                                               overlap_threshold: float) -> Tensor:
    mask_cls = F.softmax(mask_cls, dim=-1)[..., :-1]
    mask_pred = mask_pred.sigmoid()
    semseg = torch.einsum("qc,qhw->chw", mask_cls, mask_pred)

    _, labels = mask_cls.max(-1)
    keep = torch.ones((len(labels),), dtype=torch.bool, device=mask_pred.device)

    semseg_labels = torch.argmax(semseg, dim=0)
    for k in range(len(labels)):
        cat = labels[k]
        semseg_mask = semseg_labels == cat
        binary_mask = mask_pred[k] >= 0.5
        if torch.sum(semseg_mask & binary_mask) / torch.sum(binary_mask) < overlap_threshold:
            keep[k] = False

    semseg = torch.einsum("qc,qhw->chw", mask_cls[keep], mask_pred[keep])

    return semseg


def maskformer_semseg(pred_logits: Tensor, pred_masks: Tensor, img_h: int, img_w: int,
                      overlap_threshold: float) -> List[Tensor]:
    mask_cls_results = pred_logits
    mask_pred_results = pred_masks
    # upsample masks
    mask_pred_results = F.interpolate(
        mask_pred_results,
        size=(img_h, img_w),
        mode="bilinear", align_corners=False
    )

    processed_results: List[Tensor] = []
    for i in range(mask_cls_results.size(0)):
        r = semantic_probabilistic_iterative_inference(mask_cls_results[i], mask_pred_results[i],
                                                       overlap_threshold)
        processed_results.append(r)
    return processed_results


def example():
    b, q, c, h, w = 2, 10, 5, 8, 8
    return maskformer_semseg, {"pred_logits": torch.randn(b, q, c + 1) * 2,
                               "pred_masks": torch.randn(b, q, h, w) * 3,
                               "img_h": 32, "img_w": 32, "overlap_threshold": 0.3}
