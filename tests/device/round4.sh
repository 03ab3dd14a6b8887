#!/usr/bin/env bash
# Device run of round 4 (H200), first half, with main's capture (target/release/capture carried):
#  - capture run twice and once with the streaming arrays doubled (the diff fixtures: noise of the
#    same code against itself, and a planted regression);
#  - a 2-layer BERT bf16 forward under `ncu --set full` in its NVTX range (report, raw, details and
#    source pages: the rules, source and verdict-agreement fixtures);
#  - a 4-layer BERT bf16 training step: the plain run, a duration-only timing pass, and capture
#    profile of every launch (the sampling planner's fixtures);
#  - ncu's metric list for the chip (to find the counters that see TMA traffic and the pipes).
# Two calls (each under the 10-minute limit): `round4.sh a`, then `round4.sh b`.
# Results land in $OUT as tarballs; wall times in $OUT/walls.txt.
export RANGE=push # the step as recorded then: a push/pop range (bert_train_bf16.py)
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; W=/tmp/w4; mkdir -p $W/diff $W/bert $W/train $W/query; cd $W
B=$R/tests/fixtures/ncu-h200-bert
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" >> $OUT/walls.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $OUT/walls.txt
part_a() {
# diff fixtures
wall run1 timeout 150 $C run -o $W/diff/run1.json > $W/diff/run1.log 2>&1
wall run2 timeout 150 $C run -o $W/diff/run2.json > $W/diff/run2.log 2>&1
wall run_size2x timeout 150 $C run --size 268435456 -o $W/diff/run_size2x.json > $W/diff/run_size2x.log 2>&1
tar czf $OUT/diff.tgz -C $W diff
# BERT forward, --set full
wall bert_plain python3 $B/bert_bf16.py > $W/bert/plain.log 2>&1
wall bert_full timeout 300 ncu -f -o $W/bert/bert_full --set full --import-source yes --clock-control none --nvtx --nvtx-include forward/ python3 $B/bert_bf16.py > $W/bert/bert_full.log 2>&1
ncu --import $W/bert/bert_full.ncu-rep --csv --page raw --print-units base > $W/bert/bert_full_raw.csv 2>> $W/bert/bert_full.log
ncu --import $W/bert/bert_full.ncu-rep --csv --page details > $W/bert/bert_full_details.csv 2>> $W/bert/bert_full.log
ncu --import $W/bert/bert_full.ncu-rep --csv --page details --print-units base --print-rule-details > $W/bert/bert_full_details_base.csv 2>> $W/bert/bert_full.log
ncu --import $W/bert/bert_full.ncu-rep --csv --page source --print-source sass > $W/bert/bert_full_source.csv 2>> $W/bert/bert_full.log
ls -la $W/bert >> $OUT/walls.txt
tar czf $OUT/bert.tgz -C $W bert
}
part_b() {
# training step
wall train_plain python3 $B/bert_train_bf16.py > $W/train/plain.log 2>&1
wall train_timing timeout 200 ncu -f -o $W/train/timing --metrics gpu__time_duration.sum --cache-control none --clock-control none --nvtx --nvtx-include step/ python3 $B/bert_train_bf16.py > $W/train/timing.log 2>&1
ncu --import $W/train/timing.ncu-rep --csv --page raw --print-units base > $W/train/timing_raw.csv 2>> $W/train/timing.log
wall train_all timeout 300 $C profile --nvtx-include step/ --keep-exports -o $W/train/train_all.json -- python3 $B/bert_train_bf16.py > $W/train/train_all.log 2>&1
rm -f $W/train/*.ncu-rep
ls -la $W/train >> $OUT/walls.txt
tar czf $OUT/train.tgz -C $W train
# metric names for the chip
ncu --query-metrics --chip gh100 > $W/query/gh100_metrics.txt 2>&1
ncu --query-metrics --chip gh100 --query-metrics-mode suffix --metrics sm__inst_executed_pipe_tensor,l1tex__m_xbar2l1tex_read_bytes > $W/query/gh100_suffix_example.txt 2>&1
ncu --list-sections > $W/query/sections.txt 2>&1
ncu --list-rules > $W/query/rules.txt 2>&1
tar czf $OUT/query.tgz -C $W query
}
# bash tests/device/round4.sh a|b
"part_$1"
cat $OUT/walls.txt; ls -la $OUT
