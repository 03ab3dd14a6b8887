#!/usr/bin/env bash
# Device run of issue 49 (capture trace --counters) and issue 46 item 3 (the sampled profile's
# timing pass from the trace), one call. Carry target/release/capture.gz and
# target/release/libroofline_inject.so.gz from `bash tests/device/pack.sh`.
#   PARTS="smoke" bash tests/device/one_pass.sh
# Parts, each skipped when the clock (BUDGET_S, default 560) would not let it finish:
#   smoke     the seed's example and GPT-2 forward under --counters at INTERVALS (ns)
#   calib     for each program of CALIB (dir/name.py): plain run, capture trace --counters,
#             capture profile --depth roofline (sampled, the trace's timing pass); walls
#   profile   the BERT step's sampled profile with ncu's timing pass, then the trace's
# Everything lands in $OUT/one_pass.tgz, the log in $OUT/one_pass.log.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
[ -x target/release/capture ] || bash tests/device/pack.sh unpack
R=$PWD; C=$R/target/release/capture; W=/tmp/op; mkdir -p $W
T0=$(date +%s); BUDGET_S=${BUDGET_S:-560}
left() { echo $(( BUDGET_S - ($(date +%s) - T0) )); }
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" >> $W/walls.txt; }
P=$R/tests/trace/programs

part_smoke() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/facts.txt 2>&1
  cd $P
  wall seed_counters timeout 60 $C trace --counters --records $W/seed_rec -o $W/seed_counters.json -- python3 seed_example.py > $W/seed.log 2>&1
  $C table $W/seed_counters.json >> $W/seed.log 2>&1
  for iv in ${INTERVALS:-20000}; do
    [ "$(left)" -lt 60 ] && break
    STEPS=2 wall gpt2_counters_$iv timeout 90 $C trace --counters --counter-interval-ns $iv -o $W/gpt2_counters_$iv.json -- python3 gpt2_fwd.py > $W/gpt2_$iv.log 2>&1
    $C table $W/gpt2_counters_$iv.json >> $W/gpt2_$iv.log 2>&1
  done
  cd $R
}

part_calib() {
  for prog in ${CALIB:-trace/programs/gpt2_fwd.py}; do
    dir=$R/tests/$(dirname $prog); name=$(basename $prog .py)
    [ "$(left)" -lt 150 ] && { echo "skip calib $name: $(left) s left" >> $W/walls.txt; continue; }
    cd $dir
    wall ${name}_plain timeout 120 python3 $name.py > $W/${name}_plain.log 2>&1
    wall ${name}_counters timeout 120 $C trace --counters --counter-interval-ns ${IV:-1000000} -o $W/${name}_counters.json -- python3 $name.py > $W/${name}_counters.log 2>&1
    $C table $W/${name}_counters.json >> $W/${name}_counters.log 2>&1
    wall ${name}_profile timeout $(( $(left) - 20 )) $C profile --depth roofline --timing-pass trace -o $W/${name}_profile.json -- python3 $name.py > $W/${name}_profile.log 2>&1
  done
  cd $R
}

part_profile() {
  cd $P
  wall bert_profile_trace timeout 200 $C profile --nvtx-include step --torch-modules --timing-pass trace -o $W/bert_profile_trace.json -- python3 bert_train_step.py > $W/bert_profile_trace.log 2>&1
  [ "$(left)" -gt 150 ] && wall bert_profile_ncu timeout 200 $C profile --nvtx-include step --torch-modules --timing-pass ncu -o $W/bert_profile_ncu.json -- python3 bert_train_step.py > $W/bert_profile_ncu.log 2>&1
  cd $R
}

for part in ${PARTS:-smoke}; do
  [ "$(left)" -lt 30 ] && { echo "skip $part: $(left) s left" >> $W/walls.txt; continue; }
  part_$part
done
find $W -name '*.json' -size +1k -exec gzip -9 -f {} +
cat $W/walls.txt $W/facts.txt $W/*.log > $OUT/one_pass.log 2>&1
tar czf $OUT/one_pass.tgz -C /tmp op
ls -la $OUT
