"""torchvision ResNet-18, channels-last bf16, batch 64: cuDNN convolutions."""
import torch
import torchvision
from _measure import measure

model = torchvision.models.resnet18().cuda().to(torch.bfloat16).eval()
model = model.to(memory_format=torch.channels_last)
x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
x = x.to(memory_format=torch.channels_last)
with torch.no_grad():
    measure(lambda: model(x))
