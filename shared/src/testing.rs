//! Test support for `shared` and the crates above it (the `testing` feature, which only
//! their dev-dependencies turn on): real hardware facts that tests build on, written once.

use crate::model::artifact::{ComputeCapability, DeviceInfo, TheoreticalPeaks};

/// The H200 as `capture devices` recorded it (`site/samples/h200.json`): device 0, CC 9.0,
/// 132 SMs at 1.98 GHz, 3.2 GHz memory clock on a 6016-bit bus, 60 MiB of L2, 139.8 GiB.
/// The theoretical peaks are left empty: a test sets the ones it checks.
pub fn h200() -> DeviceInfo {
    DeviceInfo {
        index: Some(0),
        name: "NVIDIA H200".into(),
        compute_capability: Some(ComputeCapability { major: 9, minor: 0 }),
        sm_count: Some(132),
        sm_clock_khz: Some(1_980_000),
        mem_clock_khz: Some(3_201_000),
        bus_width_bits: Some(6016),
        l2_bytes: Some(62_914_560),
        total_mem_bytes: Some(150_109_880_320),
        pci_bus_id: None,
        peaks: TheoreticalPeaks::default(),
    }
}
