//! `capture source`: a kernel's SASS instructions with their per-instruction figures (ncu's
//! SourceCounters section) and its hot spots, from a `.ncu-rep` report, an `ncu --page
//! source --csv --print-source sass` export ([`shared::read::source`] does the reading) or
//! an artifact that keeps them (`capture import REPORT --source PAGE`).

use std::process::ExitCode;

use anyhow::{bail, Result};
use regex::Regex;
use shared::read::source::{self, LaunchSource};

use crate::cli::{SourceArgs, SourceFormat};
use crate::files;

/// The launches of `bytes` (a report, a source-page export, or an artifact, which keeps
/// each kernel's longest launch) with source counters.
fn launches_of(path: &std::path::Path, bytes: &[u8]) -> Result<Vec<LaunchSource>> {
    if shared::read::kind::kind_of(bytes) == shared::read::kind::FileKind::Artifact {
        return Ok(files::read_artifact(path)?.sources);
    }
    if shared::read::kind::kind_of(bytes) == shared::read::kind::FileKind::Report {
        let report = shared::read::ncu_rep::read_report(bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(report.results.iter().filter_map(|r| r.source()).collect())
    } else {
        source::read_source_csv(bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}

/// Gives the instructions of `launches` the text of their CUDA lines from the files of the
/// same names in `dir`; a file not there is left without text.
fn add_cuda_text(dir: &std::path::Path, launches: &mut [LaunchSource]) -> Result<()> {
    let mut names: Vec<String> = launches
        .iter()
        .flat_map(|l| l.instructions.iter().filter_map(|i| i.file.clone()))
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(&name);
        let path = dir.join(base);
        if !path.is_file() {
            continue;
        }
        let bytes = files::read_bytes(&path)?;
        let text = String::from_utf8_lossy(&bytes);
        for l in launches.iter_mut() {
            l.add_cuda_text(&name, &text);
        }
    }
    Ok(())
}

/// Gives `launches` the SASS text of the source page `sass`, joined by kernel name and
/// address range ([`source::join_page`]), with a warning for each launch left without text
/// and each block of the page, of a kernel `pattern` matches, that no launch took.
fn add_sass(sass: &std::path::Path, pattern: &Regex, launches: &mut [LaunchSource]) -> Result<()> {
    let page = source::read_source_csv(&files::read_bytes(sass)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", sass.display()))?;
    let join = source::join_page(launches, &page);
    let name = shared::text::escape::controls(&sass.display().to_string()).into_owned();
    let range = |l: &LaunchSource| {
        source::address_range(l).map_or_else(
            || "no instructions".to_owned(),
            |(lo, hi)| format!("{lo:#x} to {hi:#x}"),
        )
    };
    for &i in &join.without_text {
        if let Some(l) = launches.get(i) {
            crate::out::warn(&format!(
                "{name}: launch {} ({}, {}) has no SASS text: no block of the page is that \
                 kernel at those addresses",
                l.launch,
                shared::text::escape::controls(&l.kernel),
                range(l)
            ));
        }
    }
    for &b in &join.unmatched {
        if let Some(p) = page.get(b).filter(|p| pattern.is_match(&p.kernel)) {
            crate::out::warn(&format!(
                "{name}: block {} of the page ({}, {}) matches no launch of the report by \
                 kernel and addresses; left out",
                p.launch,
                shared::text::escape::controls(&p.kernel),
                range(p)
            ));
        }
    }
    Ok(())
}

/// `capture source`.
pub fn source(args: &SourceArgs) -> Result<ExitCode> {
    let pattern = Regex::new(&args.kernel).map_err(|e| {
        let why = e.to_string();
        let last = why.lines().last().unwrap_or_default().trim().to_owned();
        anyhow::anyhow!(
            "--kernel {:?} is not a regular expression: {last}",
            args.kernel
        )
    })?;
    let bytes = files::read_bytes(&args.input)?;
    let launches = launches_of(&args.input, &bytes)?;
    if launches.is_empty() {
        bail!(
            "{}: no launch has source counters (profile with --set full or --section \
             SourceCounters, e.g. capture profile --source)",
            args.input.display()
        );
    }
    let mut matching: Vec<LaunchSource> = launches
        .into_iter()
        .filter(|l| pattern.is_match(&l.kernel))
        .collect();
    if matching.is_empty() {
        bail!(
            "{}: no kernel matches --kernel {:?}",
            args.input.display(),
            args.kernel
        );
    }
    if let Some(sass) = &args.sass {
        add_sass(sass, &pattern, &mut matching)?;
    }
    if let Some(dir) = &args.cuda_dir {
        add_cuda_text(dir, &mut matching)?;
    }
    if args.all_launches {
        match args.format {
            SourceFormat::Json => {
                crate::out::print(&(serde_json::to_string_pretty(&matching)? + "\n"))?
            }
            SourceFormat::Text => {
                let text: Vec<String> = matching
                    .iter()
                    .map(|l| source::to_text(l, args.top))
                    .collect();
                crate::out::print(&text.join("\n"))?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let refs: Vec<&LaunchSource> = matching.iter().collect();
    let Some(longest) = source::longest(&refs) else {
        bail!("no launch");
    };
    match args.format {
        SourceFormat::Json => {
            crate::out::print(&(serde_json::to_string_pretty(&longest.instructions)? + "\n"))?;
        }
        SourceFormat::Text => crate::out::print(&source::to_text(longest, args.top))?,
    }
    Ok(ExitCode::SUCCESS)
}
