#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets under fuzz/corpus/<target>/ from the real
fixtures (tests/fixtures, tests/golden, site/samples), cut to a few kilobytes each so the
fuzzer spends its time on variations rather than on parsing 100 KB headers.

Run from anywhere: python3 fuzz/seeds.py. Standard library only. The corpus directory is
ignored by git; this script is how it is made again.
"""

import csv
import gzip
import subprocess
import io
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
H200 = ROOT / "tests" / "fixtures" / "ncu-h200"
GUI = ROOT / "tests" / "fixtures" / "ncu-gui" / "probe_full_gui_raw.csv"
GOLDEN = ROOT / "tests" / "golden" / "probe_metrics.artifact.json"
SAMPLES = ROOT / "site" / "samples"
BERT_SOURCE = ROOT / "tests" / "fixtures" / "ncu-h200-bert" / "bert_full_source.csv.gz"
TWO_PROCESS = ROOT / "tests" / "fixtures" / "ncu-h200-reports" / "two_process.ncu-rep.gz"
DIFF = ROOT / "tests" / "fixtures" / "diff"
SUITE_SRC = ROOT / "tests" / "fixtures" / "ncu-h200-suite-source" / "suite_src.ncu-repz"
SUITE_SRC_PAGE = ROOT / "tests" / "fixtures" / "ncu-h200-suite-source" / "suite_src_cuda_sass.csv.gz"

# Identity columns of ncu CLI exports, then the metrics the model reads: every counter of
# the catalog, parsed from shared/src/model/counters.rs (its `ID = "name", "unit", "meaning";`
# entries), so this list is never typed again. fuzz/src/lib.rs keeps the same columns
# through shared::counters::find.
ID_COLUMNS = 11
COUNTERS_RS = ROOT / "shared" / "src" / "model" / "counters.rs"
MODEL_METRICS = set(re.findall(r'^\s*[A-Z][A-Z0-9_]* = "([^"]+)",', COUNTERS_RS.read_text(), re.M))
assert len(MODEL_METRICS) > 40, f"no counters parsed from {COUNTERS_RS}"
SEPARATOR = b"\xff"


def read_text(path):
    """A fixture's text, un-gzipped when it is kept gzipped (`.gz`)."""
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode()
    return path.read_text()


def unzstd(path):
    """A zstd-compressed report (`.ncu-repz`), un-compressed by the `zstd` command."""
    return subprocess.run(["zstd", "-dcq", str(path)], check=True, capture_output=True).stdout


def split_preamble(text):
    """(lines before the first CLI header, the CSV from the header on)."""
    at = text.find('"ID"')
    return text[:at], text[at:]


def write_csv(rows, delimiter=","):
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return out.getvalue()


def cut_raw(path, launches=None, keep_preamble=True):
    """A raw page with the identity columns and the model's metrics only."""
    preamble, body = split_preamble(read_text(path))
    rows = list(csv.reader(io.StringIO(body)))
    header = rows[0]
    keep = [i for i, name in enumerate(header)
            if i < ID_COLUMNS or name in MODEL_METRICS]
    data = rows[2:] if launches is None else rows[2:2 + launches]
    cut = [[row[i] for i in keep if i < len(row)] for row in [header, rows[1]] + data]
    return (preamble if keep_preamble else "") + write_csv(cut)


def head_lines(path, count):
    if path.suffix == ".gz":
        text = gzip.decompress(path.read_bytes()).decode()
    else:
        text = path.read_text()
    return "".join(text.splitlines(keepends=True)[:count])


def slim_timing(timing):
    if timing:
        timing["samples_ms"] = timing["samples_ms"][:5]
    return timing


def slim_launch(launch, keep_columns=None, sections=8, rules=2):
    """Keeps the model's metrics, and the first few section rows and rules. Schema 1 has a
    map of metrics per launch; schema 2 an array against the set's metric_columns."""
    metrics = launch.get("metrics", {})
    if isinstance(metrics, dict):
        launch["metrics"] = {k: v for k, v in metrics.items() if k in MODEL_METRICS}
    else:
        launch["metrics"] = [metrics[i] for i in keep_columns if i < len(metrics)]
    launch["sections"] = launch.get("sections", [])[:sections]
    launch["rules"] = launch.get("rules", [])[:rules]
    return launch


def slim_set(counter_set):
    columns = counter_set.get("metric_columns")
    keep = None
    if columns is not None:
        keep = [i for i, c in enumerate(columns) if c["name"] in MODEL_METRICS]
        counter_set["metric_columns"] = [columns[i] for i in keep]
    counter_set["launches"] = [slim_launch(l, keep) for l in counter_set["launches"][:2]]


def slim_artifact(path, kernels=3, counters=True):
    return slim_artifact_text(read_text(path), kernels, counters)


def slim_artifact_text(text, kernels=3, counters=True):
    artifact = json.loads(text)
    artifact["kernels"] = artifact["kernels"][:kernels]
    for kernel in artifact["kernels"]:
        slim_timing(kernel.get("timing"))
        for cache in ("cold", "warm"):
            if not counters:
                kernel[cache] = None
            elif kernel.get(cache):
                slim_set(kernel[cache])
    if artifact.get("ceilings"):
        artifact["ceilings"]["measurements"] = artifact["ceilings"]["measurements"][:2]
        for measurement in artifact["ceilings"]["measurements"]:
            slim_timing(measurement["timing"])
    artifact["provenance"]["ncu_commands"] = artifact["provenance"]["ncu_commands"][:1]
    return json.dumps(artifact, separators=(",", ":")).encode()


def varint(data, at):
    """A protobuf varint at `at`: (value, offset after it)."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def payload_size(header):
    """Field 5 (payload bytes) of a report's block header, 0 when absent."""
    at, size = 0, 0
    while at < len(header):
        key, at = varint(header, at)
        kind = key & 7
        if kind == 0:
            value, at = varint(header, at)
            if key >> 3 == 5:
                size = value
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        elif kind == 2:
            length, at = varint(header, at)
            at += length
        else:
            raise ValueError(f"wire type {kind} in a block header")
    return size


def fields(message):
    """The fields of a protobuf message: (number, wire type, value, raw bytes of the field)."""
    at, out = 0, []
    while at < len(message):
        start = at
        key, at = varint(message, at)
        kind = key & 7
        if kind == 0:
            value, at = varint(message, at)
        elif kind == 1:
            value, at = message[at:at + 8], at + 8
        elif kind == 5:
            value, at = message[at:at + 4], at + 4
        elif kind == 2:
            length, at = varint(message, at)
            value, at = message[at:at + length], at + length
        else:
            raise ValueError(f"wire type {kind}")
        out.append((key >> 3, kind, value, message[start:at]))
    return out


def put_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_bytes(number, data):
    return put_varint((number << 3) | 2) + put_varint(len(data)) + data


def framed(data):
    return len(data).to_bytes(4, "little") + data


def slim_source_report(report, keep):
    """The report's file header, its first block of kernel sources (a module with its line
    table and CUDA text) and its first result, slimmed: the result keeps its process, names,
    launch dimensions, context and stream and the metrics named in `keep`, the block's
    string table only their names."""
    u32 = lambda at: int.from_bytes(report[at:at + 4], "little")
    out = report[:8 + u32(4)]
    at = len(out)
    sources = result = None
    while at < len(report) and (sources is None or result is None):
        header = report[at + 4:at + 4 + u32(at)]
        end = at + 4 + len(header) + payload_size(header)
        counts = {n: v for n, k, v, _ in fields(header) if k == 0}
        if counts.get(1) and sources is None:
            sources = report[at:end]
        elif counts.get(2) and sources is not None:
            result = (header, report[at + 4 + len(header):end])
        at = end
    header, payload = result
    strings = next(v for n, k, v, _ in fields(header) if n == 4)
    names = [v.decode() for n, k, v, _ in fields(strings) if n == 1]
    message = payload[4:4 + u32_of(payload)]
    kept, table = bytearray(), []
    for number, kind, value, raw in fields(message):
        if number not in (1, 5, 6, 7, 10, 11, 13, 22, 23):
            continue  # rule results and what the reader skips (field 17: 656 KB)
        if number != 13:
            kept += raw
            continue
        parts = fields(value)
        name = next(v for n, k, v, _ in parts if n == 1)
        if names[name] not in keep:
            continue
        table.append(names[name])
        metric = put_varint(1 << 3) + put_varint(len(table) - 1)
        metric += b"".join(r for n, k, v, r in parts if n != 1)
        kept += field_bytes(13, metric)
    new_strings = b"".join(field_bytes(1, n.encode()) for n in table)
    new_payload = framed(bytes(kept))
    new_header = bytearray()
    for number, kind, value, raw in fields(header):
        if number == 4:
            new_header += field_bytes(4, new_strings)
        elif number == 5:
            new_header += put_varint(5 << 3) + put_varint(len(new_payload))
        else:
            new_header += raw
    return out + sources + framed(bytes(new_header)) + new_payload


def u32_of(data):
    return int.from_bytes(data[:4], "little")


def report_frames(report):
    """Where each frame of a report ends: the file header, then each block header and each
    size-prefixed message of its payload."""
    u32 = lambda at: int.from_bytes(report[at:at + 4], "little")
    at = 8 + u32(4)
    ends = [at]
    while at + 4 <= len(report):
        header = report[at + 4:at + 4 + u32(at)]
        at += 4 + len(header)
        ends.append(at)
        end = at + payload_size(header)
        while at < end:
            at += 4 + u32(at)
            ends.append(at)
    return ends


def write(target, name, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def main():
    details = H200 / "probe_full_details.csv"
    details_stdout = H200 / "probe_sections_details_base_units_with_stdout.csv"
    raw_stdout = H200 / "probe_metrics_raw_with_stdout.csv"
    raw_full = H200 / "probe_full_raw.csv"

    # ncu_read_export: whole inputs of every shape.
    exports = {
        "gui": GUI.read_text(),
        "gui_crlf": GUI.read_text().replace("\n", "\r\n"),
        "details": head_lines(details, 25),
        "details_stdout": head_lines(details_stdout, 30),
        "details_semicolon": write_csv(list(csv.reader(io.StringIO(head_lines(details, 12)))), ";"),
        "raw_stdout": cut_raw(raw_stdout),
        "raw_full": cut_raw(raw_full),
        "raw_sample": cut_raw(SAMPLES / "h200-ncu-cold-raw.csv.gz", launches=3),
        "raw_gpt2": cut_raw(SAMPLES / "h200-gpt2-bf16-ncu-cold-raw.csv.gz", launches=3),
        "details_gpt2": head_lines(ROOT / "tests" / "fixtures" / "ncu-h200-torch" / "gpt2_bf16_profile_details.csv.gz", 10),
    }
    for name, text in exports.items():
        write("ncu_read_export", name, text)

    # ncu_structured: a prefix choice byte (see structured_prefixes in fuzz/src/lib.rs), then
    # what follows that prefix in the fixture.
    _, raw_body = split_preamble(raw_stdout.read_text())
    raw_lines = raw_body.splitlines(keepends=True)
    cut_lines = cut_raw(raw_stdout, keep_preamble=False).splitlines(keepends=True)
    details_lines = head_lines(details, 30).splitlines(keepends=True)
    gui_lines = GUI.read_text().splitlines(keepends=True)
    structured = {
        "raw_units_and_rows": b"\x00" + "".join(raw_lines[1:]).encode(),
        "raw_rows": b"\x01" + "".join(raw_lines[2:]).encode(),
        "raw_cut_rows": b"\x02" + "".join(cut_lines[2:]).encode(),
        "details_rows": b"\x03" + "".join(details_lines[1:]).encode(),
        "gui_rest": b"\x04" + "".join(gui_lines[1:]).encode(),
    }
    for name, data in structured.items():
        write("ncu_structured", name, data)

    # artifact_json: real artifacts, slimmed.
    write("artifact_json", "golden_import", slim_artifact(GOLDEN, kernels=2))
    write("artifact_json", "run", slim_artifact(SAMPLES / "h200.json.gz", kernels=2))
    write("artifact_json", "profile_gpt2", slim_artifact(SAMPLES / "h200-gpt2-bf16.json.gz", kernels=2))
    write("artifact_json", "minimal", '{"schema": 1, "kernels": [{"name": "k", "function": "k"}]}')

    # merge_table: operation byte, artifact, then exports, separated by 0xFF.
    timings = slim_artifact(SAMPLES / "h200.json.gz", kernels=3, counters=False)
    cold_raw = cut_raw(SAMPLES / "h200-ncu-cold-raw.csv.gz", launches=3).encode()
    warm_raw = cut_raw(SAMPLES / "h200-ncu-warm-raw.csv.gz", launches=3).encode()
    cold_details = head_lines(SAMPLES / "h200-ncu-cold-details.csv.gz", 40).encode()
    merges = {
        "import_raw": b"\x00" + SEPARATOR + cut_raw(raw_stdout).encode(),
        "import_raw_and_details": b"\x00" + SEPARATOR + cold_raw + SEPARATOR + cold_details,
        "import_gui": b"\x00" + SEPARATOR + GUI.read_bytes(),
        "attach_cold": b"\x01" + timings + SEPARATOR + cold_raw,
        "attach_warm": b"\x02" + timings + SEPARATOR + warm_raw,
        "attach_both": b"\x03" + timings + SEPARATOR + cold_raw + SEPARATOR + cold_details,
    }
    for name, data in merges.items():
        write("merge_table", name, data)

    # ncu_rep: the two-process report cut after its session, inside and after its first
    # result (one complete result, a cut one), and after its second process's first result.
    report = gzip.decompress(TWO_PROCESS.read_bytes())
    ends = report_frames(report)
    # Ends of: file header, session block, source block header, source, result block header.
    first_result = ends[4]
    cuts = {
        "session_only": ends[1],
        "first_result_cut": first_result + 2000,
        "one_result": ends[5],
        "second_process_first_result": ends[16],
    }
    for name, cut in cuts.items():
        write("ncu_rep", name, report[:cut])

    # source_page: the first launches of the BERT source page (SASS with per-instruction
    # counters), cut to whole lines.
    page = gzip.decompress(BERT_SOURCE.read_bytes()).decode()
    lines = page.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')]
    write("source_page", "one_launch_head", "".join(lines[:min(40, starts[1])]).encode())
    write("source_page", "two_launches_heads",
          "".join(lines[:30] + lines[starts[1]:starts[1] + 30]).encode())

    # diff: two artifacts, `before 0xFF after`: the committed H200 runs, slimmed, and an
    # artifact with no kernels.
    diff_runs = {name: slim_artifact_text(gzip.decompress((DIFF / f"{name}.json.gz").read_bytes()), kernels=4)
                 for name in ("run1", "run2", "run_size2x")}
    empty = b'{"schema": 1, "kernels": []}'
    write("diff", "run1_run2", diff_runs["run1"] + SEPARATOR + diff_runs["run2"])
    write("diff", "run1_size2x", diff_runs["run1"] + SEPARATOR + diff_runs["run_size2x"])
    write("diff", "empty_before", empty + SEPARATOR + diff_runs["run1"])

    # source: `u32 length, report, page`: the suite report's first module and launch, slimmed
    # to its names and the per-instruction metrics (and duration) the source page reads,
    # with the head of its `cuda,sass` page and without a page.
    suite = unzstd(SUITE_SRC)
    keep = MODEL_METRICS | {"gpu__time_duration.sum"}
    slim = slim_source_report(suite, keep)
    cuda_page = gzip.decompress(SUITE_SRC_PAGE.read_bytes()).decode().splitlines(keepends=True)
    length = len(slim).to_bytes(4, "little")
    write("source", "report_and_page", length + slim + "".join(cuda_page[:60]).encode())
    write("source", "report_only", length + slim)

    # zstd: the .ncu-repz fixtures that fit the target's 1 MiB cap (one frame, five frames,
    # a skippable frame in front).
    for name in ("two_process", "two_process_frames", "two_process_skippable"):
        repz = ROOT / "tests" / "fixtures" / "ncu-repz" / f"{name}.ncu-repz"
        write("zstd", name, repz.read_bytes())

    for target in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        sizes = sorted(f.stat().st_size for f in target.iterdir())
        print(f"{target.name}: {len(sizes)} seeds, {min(sizes)}..{max(sizes)} bytes")


if __name__ == "__main__":
    main()
