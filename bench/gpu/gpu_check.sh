#!/usr/bin/env bash
# The real-GPU checks, in two stages that each fit one `device` call.
#   bash bench/gpu/gpu_check.sh 1   # versions, GPU test suite (no simulator), CPU-vs-GPU agreement,
#                               # timings of the cheap paper rows (float32)
#   bash bench/gpu/gpu_check.sh 2   # timings of the large paper rows (float32), within a time budget
# Results: data/gpu/*.json (srmdp run result JSONs) + data/gpu/bench_stage<N>.jsonl, packed with the
# logs into $OUT/stage<N>.tgz (the device tool returns at most 8 files).
# The device image's numpy 2.5 breaks numba-cuda 0.30's import; fetch numpy 2.4 once here and carry .whl:
#   echo /.whl/ >> .git/info/exclude; python3 -m pip download --no-deps --only-binary=:all: \
#     --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6
set -u
STAGE=${1:-1}
BUDGET=${2:-}
export PYTHONUNBUFFERED=1 NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
unset NUMBA_ENABLE_CUDASIM
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT" data/gpu
cd "$(dirname "$0")/../.."
. bench/gpu/gpu_env.sh  # PY, and the carried numpy 2.4 wheel first on the path
T0=$(date +%s)
LOG="$OUT/stage$STAGE.log"
exec > >(tee "$LOG") 2>&1
echo "== stage $STAGE on $(hostname) $(date -u)"
nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,clocks.sm,clocks.max.sm --format=csv
$PY -c "import sys, numpy, numba, numba_cuda; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'numba-cuda', numba_cuda.__version__)"
$PY - <<'PY'
from numba import cuda
d = cuda.get_current_device()
print("device", d.name, "cc", d.compute_capability, "SMs", d.MULTIPROCESSOR_COUNT, "mem free/total GiB",
      [round(v / 2**30, 1) for v in cuda.current_context().get_memory_info()])
PY
SUMMARY=data/gpu/bench_stage$STAGE.jsonl
rm -f "$SUMMARY"
left() { echo $(( ${BUDGET:-$1} - ($(date +%s) - T0) )); }

if [ "$STAGE" = 1 ]; then
  BUDGET=${BUDGET:-270}
  echo "== GPU test suite (real GPU, no simulator)"
  timeout 100 $PY -m pytest -q -p no:cacheprovider tests/test_cuda_sim.py -rs 2>&1 | tail -25
  echo "== CPU vs GPU agreement (float64, paper rows)"
  timeout 50 $PY bench/gpu/gpu_bench.py --precision float64 --compare-cpu --no-write --summary "$SUMMARY" \
      --cases LP0d4:0.2,LP0d4:0.1,LP1d4:0.2,LP1d6:0.2,LP0d6_0:0.1 --test-points 1000
  echo "== launch modes (float32)"
  $PY bench/gpu/gpu_bench.py --precision float32 --modes thread,block --no-write --summary "$SUMMARY" \
      --cases LP0d4:0.05,LP0d6_1:0.1 --budget 30
  echo "== cheap paper rows (float32), $(left 0) s left"
  $PY bench/gpu/gpu_bench.py --precision float32 --summary "$SUMMARY" --budget "$(( $(left 0) - 15 ))" --pack "$OUT/stage1.tgz" \
      --cases LP0d4:0.2,LP0d4:0.1,LP0d4:0.05,LP0d6_0:0.2,LP0d6_0:0.1,LP0d6_0:0.05,LP0d6_1:0.2,LP0d6_1:0.1,LP0d11:0.2,LP0d11:0.1,LP1d4:0.2,LP1d4:0.1,LP1d4:0.05,LP1d6:0.2,LP1d6:0.1,LP1d6:0.05,LP1d11:0.2:1,LP1d12:0.2:1,LP1d13:0.2:1,LP1d13:0.2:2,LP1d14:0.2:1,LP1d14:0.2:2,LP1d15_19:0.2:1,LP0d6_1:0.05
else
  BUDGET=${BUDGET:-380}
  echo "== large paper rows (float32), budget $(left 0) s"
  $PY bench/gpu/gpu_bench.py --precision float32 --summary "$SUMMARY" --budget "$(( $(left 0) - 10 ))" --pack "$OUT/stage2.tgz" \
      --cases LP0d4:0.05,LP0d4:0.02,LP1d15_19:0.2:2,LP1d15_19:0.2:3,LP1d15_19:0.2:4,LP1d15_19:0.2:5,LP1d11:0.2:2,LP1d12:0.2:2,LP1d4:0.05,LP1d4:0.02,LP0d6_0:0.02,LP0d11:0.05,LP1d6:0.02
fi
echo "== done in $(( $(date +%s) - T0 )) s"
tar czf "$OUT/stage$STAGE.tgz" data/gpu/*.json data/gpu/*.jsonl 2>/dev/null
ls -la "$OUT"
