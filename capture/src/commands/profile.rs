//! `capture profile -- PROGRAM ARGS`: the user's program under ncu, sampled by default (a
//! timing pass, a plan, a profiling pass over the plan's launches) or every launch with
//! `--all-launches`, into one artifact. This module resolves the flags into a
//! [`ProfileConfig`] before ncu starts; [`conductor`] runs it, step by step.

mod conductor;
pub(crate) mod torch;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;

use super::{caches_of, usage};
use crate::cli::{ProfileArgs, TimingPassArg};
use crate::gpu::ncu::args::{self as ncu_args, Selection};
use crate::gpu::ncu::run::Ncu;
use crate::gpu::{host, sample};
use crate::ranks::{self, Env, OutputPlan, Placeholder, ProcessEnv};
pub use conductor::ProfileConfig;
use conductor::ProfileRun;

/// Checks `capture profile`'s flags and finds its program, before ncu starts: a program
/// that does not exist or may not be executed is a usage error naming it, and so is an `-o`
/// that several detected ranks would share.
pub fn resolve_profile(args: &ProfileArgs) -> Result<ProfileConfig> {
    resolve_profile_in(args, &ProcessEnv, host::host_name())
}

/// [`resolve_profile`] against any environment and host name (tests pass a map).
pub fn resolve_profile_in(
    args: &ProfileArgs,
    env: &dyn Env,
    host: Option<String>,
) -> Result<ProfileConfig> {
    let program: Vec<OsString> = args.program.iter().map(OsString::from).collect();
    let Some(first) = program.first() else {
        return Err(usage("capture profile needs a program after --"));
    };
    host::find_program(first).map_err(|e| usage(format!("cannot profile {e}")))?;
    if args.launch_count == Some(0) {
        return Err(usage("--launch-count must be at least 1"));
    }
    if !args.all_launches && (args.launch_skip.is_some() || args.launch_count.is_some()) {
        // ncu applies -s and -c after the --kernel-id that selects a sample's launches, so
        // they would pick other launches in the profiling pass than in the timing pass.
        return Err(usage(
            "--launch-skip and --launch-count do not combine with sampling: select the launches \
             with --nvtx-include (or --kernel-name), or add --all-launches",
        ));
    }
    if !args.all_launches {
        if let Some(a) = args.ncu_arg.iter().find(|a| {
            let o = a.split('=').next().unwrap_or(a);
            o == "--kernel-id" || o == "--kernel-name-base"
        }) {
            return Err(usage(format!(
                "--ncu-arg {a}: a sampled profile selects its launches with --kernel-id itself; \
                 add --all-launches to pass it"
            )));
        }
    }
    let distributed = ranks::detect(env).map_err(usage)?;
    let allowed = [Placeholder::Rank, Placeholder::LocalRank, Placeholder::Host];
    let plan = OutputPlan::new(&args.output, &allowed, distributed, host.clone()).map_err(usage)?;
    let output = plan.path(None).map_err(usage)?;
    // `-o train.py -- python train.py` would replace the program's script.
    let program_files: Vec<PathBuf> = program.iter().map(Into::into).collect();
    crate::files::refuse_output_among_inputs(&output, &program_files)?;
    let ncu_args = ncu_args_of(args);
    let caches = caches_of(args.cache);
    let depth = args.depth.depth();
    let notes = push_pop_note(&args.nvtx_include, &args.ncu_arg)
        .into_iter()
        .collect();
    ncu_args::check_ncu_args(&args.ncu_arg).map_err(usage)?;
    Ok(ProfileConfig {
        program_name: ncu_args::program_name(&program),
        program,
        selection: Selection {
            kernel_filter: args.kernel_name.as_ref().map(|re| format!("regex:{re}")),
            launch_skip: args.launch_skip,
            launch_count: args.launch_count,
            // Every launch keeps its NVTX ranges: where in the program it ran.
            nvtx: true,
            nvtx_include: args.nvtx_include.clone(),
            nvtx_exclude: args.nvtx_exclude.clone(),
            kernel_id: None,
        },
        ncu_args,
        caches,
        output,
        keep_exports: args.ncu_opts.keep_exports || args.source,
        distributed: plan.distributed().cloned(),
        host,
        all_launches: args.all_launches,
        plan_only: args.plan_only,
        depth,
        notes,
        torch_ops: args.torch_modules.then_some(args.torch_ops),
        timing: timing_source(args)?,
    })
}

/// Where a sampled profile's timing pass comes from (`--timing-pass`): with `auto`, the
/// trace where it can select what ncu's pass would (no `--kernel-name`, whose regex ncu
/// matches against its own demangled names, and no `--ncu-arg`, which may change what ncu
/// sees), and where the injection library and CUPTI are found; else ncu's, with the reason
/// printed.
fn timing_source(args: &ProfileArgs) -> Result<sample::TimingSource> {
    use crate::gpu::trace::{find_cupti, find_injection};
    let found = || -> Result<sample::TimingSource> {
        Ok(sample::TimingSource::Trace {
            inject: find_injection(None)?,
            cupti: find_cupti(None)?,
        })
    };
    match args.timing_pass {
        TimingPassArg::Ncu => Ok(sample::TimingSource::Ncu),
        _ if args.all_launches => Ok(sample::TimingSource::Ncu),
        TimingPassArg::Trace => found(),
        TimingPassArg::Auto => {
            let why = if args.kernel_name.is_some() {
                Some("--kernel-name is matched by ncu against its own names".to_owned())
            } else if !args.ncu_arg.is_empty() {
                Some("--ncu-arg may change which launches ncu sees".to_owned())
            } else {
                found().err().map(|e| e.to_string())
            };
            match why {
                None => found(),
                Some(why) => {
                    crate::gpu::progress::log(
                        None,
                        &format!("timing pass: ncu's duration pass, not the trace: {why}"),
                    );
                    Ok(sample::TimingSource::Ncu)
                }
            }
        }
    }
}

/// `--ncu-arg`'s arguments, and the SourceCounters section with `--source`.
fn ncu_args_of(args: &ProfileArgs) -> Vec<String> {
    let mut out = args.ncu_arg.clone();
    if args.source {
        out.extend(["--section".to_owned(), ncu_args::SOURCE_SECTION.to_owned()]);
    }
    out
}

/// What a push/pop `--nvtx-include` means here, when one is given: ncu keeps push/pop ranges
/// per thread by default, so launches another thread makes while the range is open
/// (PyTorch's backward pass, from its autograd engine's thread) would be left out; capture
/// asks ncu for process-wide push/pop ranges ([`ncu_args::PUSH_POP_SCOPE`]) and says so. On
/// the H200 a 4-layer BERT training step under a push/pop "step" range has 172 launches
/// (2.26 ms of kernel time) per thread and 405 (4.32 ms) process-wide (docs/nvtx.md).
pub fn push_pop_note(includes: &[String], ncu_arg: &[String]) -> Option<String> {
    let range = includes.iter().find(|r| ncu_args::is_push_pop(r))?;
    if ncu_arg
        .iter()
        .any(|a| a.starts_with(ncu_args::PUSH_POP_SCOPE.0))
    {
        return Some(format!(
            "--nvtx-include {range:?} is a push/pop range and --ncu-arg sets its scope: with \
             ncu's default (thread), kernels other threads launch while it is open are left \
             out (PyTorch launches the backward pass from its autograd thread)"
        ));
    }
    Some(format!(
        "--nvtx-include {range:?} is a push/pop range: ncu takes it process-wide here \
         ({} {}), so kernels every thread launches while it is open are kept (PyTorch \
         launches the backward pass from its autograd thread); ranges other threads push \
         meanwhile nest inside it. A start/end range (torch.cuda.nvtx.range_start) needs no \
         such setting",
        ncu_args::PUSH_POP_SCOPE.0,
        ncu_args::PUSH_POP_SCOPE.1
    ))
}

/// `capture profile -- PROGRAM ARGS`: the user's program under ncu with every metric the
/// views need.
pub fn profile(args: &ProfileArgs) -> Result<ExitCode> {
    let cfg = resolve_profile(args)?;
    for note in &cfg.notes {
        crate::out::warn(note);
    }
    let ncu = Ncu::locate(
        args.ncu_opts.ncu.as_deref(),
        Duration::from_secs(args.ncu_opts.ncu_timeout),
    )?;
    ProfileRun::conduct(&cfg, &ncu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::DepthArg;

    #[test]
    fn a_push_pop_range_filter_says_it_is_taken_process_wide() {
        let note = push_pop_note(&["step/".into()], &[]).expect("a note");
        assert!(
            note.contains("autograd") && note.contains("--nvtx-push-pop-scope process"),
            "{note}"
        );
        assert_eq!(
            push_pop_note(&["step".into(), "domain@range".into()], &[]),
            None
        );
        // The user's own scope wins, and the note says what ncu's default leaves out.
        let own = push_pop_note(&["step/".into()], &["--nvtx-push-pop-scope=thread".into()])
            .expect("a note");
        assert!(own.contains("left out"), "{own}");
    }
    use crate::cli::CacheArg;
    use crate::exit::Code;
    use crate::files;
    use crate::gpu::fake;
    use crate::gpu::ncu::args::Pass;
    use shared::model::artifact::Origin;
    use std::collections::HashMap;
    use std::path::Path;

    /// `capture profile` flags for `program`, writing `out`.
    fn profile_args(out: &Path, program: &[&str]) -> ProfileArgs {
        ProfileArgs {
            output: out.to_path_buf(),
            kernel_name: None,
            launch_count: None,
            launch_skip: None,
            nvtx_include: Vec::new(),
            nvtx_exclude: Vec::new(),
            ncu_arg: Vec::new(),
            cache: CacheArg::Cold,
            ncu_opts: crate::cli::NcuOpts {
                ncu: None,
                ncu_timeout: 10,
                keep_exports: false,
            },
            source: false,
            torch_modules: false,
            torch_ops: false,
            all_launches: true,
            plan_only: false,
            depth: DepthArg::Standard,
            timing_pass: TimingPassArg::Ncu,
            program: program.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_timing_pass_is_ncus_where_the_trace_could_not_select_alike() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut args = profile_args(&dir.path().join("p.json"), &["true"]);
        args.all_launches = false;
        args.timing_pass = TimingPassArg::Auto;
        args.kernel_name = Some("gemm".into());
        assert_eq!(timing_source(&args).ok(), Some(sample::TimingSource::Ncu));
        args.kernel_name = None;
        args.ncu_arg = vec!["--target-processes=all".into()];
        assert_eq!(timing_source(&args).ok(), Some(sample::TimingSource::Ncu));
    }

    #[test]
    fn torch_modules_run_every_pass_with_the_hooks_first_on_pythonpath_and_nvtx_on() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let exe = this_program();
        let args = ProfileArgs {
            torch_modules: true,
            torch_ops: true,
            ..profile_args(&out, &[&exe])
        };
        let p = fake::probe();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        ProfileRun::conduct(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let envs = p.envs.borrow();
        assert!(!envs.is_empty());
        for env in envs.iter() {
            let path = env.iter().find(|(k, _)| k == "PYTHONPATH").map(|(_, v)| v);
            let first = path.and_then(|v| std::env::split_paths(v).next());
            let hooks = first.map(|f| f.join("sitecustomize.py"));
            assert!(hooks.is_some_and(|h| h.ends_with("p-torch-ranges/sitecustomize.py")));
            assert!(env.contains(&("CAPTURE_TORCH_OPS".into(), "1".into())));
        }
        assert!(p.asked.borrow().iter().all(|c| c.selection.nvtx));
        // Without the flag the program's environment is its own.
        let p = fake::probe();
        let cfg = resolved(&profile_args(&out, &[&exe])).unwrap_or_else(|e| panic!("{e:#}"));
        ProfileRun::conduct(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(p.envs.borrow().iter().all(Vec::is_empty));
    }

    #[test]
    fn profile_source_adds_the_source_counters_section_and_keeps_the_reports() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("p.json");
        let mut args = profile_args(&out, &["/bin/true"]);
        args.source = true;
        let cfg = resolved(&args).expect("resolves");
        assert_eq!(cfg.ncu_args, ["--section", "SourceCounters"]);
        assert!(cfg.keep_exports);
    }

    /// `capture profile`'s flags resolved in an empty environment on host `h`, whatever
    /// launcher the tests run under.
    fn resolved(args: &ProfileArgs) -> Result<ProfileConfig> {
        resolve_profile_in(args, &HashMap::new(), Some("h".into()))
    }

    #[test]
    fn two_ranks_write_one_artifact_each_with_rank_and_host() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let template = dir.path().join("p-{rank}.json");
        let exe = this_program();
        for rank in ["0", "1"] {
            let env = HashMap::from([("RANK", rank), ("LOCAL_RANK", rank), ("WORLD_SIZE", "2")]);
            let args = profile_args(&template, &[&exe]);
            let cfg = resolve_profile_in(&args, &env, Some("node7".into()))
                .unwrap_or_else(|e| panic!("{e:#}"));
            ProfileRun::conduct(&cfg, &fake::probe()).unwrap_or_else(|e| panic!("{e:#}"));
        }
        for rank in [0, 1] {
            let path = dir.path().join(format!("p-{rank}.json"));
            let a = files::read_artifact(&path).unwrap_or_else(|e| panic!("{e:#}"));
            let d = a.provenance.distributed.expect("the rank is recorded");
            assert_eq!(
                (d.rank, d.world_size, d.local_rank),
                (rank, Some(2), Some(rank))
            );
            assert_eq!(d.rank_variable, "RANK");
            assert_eq!(a.provenance.host.as_deref(), Some("node7"));
        }
        // Both are one job to the viewer's arithmetic.
        let read = |r: u32| files::read_artifact(&dir.path().join(format!("p-{r}.json")));
        let (a0, a1) = (
            read(0).unwrap_or_else(|e| panic!("{e:#}")),
            read(1).unwrap_or_else(|e| panic!("{e:#}")),
        );
        let jobs = shared::analysis::multi::ranks::jobs(&[&a0, &a1]);
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].missing, Vec::<u32>::new());
    }

    #[test]
    fn several_ranks_sharing_one_output_are_refused_before_ncu_starts() {
        let exe = this_program();
        let args = profile_args(Path::new("prof.json"), &[&exe]);
        let env = HashMap::from([("SLURM_PROCID", "0"), ("SLURM_STEP_NUM_TASKS", "4")]);
        let err = resolve_profile_in(&args, &env, None)
            .err()
            .unwrap_or_else(|| panic!("four ranks may not share prof.json"));
        assert_eq!(crate::exit::code_of(&err), Code::Usage);
        let msg = format!("{err:#}");
        assert!(
            msg.starts_with("4 ranks detected (SLURM_PROCID=0, of 4)"),
            "{msg}"
        );
        assert!(msg.contains("-o prof-{rank}.json"), "{msg}");
        let env = HashMap::from([("RANK", "x")]);
        let err = resolve_profile_in(&args, &env, None)
            .err()
            .map(|e| format!("{e:#}"));
        assert_eq!(err.as_deref(), Some("RANK=x is not a whole number from 0"));
        let args = profile_args(Path::new("p-{device}.json"), &[&exe]);
        let err = resolve_profile_in(&args, &HashMap::new(), None)
            .err()
            .map(|e| format!("{e:#}"));
        assert!(err.is_some_and(|e| e.contains("{device} is not a placeholder here")));
    }

    /// This test binary: a program that exists and may be executed.
    fn this_program() -> String {
        std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn profile_command_builds_an_artifact_from_replayed_exports() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let exe = this_program();
        let args = ProfileArgs {
            kernel_name: Some("copy".into()),
            launch_count: Some(3),
            launch_skip: Some(2),
            nvtx_include: vec!["step/".into()],
            ncu_arg: vec!["--target-processes=all".into()],
            ..profile_args(&out, &[&exe, "x.py"])
        };
        let p = fake::probe();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        ProfileRun::conduct(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(a.provenance.origin, Some(Origin::Profile));
        assert_eq!(a.kernels.len(), 1);
        assert_eq!(&*a.kernels[0].function, "copy");
        assert!(a.kernels[0].cold.is_some());
        let asked = p.asked.borrow();
        let sel = &asked[0].selection;
        assert_eq!(sel.kernel_filter.as_deref(), Some("regex:copy"));
        assert_eq!(sel.launch_count, Some(3));
        assert_eq!(sel.launch_skip, Some(2));
        assert_eq!(sel.nvtx_include, ["step/"]);
        assert_eq!(asked[0].ncu_args, ["--target-processes=all"]);
    }

    #[test]
    fn profile_samples_by_default_and_labels_the_artifact_and_its_table() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("s.json");
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            nvtx_include: vec!["step/".into()],
            ..profile_args(&out, &[&exe, "train.py"])
        };
        let p = sample::tests::training_step();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        ProfileRun::conduct(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        let s = a
            .sampled
            .clone()
            .unwrap_or_else(|| panic!("not labelled sampled"));
        assert_eq!((s.measured, s.launches, s.timing_launches), (74, 172, 172));
        assert!(a.warnings[0].starts_with("Sampled profile: counters were measured on 74 of 172"));
        let per_kernel: u64 = a
            .kernels
            .iter()
            .filter_map(|k| k.sampled.as_deref())
            .map(|c| c.launches)
            .sum();
        assert_eq!(per_kernel, 172);
        assert_eq!(
            a.provenance.ncu_commands.first().map(String::as_str),
            Some("replay s-ncu-timing"),
            "the timing pass is recorded first"
        );
        let text = super::super::table::render(&a, crate::cli::TableFormat::Table);
        assert!(
            text.starts_with("sampled: 74 of 172 launches measured"),
            "{text}"
        );
        assert!(text.contains("70/"), "launches N/M in the table: {text}");
        let json = super::super::table::render(&a, crate::cli::TableFormat::Json);
        assert!(json.contains("\"sampled\": {"), "{json}");
        let csv = super::super::table::render(&a, crate::cli::TableFormat::Csv);
        assert!(
            csv.lines()
                .next()
                .unwrap_or("")
                .split(',')
                .any(|column| column == "sampled_measured"),
            "{csv}"
        );
    }

    #[test]
    fn plan_only_prints_the_plan_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("s.json");
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            plan_only: true,
            depth: DepthArg::Roofline,
            ..profile_args(&out, &[&exe])
        };
        let p = sample::tests::training_step();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        ProfileRun::conduct(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(!out.exists());
        assert_eq!(p.asked.borrow().len(), 1, "only the timing pass ran");
        assert_eq!(p.asked.borrow()[0].pass, Pass::Timing);
    }

    #[test]
    fn a_sampled_profile_refuses_a_kernel_id_of_its_own() {
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            ncu_arg: vec!["--kernel-id=::gemm:2".into()],
            ..profile_args(Path::new("p.json"), &[&exe])
        };
        let err = resolved(&args)
            .err()
            .map(|e| format!("{e:#}"))
            .unwrap_or_default();
        assert!(err.contains("add --all-launches"), "{err}");
        let args = ProfileArgs {
            all_launches: true,
            ..args
        };
        assert!(resolved(&args).is_ok());
    }

    #[test]
    fn a_program_that_fails_after_profiled_launches_keeps_them_and_exits_10() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let exe = this_program();
        let args = ProfileArgs {
            cache: CacheArg::Both,
            ..profile_args(&out, &[&exe])
        };
        let p = fake::FakeProfiler {
            program_status: Some(3),
            ..fake::probe()
        };
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        let err = ProfileRun::conduct(&cfg, &p)
            .err()
            .unwrap_or_else(|| panic!("a failed program is not a success"));
        assert_eq!(crate::exit::code_of(&err), Code::ProgramFailed);
        let msg = format!("{err:#}");
        assert!(msg.contains("exited with status 3; wrote"), "{msg}");
        assert_eq!(
            p.asked.borrow().len(),
            1,
            "no warm collection after the failure"
        );
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(a.kernels[0].cold.is_some());
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("not collected after the program failed: warm caches")),
            "{:?}",
            a.warnings
        );
        assert!(a.warnings.iter().any(|w| w.contains("status 3")));
    }

    #[test]
    fn profile_flags_are_checked_before_ncu_starts() {
        let out = Path::new("p.json");
        let exe = this_program();
        let usage_error = |args: ProfileArgs| {
            let err = resolved(&args)
                .err()
                .unwrap_or_else(|| panic!("{:?} must be refused", args.program));
            assert_eq!(crate::exit::code_of(&err), Code::Usage);
            format!("{err:#}")
        };
        let msg = usage_error(profile_args(out, &["/nonexistent/prog", "--x"]));
        assert!(
            msg.starts_with("cannot profile /nonexistent/prog: "),
            "{msg}"
        );
        let msg = usage_error(profile_args(out, &[]));
        assert!(msg.contains("needs a program"), "{msg}");
        let msg = usage_error(ProfileArgs {
            ncu_arg: vec!["-k".into(), "gemm".into()],
            ..profile_args(out, &[&exe])
        });
        assert!(msg.contains("use --kernel-name"), "{msg}");
        let msg = usage_error(ProfileArgs {
            launch_count: Some(0),
            ..profile_args(out, &[&exe])
        });
        assert!(msg.contains("--launch-count"), "{msg}");
    }
}
