// Input generation and output poisoning for the suite, on the device.
//
// Every input element is a pure function of its index and a seed (splitmix64, top 24 bits,
// mapped to [-1, 1) exactly), so the host recomputes any input value for its CPU reference
// without copying gigabytes back and forth. capture/src/gpu/data.rs holds the same function.
// These kernels are excluded from the ncu pass by its kernel-name filter.

__device__ __forceinline__ float hash_value(unsigned long long i, unsigned long long seed)
{
    unsigned long long z = i + (seed + 1ull) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    return static_cast<float>(static_cast<unsigned int>(z >> 40)) * (1.0f / 8388608.0f) - 1.0f;
}

extern "C" __global__ void fill_hash_f32(float* __restrict__ out, unsigned long long n,
                                         unsigned long long seed)
{
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
         i < n; i += stride) {
        out[i] = hash_value(i, seed);
    }
}

extern "C" __global__ void fill_hash_f64(double* __restrict__ out, unsigned long long n,
                                         unsigned long long seed)
{
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
         i < n; i += stride) {
        out[i] = static_cast<double>(hash_value(i, seed));
    }
}

// Fills n 32-bit words with one bit pattern (0xFFFFFFFF is a NaN in f32 and, in pairs, in f64):
// every output is poisoned before a checked launch, so an element the kernel never wrote fails.
extern "C" __global__ void fill_bits_u32(unsigned int* __restrict__ out, unsigned long long n,
                                         unsigned int bits)
{
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
         i < n; i += stride) {
        out[i] = bits;
    }
}
