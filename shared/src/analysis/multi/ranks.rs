//! The ranks of one distributed job side by side. Under `torchrun` or `srun` each process
//! runs `capture profile -o prof-{rank}.json` and records its rank in
//! `provenance.distributed`; read together, the artifacts become one [`Job`], and
//! [`compare`] works the kernel ranking of every rank (where each rank's time goes) and, per
//! kernel, the slowest rank and how far it lags the median rank (what the others wait for
//! at the next collective).
//!
//! Artifacts are one job when their launcher, job id, world size and command line agree
//! (every rank of a `torchrun` or `srun` job runs the same command line; the `-o` template
//! is recorded unexpanded). Kernels are matched across ranks by their full name.

use std::collections::BTreeMap;

use crate::analysis::table::BytesTable;
use crate::model::artifact::{Artifact, Launcher};
use crate::model::roofline::ratio;

use super::median;

/// What the ranks of one job have in common.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct JobKey {
    /// The launcher that started the ranks.
    pub launcher: Launcher,
    /// The job id the launcher gave, if any.
    pub job_id: Option<String>,
    /// The number of ranks, if the launcher gave it.
    pub world_size: Option<u32>,
    /// The command line every rank ran.
    pub command_line: Option<String>,
}

/// One rank's artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankMember {
    /// Index of its artifact in the slice given to [`jobs`].
    pub input: usize,
    /// Its global rank.
    pub rank: u32,
    /// Its rank on its host, when recorded.
    pub local_rank: Option<u32>,
    /// Its host, when recorded.
    pub host: Option<String>,
}

/// The loaded artifacts of one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// What the ranks share.
    pub key: JobKey,
    /// The ranks, by rank (a rank loaded twice keeps both, in load order).
    pub members: Vec<RankMember>,
    /// Ranks below the world size that are not loaded.
    pub missing: Vec<u32>,
    /// Ranks loaded more than once.
    pub duplicated: Vec<u32>,
}

impl Job {
    /// The distinct hosts of the loaded ranks, sorted.
    pub fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = self.members.iter().filter_map(|m| m.host.clone()).collect();
        crate::order::sort(&mut hosts);
        hosts.dedup();
        hosts
    }
}

/// The jobs among `artifacts` with at least two ranks loaded; an artifact without
/// `provenance.distributed` belongs to none.
pub fn jobs(artifacts: &[&Artifact]) -> Vec<Job> {
    let mut by_key: BTreeMap<JobKey, Vec<RankMember>> = BTreeMap::new();
    for (input, a) in artifacts.iter().enumerate() {
        let p = &a.provenance;
        let Some(d) = &p.distributed else {
            continue;
        };
        let key = JobKey {
            launcher: d.launcher,
            job_id: d.job_id.clone(),
            world_size: d.world_size,
            command_line: p.command_line.clone(),
        };
        by_key.entry(key).or_default().push(RankMember {
            input,
            rank: d.rank,
            local_rank: d.local_rank,
            host: p.host.clone(),
        });
    }
    by_key
        .into_iter()
        .filter(|(_, members)| members.len() >= 2)
        .map(|(key, mut members)| {
            crate::order::sort_by_key(&mut members, |m| (m.rank, m.input));
            let ranks: Vec<u32> = members.iter().map(|m| m.rank).collect();
            let missing = key.world_size.map_or_else(Vec::new, |n| {
                (0..n).filter(|r| !ranks.contains(r)).collect()
            });
            let mut duplicated: Vec<u32> = ranks
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .collect();
            duplicated.dedup();
            Job {
                key,
                members,
                missing,
                duplicated,
            }
        })
        .collect()
}

/// One kernel across the ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelAcrossRanks {
    /// Full name, as every rank's table has it.
    pub name: String,
    /// Short name, from the first rank that ran it.
    pub short_name: String,
    /// Its time on each rank, ms, in column order (summed over launches; `None` where the
    /// rank has no time for it or never ran it).
    pub time_ms: Vec<Option<f64>>,
    /// Its place in each rank's ranking by time (1: the most time on that rank).
    pub place: Vec<Option<usize>>,
    /// The column of the rank that spent the most time in it.
    pub slowest: Option<usize>,
    /// The slowest rank's time over the median of the ranks' times.
    pub slowest_over_median: Option<f64>,
}

/// The ranks of one job compared.
#[derive(Clone, Debug, PartialEq)]
pub struct RankComparison {
    /// The ranks, one column each.
    pub ranks: Vec<u32>,
    /// Each rank's summed kernel time, ms.
    pub total_ms: Vec<Option<f64>>,
    /// The column with the largest summed kernel time.
    pub slowest_total: Option<usize>,
    /// Every kernel some rank ran, the most time summed over the ranks first.
    pub kernels: Vec<KernelAcrossRanks>,
}

/// The column of the largest value, the first on ties; `None` without values.
fn argmax(values: &[Option<f64>]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .fold(None, |best: Option<(usize, f64)>, (i, v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((i, v)),
        })
        .map(|(i, _)| i)
}

/// Compares the bytes tables of a job's ranks, `(rank, table)` in column order: the kernel
/// ranking of each rank and the slowest rank of each kernel.
pub fn compare(ranks: &[(u32, &BytesTable)]) -> RankComparison {
    let columns = ranks.len();
    let mut rows: Vec<KernelAcrossRanks> = Vec::new();
    let mut row_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut total_ms = Vec::with_capacity(columns);
    for (col, (_, table)) in ranks.iter().enumerate() {
        // This rank's ranking: its rows with a time, most first (ties keep table order).
        let mut order: Vec<usize> = (0..table.kernels.len())
            .filter(|&i| table.kernels.get(i).is_some_and(|r| r.time_ms.is_some()))
            .collect();
        crate::order::sort_by(&mut order, |&a, &b| {
            let t = |i: usize| table.kernels.get(i).and_then(|r| r.time_ms);
            t(b).unwrap_or(0.0).total_cmp(&t(a).unwrap_or(0.0))
        });
        let mut places = vec![None; table.kernels.len()];
        for (place, &i) in order.iter().enumerate() {
            if let Some(p) = places.get_mut(i) {
                *p = Some(place + 1);
            }
        }
        let mut total = None;
        for (i, r) in table.kernels.iter().enumerate() {
            let at = *row_of.entry(r.name.as_str()).or_insert_with(|| {
                rows.push(KernelAcrossRanks {
                    name: r.name.clone(),
                    short_name: r.short_name.clone(),
                    time_ms: vec![None; columns],
                    place: vec![None; columns],
                    slowest: None,
                    slowest_over_median: None,
                });
                rows.len() - 1
            });
            let Some(row) = rows.get_mut(at) else {
                continue;
            };
            if let (Some(slot), Some(t)) = (row.time_ms.get_mut(col), r.time_ms) {
                // A name twice in one table (it should not be) sums, like its launches.
                *slot = Some(slot.unwrap_or(0.0) + t);
                total = Some(total.unwrap_or(0.0) + t);
            }
            if let (Some(slot), Some(p)) =
                (row.place.get_mut(col), places.get(i).copied().flatten())
            {
                *slot = Some(slot.map_or(p, |q: usize| q.min(p)));
            }
        }
        total_ms.push(total);
    }
    for row in &mut rows {
        row.slowest = argmax(&row.time_ms);
        let times: Vec<f64> = row.time_ms.iter().flatten().copied().collect();
        row.slowest_over_median =
            match (row.slowest.and_then(|i| row.time_ms.get(i)), median(&times)) {
                (Some(Some(max)), Some(mid)) => ratio(*max, mid),
                _ => None,
            };
    }
    let summed = |r: &KernelAcrossRanks| r.time_ms.iter().flatten().sum::<f64>();
    crate::order::sort_by(&mut rows, |a, b| {
        summed(b)
            .total_cmp(&summed(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    RankComparison {
        ranks: ranks.iter().map(|(r, _)| *r).collect(),
        slowest_total: argmax(&total_ms),
        total_ms,
        kernels: rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::table::TableRow;
    use crate::model::artifact::{Distributed, Provenance};

    fn ranked(rank: u32, world: Option<u32>, job: Option<&str>, cmd: &str) -> Artifact {
        Artifact::new(Provenance {
            command_line: Some(cmd.into()),
            host: Some(format!("node{}", rank / 4)),
            distributed: Some(Distributed {
                launcher: Launcher::Torchrun,
                rank_variable: "RANK".into(),
                rank,
                local_rank: Some(rank % 4),
                world_size: world,
                local_world_size: Some(4),
                job_id: job.map(String::from),
            }),
            ..Provenance::default()
        })
    }

    #[test]
    fn ranks_of_one_job_group_and_others_do_not() {
        let cmd = "capture profile -o prof-{rank}.json -- python train.py";
        let artifacts = [
            ranked(3, Some(8), Some("j1"), cmd),
            ranked(0, Some(8), Some("j1"), cmd),
            ranked(5, Some(8), Some("j1"), cmd),
            ranked(5, Some(8), Some("j1"), cmd),
            // Another job id, another world size, another command: other jobs, one rank
            // each, so none of them is a job to compare.
            ranked(1, Some(8), Some("j2"), cmd),
            ranked(1, Some(2), Some("j1"), cmd),
            ranked(
                1,
                Some(8),
                Some("j1"),
                "capture profile -o x-{rank}.json -- ./other",
            ),
            // Not a rank at all.
            Artifact::new(Provenance::default()),
        ];
        let refs: Vec<&Artifact> = artifacts.iter().collect();
        let jobs = jobs(&refs);
        assert_eq!(jobs.len(), 1, "{jobs:?}");
        let job = &jobs[0];
        let ranks: Vec<(u32, usize)> = job.members.iter().map(|m| (m.rank, m.input)).collect();
        assert_eq!(ranks, [(0, 1), (3, 0), (5, 2), (5, 3)]);
        assert_eq!(job.missing, [1, 2, 4, 6, 7]);
        assert_eq!(job.duplicated, [5]);
        assert_eq!(job.hosts(), ["node0", "node1"]);
    }

    fn table(rows: &[(&str, Option<f64>)]) -> BytesTable {
        BytesTable {
            device: None,
            kernels: rows
                .iter()
                .map(|(name, t)| TableRow {
                    name: (*name).into(),
                    short_name: (*name).into(),
                    launches: 1,
                    time_ms: *t,
                    ..TableRow::default()
                })
                .collect(),
            ceilings: Default::default(),
            sampled: None,
        }
    }

    #[test]
    fn kernel_ranking_per_rank_and_the_slowest_rank_per_kernel() {
        // Rank 1 spends longer in the GEMM (a slow GPU); rank 2 never ran `init`.
        let r0 = table(&[
            ("gemm", Some(10.0)),
            ("allreduce", Some(4.0)),
            ("init", Some(1.0)),
        ]);
        let r1 = table(&[
            ("gemm", Some(13.0)),
            ("allreduce", Some(2.0)),
            ("init", Some(1.0)),
        ]);
        let r2 = table(&[
            ("allreduce", Some(12.0)),
            ("gemm", Some(10.0)),
            ("tail", None),
        ]);
        let c = compare(&[(0, &r0), (1, &r1), (2, &r2)]);
        assert_eq!(c.ranks, [0, 1, 2]);
        assert_eq!(c.total_ms, [Some(15.0), Some(16.0), Some(22.0)]);
        assert_eq!(c.slowest_total, Some(2));
        let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["gemm", "allreduce", "init", "tail"]);
        let gemm = &c.kernels[0];
        assert_eq!(gemm.time_ms, [Some(10.0), Some(13.0), Some(10.0)]);
        assert_eq!(gemm.place, [Some(1), Some(1), Some(2)]);
        assert_eq!(gemm.slowest, Some(1));
        assert_eq!(gemm.slowest_over_median, Some(1.3));
        let allreduce = &c.kernels[1];
        assert_eq!(allreduce.place, [Some(2), Some(2), Some(1)]);
        assert_eq!(allreduce.slowest, Some(2));
        assert_eq!(allreduce.slowest_over_median, Some(3.0));
        let init = &c.kernels[2];
        assert_eq!(init.time_ms, [Some(1.0), Some(1.0), None]);
        assert_eq!(init.slowest, Some(0), "ties go to the first rank");
        assert_eq!(init.slowest_over_median, Some(1.0));
        let tail = &c.kernels[3];
        assert_eq!((tail.slowest, tail.place[2]), (None, None));
        assert_eq!(compare(&[]).kernels, []);
    }
}
