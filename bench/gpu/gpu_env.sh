# Sourced by bench/gpu/gpu_check.sh and bench/gpu/gpu_campaign.sh from the repository root: the GPU host's Python.
# The device image's numpy (2.5) removed np.row_stack, which numba-cuda 0.30 still references at import:
# carry numpy 2.4 as a wheel in .whl/ (git-ignored) and put it first on the path. Fetch it once here:
#   echo /.whl/ >> .git/info/exclude; python3 -m pip download --no-deps --only-binary=:all: \
#     --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6
export PYTHONUNBUFFERED=1 NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
PY=${PY:-python3}
# (a wheel for another Python, e.g. the cp312 one on a 3.11 machine, is left out without a word)
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/numpy-*.whl \
    2>/dev/null && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
# The paper's rows and subcommands are entry points (pyproject.toml), which a source tree on PYTHONPATH does not
# register: when the host's Python has no installed srmdp, write the tree's entry points as a dist-info in the same
# folder (SRMDP_SITE), then check that --table resolves before any GPU work starts.
SRMDP_SITE=${SRMDP_SITE:-/tmp/site}
if ! $PY -c "import sys; from importlib.metadata import entry_points as e; sys.exit(not e(group='srmdp.tables'))" 2>/dev/null
then
  mkdir -p "$SRMDP_SITE/srmdp-0.dist-info" && $PY - "$SRMDP_SITE/srmdp-0.dist-info" <<'PYEOF'
import sys, tomllib
from pathlib import Path
out = Path(sys.argv[1])
eps = tomllib.loads(Path("pyproject.toml").read_text())["project"]["entry-points"]
# named srmdp with the tree's version, so that the runs' provenance records it (srmdp.case.results.versions)
version = tomllib.loads(Path("pyproject.toml").read_text())["project"]["version"]
(out / "METADATA").write_text(f"Metadata-Version: 2.1\nName: srmdp\nVersion: {version}\n")
(out / "entry_points.txt").write_text("".join(
    f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in sorted(table.items())) + "\n"
    for group, table in eps.items()))
PYEOF
  export PYTHONPATH=$SRMDP_SITE${PYTHONPATH:+:$PYTHONPATH}
fi
PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} $PY -c "from srmdp.cli.commands import paper_table_case; paper_table_case()" \
  || { echo "gpu_env: srmdp --table cannot resolve the paper's rows on this host"; return 1 2>/dev/null || exit 1; }
