//! Test support for `shared` and the crates above it (the `testing` feature, which only
//! their dev-dependencies turn on): real hardware facts that tests build on, written once.

use crate::model::artifact::{ComputeCapability, DeviceInfo, TheoreticalPeaks};

/// The H200 as `capture devices` recorded it (`site/samples/h200.json`): device 0, CC 9.0,
/// 132 SMs at 1.98 GHz, 3.2 GHz memory clock on a 6016-bit bus, 60 MiB of L2, 139.8 GiB.
/// The theoretical peaks are left empty: a test sets the ones it checks.
pub fn h200() -> DeviceInfo {
    DeviceInfo {
        index: Some(0),
        name: "NVIDIA H200".into(),
        compute_capability: Some(ComputeCapability { major: 9, minor: 0 }),
        sm_count: Some(132),
        sm_clock_khz: Some(1_980_000),
        mem_clock_khz: Some(3_201_000),
        bus_width_bits: Some(6016),
        l2_bytes: Some(62_914_560),
        total_mem_bytes: Some(150_109_880_320),
        pci_bus_id: None,
        peaks: TheoreticalPeaks::default(),
    }
}

/// A zstd frame of `total` bytes of `byte`, written by hand (RFC 8878): a 128 KiB window, no
/// content size and no checksum, then RLE blocks of 128 KiB, 4 bytes each, so that 4 GiB of
/// zeros take 128 KiB: the small file that decodes to gigabytes, which readers must refuse
/// without holding it.
pub fn zstd_rle_frame(total: u64, byte: u8) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let mut out = crate::read::zstd::MAGIC.to_vec();
    // Frame header descriptor: nothing set; window descriptor: 2^(10 + 7) bytes.
    out.extend([0x00, 7 << 3]);
    let mut left = total;
    while left > 0 {
        let size = left.min(BLOCK);
        left -= size;
        // Block header, 3 bytes little-endian: the last-block flag, type 1 (RLE), the size.
        let header = u32::from(left == 0) | (1 << 1) | ((size as u32) << 3);
        out.extend(header.to_le_bytes().get(..3).unwrap_or_default());
        out.push(byte);
    }
    out
}

/// A gzipped file of the tree (a sample or fixture kept compressed), un-gzipped into text:
/// for this crate's own tests (flate2 is a dev-dependency).
#[cfg(test)]
pub fn gunzip_text(gz: &[u8]) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("a gzipped UTF-8 fixture");
    text
}
