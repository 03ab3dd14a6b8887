// Matrix transpose of a width x height row-major matrix, naive and through a shared-memory
// tile. Both use 32 x 8 threads per 32 x 32 tile (each thread moves four elements), so the
// launch shapes are identical and only the access pattern differs: the naive kernel's writes
// are strided by `height` floats, the tiled kernel's reads and writes are both coalesced.

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                           int width, int height)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y0 = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        const int y = y0 + k;
        if (x < width && y < height) {
            out[static_cast<size_t>(x) * height + y] = in[static_cast<size_t>(y) * width + x];
        }
    }
}

extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                           int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        if (x < width && y + k < height) {
            tile[threadIdx.y + k][threadIdx.x] = in[static_cast<size_t>(y + k) * width + x];
        }
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        if (x < height && y + k < width) {
            out[static_cast<size_t>(y + k) * height + x] = tile[threadIdx.x][threadIdx.y + k];
        }
    }
}
