#!/usr/bin/env bash
# Device run of 2026-12-01 (H200): capture profile on third-party programs with the tensor
# counters, the profile outcomes (issue 14) against the real ncu, and reports for the
# .ncu-rep reader. Run from the repository root on the GPU machine with target/release/capture
# carried; everything it keeps lands in $OUT.
set -x
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
R=$PWD; C=$R/target/release/capture; G=$R/tests/fixtures/ncu-h200-gemms/gemms.py
W=/tmp/w; mkdir -p $W $OUT/gemms $OUT/gpt2; cd $W
$C profile --keep-exports -o $OUT/gemms/gemms_profile.json -- python3 $G; echo "rc gemms=$?"
$C profile -o $W/nvtx.json --nvtx-include gemm_bf16/ -- python3 $G bf16 fp16; echo "rc nvtx=$?"
$C table $W/nvtx.json > $OUT/nvtx_table.txt 2>&1
{ $C profile -o $W/a.json -- /nonexistent/prog; echo "rc missing=$?"
  $C profile -o $W/b.json -- python3 -c "import sys; sys.exit(3)"; echo "rc exit3-nolaunch=$?"
  $C profile -o $W/c.json -- python3 -c "print('no kernels')"; echo "rc nokernel=$?"
  $C profile -o $W/d.json -- python3 -c "import torch,sys; x=torch.ones(1<<20,device='cuda'); y=x*2; torch.cuda.synchronize(); sys.exit(3)"; echo "rc exit3-after-launch=$? written=$(test -f $W/d.json && echo yes || echo no)"
  $C profile -o $W/e.json --kernel-name nosuchkernel -- python3 $G bf16; echo "rc nomatch=$?"
} > $OUT/outcomes.txt 2>&1
cp $R/tests/fixtures/ncu-h200-torch/gpt2_bf16.py $W/
$C profile --keep-exports -o $OUT/gpt2/gpt2_bf16.json -- python3 $W/gpt2_bf16.py; echo "rc gpt2=$?"
cat > $W/two.py <<'PY'
import subprocess, sys
import cupy as cp
x = cp.ones(1 << 20, dtype=cp.float32); y = x * 2; cp.cuda.runtime.deviceSynchronize()
if len(sys.argv) == 1:
    subprocess.run([sys.executable, __file__, "child"], check=True)
print("done", sys.argv[1:])
PY
ncu -f -o $W/two_process --target-processes all --clock-control none --set basic python3 $W/two.py > $W/two.log 2>&1; echo "rc two=$?"
ncu --import $W/two_process.ncu-rep --csv --page raw --print-units base > $W/two_process_raw.csv
ncu -f -o $W/gemms_basic --profile-from-start off --clock-control none --set basic python3 $G > /dev/null 2>&1; echo "rc basic=$?"
ncu --import $W/gemms_basic.ncu-rep --csv --page raw --print-units base > $W/gemms_basic_raw.csv
ls -la $W $OUT/gemms $OUT/gpt2
tar czf $OUT/reports.tgz -C $W two_process.ncu-rep two_process_raw.csv two.log gemms_basic.ncu-rep gemms_basic_raw.csv
cd $OUT; tar czf gemms.tgz gemms; tar czf gpt2.tgz gpt2; rm -rf gemms gpt2; ls -la $OUT
