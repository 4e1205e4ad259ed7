#!/usr/bin/env bash
# The CPU evidence campaign: Snakemake runs the evidence preset (config/evidence.yaml) niced, the out-of-sample
# rows' first chunks (dt < 0.2) prioritized, and this script commits the finished run chunks under data/evidence/
# every COMMIT_EVERY seconds (one file per run on the heavy rows: a stop loses at most the runs in flight).
# Resumable: run it again and Snakemake computes only the chunks that are not there.
#   setsid bash bench/cpu/evidence_campaign.sh [CORES] &   # default 2; progress in logs/evidence_campaign.log
set -euo pipefail
cd "$(dirname "$0")/../.."
# nice alone does not lower a job's share against other sessions (the kernel's autogroups: each session shares the
# CPU equally): in a session of its own (setsid), the session's share is lowered too, so tests and timings beside it
# get the machine
if [ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ] && [ -w /proc/self/autogroup ]; then echo 19 > /proc/self/autogroup; fi
CORES=${1:-2}
COMMIT_EVERY=${COMMIT_EVERY:-600}
mkdir -p logs
LOG=logs/evidence_campaign.log
# first: every chunk of the out-of-sample rows with <= 8 runs, and the first chunk of the others
PRIORITY=$(python - <<'PY'
from srmdp.paper.plan.preset import Plan, load_configs
plan = Plan(load_configs(["config/config.yaml", "config/evidence.yaml"]))
for s in plan.selected:
    if plan.case(s.key).dt < 0.2:
        chunks = range((s.runs + s.chunk_runs - 1) // s.chunk_runs) if s.runs <= 8 else [0]
        print(" ".join(plan.chunk_path("paper-fit", s.key, "cpu", j) for j in chunks))
PY
)
commit() {
  git add data/evidence 2>/dev/null || return 0
  local n
  n=$(git diff --cached --name-only -- data/evidence | grep -c 'chunk-' || true)
  [ "$n" -gt 0 ] || return 0
  git commit -q -m "evidence campaign: $n more run chunks (config/evidence.yaml, bench/cpu/evidence_campaign.sh)" -- data/evidence \
    || echo "commit failed (retry at the next round)" >&2
}
nice -n 19 snakemake --cores "$CORES" --configfile config/evidence.yaml --keep-going --rerun-incomplete \
  --prioritize $PRIORITY >> "$LOG" 2>&1 &
SM=$!
trap 'kill $SM 2>/dev/null; wait $SM 2>/dev/null; commit' INT TERM
while kill -0 $SM 2>/dev/null; do
  for _ in $(seq "$COMMIT_EVERY"); do kill -0 $SM 2>/dev/null || break; sleep 1; done
  commit
done
wait $SM
