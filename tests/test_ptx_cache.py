"""The sm_90 tools' compile cache (bench/gpu_ptxas.py): a hit only for the same key, a change of the key or of the
compile's context compiles anew, SRMDP_PTX_CACHE=0 always compiles (no compile here: a counter stands in)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import gpu_ptxas  # noqa: E402


def test_cached_text_is_reused_only_for_the_same_key(tmp_path, monkeypatch):
    made = []

    def make(text):
        def run():
            made.append(text)
            return text
        return run

    assert gpu_ptxas._cached(tmp_path, ("k", 1), make("a")) == "a"
    assert gpu_ptxas._cached(tmp_path, ("k", 1), make("b")) == "a"  # a hit: not made again
    assert gpu_ptxas._cached(tmp_path, ("k", 2), make("c")) == "c"  # another key
    assert gpu_ptxas._cached(None, ("k", 1), make("d")) == "d"  # no folder: no cache
    monkeypatch.setenv("SRMDP_PTX_CACHE", "0")
    assert gpu_ptxas._cached(tmp_path, ("k", 1), make("e")) == "e"
    assert made == ["a", "c", "d", "e"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


def test_the_compile_context_follows_the_settings_that_change_the_ptx(monkeypatch):
    base = gpu_ptxas._compile_context()
    monkeypatch.setenv("SRMDP_CUDA_FMA", "0")  # no FMA contraction: other PTX
    assert gpu_ptxas._compile_context() != base
    monkeypatch.delenv("SRMDP_CUDA_FMA")
    monkeypatch.setenv("NUMBA_OPT", "0")
    assert gpu_ptxas._compile_context() != base
    assert "numba-cuda" in gpu_ptxas._toolchain() or "numba" in gpu_ptxas._toolchain()
