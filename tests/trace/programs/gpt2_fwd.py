"""A Hugging Face GPT-2 (124M, random weights: no download) in bf16, batch 8 x 512, forward
only: two warm-up forwards, then STEPS (default 10) forwards, each inside a process-wide NVTX
start/end range "forward". Prints the measured loop's wall time (`loop_s`)."""
import os
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config()).cuda().to(torch.bfloat16).eval()
ids = torch.randint(0, 50257, (8, 512), device="cuda")
steps = int(os.environ.get("STEPS", "10"))
with torch.no_grad():
    for _ in range(2):
        model(ids)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        rid = torch.cuda.nvtx.range_start("forward")
        model(ids)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_end(rid)
print(f"loop_s={time.perf_counter() - t0:.4f} steps={steps}")
