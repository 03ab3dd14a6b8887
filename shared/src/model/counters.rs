//! The catalog of Nsight Compute counters: every raw-page metric a view, table or chart
//! reads, once, with its unit and what it measures.
//!
//! Nothing else in the workspace spells a counter name. [`crate::analysis::metrics`] reads launches
//! through these constants; `capture` asks ncu for [`PROFILE`], [`STALLS`] and [`TENSOR`]
//! and checks that each came back (of the last two, those of the export's architecture);
//! the fuzz seeds and the tests build their lists from [`all`]. A test in
//! `tests/tests/catalog/invariants.rs` fails when `capture/src` or `viewer/src` spells a counter name
//! of its own.

/// One ncu raw-page metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Counter {
    /// The metric name exactly as ncu prints it (`dram__bytes_read.sum`).
    pub name: &'static str,
    /// Its base unit as the reader stores it (`byte`, `ns`, `inst`, `%`, `hz`, ... or empty).
    pub unit: &'static str,
    /// What it measures, in one line for people.
    pub meaning: &'static str,
}

impl std::fmt::Display for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! counters {
    ($(#[$list_doc:meta])* $list:ident { $($id:ident = $name:literal, $unit:literal, $meaning:literal;)* }) => {
        $(
            #[doc = concat!("`", $name, "` (", $unit, "): ", $meaning, ".")]
            pub const $id: Counter = Counter { name: $name, unit: $unit, meaning: $meaning };
        )*
        $(#[$list_doc])*
        pub const $list: &[Counter] = &[$($id),*];
    };
}

counters! {
    /// Every counter `capture` asks ncu for by name (`--metrics`), beside its sections. ncu
    /// silently drops a name it does not know, so capture checks that each one came back.
    PROFILE {
    GPU_TIME_DURATION = "gpu__time_duration.sum", "ns", "kernel duration as ncu measured it (replayed, possibly at locked clocks)";
    DRAM_BYTES_READ = "dram__bytes_read.sum", "byte", "bytes read from device memory";
    DRAM_BYTES_WRITE = "dram__bytes_write.sum", "byte", "bytes written to device memory";
    DRAM_SECTORS_READ = "dram__sectors_read.sum", "sector", "32-byte sectors read from device memory";
    DRAM_SECTORS_WRITE = "dram__sectors_write.sum", "sector", "32-byte sectors written to device memory";
    DRAM_BYTES = "dram__bytes.sum", "byte", "bytes read plus written in device memory";
    L2_BYTES = "lts__t_bytes.sum", "byte", "bytes through the L2 slices, every client";
    L2_SECTORS = "lts__t_sectors.sum", "sector", "32-byte sectors through the L2 slices";
    L1_BYTES = "l1tex__t_bytes.sum", "byte", "bytes through the L1/TEX cache";
    L1_REQUESTS_GLOBAL_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request", "global-load requests (one per warp instruction) at L1/TEX";
    L1_SECTORS_GLOBAL_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "32-byte sectors global loads touched at L1/TEX";
    L1_REQUESTS_GLOBAL_ST = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "request", "global-store requests at L1/TEX";
    L1_SECTORS_GLOBAL_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector", "32-byte sectors global stores touched at L1/TEX";
    SHARED_LD_INST = "smsp__sass_inst_executed_op_shared_ld.sum", "inst", "shared-memory load instructions (warp level)";
    SHARED_ST_INST = "smsp__sass_inst_executed_op_shared_st.sum", "inst", "shared-memory store instructions (warp level)";
    FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "FP32 adds executed by threads";
    FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "FP32 multiplies executed by threads";
    FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "FP32 fused multiply-adds executed by threads";
    DADD = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", "FP64 adds executed by threads";
    DMUL = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", "FP64 multiplies executed by threads";
    DFMA = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", "FP64 fused multiply-adds executed by threads";
    HADD = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst", "FP16 add instructions executed by threads (each may be a packed half2)";
    HMUL = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "inst", "FP16 multiply instructions executed by threads (each may be a packed half2)";
    HFMA = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", "FP16 fused multiply-add instructions executed by threads (each may be a packed half2)";
    SM_THROUGHPUT_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "Compute (SM) Throughput: the busiest SM unit, % of its peak";
    MEMORY_THROUGHPUT_PCT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", "Memory Throughput: the busiest memory unit, % of its peak (not DRAM)";
    DRAM_THROUGHPUT_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "DRAM Throughput, % of peak";
    L2_THROUGHPUT_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%", "L2 Cache Throughput, % of peak";
    L1_THROUGHPUT_PCT = "l1tex__throughput.avg.pct_of_peak_sustained_active", "%", "L1/TEX Cache Throughput, % of peak";
    L2_HIT_PCT = "lts__t_sector_hit_rate.pct", "%", "L2 sector hit rate";
    L1_HIT_PCT = "l1tex__t_sector_hit_rate.pct", "%", "L1/TEX sector hit rate";
    ACHIEVED_OCCUPANCY_PCT = "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "achieved occupancy: active warps, % of the SM's maximum";
    THEORETICAL_OCCUPANCY_PCT = "sm__maximum_warps_per_active_cycle_pct", "%", "theoretical occupancy from the launch configuration";
    LIMIT_BLOCKS = "launch__occupancy_limit_blocks", "block", "blocks per SM allowed by the SM's block slots";
    LIMIT_REGISTERS = "launch__occupancy_limit_registers", "block", "blocks per SM allowed by registers";
    LIMIT_SHARED_MEM = "launch__occupancy_limit_shared_mem", "block", "blocks per SM allowed by shared memory";
    LIMIT_WARPS = "launch__occupancy_limit_warps", "block", "blocks per SM allowed by warps";
    REGISTERS_PER_THREAD = "launch__registers_per_thread", "register/thread", "registers per thread";
    SM_HZ = "sm__cycles_elapsed.avg.per_second", "hz", "SM clock during the launch";
    DRAM_HZ = "dram__cycles_elapsed.avg.per_second", "hz", "DRAM clock during the launch";
}}

counters! {
    /// Device attributes: every raw page carries these without being asked.
    DEVICE {
    DEVICE_NAME = "device__attribute_display_name", "", "the GPU's name";
    CC_MAJOR = "device__attribute_compute_capability_major", "", "compute capability, major";
    CC_MINOR = "device__attribute_compute_capability_minor", "", "compute capability, minor";
    SM_COUNT = "device__attribute_multiprocessor_count", "", "streaming multiprocessors";
    SM_CLOCK_KHZ = "device__attribute_clock_rate", "khz", "SM clock attribute, in kHz as the CUDA attribute";
    MEMORY_CLOCK_KHZ = "device__attribute_memory_clock_rate", "khz", "memory clock attribute, in kHz";
    BUS_WIDTH_BITS = "device__attribute_global_memory_bus_width", "bit", "memory bus width";
    L2_CACHE_BYTES = "device__attribute_l2_cache_size", "byte", "L2 cache size";
    TOTAL_MEMORY_BYTES = "device__attribute_total_memory", "byte", "device memory size";
    LAUNCH_DEVICE_ID = "launch__device_id", "", "the CUDA device ordinal the launch ran on";
}}

counters! {
    /// Read where an export has them (ncu's own roofline sections collect them), never asked
    /// for by name: the cycles that per-cycle values are multiplied by, the L1 and L2 bytes of
    /// ncu's hierarchical roofline (carried only as rates).
    ROOFLINE_SET {
    SM_CYCLES = "sm__cycles_elapsed.avg", "cycle", "SM cycles elapsed during the launch, mean over SMs";
    L1_LGDS_BYTES = "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum", "byte", "L1 bytes of ncu's hierarchical roofline (local, global, distributed shared)";
    L2_XBAR_BYTES = "derived__lts__lts2xbar_bytes.sum", "byte", "L2-to-crossbar bytes of ncu's hierarchical roofline";
}}

counters! {
    /// Warp-state counters (ncu's WarpStateStats section, in `--set full`): for each reason,
    /// the mean number of warps in that state per cycle in which the scheduler issued, so
    /// the reasons sum to ncu's warp cycles per issued instruction. The union over
    /// architectures, in the H200's order; [`stall_reasons`] says which one has which.
    /// `capture profile` asks for every one (ncu drops those a GPU lacks) and checks those
    /// of the export's architecture; [`crate::analysis::latency::stalls`] explains each.
    STALLS {
    STALL_BARRIER = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "inst", "warps waiting at a block-wide barrier, per issue-active cycle";
    STALL_BRANCH_RESOLVING = "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio", "inst", "warps waiting for a branch target to be resolved, per issue-active cycle";
    STALL_DISPATCH_STALL = "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", "inst", "warps selected but held back by a dispatch interlock, per issue-active cycle";
    STALL_DRAIN = "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio", "inst", "warps after exit, waiting for memory stores to drain, per issue-active cycle";
    STALL_GMMA = "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio", "inst", "warps waiting on warpgroup MMA (wgmma) resources or results (CC 9.0), per issue-active cycle";
    STALL_IMC_MISS = "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio", "inst", "warps waiting for an immediate-constant cache miss, per issue-active cycle";
    STALL_LG_THROTTLE = "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", "inst", "warps waiting for room in the local/global memory instruction queue, per issue-active cycle";
    STALL_LONG_SCOREBOARD = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "inst", "warps waiting on an L1TEX result: global, local, surface or texture memory, per issue-active cycle";
    STALL_MATH_PIPE_THROTTLE = "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", "inst", "warps waiting for a busy math pipe, per issue-active cycle";
    STALL_MEMBAR = "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio", "inst", "warps waiting at a memory barrier (fence), per issue-active cycle";
    STALL_MIO_THROTTLE = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "inst", "warps waiting for room in the MIO instruction queue (shared memory, special math), per issue-active cycle";
    STALL_MISC = "smsp__average_warps_issue_stalled_misc_per_issue_active.ratio", "inst", "warps miscellaneous hardware reasons, per issue-active cycle";
    STALL_NO_INSTRUCTION = "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio", "inst", "warps waiting for an instruction to be fetched, per issue-active cycle";
    STALL_NOT_SELECTED = "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "inst", "warps eligible, but another warp was selected to issue, per issue-active cycle";
    STALL_SELECTED = "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", "inst", "warps selected: the warp issued (one per issued instruction, not a stall), per issue-active cycle";
    STALL_SHORT_SCOREBOARD = "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "inst", "warps waiting on an MIO result: shared memory or special math, per issue-active cycle";
    STALL_SLEEPING = "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio", "inst", "warps all threads of the warp asleep or blocked (nanosleep, yield), per issue-active cycle";
    STALL_TEX_THROTTLE = "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio", "inst", "warps waiting for room in the texture unit's queue, per issue-active cycle";
    STALL_WAIT = "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "inst", "warps waiting a fixed number of cycles on an execution dependency, per issue-active cycle";
}}

/// The warp-state counters of a compute capability: CC 7.0 to 8.9 have every reason of
/// [`STALLS`] but `gmma` (Hopper's warpgroup MMA); CC 9.0 has all of them. Other
/// architectures get the CC 7.0 list: reasons a newer GPU adds or drops were not seen
/// here, and the breakdown uses whichever reasons an export carries.
pub fn stall_reasons(major: u32, minor: u32) -> &'static [Counter] {
    const VOLTA_TO_ADA: &[Counter] = &[
        STALL_BARRIER,
        STALL_BRANCH_RESOLVING,
        STALL_DISPATCH_STALL,
        STALL_DRAIN,
        STALL_IMC_MISS,
        STALL_LG_THROTTLE,
        STALL_LONG_SCOREBOARD,
        STALL_MATH_PIPE_THROTTLE,
        STALL_MEMBAR,
        STALL_MIO_THROTTLE,
        STALL_MISC,
        STALL_NO_INSTRUCTION,
        STALL_NOT_SELECTED,
        STALL_SELECTED,
        STALL_SHORT_SCOREBOARD,
        STALL_SLEEPING,
        STALL_TEX_THROTTLE,
        STALL_WAIT,
    ];
    match (major, minor) {
        (9, 0) => STALLS,
        (major, _) if major < 7 => &[],
        _ => VOLTA_TO_ADA,
    }
}

counters! {
    /// Launch statistics: read where an export has them (ncu's LaunchStats and Occupancy
    /// sections, which `capture` collects, carry them), never asked for by name.
    LAUNCH {
    WAVES_PER_SM = "launch__waves_per_multiprocessor", "", "waves per SM: blocks over (SMs x blocks per SM the occupancy limits allow)";
    GRID_SIZE = "launch__grid_size", "", "blocks in the grid";
    LAUNCH_SM_COUNT = "launch__sm_count", "", "SMs the launch could use";
    LIMIT_BARRIERS = "launch__occupancy_limit_barriers", "block", "blocks per SM allowed by the SM's barriers";
    SHARED_MEM_PER_BLOCK = "launch__shared_mem_per_block", "byte/block", "shared memory per block, static plus dynamic (part of what ncu's --kernel-id counts invocations by)";
}}

counters! {
    /// Pipe utilization (ncu's ComputeWorkloadAnalysis figures, on elapsed cycles, as its
    /// HighPipeUtilization rule reads them): each pipe's issued instructions and active
    /// cycles, % of the pipe's sustained peak over the launch's elapsed cycles.
    /// `capture profile` and `capture run` ask for every one by name; [`crate::analysis::bound`] names
    /// the busiest as the unit that bounds a compute-bound kernel. ncu's `--set full` has
    /// them all; with them `capture`'s list needs more replay passes (not measured: no GPU
    /// was available when they were added).
    PIPES {
    PIPE_TENSOR_CYCLES_PCT = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "tensor pipe active cycles (every MMA kind), % of peak over elapsed cycles";
    PIPE_SHARED_CYCLES_PCT = "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "the shared pipe (FP64 and tensor together) active cycles, % of peak over elapsed cycles";
    PIPE_FP64_CYCLES_PCT = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "FP64 pipe active cycles, % of peak over elapsed cycles";
    PIPE_FP64_INST_PCT = "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the FP64 pipe, % of peak over elapsed cycles";
    PIPE_FMA_CYCLES_PCT = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "FMA pipe (FP32 and packed FP16 arithmetic, IMAD) active cycles, % of peak over elapsed cycles";
    PIPE_FMA_INST_PCT = "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the FMA pipe, % of peak over elapsed cycles";
    PIPE_ALU_CYCLES_PCT = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "ALU pipe (integer, logic, conversions, FP32 compares) active cycles, % of peak over elapsed cycles";
    PIPE_ALU_INST_PCT = "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the ALU pipe, % of peak over elapsed cycles";
    PIPE_XU_INST_PCT = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the XU pipe (transcendentals, some conversions), % of peak over elapsed cycles";
    PIPE_LSU_INST_PCT = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the LSU pipe (loads, stores, shared memory), % of peak over elapsed cycles";
    PIPE_UNIFORM_INST_PCT = "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the uniform pipe, % of peak over elapsed cycles";
    PIPE_ADU_INST_PCT = "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the ADU pipe (address divergence, branches to registers), % of peak over elapsed cycles";
    PIPE_CBU_INST_PCT = "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the CBU pipe (convergence, barriers), % of peak over elapsed cycles";
    PIPE_TMA_CYCLES_PCT = "sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed", "%", "TMA pipe active cycles, % of peak over elapsed cycles";
    PIPE_TEX_INST_PCT = "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_elapsed", "%", "warp instructions issued to the texture pipe, % of peak over elapsed cycles";
    FMA_FP16_INST = "sm__inst_executed_pipe_fma_type_fp16.sum", "inst", "FP16 warp instructions the FMA pipe executed (real half arithmetic; not the HFMA2.MMA register moves)";
    L1_FROM_L2_BYTES = "l1tex__m_xbar2l1tex_read_bytes.sum", "byte", "bytes L2 returned into L1TEX's M stage, every path (loads, TMA, async copies)";
    L1_TMA_LOAD_BYTES = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", "byte", "bytes global TMA loads brought from L2 into shared memory (not seen by l1tex__t_bytes)";
}}

counters! {
    /// Read where an export has them (`--set full`), never asked for by name: the FP16
    /// instruction share of the FMA pipe, as ncu's ComputeWorkloadAnalysis section carries it,
    /// and the SpeedOfLight section's DRAM throughput and SM frequency as a report stores
    /// them (read when the raw page's names are missing).
    FULL_SET {
    FMA_FP16_INST_PCT = "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active", "%", "FP16 warp instructions the FMA pipe executed, % of peak over active cycles";
    GPU_DRAM_THROUGHPUT_PCT = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", "DRAM Throughput, % of peak, as a report's SpeedOfLight section stores it (its raw page derives dram__throughput from it)";
    GPC_HZ = "gpc__cycles_elapsed.avg.per_second", "hz", "GPC clock during the launch: a report's SM Frequency (SpeedOfLight section)";
}}

counters! {
    /// The work vector's counters beyond [`PROFILE`] ([`crate::analysis::work_vector`]): warp
    /// instructions by class and the shared-memory traffic. Every `--set full` export has
    /// them (InstructionStats, MemoryWorkloadAnalysis_Tables; checked on every export in
    /// `tests/fixtures`); `capture profile --depth work` asks for them by name.
    WORK {
    INST_EXECUTED = "smsp__inst_executed.sum", "inst", "warp instructions executed";
    BRANCH_INST = "smsp__inst_executed_op_branch.sum", "inst", "branch warp instructions executed (control flow)";
    GLOBAL_LD_INST = "smsp__sass_inst_executed_op_global_ld.sum", "inst", "global-load warp instructions executed";
    GLOBAL_ST_INST = "smsp__sass_inst_executed_op_global_st.sum", "inst", "global-store warp instructions executed";
    LOCAL_LD_INST = "smsp__sass_inst_executed_op_local_ld.sum", "inst", "local-load warp instructions executed (register spills among them)";
    LOCAL_ST_INST = "smsp__sass_inst_executed_op_local_st.sum", "inst", "local-store warp instructions executed (register spills among them)";
    SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "", "shared-memory wavefronts in the L1/TEX data pipe";
    SHARED_BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "", "shared-memory bank conflicts in the L1/TEX data pipe";
}}

counters! {
    /// Thread-instruction classes that ncu's `--set full` does not collect, asked for by
    /// `capture profile --depth work` only. The names are ncu's own (its metric comparison
    /// table maps nvprof's `inst_integer` to this one), but no export here has them yet:
    /// the first `--depth work` run on a GPU shows whether ncu keeps them (capture warns
    /// about a name ncu dropped).
    WORK_CLASSES {
    INTEGER_THREAD_INST = "smsp__sass_thread_inst_executed_op_integer_pred_on.sum", "inst", "integer thread instructions executed, predicated on";
}}

/// The prefix of tensor-core work counters by source type (`sm__ops_path_tensor_src_bf16_dst_fp32.sum`):
/// [`crate::analysis::work`] reads every counter of this family an export has, whatever the
/// architecture, and never the op-level (`sm__ops_path_tensor_op_*`) or per-SMSP ones.
pub const TENSOR_SRC_PREFIX: &str = "sm__ops_path_tensor_src_";

counters! {
    /// Tensor-core work counters `capture profile` asks for, the union over architectures
    /// (names as ncu's SpeedOfLight_HierarchicalTensorRooflineChart section uses them per
    /// chip); [`tensor_work`] says which belong to a compute capability. FLOPs (an MMA's
    /// multiply-add counts 2), or integer OPs for the `int` types.
    TENSOR {
    TENSOR_PIPE_INST = "sm__inst_executed_pipe_tensor.sum", "inst", "warp instructions issued to the tensor pipe (Volta: the only tensor counter)";
    T75_FP16_BF16_TF32 = "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum", "", "tensor FLOPs, fp16/bf16/tf32 sources, fp32 accumulate (CC 7.5)";
    T_FP16_DST_FP16 = "sm__ops_path_tensor_src_fp16_dst_fp16.sum", "", "tensor FLOPs, fp16 sources, fp16 accumulate";
    T_FP16_DST_FP32 = "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "", "tensor FLOPs, fp16 sources, fp32 accumulate";
    T_BF16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "tensor FLOPs, bf16 sources";
    T_TF32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "", "tensor FLOPs, tf32 sources";
    T_FP16 = "sm__ops_path_tensor_src_fp16.sum", "", "tensor FLOPs, fp16 sources (CC 9.0)";
    T_FP8 = "sm__ops_path_tensor_src_fp8.sum", "", "tensor FLOPs, fp8 sources";
    T_FP8_DENSE = "sm__ops_path_tensor_src_fp8_sparsity_off.sum", "", "tensor FLOPs, fp8 sources, dense";
    T_FP8_SPARSE = "sm__ops_path_tensor_src_fp8_sparsity_on.sum", "", "tensor FLOPs, fp8 sources, 2:4 sparse";
    T_FP64 = "sm__ops_path_tensor_src_fp64.sum", "", "tensor FLOPs, fp64 (DMMA)";
    T_INT8 = "sm__ops_path_tensor_src_int8.sum", "", "tensor integer OPs, int8 sources";
    T_INT4 = "sm__ops_path_tensor_src_int4.sum", "", "tensor integer OPs, int4 sources";
    T_INT1 = "sm__ops_path_tensor_src_int1.sum", "", "tensor integer OPs, int1 sources";
}}

/// The tensor-work counters of a compute capability, as ncu 2025.3's tensor roofline section
/// names them; empty for an architecture the catalog does not know. CC 10.x and 12.x add
/// fp4/fp6 families whose names were not seen here: they get the CC 9.0 list, and the
/// reader still counts any `src_fp4*`/`src_fp6*` counter an export carries.
pub fn tensor_work(major: u32, minor: u32) -> &'static [Counter] {
    const V70: &[Counter] = &[TENSOR_PIPE_INST];
    const T75: &[Counter] = &[T75_FP16_BF16_TF32, T_FP16_DST_FP16, T_INT8, T_INT4, T_INT1];
    // Ada (8.9) has Ampere's families plus fp8; Ampere's list is its first eight.
    const A89: &[Counter] = &[
        T_BF16,
        T_FP16_DST_FP16,
        T_FP16_DST_FP32,
        T_TF32,
        T_INT8,
        T_INT4,
        T_FP64,
        T_INT1,
        T_FP8_DENSE,
        T_FP8_SPARSE,
    ];
    const A80: &[Counter] = A89.split_at(8).0;
    const H90: &[Counter] = &[T_BF16, T_FP16, T_TF32, T_FP8, T_FP64, T_INT8, T_INT1];
    match (major, minor) {
        (7, 0) | (7, 2) => V70,
        (7, 5) => T75,
        (8, 0) | (8, 6) | (8, 7) => A80,
        (8, 9) => A89,
        (9, 0) | (10, _) | (12, _) => H90,
        _ => &[],
    }
}

counters! {
    /// The per-instruction metrics of ncu's SourceCounters section that the source page
    /// reads: a report holds each as one value per program counter (the instruction's
    /// address). Not raw-page metrics (the raw page has none of them), so not in [`LISTS`].
    SOURCE {
    SASS_INST_EXECUTED = "inst_executed", "inst", "warp-level instructions executed at this address";
    SASS_THREAD_INST_EXECUTED = "thread_inst_executed", "inst", "thread-level instructions executed at this address";
    SASS_SAMPLES = "smsp__pcsamp_sample_count", "sample", "warp-state samples taken at this address, all reasons";
    SASS_L1_TAG_REQUESTS_GLOBAL = "memory_l1_tag_requests_global", "request", "global-memory requests at L1 tags by this instruction";
    SASS_L2_SECTORS_GLOBAL = "memory_l2_theoretical_sectors_global", "sector", "32-byte L2 sectors this instruction's global accesses need";
    SASS_L2_SECTORS_GLOBAL_IDEAL = "memory_l2_theoretical_sectors_global_ideal", "sector", "the sectors a fully coalesced access of the same bytes would need";
    SASS_L2_SECTORS_GLOBAL_EXCESSIVE = "derived__memory_l2_theoretical_sectors_global_excessive", "sector", "sectors beyond the ideal: the cost of uncoalesced global access";
    SASS_L1_WAVEFRONTS_SHARED = "memory_l1_wavefronts_shared", "wavefront", "shared-memory wavefronts of this instruction";
    SASS_L1_WAVEFRONTS_SHARED_IDEAL = "memory_l1_wavefronts_shared_ideal", "wavefront", "the wavefronts a conflict-free access would need";
    SASS_L1_WAVEFRONTS_SHARED_EXCESSIVE = "derived__memory_l1_wavefronts_shared_excessive", "wavefront", "wavefronts beyond the ideal: shared-memory bank conflicts";
    SASS_L1_CONFLICTS_SHARED_NWAY = "derived__memory_l1_conflicts_shared_nway", "", "average N-way bank conflict of this instruction's shared accesses";
    SASS_BRANCH_DIVERGENT = "smsp__branch_targets_threads_divergent", "branch", "divergent branch targets at this address";
    }
}

counters! {
    /// Warp-state samples per instruction address, by stall reason (SourceCounters; all
    /// samples, issued or not). The reason is the name after `stalled_`.
    SOURCE_STALLS {
    SASS_STALL_BARRIER = "smsp__pcsamp_warps_issue_stalled_barrier", "sample", "samples stalled at a block-wide barrier";
    SASS_STALL_BRANCH_RESOLVING = "smsp__pcsamp_warps_issue_stalled_branch_resolving", "sample", "samples waiting for a branch target";
    SASS_STALL_DISPATCH_STALL = "smsp__pcsamp_warps_issue_stalled_dispatch_stall", "sample", "samples held by a dispatch interlock";
    SASS_STALL_DRAIN = "smsp__pcsamp_warps_issue_stalled_drain", "sample", "samples draining stores after exit";
    SASS_STALL_IMC_MISS = "smsp__pcsamp_warps_issue_stalled_imc_miss", "sample", "samples waiting for an immediate-constant cache miss";
    SASS_STALL_LG_THROTTLE = "smsp__pcsamp_warps_issue_stalled_lg_throttle", "sample", "samples waiting for the local/global instruction queue";
    SASS_STALL_LONG_SCOREBOARD = "smsp__pcsamp_warps_issue_stalled_long_scoreboard", "sample", "samples waiting on an L1TEX (global, local, texture) result";
    SASS_STALL_MATH_PIPE_THROTTLE = "smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", "sample", "samples waiting for a busy math pipe";
    SASS_STALL_MEMBAR = "smsp__pcsamp_warps_issue_stalled_membar", "sample", "samples waiting at a memory barrier";
    SASS_STALL_MIO_THROTTLE = "smsp__pcsamp_warps_issue_stalled_mio_throttle", "sample", "samples waiting for the MIO queue";
    SASS_STALL_MISC = "smsp__pcsamp_warps_issue_stalled_misc", "sample", "samples stalled for miscellaneous reasons";
    SASS_STALL_NO_INSTRUCTIONS = "smsp__pcsamp_warps_issue_stalled_no_instructions", "sample", "samples waiting for an instruction fetch";
    SASS_STALL_NOT_SELECTED = "smsp__pcsamp_warps_issue_stalled_not_selected", "sample", "samples eligible but not selected";
    SASS_STALL_SELECTED = "smsp__pcsamp_warps_issue_stalled_selected", "sample", "samples of the warp that issued";
    SASS_STALL_SHORT_SCOREBOARD = "smsp__pcsamp_warps_issue_stalled_short_scoreboard", "sample", "samples waiting on an MIO (shared memory, special math) result";
    SASS_STALL_SLEEPING = "smsp__pcsamp_warps_issue_stalled_sleeping", "sample", "samples of sleeping warps";
    SASS_STALL_TEX_THROTTLE = "smsp__pcsamp_warps_issue_stalled_tex_throttle", "sample", "samples waiting for the texture queue";
    SASS_STALL_WAIT = "smsp__pcsamp_warps_issue_stalled_wait", "sample", "samples waiting a fixed latency";
    SASS_STALL_WARPGROUP_ARRIVE = "smsp__pcsamp_warps_issue_stalled_warpgroup_arrive", "sample", "samples waiting at a warpgroup arrive (CC 9.0)";
    SASS_STALL_GMMA = "smsp__pcsamp_warps_issue_stalled_gmma", "sample", "samples waiting on warpgroup MMA (CC 9.0)";
    }
}

counters! {
    /// Counters only PM sampling asks for (`capture trace --counters`), beside those of
    /// [`PM_SAMPLED`] the other lists hold.
    PM_ONLY {
    PM_FMA_PIPE_INST = "sm__inst_executed_pipe_fma.sum", "inst", "warp instructions issued to the FMA pipe (FP32 and packed FP16 arithmetic, IMAD)";
    PM_SM_CYCLES_ACTIVE = "sm__cycles_active.sum", "cycle", "cycles with at least one warp in flight, summed over SMs";
    PM_TENSOR_CYCLES = "sm__pipe_tensor_cycles_active.sum", "cycle", "tensor pipe active cycles, summed over SMs";
    }
}

/// What `capture trace --counters` asks PM sampling for, most wanted first: the
/// injection keeps, in this order, those the chip samples together in one pass (the bytes of a
/// roofline's memory levels, then its tensor and FP32 work, then activity).
pub const PM_SAMPLED: &[Counter] = &[
    DRAM_BYTES_READ,
    DRAM_BYTES_WRITE,
    L2_BYTES,
    T_BF16,
    T_FP16,
    T_TF32,
    T_FP8,
    T_FP16_DST_FP32,
    L1_BYTES,
    PM_FMA_PIPE_INST,
    FFMA,
    INST_EXECUTED,
    PM_SM_CYCLES_ACTIVE,
    PM_TENSOR_CYCLES,
];

/// Every list of the catalog.
pub const LISTS: &[&[Counter]] = &[
    PM_ONLY,
    PROFILE,
    DEVICE,
    ROOFLINE_SET,
    STALLS,
    LAUNCH,
    TENSOR,
    PIPES,
    FULL_SET,
    WORK,
    WORK_CLASSES,
];

/// Every counter of the catalog, in declaration order.
pub fn all() -> impl Iterator<Item = &'static Counter> {
    LISTS.iter().flat_map(|l| l.iter())
}

/// The catalog entry of a metric name, if the catalog has it.
pub fn find(name: &str) -> Option<&'static Counter> {
    all().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_look_like_ncu_metrics() {
        let all: Vec<&Counter> = all().collect();
        for (i, c) in all.iter().enumerate() {
            assert!(c.name.contains("__"), "{}", c.name);
            assert!(!c.meaning.is_empty(), "{}", c.name);
            assert!(
                all[..i].iter().all(|d| d.name != c.name),
                "{} twice",
                c.name
            );
        }
        assert_eq!(find("dram__bytes.sum"), Some(&DRAM_BYTES));
        assert_eq!(find("not__a_counter"), None);
    }
}
