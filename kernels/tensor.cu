// A matrix product on tensor cores: C = A B, with A (M x K) and B (K x N) in bf16 and C in
// fp32, accumulated in fp32. A is row-major; B is stored column-major (as its transpose, N x K
// row-major), which is the layout the tensor-core instruction's B operand wants, so both
// operands are read along k.
//
// The instruction is mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, written as inline
// PTX (NVRTC needs no header for it): one warp multiplies a 16 x 16 tile of A by a 16 x 8 tile
// of B and adds the 16 x 8 product to its accumulators, 2 x 16 x 8 x 16 = 4096 FLOPs per
// instruction. Each of the 32 threads holds a fixed piece of every tile in registers (the
// "fragments" below, from the PTX ISA's layout tables).
//
// Tiling: a block of 128 threads (4 warps) computes a 64 x 64 tile of C. For each step of 32
// along k, the block copies a 64 x 32 slice of A and one of B into shared memory, 16 bytes per
// copy; each warp then computes its 32 x 32 quarter as 2 x 4 tiles of 16 x 8, two k16 steps
// per slice: 16 mma instructions per warp per slice. Rows of the shared tiles are padded from
// 32 to 40 elements so that the eight rows a fragment load touches fall in different banks.
//
// Requires M, N multiples of 64 and K a multiple of 32 (the suite uses M = N = K = 2048), so
// there are no partial tiles: every mma does useful work, and ncu's tensor FLOP count
// (sm__ops_path_tensor_src_bf16_dst_fp32.sum) equals 2 M N K exactly.

#define TILE_M 64
#define TILE_N 64
#define TILE_K 32
#define PAD_K 40

// Four bytes (two bf16) from shared memory, as the mma operand registers hold them: the
// element with the lower k in the low half.
__device__ __forceinline__ unsigned int pair(const unsigned short* p)
{
    return *reinterpret_cast<const unsigned int*>(p);
}

extern "C" __global__ void __launch_bounds__(128)
matmul_bf16_mma(const unsigned short* __restrict__ a, const unsigned short* __restrict__ bt,
                float* __restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) unsigned short as[TILE_M][PAD_K];
    __shared__ __align__(16) unsigned short bs[TILE_N][PAD_K];

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int group = lane >> 2;  // "groupID" in the PTX fragment tables
    const int quad = lane & 3;    // "threadID_in_group"
    const int warp_row = (warp >> 1) * 32;
    const int warp_col = (warp & 1) * 32;
    const int block_row = blockIdx.y * TILE_M;
    const int block_col = blockIdx.x * TILE_N;

    float acc[2][4][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += TILE_K) {
        // 64 rows x 32 bf16 = 256 copies of 16 bytes per operand: two per thread.
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int idx = tid + i * 128;
            const int row = idx >> 2;
            const int col = (idx & 3) * 8;
            *reinterpret_cast<uint4*>(&as[row][col]) =
                *reinterpret_cast<const uint4*>(&a[(size_t)(block_row + row) * k + k0 + col]);
            *reinterpret_cast<uint4*>(&bs[row][col]) =
                *reinterpret_cast<const uint4*>(&bt[(size_t)(block_col + row) * k + k0 + col]);
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < TILE_K; kk += 16) {
            // A fragment of a 16 x 16 tile: rows group and group + 8, columns 2 quad (+1)
            // and 2 quad + 8 (+1).
            unsigned int fa[2][4];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int r = warp_row + i * 16 + group;
                fa[i][0] = pair(&as[r][kk + 2 * quad]);
                fa[i][1] = pair(&as[r + 8][kk + 2 * quad]);
                fa[i][2] = pair(&as[r][kk + 2 * quad + 8]);
                fa[i][3] = pair(&as[r + 8][kk + 2 * quad + 8]);
            }
            // B fragment of a 16 x 8 tile: column group, rows 2 quad (+1) and 2 quad + 8 (+1).
            unsigned int fb[4][2];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int col = warp_col + j * 8 + group;
                fb[j][0] = pair(&bs[col][kk + 2 * quad]);
                fb[j][1] = pair(&bs[col][kk + 2 * quad + 8]);
            }
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    asm volatile(
                        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                        : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]),
                          "+f"(acc[i][j][3])
                        : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]), "r"(fa[i][3]),
                          "r"(fb[j][0]), "r"(fb[j][1]));
        }
        __syncthreads();
    }

    // Accumulator fragment of a 16 x 8 tile: rows group and group + 8, columns 2 quad (+1).
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int row = block_row + warp_row + i * 16 + group;
            const int col = block_col + warp_col + j * 8 + 2 * quad;
            *reinterpret_cast<float2*>(&c[(size_t)row * n + col]) =
                make_float2(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<float2*>(&c[(size_t)(row + 8) * n + col]) =
                make_float2(acc[i][j][2], acc[i][j][3]);
        }
}
