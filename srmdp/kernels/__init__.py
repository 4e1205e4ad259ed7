"""The backends, each given its kernels by srmdp.numerics.build: the CPU backend and its top-level kernels (cpu,
cpu_kernels), the CUDA backend, its kernels, launch geometry and numba-cuda patches (cuda, cuda_kernels,
cuda_launch, cuda_patches, gpu, shared_banks) and the divergence guard (divergence, divergence_cuda).

May import: srmdp.case, srmdp.problems, srmdp.numerics, srmdp.exceptions.  Never srmdp.runs or above.
"""
