//! The C allocator's settings for capture's memory-bound work (import, merge, table on
//! exports and artifacts of hundreds of MB): a fixed mmap threshold.
//!
//! glibc's malloc serves an allocation above its mmap threshold (128 KiB to start) with
//! pages of its own, returned to the system when freed, and raises the threshold to the
//! size of each such block freed (up to 32 MiB). Reading an export grows the launches'
//! vector by doubling and frees each old copy, so by the time the kernel records and the
//! grouping's tables are made the threshold is some 27 MiB: those go on the heap, and once
//! freed stay resident behind what was allocated after them. An import of 200,000
//! one-launch kernels peaked at 86 MB that way, 74 MB with the threshold held
//! (`tests/bench/memory_bench.py`, docs/performance.md).

/// Holds glibc's mmap threshold at 1 MiB: blocks from 1 MiB up always get pages of their
/// own. Other C libraries are left as they are.
pub fn hold_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only changes the allocator's parameters; called first thing in
        // `main`, before any other thread exists. Its result (0 when the value is refused)
        // leaves the default in place, which is only slower to give memory back.
        let _ = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20) };
    }
}
