//! Running Nsight Compute: [`Ncu`] finds the executable, runs one collection with its output
//! in a log and a time limit (its process group killed on Ctrl-C or at the limit, the log
//! followed for progress), has the outcome judged ([`super::judge`]) and imports the
//! report's two pages, as the real [`Profiler`].

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::model::artifact::CacheControl;

use super::args::{
    collect_args, command_line, import_args, program_name, report_file, shell_quote, Page, Pass,
};
use super::judge::judge_collection;
use super::log as ncu_log;
use super::{ProfileOutput, ProfileRequest, Profiler};
use crate::exit::{Code, Fault};

/// Nsight Compute on this host.
#[derive(Clone, Debug)]
pub struct Ncu {
    /// The ncu executable.
    pub path: PathBuf,
    /// Limit for one collection.
    pub timeout: Duration,
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Ncu {
    /// `explicit`, else `ncu` on PATH, else /usr/local/cuda/bin/ncu; none is [`Code::NoNcu`].
    pub fn locate(explicit: Option<&Path>, timeout: Duration) -> Result<Ncu> {
        let found = match explicit {
            Some(p) if p.is_file() => Some(p.to_path_buf()),
            Some(p) => {
                return Err(Fault::new(
                    Code::NoNcu,
                    format!("ncu not found at {} (--ncu)", p.display()),
                )
                .into())
            }
            None => find_on_path("ncu").or_else(|| {
                let p = PathBuf::from("/usr/local/cuda/bin/ncu");
                p.is_file().then_some(p)
            }),
        };
        match found {
            Some(path) => Ok(Ncu { path, timeout }),
            None => Err(Fault::new(
                Code::NoNcu,
                "ncu (Nsight Compute) not found on PATH or in /usr/local/cuda/bin: install \
                 Nsight Compute, pass --ncu PATH, or skip the counters with --no-profile",
            )
            .into()),
        }
    }

    /// Runs ncu with `args`, stdout and stderr into `log`, killed after the time limit.
    fn run_logged(
        &self,
        args: &[OsString],
        env: &[(OsString, OsString)],
        log: &Path,
        what: &str,
    ) -> Result<ExitStatus> {
        let out = File::create(log).with_context(|| format!("{}: cannot create", log.display()))?;
        let err = out.try_clone().context("duplicating the log handle")?;
        let mut cmd = Command::new(&self.path);
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        // Its own process group does not get the terminal's Ctrl-C: capture's handler kills
        // it (registered as it starts, so that no interrupt falls in between).
        let (mut child, _stop) = crate::interrupt::made(
            || {
                cmd.spawn().map_err(|e| {
                    Fault::new(
                        Code::NoNcu,
                        format!("cannot start {}: {e}", self.path.display()),
                    )
                    .into()
                })
            },
            |c| crate::interrupt::Undo::Kill(c.id()),
        )?;
        let spinner = crate::gpu::progress::spinner(what);
        let start = Instant::now();
        // The log as it grows: ncu's `==PROF== Profiling` lines say how far it has got.
        let mut reader = File::open(log).ok();
        let mut progress = ncu_log::Progress::default();
        let mut chunk = Vec::new();
        let mut follow = |progress: &mut ncu_log::Progress| {
            if let Some(r) = reader.as_mut() {
                chunk.clear();
                if r.read_to_end(&mut chunk).is_ok() && !chunk.is_empty() {
                    progress.feed(&String::from_utf8_lossy(&chunk));
                }
            }
        };
        loop {
            if let Some(status) = child.try_wait().context("waiting for ncu")? {
                spinner.finish_and_clear();
                follow(&mut progress);
                if progress.profiled > 0 {
                    crate::gpu::progress::log(
                        None,
                        &format!(
                            "{what}: {} in {:.1} s",
                            progress.summary().unwrap_or_default(),
                            start.elapsed().as_secs_f64()
                        ),
                    );
                }
                return Ok(status);
            }
            follow(&mut progress);
            if let Some(line) = progress.summary() {
                spinner.set_message(format!("{what}: {line}"));
            }
            if start.elapsed() > self.timeout {
                // Kill the whole process group: ncu and the program it is profiling.
                let _ = Command::new("kill")
                    // `--`: procps-ng 4 reads a bare `-PGID` as an option and kills nothing.
                    .args(["-KILL", "--"])
                    .arg(format!("-{}", child.id()))
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                spinner.finish_and_clear();
                return Err(Fault::new(
                    Code::NcuFailed,
                    format!(
                        "{what}: ncu did not finish within {} s and was killed; log: {}",
                        self.timeout.as_secs(),
                        log.display()
                    ),
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Prints one page of a report into `csv`.
    fn import(&self, report: &Path, page: Page, csv: &Path) -> Result<String> {
        let args = import_args(report, page);
        let cmd = format!(
            "{} > {}",
            command_line(self.path.as_os_str(), &args),
            shell_quote(csv.as_os_str())
        );
        let out = Command::new(&self.path)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {cmd}"))?;
        if !out.status.success() {
            return Err(Fault::new(
                Code::NcuFailed,
                format!(
                    "{cmd} failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            )
            .into());
        }
        crate::files::write_atomic(csv, &out.stdout)?;
        Ok(cmd)
    }
}

impl Profiler for Ncu {
    fn version(&self) -> Option<String> {
        let out = Command::new(&self.path).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("Version "))
            .map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
            .or_else(|| text.lines().last().map(|l| l.trim().to_string()))
    }

    fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput> {
        let base = req.work_dir.join(req.name);
        let report = report_file(&base);
        let _ = std::fs::remove_file(&report);
        let log = req.work_dir.join(format!("{}.log", req.name));
        let args = collect_args(&base, &req.collection, req.program);
        let env: String = req
            .env
            .iter()
            .map(|(k, v)| format!("{}={} ", k.to_string_lossy(), shell_quote(v)))
            .collect();
        let collect_cmd = format!(
            "{env}{} > {} 2>&1",
            command_line(self.path.as_os_str(), &args),
            shell_quote(log.as_os_str())
        );
        let what = format!(
            "ncu ({} caches) on {}",
            match req.collection.cache {
                CacheControl::Cold => "cold",
                CacheControl::Warm => "warm",
            },
            program_name(req.program)
        );
        // A report cut short by Ctrl-C is no report: removed, like an unfinished output.
        let status = {
            let _unfinished = crate::interrupt::remove_on_interrupt(&report);
            self.run_logged(&args, req.env, &log, &what)?
        };
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let judged = judge_collection(
            status.code(),
            &log_text,
            report.is_file(),
            &log,
            &req.collection,
            &program_name(req.program),
        )?;
        let raw_csv = req.work_dir.join(format!("{}-raw.csv", req.name));
        // The timing pass has one metric and no sections: no details page to import.
        // (Its raw page is still imported, not read from the report natively: ncu's CSV
        // prints kernel names its own way, `void native::...` for the report's
        // `void at::native::...`, and the profiling pass's rows are matched by name.)
        let details_csv = (req.collection.pass != Pass::Timing)
            .then(|| req.work_dir.join(format!("{}-details.csv", req.name)));
        // The two imports are two ncu processes of a second or more each: run side by side.
        let (raw_cmd, details_cmd) = std::thread::scope(|s| {
            let details = details_csv
                .as_ref()
                .map(|d| s.spawn(|| self.import(&report, Page::Details, d)));
            let raw = self.import(&report, Page::Raw, &raw_csv);
            let details = details.map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("the details page's import stopped")))
            });
            (raw, details)
        });
        let mut commands = vec![collect_cmd, raw_cmd?];
        if let Some(cmd) = details_cmd {
            commands.push(cmd?);
        }
        let details = details_csv;
        Ok(ProfileOutput {
            raw: raw_csv,
            details,
            commands,
            warnings: judged.warnings,
            program_status: judged.program_status,
        })
    }
}
