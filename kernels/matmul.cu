// Square matrix product C = A x B (n x n, row-major), naive and with 16 x 16 shared-memory
// tiles. Both launch 16 x 16 threads per block, one output element per thread. The tiled
// kernel requires n % 16 == 0 (the suite uses n = 512, so no guard ever fires).

#define TILE 16

extern "C" __global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, int n)
{
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < n; ++p) {
            acc = fmaf(a[row * n + p], b[p * n + col], acc);
        }
        c[row * n + col] = acc;
    }
}

extern "C" __global__ void matmul_tiled16(const float* __restrict__ a,
                                          const float* __restrict__ b, float* __restrict__ c,
                                          int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; ++p) {
            acc = fmaf(ta[threadIdx.y][p], tb[p][threadIdx.x], acc);
        }
        __syncthreads();
    }
    c[row * n + col] = acc;
}
