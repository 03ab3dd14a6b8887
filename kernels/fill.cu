// Input generation and output poisoning for the suite, on the device.
//
// Every input element is a pure function of its index and a seed (splitmix64, top 24 bits,
// mapped to [-1, 1) exactly), so the host recomputes any input value for its CPU reference
// without copying gigabytes back and forth. capture/src/gpu/data.rs holds the same function.
// These kernels are excluded from the ncu pass by its kernel-name filter.

__device__ __forceinline__ unsigned long long hash_bits(unsigned long long i,
                                                        unsigned long long seed)
{
    unsigned long long z = i + (seed + 1ull) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ float hash_value(unsigned long long i, unsigned long long seed)
{
    const unsigned long long z = hash_bits(i, seed);
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

// Inputs of the tensor-core matrix products, as raw bit patterns of narrow types, so no
// header is needed. Element i starts from hash_value(i, seed), an f32 x in [-1, 1), and keeps
// what the format can hold exactly, truncating the mantissa (capture/src/gpu/tensor.rs,
// `Format`, holds the same function and the format codes):
//   0 bf16: the top 16 bits of x.                     1 fp16: x to 10 mantissa bits, 0 below 2^-14.
//   2 fp8 e4m3: x to 3 mantissa bits, 0 below 2^-6.   3 tf32: x with 13 low mantissa bits cleared.
//   4 int8: the top 8 bits of the hash.               5 fp64: x as a double.
extern "C" __global__ void fill_gemm(unsigned char* __restrict__ out, unsigned long long n,
                                     unsigned long long seed, int format)
{
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
         i < n; i += stride) {
        const unsigned long long z = hash_bits(i, seed);
        const float x = static_cast<float>(static_cast<unsigned int>(z >> 40)) * (1.0f / 8388608.0f) - 1.0f;
        const unsigned int b = __float_as_uint(x);
        const unsigned int e = (b >> 23) & 0xFFu;
        switch (format) {
        case 0:
            reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(b >> 16);
            break;
        case 1: {
            unsigned int h = (b >> 16) & 0x8000u;
            if (e >= 113u) {
                h |= ((e - 112u) << 10) | ((b >> 13) & 0x3FFu);
            }
            reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(h);
            break;
        }
        case 2: {
            unsigned int q = (b >> 24) & 0x80u;
            if (e >= 121u) {
                q |= ((e - 120u) << 3) | ((b >> 20) & 0x7u);
            }
            out[i] = static_cast<unsigned char>(q);
            break;
        }
        case 3:
            reinterpret_cast<unsigned int*>(out)[i] = b & 0xFFFFE000u;
            break;
        case 4:
            out[i] = static_cast<unsigned char>(z >> 56);
            break;
        default:
            reinterpret_cast<double*>(out)[i] = static_cast<double>(x);
            break;
        }
    }
}
