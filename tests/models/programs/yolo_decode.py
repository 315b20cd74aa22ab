"""YOLOv3-style box decoding, in place (TensorSSA paper workload).

The raw head output is decoded through slice assignments on the input itself:
sigmoid(xy) + grid cell offsets, exp(wh) * anchors, sigmoid objectness and
class scores. The input is mutated and a view of it is returned.
"""
import torch


def yolo_decode(pred, anchors, stride: int):
    # pred: [B, A, H, W, 5 + C]; anchors: [A, 2] in pixels.
    B, A, H, W, K = pred.shape
    grid_y, grid_x = torch.meshgrid(torch.arange(H, device=pred.device),
                                    torch.arange(W, device=pred.device), indexing="ij")
    grid = torch.stack((grid_x, grid_y), dim=-1).to(pred.dtype)
    pred[..., 0:2] = (torch.sigmoid(pred[..., 0:2]) + grid) * stride
    pred[..., 2:4] = torch.exp(pred[..., 2:4]) * anchors.view(1, A, 1, 1, 2)
    pred[..., 4:] = torch.sigmoid(pred[..., 4:])
    return pred.view(B, -1, K)


def example():
    inputs = {
        "pred": torch.randn(1, 3, 4, 4, 7),
        "anchors": torch.tensor([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]]),
        "stride": 8,
    }
    return yolo_decode, inputs
