# -*- Python -*-
# lit configuration of the amp-mlir regression tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "lib"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amp_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%amp_src_root", config.amp_src_root))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%amp_build_root", config.amp_obj_root))

# The real model files shipped next to the project (../shared/models).
config.substitutions.append(
    ("%models", os.path.join(config.amp_src_root, "examples", "models")))

tool_dirs = [config.amp_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("amp-opt", unresolved="fatal"),
         ToolSubst("amp-runner", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# `amp-test-dialect`: amp-opt has the amp_test dialect (AMP_INCLUDE_TESTS).
if config.amp_include_tests:
    config.available_features.add("amp-test-dialect")

# `cuda-device`: set only when the CUDA driver loads and sees a GPU, so GPU
# execution tests report UNSUPPORTED on machines without one (CI).
def _cuda_device_present():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 \
        and count.value > 0

if _cuda_device_present():
    config.available_features.add("cuda-device")

# `mpirun`: MPI (the library amp-mlir was built against and its launcher),
# for the data-parallel execution tests. %mpirun starts ranks on this one
# machine: more ranks than cores (--oversubscribe), as root too.
_mpirun = getattr(config, "amp_mpirun", "")
if config.amp_mpi_library and _mpirun and os.path.exists(_mpirun) \
        and not _mpirun.endswith("NOTFOUND"):
    config.available_features.add("mpirun")
    flags = " --oversubscribe"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags += " --allow-run-as-root"
    config.substitutions.append(("%mpirun", _mpirun + flags))
    config.substitutions.append(("%mpi_library", config.amp_mpi_library))

# `ptxas`: CUDA's PTX assembler, to check the PTX of amp-cuda-pipeline.
import shutil
_ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
