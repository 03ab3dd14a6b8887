//! `capture source`: a kernel's SASS instructions with their per-instruction figures (ncu's
//! SourceCounters section) and its hot spots, from a `.ncu-rep` report, an `ncu --page
//! source --csv --print-source sass` export ([`shared::read::source`] does the reading) or
//! an artifact that keeps them (`capture import REPORT --source PAGE`). A report's SASS
//! text comes from its kernels' code, disassembled by `nvdisasm` where it is found
//! ([`crate::disasm`]), or from a source-page export given with `--sass`.

use std::process::ExitCode;

use anyhow::{bail, Result};
use regex::Regex;
use shared::read::kind::FileKind;
use shared::read::ncu_rep;
use shared::read::source::{self, LaunchSource};

use shared::read::ncu_rep::cubin::CodeSection;

use crate::cli::{SourceArgs, SourceFormat};
use crate::disasm::Nvdisasm;
use crate::files;
use crate::files::input::Input;

/// The launches `capture source` keeps of its input's, offered one at a time as they are
/// read: those `pattern` matches, all of them where all are shown or joined to a `--sass`
/// page, else only the longest ([`source::longest`]: the later of equals), so that memory
/// is bounded by the launch shown, not by the input.
struct Kept<'a> {
    pattern: &'a Regex,
    all: bool,
    /// Launches with source counters offered.
    offered: usize,
    launches: Vec<LaunchSource>,
}

impl Kept<'_> {
    fn offer(&mut self, launch: LaunchSource) {
        self.offered += 1;
        if !self.pattern.is_match(&launch.kernel) {
            return;
        }
        match self.launches.first_mut() {
            Some(kept) if !self.all => {
                let longer =
                    source::longest(&[&*kept, &launch]).is_some_and(|l| std::ptr::eq(l, &launch));
                if longer {
                    *kept = launch;
                }
            }
            _ => self.launches.push(launch),
        }
    }
}

/// Offers `kept` the launches with source counters of the input at `path`: a report
/// (`.gz`, `.ncu-repz` too) is streamed one message at a time ([`ncu_rep::read_sources_from`]), a
/// source-page export a record at a time ([`files::read_source_page`]), an artifact's kept
/// source pages read whole. Returns a report's code sections (none for the others), for
/// the SASS text ([`crate::disasm`]).
fn read_launches(path: &std::path::Path, kept: &mut Kept<'_>) -> Result<Vec<CodeSection>> {
    let name = files::shown(path);
    let opened = files::open(path)?;
    if opened.kind == FileKind::Report {
        let (_, code) = ncu_rep::read_sources_and_code_from(opened.reader(), &mut |l| {
            kept.offer(l);
        })
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        return Ok(code);
    } else if opened.kind == FileKind::Artifact {
        // An artifact keeps each kernel's longest launch with source counters.
        drop(opened);
        for l in files::input::read_any_artifact(path)?.0.sources {
            kept.offer(l);
        }
    } else {
        if let FileKind::CsvExport = opened.kind {
            // Refused from its first bytes: read whole, a gigabyte of text lines was held
            // before the source-page reader refused its first line.
            let after = opened.packing.after();
            bail!(
                "{name}: byte 0{after}: neither a report nor a source-page export (whose \
                 first line is \"Kernel Name\",... or \"File Path\",...: ncu --page \
                 source --csv); it starts {}",
                shared::read::kind::looks_like(&opened.head)
            );
        }
        files::stream_source_page(path, opened, &mut |l| kept.offer(l))?;
    }
    Ok(Vec::new())
}

/// Gives the instructions of `launches` the text `nvdisasm` gives the report's `code`,
/// where it is found; where it is not, warns of what is missing and the command that adds
/// it. Not called with `--sass`: a page given is the one source of text.
fn add_disassembly(
    code: &[CodeSection],
    explicit: Option<&std::path::Path>,
    launches: &mut [LaunchSource],
) -> Result<()> {
    let lacking = launches
        .iter()
        .any(|l| l.instructions.iter().any(|i| i.sass.is_none()));
    if code.is_empty() || !lacking {
        return Ok(());
    }
    match Nvdisasm::find(explicit)? {
        Some(nvdisasm) => {
            nvdisasm.give_text(code, launches)?;
        }
        None => crate::out::warn(&crate::disasm::missing()),
    }
    Ok(())
}

/// Gives the instructions of `launches` the text of their CUDA lines from the files of the
/// same names in `dir`; a file not there is left without text.
fn add_cuda_text(dir: &std::path::Path, launches: &mut [LaunchSource]) -> Result<()> {
    let mut names: Vec<std::sync::Arc<str>> = launches
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
    let page = files::read_source_page(sass, files::open(sass)?)?;
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
    crate::out::print(&render(args)?)?;
    Ok(ExitCode::SUCCESS)
}

/// What `capture source` prints for `args` (`capture mcp`'s source tool returns it too).
pub fn render(args: &SourceArgs) -> Result<String> {
    let pattern = super::kernel_pattern(&args.kernel)?;
    let mut kept = Kept {
        pattern: &pattern,
        all: args.all_launches || args.sass.is_some(),
        offered: 0,
        launches: Vec::new(),
    };
    let input = Input::new(args.inputs.clone())?;
    let mut code = Vec::new();
    for path in input.paths() {
        code.extend(read_launches(path, &mut kept)?);
    }
    if kept.offered == 0 {
        bail!(
            "{}: no launch has source counters (profile with --set full or --section \
             SourceCounters, e.g. capture profile --source)",
            input.name()
        );
    }
    let mut matching = kept.launches;
    if matching.is_empty() {
        bail!(
            "{}: no kernel matches --kernel {:?}",
            input.name(),
            args.kernel
        );
    }
    if let Some(sass) = &args.sass {
        add_sass(sass, &pattern, &mut matching)?;
    }
    if args.sass.is_none() {
        add_disassembly(&code, args.nvdisasm.as_deref(), &mut matching)?;
    }
    drop(code);
    if let Some(dir) = &args.cuda_dir {
        add_cuda_text(dir, &mut matching)?;
    }
    if args.all_launches {
        return Ok(match args.format {
            SourceFormat::Json => serde_json::to_string_pretty(&matching)? + "\n",
            SourceFormat::Text => {
                let text: Vec<String> = matching
                    .iter()
                    .map(|l| source::to_text(l, args.top))
                    .collect();
                text.join("\n")
            }
        });
    }
    let refs: Vec<&LaunchSource> = matching.iter().collect();
    let Some(longest) = source::longest(&refs) else {
        bail!("no launch");
    };
    Ok(match args.format {
        SourceFormat::Json => serde_json::to_string_pretty(&longest.instructions)? + "\n",
        SourceFormat::Text => source::to_text(longest, args.top),
    })
}
