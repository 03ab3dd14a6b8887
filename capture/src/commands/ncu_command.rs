//! `capture ncu-command`: the ncu command lines of `capture run`'s profile half, its
//! imports and the merge, for users who run the profile half themselves (often with sudo).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use shared::model::artifact::CacheControl;

use super::{caches_of, usage};
use crate::cli::NcuCommandArgs;
use crate::gpu::collect::cache_name;
use crate::gpu::ncu::args::{self as ncu, Collection, Pass, Selection};
use crate::gpu::suite;

/// The command lines `capture ncu-command` prints, for users who run the profile half
/// themselves (often with sudo) and then `capture merge`.
pub fn ncu_command_lines(args: &NcuCommandArgs, exe: &OsString) -> Result<Vec<String>> {
    let kernels = suite::select(&args.kernels).map_err(usage)?;
    let mut program: Vec<OsString> = vec![
        exe.clone(),
        "run".into(),
        "--profile-mode".into(),
        "--device".into(),
        args.device.to_string().into(),
    ];
    if let Some(n) = args.size {
        program.push("--size".into());
        program.push(n.to_string().into());
    }
    if !args.kernels.is_empty() {
        program.push("--kernels".into());
        program.push(args.kernels.join(",").into());
    }
    let ncu = OsString::from("ncu");
    let mut lines = vec![format!(
        "# Profile half of `capture run`: {} kernel launches, one per suite kernel, filtered by \
         name. Run as root (sudo) where counters are admin-only.",
        kernels.len()
    )];
    let mut merge: Vec<OsString> = vec![
        exe.clone(),
        "merge".into(),
        "--timings".into(),
        "timings.json".into(),
    ];
    for cache in caches_of(args.cache) {
        let base = PathBuf::from(format!("capture-ncu-{}", cache_name(cache)));
        let collection = Collection {
            pass: Pass::Standard,
            cache,
            selection: Selection {
                kernel_filter: Some(suite::ncu_kernel_regex(&kernels)),
                launch_count: Some(kernels.len() as u64),
                ..Selection::default()
            },
            ncu_args: Vec::new(),
        };
        lines.push(format!("# {} caches", cache_name(cache)));
        lines.push(ncu::command_line(
            &ncu,
            &ncu::collect_args(&base, &collection, &program),
        ));
        let report = ncu::report_file(&base);
        let flag = match cache {
            CacheControl::Cold => "--ncu",
            CacheControl::Warm => "--ncu-warm",
        };
        merge.push(flag.into());
        for page in [ncu::Page::Raw, ncu::Page::Details] {
            let csv = format!(
                "capture-ncu-{}-{}.csv",
                cache_name(cache),
                if page == ncu::Page::Raw {
                    "raw"
                } else {
                    "details"
                }
            );
            lines.push(format!(
                "{} > {csv}",
                ncu::command_line(&ncu, &ncu::import_args(&report, page))
            ));
            merge.push(csv.into());
        }
    }
    merge.extend(["-o", "roofline.json"].map(OsString::from));
    lines.push("# timings (no counters needed), then the merge".into());
    let mut timings: Vec<OsString> = vec![
        "run".into(),
        "--no-profile".into(),
        "--device".into(),
        args.device.to_string().into(),
        "-o".into(),
        "timings.json".into(),
    ];
    if let Some(n) = args.size {
        timings.push("--size".into());
        timings.push(n.to_string().into());
    }
    if !args.kernels.is_empty() {
        timings.push("--kernels".into());
        timings.push(args.kernels.join(",").into());
    }
    lines.push(ncu::command_line(exe, &timings));
    lines.push(ncu::command_line(
        merge.first().map(|s| s.as_os_str()).unwrap_or_default(),
        merge.get(1..).unwrap_or_default(),
    ));
    Ok(lines)
}

/// `capture ncu-command`.
pub fn ncu_command(args: &NcuCommandArgs) -> Result<ExitCode> {
    let exe = std::env::current_exe()
        .map(PathBuf::into_os_string)
        .unwrap_or_else(|_| OsString::from("capture"));
    for line in ncu_command_lines(args, &exe)? {
        crate::out::println(&line)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::CacheArg;

    #[test]
    fn ncu_command_prints_collection_import_and_merge() {
        let args = NcuCommandArgs {
            cache: CacheArg::Both,
            kernels: Vec::new(),
            size: None,
            device: 0,
        };
        let lines = ncu_command_lines(&args, &OsString::from("/opt/capture"))
            .unwrap_or_else(|e| panic!("{e:#}"));
        let text = lines.join("\n");
        let n = suite::SUITE.len();
        assert!(text.contains(&format!(" -c {n} ")), "{text}");
        assert!(
            text.contains("--cache-control all --replay-mode kernel"),
            "{text}"
        );
        assert!(
            text.contains("--cache-control none --replay-mode application"),
            "{text}"
        );
        assert!(
            text.contains("/opt/capture run --profile-mode --device 0"),
            "{text}"
        );
        assert!(text.contains("--page raw --print-units base > capture-ncu-cold-raw.csv"));
        assert!(
            text.contains(
                "/opt/capture merge --timings timings.json --ncu capture-ncu-cold-raw.csv \
             capture-ncu-cold-details.csv --ncu-warm capture-ncu-warm-raw.csv \
             capture-ncu-warm-details.csv -o roofline.json"
            ),
            "{text}"
        );
        assert!(text.contains("/opt/capture run --no-profile --device 0 -o timings.json"));
        let bad = NcuCommandArgs {
            kernels: vec!["nope".into()],
            ..args
        };
        assert!(ncu_command_lines(&bad, &OsString::from("c")).is_err());
    }
}
