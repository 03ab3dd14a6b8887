"""A torch.compile'd MLP block (LayerNorm, Linear, GELU, Linear, residual) with
max-autotune and Triton GEMM templates: triton_tem_*, triton_poi_*, triton_red_* kernels."""
import os
os.environ.setdefault("TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS", "TRITON")
import torch
from _measure import measure


class Block(torch.nn.Module):
    def __init__(self, d=1024, h=4096):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, h)
        self.down = torch.nn.Linear(h, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


model = torch.nn.Sequential(Block(), Block()).cuda().to(torch.bfloat16).eval()
fn = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    measure(lambda: fn(x))
