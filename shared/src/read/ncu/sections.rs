//! The Nsight Compute sections the details-page reader knows by name.
//!
//! Metric rows of `--page details` carry a section's display name (`GPU Speed Of Light
//! Throughput`); rule rows carry the section's identifier (`SpeedOfLight`). A section not in
//! these lists still loads: the reader only warns once per unknown name, so a new ncu
//! version or a custom section file is visible rather than silently mixed in.

/// Display names of the sections shipped with Nsight Compute (2025.x), as they appear in the
/// `Section Name` column of metric rows.
pub const KNOWN_SECTION_NAMES: &[&str] = &[
    "GPU Speed Of Light Throughput",
    "GPU Speed Of Light Roofline Chart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)",
    "Memory Workload Analysis",
    "Memory Workload Analysis Chart",
    "Memory Workload Analysis Tables",
    "Compute Workload Analysis",
    "Launch Statistics",
    "Occupancy",
    "Instruction Statistics",
    "Scheduler Statistics",
    "Warp State Statistics",
    "Source Counters",
    "PM Sampling",
    "PM Sampling: Warp States",
    "GPU and Memory Workload Distribution",
    "NVLink",
    "NVLink Tables",
    "NVLink Topology",
    "NUMA Affinity",
    // Rows for metrics asked for with `--metrics` rather than through a section.
    "Command line profiler metrics",
];

/// Section identifiers (`ncu --list-sections`), as they appear in the `Section Name` column
/// of rule rows.
pub const KNOWN_SECTION_IDS: &[&str] = &[
    "SpeedOfLight",
    "SpeedOfLight_RooflineChart",
    "SpeedOfLight_HierarchicalSingleRooflineChart",
    "SpeedOfLight_HierarchicalDoubleRooflineChart",
    "SpeedOfLight_HierarchicalHalfRooflineChart",
    "SpeedOfLight_HierarchicalTensorRooflineChart",
    "MemoryWorkloadAnalysis",
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
    "ComputeWorkloadAnalysis",
    "LaunchStats",
    "Occupancy",
    "InstructionStats",
    "SchedulerStats",
    "WarpStateStats",
    "SourceCounters",
    "PmSampling",
    "PmSampling_WarpStates",
    "WorkloadDistribution",
    "Nvlink",
    "Nvlink_Tables",
    "Nvlink_Topology",
    "NumaAffinity",
];

/// Whether `name` is a known section display name or identifier.
pub fn is_known_section(name: &str) -> bool {
    KNOWN_SECTION_NAMES.contains(&name) || KNOWN_SECTION_IDS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_sections_are_known() {
        for name in [
            "GPU Speed Of Light Throughput",
            "SpeedOfLight_RooflineChart",
            "PM Sampling",
            "MemoryWorkloadAnalysis_Chart",
            "GPU and Memory Workload Distribution",
        ] {
            assert!(is_known_section(name), "{name}");
        }
        assert!(!is_known_section("Made Up Section"));
    }
}
