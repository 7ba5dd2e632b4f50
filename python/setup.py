"""`pip install ./python` from a checkout: builds libfly.so with CMake (the repository's
CMakeLists.txt, target fly_shared; CUDA when nvcc is found, LIBFLY_CUDA=OFF/ON to decide) into
build/python-package and ships it inside the package."""

import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent.parent


class BuildWithLibfly(build_py):
    def run(self):
        super().run()
        build = ROOT / "build" / "python-package"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DFLY_ENABLE_CUDA=" + os.environ.get("LIBFLY_CUDA", "AUTO"), "-DFLY_BUILD_TESTS=OFF",
                     "-DFLY_BUILD_BENCH=OFF", "-DFLY_BUILD_SHARED=ON"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "fly_shared"])
        dest = pathlib.Path(self.build_lib) / "libfly"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "python" / "libfly" / "libfly.so", dest / "libfly.so")


setup(cmdclass={"build_py": BuildWithLibfly})
