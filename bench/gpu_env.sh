# Sourced by bench/gpu_check.sh and bench/gpu_campaign.sh from the repository root: the GPU host's Python.
# The device image's numpy (2.5) removed np.row_stack, which numba-cuda 0.30 still references at import:
# carry numpy 2.4 as a wheel in .whl/ (git-ignored) and put it first on the path. Fetch it once here:
#   echo /.whl/ >> .git/info/exclude; python3 -m pip download --no-deps --only-binary=:all: \
#     --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 -d .whl numpy==2.4.6
export PYTHONUNBUFFERED=1 NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
PY=${PY:-python3}
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/numpy-*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
