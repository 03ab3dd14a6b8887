#!/usr/bin/env bash
# Device run of round 10 (H200), with main's capture (target/release/capture carried).
#   bash tests/device/round10.sh train    # issue 36: the 4-layer BERT training step, whole
#   bash tests/device/round10.sh corpus   # issue 34: the held-out corpus and the missing programs
#   bash tests/device/round10.sh truth_corpus  # the step's plain runs and phase split, then corpus
# train: plain runs with and without the --torch-modules hooks (their overhead), the step's
# phase split under torch.profiler (TRUTH), a sampled `capture profile --torch-modules` and
# the same over every launch (the sampled figures' accuracy), all over the start/end range.
# Results land in $OUT as tarballs; wall times in $OUT/walls.txt. Each part watches the
# clock (BUDGET_S, default 560) and skips what would not finish.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
R=$PWD; C=$R/target/release/capture; W=/tmp/w10; mkdir -p $W/train $W/corpus
B=$R/tests/fixtures/ncu-h200-bert
T0=$(date +%s); BUDGET_S=${BUDGET_S:-560}
left() { echo $(( BUDGET_S - ($(date +%s) - T0) )); }
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" | tee -a $OUT/walls.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $OUT/walls.txt
ncu --version >> $OUT/walls.txt 2>&1
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" >> $OUT/walls.txt 2>&1

part_train() {
  cd $B
  # the hooks as --torch-modules writes them, for the plain run with hooks
  mkdir -p $W/hooks && cp $R/capture/src/commands/profile/torch_ranges.py $W/hooks/sitecustomize.py
  wall plain1 python3 bert_train_bf16.py > $W/train/plain1.log 2>&1
  wall hooks1 env PYTHONPATH=$W/hooks python3 bert_train_bf16.py > $W/train/hooks1.log 2>&1
  wall plain2 python3 bert_train_bf16.py > $W/train/plain2.log 2>&1
  wall hooks2 env PYTHONPATH=$W/hooks python3 bert_train_bf16.py > $W/train/hooks2.log 2>&1
  wall truth env TRUTH=$W/train/truth.json python3 bert_train_bf16.py > $W/train/truth.log 2>&1
  rm -f $W/train/truth.json.trace.json
  wall sampled timeout 200 $C profile --nvtx-include step --torch-modules --keep-exports -o $W/train/sampled.json -- python3 bert_train_bf16.py > $W/train/sampled.log 2>&1
  $C table $W/train/sampled.json --by range --format json > $W/train/sampled.range.json 2>> $W/train/sampled.log
  tar czf $OUT/train_a.tgz -C $W train
  if [ "$(left)" -gt 330 ]; then
    wall all timeout $(( $(left) - 20 )) $C profile --all-launches --nvtx-include step --torch-modules --keep-exports -o $W/train/all.json -- python3 bert_train_bf16.py > $W/train/all.log 2>&1
    tar czf $OUT/train_b.tgz -C $W train/all.json train/all.log $(cd $W && ls train/*all*raw* 2>/dev/null)
  fi
}

# the plain step and its torch.profiler phase split, small files only
part_truth() {
  cd $B
  mkdir -p $W/hooks && cp $R/capture/src/commands/profile/torch_ranges.py $W/hooks/sitecustomize.py
  for i in 3 4; do
    wall plain$i python3 bert_train_bf16.py > $W/train/plain$i.log 2>&1
    wall hooks$i env PYTHONPATH=$W/hooks python3 bert_train_bf16.py > $W/train/hooks$i.log 2>&1
  done
  wall truth env TRUTH=$W/train/truth.json python3 bert_train_bf16.py > $W/train/truth.log 2>&1
  rm -f $W/train/truth.json.trace.json
  tar czf $OUT/truth.tgz -C $W train
}

part_truth_corpus() { part_truth; part_corpus; }

# after the backward ranges were made to nest (round 10's second build): the hooks' cost
# over 50 steps, the phase split, a sampled profile with --torch-modules (no reports kept:
# they are too big to come back), then held-out corpus programs while time is left
part_final() {
  cd $B
  mkdir -p $W/hooks && cp $R/capture/src/commands/profile/torch_ranges.py $W/hooks/sitecustomize.py
  for i in 5 6; do
    wall plain$i env REPEAT=50 python3 bert_train_bf16.py > $W/train/plain$i.log 2>&1
    wall hooks$i env REPEAT=50 PYTHONPATH=$W/hooks python3 bert_train_bf16.py > $W/train/hooks$i.log 2>&1
  done
  wall truth2 env TRUTH=$W/train/truth2.json python3 bert_train_bf16.py > $W/train/truth2.log 2>&1
  rm -f $W/train/truth2.json.trace.json
  wall sampled2 timeout 200 $C profile --nvtx-include step --torch-modules -o $W/train/sampled2.json -- python3 bert_train_bf16.py > $W/train/sampled2.log 2>&1
  gzip -9 $W/train/sampled2.json
  tar czf $OUT/final.tgz -C $W train
  PROGRAMS=${PROGRAMS:-resnet18_train} part_corpus
}

part_corpus() {
  for p in ${PROGRAMS:-llama_decode mobilenet_v2 whisper_encoder resnet18_train lstm_fp32 jax_mlp compiled_mlp}; do
    [ "$(left)" -lt 120 ] && { echo "skip $p: $(left) s left" >> $OUT/walls.txt; continue; }
    PER_PROGRAM_S=$(( $(left) / 2 < 150 ? $(left) / 2 : 150 )) wall $p bash $R/tests/corpus/collect.sh $W/corpus $C $p
  done
  tar czf - -C $W corpus | split -b 15m - $OUT/corpus.tgz.
}

part_$1
