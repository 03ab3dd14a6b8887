"""A torch.compile'd MLP block (LayerNorm, Linear, GELU, Linear, residual) with
max-autotune and Triton GEMM templates: triton_tem_*, triton_poi_*, triton_red_* kernels."""
import os
os.environ.setdefault("TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS", "TRITON")
import torch
from _measure import Block, measure



model = torch.nn.Sequential(Block(), Block()).cuda().to(torch.bfloat16).eval()
fn = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    measure(lambda: fn(x))
