"""bench/cpu/cpu_profile.py cuts phases out of the kernel by text substitutions: each must still apply to today's kernel
sources (exactly once), so that a change of the kernels breaks the profile here, not silently (no compilation)."""

import sys
from pathlib import Path

import pytest

from srmdp.numerics import build

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "cpu"))
try:
    import cpu_profile
finally:
    sys.path.remove(str(ROOT / "bench" / "cpu"))


@pytest.mark.parametrize("name", sorted(cpu_profile.VARIANTS))
def test_every_variant_applies_to_the_kernel_sources(name):
    modules = build.KERNEL_MODULES + (build.TARGET_MODULES["cpu"],)
    changed = 0
    for module in modules:
        text = build._module_source(module)
        out = cpu_profile.patched_source(name, module, text)
        changed += out != text
    # "full" changes nothing; every other variant changes the modules it names, and only those
    assert changed == len(cpu_profile.VARIANTS[name])
    assert set(cpu_profile.VARIANTS[name]) <= {m.rsplit("/", 1)[-1] for m in modules}


def test_a_stale_substitution_is_refused():
    with pytest.raises(SystemExit, match="occurs 0 times"):
        cpu_profile.patched_source("no_driver", "scheme", "def continue_path(): pass\n")
