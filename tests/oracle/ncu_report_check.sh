#!/usr/bin/env bash
# NVIDIA's report reader as an independent truth, with no GPU: installs `ncu-report` from
# PyPI into a virtual environment (kept in target/oracle-venv), then, on every fixture
# report, compares what `capture` reads (the rules of `capture import`'s artifact, and the
# per-instruction figures of `capture source --format json` once a report has source
# counters, with each instruction's CUDA file and line, and the SASS text nvdisasm gives the
# report alone: PyPI's nvidia-cuda-nvdisasm, installed here too) with what `ncu_report`
# reads; then
# each .ncu-repz of tests/fixtures/ncu-repz/ (zstd: one frame, several, a skippable frame in
# front) the same way, and against its .ncu-rep (ncu_repz_check.py: the same actions, metrics
# and rules in ncu_report, the same artifact from capture). Run by tests/run.sh; needs python3
# with venv and pip's registry. Usage: bash tests/oracle/ncu_report_check.sh [CAPTURE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
capture=${1:-${CARGO_TARGET_DIR:-$root/target}/debug/capture}
[ -x "$capture" ] || cargo build -p capture
venv=$root/target/oracle-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import ncu_report' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet 'ncu-report==2026.3.1'
fi
# NVIDIA's disassembler (PyPI's nvidia-cuda-nvdisasm), for the SASS text `capture source`
# gives a report alone, compared with ncu_report's at every address with figures.
find_nvdisasm() {
  "$venv/bin/python" -c 'import nvidia, os
for d in nvidia.__path__:
    p = os.path.join(d, "cu13", "bin", "nvdisasm")
    if os.path.isfile(p): print(p)' 2>/dev/null | head -1
}
nvdisasm=$(find_nvdisasm || true)
if [ -z "$nvdisasm" ]; then
  "$venv/bin/python" -m pip install --quiet 'nvidia-cuda-nvdisasm==13.5.37'
  nvdisasm=$(find_nvdisasm)
fi
export NVDISASM=$nvdisasm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for f in tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz \
          tests/fixtures/ncu-h200/probe_full.ncu-rep.gz \
          tests/fixtures/ncu-h200-bert/bert_full.ncu-repz \
          tests/fixtures/ncu-h200-suite-source/suite_full.ncu-repz \
          tests/fixtures/ncu-h200-suite-source/suite_src.ncu-repz; do
  # A .ncu-repz is read as it is, by capture and by ncu_report alike; a .ncu-rep.gz un-gzipped.
  case $f in
    *.ncu-repz) name=$(basename "$f"); cp "$f" "$work/$name"; stem=${f%.ncu-repz} ;;
    *) name=$(basename "$f" .gz); gunzip -c "$f" > "$work/$name"; stem=${f%.ncu-rep.gz} ;;
  esac
  "$capture" import "$work/$name" -o "$work/$name.json" > /dev/null 2>&1
  page=${stem}_source.csv.gz
  case $name in
    suite_full.ncu-rep*) page=$(dirname "$f")/suite_source_sass.csv.gz
                         cuda_page=$(dirname "$f")/suite_source_cuda_sass.csv.gz ;;
    suite_src.ncu-rep*) page=$(dirname "$f")/suite_src_sass.csv.gz
                        cuda_page=$(dirname "$f")/suite_src_cuda_sass.csv.gz ;;
    *) cuda_page= ;;
  esac
  [ -f "$page" ] || page=
  [ -f "$cuda_page" ] || cuda_page=
  "$venv/bin/python" tests/oracle/ncu_report_check.py "$work/$name" "$work/$name.json" \
    "$capture" $page $cuda_page || status=1
done
# The .ncu-repz fixtures: each against ncu_report as every report is, and against its .ncu-rep.
for repz in tests/fixtures/ncu-repz/*.ncu-repz; do
  name=$(basename "$repz")
  case $name in
    probe_full*) rep=$work/probe_full.ncu-rep ;;
    *) rep=$work/two_process.ncu-rep
       gunzip -c tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz > "$rep"
       "$capture" import "$rep" -o "$rep.json" > /dev/null 2>&1 ;;
  esac
  cp "$repz" "$work/$name"
  "$capture" import "$work/$name" -o "$work/$name.json" > /dev/null 2>&1
  "$venv/bin/python" tests/oracle/ncu_report_check.py "$work/$name" "$work/$name.json" \
    "$capture" || status=1
  "$venv/bin/python" tests/oracle/ncu_repz_check.py "$work/$name" "$rep" "$work/$name.json" \
    "$rep.json" || status=1
done
exit $status
