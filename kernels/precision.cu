// The FP64/FP32 pair: the same 64-step Horner chain per element, once in single and once in
// double precision. 128 FLOPs per element; 8 bytes per element in FP32, 16 in FP64, so the
// pair shows both a precision's own compute roof and the bytes a wider type costs.

#define STEPS 64

extern "C" __global__ void horner64_f32(const float* __restrict__ in, float* __restrict__ out,
                                        unsigned long long n, float add)
{
    const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    if (i < n) {
        const float x = in[i];
        float acc = x;
#pragma unroll 16
        for (int k = 0; k < STEPS; ++k) {
            acc = fmaf(acc, x, add);
        }
        out[i] = acc;
    }
}

extern "C" __global__ void horner64_f64(const double* __restrict__ in, double* __restrict__ out,
                                        unsigned long long n, double add)
{
    const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    if (i < n) {
        const double x = in[i];
        double acc = x;
#pragma unroll 16
        for (int k = 0; k < STEPS; ++k) {
            acc = fma(acc, x, add);
        }
        out[i] = acc;
    }
}
