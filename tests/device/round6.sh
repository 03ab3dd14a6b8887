#!/usr/bin/env bash
# Device run of round 6 (H200), with main's capture (target/release/capture carried): issue 26's
# benchmark after the plan's tails borrow from their bigger grid (by blocks) and the timing pass's
# report is read natively. Two calls, each under the 10-minute limit:
#   bash tests/device/round6.sh a   # BERT-base (12 layers) training step: plains, two sampled, roofline
#   bash tests/device/round6.sh b   # the same step on one machine: plains, a sampled profile, --all-launches
# Then, here: python3 tests/device/sampling_report.py WALLS DIR sampled4 sampled5 roofline3
# (capture table --format json of each artifact into DIR/NAME.table.json first).
# Results land in $OUT as tarballs; wall times in $OUT/walls.txt.
export RANGE=push # the step as recorded then: a push/pop range (bert_train_bf16.py)
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; W=/tmp/w6; mkdir -p $W/train; cd $W
B=$R/tests/fixtures/ncu-h200-bert
export LAYERS=12
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" | tee -a $OUT/walls.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $OUT/walls.txt
ncu --version >> $OUT/walls.txt 2>&1
sampled() {
  local name=$1; shift
  wall $name timeout 300 $C profile --nvtx-include step/ --keep-exports "$@" -o $W/train/$name.json -- python3 $B/bert_train_bf16.py > $W/train/$name.log 2>&1
  $C table $W/train/$name.json --format json > $W/train/$name.table.json 2>> $W/train/$name.log
}
part_a() {
  wall plain7 python3 $B/bert_train_bf16.py > $W/train/plain7.log 2>&1
  sampled sampled4
  wall plain8 python3 $B/bert_train_bf16.py > $W/train/plain8.log 2>&1
  sampled sampled5
  sampled roofline3 --depth roofline
  # The timing pass's report is the fixture the CPU tests read natively; the profiling
  # passes' reports are large and their CSV pages hold what the tests need.
  mkdir -p $W/keep && mv $W/train/sampled4-ncu-timing.ncu-rep $W/keep/ 2>/dev/null
  rm -f $W/train/*.ncu-rep
  ls -la $W/train $W/keep >> $OUT/walls.txt
  find $W/train $W/keep -name '*.csv' -o -name '*.json' -o -name '*.ncu-rep' | xargs gzip -9
  tar czf $OUT/train6_a.tgz -C $W train keep
}
part_b() {
  # One machine for the plain runs, a sampled profile and the profile of every launch: the
  # program's start-up differs by several seconds between machines.
  wall plain9 python3 $B/bert_train_bf16.py > $W/train/plain9.log 2>&1
  sampled sampled6
  wall all timeout 450 $C profile --all-launches --nvtx-include step/ -o $W/train/all.json -- python3 $B/bert_train_bf16.py > $W/train/all.log 2>&1
  $C table $W/train/all.json --format json > $W/train/all.table.json 2>> $W/train/all.log
  wall plain10 python3 $B/bert_train_bf16.py > $W/train/plain10.log 2>&1
  rm -f $W/train/*.ncu-rep $W/train/all.json
  find $W/train -name '*.csv' -o -name '*.json' | xargs gzip -9
  tar czf $OUT/train6_b.tgz -C $W train
}
"part_$1"
cat $OUT/walls.txt; ls -la $OUT
