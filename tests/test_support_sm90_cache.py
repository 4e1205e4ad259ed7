"""The sm_90 tools' compile cache (tests/support/sm90.py; bench/gpu/gpu_ptxas.py and tests/test_sm90_compile.py use
it): a hit only for the same key, a change of the key or of the compile's context compiles anew, SRMDP_PTX_CACHE=0
always compiles (no compile here: a counter stands in)."""

from tests.support import sm90


def test_cached_text_is_reused_only_for_the_same_key(tmp_path, monkeypatch):
    made = []

    def make(text):
        def run():
            made.append(text)
            return text

        return run

    assert sm90.cached(tmp_path, ("k", 1), make("a")) == "a"
    assert sm90.cached(tmp_path, ("k", 1), make("b")) == "a"  # a hit: not made again
    assert sm90.cached(tmp_path, ("k", 2), make("c")) == "c"  # another key
    assert sm90.cached(None, ("k", 1), make("d")) == "d"  # no folder: no cache
    monkeypatch.setenv("SRMDP_PTX_CACHE", "0")
    assert sm90.cached(tmp_path, ("k", 1), make("e")) == "e"
    assert made == ["a", "c", "d", "e"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


def test_the_compile_context_follows_the_settings_that_change_the_ptx(monkeypatch):
    base = sm90.compile_context()
    monkeypatch.setenv("SRMDP_CUDA_FMA", "0")  # no FMA contraction: other PTX
    assert sm90.compile_context() != base
    monkeypatch.delenv("SRMDP_CUDA_FMA")
    monkeypatch.setenv("NUMBA_OPT", "0")
    assert sm90.compile_context() != base
    assert "numba-cuda" in sm90.toolchain() or "numba" in sm90.toolchain()


def test_the_compile_context_reads_every_cuda_module_of_the_library():
    """Every srmdp module of the CUDA path (cuda*, as pkgutil lists the package) is in the cache key's context."""
    import pkgutil

    import srmdp.kernels

    modules = {m.name + ".py" for m in pkgutil.iter_modules(srmdp.kernels.__path__) if m.name.startswith("cuda")}
    assert {"cuda.py", "cuda_patches.py"} <= modules
    assert {f.name for f in sm90.context_files()} == modules
