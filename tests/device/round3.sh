#!/usr/bin/env bash
# Device run of 2026-12-01 (H200), round 3: the samples re-captured with the tensor ceilings
# and the warp-state counters (capture run --cache both --keep-exports; capture profile of
# the GPT-2 bf16 program), and a ResNet-18 `--set full` export for the latency fixtures.
# Run from the repository root with target/release/capture carried; results land in $OUT.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; W=/tmp/w3; mkdir -p $W/samples $W/torch; cd $W
timeout 240 $C run --cache both --keep-exports -o $W/samples/h200.json > $OUT/run.log 2>&1; echo "rc run=$?" >> $OUT/run.log
timeout 200 $C profile --keep-exports -o $W/samples/h200-gpt2-bf16.json -- python3 $R/tests/fixtures/ncu-h200-torch/gpt2_bf16.py > $OUT/gpt2.log 2>&1; echo "rc gpt2=$?" >> $OUT/gpt2.log
timeout 150 ncu -f -o $W/torch/resnet18_full --profile-from-start off -c 16 --clock-control none --set full python3 $R/tests/fixtures/ncu-h200-torch/resnet18.py > $OUT/resnet.log 2>&1; echo "rc resnet=$?" >> $OUT/resnet.log
ncu --import $W/torch/resnet18_full.ncu-rep --csv --page raw --print-units base > $W/torch/resnet18_full_raw.csv 2>> $OUT/resnet.log
rm -f $W/samples/*.ncu-rep $W/torch/*.ncu-rep
ls -la $W/samples $W/torch
tar czf $OUT/samples.tgz -C $W samples; tar czf $OUT/torch.tgz -C $W torch; ls -la $OUT
