"""torchvision ResNet-18's stem and first stage (conv 7x7, batch norm, max pool, four 3x3
convolutions), channels-last bf16, batch 64: cuDNN convolutions."""
import torch
import torchvision
from _measure import measure

net = torchvision.models.resnet18()
model = torch.nn.Sequential(net.conv1, net.bn1, net.relu, net.maxpool, net.layer1)
model = model.cuda().to(torch.bfloat16).eval().to(memory_format=torch.channels_last)
x = torch.randn(64, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
x = x.to(memory_format=torch.channels_last)
with torch.no_grad():
    measure(lambda: model(x))
