//! Several runs read as one: the devices of a host side by side (`capture run --device
//! all`), and the ranks of a distributed job compared (`capture profile -o prof-{rank}.json`
//! under `torchrun` or `srun`). Every figure comes from `shared::analysis::multi`; this module only
//! hands it the loaded runs, in load order, so a column's `input` is a run index.

use shared::analysis::multi::devices::{self, HostDevices};
use shared::analysis::multi::ranks::{self, Job, RankComparison};

use super::model::Workspace;

/// The hosts whose loaded `capture run` artifacts cover at least two devices.
pub fn host_devices(ws: &Workspace) -> Vec<HostDevices> {
    let artifacts: Vec<&shared::Artifact> = ws.runs.iter().map(|r| &r.run.artifact).collect();
    devices::hosts(&artifacts)
}

/// One job of several loaded ranks and their comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct JobView {
    /// The job: its ranks, with run indices as `input`.
    pub job: Job,
    /// The ranks compared, one column per member, in the job's order.
    pub comparison: RankComparison,
}

/// Every job with at least two ranks loaded, each compared.
pub fn rank_jobs(ws: &Workspace) -> Vec<JobView> {
    let artifacts: Vec<&shared::Artifact> = ws.runs.iter().map(|r| &r.run.artifact).collect();
    ranks::jobs(&artifacts)
        .into_iter()
        .map(|job| {
            let tables: Vec<(u32, &shared::analysis::table::BytesTable)> = job
                .members
                .iter()
                .filter_map(|m| ws.runs.get(m.input).map(|r| (m.rank, &r.table)))
                .collect();
            let comparison = ranks::compare(&tables);
            JobView { job, comparison }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};
    use shared::model::artifact::{Distributed, Launcher};

    /// The bundled H200 sample as rank `rank` of a two-rank job, its kernel times scaled by
    /// `slow` (a slower GPU), as one JSON file.
    fn rank_file(rank: u32, slow: f64) -> InputFile {
        let bytes = crate::state::test_support::input("site/samples/h200.json").bytes;
        let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{e}"));
        let mut a = shared::Artifact::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
        a.provenance.command_line = Some("capture profile -o p-{rank}.json -- python3 t.py".into());
        a.provenance.distributed = Some(Distributed {
            launcher: Launcher::Torchrun,
            rank_variable: "RANK".into(),
            rank,
            local_rank: Some(rank),
            world_size: Some(2),
            local_world_size: Some(2),
            job_id: None,
        });
        for k in &mut a.kernels {
            // The whole timing, samples too: the reader refuses a median its samples
            // do not have.
            if let Some(t) = &mut k.timing {
                t.median_ms *= slow;
                t.min_ms *= slow;
                t.max_ms *= slow;
                for s in &mut t.samples_ms {
                    *s *= slow;
                }
            }
        }
        let mut json = Vec::new();
        a.write_json(&mut json).unwrap_or_else(|e| panic!("{e}"));
        InputFile {
            name: format!("p-{rank}.json"),
            bytes: json,
        }
    }

    #[test]
    fn ranks_opened_together_are_one_job_and_the_slow_rank_shows() {
        let (runs, errors) = load_batch(vec![rank_file(1, 1.25), rank_file(0, 1.0)]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        let jobs = rank_jobs(&ws);
        assert_eq!(jobs.len(), 1);
        let j = &jobs[0];
        assert_eq!(j.comparison.ranks, [0, 1]);
        // Rank 0 is the second file loaded: run 1.
        assert_eq!(j.job.members[0].input, 1);
        assert_eq!(j.comparison.slowest_total, Some(1));
        let timed = j.comparison.kernels.iter().filter(|k| k.slowest.is_some());
        assert!(timed.clone().count() > 0);
        for k in timed {
            assert_eq!(k.slowest, Some(1), "{}", k.name);
        }
        // The device ceilings of one run alone are no side-by-side table.
        assert!(host_devices(&ws).is_empty());
    }

    #[test]
    fn runs_of_two_devices_of_one_host_stand_side_by_side() {
        let bytes = crate::state::test_support::input("site/samples/h200.json").bytes;
        let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{e}"));
        let mut files = Vec::new();
        for (index, copy_scale) in [(0u32, 1.0), (1, 0.9)] {
            let mut a = shared::Artifact::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
            if let Some(d) = &mut a.device {
                d.index = Some(index);
            }
            if let Some(c) = &mut a.ceilings {
                c.copy_gbyte_per_s = c.copy_gbyte_per_s.map(|v| v * copy_scale);
            }
            let mut json = Vec::new();
            a.write_json(&mut json).unwrap_or_else(|e| panic!("{e}"));
            files.push(InputFile {
                name: format!("run-{index}.json"),
                bytes: json,
            });
        }
        let (runs, errors) = load_batch(files);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        let hosts = host_devices(&ws);
        assert_eq!(hosts.len(), 1);
        let flagged = hosts[0].flagged();
        // With two devices each is the other's only sibling: 10 % below flags GPU 1 only.
        assert_eq!(flagged.len(), 1, "{flagged:?}");
        assert_eq!(hosts[0].columns[flagged[0].0].index, Some(1));
        assert_eq!(
            flagged[0].1,
            shared::analysis::multi::devices::Ceiling::Copy
        );
    }
}
