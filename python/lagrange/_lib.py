"""Finding and declaring liblagrange.so with ctypes (no compiler needed)."""
import ctypes
import ctypes.util
import glob
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("LAGRANGE_LIBRARY")
    if env:
        yield env
    # a copy placed in the package at install time
    for p in sorted(glob.glob(os.path.join(_HERE, "liblagrange.so*"))):
        yield p
    # the in-tree build: python/lagrange/../../build
    root = os.path.dirname(os.path.dirname(_HERE))
    for p in sorted(glob.glob(os.path.join(root, "build", "liblagrange.so.*"))):
        yield p
    found = ctypes.util.find_library("lagrange")
    if found:
        yield found


def _open():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("liblagrange.so not found (set LAGRANGE_LIBRARY to its path, "
                      "or run `make` in the project root): " + "; ".join(errors))


class Diag(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("file", ctypes.c_char * 256),
                ("line", ctypes.c_int), ("col", ctypes.c_int),
                ("message", ctypes.c_char * 512), ("hint", ctypes.c_char * 256),
                ("text", ctypes.c_char * 1100)]


class DeriveOptions(ctypes.Structure):
    """lg_derive_options (lagrange.h), as lg_derive_options_default fills it"""
    _fields_ = [("size", ctypes.c_size_t), ("method", ctypes.c_int),
                ("at_state", ctypes.c_int), ("t", ctypes.c_double),
                ("q", ctypes.c_void_p), ("qd", ctypes.c_void_p), ("lazy", ctypes.c_int)]


_D = ctypes.POINTER(ctypes.c_double)


class Linearization(ctypes.Structure):
    _fields_ = [("nx", ctypes.c_size_t), ("nr", ctypes.c_size_t),
                ("state", ctypes.POINTER(ctypes.c_size_t)), ("A", _D), ("B", _D),
                ("x0", _D), ("r0", _D), ("q", _D), ("qd", _D)]


class LinOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("t", ctypes.c_double), ("q", _D), ("qd", _D),
                ("p", _D), ("independent", ctypes.POINTER(ctypes.c_int)),
                ("symbolic", ctypes.c_int)]


class EquilibriaOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("t", ctypes.c_double), ("lo", _D), ("hi", _D),
                ("p", _D), ("starts", ctypes.c_size_t)]


class Equilibrium(ctypes.Structure):
    _fields_ = [("q", _D), ("stability", ctypes.c_char_p), ("neig", ctypes.c_size_t),
                ("eig_re", _D), ("eig_im", _D), ("family_dim", ctypes.c_size_t),
                ("family", _D)]


class EquilibriaResult(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("count", ctypes.c_size_t),
                ("points", ctypes.POINTER(Equilibrium)),
                ("free", ctypes.POINTER(ctypes.c_int)), ("lo", _D), ("hi", _D),
                ("t", ctypes.c_double), ("time_dependent", ctypes.c_int),
                ("warning", ctypes.c_char_p)]


class SimOptions(ctypes.Structure):
    _fields_ = [("t0", ctypes.c_double), ("tf", ctypes.c_double), ("dt", ctypes.c_double),
                ("rtol", ctypes.c_double), ("atol", ctypes.c_double),
                ("integrator", ctypes.c_int), ("stabilize", ctypes.c_int),
                ("alpha", ctypes.c_double), ("beta", ctypes.c_double),
                ("project", ctypes.c_int), ("max_rows", ctypes.c_size_t),
                ("max_steps", ctypes.c_double),
                ("stop_when", ctypes.c_char_p), ("jit", ctypes.c_int),
                ("note", ctypes.c_void_p), ("note_ud", ctypes.c_void_p),
                ("q_end", _D), ("qd_end", _D),
                ("multipliers", ctypes.c_int), ("outputs", ctypes.c_int),
                ("output_names", ctypes.c_char_p)]


class SimPoint(ctypes.Structure):
    _fields_ = [("t", ctypes.c_double), ("q", _D), ("qd", _D), ("T", ctypes.c_double),
                ("V", ctypes.c_double), ("E", ctypes.c_double), ("W", ctypes.c_double),
                ("C", _D), ("lam", _D), ("outputs", _D), ("noutputs", ctypes.c_size_t),
                ("contact", _D), ("ncontact", ctypes.c_size_t)]


class SimStats(ctypes.Structure):
    _fields_ = [("steps", ctypes.c_long), ("rhs_evals", ctypes.c_long),
                ("t_end", ctypes.c_double), ("max_energy_drift", ctypes.c_double),
                ("max_residual", ctypes.c_double),
                ("energy_scale", ctypes.c_double), ("integrator", ctypes.c_char_p),
                ("energy", ctypes.c_char * 160), ("stopped", ctypes.c_int),
                ("jit", ctypes.c_int), ("jit_t", ctypes.c_double),
                ("jit_background", ctypes.c_int), ("jit_failed", ctypes.c_int),
                ("jit_seconds", ctypes.c_double), ("wall", ctypes.c_double),
                ("noted", ctypes.c_int), ("events", ctypes.c_long),
                ("event_work", ctypes.c_double), ("friction_switches", ctypes.c_long),
                ("impacts", ctypes.c_long), ("liftoffs", ctypes.c_long)]


class EvalState(ctypes.Structure):
    _fields_ = [("t", ctypes.c_double), ("q", _D), ("qd", _D), ("u", _D), ("udep", _D)]


SIM_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(SimPoint))
NOTE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)

lib = _open()
_P = ctypes.c_void_p
_S = ctypes.c_size_t
_DP = ctypes.POINTER(Diag)
_A = ctypes.c_void_p   # a double array argument: passed as its address (fast)
_SIG = {
    "lg_version": (ctypes.c_char_p, []),
    "lg_diag_text": (ctypes.c_char_p, [_DP]),
    "lg_model_load_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), _DP]),
    "lg_model_load_string": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, _S,
                                            ctypes.POINTER(_P), _DP]),
    "lg_model_free": (None, [_P]),
    "lg_derive": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(_P), _DP]),
    "lg_derive_options_default": (None, [ctypes.POINTER(DeriveOptions)]),
    "lg_derive_with": (ctypes.c_int, [_P, ctypes.POINTER(DeriveOptions), ctypes.POINTER(_P),
                                      _DP]),
    "lg_model_set": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_double, _DP]),
    "lg_kane_own_state": (ctypes.c_int, [_P]), "lg_nu": (_S, [_P]),
    "lg_speed_name": (ctypes.c_char_p, [_P, _S]),
    "lg_system_free": (None, [_P]),
    "lg_nq": (_S, [_P]), "lg_nc": (_S, [_P]), "lg_np": (_S, [_P]),
    "lg_ninputs": (_S, [_P]),
    "lg_coordinate_name": (ctypes.c_char_p, [_P, _S]),
    "lg_parameter_name": (ctypes.c_char_p, [_P, _S]),
    "lg_input_name": (ctypes.c_char_p, [_P, _S]),
    "lg_default_params": (None, [_P, _A]),
    "lg_initial_state": (None, [_P, _A, _A]),
    # (lg_eval, lg_eval_accel and their _many forms: called by the C
    # extension at the addresses _eval.bind hands it)
    "lg_eval_record_size": (_S, [_P]),
    "lg_linearize": (ctypes.c_int, [_P, ctypes.c_double, _A, _A, _A,
                                    ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(Linearization), _DP]),
    "lg_sim_options_default": (None, [_P, ctypes.POINTER(SimOptions)]),
    "lg_sim_options_check": (ctypes.c_int, [_P, ctypes.POINTER(SimOptions), _DP]),
    "lg_params_with": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p),
                                      _A, _A, _DP]),
    "lg_simulate": (ctypes.c_int, [_P, ctypes.POINTER(SimOptions), _A, _A, _A,
                                   SIM_CALLBACK, _P, ctypes.POINTER(SimStats), _DP]),
    "lg_print": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), _DP]),
    "lg_codegen": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_void_p), _DP]),
    "lg_codegen_functions": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.POINTER(ctypes.c_void_p), _DP]),
    "lg_string_free": (None, [ctypes.c_void_p]),
    "lg_lin_options_default": (None, [ctypes.POINTER(LinOptions)]),
    "lg_linearize_format": (ctypes.c_int, [_P, ctypes.POINTER(LinOptions), ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_void_p),
                                           ctypes.POINTER(ctypes.c_void_p), _DP]),
    "lg_equilibria_options_default": (None, [ctypes.POINTER(EquilibriaOptions)]),
    "lg_equilibria": (ctypes.c_int, [_P, ctypes.POINTER(EquilibriaOptions),
                                     ctypes.POINTER(ctypes.POINTER(EquilibriaResult)), _DP]),
    "lg_equilibria_free": (None, [ctypes.POINTER(EquilibriaResult)]),
    "lg_equilibria_format": (ctypes.c_int, [_P, ctypes.POINTER(EquilibriaResult), ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_void_p), _DP]),
    # eval's report
    "lg_eval_format": (ctypes.c_int, [_P, ctypes.POINTER(EvalState), _A, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.POINTER(ctypes.c_void_p), _DP]),
    "lg_ndependent_speeds": (_S, [_P]),
    "lg_dependent_speed_name": (ctypes.c_char_p, [_P, _S]),
    # the scene (Model.scene, Model.scene_info)
    "lg_npoints": (_S, [_P]), "lg_nbodies": (_S, [_P]), "lg_ndraws": (_S, [_P]),
    "lg_point_name": (ctypes.c_char_p, [_P, _S]),
    "lg_point_index": (ctypes.c_long, [_P, ctypes.c_char_p]),
    "lg_point_from": (ctypes.c_long, [_P, _S]),
    "lg_point_is_particle": (ctypes.c_int, [_P, _S]),
    "lg_body_frame": (ctypes.c_char_p, [_P, _S]),
    "lg_body_point": (ctypes.c_long, [_P, _S]),
    "lg_draw_info": (ctypes.c_int, [_P, _S, ctypes.POINTER(ctypes.c_long),
                                    ctypes.POINTER(ctypes.c_long)]),
    "lg_draw_shape": (ctypes.c_int, [_P, _S, ctypes.POINTER(ctypes.c_int),
                                     ctypes.POINTER(ctypes.c_size_t),
                                     ctypes.POINTER(ctypes.c_size_t)]),
    "lg_scene_size": (_S, [_P]),
    "lg_scene_many": (ctypes.c_int, [_P, _S, _A, _A, _A, _A, _DP]),
    "lg_output_select": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t),
                                        _S, ctypes.POINTER(ctypes.c_size_t), _DP]),
    "lg_noutputs": (_S, [_P]), "lg_ncontact_columns": (_S, [_P]),
    "lg_contact_column": (ctypes.c_char_p, [_P, _S]), "lg_output_name": (ctypes.c_char_p, [_P, _S]),
    "lg_eval_outputs": (ctypes.c_int, [_P, ctypes.c_double, _A, _A, _A, _A, _DP]),
}
for _name, (_res, _args) in _SIG.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

