//! The launch identity columns of ncu CLI exports (`ID`, `Process ID`, ..., `CC`) and the
//! small parsers for their values: launch numbers with thousands separators and
//! `(256, 1, 1)` launch dimensions.

use std::collections::HashMap;
use std::sync::Arc;

use super::nvtx;
use super::records::Record;

use crate::model::artifact::{LaunchCounters, LaunchSite, NvtxRanges, SharedText, SiteInterner};

/// The identity columns that open every ncu CLI export row; every other raw-page column is
/// a metric.
pub const ID_COLUMNS: [&str; 11] = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// The NVTX columns of an export made with `--nvtx` ([`nvtx`]): identity columns too,
/// present only in such exports.
pub const NVTX_COLUMNS: [&str; 2] = [nvtx::PUSH_POP_COLUMN, nvtx::START_END_COLUMN];

/// Parses an unsigned integer, allowing thousands separators (`1,056`).
pub fn parse_u64(text: &[u8]) -> Option<u64> {
    let text = text.trim_ascii();
    let mut value: u64 = 0;
    let mut digits = 0;
    for &b in text {
        match b {
            b'0'..=b'9' => {
                value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                digits += 1;
            }
            b',' if digits > 0 => {}
            _ => return None,
        }
    }
    (digits > 0).then_some(value)
}

/// Parses launch dimensions: `(256, 1, 1)` as the CLI prints them, or `16384,    2,    1`
/// as the GUI does. Missing trailing dimensions are 1.
pub fn parse_dim3(text: &str) -> Option<[u32; 3]> {
    let inner = text.trim();
    let inner = inner
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(inner);
    let mut dims = [1u32; 3];
    let mut count = 0;
    for part in inner.split(',') {
        let slot = dims.get_mut(count)?;
        *slot = part.trim().parse().ok()?;
        count += 1;
    }
    (count > 0).then_some(dims)
}

/// Text of a cell, `None` when empty.
fn text(cell: &[u8]) -> Option<String> {
    let cell = cell.trim_ascii();
    (!cell.is_empty()).then(|| String::from_utf8_lossy(cell).into_owned())
}

/// The NVTX contexts read so far, by push/pop cell then start/end cell (as written): two
/// levels, so that a row's cells are looked up as they lie in the record, with no copy.
type NvtxSeen = HashMap<Box<[u8]>, HashMap<Box<[u8]>, Arc<NvtxRanges>>>;

/// Where the identity columns are in a header, with the texts of the last launch read
/// (launches share one copy of a repeated process name, host, compute capability and
/// kernel name, and one copy of each site).
#[derive(Clone, Debug, Default)]
pub struct IdColumns {
    texts: [SharedText; 4],
    sites: SiteInterner,
    /// Each distinct pair of NVTX cells read so far, parsed once and shared.
    nvtx_seen: NvtxSeen,
    id: Option<usize>,
    process_id: Option<usize>,
    process_name: Option<usize>,
    host: Option<usize>,
    function: Option<usize>,
    context: Option<usize>,
    stream: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
    device: Option<usize>,
    cc: Option<usize>,
    push_pop: Option<usize>,
    start_end: Option<usize>,
}

impl IdColumns {
    /// Finds the identity columns by name.
    pub fn from_header(fields: &[String]) -> Self {
        let find = |name: &str| fields.iter().position(|f| f == name);
        IdColumns {
            texts: Default::default(),
            sites: SiteInterner::default(),
            nvtx_seen: HashMap::new(),
            id: find("ID"),
            process_id: find("Process ID"),
            process_name: find("Process Name"),
            host: find("Host Name"),
            function: find("Kernel Name"),
            context: find("Context"),
            stream: find("Stream"),
            block: find("Block Size"),
            grid: find("Grid Size"),
            device: find("Device"),
            cc: find("CC"),
            push_pop: find(nvtx::PUSH_POP_COLUMN),
            start_end: find(nvtx::START_END_COLUMN),
        }
    }

    fn cell(record: &Record, column: Option<usize>) -> &[u8] {
        column.and_then(|c| record.get(c)).unwrap_or_default()
    }

    /// The raw `ID` cell of a row.
    pub fn id_cell<'r>(&self, record: &'r Record) -> &'r [u8] {
        Self::cell(record, self.id)
    }

    /// The launch key of a row: (process ID, launch ID), or why it has none.
    pub fn key(&self, record: &Record) -> Result<(Option<u64>, u64), String> {
        let id_cell = self.id_cell(record);
        let id = parse_u64(id_cell).ok_or_else(|| {
            format!(
                "launch ID {:?} is not a number",
                String::from_utf8_lossy(id_cell)
            )
        })?;
        Ok((parse_u64(Self::cell(record, self.process_id)), id))
    }

    /// The NVTX context of a row, parsed once for each distinct pair of cells; `Err` with
    /// the reason when its cells do not follow [`nvtx`]'s grammar.
    fn nvtx(&mut self, record: &Record) -> Result<Option<Arc<NvtxRanges>>, String> {
        let push_pop = Self::cell(record, self.push_pop).trim_ascii();
        let start_end = Self::cell(record, self.start_end).trim_ascii();
        if push_pop.is_empty() && start_end.is_empty() {
            return Ok(None);
        }
        let seen = self
            .nvtx_seen
            .get(push_pop)
            .and_then(|by_start_end| by_start_end.get(start_end));
        if let Some(found) = seen {
            return Ok(Some(Arc::clone(found)));
        }
        let parsed = nvtx::parse(
            &String::from_utf8_lossy(push_pop),
            &String::from_utf8_lossy(start_end),
        )?;
        Ok(parsed.map(|ranges| {
            let shared = Arc::new(ranges);
            self.nvtx_seen
                .entry(push_pop.into())
                .or_default()
                .insert(start_end.into(), Arc::clone(&shared));
            shared
        }))
    }

    /// A launch with the identity fields of a row filled in and no measurements. NVTX
    /// cells that cannot be read leave the launch without ranges and are handed to `warn`.
    pub fn launch(
        &mut self,
        record: &Record,
        warn: &mut dyn FnMut(String),
    ) -> Result<LaunchCounters, String> {
        let (process_id, id) = self.key(record)?;
        let nvtx = self.nvtx(record).unwrap_or_else(|why| {
            warn(format!("{why}; the launch is kept without its NVTX ranges"));
            None
        });
        let cell = |column| Self::cell(record, column);
        let [name, host, cc, function] = &mut self.texts;
        let shared = |text: &mut SharedText, column| {
            let cell = cell(column).trim_ascii();
            (!cell.is_empty()).then(|| text.of(&String::from_utf8_lossy(cell)))
        };
        let site = LaunchSite {
            process_id,
            process_name: shared(name, self.process_name),
            host: shared(host, self.host),
            device: parse_u64(cell(self.device)).and_then(|d| u32::try_from(d).ok()),
            cc: shared(cc, self.cc),
            context: parse_u64(cell(self.context)),
            stream: parse_u64(cell(self.stream)),
            demangled: None,
            grid: text(cell(self.grid)).and_then(|t| parse_dim3(&t)),
            block: text(cell(self.block)).and_then(|t| parse_dim3(&t)),
            nvtx,
        };
        Ok(LaunchCounters {
            id,
            site: self.sites.of(site),
            function: shared(function, self.function).unwrap_or_default(),
            ..LaunchCounters::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_dimensions() {
        assert_eq!(parse_u64(b"1,056"), Some(1056));
        assert_eq!(parse_u64(b" 714 "), Some(714));
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b",1"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"99999999999999999999999"), None);
        assert_eq!(parse_dim3("(256, 1, 1)"), Some([256, 1, 1]));
        assert_eq!(parse_dim3("16384,    2,    1"), Some([16384, 2, 1]));
        assert_eq!(parse_dim3("(64)"), Some([64, 1, 1]));
        assert_eq!(parse_dim3("(1, 2, 3, 4)"), None);
        assert_eq!(parse_dim3("(a, 1, 1)"), None);
        assert_eq!(parse_dim3(""), None);
    }
}
