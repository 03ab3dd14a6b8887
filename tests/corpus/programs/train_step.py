"""A training step of a two-block MLP (LayerNorm, Linear 1024 -> 4096, GELU, Linear, residual;
bf16 autocast, batch 8192) with fused AdamW: forward on the main thread, backward on
autograd's own thread, then the optimizer."""
import torch
from _measure import Block, measure



model = torch.nn.Sequential(Block(), Block()).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
x = torch.randn(8192, 1024, device="cuda")


def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


measure(step)
