//! Rank-aware outputs: which process of a distributed job this is (its rank under
//! `torchrun`, Open MPI's `mpirun` or Slurm's `srun`), and the output path that `-o` names
//! for it: `prof-{rank}.json` becomes `prof-3.json` on rank 3. Eight ranks writing one file
//! would lose seven profiles to the last rename, so when several ranks are detected and `-o`
//! cannot tell them apart, the command is refused before any work starts.
//!
//! Pure: the environment comes in through [`Env`] (the process's own in [`ProcessEnv`], a
//! map in tests) and the host name as a value, so every case is tested without touching the
//! process environment. `commands::run` and `commands::profile` call [`detect`] and [`OutputPlan`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use shared::model::artifact::{Distributed, Launcher};

/// Where environment variables come from.
pub trait Env {
    /// The variable's value; `None` when unset or not Unicode.
    fn var(&self, name: &str) -> Option<String>;
}

/// This process's environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl Env for HashMap<&str, &str> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).map(|v| v.to_string())
    }
}

/// One launcher's variables.
struct Family {
    launcher: Launcher,
    /// Read first; the family is detected when it is set.
    rank: &'static str,
    local_rank: &'static str,
    /// The first one set wins.
    world_size: &'static [&'static str],
    local_world_size: &'static str,
    /// Joined with `.` when several are set (Slurm's job and step).
    job_id: &'static [&'static str],
}

/// The launchers, in the order they are looked for: the innermost launcher first, because
/// a process inherits the variables of every launcher above it unchanged. `torchrun` inside
/// an `srun` step sees `SLURM_PROCID` of the step (one per node) besides its own `RANK`;
/// `mpirun` inside a Slurm allocation sees the batch step's `SLURM_PROCID=0` on every rank.
const FAMILIES: [Family; 3] = [
    Family {
        launcher: Launcher::Torchrun,
        rank: "RANK",
        local_rank: "LOCAL_RANK",
        world_size: &["WORLD_SIZE"],
        local_world_size: "LOCAL_WORLD_SIZE",
        job_id: &["TORCHELASTIC_RUN_ID"],
    },
    Family {
        launcher: Launcher::OpenMpi,
        rank: "OMPI_COMM_WORLD_RANK",
        local_rank: "OMPI_COMM_WORLD_LOCAL_RANK",
        world_size: &["OMPI_COMM_WORLD_SIZE"],
        local_world_size: "OMPI_COMM_WORLD_LOCAL_SIZE",
        job_id: &[],
    },
    Family {
        launcher: Launcher::Slurm,
        rank: "SLURM_PROCID",
        local_rank: "SLURM_LOCALID",
        // The tasks of this step (srun's), else of the job.
        world_size: &["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"],
        local_world_size: "SLURM_NTASKS_PER_NODE",
        job_id: &["SLURM_JOB_ID", "SLURM_STEP_ID"],
    },
];

/// A set, non-empty variable.
fn value(env: &dyn Env, name: &str) -> Option<String> {
    env.var(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// A set variable as a count or an index; an error names it when it is not one.
fn number(env: &dyn Env, name: &str) -> Result<Option<u32>, String> {
    value(env, name)
        .map(|v| {
            v.parse::<u32>()
                .map_err(|_| format!("{name}={v} is not a whole number from 0"))
        })
        .transpose()
}

/// This process's place in a job, from the first launcher's variables that are set (see
/// [`FAMILIES`] for the order): `None` for a process started on its own. An error names a
/// variable that is not a number, or a rank not below the world size.
pub fn detect(env: &dyn Env) -> Result<Option<Distributed>, String> {
    for f in &FAMILIES {
        let Some(rank) = number(env, f.rank)? else {
            continue;
        };
        let mut world_size = None;
        for name in f.world_size {
            if let Some(n) = number(env, name)? {
                if rank >= n {
                    return Err(format!(
                        "{}={rank} is not below {name}={n}: the launcher's variables disagree",
                        f.rank
                    ));
                }
                world_size = Some(n);
                break;
            }
        }
        // SLURM_NTASKS_PER_NODE may read `4(x2)` on uneven allocations: only a plain count
        // is a local world size.
        let local_world_size = value(env, f.local_world_size).and_then(|v| v.parse().ok());
        let ids: Vec<String> = f.job_id.iter().filter_map(|n| value(env, n)).collect();
        return Ok(Some(Distributed {
            launcher: f.launcher,
            rank_variable: f.rank.to_string(),
            rank,
            local_rank: number(env, f.local_rank)?,
            world_size,
            local_world_size,
            job_id: (!ids.is_empty()).then(|| ids.join(".")),
        }));
    }
    Ok(None)
}

/// Whether `d` says this process is one of several: a world size above one, or a rank above
/// zero (which implies others).
pub fn several_ranks(d: &Distributed) -> bool {
    d.world_size.is_some_and(|n| n > 1) || d.rank > 0
}

/// A placeholder `-o` may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placeholder {
    /// `{rank}`: the global rank; 0 for a process started on its own.
    Rank,
    /// `{local_rank}`: the rank on this host; 0 for a process started on its own.
    LocalRank,
    /// `{host}`: this machine's host name.
    Host,
    /// `{device}`: the CUDA ordinal (`capture run` only).
    Device,
}

impl Placeholder {
    /// Every placeholder.
    pub const ALL: [Placeholder; 4] = [
        Placeholder::Rank,
        Placeholder::LocalRank,
        Placeholder::Host,
        Placeholder::Device,
    ];

    /// Its name between braces.
    pub fn name(self) -> &'static str {
        match self {
            Placeholder::Rank => "rank",
            Placeholder::LocalRank => "local_rank",
            Placeholder::Host => "host",
            Placeholder::Device => "device",
        }
    }
}

/// A piece of an output template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Hole(Placeholder),
}

/// Splits a template into text and placeholders. A `{` with no `}` after it is text; a
/// `{name}` whose name is not in `allowed` is an error naming the ones that are.
fn parse(template: &str, allowed: &[Placeholder]) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, from) = rest.split_at(open);
        let Some(close) = from.find('}') else {
            break;
        };
        let name = from.get(1..close).unwrap_or_default();
        let hole = allowed
            .iter()
            .copied()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let known: Vec<String> = allowed
                    .iter()
                    .map(|p| format!("{{{}}}", p.name()))
                    .collect();
                format!(
                    "-o {template}: {{{name}}} is not a placeholder here (it may hold {})",
                    known.join(", ")
                )
            })?;
        if !before.is_empty() {
            pieces.push(Piece::Text(before.to_string()));
        }
        pieces.push(Piece::Hole(hole));
        rest = from.get(close + 1..).unwrap_or_default();
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok(pieces)
}

/// `path` with `suffix` before its extension: `run.json` + `-gpu3` is `run-gpu3.json`.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let mut name = stem.unwrap_or_default();
    name.push_str(suffix);
    if let Some(ext) = path.extension() {
        name.push('.');
        name.push_str(&ext.to_string_lossy());
    }
    path.with_file_name(name)
}

/// The `-o` of one command, resolved against this process's rank and host: it names one
/// file per rank (and per device, for `capture run`), or the command was refused.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputPlan {
    /// `-o` as given.
    template: PathBuf,
    /// Its pieces; `None` for a path that is not Unicode (it holds no placeholder).
    pieces: Option<Vec<Piece>>,
    /// This process's place in a job, when it has one.
    distributed: Option<Distributed>,
    /// This machine's host name.
    host: Option<String>,
}

impl OutputPlan {
    /// Checks `template` (the placeholders in `allowed` only) against `distributed`: with
    /// several ranks, `-o` must tell them apart (hold `{rank}`, or `{local_rank}` and
    /// `{host}`), or every rank would write the same file; the error says so and how to fix
    /// it.
    pub fn new(
        template: &Path,
        allowed: &[Placeholder],
        distributed: Option<Distributed>,
        host: Option<String>,
    ) -> Result<OutputPlan, String> {
        let pieces = template.to_str().map(|t| parse(t, allowed)).transpose()?;
        let plan = OutputPlan {
            template: template.to_path_buf(),
            pieces,
            distributed,
            host,
        };
        if let Some(d) = plan.distributed.as_ref().filter(|d| several_ranks(d)) {
            let per_rank = plan.has(Placeholder::Rank)
                || (plan.has(Placeholder::LocalRank) && plan.has(Placeholder::Host));
            if !per_rank {
                return Err(refusal(template, d));
            }
        }
        Ok(plan)
    }

    /// Whether `-o` holds `p`.
    pub fn has(&self, p: Placeholder) -> bool {
        self.pieces
            .as_ref()
            .is_some_and(|ps| ps.contains(&Piece::Hole(p)))
    }

    /// The rank recorded in provenance.
    pub fn distributed(&self) -> Option<&Distributed> {
        self.distributed.as_ref()
    }

    /// The path for `device` (`capture run`; `None` for `capture profile`): every
    /// placeholder replaced. An error says which one has no value here.
    pub fn path(&self, device: Option<u32>) -> Result<PathBuf, String> {
        let Some(pieces) = &self.pieces else {
            return Ok(self.template.clone());
        };
        let d = self.distributed.as_ref();
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Hole(Placeholder::Rank) => {
                    out.push_str(&d.map_or(0, |d| d.rank).to_string());
                }
                Piece::Hole(Placeholder::LocalRank) => {
                    let local = match d {
                        None => 0,
                        Some(d) => d.local_rank.ok_or_else(|| {
                            format!(
                                "-o holds {{local_rank}}, but the launcher set {} and no local \
                                 rank; use {{rank}}",
                                d.rank_variable
                            )
                        })?,
                    };
                    out.push_str(&local.to_string());
                }
                Piece::Hole(Placeholder::Host) => {
                    let host = self.host.as_deref().ok_or(
                        "-o holds {host}, but this machine's host name is unknown \
                         (/proc/sys/kernel/hostname); leave {host} out",
                    )?;
                    out.push_str(&host.replace('/', "_"));
                }
                Piece::Hole(Placeholder::Device) => {
                    let ordinal =
                        device.ok_or("-o holds {device}, which only capture run fills")?;
                    out.push_str(&ordinal.to_string());
                }
            }
        }
        Ok(PathBuf::from(out))
    }
}

/// Why several ranks may not share `-o`, and what to write instead.
fn refusal(template: &Path, d: &Distributed) -> String {
    let who = match d.world_size {
        Some(n) => format!(
            "{n} ranks detected ({}={}, of {n})",
            d.rank_variable, d.rank
        ),
        None => format!("rank {} detected ({}={})", d.rank, d.rank_variable, d.rank),
    };
    format!(
        "{who}: every rank would write {} and all profiles but one would be lost; put {{rank}} \
         in -o, for example -o {} ({{local_rank}} with {{host}} also tells ranks apart)",
        template.display(),
        with_suffix(template, "-{rank}").display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&'static str, &'static str)]) -> HashMap<&'static str, &'static str> {
        vars.iter().copied().collect()
    }

    #[test]
    fn ranks_are_detected_from_the_innermost_launcher() {
        // (variables, launcher, rank, local rank, world size, job id)
        type Case = (
            &'static [(&'static str, &'static str)],
            Option<(
                Launcher,
                u32,
                Option<u32>,
                Option<u32>,
                Option<&'static str>,
            )>,
        );
        let cases: [Case; 9] = [
            (&[], None),
            (&[("PATH", "/bin"), ("WORLD_SIZE", "8")], None),
            (
                &[
                    ("RANK", "3"),
                    ("LOCAL_RANK", "3"),
                    ("WORLD_SIZE", "8"),
                    ("TORCHELASTIC_RUN_ID", "abc"),
                ],
                Some((Launcher::Torchrun, 3, Some(3), Some(8), Some("abc"))),
            ),
            // torchrun inside srun: RANK wins over the step's SLURM_PROCID.
            (
                &[
                    ("RANK", "9"),
                    ("LOCAL_RANK", "1"),
                    ("WORLD_SIZE", "16"),
                    ("SLURM_PROCID", "1"),
                    ("SLURM_NTASKS", "2"),
                ],
                Some((Launcher::Torchrun, 9, Some(1), Some(16), None)),
            ),
            // mpirun inside a Slurm allocation: Open MPI's rank, not the batch step's 0.
            (
                &[
                    ("OMPI_COMM_WORLD_RANK", "5"),
                    ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                    ("OMPI_COMM_WORLD_SIZE", "8"),
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "8"),
                ],
                Some((Launcher::OpenMpi, 5, Some(1), Some(8), None)),
            ),
            (
                &[
                    ("SLURM_PROCID", "6"),
                    ("SLURM_LOCALID", "2"),
                    ("SLURM_STEP_NUM_TASKS", "8"),
                    ("SLURM_NTASKS", "16"),
                    ("SLURM_JOB_ID", "4242"),
                    ("SLURM_STEP_ID", "0"),
                ],
                Some((Launcher::Slurm, 6, Some(2), Some(8), Some("4242.0"))),
            ),
            // Without srun's step count, the job's task count.
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "4"),
                    ("SLURM_JOB_ID", "7"),
                ],
                Some((Launcher::Slurm, 0, None, Some(4), Some("7"))),
            ),
            // An empty variable is unset.
            (
                &[("RANK", ""), ("SLURM_PROCID", "2")],
                Some((Launcher::Slurm, 2, None, None, None)),
            ),
            (
                &[("RANK", " 0 "), ("WORLD_SIZE", "1")],
                Some((Launcher::Torchrun, 0, None, Some(1), None)),
            ),
        ];
        for (vars, want) in cases {
            let got = detect(&env(vars)).unwrap_or_else(|e| panic!("{vars:?}: {e}"));
            let got = got.map(|d| (d.launcher, d.rank, d.local_rank, d.world_size, d.job_id));
            let want = want.map(|(l, r, lr, n, j)| (l, r, lr, n, j.map(String::from)));
            assert_eq!(got, want, "{vars:?}");
        }
    }

    #[test]
    fn bad_rank_variables_are_named() {
        let cases: [(&[(&str, &str)], &str); 3] = [
            (&[("RANK", "one")], "RANK=one is not a whole number"),
            (
                &[("RANK", "0"), ("WORLD_SIZE", "-2")],
                "WORLD_SIZE=-2 is not",
            ),
            (
                &[("SLURM_PROCID", "4"), ("SLURM_NTASKS", "4")],
                "SLURM_PROCID=4 is not below SLURM_NTASKS=4",
            ),
        ];
        for (vars, want) in cases {
            let err = detect(&env(vars)).err().unwrap_or_default();
            assert!(err.contains(want), "{vars:?}: {err}");
        }
    }

    fn ranked(rank: u32, local: Option<u32>, world: Option<u32>) -> Distributed {
        Distributed {
            launcher: Launcher::Torchrun,
            rank_variable: "RANK".into(),
            rank,
            local_rank: local,
            world_size: world,
            local_world_size: None,
            job_id: None,
        }
    }

    const PROFILE: &[Placeholder] = &[Placeholder::Rank, Placeholder::LocalRank, Placeholder::Host];

    #[test]
    fn placeholders_expand_per_rank_host_and_device() {
        let host = Some("node7".to_string());
        // (template, rank, device, expanded)
        let cases: [(&str, Option<Distributed>, Option<u32>, &str); 8] = [
            ("prof.json", None, None, "prof.json"),
            (
                "prof-{rank}.json",
                Some(ranked(3, Some(1), Some(8))),
                None,
                "prof-3.json",
            ),
            (
                "out/{host}/p-{local_rank}.json",
                Some(ranked(3, Some(1), Some(8))),
                None,
                "out/node7/p-1.json",
            ),
            // A process started on its own is rank 0 of 1.
            ("prof-{rank}-{local_rank}.json", None, None, "prof-0-0.json"),
            (
                "run-{host}-{device}.json",
                None,
                Some(3),
                "run-node7-3.json",
            ),
            (
                "{rank}{rank}.json",
                Some(ranked(1, None, Some(2))),
                None,
                "11.json",
            ),
            // Braces that open no placeholder are text.
            ("odd{.json", None, None, "odd{.json"),
            (
                "a}{rank}.json",
                Some(ranked(1, None, Some(2))),
                None,
                "a}1.json",
            ),
        ];
        for (template, d, device, want) in cases {
            let plan = OutputPlan::new(Path::new(template), &Placeholder::ALL, d, host.clone())
                .unwrap_or_else(|e| panic!("{template}: {e}"));
            assert_eq!(plan.path(device), Ok(PathBuf::from(want)), "{template}");
        }
    }

    #[test]
    fn placeholders_without_a_value_or_not_allowed_are_errors() {
        let err = OutputPlan::new(Path::new("p-{device}.json"), PROFILE, None, None)
            .err()
            .unwrap_or_default();
        assert!(err.contains("{device} is not a placeholder here"), "{err}");
        assert!(err.contains("{rank}, {local_rank}, {host}"), "{err}");
        let err = OutputPlan::new(Path::new("p-{ranks}.json"), PROFILE, None, None)
            .err()
            .unwrap_or_default();
        assert!(err.contains("{ranks} is not a placeholder"), "{err}");
        let plan = OutputPlan::new(Path::new("{host}.json"), PROFILE, None, None);
        let err = plan.and_then(|p| p.path(None)).err().unwrap_or_default();
        assert!(err.contains("host name is unknown"), "{err}");
        let d = ranked(0, None, Some(1));
        let plan = OutputPlan::new(Path::new("{local_rank}.json"), PROFILE, Some(d), None);
        let err = plan.and_then(|p| p.path(None)).err().unwrap_or_default();
        assert!(err.contains("no local rank; use {rank}"), "{err}");
    }

    #[test]
    fn several_ranks_may_not_share_one_output() {
        let host = Some("n".to_string());
        // (template, rank, refused)
        let cases: [(&str, Distributed, bool); 8] = [
            ("prof.json", ranked(0, Some(0), Some(2)), true),
            ("prof.json", ranked(1, Some(1), Some(2)), true),
            // A rank above 0 implies others even without a world size.
            ("prof.json", ranked(2, None, None), true),
            ("prof-{rank}.json", ranked(1, Some(1), Some(2)), false),
            // The local rank alone collides across hosts; with the host it does not.
            ("prof-{local_rank}.json", ranked(1, Some(1), Some(16)), true),
            (
                "prof-{host}-{local_rank}.json",
                ranked(9, Some(1), Some(16)),
                false,
            ),
            ("prof-{host}.json", ranked(1, Some(1), Some(2)), true),
            // One rank of one: nothing to collide with.
            ("prof.json", ranked(0, Some(0), Some(1)), false),
        ];
        for (template, d, refused) in cases {
            let got = OutputPlan::new(Path::new(template), PROFILE, Some(d.clone()), host.clone());
            assert_eq!(got.is_err(), refused, "{template} {d:?}: {got:?}");
        }
        let err = OutputPlan::new(
            Path::new("out/prof.json"),
            PROFILE,
            Some(ranked(1, None, Some(8))),
            None,
        )
        .err()
        .unwrap_or_default();
        assert_eq!(
            err,
            "8 ranks detected (RANK=1, of 8): every rank would write out/prof.json and all \
             profiles but one would be lost; put {rank} in -o, for example -o \
             out/prof-{rank}.json ({local_rank} with {host} also tells ranks apart)"
        );
    }

    #[test]
    fn suffixes_go_before_the_extension() {
        let cases = [
            ("run.json", "-gpu3", "run-gpu3.json"),
            ("out/run.json", "-gpu0", "out/run-gpu0.json"),
            ("run", "-gpu1", "run-gpu1"),
            ("a.b.json", "-x", "a.b-x.json"),
        ];
        for (path, suffix, want) in cases {
            assert_eq!(with_suffix(Path::new(path), suffix), PathBuf::from(want));
        }
    }
}
