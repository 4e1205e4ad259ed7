"""The CUDA path's host-side logic, without a GPU: launch-mode choice, shared-memory sizes, the device
memory model and its refusal, and the one-line 'no GPU' reason."""

import os

import pytest

pytest.importorskip("numba_cuda")


def _case(**kw):
    from srmdp.case.cases import Case

    return Case(**kw)


def test_mode_choice():
    from srmdp.kernels.cuda import BLOCK, THREAD, choose_mode

    big_lp0 = _case(d=4, dt=0.02, basis="LP0", cells=28, paths=2500)  # K = 614656
    small_lp0 = _case(d=4, dt=0.05, basis="LP0", cells=17, paths=400)  # K = 83521
    lp1 = _case(d=19, dt=0.2, basis="LP1", cells=2, paths=3200)
    assert choose_mode(big_lp0, sms=132) == THREAD
    assert choose_mode(small_lp0, sms=132) == BLOCK
    assert choose_mode(lp1, sms=132) == BLOCK
    assert choose_mode(lp1, sms=132, request="thread") == THREAD
    from srmdp.exceptions import ConfigError

    with pytest.raises(ConfigError):
        choose_mode(lp1, request="warp")


@pytest.mark.parametrize("d", [1, 4, 11, 12, 19])
def test_block_shared_memory_fits(d):
    from srmdp.kernels.cuda_launch import SHARED_LIMIT, block_size, shared_bytes

    for nb in (1, d + 1):
        b = block_size(d, nb)
        assert b >= 32 and shared_bytes(d, nb, b) <= SHARED_LIMIT


def test_memory_model_refuses_before_allocation():
    from srmdp.exceptions import ConfigError
    from srmdp.kernels.cuda import check_fits, device_bytes

    case = _case(d=19, dt=0.2, basis="LP1", cells=2, paths=3200, precision="float64")  # 8.4 GB of coefficients
    need = device_bytes(case, 1000, "block", 132)
    assert need > 5 * 524288 * 20 * 20 * 8
    info = {"name": "test GPU", "sms": 132, "free": 4 * 2**30, "total": 8 * 2**30}
    with pytest.raises(ConfigError) as exc:
        check_fits(case, 1000, info=info)
    msg = str(exc.value)
    assert "GPU memory" in msg and "test GPU" in msg and "\n" not in msg
    info["free"] = 80 * 2**30
    assert check_fits(case, 1000, info=info) == need


def test_no_gpu_reason_is_one_line(monkeypatch):
    from srmdp.kernels.gpu import gpu_unavailable_reason

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        assert gpu_unavailable_reason() is None
    else:
        reason = gpu_unavailable_reason()
        assert reason is None or "\n" not in reason
