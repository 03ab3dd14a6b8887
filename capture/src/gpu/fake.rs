//! Test doubles for the GPU half: a [`Profiler`] that replays real H200 exports
//! (tests/fixtures/ncu-h200) instead of running ncu and remembers what it was asked, and a
//! timings artifact as `capture run` builds one.

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Result;
use shared::model::artifact::{Artifact, KernelRecord, Origin, Provenance};

use super::ncu::args::Collection;
use super::ncu::{ProfileOutput, ProfileRequest, Profiler};

/// Replays two fixture pages for every request.
pub struct FakeProfiler {
    /// The raw page under tests/fixtures/ncu-h200.
    pub raw: &'static str,
    /// The details page under tests/fixtures/ncu-h200.
    pub details: &'static str,
    /// Every collection asked for, in order.
    pub asked: RefCell<Vec<Collection>>,
    /// The environment each was asked to run the program with.
    pub envs: RefCell<Vec<Vec<(OsString, OsString)>>>,
    /// The program's exit status to report, as ncu passes on a failing program's.
    pub program_status: Option<i32>,
}

/// A fixture under tests/fixtures/ncu-h200.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/ncu-h200")
        .join(name)
}

impl Profiler for FakeProfiler {
    fn version(&self) -> Option<String> {
        Some("fake 1.0".into())
    }

    fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput> {
        self.asked.borrow_mut().push(req.collection.clone());
        self.envs.borrow_mut().push(req.env.to_vec());
        Ok(ProfileOutput {
            raw: fixture(self.raw),
            details: Some(fixture(self.details)),
            commands: vec![format!("fake {}", req.name)],
            warnings: self
                .program_status
                .map(|n| format!("fake: the program exited with status {n}"))
                .into_iter()
                .collect(),
            program_status: self.program_status,
        })
    }
}

/// The probe capture of the H200 (raw and details pages of a `copy` kernel and others).
pub fn probe() -> FakeProfiler {
    FakeProfiler {
        raw: "probe_full_raw.csv",
        details: "probe_full_details.csv",
        asked: RefCell::new(Vec::new()),
        envs: RefCell::new(Vec::new()),
        program_status: None,
    }
}

/// A timings artifact as `capture run` builds it, with one kernel named `function`.
pub fn timings(function: &str) -> Artifact {
    let mut a = Artifact::new(Provenance {
        origin: Some(Origin::Run),
        tool: "capture".into(),
        tool_version: "test".into(),
        ..Provenance::default()
    });
    a.kernels.push(KernelRecord {
        source_file: Some("kernels/ceilings.cu".into()),
        ..KernelRecord::new("copy ceiling", function)
    });
    a
}
