"""Copies the built liblagrange.so into the package at build time, so an
installed package finds its library without the source tree
($LAGRANGE_LIBRARY, else ../build/liblagrange.so.N: run `make` first)."""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


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


setup(cmdclass={"build_py": BuildWithLibrary})
