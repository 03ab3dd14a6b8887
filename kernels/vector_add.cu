// Vector add, coalesced and stride 32. Both kernels add the same n elements (same asked
// bytes: read a and b, write c); the second visits them in a permuted order in which
// neighbouring threads touch elements 32 floats (128 bytes) apart, so every float a warp
// loads costs it a sector of its own. Requires n % 32 == 0.

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, unsigned long long n)
{
    const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

extern "C" __global__ void vector_add_stride32(const float* __restrict__ a,
                                               const float* __restrict__ b,
                                               float* __restrict__ c, unsigned long long n)
{
    const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    if (t < n) {
        const unsigned long long rows = n / 32ull;
        const unsigned long long i = (t % rows) * 32ull + t / rows;
        c[i] = a[i] + b[i];
    }
}
