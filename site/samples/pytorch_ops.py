"""A small PyTorch workload for `capture profile -- python3 pytorch_ops.py`.

One matrix product (FP32, TF32 off, so the FLOP counters see FFMA), one softmax and one
layer norm, each launched once on freshly generated data and checked against a float64
reference on the CPU, so the profiled kernels are known to compute the right thing.
"""

import sys

import torch


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    dev = torch.device("cuda")

    a = torch.randn(2048, 2048, device=dev, generator=gen)
    b = torch.randn(2048, 2048, device=dev, generator=gen)
    x = torch.randn(8192, 4096, device=dev, generator=gen)
    norm = torch.nn.LayerNorm(4096, device=dev)

    c = a @ b
    s = torch.softmax(x, dim=-1)
    y = norm(x)
    torch.cuda.synchronize()

    # References on the CPU in float64, so no extra kernels appear in the profile.
    a64, b64, x64 = a.cpu().double(), b.cpu().double(), x.cpu().double()
    c_ref = a64 @ b64
    rel = ((c.cpu().double() - c_ref).norm() / c_ref.norm()).item()
    rows = s.cpu().double().sum(dim=-1)
    y_ref = torch.nn.functional.layer_norm(x64, (4096,))
    ln_err = (y.cpu().double() - y_ref).abs().max().item()
    ok = rel < 1e-4 and (rows - 1).abs().max().item() < 1e-4 and ln_err < 1e-3
    print(f"matmul rel err {rel:.2e}, softmax row-sum err {(rows - 1).abs().max().item():.2e}, "
          f"layer norm max err {ln_err:.2e}: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
