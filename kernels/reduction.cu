// Block reduction: each block of 256 threads sums 256 consecutive elements (one per thread)
// with a shared-memory tree and writes one partial sum. The tree order is fixed, so the host
// replays it exactly.

extern "C" __global__ void __launch_bounds__(256)
block_reduce(const float* __restrict__ in, float* __restrict__ partial, unsigned long long n)
{
    __shared__ float s[256];
    const unsigned int t = threadIdx.x;
    const unsigned long long i = blockIdx.x * 256ull + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 128; stride > 0; stride >>= 1) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
    }
}
