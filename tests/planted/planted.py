"""Planted code changes for the work gate (issue 37): the same small program in a base form
and in six changed forms, chosen by VARIANT (default base):

  base         scale_add (y = relu(a*x + y), fused) and a 16 x 16 tiled SGEMM, 1024^3
  fma          scale_add does one more FMA per 32 elements (lane 0 of each warp)
  uncoalesced  scale_add reads x through a stride-33 permutation instead of in order
  split        scale_add split into two kernels (a*x + y, then relu): the fusion lost
  tile         the SGEMM with 32 x 32 tiles instead of 16 x 16
  copy         an extra device-to-device copy of y after scale_add (cudaMemcpyAsync: not
               a kernel, so ncu sees none of it; measured so on the H200)
  copy_kernel  the same extra copy made by a kernel (a kernel that appears)

The measured region is one pass of the kernels inside the process-wide NVTX start/end range
"measure"; kernels are compiled at run time (CuPy's RawKernel, NVRTC)."""
import os

import cupy as cp
import torch  # NVTX start/end ranges only (no CUDA use from torch)

VARIANT = os.environ.get("VARIANT", "base")
N = 1 << 24
M = 1024

SRC = r"""
extern "C" __global__ void scale_add(const float* x, float* y, float a, float b, float c,
                                     int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = stride == 1 ? i : (int)(((long long)i * stride) & (n - 1));
  float v = a * x[j] + y[i];
#ifdef EXTRA_FMA
  if ((i & 31) == 0) v = fmaf(v, b, c);
#endif
#ifndef SPLIT
  v = fmaxf(v, 0.0f);
#endif
  y[i] = v;
}

extern "C" __global__ void copy(const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i];
}

extern "C" __global__ void relu(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.0f);
}

extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int m) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < m; t += TILE) {
    As[threadIdx.y][threadIdx.x] = A[row * m + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * m + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * m + col] = acc;
}
"""

tile = 32 if VARIANT == "tile" else 16
options = [f"-DTILE={tile}"]
if VARIANT == "fma":
    options.append("-DEXTRA_FMA")
if VARIANT == "split":
    options.append("-DSPLIT")
module = cp.RawModule(code=SRC, options=tuple(options))
scale_add = module.get_function("scale_add")
relu = module.get_function("relu")
copy = module.get_function("copy")
sgemm = module.get_function("sgemm_tiled")

x = cp.random.standard_normal(N, dtype=cp.float32)
y = cp.random.standard_normal(N, dtype=cp.float32)
A = cp.random.standard_normal((M, M), dtype=cp.float32)
B = cp.random.standard_normal((M, M), dtype=cp.float32)
C = cp.zeros((M, M), dtype=cp.float32)
z = cp.empty_like(y)
stride = 33 if VARIANT == "uncoalesced" else 1


def step():
    args = (x, y, cp.float32(1.5), cp.float32(1.0), cp.float32(0.0), cp.int32(N), cp.int32(stride))
    scale_add(((N + 255) // 256,), (256,), args)
    if VARIANT == "split":
        relu(((N + 255) // 256,), (256,), (y, cp.int32(N)))
    if VARIANT == "copy":
        z[...] = y
    if VARIANT == "copy_kernel":
        copy(((N + 255) // 256,), (256,), (y, z, cp.int32(N)))
    sgemm((M // tile, M // tile), (tile, tile), (A, B, C, cp.int32(M)))


step()  # warm-up: compiles and loads the module outside the range
cp.cuda.Device().synchronize()
rid = torch.cuda.nvtx.range_start("measure")
step()
cp.cuda.Device().synchronize()
torch.cuda.nvtx.range_end(rid)
print(f"{VARIANT}: y[0:4] = {cp.asnumpy(y[:4])}, C[0,0] = {float(C[0, 0]):.4f}")
