"""Held out (issue 34): torchvision MobileNetV2 inference, channels-last bf16, batch 64:
cuDNN depthwise and pointwise convolutions, ReLU6, batch norm folded at run time."""
import torch
import torchvision
from _measure import measure

model = torchvision.models.mobilenet_v2().cuda().to(torch.bfloat16).eval()
model = model.to(memory_format=torch.channels_last)
x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
x = x.to(memory_format=torch.channels_last)
with torch.no_grad():
    measure(lambda: model(x))
