//! The CSV of `nsys stats --format csv` for the two summaries a trace holds without a
//! timeline: `cuda_gpu_kern_sum` (kernels by name; `gpukernsum` before nsys 2022) and
//! `cuda_gpu_mem_time_sum` (copies and memory sets by operation; `gpumemtimesum`).
//!
//! The header is found by its first cell (`Time (%)`, or `Time(%)` before 2022) and told
//! apart by its last (`Name` or `Operation`); columns are found by name, so the older
//! headers (`Average`, `Minimum`, `Maximum`, no median, `Operations` for `Count`) read as the
//! current ones, and a unit in a header (`Total Time (us)` from `--timeunit`) is turned into
//! ns. Lines before the header (`Processing [...] with [...]...`, a report's title) are
//! skipped, and the table ends at the first line that is not one of its rows, so the output
//! of several reports pasted together yields the first table.

use crate::error::NsysError;
use crate::model::trace::{CopyKind, CopySummary, KernelSummary};

/// How many lines before the header are looked at: `nsys stats` prints at most a few.
const HEADER_LINES: usize = 16;

/// What a stats CSV summarised.
#[derive(Clone, Debug, PartialEq)]
pub enum Stats {
    /// `cuda_gpu_kern_sum`: kernels by name.
    Kernels(Vec<KernelSummary>),
    /// `cuda_gpu_mem_time_sum`: copies and memory sets by kind.
    Copies(Vec<CopySummary>),
}

/// Whether `text` (a file's first bytes) holds, within its first lines, a line shaped like
/// the header of a summary this module reads: its first cell `Time (%)`, a `Total Time`
/// column, its last cell `Name` (with `Instances`: not the API summary's `Num Calls`) or
/// `Operation` (with `Count`), as nsys spells them. What [`crate::read::kind::kind_of`] asks,
/// in bytes alone (the viewer classifies files through it, and the full header parse cost
/// its wasm 1.2 KB gzip); the reader checks the header cell by cell.
pub fn starts_like_stats(text: &[u8]) -> bool {
    let has = |line: &[u8], word: &[u8]| line.windows(word.len()).any(|w| w == word);
    text.split(|&b| b == b'\n').take(HEADER_LINES).any(|line| {
        let line = line.trim_ascii();
        let line = line.strip_prefix(b"\"").unwrap_or(line);
        (line.starts_with(b"Time (%)") || line.starts_with(b"Time(%)"))
            && has(line, b"Total Time")
            && ((line.ends_with(b"Name") || line.ends_with(b"Name\"")) && has(line, b"Instances")
                || (line.ends_with(b"Operation") || line.ends_with(b"Operation\""))
                    && (has(line, b"Count") || has(line, b"Operations")))
    })
}

/// One column a summary reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Col {
    Total,
    Count,
    Avg,
    Med,
    Min,
    Max,
    StdDev,
    Name,
}

/// What a header cell names, and the factor from its unit to ns.
fn column(cell: &str) -> Option<(Col, f64)> {
    let cell = cell.trim().to_ascii_lowercase();
    let (word, unit) = match cell.split_once('(') {
        Some((w, u)) => (
            w.trim().to_owned(),
            Some(u.trim_end_matches(')').trim().to_owned()),
        ),
        None => (cell.clone(), None),
    };
    let col = match word.as_str() {
        "total time" => Col::Total,
        "instances" | "count" | "operations" => Col::Count,
        "avg" | "average" | "mean" => Col::Avg,
        "med" | "median" => Col::Med,
        "min" | "minimum" => Col::Min,
        "max" | "maximum" => Col::Max,
        "stddev" | "std dev" | "std" => Col::StdDev,
        "name" | "operation" => Col::Name,
        _ => return None,
    };
    let factor = match unit.as_deref() {
        None | Some("ns") => 1.0,
        Some("us" | "μs" | "µs") => 1e3,
        Some("ms") => 1e6,
        Some("s" | "sec") => 1e9,
        Some(_) => return None,
    };
    Some((col, factor))
}

/// The header's kind (true: kernels, by `Name`, counted in `Instances`; false: operations,
/// counted in `Count` or `Operations`) where `line` is one. The API and OS-runtime
/// summaries (`Num Calls`, `Name`) and the NVTX one (`Range`) are neither.
fn header_of(line: &str) -> Option<bool> {
    let cells = split(line)?;
    let first = cells.first()?.trim().to_ascii_lowercase().replace(' ', "");
    if first != "time(%)" {
        return None;
    }
    let has = |name: &str| cells.iter().any(|c| c.trim().eq_ignore_ascii_case(name));
    let has_total = cells
        .iter()
        .any(|c| column(c).is_some_and(|(col, _)| col == Col::Total));
    match cells.last()?.trim() {
        _ if !has_total => None,
        "Name" if has("Instances") => Some(true),
        "Operation" if has("Count") || has("Operations") => Some(false),
        _ => None,
    }
}

/// One line's cells, quotes removed (`""` inside quotes is a quote); `None` for an empty
/// line or a quote left open. A few lines of code rather than the csv crate's reader: the
/// viewer tells files apart through this, and a reader instantiated for it alone cost its
/// wasm more than the guard left.
fn split(line: &str) -> Option<Vec<String>> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() {
        return None;
    }
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    if quoted {
        return None;
    }
    cells.push(cell);
    Some(cells)
}

/// Where each column is, and its unit factor.
struct Columns {
    at: Vec<(Col, usize, f64)>,
    header: Vec<String>,
    line: u64,
}

impl Columns {
    fn find(&self, col: Col) -> Option<(usize, f64)> {
        self.at
            .iter()
            .find(|(c, _, _)| *c == col)
            .map(|&(_, i, f)| (i, f))
    }

    fn need(&self, col: Col, name: &'static str) -> Result<(usize, f64), NsysError> {
        self.find(col).ok_or(NsysError::MissingColumn {
            line: self.line,
            column: name,
        })
    }
}

/// One row's numbers.
struct Row {
    name: String,
    count: u64,
    total_ns: f64,
    avg_ns: f64,
    med_ns: Option<f64>,
    min_ns: f64,
    max_ns: f64,
    stddev_ns: Option<f64>,
}

/// A number as nsys writes one: plain, or quoted with thousands separators.
fn number(cells: &[String], at: usize, columns: &Columns, line: u64) -> Result<f64, NsysError> {
    let cell = cells.get(at).map_or("", |c| c.trim());
    let plain: String = cell.chars().filter(|&c| c != ',').collect();
    plain
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| NsysError::BadNumber {
            line,
            column: columns.header.get(at).cloned().unwrap_or_default(),
            found: cell.to_owned(),
        })
}

/// Reads a stats CSV: the summary it holds, and warnings (rows dropped, figures the report
/// did not give).
///
/// # Errors
///
/// [`NsysError::NoHeader`] where no summary header is found in the first lines,
/// [`NsysError::MissingColumn`], [`NsysError::BadNumber`] and [`NsysError::BadRow`] with the
/// line.
pub fn read_stats(text: &str) -> Result<(Stats, Vec<String>), NsysError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    let (header_line, kernels, header) = loop {
        match lines.next() {
            Some((i, _)) if i >= HEADER_LINES => {
                return Err(NsysError::NoHeader {
                    lines: HEADER_LINES,
                })
            }
            Some((i, line)) => {
                if let Some(kernels) = header_of(line) {
                    break (i as u64 + 1, kernels, split(line).unwrap_or_default());
                }
            }
            None => {
                return Err(NsysError::NoHeader {
                    lines: text.lines().count().min(HEADER_LINES),
                })
            }
        }
    };
    let columns = Columns {
        at: header
            .iter()
            .enumerate()
            .filter_map(|(i, c)| column(c).map(|(col, f)| (col, i, f)))
            .collect(),
        header: header.clone(),
        line: header_line,
    };
    let rows = read_rows(lines, &columns)?;
    let mut warnings = Vec::new();
    if columns.find(Col::Med).is_none() {
        warnings.push(format!(
            "line {header_line}: the report has no median column (nsys before 2022); the \
             summary shows none"
        ));
    }
    if kernels {
        let summaries = rows
            .into_iter()
            .map(|r| KernelSummary {
                name: r.name.into(),
                instances: r.count,
                total_ns: r.total_ns,
                avg_ns: r.avg_ns,
                med_ns: r.med_ns,
                min_ns: r.min_ns,
                max_ns: r.max_ns,
                stddev_ns: r.stddev_ns,
            })
            .collect();
        return Ok((Stats::Kernels(summaries), warnings));
    }
    let mut copies: Vec<CopySummary> = Vec::new();
    for r in rows {
        let kind = CopyKind::from_operation(&r.name);
        let row = CopySummary {
            kind,
            count: r.count,
            bytes: None,
            total_ns: r.total_ns,
            avg_ns: r.avg_ns,
            med_ns: r.med_ns,
            min_ns: r.min_ns,
            max_ns: r.max_ns,
            stddev_ns: r.stddev_ns,
        };
        match copies.iter_mut().find(|c| c.kind == kind) {
            // Two operations of one kind (unified-memory copies, array copies: `Other`):
            // summed; their median and deviation cannot be.
            Some(c) => {
                c.count += row.count;
                c.total_ns += row.total_ns;
                c.avg_ns = if c.count > 0 {
                    c.total_ns / c.count as f64
                } else {
                    0.0
                };
                c.min_ns = c.min_ns.min(row.min_ns);
                c.max_ns = c.max_ns.max(row.max_ns);
                c.med_ns = None;
                c.stddev_ns = None;
                warnings.push(format!(
                    "operation {:?} summed into {}: no median or deviation for it",
                    r.name,
                    kind.label()
                ));
            }
            None => copies.push(row),
        }
    }
    Ok((Stats::Copies(copies), warnings))
}

/// The table's rows, to its end: a blank line, or a line of one cell (the next report's
/// `Processing ...` line).
fn read_rows<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
    columns: &Columns,
) -> Result<Vec<Row>, NsysError> {
    let (name_at, _) = columns.need(Col::Name, "Name")?;
    let (total_at, total_unit) = columns.need(Col::Total, "Total Time (ns)")?;
    let (count_at, _) = columns.need(Col::Count, "Instances")?;
    let (min_at, min_unit) = columns.need(Col::Min, "Min (ns)")?;
    let (max_at, max_unit) = columns.need(Col::Max, "Max (ns)")?;
    let avg = columns.find(Col::Avg);
    let med = columns.find(Col::Med);
    let stddev = columns.find(Col::StdDev);
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line_no = i as u64 + 1;
        if line.trim().is_empty() {
            break;
        }
        let cells = split(line).ok_or_else(|| NsysError::BadRow {
            line: line_no,
            message: "not a CSV row".into(),
        })?;
        if cells.len() <= 1 {
            break;
        }
        if cells.len() < columns.header.len() {
            return Err(NsysError::BadRow {
                line: line_no,
                message: format!(
                    "{} cells where the header has {}",
                    cells.len(),
                    columns.header.len()
                ),
            });
        }
        let n = |at: usize, unit: f64| number(&cells, at, columns, line_no).map(|v| v * unit);
        let count = n(count_at, 1.0)?;
        let total_ns = n(total_at, total_unit)?;
        rows.push(Row {
            name: cells.get(name_at).cloned().unwrap_or_default(),
            count: count as u64,
            total_ns,
            avg_ns: match avg {
                Some((at, unit)) => n(at, unit)?,
                None if count > 0.0 => total_ns / count,
                None => 0.0,
            },
            med_ns: med.map(|(at, unit)| n(at, unit)).transpose()?,
            min_ns: n(min_at, min_unit)?,
            max_ns: n(max_at, max_unit)?,
            stddev_ns: stddev.map(|(at, unit)| n(at, unit)).transpose()?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header variants nsys has written: 2022 on (`cuda_gpu_kern_sum`), 2021
    /// (`gpukernsum` with units and StdDev), 2020 (no units, no median or deviation), and
    /// `--timeunit us`.
    #[test]
    fn every_header_variant_reads_into_ns() {
        let cases: [(&str, f64, Option<f64>, Option<f64>); 4] = [
            (
                "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n\
                 100.0,3000,2,1500.0,1500.0,1000,2000,707.1,k\n",
                1500.0,
                Some(1500.0),
                Some(707.1),
            ),
            (
                "\"Time(%)\",\"Total Time (ns)\",\"Instances\",\"Average (ns)\",\"Minimum (ns)\",\"Maximum (ns)\",\"StdDev (ns)\",\"Name\"\n\
                 \"100.0\",\"3000\",\"2\",\"1500.0\",\"1000\",\"2000\",\"707.1\",\"k\"\n",
                1500.0,
                None,
                Some(707.1),
            ),
            (
                "Time(%),Total Time,Instances,Average,Minimum,Maximum,Name\n100.0,3000,2,1500.0,1000,2000,k\n",
                1500.0,
                None,
                None,
            ),
            (
                "Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n\
                 100.0,3.000,2,1.500,1.500,1.000,2.000,0.707,k\n",
                1500.0,
                Some(1500.0),
                Some(707.0),
            ),
        ];
        for (text, avg, med, stddev) in cases {
            let (stats, _) = read_stats(text).unwrap_or_else(|e| panic!("{e}: {text}"));
            let Stats::Kernels(k) = stats else {
                panic!("kernels expected: {text}")
            };
            assert_eq!(k.len(), 1, "{text}");
            assert_eq!((&*k[0].name, k[0].instances), ("k", 2), "{text}");
            assert!((k[0].total_ns - 3000.0).abs() < 1e-6, "{text}");
            assert!((k[0].avg_ns - avg).abs() < 1e-6, "{text}");
            assert!((k[0].min_ns - 1000.0).abs() < 1e-6, "{text}");
            assert!((k[0].max_ns - 2000.0).abs() < 1e-6, "{text}");
            assert_eq!(k[0].med_ns.map(f64::round), med, "{text}");
            assert_eq!(
                k[0].stddev_ns.map(|d| (d * 10.0).round() / 10.0),
                stddev,
                "{text}"
            );
            assert!(starts_like_stats(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn lines_around_the_table_are_skipped_and_thousands_separators_read() {
        let text = "Generating SQLite file r.sqlite from r.nsys-rep\n\
             Processing [r.sqlite] with [/opt/reports/cuda_gpu_mem_time_sum.py]... \n\
             \n ** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):\n\n\
             Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n\
             60.0,\"600,000\",10,\"60,000\",\"60,000\",\"60,000\",\"60,000\",0,[CUDA memcpy HtoD]\n\
             40.0,400000,5,80000,80000,80000,80000,0,[CUDA memcpy Device-to-Host]\n\
             Processing [r.sqlite] with [/opt/reports/cuda_gpu_mem_size_sum.py]... \n\
             Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n";
        assert!(starts_like_stats(text.as_bytes()));
        let (stats, warnings) = read_stats(text).unwrap_or_else(|e| panic!("{e}"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let Stats::Copies(c) = stats else {
            panic!("copies expected")
        };
        assert_eq!(
            c.iter()
                .map(|c| (c.kind, c.count, c.total_ns))
                .collect::<Vec<_>>(),
            [
                (CopyKind::HtoD, 10, 600_000.0),
                (CopyKind::DtoH, 5, 400_000.0)
            ]
        );
    }

    #[test]
    fn what_is_not_a_summary_is_refused_with_its_line() {
        let cases: [(&str, &str); 5] = [
            ("\"ID\",\"Kernel Name\"\n1,k\n", "not an nsys stats CSV"),
            (
                "Time (%),Total Time (ns),Num Calls,Avg (ns),Name\n1,2,3,4,cudaMalloc\n",
                "not an nsys stats CSV",
            ),
            (
                "Time (%),Total Time (ns),Instances,Avg (ns),Name\n1,2,3,4,k\n",
                "line 1: the header has no \"Min (ns)\" column",
            ),
            (
                "Time (%),Total Time (ns),Instances,Avg (ns),Min (ns),Max (ns),Name\n1,x,3,4,5,6,k\n",
                "line 2: \"Total Time (ns)\" is \"x\", not a number",
            ),
            (
                "Time (%),Total Time (ns),Instances,Avg (ns),Min (ns),Max (ns),Name\n1,2,3\n",
                "line 2: 3 cells where the header has 7",
            ),
        ];
        for (text, want) in cases {
            let e = read_stats(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.starts_with(want), "{e} / {want}");
        }
        assert!(!starts_like_stats(b"\"ID\",\"Kernel Name\"\n"));
        assert!(!starts_like_stats(
            b"Time (%),Total Time (ns),Num Calls,Avg (ns),Name\n"
        ));
    }
}
