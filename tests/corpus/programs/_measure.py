"""Shared by the corpus programs: warm up, then run the measured region once inside a
process-wide NVTX start/end range named "measure" (a push/pop range is per thread and would
miss work launched from other threads, such as PyTorch's autograd engine)."""
import torch


# The MLP block of compiled_mlp.py and train_step.py: LayerNorm, Linear d -> h, GELU,
# Linear h -> d, residual.
class Block(torch.nn.Module):
    def __init__(self, d=1024, h=4096):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, h)
        self.down = torch.nn.Linear(h, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def measure(step, warmup=2):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    rid = torch.cuda.nvtx.range_start("measure")
    step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_end(rid)
