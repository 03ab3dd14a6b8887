"""Held out (issue 34): a torchvision ResNet-18 training step, bf16 autocast, channels
last, batch 32 at 128 x 128, SGD with momentum: cuDNN's forward, data-gradient and
weight-gradient convolutions, batch-norm backward, the optimizer's foreach kernels."""
import torch
import torchvision
from _measure import measure

model = torchvision.models.resnet18().cuda().to(memory_format=torch.channels_last).train()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(32, 3, 128, 128, device="cuda").to(memory_format=torch.channels_last)
y = torch.randint(0, 1000, (32,), device="cuda")


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


measure(step)
