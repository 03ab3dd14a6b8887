// One explicit step of the 2-D heat equation (5-point stencil) on an nx x ny grid; interior
// points only, the boundary of `out` is left untouched. heat_step_global reads its five
// inputs from global memory; heat_step_tiled stages a 16 x 16 tile plus a one-cell apron in
// shared memory first. Both compute, per interior point,
//   lap = (north + south) + (west + east) - 4 c;  out = c + alpha * lap
// written with explicit fmaf so both kernels and the host agree bit for bit (7 FLOPs).

#define B 16

extern "C" __global__ void heat_step_global(const float* __restrict__ in, float* __restrict__ out,
                                            int nx, int ny, float alpha)
{
    const int x = blockIdx.x * B + threadIdx.x;
    const int y = blockIdx.y * B + threadIdx.y;
    if (x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1) {
        const size_t i = static_cast<size_t>(y) * nx + x;
        const float c = in[i];
        const float lap = fmaf(-4.0f, c, (in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));
        out[i] = fmaf(alpha, lap, c);
    }
}

extern "C" __global__ void heat_step_tiled(const float* __restrict__ in, float* __restrict__ out,
                                           int nx, int ny, float alpha)
{
    __shared__ float t[B + 2][B + 2];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int x = blockIdx.x * B + tx;
    const int y = blockIdx.y * B + ty;
    const size_t i = static_cast<size_t>(y) * nx + x;
    if (x < nx && y < ny) {
        t[ty + 1][tx + 1] = in[i];
        if (tx == 0 && x > 0) t[ty + 1][0] = in[i - 1];
        if (tx == B - 1 && x + 1 < nx) t[ty + 1][B + 1] = in[i + 1];
        if (ty == 0 && y > 0) t[0][tx + 1] = in[i - nx];
        if (ty == B - 1 && y + 1 < ny) t[B + 1][tx + 1] = in[i + nx];
    }
    __syncthreads();
    if (x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1) {
        const float c = t[ty + 1][tx + 1];
        const float lap =
            fmaf(-4.0f, c, (t[ty][tx + 1] + t[ty + 2][tx + 1]) + (t[ty + 1][tx] + t[ty + 1][tx + 2]));
        out[i] = fmaf(alpha, lap, c);
    }
}
