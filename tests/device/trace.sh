#!/usr/bin/env bash
# Device run of issue 46 (capture trace), one call. Carry target/release/capture.gz and
# target/release/libroofline_inject.so.gz from `bash tests/device/pack.sh`.
#   bash tests/device/trace.sh
# Parts, each skipped when the clock (BUDGET_S, default 540) would not let it finish:
#   facts     CUDA, CUPTI, ncu, torch versions; ncu's export options (.ncu-repz?)
#   seed      the seed's example (fused x2, scale, add), raw records kept
#   cost      plain run against capture trace, alternating, RUNS times each (default 3), on
#             many_launches (20,000 launches), gpt2_fwd and bert_train_step; walls.txt
#   truth     ncu's duration pass (serialized replay) of gpt2_fwd against its trace;
#             torch.profiler's kernel time of the BERT step
#   planted   tests/planted/planted.py base and VARIANT=copy traced, then diff --gate-work
#   killed    a program killed by SIGKILL mid-run keeps what was flushed
#   heldout   traces of corpus programs never used while building (fixtures)
# Everything lands in $OUT/trace.tgz, the log in $OUT/trace.log.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
[ -x target/release/capture ] || bash tests/device/pack.sh unpack
R=$PWD; C=$R/target/release/capture; W=/tmp/wt; mkdir -p $W
T0=$(date +%s); BUDGET_S=${BUDGET_S:-540}
left() { echo $(( BUDGET_S - ($(date +%s) - T0) )); }
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" >> $W/walls.txt; }
P=$R/tests/trace/programs

part_facts() {
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    ncu --version; ncu --help | grep -i -E "repz|compress|zstd|export"
    ls -d /usr/local/cuda*; find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head
    python3 -c "import torch,cupy,transformers;print('torch',torch.__version__,torch.version.cuda,'cupy',cupy.__version__,'transformers',transformers.__version__)"
  } > $W/facts.txt 2>&1
}

part_seed() {
  mkdir -p $W/seed_records
  (cd $P && wall seed_trace $C trace --records $W/seed_records -o $W/seed.json -- python3 seed_example.py) > $W/seed.log 2>&1
  $C table $W/seed.json >> $W/seed.log 2>&1
  $C table --by range $W/seed.json >> $W/seed.log 2>&1
}

part_cost() {
  cd $P
  for p in many_launches gpt2_fwd bert_train_step; do
    for i in $(seq 1 ${RUNS:-3}); do
      [ "$(left)" -lt 200 ] && { echo "skip cost $p $i: $(left) s left" >> $W/walls.txt; break; }
      wall ${p}_plain python3 $p.py > $W/${p}_plain$i.log 2>&1
      wall ${p}_trace $C trace -o $W/${p}_trace$i.json -- python3 $p.py > $W/${p}_trace$i.log 2>&1
    done
  done
  cd $R
}

part_truth() {
  cd $P
  [ "${NCU:-1}" = 1 ] && [ "$(left)" -gt 150 ] && STEPS=2 wall gpt2_ncu_timing timeout 150 ncu --metrics gpu__time_duration.sum --csv --page raw --print-units base -f -o $W/gpt2_timing python3 gpt2_fwd.py > $W/gpt2_ncu.log 2>&1
  [ -f $W/gpt2_timing.ncu-rep ] && ncu --import $W/gpt2_timing.ncu-rep --csv --page raw --print-units base | gzip -9 > $W/gpt2_timing_raw.csv.gz
  STEPS=2 wall gpt2_trace_steps2 $C trace -o $W/gpt2_steps2.json -- python3 gpt2_fwd.py > $W/gpt2_steps2.log 2>&1
  [ "$(left)" -gt 60 ] && TORCH_PROF=1 wall bert_torch_prof python3 bert_train_step.py > $W/bert_torch_prof.log 2>&1
  cd $R
}

part_planted() {
  cd $R/tests/planted
  wall planted_base $C trace -o $W/planted_base.json -- python3 planted.py > $W/planted.log 2>&1
  VARIANT=copy wall planted_copy $C trace -o $W/planted_copy.json -- python3 planted.py >> $W/planted.log 2>&1
  $C diff --gate-work 1 $W/planted_base.json $W/planted_copy.json >> $W/planted.log 2>&1; echo "diff rc=$?" >> $W/planted.log
  wall planted_base2 $C trace -o $W/planted_base2.json -- python3 planted.py >> $W/planted.log 2>&1
  $C diff --gate-work 1 $W/planted_base.json $W/planted_base2.json >> $W/planted.log 2>&1; echo "same-code diff rc=$?" >> $W/planted.log
  cd $R
}

part_killed() {
  cd $P
  # The program killed by SIGKILL after 8 s, under a capture that lives on to read it.
  LAUNCHES=5000000 wall killed_child $C trace -o $W/killed_child.json -- timeout -s KILL 8 python3 many_launches.py > $W/killed.log 2>&1
  $C table $W/killed_child.json 2>&1 | head -20 >> $W/killed.log
  cd $R
}

part_heldout() {
  cd $R/tests/corpus/programs
  for p in ${HELDOUT:-llama_decode whisper_encoder t5_encoder}; do
    [ "$(left)" -lt 40 ] && { echo "skip heldout $p: $(left) s left" >> $W/walls.txt; continue; }
    wall heldout_$p timeout 60 $C trace --torch-modules -o $W/heldout_$p.json -- python3 $p.py > $W/heldout_$p.log 2>&1
  done
  cd $R
}

for part in ${PARTS:-facts seed cost truth planted killed heldout}; do
  [ "$(left)" -lt 20 ] && { echo "skip $part: $(left) s left" >> $W/walls.txt; continue; }
  part_$part
done
find $W -name '*.json' -size +1k -exec gzip -9 -f {} +
rm -f $W/*.ncu-rep
cat $W/walls.txt $W/facts.txt $W/seed.log $W/planted.log > $OUT/trace.log 2>&1
tar czf $OUT/trace.tgz -C /tmp wt
ls -la $OUT
