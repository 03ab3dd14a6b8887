//! The GPUs of one host side by side: every measured ceiling of each device's `capture run`
//! artifact in one table, and a flag on a device more than [`SLOW_PCT`] % below the median
//! of its siblings (the other devices of the host) on any ceiling. A node with one throttled
//! or faulty GPU slows every collective step to that GPU's pace; this is where it shows.
//!
//! A device is named by its PCI address where the artifact has one (ordinals change with
//! `CUDA_VISIBLE_DEVICES`), else by its ordinal; a host by the provenance's host name.
//! Several artifacts of one device (before and after, say) are each a column, and none of
//! them counts as a sibling of another.

use std::collections::BTreeMap;

use crate::model::artifact::{Artifact, MeasuredCeilings};
use crate::model::roofline::percent_of;
use crate::model::work_kind::Work;

use super::median;

/// How far below the median of its siblings, in percent, a device's ceiling must be to be
/// flagged (strictly more than this).
pub const SLOW_PCT: f64 = 5.0;

/// One measured ceiling of `capture run` (every one is larger-is-better).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ceiling {
    /// Vectorized copy kernel, read plus write, GB/s.
    Copy,
    /// Read-only streaming kernel, GB/s.
    Read,
    /// Driver device-to-device memcpy, read plus write, GB/s.
    Memcpy,
    /// Copy of an L2-resident buffer, GB/s.
    L2Copy,
    /// FP32 FMA kernel, GFLOP/s.
    Fma,
    /// A tensor-core GEMM whose check passed, GFLOP/s (GOP/s for integer kinds).
    Tensor(Work),
    /// The SM clock the GPU held during the FMA ceiling, MHz: not a roof, but a throttled
    /// GPU shows here first.
    HeldClock,
}

impl Ceiling {
    /// Every ceiling but the tensor kinds, in table order (tensor rows follow FMA).
    const SCALAR: [Ceiling; 6] = [
        Ceiling::Copy,
        Ceiling::Read,
        Ceiling::Memcpy,
        Ceiling::L2Copy,
        Ceiling::Fma,
        Ceiling::HeldClock,
    ];

    /// Its value in `c`: GB/s, G(FL)OP/s or MHz, as the artifact stores it.
    pub fn of(self, c: &MeasuredCeilings) -> Option<f64> {
        match self {
            Ceiling::Copy => c.copy_gbyte_per_s,
            Ceiling::Read => c.read_gbyte_per_s,
            Ceiling::Memcpy => c.memcpy_gbyte_per_s,
            Ceiling::L2Copy => c.l2_copy_gbyte_per_s,
            Ceiling::Fma => c.fma_gflop_per_s,
            Ceiling::Tensor(w) => c.tensor_gflop_per_s.get(&w).copied(),
            Ceiling::HeldClock => c.held_sm_clock_mhz,
        }
        .filter(|v| v.is_finite())
    }

    /// For people: `copy (read + write)`, `tensor BF16`, ...
    pub fn label(self) -> String {
        match self {
            Ceiling::Copy => "copy (read + write)".into(),
            Ceiling::Read => "read only".into(),
            Ceiling::Memcpy => "driver memcpy".into(),
            Ceiling::L2Copy => "L2-resident copy".into(),
            Ceiling::Fma => "FP32 FMA".into(),
            Ceiling::Tensor(w) => w.label().into(),
            Ceiling::HeldClock => "held SM clock".into(),
        }
    }

    /// A value of this ceiling in base units with its unit, for an SI formatter:
    /// `(4.8e12, "B/s")` for 4800 GB/s.
    pub fn in_base_units(self, value: f64) -> (f64, String) {
        match self {
            Ceiling::Copy | Ceiling::Read | Ceiling::Memcpy | Ceiling::L2Copy => {
                (value * 1e9, "B/s".into())
            }
            Ceiling::Fma => (value * 1e9, "FLOP/s".into()),
            Ceiling::Tensor(w) => (value * 1e9, format!("{}/s", w.unit())),
            Ceiling::HeldClock => (value * 1e6, "Hz".into()),
        }
    }
}

/// A device's value more than [`SLOW_PCT`] % below the median of its siblings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slow {
    /// The median of the siblings' values, in the ceiling's unit.
    pub sibling_median: f64,
    /// How far below it the device is, percent of the median.
    pub pct_below: f64,
}

/// The flag rule: `value` is slow when it is more than `threshold_pct` % below the median of
/// `siblings` (the same ceiling on the host's other devices; absent values left out).
/// Nothing to compare with, or no value, is no flag.
pub fn below_siblings(value: Option<f64>, siblings: &[f64], threshold_pct: f64) -> Option<Slow> {
    let value = value?;
    let sibling_median = median(siblings)?;
    let pct_below = 100.0 - percent_of(value, sibling_median)?;
    (pct_below > threshold_pct).then_some(Slow {
        sibling_median,
        pct_below,
    })
}

/// One device of a host: a column of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceColumn {
    /// Index of its artifact in the slice given to [`hosts`].
    pub input: usize,
    /// CUDA ordinal, as the run saw it.
    pub index: Option<u32>,
    /// PCI address, when recorded.
    pub pci_bus_id: Option<String>,
    /// The GPU's name.
    pub name: String,
}

impl DeviceColumn {
    /// What tells this device from its siblings: the PCI address, else the ordinal.
    pub fn identity(&self) -> String {
        match (&self.pci_bus_id, self.index) {
            (Some(pci), _) => pci.clone(),
            (None, Some(i)) => format!("device {i}"),
            (None, None) => "device ?".into(),
        }
    }

    /// A header for people: `GPU 3 (0000:1b:00.0)`.
    pub fn label(&self) -> String {
        let ordinal = self.index.map_or("?".into(), |i| i.to_string());
        match &self.pci_bus_id {
            Some(pci) => format!("GPU {ordinal} ({pci})"),
            None => format!("GPU {ordinal}"),
        }
    }
}

/// One ceiling across a host's devices.
#[derive(Clone, Debug, PartialEq)]
pub struct CeilingRow {
    /// Which ceiling.
    pub ceiling: Ceiling,
    /// Its value on each device, in column order.
    pub values: Vec<Option<f64>>,
    /// The flag of each device, in column order.
    pub slow: Vec<Option<Slow>>,
}

/// The devices of one host side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct HostDevices {
    /// The host name, when the artifacts have one.
    pub host: Option<String>,
    /// The devices, by ordinal then PCI address.
    pub columns: Vec<DeviceColumn>,
    /// Every ceiling some device has, in [`Ceiling`] order.
    pub rows: Vec<CeilingRow>,
}

impl HostDevices {
    /// Every flag: column, ceiling and how slow.
    pub fn flagged(&self) -> Vec<(usize, Ceiling, Slow)> {
        self.rows
            .iter()
            .flat_map(|r| {
                r.slow
                    .iter()
                    .enumerate()
                    .filter_map(move |(i, s)| s.map(|s| (i, r.ceiling, s)))
            })
            .collect()
    }
}

/// The hosts among `artifacts` whose measured ceilings cover at least two distinct devices,
/// each with its devices side by side and the slow ones flagged. Artifacts without measured
/// ceilings or a device (imports, profiles) are left out.
pub fn hosts(artifacts: &[&Artifact]) -> Vec<HostDevices> {
    let mut by_host: BTreeMap<Option<String>, Vec<(DeviceColumn, &MeasuredCeilings)>> =
        BTreeMap::new();
    for (input, a) in artifacts.iter().enumerate() {
        let (Some(device), Some(c)) = (&a.device, &a.ceilings) else {
            continue;
        };
        let column = DeviceColumn {
            input,
            index: device.index,
            pci_bus_id: device.pci_bus_id.clone(),
            name: device.name.clone(),
        };
        by_host
            .entry(a.provenance.host.clone())
            .or_default()
            .push((column, c));
    }
    by_host
        .into_iter()
        .filter_map(|(host, mut devices)| {
            crate::order::sort_by(&mut devices, |(a, _), (b, _)| {
                (a.index, &a.pci_bus_id, a.input).cmp(&(b.index, &b.pci_bus_id, b.input))
            });
            let ids: Vec<String> = devices.iter().map(|(d, _)| d.identity()).collect();
            let mut distinct = ids.clone();
            crate::order::sort(&mut distinct);
            distinct.dedup();
            if distinct.len() < 2 {
                return None;
            }
            let tensor = devices
                .iter()
                .flat_map(|(_, c)| c.tensor_gflop_per_s.keys());
            let mut ceilings: Vec<Ceiling> = Ceiling::SCALAR.to_vec();
            ceilings.extend(tensor.map(|&w| Ceiling::Tensor(w)));
            crate::order::sort(&mut ceilings);
            ceilings.dedup();
            let rows = ceilings
                .into_iter()
                .map(|ceiling| {
                    let values: Vec<Option<f64>> =
                        devices.iter().map(|(_, c)| ceiling.of(c)).collect();
                    let slow = values
                        .iter()
                        .zip(&ids)
                        .map(|(&v, id)| {
                            let siblings: Vec<f64> = values
                                .iter()
                                .zip(&ids)
                                .filter(|(_, other)| *other != id)
                                .filter_map(|(v, _)| *v)
                                .collect();
                            below_siblings(v, &siblings, SLOW_PCT)
                        })
                        .collect();
                    CeilingRow {
                        ceiling,
                        values,
                        slow,
                    }
                })
                .filter(|r| r.values.iter().any(Option::is_some))
                .collect();
            Some(HostDevices {
                host,
                columns: devices.into_iter().map(|(d, _)| d).collect(),
                rows,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::{DeviceInfo, Provenance};

    #[test]
    fn the_flag_rule_on_a_table_of_cases() {
        // (value, siblings, flagged percent below or None)
        let cases: [(Option<f64>, &[f64], Option<f64>); 9] = [
            // Seven healthy siblings at 4800 GB/s, one GPU at 4500: 6.25 % below.
            (Some(4500.0), &[4800.0; 7], Some(6.25)),
            // 4600 is 4.17 % below: within the noise, not flagged.
            (Some(4600.0), &[4800.0; 7], None),
            // Exactly 5 % below is not "more than 5 %".
            (Some(95.0), &[100.0, 100.0], None),
            (Some(94.9), &[100.0, 100.0], Some(5.1)),
            // Faster than its siblings: never flagged.
            (Some(120.0), &[100.0], None),
            // The median, not the mean: one slow sibling does not drag the reference down.
            (Some(90.0), &[100.0, 100.0, 10.0], Some(10.0)),
            // Even count: the mean of the two middle values (100 and 110 -> 105).
            (
                Some(94.0),
                &[90.0, 100.0, 110.0, 120.0],
                Some(100.0 - 9400.0 / 105.0),
            ),
            // Nothing to compare with, or nothing measured.
            (Some(50.0), &[], None),
            (None, &[100.0, 100.0], None),
        ];
        for (value, siblings, want) in cases {
            let got = below_siblings(value, siblings, SLOW_PCT).map(|s| s.pct_below);
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{value:?} {siblings:?}: {g}"),
                (g, w) => assert_eq!(g, w, "{value:?} vs {siblings:?}"),
            }
        }
    }

    fn run(host: &str, index: u32, pci: Option<&str>, copy: f64, fma: Option<f64>) -> Artifact {
        let mut a = Artifact::new(Provenance {
            host: Some(host.into()),
            ..Provenance::default()
        });
        a.device = Some(DeviceInfo {
            index: Some(index),
            pci_bus_id: pci.map(String::from),
            ..crate::testing::h200()
        });
        let mut c = MeasuredCeilings {
            copy_gbyte_per_s: Some(copy),
            fma_gflop_per_s: fma,
            ..MeasuredCeilings::default()
        };
        c.tensor_gflop_per_s
            .insert(Work::TensorBf16, 800_000.0 + f64::from(index));
        a.ceilings = Some(c);
        a
    }

    #[test]
    fn devices_of_one_host_side_by_side_with_the_slow_one_flagged() {
        let mut runs: Vec<Artifact> = (0..4)
            .map(|i| run("node1", i, None, 4800.0, Some(64_000.0)))
            .collect();
        runs[2] = run("node1", 2, None, 4400.0, Some(64_100.0));
        // Another host with one device: no siblings, no table.
        runs.push(run("node2", 0, None, 1000.0, None));
        // An import (no ceilings) is left out.
        runs.push(Artifact::new(Provenance::default()));
        let refs: Vec<&Artifact> = runs.iter().collect();
        let hosts = hosts(&refs);
        assert_eq!(hosts.len(), 1);
        let h = &hosts[0];
        assert_eq!(h.host.as_deref(), Some("node1"));
        let ordinals: Vec<Option<u32>> = h.columns.iter().map(|c| c.index).collect();
        assert_eq!(ordinals, [Some(0), Some(1), Some(2), Some(3)]);
        let kinds: Vec<Ceiling> = h.rows.iter().map(|r| r.ceiling).collect();
        assert_eq!(
            kinds,
            [
                Ceiling::Copy,
                Ceiling::Fma,
                Ceiling::Tensor(Work::TensorBf16)
            ]
        );
        let flagged = h.flagged();
        assert_eq!(flagged.len(), 1, "{flagged:?}");
        let (col, ceiling, slow) = flagged[0];
        assert_eq!((h.columns[col].index, ceiling), (Some(2), Ceiling::Copy));
        assert_eq!(slow.sibling_median, 4800.0);
        assert!((slow.pct_below - 100.0 * 400.0 / 4800.0).abs() < 1e-9);
    }

    #[test]
    fn a_device_measured_twice_is_not_its_own_sibling() {
        let runs = [
            run("n", 0, Some("0000:1b:00.0"), 4000.0, None),
            run("n", 0, Some("0000:1b:00.0"), 4800.0, None),
            // Ordinal 0 again, but another GPU (another CUDA_VISIBLE_DEVICES): a sibling.
            run("n", 0, Some("0000:2c:00.0"), 4800.0, None),
        ];
        let refs: Vec<&Artifact> = runs.iter().collect();
        let hosts = hosts(&refs);
        assert_eq!(hosts[0].columns.len(), 3);
        let copy = &hosts[0].rows[0];
        assert_eq!(copy.ceiling, Ceiling::Copy);
        // 1b's first run: 4000 against the sibling 2c's 4800 (not against its own rerun).
        let slow: Vec<bool> = copy.slow.iter().map(Option::is_some).collect();
        assert_eq!(slow.iter().filter(|s| **s).count(), 1);
        let i = slow.iter().position(|s| *s).unwrap_or(usize::MAX);
        assert_eq!(copy.values[i], Some(4000.0));
        assert_eq!(hosts[0].columns[i].label(), "GPU 0 (0000:1b:00.0)");
        // One device measured twice alone is no comparison.
        let same = [runs[0].clone(), runs[1].clone()];
        let refs: Vec<&Artifact> = same.iter().collect();
        assert!(super::hosts(&refs).is_empty());
    }

    #[test]
    fn values_carry_their_units() {
        assert_eq!(
            Ceiling::Copy.in_base_units(4800.0),
            (4.8e12, "B/s".to_string())
        );
        assert_eq!(
            Ceiling::HeldClock.in_base_units(1980.0),
            (1.98e9, "Hz".to_string())
        );
        assert_eq!(
            Ceiling::Tensor(Work::TensorInt8).in_base_units(1.0).1,
            "OP/s"
        );
    }
}
