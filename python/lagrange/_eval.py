"""Evaluation at one state or many: the glue to the C extension
lagrange._fast (_fast.c), which owns Model.eval / Model.accel and
EvalResult.

Why an extension: on small models the library evaluates a state in
0.1-0.3 us, while one ctypes call costs 0.17 us and reading a NumPy
array's address from Python 0.7 us; a call through ctypes could not come
under ~1.6 us (bench/RESULTS.md). The extension reads q and q' in place
and returns one new object per call.

It calls the library's entries at the addresses ctypes found (bind), so
the package uses one liblagrange.so whatever the extension was built
against. Without the extension (not built), `import lagrange` still works
and everything but eval/accel does; those raise an ImportError saying how
to build it."""
import ctypes

from . import _lib

FIELDS = ("qdd", "lam", "constraint_forces", "mass_matrix", "forcing",
          "mass_matrix_full", "forcing_full", "momenta", "residuals", "T", "V")

HOW_TO_BUILD = ("the C extension lagrange._fast that Model.eval and Model.accel use is not "
                "built for this Python: run `make python` in the project root, or install "
                "with `python3 -m pip install --no-build-isolation ./python` (both need "
                "python3-dev and python3-numpy: bash scripts/install-deps.sh)")

try:
    from . import _fast
    MISSING = None
except ImportError as e:  # not built: everything else still works
    _fast = None
    MISSING = "%s (%s)" % (HOW_TO_BUILD, e)


if _fast is not None:
    Core = _fast.Core
    EvalResult = _fast.EvalResult
    assert EvalResult.FIELDS == FIELDS
else:
    class Core:
        """Stands in for lagrange._fast.Core when the extension is missing."""

        def _bind(self, *args):
            pass

        def _unbind(self):
            pass

        def eval(self, q=None, qd=None, t=0.0, params=None):
            """Needs the C extension lagrange._fast (see HOW_TO_BUILD)."""
            raise ImportError(MISSING)

        accel = eval

    class EvalResult:
        """What Model.eval returns (the C extension lagrange._fast is not
        built, so there is none)."""
        FIELDS = FIELDS


def bind(make_error):
    """Hands the extension the library's eval entries and make_error, the
    factory of the exception for a diagnostic (status, text, file, line,
    col, message, hint: bytes but the status and numbers)."""
    if _fast is None:
        return

    def addr(name):
        return ctypes.cast(_lib.lib[name], ctypes.c_void_p).value
    _fast.bind(addr("lg_eval_many"), addr("lg_eval_accel_many"), addr("lg_eval"),
               addr("lg_eval_accel"), make_error)
