"""A training step of a small transformer encoder (2 layers, d 1024, bf16 autocast) with
fused AdamW: forward on the main thread, backward on autograd's own thread, optimizer."""
import torch
from _measure import measure

layer = torch.nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True, norm_first=True)
model = torch.nn.TransformerEncoder(layer, 2).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
x = torch.randn(8, 512, 1024, device="cuda")


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


measure(step)
