"""20,000 short kernel launches (a 4 KiB tensor updated in place, each launch a few µs):
the program where a trace's cost per launch shows, if it has one. Prints the loop's wall
time (`loop_s`), measured inside the program, so the trace's cost on the loop alone can be
told from the cost of starting Python and CUDA."""
import os
import time

import torch

N = int(os.environ.get("LAUNCHES", "20000"))
x = torch.zeros(1024, device="cuda")
for _ in range(100):  # warm-up
    x.add_(1.0)
torch.cuda.synchronize()
t0 = time.perf_counter()
rid = torch.cuda.nvtx.range_start("loop")
for _ in range(N):
    x.add_(1.0)
torch.cuda.synchronize()
torch.cuda.nvtx.range_end(rid)
print(f"loop_s={time.perf_counter() - t0:.4f} launches={N}")
assert float(x[0]) == N + 100
