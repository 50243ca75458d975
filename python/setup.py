"""Builds the package: copies the built liblagrange.so into it, so an
installed package finds its library without the source tree
($LAGRANGE_LIBRARY, else ../build/liblagrange.so.N: run `make` first), and
compiles the C extension lagrange._fast (Model.eval/accel: python3-dev and
NumPy's headers, ../src/api/lagrange.h). The extension does not link the
library: it calls the entries the ctypes layer found (see _fast.c)."""
import glob
import os
import shutil

import numpy
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(HERE, "..", "src", "api")


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        src = os.environ.get("LAGRANGE_LIBRARY")
        if not src:
            found = sorted(glob.glob(os.path.join(HERE, "..", "build", "liblagrange.so.*")))
            if not found:
                raise SystemExit("liblagrange.so not built: run `make` in the project root "
                                 "or set LAGRANGE_LIBRARY")
            src = found[-1]
        dst = os.path.join(self.build_lib, "lagrange", os.path.basename(src))
        shutil.copy2(src, dst)


if not os.path.isfile(os.path.join(API, "lagrange.h")):
    raise SystemExit("../src/api/lagrange.h not found: build the package from the "
                     "lagrange source tree (pip install ./python from its root)")

fast = Extension("lagrange._fast",
                 sources=["lagrange/_fast.c", "lagrange/_fast_result.c"],
                 depends=["lagrange/_fast.h", os.path.join(API, "lagrange.h")],
                 include_dirs=[API, numpy.get_include()],
                 extra_compile_args=["-std=c11"])

setup(cmdclass={"build_py": BuildWithLibrary}, ext_modules=[fast])
