#!/usr/bin/env bash
# The resumable GPU campaign: run the next run chunks of the paper's rows within SECONDS.
#   bash bench/gpu/gpu_campaign.sh SECONDS OUTDIR [options of `python -m srmdp.paper.campaign run`]
# SECONDS counts from this script's start (environment set-up and the parallel kernel warm-up of
# bench/gpu/gpu_warm.py included, SRMDP_WARM=0 skips it); OUTDIR receives one sealed
# chunk file per finished chunk (data/gpu/campaign/ layout, see srmdp/paper/campaign/planner.py for the priority order).
# On the device machine ($OUT set) the chunks also go, re-packed after every chunk, to $OUT/campaign.tgz
# (paths data/gpu/campaign/<file>) with the log $OUT/campaign.log: the device tool returns at most 8 files.
#   device call:  bash bench/gpu/gpu_campaign.sh 480 /tmp/campaign      (carry .whl, timeout_s >= SECONDS + 60)
#   back here:    python -m srmdp campaign import <files_at>/campaign.tgz   # verified, then git add data/gpu/campaign
# The device image's numpy 2.5 breaks numba-cuda 0.30's import; fetch numpy 2.4 once here and carry .whl
# (as bench/gpu/gpu_check.sh):
#   echo /.whl/ >> .git/info/exclude; python3 -m pip download --no-deps --only-binary=:all: \
#     --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6
set -u
set -o pipefail
T0=$(date +%s)
usage="usage: bash bench/gpu/gpu_campaign.sh SECONDS OUTDIR [python -m srmdp campaign run options]"
if [ $# -lt 2 ]; then
  echo "gpu_campaign.sh: error: SECONDS and OUTDIR are required; $usage" >&2
  exit 2
fi
case "$1" in
  '' | *[!0-9]*)
    echo "gpu_campaign.sh: error: invalid SECONDS='$1': must be a whole number of seconds > 0; $usage" >&2
    exit 2
    ;;
esac
if [ "$1" -lt 1 ]; then
  echo "gpu_campaign.sh: error: invalid SECONDS='$1': must be a whole number of seconds > 0; $usage" >&2
  exit 2
fi
if [ -z "$2" ] || { [ -e "$2" ] && [ ! -d "$2" ]; }; then
  echo "gpu_campaign.sh: error: invalid OUTDIR='$2': must be a folder (created if missing); $usage" >&2
  exit 2
fi
BUDGET=$1
if ! PARENT=$(cd "$(dirname "$2")" 2>/dev/null && pwd); then
  echo "gpu_campaign.sh: error: invalid OUTDIR='$2': its parent folder does not exist; $usage" >&2
  exit 2
fi
OUTDIR=$PARENT/$(basename "$2")
shift 2
cd "$(dirname "$0")/../.." || exit 2
. bench/gpu/gpu_env.sh  # PY, and the carried numpy 2.4 wheel first on the path (as bench/gpu/gpu_check.sh)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
# every argument, the device and the chunks present are checked first (one line on stderr, exit 2)
$PY -m srmdp.paper.campaign run --budget "$BUDGET" --out "$OUTDIR" --check-only "$@" || exit $?
CASES=all PRECISION=float32 DEVICE=gpu  # the options the warm-up needs, as the campaign reads them
ARGS=("$@")
for ((j = 0; j < ${#ARGS[@]}; j++)); do
  case "${ARGS[j]}" in
    --cases) CASES=${ARGS[j + 1]:-all} ;;
    --cases=*) CASES=${ARGS[j]#*=} ;;
    --precision) PRECISION=${ARGS[j + 1]:-float32} ;;
    --precision=*) PRECISION=${ARGS[j]#*=} ;;
    --device) DEVICE=${ARGS[j + 1]:-gpu} ;;
    --device=*) DEVICE=${ARGS[j]#*=} ;;
    --case-list | --case-list=*) DEVICE=none ;;  # free cases: the campaign compiles them itself
  esac
done
PACK=()
LOG=/dev/null
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  PACK=(--pack "$OUT/campaign.tgz")
  LOG=$OUT/campaign.log
fi
{
  echo "== gpu_campaign on $(hostname) $(date -u), budget $BUDGET s, out $OUTDIR"
  if [ -z "${NUMBA_ENABLE_CUDASIM:-}" ] && command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader
  fi
  $PY -c "import sys, numpy, numba; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__)"
  # every kernel of the selection compiles first, in parallel processes (bench/gpu/gpu_warm.py; SRMDP_WARM=0: skip)
  if [ "${SRMDP_WARM:-1}" != 0 ] && [ "$DEVICE" = gpu ]; then
    timeout $((BUDGET / 3 + 1)) $PY bench/gpu/gpu_warm.py --cases "$CASES" --precision "$PRECISION"
  fi
  LEFT=$((BUDGET - ($(date +%s) - T0)))
  if [ "$LEFT" -lt 1 ]; then
    echo "gpu_campaign.sh: no time left after the set-up ($BUDGET s budget)"
    exit 0
  fi
  $PY -m srmdp.paper.campaign run --budget "$LEFT" --out "$OUTDIR" "${PACK[@]}" "$@"
} 2>&1 | tee -a "$LOG"
