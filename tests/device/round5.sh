#!/usr/bin/env bash
# Device run of round 5 (H200), with main's capture (target/release/capture carried). Two calls,
# each under the 10-minute limit:
#   bash tests/device/round5.sh a   # BERT-base (12 layers) training step: plain, --all-launches
#   bash tests/device/round5.sh b   # same step: timing pass alone, sampled, --depth roofline;
#                                   # the cost of --source; the suite's kernels with line info
#   bash tests/device/round5.sh c   # sampled and roofline again after the invocation fix
#   bash tests/device/round5.sh d   # the suite with its sources embedded; --depth full's passes
#   bash tests/device/round5.sh e   # sampled again once small groups borrow from their kernel
# Then, here: bash tests/device/sampling.sh report DIR (the comparison of issue 26).
# Results land in $OUT as tarballs; wall times in $OUT/walls.txt.
export RANGE=push # the step as recorded then: a push/pop range (bert_train_bf16.py)
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; W=/tmp/w5; mkdir -p $W/train $W/source; cd $W
B=$R/tests/fixtures/ncu-h200-bert
export LAYERS=12
wall() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; local t1=$(date +%s.%N); echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" | tee -a $OUT/walls.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> $OUT/walls.txt
ncu --version >> $OUT/walls.txt 2>&1
part_a() {
  wall plain python3 $B/bert_train_bf16.py > $W/train/plain.log 2>&1
  wall plain2 python3 $B/bert_train_bf16.py > $W/train/plain2.log 2>&1
  wall all timeout 520 $C profile --all-launches --nvtx-include step/ --keep-exports -o $W/train/all.json -- python3 $B/bert_train_bf16.py > $W/train/all.log 2>&1
  rm -f $W/train/*.ncu-rep
  ls -la $W/train >> $OUT/walls.txt
  tar czf $OUT/train_a.tgz -C $W train
}
part_b() {
  wall plain3 python3 $B/bert_train_bf16.py > $W/train/plain3.log 2>&1
  wall timing timeout 200 ncu -f -o $W/train/timing --metrics gpu__time_duration.sum --cache-control none --clock-control none --nvtx --nvtx-include step/ python3 $B/bert_train_bf16.py > $W/train/timing.log 2>&1
  ncu --import $W/train/timing.ncu-rep --csv --page raw --print-units base > $W/train/timing_raw.csv 2>> $W/train/timing.log
  wall sampled timeout 300 $C profile --nvtx-include step/ --keep-exports -o $W/train/sampled.json -- python3 $B/bert_train_bf16.py > $W/train/sampled.log 2>&1
  wall roofline timeout 200 $C profile --depth roofline --nvtx-include step/ --keep-exports -o $W/train/roofline.json -- python3 $B/bert_train_bf16.py > $W/train/roofline.log 2>&1
  rm -f $W/train/*.ncu-rep
  ls -la $W/train >> $OUT/walls.txt
  tar czf $OUT/train_b.tgz -C $W train
  # The cost of --source: the 2-layer BERT forward, every launch, with and without it.
  unset LAYERS
  wall fwd_plain python3 $B/bert_bf16.py > $W/source/fwd_plain.log 2>&1
  wall fwd_std timeout 150 $C profile --all-launches --nvtx-include forward/ -o $W/source/fwd_std.json -- python3 $B/bert_bf16.py > $W/source/fwd_std.log 2>&1
  wall fwd_source timeout 200 $C profile --all-launches --source --nvtx-include forward/ -o $W/source/fwd_source.json -- python3 $B/bert_bf16.py > $W/source/fwd_source.log 2>&1
  ls -la $W/source >> $OUT/walls.txt; rm -f $W/source/fwd_*.ncu-rep
  # The suite's kernels (NVRTC with -lineinfo) under --set full with source counters.
  wall suite_full timeout 150 ncu -f -o $W/source/suite_full --set full --import-source yes --clock-control none --kernel-name 'regex:^(vector_add|vector_add_stride32|transpose_naive|transpose_tiled|matmul_tiled16|block_reduce)$' $C run --profile-mode --kernels vector_add,vector_add_stride32,transpose_naive,transpose_tiled,matmul_tiled16,block_reduce > $W/source/suite_full.log 2>&1
  ncu --import $W/source/suite_full.ncu-rep --csv --page source --print-source sass > $W/source/suite_source_sass.csv 2>> $W/source/suite_full.log
  ncu --import $W/source/suite_full.ncu-rep --csv --page source --print-source cuda,sass > $W/source/suite_source_cuda_sass.csv 2>> $W/source/suite_full.log
  ncu --import $W/source/suite_full.ncu-rep --csv --page source --print-source cuda > $W/source/suite_source_cuda.csv 2>> $W/source/suite_full.log
  ncu --import $W/source/suite_full.ncu-rep --csv --page details --print-units base --print-rule-details > $W/source/suite_details.csv 2>> $W/source/suite_full.log
  ncu --import $W/source/suite_full.ncu-rep --csv --page raw --print-units base > $W/source/suite_raw.csv 2>> $W/source/suite_full.log
  ls -la $W/source >> $OUT/walls.txt
  find $W/source -name '*.ncu-rep' -o -name '*.csv' | xargs gzip -9
  tar cf $OUT/source.tar -C $W source
}
part_c() {
  # After the fix of ncu's invocation counting (--kernel-name-base mangled): the sampled
  # profile and its roofline depth again, with a plain run beside them.
  wall plain4 python3 $B/bert_train_bf16.py > $W/train/plain4.log 2>&1
  wall sampled2 timeout 300 $C profile --nvtx-include step/ --keep-exports -o $W/train/sampled2.json -- python3 $B/bert_train_bf16.py > $W/train/sampled2.log 2>&1
  wall roofline2 timeout 200 $C profile --depth roofline --nvtx-include step/ --keep-exports -o $W/train/roofline2.json -- python3 $B/bert_train_bf16.py > $W/train/roofline2.log 2>&1
  rm -f $W/train/*.ncu-rep
  tar czf $OUT/train_c.tgz -C $W train
}
part_d() {
  # The suite's kernels again, ncu started in kernels/ so that --import-source finds the
  # files NVRTC compiled (the program names are relative: vector_add.cu, ...) and embeds them;
  # and the pass count of --depth full.
  mkdir -p $W/source2
  (cd $R/kernels && wall suite_src timeout 150 ncu -f -o $W/source2/suite_src --set full --import-source yes --clock-control none --kernel-name 'regex:^(vector_add|vector_add_stride32|transpose_naive|transpose_tiled|matmul_tiled16|block_reduce)$' $C run --profile-mode --kernels vector_add,vector_add_stride32,transpose_naive,transpose_tiled,matmul_tiled16,block_reduce > $W/source2/suite_src.log 2>&1)
  ncu --import $W/source2/suite_src.ncu-rep --csv --page source --print-source cuda,sass > $W/source2/suite_src_cuda_sass.csv 2>> $W/source2/suite_src.log
  ncu --import $W/source2/suite_src.ncu-rep --csv --page source --print-source sass > $W/source2/suite_src_sass.csv 2>> $W/source2/suite_src.log
  wall depth_full timeout 150 $C profile --depth full --all-launches --keep-exports -o $W/source2/depth_full.json -- $C run --profile-mode --kernels vector_add,vector_add_stride32 > $W/source2/depth_full.log 2>&1
  rm -f $W/source2/depth_full*.ncu-rep
  ls -la $W/source2 >> $OUT/walls.txt
  find $W/source2 -name '*.ncu-rep' -o -name '*.csv' | xargs gzip -9
  tar cf $OUT/source2.tar -C $W source2
}
part_e() {
  # After small groups borrow from their kernel (PlanOptions::minor_share): sampled again.
  wall plain5 python3 $B/bert_train_bf16.py > $W/train/plain5.log 2>&1
  wall plain6 python3 $B/bert_train_bf16.py > $W/train/plain6.log 2>&1
  wall sampled3 timeout 300 $C profile --nvtx-include step/ --keep-exports -o $W/train/sampled3.json -- python3 $B/bert_train_bf16.py > $W/train/sampled3.log 2>&1
  rm -f $W/train/*.ncu-rep
  tar czf $OUT/train_e.tgz -C $W train
}
"part_$1"
cat $OUT/walls.txt; ls -la $OUT
