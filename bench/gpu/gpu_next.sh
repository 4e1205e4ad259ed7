#!/usr/bin/env bash
# The next lent GPU run: the paper's heavy rows. One command within SECONDS (default 540, <= the device tool's
# 600 s), on a bare GPU host (the library's dependencies and numba-cuda; no [paper] extra):
#   1. warm: every kernel below compiles at once, one process each (bench/gpu/gpu_warm.py --jobs 16): the four heavy
#      rows and the A/B's d = 4 rows, float32 and float64 arithmetic;
#   2. A/B on the heavy shapes, paths reduced so that a timing takes seconds (the strata K and steps N of the row:
#      the grid the kernels see), float32 storage and float32 arithmetic (the campaign's), 45 s at most each:
#        LP0d4 r4 (K = 614 656, N = 50) M = 16 thread, block;  LP1d6_1 r4 (K = 46 656, N = 50) M = 200 block, thread;
#        LP0d11 r3 (K = 4 194 304, N = 20) M = 8 thread;  LP0d4 dt=.05 (K = 83 521, N = 20, M = 400) thread, block
#      -> ab_heavy.jsonl; LP0d4/LP1d4 dt=.05 in both arithmetics -> ab_f32.jsonl, ab_f64.jsonl (the defaults, the
#      series of earlier sessions). PHASES="... old": the same heavy A/B with the kernels of $OLD (default
#      5b0f582) from .old/ (bash bench/gpu/gpu_next.sh --prepare) -> ab_heavy_old.jsonl: a kernel change against them;
#   3. Nsight Compute, source level: SourceCounters + WarpStateStats (+ Occupancy, LaunchStats, SchedulerStats)
#      with the kernels compiled with line information (bench/gpu/gpu_lineinfo.py: lineinfo=True, same code) and
#      --import-source yes, on LP0d4 r4's shape (step_thread) and LP1d6_1 r4's shape (step_block), float32
#      arithmetic: ncu_<row>.ncu-rep (open in Nsight Compute's source view), ncu_<row>_source.csv (per source
#      line: stall samples, L1/L2 sectors), ncu.txt (the sections);
#   2b. like for like (Figure 1's GPU side): the seven rows of config likeforlike, reading theory, float32 storage and
#      float64 arithmetic (the CPU side's), to 4 runs each (2 today) with `srmdp campaign run`, 110 s at most (a run
#      takes 0.005-0.2 s on an H100): chunks in $OUT/like, packed into $OUT/like.tgz (paths data/gpu/campaign/<file>);
#   4. the campaign, with the time left: `srmdp campaign run` in the paper's precision (float32 storage and float32
#      arithmetic, reading paper-fit: chunks named .float32.f32a., the workflow's reading paper-fit-f32a, a run set
#      of its own) on the four paper-fit rows with no run, one run per chunk (heavy rows), cheapest first, each
#      chunk written and packed into $OUT/campaign.tgz as soon as it ends; a row whose run would not end in the
#      time left is not started and is named. Its safety margin is 1.05 (the cost model's held-out error on the
#      heavy runs is <= 27 %; a run cut by the time limit is lost alone).
# Prepare here once (carry .whl: numpy 2.4 for the host's Python 3.12, whose numpy 2.5 breaks numba-cuda 0.30;
# and .old for PHASES with old; both git-ignored):
#   bash bench/gpu/gpu_next.sh --prepare
# Device call (15 min of device time in all, ~1-2 min to start; timeout_s 590, carry [".whl"] (+ ".old")):
#   bash bench/gpu/gpu_next.sh 540
# A second window, campaign only (LP0d4 r4 and LP1d6_1 r4 take ~7 min a run on an H200 in float32 arithmetic):
#   PHASES=campaign bash bench/gpu/gpu_next.sh 540
# Dry run under the simulator (tests/test_gpu_tools.py, tests/test_bare_gpu_host.py):
#   DRY=1 NUMBA_ENABLE_CUDASIM=1 bash bench/gpu/gpu_next.sh 300
#   (tiny cases through the same commands, ncu printed not run, campaign on tiny free cases).
# In $OUT (default /tmp/gpu_next): next.log, like.tgz (like/), ab_heavy.jsonl, ab_f32.jsonl, ab_f64.jsonl (ab_heavy_old.jsonl),
# ncu.txt, ncu_*.ncu-rep, ncu_*_source.csv, campaign.tgz (the chunks), campaign/.
set -u
cd "$(dirname "$0")/../.." || exit 2
OLD=${OLD:-5b0f582}
if [ "${1:-}" = --prepare ]; then
  grep -qx /.old/ .gitignore 2>/dev/null || echo "warning: /.old/ is not in .gitignore"
  rm -rf .old && mkdir -p .old && git archive "$OLD" srmdp bench config pyproject.toml | tar -x -C .old || exit 1
  ls .whl/numpy-2.4.*.whl >/dev/null 2>&1 || python3 -m pip download --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6 || exit 1
  echo "prepared: .old ($OLD, $(du -sh .old | cut -f1)), .whl ($(ls .whl))"
  exit 0
fi
T0=$(date +%s)
TOTAL=${1:-540}
PHASES=${PHASES:-warm like ab ncu campaign}
DRY=${DRY:-0}
export OUT=${OUT:-/tmp/gpu_next}
mkdir -p "$OUT" "$OUT/campaign"
exec > >(tee -a "$OUT/next.log") 2>&1
. bench/gpu/gpu_env.sh || exit 3
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
left() { echo $((TOTAL - ($(date +%s) - T0))); }
el() { echo "[$(($(date +%s) - T0)) s]"; }
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# the paper-fit rows with no run of ours (the heavy rows), and the A/B's heavy shapes: TABLE:DT:ROW PATHS
HEAVY="LP0d4:4,LP1d6_1:4,LP0d6_0:4,LP0d11:3"
# (modes: the one the kernels pick first; LP0d11 r3's 4.2 M strata in block mode at M = 8 would idle its threads)
SHAPES=("LP0d4:0.02:4 16 thread,block" "LP1d6_1:0.02:4 200 block,thread" "LP0d11:0.05:3 8 thread")
WARM="LP0d4:3,LP1d4:3,$HEAVY"
# the like-for-like rows (config/config.yaml likeforlike.rows), TABLE:ROW
LIKE="LP0d4:2,LP0d6_0:2,LP0d6_1:2,LP0d11:1,LP1d4:2,LP1d6_1:2,LP1d11:1"
TINY=()
if [ "$DRY" = 1 ]; then TINY=(--test-points 8) WARM=LP0d4:3; fi
echo "== gpu_next $(hostname) $(date -u) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') phases: $PHASES"
command -v nvidia-smi >/dev/null && [ "$DRY" != 1 ] && nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
$PY -c "import sys, numpy, numba, numba_cuda; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'numba-cuda', numba_cuda.__version__)"

bench() {  # bench TAG ARITHMETIC PATHS -- gpu_bench options (PATHS: --set paths=; a tiny case in DRY)
  local tag=$1 arith=$2 paths=$3; shift 4
  local set=() cap=$(($(left) - 20))
  [ "${CAP:-0}" -gt 0 ] && [ "$CAP" -lt "$cap" ] && cap=$CAP  # one call never eats the whole window
  if [ "$DRY" = 1 ]; then set=(--set dt=0.5,cells=1,paths=24); elif [ "$paths" != - ]; then set=(--set "paths=$paths"); fi
  timeout "$cap" $PY bench/gpu/gpu_bench.py --precision float32 --arithmetic "$arith" \
    --no-write --summary "$OUT/$tag.jsonl" "${TINY[@]}" "${set[@]}" "$@" || echo "bench $tag rc=$?"
}
heavy_ab() {  # heavy_ab TAG: the heavy shapes, float32 arithmetic, 45 s at most each
  for spec in "${SHAPES[@]}"; do
    set -- $spec
    CAP=45 bench "$TAG" float32 "$2" -- --runs 2 --modes "$3" --cases "$1"
  done
  CAP=45 bench "$TAG" float32 - -- --runs 2 --modes thread,block --cases LP0d4:0.05
}

if has warm; then
  echo "== warm: every kernel at once $(el)"
  timeout 170 $PY bench/gpu/gpu_warm.py --cases "$WARM" --arithmetic float32,float64 --jobs 16 || echo "warm rc=$?"
fi
if has like; then  # Figure 1's GPU side: the like-for-like rows (config likeforlike) to 4 runs, >= 3 with a spread
  echo "== like for like: the theory reading, float32 storage, float64 arithmetic, $LIKE to 4 runs $(el)"
  DRYRUN=(); [ "$DRY" = 1 ] && DRYRUN=(--dry-run)  # the simulator would take hours: the plan only
  timeout $(( $(left) < 120 ? $(left) : 120 )) $PY -m srmdp campaign run --budget 110 --reserve 3 --safety 1.3 \
    --out "$OUT/like" --device gpu --precision float32 --readings theory --cases "$LIKE" --first-runs 4 \
    --max-runs 4 --pack "$OUT/like.tgz" "${DRYRUN[@]}" || echo "like rc=$?"
fi
if has ab; then
  echo "== A/B: the heavy shapes, paths reduced, float32 arithmetic, thread and block $(el)"
  TAG=ab_heavy heavy_ab
  for arith in float32 float64; do
    echo "== A/B: LP0d4 and LP1d4 dt=.05, $arith arithmetic, the defaults $(el)"
    bench "ab_f${arith#float}" $arith - -- --runs 2 --modes thread,block --cases LP0d4:0.05
    bench "ab_f${arith#float}" $arith - -- --runs 2 --modes block --cases LP1d4:0.05
  done
fi
if has old; then
  echo "== A/B: the heavy shapes with the kernels of $OLD (.old) $(el)"
  if [ ! -d .old/srmdp ]; then
    echo "no .old/ (bash bench/gpu/gpu_next.sh --prepare, then carry it)"
  else
    (cd .old && PYTHONPATH=$PWD:${PYTHONPATH#*:} OUT=$OUT DRY=$DRY PY=$PY TOTAL=$TOTAL T0=$T0 bash -c '
      left() { echo $((TOTAL - ($(date +%s) - T0))); }
      for spec in "LP0d4:0.02:4 16 thread,block" "LP1d6_1:0.02:4 200 block,thread" "LP0d11:0.05:3 8 thread" \
          "LP0d4:0.05 - thread,block"; do
        set -- $spec
        if [ "$DRY" = 1 ]; then s=(--set dt=0.5,cells=1,paths=24 --test-points 8); elif [ "$2" != - ]; then s=(--set "paths=$2"); else s=(); fi
        cap=$(($(left) - 20)); [ "$cap" -gt 45 ] && cap=45
        b=bench/gpu/gpu_bench.py; [ -f $b ] || b=bench/${b##*/}  # where the tree of $OLD keeps it (before or after bench/gpu/)
        timeout "$cap" $PY $b --precision float32 --arithmetic float32 --no-write \
          --summary "$OUT/ab_heavy_old.jsonl" --runs 2 --modes "$3" --cases "$1" "${s[@]}" || echo "bench old rc=$?"
      done')
  fi
fi
if has ncu; then
  echo "== Nsight Compute, source level (lineinfo): the heavy shapes' step kernels, float32 arithmetic $(el)"
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  SECTIONS=(--section SourceCounters --section WarpStateStats --section SchedulerStats --section Occupancy
            --section LaunchStats --import-source yes)
  # LP0d4 r4's shape in thread mode (K = 614 656: one thread per stratum), LP1d6_1 r4's in block mode
  for spec in "LP0d4_r4 thread step_thread 4 0.02 LP0 28 16" "LP1d6_1_r4 block step_block 6 0.02 LP1 6 200"; do
    set -- $spec
    CMD=(bench/gpu/gpu_lineinfo.py run --d "$4" --dt "$5" --basis "$6" --cells "$7" --paths "$8" --device gpu
         --precision float32 --arithmetic float32 --runs 1 --test-points 10 --no-progress --out "/tmp/ncu_$1.json")
    if [ "$DRY" = 1 ]; then
      CMD=(bench/gpu/gpu_lineinfo.py run --d 2 --dt 0.5 --basis "$6" --cells 2 --paths 24 --device gpu --precision float32
           --arithmetic float32 --runs 1 --test-points 8 --no-progress --out "$OUT/ncu_$1_dry.json")
      SRMDP_CUDA_MODE=$2 $PY "${CMD[@]}" >/dev/null || echo "lineinfo run $1 rc=$?"
      echo "ncu (dry run): SRMDP_CUDA_MODE=$2 ncu ${SECTIONS[*]} -k regex:$3 -s 2 -c 1 -o $OUT/ncu_$1 $PY ${CMD[*]}"
    elif [ -z "$NCU" ]; then
      echo "ncu absent on this host"
    elif [ "$(left)" -gt 200 ]; then
      SRMDP_CUDA_MODE=$2 timeout 120 "$NCU" "${SECTIONS[@]}" -k "regex:$3" -s 2 -c 1 -f -o "$OUT/ncu_$1" \
        $PY "${CMD[@]}" >>"$OUT/ncu.txt" 2>&1 || echo "ncu $1 rc=$?"
      "$NCU" -i "$OUT/ncu_$1.ncu-rep" --page details >>"$OUT/ncu.txt" 2>&1
      "$NCU" -i "$OUT/ncu_$1.ncu-rep" --page source --csv --print-source cuda,sass >"$OUT/ncu_$1_source.csv" 2>&1 \
        || echo "ncu source page $1 rc=$? (open ncu_$1.ncu-rep in Nsight Compute)"
      grep -E "Stall|Warp Cycles|Active Warps|Achieved Occupancy|Registers|Eligible|Threads" "$OUT/ncu.txt" | tail -30
    else
      echo "ncu $1: skipped, $(left) s left"
    fi
  done
fi
if has campaign && [ "$(left)" -gt 60 ]; then
  echo "== campaign: paper-fit in float32 storage and float32 arithmetic, the rows with no run ($HEAVY) $(el)"
  CASES=(--cases "$HEAVY" --first-runs 1 --max-runs 1)
  if [ "$DRY" = 1 ]; then  # tiny free cases, one run each
    printf 'table,row,d,dt,basis,cells,paths\ntiny,1,4,0.5,LP0,1,8\ntiny,2,2,0.5,LP1,1,8\n' > "$OUT/tiny_cases.csv"
    CASES=(--case-list "$OUT/tiny_cases.csv" --first-runs 1 --max-runs 1 --test-points 8)
  fi
  timeout $(($(left) - 5)) $PY -m srmdp campaign run --budget $(($(left) - 15)) --reserve 3 --safety 1.05 \
    --out "$OUT/campaign" --device gpu --precision float32 --arithmetic float32 --readings paper-fit "${CASES[@]}" \
    --pack "$OUT/campaign.tgz" || echo "campaign rc=$?"
  echo "campaign chunks: $(ls "$OUT/campaign" | wc -l)"
fi
echo "== done $(el)"
ls -la "$OUT"
