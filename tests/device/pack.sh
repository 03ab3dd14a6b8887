#!/usr/bin/env bash
# Builds the release capture and the trace's injection library for a device call and packs
# them small: the device tool carries at most 64 MiB (the tracked tree, about 60 MB by
# 2026-12-07, plus what `carry` names), and the stripped binary is 8.8 MB, 3.4 MB gzip. Carry
# target/release/capture.gz and target/release/libroofline_inject.so.gz, and begin the device
# command with `bash tests/device/pack.sh unpack &&`.
#   bash tests/device/pack.sh          # here: build, strip, gzip
#   bash tests/device/pack.sh unpack   # on the device: gunzip next to them
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = unpack ]; then
  gunzip -c target/release/capture.gz > target/release/capture
  chmod +x target/release/capture
  gunzip -c target/release/libroofline_inject.so.gz > target/release/libroofline_inject.so
  exit 0
fi
cargo build --release -q -p capture -p roofline-inject
strip target/release/capture target/release/libroofline_inject.so
gzip -9 -c target/release/capture > target/release/capture.gz
gzip -9 -c target/release/libroofline_inject.so > target/release/libroofline_inject.so.gz
ls -l target/release/capture target/release/capture.gz target/release/libroofline_inject.so target/release/libroofline_inject.so.gz
