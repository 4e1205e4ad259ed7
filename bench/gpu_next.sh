#!/usr/bin/env bash
# The next lent GPU run (issue 24: float32 arithmetic), one command within SECONDS (<= the device tool's 600 s):
#   1. warm: every kernel below compiles at once in separate processes (bench/gpu_warm.py), both arithmetics,
#      the two A/B variants of float32 (SRMDP_CUDA_MIN_BLOCKS=0, SRMDP_CUDA_PAD_ROWS=0) in the background;
#   2. A/B on the same GPU of this tree's defaults against each of its changes, LP0d4 dt=.05 thread+block and
#      LP1d4 dt=.05 block (+ LP1 d=19: LP1d15_19 row 5 with M = 400, the rate only, in both arithmetics):
#        ab_f32      float32 arithmetic, the defaults (launch bounds: <= 64 registers, 50 % occupancy; padded rows)
#        ab_f32_mb0  float32, SRMDP_CUDA_MIN_BLOCKS=0 (no launch bounds: what the H200 measured as "float32")
#        ab_f32_pack float32, SRMDP_CUDA_PAD_ROWS=0 (launch bounds, shared rows packed: the H200's "MIN_BLOCKS=8")
#        ab_f64      float64 arithmetic, the defaults (no launch bounds; padded rows)
#        ab_f64_pack float64, SRMDP_CUDA_PAD_ROWS=0 (= the float64 kernels the H200 measured: a baseline across GPUs)
#      (PHASES="... old": also the pre-redesign kernels, bc35092^ in .old/, float64 arithmetic);
#   3. Nsight Compute (ncu, when the host has it) stall reasons of the two d=4 step kernels in float32 arithmetic
#      (the defaults): step_thread of LP0d4 and step_block of LP1d4 (ncu.txt);
#   4. the campaign in the paper's precision (float32 storage and arithmetic, reading theory, as the H200's two
#      chunks): `srmdp campaign run --arithmetic float32` on the rows below 2 runs, with what is left of SECONDS:
#      its planner (srmdp/paper/campaign.py) counts the chunks of data/gpu/, gives every row its first 2 runs in
#      order, as far as they fit, then more runs where the s.e. is largest; chunks (named .float32.f32a.) in
#      $OUT/campaign/, re-packed into $OUT/campaign.tgz after each one (a chunk cut by the time limit is the
#      only loss); a float32-arithmetic chunk never pools with a float64 one (another case_hash).
# Prepare here once (carry .whl, and .old for PHASES with old; both git-ignored):
#   bash bench/gpu_next.sh --prepare
# Device call (15 min of device time in all, ~1 min to start: 360 s leaves room for one rerun;
# timeout_s 420, carry [".whl"]; add ".old" for PHASES with old):
#   bash bench/gpu_next.sh 360           (PHASES="warm ab ncu campaign" by default; a rerun or a second call:
#                                         PHASES=campaign bash bench/gpu_next.sh 240 for more campaign)
# Dry run under the simulator (tests/test_gpu_tools.py): DRY=1 NUMBA_ENABLE_CUDASIM=1 bash bench/gpu_next.sh 300
#   (tiny cases through the same commands, old tree only checked to import, ncu printed not run, campaign on
#   tiny free cases).
# In $OUT (default /tmp/gpu_next): next.log, ab_f32.jsonl, ab_f32_mb0.jsonl, ab_f32_pack.jsonl, ab_f64.jsonl,
# ab_f64_pack.jsonl (ab_old.jsonl), ncu.txt, campaign.tgz (the chunks), campaign.log.
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
TOTAL=${1:-360}
PHASES=${PHASES:-warm ab ncu campaign}
DRY=${DRY:-0}
export OUT=${OUT:-/tmp/gpu_next}
mkdir -p "$OUT" "$OUT/campaign"
exec > >(tee -a "$OUT/next.log") 2>&1
. bench/gpu_env.sh || exit 3
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
left() { echo $((TOTAL - ($(date +%s) - T0))); }
el() { echo "[$(($(date +%s) - T0)) s]"; }
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# the rows below 2 paper-fit runs after the 15455c8 campaign (../shared/gpu/README.md)
ROWS="LP1d15_19:4 LP1d15_19:5 LP0d11:3 LP0d6_0:4 LP1d6_1:4 LP0d4:4"
TINY=()
WARM="LP0d4:3,LP1d4:3,LP1d15_19:5,${ROWS// /,}"
if [ "$DRY" = 1 ]; then TINY=(--set dt=0.5,cells=1,paths=24 --test-points 8) WARM=LP0d4:3; fi  # paths >= nb = 20 of LP1 d=19
echo "== gpu_next $(hostname) $(date -u) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') phases: $PHASES"
command -v nvidia-smi >/dev/null && [ "$DRY" != 1 ] && nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
$PY -c "import sys, numpy, numba, numba_cuda; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'numba-cuda', numba_cuda.__version__)"

bench() {  # bench TAG ARITHMETIC [env...] -- gpu_bench options
  local tag=$1 arith=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" timeout $(($(left) - 20)) $PY bench/gpu_bench.py --precision float32 --arithmetic "$arith" \
    --no-write --summary "$OUT/$tag.jsonl" "${TINY[@]}" "$@" || echo "bench $tag rc=$?"
}
d19() {  # the LP1 d=19 rate case
  if [ "$DRY" = 1 ]; then echo --cases LP1d15_19:0.2:5; else echo --cases LP1d15_19:0.2:5 --set paths=400; fi
}

if has warm; then
  echo "== warm $(el)"
  D4=LP0d4:3,LP0d4:4,LP1d4:3  # the A/B's d = 4 kernels (LP0 row 4: thread mode on 132 SMs, row 3: block)
  if [ "$DRY" = 1 ]; then D4=LP0d4:3; fi
  SRMDP_CUDA_MIN_BLOCKS=0 timeout 150 $PY bench/gpu_warm.py --cases "$D4" --arithmetic float32 >"$OUT/warm_mb0.log" 2>&1 &
  W1=$!
  SRMDP_CUDA_PAD_ROWS=0 timeout 150 $PY bench/gpu_warm.py --cases "$D4" --arithmetic float64,float32 \
    >"$OUT/warm_pack.log" 2>&1 &
  W2=$!
  timeout 170 $PY bench/gpu_warm.py --cases "$WARM" --arithmetic float64,float32
  wait $W1 $W2
  cat "$OUT/warm_mb0.log" "$OUT/warm_pack.log"
fi
if has ab; then
  d4() {  # d4 TAG ARITHMETIC [env...]: the d = 4 rows of the A/B
    bench "$@" -- --runs 2 --modes thread,block --cases LP0d4:0.05
    bench "$@" -- --runs 2 --modes block --cases LP1d4:0.05
  }
  for arith in float32 float64; do
    tag=ab_f${arith#float}
    echo "== A/B: $arith arithmetic, the defaults $(el)"
    d4 "$tag" $arith
    # shellcheck disable=SC2046
    bench "$tag" $arith -- --runs 1 --modes block $(d19)
    if [ $arith = float32 ]; then
      echo "== A/B: float32 arithmetic, SRMDP_CUDA_MIN_BLOCKS=0 (no launch bounds) $(el)"
      d4 ab_f32_mb0 float32 SRMDP_CUDA_MIN_BLOCKS=0
    fi
    echo "== A/B: $arith arithmetic, SRMDP_CUDA_PAD_ROWS=0 (packed shared rows) $(el)"
    d4 "${tag}_pack" $arith SRMDP_CUDA_PAD_ROWS=0
  done
fi
if has old; then
  echo "== A/B: old kernels (bc35092^, float64 arithmetic) $(el)"
  if [ ! -d .old/srmdp ]; then
    echo "no .old/ (bash bench/gpu_next.sh --prepare, then carry it)"
  elif [ "$DRY" = 1 ]; then
    (cd .old && PYTHONPATH=$PWD:${PYTHONPATH#*:} $PY bench/gpu_bench.py --help >/dev/null && echo "old tree imports")
  else
    (cd .old && PYTHONPATH=$PWD:${PYTHONPATH#*:} timeout 150 $PY bench/gpu_bench.py --precision float32 --runs 2 \
      --modes thread,block --no-write --summary "$OUT/ab_old.jsonl" --cases LP0d4:0.05,LP1d4:0.05)
    # (the old gpu_bench.py has no --set: no LP1 d=19 rate case of the old kernels)
  fi
fi
if has ncu; then
  echo "== Nsight Compute: stall reasons of the d=4 step kernels, float32 arithmetic (the defaults) $(el)"
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  SECTIONS=(--section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats
            --section ComputeWorkloadAnalysis)
  for spec in "LP0d4 thread step_thread" "LP1d4 block step_block"; do
    set -- $spec
    CMD=(-m srmdp run --table "$1" --dt 0.05 --device gpu --precision float32 --arithmetic float32 --runs 1
         --test-points 10 --no-progress --out "/tmp/ncu_$1.json")
    if [ "$DRY" = 1 ] || [ -z "$NCU" ]; then
      echo "ncu ${NCU:-absent}: SRMDP_CUDA_MODE=$2 ncu ${SECTIONS[*]} -k regex:$3 -s 2 -c 1 $PY ${CMD[*]}"
    elif [ "$(left)" -gt 120 ]; then
      SRMDP_CUDA_MODE=$2 timeout 100 "$NCU" "${SECTIONS[@]}" -k "regex:$3" -s 2 -c 1 $PY "${CMD[@]}" \
        >>"$OUT/ncu.txt" 2>&1 || echo "ncu $1 rc=$?"
      grep -E "Stall|Warp Cycles|Active Warps|Achieved Occupancy|Registers|Eligible" "$OUT/ncu.txt" | tail -40
    fi
  done
fi
if has campaign && [ "$(left)" -gt 60 ]; then
  echo "== campaign, float32 storage and arithmetic, reading theory: $ROWS $(el)"
  CASES=(--cases "${ROWS// /,}")
  if [ "$DRY" = 1 ]; then  # tiny free cases, 2 runs each at most
    printf 'table,row,d,dt,basis,cells,paths\ntiny,1,4,0.5,LP0,1,8\ntiny,2,2,0.5,LP1,1,8\n' > "$OUT/tiny_cases.csv"
    CASES=(--case-list "$OUT/tiny_cases.csv" --max-runs 2 --test-points 8)
  fi
  timeout $(($(left) - 10)) $PY -m srmdp campaign run --budget $(($(left) - 25)) --out "$OUT/campaign" \
    --device gpu --precision float32 --arithmetic float32 --readings theory "${CASES[@]}" \
    --pack "$OUT/campaign.tgz" || echo "campaign rc=$?"
  echo "campaign chunks: $(ls "$OUT/campaign" | wc -l)"
fi
echo "== done $(el)"
ls -la "$OUT"
