"""The two patches of numba-cuda internals the CUDA path needs, each with its reason.

Pinned to numba-cuda 0.30 (``pyproject.toml``: ``numba-cuda[cu12]==0.30.*``): both replace a function of its
internals, whose name and signature other versions may change.  Each is installed at most once per process and
checks its own marker, so importing twice changes nothing.

* :func:`no_contraction` (``numba.cuda.cudadrv.nvvm.compile_ir``): numba-cuda has no option to compile without
  FMA contraction, which NVVM applies by default.  ``SRMDP_CUDA_FMA=0`` asks for it (results as the CPU computes
  them, a*b+c rounded twice): the patch adds NVVM's ``fma=False`` to every compile that did not ask for fastmath.
* :func:`keep_as_call` (``numba.cuda.core.funcdesc.FunctionDescriptor.declare_function``): numba-cuda inlines
  every device function, and under a register cap the temporaries of a rare branch (the ziggurat's wedges and
  tail, float64 exp/log) then spill inside the path loop.  The patch declares the marked functions ``noinline``, so
  that they stay calls with registers of their own.
"""

_CALLS = set()  # (module, qualname) of the device functions compiled as calls (srmdp.numerics.jit.rare)


def no_contraction():
    """Make NVVM compile without FMA contraction unless fastmath was asked (process-wide)."""
    from numba.cuda.cudadrv import nvvm

    if getattr(nvvm.compile_ir, "_srmdp_strict", False):
        return
    inner = nvvm.compile_ir

    def compile_ir(llvmir, **options):
        if not options.get("fastmath", False):
            options.setdefault("fma", False)
        return inner(llvmir, **options)

    compile_ir._srmdp_strict = True
    nvvm.compile_ir = compile_ir


def keep_as_call(fn):
    """Mark the Python function ``fn`` to be compiled as a ``noinline`` device function: a call, so that the
    temporaries of a rare branch need not fit in the registers of the path loop around it.  Installs, once, the hook
    in numba-cuda's function declaration."""
    from numba.cuda.core import funcdesc

    if not getattr(funcdesc.FunctionDescriptor.declare_function, "_srmdp", False):
        inner = funcdesc.FunctionDescriptor.declare_function

        def declare_function(self, module):
            f = inner(self, module)
            if (self.modname, self.qualname) in _CALLS and not self.inline:
                f.attributes.add("noinline")
            return f

        declare_function._srmdp = True
        funcdesc.FunctionDescriptor.declare_function = declare_function
    _CALLS.add((fn.__module__, fn.__qualname__))
    return fn
