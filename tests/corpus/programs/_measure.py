"""Shared by the corpus programs: warm up, then run the measured region once inside a
process-wide NVTX start/end range named "measure" (a push/pop range is per thread and would
miss work launched from other threads, such as PyTorch's autograd engine)."""
import torch


def measure(step, warmup=2):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    rid = torch.cuda.nvtx.range_start("measure")
    step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_end(rid)
