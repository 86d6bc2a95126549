# lit configuration for tilec (loaded by the generated lit.site.cfg.py).
#
# Tests are test/<area>/*.tile, *.tir and *.test; Inputs/ directories hold
# files that tests read and are never run themselves. RUN lines see:
#   %tilec            the tilec binary of this build
#   %tilec-run        the interpreter of lowered IR (tools/tilec-run)
#   %python           the Python 3 that CMake found
#   FileCheck, not, count, split-file   LLVM's test tools (on PATH)
#   %nvcc, %hipcc     GPU compilers; tests using them say REQUIRES: nvcc / hipcc
#   %tilec_version    the project version (CMake's PROJECT_VERSION)
#   %cmake, %cmake_generator, %tilec_build_dir, %tilec_src_root
#                     for install/packaging tests
import os
import platform
import shutil

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tile", ".tir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.tilec_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

tilec = os.path.join(config.tilec_tools_dir, "tilec")
# Longer names first: lit substitutes in list order.
config.substitutions.append(("%tilec_build_dir", config.tilec_obj_root))
config.substitutions.append(("%tilec_version", config.tilec_version))
config.substitutions.append(("%tilec_src_root", config.tilec_src_root))
config.substitutions.append(("%tilec-run", os.path.join(
    config.tilec_obj_root, "tools", "tilec-run", "tilec-run")))
config.substitutions.append(("%tilec", tilec))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))

if platform.system() == "Linux":
    config.available_features.add("system-linux")


def find_gpu_compiler(name, default_dir):
    path = shutil.which(name) or os.path.join(default_dir, name)
    return path if os.access(path, os.X_OK) else None


nvcc = find_gpu_compiler("nvcc", "/usr/local/cuda/bin")
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
hipcc = find_gpu_compiler("hipcc", "/opt/rocm/bin")
if hipcc:
    config.available_features.add("hipcc")
    config.substitutions.append(("%hipcc", hipcc))

# Bad input must never hang the compiler: a test past the limit fails.
# lit needs psutil (Debian: python3-psutil) to enforce it.
try:
    import psutil  # noqa: F401

    lit_config.maxIndividualTestTime = 120
except ImportError:
    pass
