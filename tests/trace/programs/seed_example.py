"""The course's first Nsight Systems example, as a trace checks it: `fused` launched twice,
`scale` and `add` once each (nsys's kernel summary: 2, 1 and 1 instances), plus what only a
trace sees: a host-to-device and a device-to-host copy, a memory set, an idle gap of about
20 ms on the CPU, a push/pop range on the main thread, a process-wide start/end range, and a
kernel launched from a second thread inside the start/end range (a push/pop range does not
hold it; the start/end range does). Kernels compiled at run time by CuPy (NVRTC);
torch only for NVTX."""
import threading
import time

import cupy as cp
import numpy as np
import torch  # NVTX ranges only

SRC = r"""
extern "C" __global__ void fused(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(a * x[i] + y[i], 0.0f);
}
extern "C" __global__ void scale(float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i];
}
extern "C" __global__ void add(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + y[i];
}
"""
mod = cp.RawModule(code=SRC)
fused, scale, add = (mod.get_function(n) for n in ("fused", "scale", "add"))
N = 1 << 24
host = np.ones(N, dtype=np.float32)
nv = torch.cuda.nvtx
grid, block = ((N + 255) // 256,), (256,)

rid = nv.range_start("program")
nv.range_push("setup")
x = cp.asarray(host)  # host to device
y = cp.zeros(N, dtype=cp.float32)  # a memory set
nv.range_pop()
nv.range_push("compute")
fused(grid, block, (x, y, cp.float32(2.0), cp.int32(N)))
fused(grid, block, (x, y, cp.float32(3.0), cp.int32(N)))
scale(grid, block, (y, cp.float32(0.5), cp.int32(N)))
cp.cuda.Device().synchronize()
nv.range_pop()
time.sleep(0.02)  # the GPU idles while the CPU works


def other_thread():
    add(grid, block, (x, y, cp.int32(N)))
    cp.cuda.Device().synchronize()


t = threading.Thread(target=other_thread)
t.start()
t.join()
back = cp.asnumpy(y)  # device to host
nv.range_end(rid)
assert back[0] == 3.5, back[0]  # ((2 + 3) * 0.5) + 1
print("ok", back[0])
