#!/usr/bin/env bash
# Device run of round 11 (H200), with main's capture (carry target/release/capture.gz from
# `bash tests/device/pack.sh`: the tree and a plain binary no longer fit in 64 MiB).
#   bash tests/device/round11.sh corpus    # issue 34: the corpus programs not yet collected
#   bash tests/device/round11.sh planted   # issue 37: planted code changes and same-code pairs
#   bash tests/device/round11.sh determinism  # issue 37: repeated --depth work runs
#   bash tests/device/round11.sh pushpop planted  # several parts, in order
# Results land in $OUT as tarballs; wall times in $OUT/walls.txt. Each part watches the
# clock (BUDGET_S, default 560) and skips what would not finish.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
[ -x target/release/capture ] || bash tests/device/pack.sh unpack
R=$PWD; C=$R/target/release/capture; W=/tmp/w11; mkdir -p $W/corpus $W/planted
T0=$(date +%s); BUDGET_S=${BUDGET_S:-560}
left() { echo $(( BUDGET_S - ($(date +%s) - T0) )); }
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" | tee -a $OUT/walls.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $OUT/walls.txt
ncu --version >> $OUT/walls.txt 2>&1

# issue 34: JAX's capture profile (it died with SIGSEGV in the counters pass last round: once
# more as before, then over every launch without --kernel-id, to tell the two apart), then
# the programs never collected
part_corpus() {
  ncu --help > $W/ncu_help.txt 2>&1
  python3 -c "import jax, torch; print('jax', jax.__version__, 'torch', torch.__version__)" >> $OUT/walls.txt 2>&1
  cd $R/tests/corpus/programs
  wall jax_profile timeout 120 $C profile --nvtx-include measure -o $W/corpus/jax_mlp_profile.json -- python3 jax_mlp.py > $W/corpus/jax_mlp_profile.log 2>&1
  if [ ! -s $W/corpus/jax_mlp_profile.json ]; then
    wall jax_all timeout 120 $C profile --all-launches --nvtx-include measure -o $W/corpus/jax_mlp_profile_all.json -- python3 jax_mlp.py > $W/corpus/jax_mlp_profile_all.log 2>&1
  fi
  gzip -9 -f $W/corpus/jax_mlp_profile*.json
  for p in ${PROGRAMS:-compiled_mlp lstm_fp32 resnet18_train}; do
    [ "$(left)" -lt 100 ] && { echo "skip $p: $(left) s left" >> $OUT/walls.txt; continue; }
    PER_PROGRAM_S=$(( $(left) / 2 < 170 ? $(left) / 2 : 170 )) wall $p bash $R/tests/corpus/collect.sh $W/corpus $C $p
  done
  cp $W/ncu_help.txt $W/corpus/
  tar czf - -C $W corpus | split -b 15m - $OUT/corpus.tgz.
}

# issue 37: each planted change once and the base RUNS_BASE times (default 11: ten same-code
# pairs against the first), every launch at --depth work
part_planted() {
  cd $R/tests/planted
  for i in $(seq 1 ${RUNS_BASE:-11}); do
    wall base$i $C profile --all-launches --depth work --nvtx-include measure -o $W/planted/base$i.json -- python3 planted.py > $W/planted/base$i.log 2>&1
  done
  for v in fma uncoalesced split tile copy copy_kernel; do
    wall $v env VARIANT=$v $C profile --all-launches --depth work --nvtx-include measure -o $W/planted/$v.json -- python3 planted.py > $W/planted/$v.log 2>&1
  done
  gzip -9 -f $W/planted/*.json
  tar czf $OUT/planted.tgz -C $W planted
}

# issue 37: RUNS runs of the suite and the three programs at --depth work (tests/determinism/run.sh)
part_determinism() {
  OUT=$W/det RUNS=${RUNS:-10} CV=0 PASSES=${PASSES:-0} timeout $(( $(left) - 30 )) bash $R/tests/determinism/run.sh $C > $W/det.log 2>&1
  find $W/det -name '*.json' -exec gzip -9 -f {} +
  cp $W/det.log $W/det/
  tar czf - -C $W det | split -b 15m - $OUT/det.tgz.
}

# issue 36: the step under a push/pop "step" range, timing only, ncu's per-thread scope and
# --nvtx-push-pop-scope process, raw pages kept (which launches, which thread ids)
part_pushpop() {
  mkdir -p $W/pushpop; cd $R/tests/fixtures/ncu-h200-bert
  for scope in thread process; do
    wall pushpop_$scope env RANGE=push ncu --nvtx --nvtx-include step/ --nvtx-push-pop-scope $scope --metrics gpu__time_duration.sum --cache-control none --clock-control none -f -o $W/pushpop/$scope python3 bert_train_bf16.py > $W/pushpop/$scope.log 2>&1
    ncu --import $W/pushpop/$scope.ncu-rep --csv --page raw --print-units base | gzip -9 > $W/pushpop/${scope}_raw.csv.gz
    rm -f $W/pushpop/$scope.ncu-rep
  done
  tar czf $OUT/pushpop.tgz -C $W pushpop
}

# issue 37 (pass count and wall of --depth work against --depth roofline) on the BERT step,
# and issue 36 (capture's push/pop filter, now process-wide) in the same runs: the step
# under a push/pop range, sampled, at both depths
part_passes() {
  mkdir -p $W/passes; cd $R/tests/fixtures/ncu-h200-bert
  for depth in work roofline; do
    wall passes_$depth env RANGE=push $C profile --depth $depth --nvtx-include step/ -o $W/passes/bert_train_$depth.json -- python3 bert_train_bf16.py > $W/passes/bert_train_$depth.log 2>&1
  done
  gzip -9 -f $W/passes/*.json
  tar czf $OUT/passes.tgz -C $W passes
}

for part in "$@"; do part_$part; done
