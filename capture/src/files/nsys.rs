//! Nsight Systems' SQLite export (`nsys export --type sqlite`), read through SQLite itself
//! (rusqlite, SQLite's source compiled in) into the rows [`shared::read::nsys::export`]
//! joins into a trace. Only the tables and columns that module names are read; a table nsys
//! did not create (it creates them lazily: no NVTX table without NVTX ranges) reads as no
//! rows, and a column older versions lack (`mangledName`, `textId`, `domainId`) as NULL.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};
use shared::read::nsys::export::{
    CallRow, CopyRow, ExportRows, KernelRow, NvtxRow, NVTX_DOMAIN_CREATE, NVTX_PUSH_POP,
    NVTX_START_END,
};

use super::shown;

/// The export's tables, as the schema reference names them.
const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
const NVTX: &str = "NVTX_EVENTS";
const STRINGS: &str = "StringIds";

/// One open export: its columns by table.
struct Export {
    db: Connection,
    columns: HashMap<String, HashSet<String>>,
    name: String,
}

impl Export {
    fn open(path: &Path) -> Result<Export> {
        let name = shown(path);
        // Read-only, and no mutex: nothing else writes it, and one thread reads it.
        let db = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("{name}: cannot open as an SQLite database"))?;
        let mut columns: HashMap<String, HashSet<String>> = HashMap::new();
        for table in [KERNEL, MEMCPY, MEMSET, RUNTIME, NVTX, STRINGS] {
            let mut stmt = db
                .prepare("SELECT name FROM pragma_table_info(?1)")
                .with_context(|| format!("{name}: not a readable SQLite database"))?;
            let names = stmt
                .query_map([table], |row| row.get::<_, String>(0))
                .and_then(Iterator::collect::<rusqlite::Result<HashSet<String>>>)
                .with_context(|| format!("{name}: cannot read the columns of {table}"))?;
            if !names.is_empty() {
                columns.insert(table.to_owned(), names);
            }
        }
        Ok(Export { db, columns, name })
    }

    fn has(&self, table: &str) -> bool {
        self.columns.contains_key(table)
    }

    /// `column` where the table has it, else NULL; an error where `required` and missing.
    fn column(&self, table: &str, column: &str, required: bool) -> Result<String> {
        match self.columns.get(table) {
            Some(c) if c.contains(column) => Ok(format!("\"{column}\"")),
            _ if required => anyhow::bail!(
                "{}: table {table} has no column {column}: not an Nsight Systems export this \
                 reader knows (docs/nsys-import.md)",
                self.name
            ),
            _ => Ok("NULL".into()),
        }
    }

    /// The SELECT of `columns` (name, required) from `table`, with `rest` after it.
    fn select(&self, table: &str, columns: &[(&str, bool)], rest: &str) -> Result<String> {
        let cols: Vec<String> = columns
            .iter()
            .map(|&(c, required)| self.column(table, c, required))
            .collect::<Result<_>>()?;
        Ok(format!(
            "SELECT {} FROM \"{table}\" {rest}",
            cols.join(", ")
        ))
    }

    /// Every row of `sql`, each turned by `row`.
    fn rows<T>(
        &self,
        table: &str,
        sql: &str,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let what = || format!("{}: cannot read {table}", self.name);
        let mut stmt = self.db.prepare(sql).with_context(what)?;
        let rows = stmt.query_map([], row).with_context(what)?;
        rows.collect::<rusqlite::Result<Vec<T>>>()
            .with_context(what)
    }
}

/// Reads the rows of an nsys SQLite export. Errors name the file, and the table and column
/// where the database is not such an export.
pub fn read_export(path: &Path) -> Result<ExportRows> {
    let ex = Export::open(path)?;
    if !ex.has(KERNEL) && !ex.has(MEMCPY) && !ex.has(MEMSET) {
        anyhow::bail!(
            "{}: an SQLite database without the tables of an Nsight Systems export's CUDA \
             trace ({KERNEL}, {MEMCPY}, {MEMSET}): was the report recorded with `--trace \
             cuda`?",
            ex.name
        );
    }
    let mut rows = ExportRows::default();
    if ex.has(KERNEL) {
        rows.kernels = kernels(&ex)?;
    }
    for (table, memset) in [(MEMCPY, false), (MEMSET, true)] {
        if ex.has(table) {
            rows.copies.extend(copies(&ex, table, memset)?);
        }
    }
    if ex.has(RUNTIME) {
        let sql = ex.select(
            RUNTIME,
            &[
                ("correlationId", true),
                ("globalTid", true),
                ("start", true),
            ],
            "WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL",
        )?;
        rows.calls = ex.rows(RUNTIME, &sql, |r| {
            Ok(CallRow {
                correlation: r.get(0)?,
                global_tid: r.get(1)?,
                start_ns: r.get(2)?,
            })
        })?;
    }
    if ex.has(NVTX) {
        rows.nvtx = nvtx(&ex)?;
    }
    rows.strings = strings(&ex)?;
    Ok(rows)
}

fn kernels(ex: &Export) -> Result<Vec<KernelRow>> {
    let cols = [
        ("start", true),
        ("end", true),
        ("deviceId", true),
        ("contextId", true),
        ("streamId", true),
        ("correlationId", false),
        ("globalPid", false),
        ("demangledName", false),
        ("shortName", false),
        ("mangledName", false),
        ("registersPerThread", true),
        ("gridX", true),
        ("gridY", true),
        ("gridZ", true),
        ("blockX", true),
        ("blockY", true),
        ("blockZ", true),
        ("staticSharedMemory", true),
        ("dynamicSharedMemory", true),
    ];
    let sql = ex.select(KERNEL, &cols, "ORDER BY start")?;
    ex.rows(KERNEL, &sql, |r| {
        Ok(KernelRow {
            start_ns: r.get(0)?,
            end_ns: r.get(1)?,
            device: r.get(2)?,
            context: r.get(3)?,
            stream: r.get(4)?,
            correlation: r.get(5)?,
            global_pid: r.get(6)?,
            demangled_name: r.get(7)?,
            short_name: r.get(8)?,
            mangled_name: r.get(9)?,
            registers: r.get(10)?,
            grid: [r.get(11)?, r.get(12)?, r.get(13)?],
            block: [r.get(14)?, r.get(15)?, r.get(16)?],
            static_shared: r.get(17)?,
            dynamic_shared: r.get(18)?,
        })
    })
}

fn copies(ex: &Export, table: &str, memset: bool) -> Result<Vec<CopyRow>> {
    let cols = [
        ("start", true),
        ("end", true),
        ("deviceId", true),
        ("streamId", true),
        ("correlationId", false),
        ("globalPid", false),
        ("bytes", true),
        ("copyKind", !memset),
    ];
    let sql = ex.select(table, &cols, "ORDER BY start")?;
    ex.rows(table, &sql, |r| {
        Ok(CopyRow {
            start_ns: r.get(0)?,
            end_ns: r.get(1)?,
            device: r.get(2)?,
            stream: r.get(3)?,
            correlation: r.get(4)?,
            global_pid: r.get(5)?,
            bytes: r.get(6)?,
            copy_kind: if memset { None } else { r.get(7)? },
        })
    })
}

fn nvtx(ex: &Export) -> Result<Vec<NvtxRow>> {
    let cols = [
        ("start", true),
        ("end", false),
        ("eventType", true),
        ("text", false),
        ("textId", false),
        ("globalTid", false),
        ("domainId", false),
    ];
    let sql = ex.select(
        NVTX,
        &cols,
        &format!(
            "WHERE eventType IN ({NVTX_PUSH_POP}, {NVTX_START_END}, {NVTX_DOMAIN_CREATE}) \
             ORDER BY start"
        ),
    )?;
    ex.rows(NVTX, &sql, |r| {
        Ok(NvtxRow {
            start_ns: r.get(0)?,
            end_ns: r.get(1)?,
            event_type: r.get(2)?,
            text: r.get(3)?,
            text_id: r.get(4)?,
            global_tid: r.get(5)?,
            domain_id: r.get(6)?,
        })
    })
}

/// The strings the rows point at (kernel names and registered NVTX messages), not the
/// whole table (which also holds every API's and thread's name).
fn strings(ex: &Export) -> Result<HashMap<i64, String>> {
    if !ex.has(STRINGS) {
        return Ok(HashMap::new());
    }
    let mut used: Vec<String> = Vec::new();
    for (table, column) in [
        (KERNEL, "demangledName"),
        (KERNEL, "shortName"),
        (KERNEL, "mangledName"),
        (NVTX, "textId"),
    ] {
        if ex.column(table, column, false)? != "NULL" {
            used.push(format!("SELECT \"{column}\" FROM \"{table}\""));
        }
    }
    if used.is_empty() {
        return Ok(HashMap::new());
    }
    let sql = format!(
        "SELECT id, value FROM \"{STRINGS}\" WHERE id IN ({})",
        used.join(" UNION ")
    );
    let pairs = ex.rows(STRINGS, &sql, |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
    })?;
    Ok(pairs.into_iter().collect())
}
