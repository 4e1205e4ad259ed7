#!/usr/bin/env bash
# The next lent GPU run (issue 18), one command within SECONDS (<= the device tool's 600 s per call):
#   1. warm: every kernel below compiles at once in separate processes (bench/gpu_warm.py);
#   2. A/B on the same GPU: the new kernels (this tree; also with launch bounds SRMDP_CUDA_MIN_BLOCKS=4 and 8)
#      against the pre-redesign kernels (bc35092^ in .old/), LP0d4 dt=.05 thread+block and LP1d4 dt=.05 block;
#   3. gpu_bench.py on LP0d4, LP1d4 (paper rows) and LP1 d=19 (LP1d15_19 row 5 with M = 400: the rate only);
#   4. the campaign of the paper-fit rows still below 2 runs, with what is left of SECONDS.
# Prepare here once (carry .whl and .old; both git-ignored):
#   bash bench/gpu_next.sh --prepare
# Device call (timeout_s 600, carry [".whl", ".old"]):
#   bash bench/gpu_next.sh 560            (PHASES="ab bench campaign" by default; a second call can run
#                                          PHASES=campaign bash bench/gpu_next.sh 240 for more campaign)
# Dry run under the simulator (tests/test_gpu_tools.py): DRY=1 NUMBA_ENABLE_CUDASIM=1 bash bench/gpu_next.sh 300
#   (tiny cases through the same commands, old tree only checked to import, campaign --check-only).
# In $OUT (default /tmp/gpu_next): next.log, ab_new*.jsonl, ab_old.jsonl, bench.jsonl, campaign.tgz, campaign.log.
# Back here: python -m srmdp campaign import <files_at>/campaign.tgz; copy the jsonl/log to data/gpu/.
set -u
cd "$(dirname "$0")/.." || exit 2
if [ "${1:-}" = --prepare ]; then
  grep -qx /.old/ .gitignore 2>/dev/null || echo "warning: /.old/ is not in .gitignore"
  rm -rf .old && mkdir -p .old && git archive bc35092^ srmdp bench config | tar -x -C .old || exit 1
  ls .whl/numpy-2.4.*.whl >/dev/null 2>&1 || python3 -m pip download --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6 || exit 1
  echo "prepared: .old ($(du -sh .old | cut -f1)), .whl ($(ls .whl))"
  exit 0
fi
T0=$(date +%s)
TOTAL=${1:-560}
PHASES=${PHASES:-ab bench campaign}
DRY=${DRY:-0}
export OUT=${OUT:-/tmp/gpu_next}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/next.log") 2>&1
. bench/gpu_env.sh
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
left() { echo $((TOTAL - ($(date +%s) - T0))); }
el() { echo "[$(($(date +%s) - T0)) s]"; }
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# the rows below 2 paper-fit runs after the 15455c8 campaign (../shared/gpu/README.md)
ROWS=LP0d4:4,LP0d6_0:4,LP0d11:3,LP1d6_1:4,LP1d15_19:4,LP1d15_19:5
TINY=()
WARM="LP0d4:3,LP1d4:3,LP1d15_19:5,$ROWS"
if [ "$DRY" = 1 ]; then TINY=(--set dt=0.5,cells=1,paths=24 --test-points 8) WARM=LP0d4:3; fi  # paths >= nb = 20 of LP1 d=19
echo "== gpu_next $(hostname) $(date -u) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') phases: $PHASES"
command -v nvidia-smi >/dev/null && [ "$DRY" != 1 ] && nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
$PY -c "import sys, numpy, numba, numba_cuda; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'numba-cuda', numba_cuda.__version__)"

bench() {  # bench TAG [env...] -- gpu_bench options
  local tag=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" timeout $(($(left) - 20)) $PY bench/gpu_bench.py --precision float32 --no-write \
    --summary "$OUT/$tag.jsonl" "${TINY[@]}" "$@" || echo "bench $tag rc=$?"
}

if has ab || has bench; then
  echo "== warm $(el)"
  W=()
  for mb in 4 8; do  # the launch-bound variants compile in the background while the warm-up runs
    SRMDP_CUDA_MIN_BLOCKS=$mb timeout 150 $PY bench/gpu_warm.py --cases "${WARM%%,LP1d15*}" >"$OUT/warm_mb$mb.log" 2>&1 &
    W+=($!)
  done
  timeout 150 $PY bench/gpu_warm.py --cases "$WARM"
  wait "${W[@]}"
  cat "$OUT"/warm_mb*.log
fi
if has ab; then
  echo "== A/B: new kernels $(el)"
  bench ab_new -- --runs 2 --modes thread,block --cases LP0d4:0.05
  bench ab_new -- --runs 2 --modes block --cases LP1d4:0.05
  for mb in 4 8; do
    echo "== A/B: new kernels, SRMDP_CUDA_MIN_BLOCKS=$mb $(el)"
    bench "ab_new_mb$mb" SRMDP_CUDA_MIN_BLOCKS=$mb -- --runs 2 --modes thread,block --cases LP0d4:0.05
    bench "ab_new_mb$mb" SRMDP_CUDA_MIN_BLOCKS=$mb -- --runs 2 --modes block --cases LP1d4:0.05
  done
  echo "== A/B: old kernels (bc35092^) $(el)"
  if [ ! -d .old/srmdp ]; then
    echo "no .old/ (bash bench/gpu_next.sh --prepare, then carry it)"
  elif [ "$DRY" = 1 ]; then
    (cd .old && PYTHONPATH=$PWD:${PYTHONPATH#*:} $PY bench/gpu_bench.py --help >/dev/null && echo "old tree imports")
  else
    (cd .old && PYTHONPATH=$PWD:${PYTHONPATH#*:} timeout 150 $PY bench/gpu_bench.py --precision float32 --runs 2 \
      --modes thread,block --no-write --summary "$OUT/ab_old.jsonl" --cases LP0d4:0.05,LP1d4:0.05)
  fi
fi
if has bench; then
  echo "== gpu_bench LP0d4, LP1d4, LP1 d=19 $(el)"
  bench bench -- --cases LP0d4:0.05,LP1d4:0.05
  if [ "$DRY" = 1 ]; then
    bench bench -- --cases LP1d15_19:0.2:5
  else
    bench bench -- --cases LP1d15_19:0.2:5 --set paths=400
  fi
fi
if has campaign; then
  LEFT=$(($(left) - 10))
  echo "== campaign $ROWS, $LEFT s $(el)"
  if [ "$DRY" = 1 ]; then
    $PY -m srmdp.paper.campaign run --budget "$LEFT" --out /tmp/gpu_next_campaign --cases "$ROWS" --check-only \
      && echo "campaign arguments checked"
  elif [ "$LEFT" -gt 40 ]; then
    bash bench/gpu_campaign.sh "$LEFT" /tmp/gpu_next_campaign --cases "$ROWS"
    echo "campaign rc=$?"
  fi
fi
echo "== done $(el)"
ls -la "$OUT"
