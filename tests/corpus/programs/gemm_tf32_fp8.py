"""cuBLAS GEMMs in TF32 (fp32 tensors, TF32 allowed) and FP8 (torch._scaled_mm, e4m3),
at sizes from under one wave to many."""
import torch
from _measure import measure

torch.backends.cuda.matmul.allow_tf32 = True
shapes = [(4096, 768, 768), (4096, 3072, 768), (8192, 8192, 8192)]
tf32 = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")) for m, n, k in shapes]
fp8 = []
for m, n, k in shapes:
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    fp8.append((a, b))
one = torch.tensor(1.0, device="cuda")


def step():
    for a, b in tf32:
        a @ b
    for a, b in fp8:
        torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


measure(step)
