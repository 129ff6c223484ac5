"""Python bindings of the geolin C API (geolin.h) with ctypes: standard library only, numpy
optional.

Forward dynamics of moving-base robots loaded from URDF and its exact left-trivialized
linearization. The library is found from the environment variable GEOLIN_LIBRARY (a path to
libgeolin.so.0), else by its name on the system's search path.

Inputs (H, s, v, r, tau, ...) may be
  - numpy arrays (when numpy is installed) -- float64 arrays that are 1-D and contiguous, or
    Fortran-ordered (column-major) matrices, are passed to C without copying; other arrays
    (another dtype, a row-major 4x4 H, a strided view) are converted first;
  - any other buffer of doubles (array.array('d'), a memoryview of format 'd'), without copying;
  - plain sequences of numbers (lists, tuples), copied into a C array.
Matrices are column-major, as in C: H is the 4x4 pose (16 values, or a 4x4 numpy array, which
is read as a matrix whatever its memory order). Strings and sequences of non-numbers are refused
with geolin.Error (ERR_INVALID_ARGUMENT), as are wrong lengths.

Outputs are new numpy arrays when numpy is installed (float64; vectors 1-D, matrices of shape
(rows, cols), Fortran-ordered, so that their memory is the C API's column-major layout), plain
Python lists without numpy (matrices: flat column-major lists), or arrays you pass with out=:
preallocated float64 numpy arrays (1-D, or Fortran-ordered matrices) or writable buffers of
doubles of the right size, which are filled in place and returned (nothing is written, nothing
allocated, if the call fails). as_numpy is kept for compatibility: None (the default) means
numpy arrays if numpy is installed, else lists; as_numpy=False asks for lists; as_numpy=True
asks for arrays (an Error without numpy). For the lowest overhead per call, pass float64 numpy
arrays (1-D, or Fortran-ordered matrices: no copy) and out= (no allocation).

    import geolin
    model = geolin.Model.from_urdf_file("robot.urdf")
    ws = model.workspace()
    nu_dot = ws.forward_dynamics(H, s, v, r, tau)     # H: 16 values or a 4x4 array
    A, B = ws.linearize(H, s, v, r, tau)              # arrays N x N and N x n_J
    A, B = ws.linearize(H, s, v, r, tau, as_numpy=False)  # flat column-major lists
    A = numpy.empty((N, N), order="F"); B = numpy.empty((N, nj), order="F")
    ws.linearize(H, s, v, r, tau, out=(A, B))         # no allocation, no copy
    tool = model.frame_index("tool")
    H_tool = ws.frame_pose(H, s, tool)                # a 4x4 array (list: column-major)
    nu_dot = ws.forward_dynamics_ext(H, s, v, r, tau, [tool], [[0, 0, -10, 0, 0, 0]],
                                     geolin.WRENCH_MIXED)
    H, s, v, r = ws.step(geolin.STEP_RK4, 1e-3, H, s, v, r, tau)
    feet = [model.frame_index(f) for f in ("FL_foot", "FR_foot", "HL_foot", "HR_foot")]
    nu_dot, lam = ws.contact_dynamics(H, s, v, r, tau, feet, [geolin.CONTACT_POINT] * 4)
    A, B, dlam_dz, dlam_dw = ws.contact_linearize(H, s, v, r, tau, feet,
                                                  [geolin.CONTACT_POINT] * 4)
    small = model.workspace(geolin.WORKSPACE_CONTACTS, max_wrenches=4)  # less memory
    cs = geolin.Constraints(model)                    # a set: contacts, loops, couplings, wheels
    cs.add_loop(model.frame_index("a"), model.frame_index("b"), geolin.LOOP_POINT)
    cs.add_mimic_joints()
    nu_dot, lam = ws.constrained_dynamics(cs, H, s, v, r, tau)  # lam: cs.num_rows values
"""

import array
import ctypes
import ctypes.util
import numbers
import os

try:  # optional: arrays in and out without copies
    import numpy as _np

    _F64 = _np.dtype(_np.float64)  # the builtin descriptor: arrays of native doubles share it
    _ndarray = _np.ndarray
    _empty = _np.empty
except ImportError:  # pragma: no cover - depends on the installation
    _np = _ndarray = _empty = None

__all__ = [
    "Error", "VersionError", "Model", "Workspace", "version", "status_string", "load_library",
    "OK", "ERR_INVALID_ARGUMENT", "ERR_IO", "ERR_PARSE", "ERR_MODEL", "ERR_UNSUPPORTED",
    "ERR_NONFINITE", "ERR_NUMERIC", "ERR_INTERNAL", "ERR_MEMORY", "FIXED_BASE", "JOINT_DAMPING",
    "WRENCH_LOCAL", "WRENCH_MIXED", "STEP_SEMI_IMPLICIT_EULER", "STEP_RK4",
    "STEP_IMPLICIT_EULER", "HEADER_VERSION",
    "HAVE_NUMPY", "CONTACT_POINT", "CONTACT_RIGID", "WORKSPACE_DYNAMICS",
    "WORKSPACE_MASS_MATRIX", "WORKSPACE_LINEARIZE", "WORKSPACE_FINITE_DIFFERENCE",
    "WORKSPACE_STEP_LINEARIZE", "WORKSPACE_CONTACTS", "WORKSPACE_ALL", "Constraints",
    "LOOP_POINT", "LOOP_HINGE", "LOOP_RIGID",
]

# Whether numpy was importable: outputs are numpy arrays by default if so, lists if not.
HAVE_NUMPY = _np is not None

OK = 0
ERR_INVALID_ARGUMENT = 1
ERR_IO = 2
ERR_PARSE = 3
ERR_MODEL = 4
ERR_UNSUPPORTED = 5
ERR_NONFINITE = 6
ERR_NUMERIC = 7
ERR_INTERNAL = 8
ERR_MEMORY = 9

FIXED_BASE = 1
JOINT_DAMPING = 2

# wrench_flags of forward_dynamics_ext / linearize_ext: the axes of every wrench of one call
WRENCH_LOCAL = 0  # the frame's own axes
WRENCH_MIXED = 1  # axes parallel to the inertial frame A (contact forces)

# integration methods of step / step_linearize, contact_step and the _feedback steps
STEP_SEMI_IMPLICIT_EULER = 0
STEP_RK4 = 1
# semi-implicit Euler with the joint damping (the model's and the feedback's kd) implicit:
# stable for any damping (geolin.h, docs/dynamics.md (D55), (D56))
STEP_IMPLICIT_EULER = 2

# contact types of contact_dynamics / contact_linearize: how a frame is held (= its rows of lambda)
CONTACT_POINT = 3  # the frame origin is held: lambda is a force
CONTACT_RIGID = 6  # the whole frame is held: lambda is a wrench [force; torque]

# loop types of Constraints.add_loop: what a closure between frames a and b holds (= its rows)
LOOP_POINT = 3  # their origins coincide
LOOP_HINGE = 5  # their origins coincide and their z axes stay parallel
LOOP_RIGID = 6  # the two frames coincide

# features of a workspace (bitwise or; Model.workspace(features=...)): what it is sized for
WORKSPACE_DYNAMICS = 0  # forward/inverse dynamics, frames, forward_dynamics_ext, step: always
WORKSPACE_MASS_MATRIX = 1  # mass_matrix, mass_matrix_inverse
WORKSPACE_LINEARIZE = 2  # linearize, linearize_ext
WORKSPACE_FINITE_DIFFERENCE = 4  # linearize_finite_difference
WORKSPACE_STEP_LINEARIZE = 8  # step_linearize (includes LINEARIZE)
WORKSPACE_CONTACTS = 16  # contact_dynamics; with LINEARIZE also contact_linearize
WORKSPACE_ALL = 31

# The version of geolin.h these bindings were written for (the library may be newer).
HEADER_VERSION = (0, 5, 0)

_c_double = ctypes.c_double
_c_double_p = ctypes.POINTER(ctypes.c_double)
_c_int_p = ctypes.POINTER(ctypes.c_int)
_handle = ctypes.c_void_p
_handle_p = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes) for every function of geolin.h
_SIGNATURES = {
    "geolin_version": (None, [_c_int_p, _c_int_p, _c_int_p]),
    "geolin_last_error": (ctypes.c_char_p, []),
    "geolin_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "geolin_model_load_urdf": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, _handle_p]),
    "geolin_model_load_urdf_string": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, _handle_p]),
    "geolin_model_free": (None, [_handle]),
    "geolin_model_num_joints": (ctypes.c_int, [_handle]),
    "geolin_model_num_dofs": (ctypes.c_int, [_handle]),
    "geolin_model_state_dim": (ctypes.c_int, [_handle]),
    "geolin_model_num_bodies": (ctypes.c_int, [_handle]),
    "geolin_model_is_fixed_base": (ctypes.c_int, [_handle]),
    "geolin_model_parent": (ctypes.c_int, [_handle, ctypes.c_int]),
    "geolin_model_num_children": (ctypes.c_int, [_handle, ctypes.c_int]),
    "geolin_model_child": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_int]),
    "geolin_model_body_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_joint_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_joint_index": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "geolin_model_total_mass": (ctypes.c_double, [_handle]),
    "geolin_model_with_armature": (ctypes.c_int, [_handle, _c_double_p, _handle_p]),
    "geolin_model_armature": (ctypes.c_int, [_handle, _c_double_p]),
    "geolin_model_with_srdf_rotor_params": (ctypes.c_int, [_handle, ctypes.c_char_p, _handle_p]),
    "geolin_workspace_new": (ctypes.c_int, [_handle, _handle_p]),
    "geolin_workspace_new_ex": (ctypes.c_int, [_handle, ctypes.c_uint, ctypes.c_int, _handle_p]),
    "geolin_workspace_bytes": (ctypes.c_size_t, [_handle, ctypes.c_uint, ctypes.c_int]),
    "geolin_workspace_free": (None, [_handle]),
    "geolin_workspace_set_gravity": (ctypes.c_int, [_handle, _c_double_p]),
    "geolin_workspace_set_contact_regularization": (ctypes.c_int, [_handle, ctypes.c_double]),
    "geolin_forward_dynamics": (ctypes.c_int, [_handle] + [_c_double_p] * 6),
    "geolin_inverse_dynamics": (ctypes.c_int, [_handle] + [_c_double_p] * 6),
    "geolin_inverse_dynamics_linearize": (ctypes.c_int, [_handle] + [_c_double_p] * 8),
    "geolin_mass_matrix": (ctypes.c_int, [_handle, _c_double_p, _c_double_p]),
    "geolin_mass_matrix_inverse": (ctypes.c_int, [_handle, _c_double_p, _c_double_p]),
    "geolin_linearize": (ctypes.c_int, [_handle] + [_c_double_p] * 7),
    "geolin_linearize_finite_difference": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5 + [ctypes.c_double] + [_c_double_p] * 2),
    "geolin_model_num_frames": (ctypes.c_int, [_handle]),
    "geolin_model_frame_name": (ctypes.c_char_p, [_handle, ctypes.c_int]),
    "geolin_model_frame_index": (ctypes.c_int, [_handle, ctypes.c_char_p]),
    "geolin_frame_pose": (ctypes.c_int, [_handle, _c_double_p, _c_double_p, ctypes.c_int,
                                         _c_double_p]),
    "geolin_frame_jacobian": (ctypes.c_int, [_handle, _c_double_p, _c_double_p, ctypes.c_int,
                                             _c_double_p]),
    "geolin_forward_dynamics_ext": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_double_p, ctypes.c_uint, _c_double_p]),
    "geolin_linearize_ext": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_double_p, ctypes.c_uint, _c_double_p, _c_double_p]),
    "geolin_contact_dynamics": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 4),
    "geolin_contact_linearize": (
        ctypes.c_int, [_handle] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 6),
    "geolin_center_of_mass": (ctypes.c_int, [_handle] + [_c_double_p] * 7),
    "geolin_centroidal_momentum": (ctypes.c_int, [_handle] + [_c_double_p] * 7),
    "geolin_frame_pose_error": (ctypes.c_int, [_handle, _c_double_p, _c_double_p, ctypes.c_int]
                                + [_c_double_p] * 3),
    "geolin_frame_velocity": (ctypes.c_int, [_handle] + [_c_double_p] * 4
                              + [ctypes.c_int, ctypes.c_uint, _c_double_p, _c_double_p]),
    "geolin_frame_acceleration": (ctypes.c_int, [_handle] + [_c_double_p] * 5
                                  + [ctypes.c_int, ctypes.c_uint] + [_c_double_p] * 3),
    "geolin_step": (ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 9),
    "geolin_step_linearize": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 7),
    "geolin_impulse": (
        ctypes.c_int, [_handle] + [_c_double_p] * 4
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint, ctypes.c_double] + [_c_double_p] * 3),
    "geolin_impulse_linearize": (
        ctypes.c_int, [_handle] + [_c_double_p] * 4
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint, ctypes.c_double] + [_c_double_p] * 2),
    "geolin_contact_step": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 7),
    "geolin_contact_step_linearize": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 5
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 6),
    "geolin_step_feedback": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 13),
    "geolin_step_feedback_linearize": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 11),
    "geolin_contact_step_feedback": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 9
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 7),
    "geolin_contact_step_feedback_linearize": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 9
        + [ctypes.c_int, _c_int_p, _c_int_p, ctypes.c_uint] + [_c_double_p] * 6),
    "geolin_constraints_new": (ctypes.c_int, [_handle, _handle_p]),
    "geolin_constraints_free": (None, [_handle]),
    "geolin_constraints_add_contact": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_int, _c_double_p]),
    "geolin_constraints_add_loop": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "geolin_constraints_add_coupling": (
        ctypes.c_int, [_handle, ctypes.c_int, ctypes.c_int, ctypes.c_double, ctypes.c_double]),
    "geolin_constraints_add_mimic_joints": (ctypes.c_int, [_handle]),
    "geolin_constraints_add_wheel": (
        ctypes.c_int, [_handle, ctypes.c_int, _c_double_p, ctypes.c_double]),
    "geolin_constraints_set_gains": (ctypes.c_int, [_handle, ctypes.c_double, ctypes.c_double]),
    "geolin_constraints_set_axes": (ctypes.c_int, [_handle, ctypes.c_uint]),
    "geolin_constraints_set_ref": (ctypes.c_int, [_handle, ctypes.c_int, _c_double_p]),
    "geolin_constraints_num_rows": (ctypes.c_int, [_handle]),
    "geolin_constrained_dynamics": (ctypes.c_int, [_handle, _handle] + [_c_double_p] * 7),
    "geolin_constrained_linearize": (ctypes.c_int, [_handle, _handle] + [_c_double_p] * 9),
    "geolin_constrained_step": (
        ctypes.c_int, [_handle, _handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 10),
    "geolin_constrained_step_linearize": (
        ctypes.c_int, [_handle, _handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 9),
    "geolin_constrained_step_feedback": (
        ctypes.c_int, [_handle, _handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 14),
    "geolin_constrained_step_feedback_linearize": (
        ctypes.c_int, [_handle, _handle, ctypes.c_int, ctypes.c_double] + [_c_double_p] * 13),
    "geolin_constrained_impulse": (
        ctypes.c_int, [_handle, _handle, ctypes.c_double] + [_c_double_p] * 7),
    "geolin_constrained_impulse_linearize": (
        ctypes.c_int, [_handle, _handle, ctypes.c_double] + [_c_double_p] * 6),
    "geolin_state_integrate": (ctypes.c_int, [_handle] + [_c_double_p] * 9),
    "geolin_state_difference": (ctypes.c_int, [_handle] + [_c_double_p] * 9),
    "geolin_state_integrate_derivatives": (ctypes.c_int, [_handle] + [_c_double_p] * 7),
    "geolin_state_difference_derivatives": (ctypes.c_int, [_handle] + [_c_double_p] * 10),
}

# Functions added after the release of HEADER_VERSION: a library of that version may lack
# them. The bindings load without them; calling one raises VersionError.
_OPTIONAL = frozenset(["geolin_step_feedback", "geolin_step_feedback_linearize",
                       "geolin_contact_step_feedback",
                       "geolin_contact_step_feedback_linearize"]
                      + [name for name in _SIGNATURES  # the constraint sets (issue #39)
                         if name.startswith(("geolin_constraints_", "geolin_constrained_"))])

_lib = None


def load_library(path=None):
    """Load libgeolin (path, else $GEOLIN_LIBRARY, else the default name) and declare every
    function's signature. Called on first use; returns the ctypes.CDLL."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    if path is None:
        path = os.environ.get("GEOLIN_LIBRARY") or ctypes.util.find_library("geolin") \
            or "libgeolin.so.0"
    lib = ctypes.CDLL(path)
    _check_version(lib, path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name, None) if name in _OPTIONAL else getattr(lib, name)
        if fn is None:
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    _lib = lib
    return lib


class VersionError(RuntimeError):
    """The library at run time is not one these bindings work with (docs/c-api.md,
    "Versioning policy")."""


def _check_version(lib, path):
    """As MuJoCo checks mjVERSION_HEADER against mj_version(): the library's major version (its
    ABI, the SONAME number) must be HEADER_VERSION's, and its minor version at least ours (a
    minor version adds functions that these bindings may call)."""
    fn = lib.geolin_version
    fn.restype = None
    fn.argtypes = [_c_int_p, _c_int_p, _c_int_p]
    a, b, c = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    fn(ctypes.byref(a), ctypes.byref(b), ctypes.byref(c))
    found = (a.value, b.value, c.value)
    if found[0] != HEADER_VERSION[0] or found[1] < HEADER_VERSION[1]:
        raise VersionError(
            "geolin: the library %s is version %d.%d.%d, but these bindings were written for "
            "geolin.h %d.%d.%d: the major (ABI) version must be equal and the library's minor "
            "version at least the bindings'; use a matching libgeolin (GEOLIN_LIBRARY) or "
            "bindings" % ((path,) + found + tuple(HEADER_VERSION)))


def _L():
    return _lib if _lib is not None else load_library()


def _optional(name):
    """A function of _OPTIONAL, or VersionError if this library has none."""
    fn = getattr(_L(), name, None)
    if fn is None:
        raise VersionError("geolin: the library %s (version %d.%d.%d) has no %s, which these "
                           "bindings call: use a newer libgeolin (GEOLIN_LIBRARY)"
                           % ((_lib._name,) + version() + (name,)))
    return fn


def _decode(b):
    return None if b is None else b.decode("utf-8", "replace")


class Error(Exception):
    """A failed call: .status (a GEOLIN_ERR_* code) and .message (geolin_last_error)."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status_string(status), message))
        self.status = status
        self.message = message


def _check(status):
    if status != OK:
        raise Error(status, _decode(_L().geolin_last_error()))


def version():
    """The run-time library version (major, minor, patch)."""
    a, b, c = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    _L().geolin_version(ctypes.byref(a), ctypes.byref(b), ctypes.byref(c))
    return a.value, b.value, c.value


def status_string(status):
    """The name of a status code."""
    return _decode(_L().geolin_status_string(status))


_array_types = {}


def _c_array_type(size):
    """ctypes.c_double * size, cached (creating an array type is slow)."""
    cls = _array_types.get(size)
    if cls is None:
        cls = _array_types[size] = ctypes.c_double * size
    return cls




def _not_numbers(name, what):
    return Error(ERR_INVALID_ARGUMENT, "'%s' must be numbers (a sequence or an array of float), "
                 "not %s" % (name, what))


def _in(name, values, size):
    """A pointer to `size` doubles for the C API from an input argument (None stays NULL).

    float64 numpy arrays in column-major order and writable buffers of doubles are passed
    without copying; other arrays are converted; sequences are copied. Strings and non-numbers
    raise Error(ERR_INVALID_ARGUMENT), as does a wrong number of entries. The values themselves
    (finite, a rigid pose) are the C API's to check."""
    # The common case first, with as few Python operations as possible: a writable float64
    # ndarray in column-major memory. Its transpose is a row-major view of the same memory,
    # which is what from_buffer asks for (the same object for a 1-D array). A c_double at the
    # buffer's start (twice as fast to make as a c_double array over it) is what a
    # POINTER(c_double) argument takes: ctypes passes its address.
    if type(values) is _ndarray and values.dtype is _F64 and values.size == size and size:
        flags = values.flags
        if flags.f_contiguous and flags.writeable:
            return _c_double.from_buffer(values if values.ndim == 1 else values.T)
    return _in_any(name, values, size)


def _in_any(name, values, size):
    """_in for every other kind of input."""
    if values is None:
        return None
    if isinstance(values, (str, bytes, bytearray)):
        raise _not_numbers(name, "a %s" % type(values).__name__)
    if _np is not None and isinstance(values, _np.ndarray):
        a = values
        flags = a.flags
        # f_contiguous: column-major memory (every contiguous 1-D array is)
        if a.dtype is not _F64 or not flags.f_contiguous:
            if a.dtype.kind not in "biuf":
                raise _not_numbers(name, "an array of dtype %s" % a.dtype)
            a = _np.asfortranarray(a, dtype=_np.float64)  # matrices keep their meaning
            flags = a.flags
        if a.size != size:
            raise Error(ERR_INVALID_ARGUMENT,
                        "'%s' has %d entries, expected %d" % (name, a.size, size))
        if size == 0:
            return None
        if flags.writeable:  # a 1-D view in memory order (from_buffer needs C order)
            return _c_double.from_buffer(a if a.ndim == 1 else a.ravel(order="K"))
        return a.ctypes.data_as(_c_double_p)
    try:
        view = memoryview(values)
    except TypeError:
        view = None
    if view is not None and view.format == "d":
        if view.ndim > 1 and not view.f_contiguous:
            raise Error(ERR_INVALID_ARGUMENT, "'%s': a %d-dimensional buffer must be column-major "
                        "(Fortran order)" % (name, view.ndim))
        if not view.contiguous:
            values = view.tolist()  # strided 1-D: copied below
        else:
            count = view.nbytes // 8
            if count != size:
                raise Error(ERR_INVALID_ARGUMENT,
                            "'%s' has %d entries, expected %d" % (name, count, size))
            if size == 0:
                return None
            if view.readonly or view.ndim > 1:
                return _c_array_type(size).from_buffer_copy(view.tobytes(order="A"))
            return _c_double.from_buffer(view)
    elif view is not None:
        values = view.tolist()  # e.g. array('i'): convert; array('u') fails below
    try:
        flat = array.array("d", values)
    except TypeError:
        if hasattr(values, "__iter__"):
            bad = next((x for x in values if not isinstance(x, numbers.Real)), None)
            if bad is not None:
                raise _not_numbers(name, "a sequence containing %r" % (bad,))
        raise _not_numbers(name, "a %s" % type(values).__name__)
    if len(flat) != size:
        raise Error(ERR_INVALID_ARGUMENT,
                    "'%s' has %d entries, expected %d" % (name, len(flat), size))
    if size == 0:
        return None
    return _c_double.from_buffer(flat)


def _frames_and_wrenches(frames, wrenches):
    """(nf, int array or None, double array or None) from a list of frame indices and the
    wrenches: a flat sequence of 6 nf values, a sequence of nf 6-vectors, or an nf x 6 array
    (row k is wrench k)."""
    if isinstance(frames, (str, bytes, bytearray)):
        raise Error(ERR_INVALID_ARGUMENT, "'frames' is not a sequence of frame indices")
    frames = [] if frames is None else list(frames)
    nf = len(frames)
    if wrenches is None:
        wrenches = []
    elif _np is not None and isinstance(wrenches, _np.ndarray):
        if wrenches.dtype.kind not in "biuf":
            raise _not_numbers("wrenches", "an array of dtype %s" % wrenches.dtype)
        wrenches = _np.ascontiguousarray(wrenches, dtype=_np.float64).reshape(-1)
    elif isinstance(wrenches, (list, tuple)) and any(
            isinstance(w, (list, tuple)) or (_np is not None and isinstance(w, _np.ndarray))
            for w in wrenches):
        flat = []
        for w in wrenches:
            if isinstance(w, (str, bytes, bytearray)):
                raise _not_numbers("wrenches", "a sequence containing %r" % (w,))
            if hasattr(w, "__len__"):
                flat.extend(w)
            else:
                flat.append(w)
        wrenches = flat
    if nf == 0 and len(wrenches) == 0:
        return 0, None, None
    for f in frames:
        if not isinstance(f, numbers.Integral):
            raise Error(ERR_INVALID_ARGUMENT,
                        "'frames' is not a sequence of frame indices (found %r)" % (f,))
    c_frames = (ctypes.c_int * nf)(*[int(f) for f in frames])
    return nf, c_frames, _in("wrenches", wrenches, 6 * nf)


def _frames_and_types(frames, types):
    """(nc, int array or None, int array or None, m) for contact_dynamics / contact_linearize
    from sequences (or integer arrays) of frame indices and contact types; m = sum of types."""
    lists = []
    for name, what, values in (("frames", "frame indices", frames),
                                ("types", "contact types", types)):
        if isinstance(values, (str, bytes, bytearray)):
            raise Error(ERR_INVALID_ARGUMENT, "'%s' is not a sequence of %s" % (name, what))
        values = [] if values is None else list(values)
        for x in values:
            if not isinstance(x, numbers.Integral):
                raise Error(ERR_INVALID_ARGUMENT,
                            "'%s' is not a sequence of %s (found %r)" % (name, what, x))
        lists.append([int(x) for x in values])
    frames, types = lists
    nc = len(frames)
    if len(types) != nc:
        raise Error(ERR_INVALID_ARGUMENT,
                    "'types' has %d entries, expected %d (one per frame)" % (len(types), nc))
    for k, t in enumerate(types):
        if t not in (CONTACT_POINT, CONTACT_RIGID):
            raise Error(ERR_INVALID_ARGUMENT, "argument 'types' has %d at index %d, not "
                        "CONTACT_POINT (3) or CONTACT_RIGID (6)" % (t, k))
    if nc == 0:
        return 0, None, None, 0
    return nc, (ctypes.c_int * nc)(*frames), (ctypes.c_int * nc)(*types), sum(types)


def _refs(refs, nc):
    """The reference poses of contact_dynamics: None, 16 nc values (pose k column-major at
    16k .. 16k+15), a sequence of nc poses (16 values or 4x4 arrays), or an nc x 4 x 4 array."""
    if refs is None:
        return None
    if _np is not None and isinstance(refs, _np.ndarray) and refs.ndim == 3:
        if refs.dtype.kind not in "biuf":
            raise _not_numbers("refs", "an array of dtype %s" % refs.dtype)
        refs = [refs[k] for k in range(refs.shape[0])]
    if isinstance(refs, (list, tuple)) and any(
            isinstance(p, (list, tuple)) or (_np is not None and isinstance(p, _np.ndarray))
            for p in refs):
        flat = []
        for p in refs:
            if isinstance(p, (str, bytes, bytearray)) or not hasattr(p, "__len__"):
                raise _not_numbers("refs", "a sequence containing %r" % (p,))
            if _np is not None and isinstance(p, _np.ndarray):
                if p.dtype.kind not in "biuf":
                    raise _not_numbers("refs", "an array of dtype %s" % p.dtype)
                p = p.ravel(order="F")  # a 4x4 matrix is read as a matrix
            flat.extend(float(x) for x in p)
        refs = flat
    return _in("refs", refs, 16 * nc)


def _out(name, out, shape, as_numpy):
    """(pointer for C, result) for an output of `shape` (rows,) or (rows, cols).

    out: a preallocated float64 numpy array (1-D, or a column-major matrix) or writable buffer
    of doubles with the right number of entries: filled in place and returned. Otherwise a new
    numpy array (as_numpy True, or None with numpy installed) or a C buffer that _result()
    turns into a list (as_numpy False, or None without numpy)."""
    if out is None and (as_numpy is None or as_numpy) and _empty is not None:
        a = _empty(shape, order="F")  # filled by C: its memory is column-major
        size = a.size
        if not size:
            return None, a
        return _c_double.from_buffer(a if len(shape) == 1 else a.T), a
    size = 1
    for d in shape:
        size *= d
    if out is not None:
        if _np is not None and isinstance(out, _np.ndarray):
            flags = out.flags
            if out.dtype is not _F64:
                raise Error(ERR_INVALID_ARGUMENT,
                            "out '%s' must have dtype float64, not %s" % (name, out.dtype))
            if not flags.f_contiguous:
                raise Error(ERR_INVALID_ARGUMENT, "out '%s' must be 1-D contiguous or "
                            "Fortran-ordered (column-major), e.g. numpy.empty(%s, order='F')"
                            % (name, shape))
            if not flags.writeable:
                raise Error(ERR_INVALID_ARGUMENT, "out '%s' is read-only" % name)
            if out.size != size:
                raise Error(ERR_INVALID_ARGUMENT, "out '%s' has %d entries, expected %d %s"
                            % (name, out.size, size, "x".join(str(d) for d in shape)))
            flat = out if out.ndim == 1 else out.T  # a row-major view of the same memory
            return (_c_double.from_buffer(flat) if size else None), out
        try:
            view = memoryview(out)
        except TypeError:
            raise Error(ERR_INVALID_ARGUMENT, "out '%s' must be a numpy array or a writable "
                        "buffer of doubles, not %s" % (name, type(out).__name__))
        if view.format != "d" or view.readonly or view.ndim != 1 or not view.contiguous:
            raise Error(ERR_INVALID_ARGUMENT, "out '%s' must be a numpy array or a writable, "
                        "contiguous 1-D buffer of doubles (e.g. array.array('d'))" % name)
        if view.nbytes // 8 != size:
            raise Error(ERR_INVALID_ARGUMENT, "out '%s' has %d entries, expected %d"
                        % (name, view.nbytes // 8, size))
        return (_c_double.from_buffer(view) if size else None), out
    if as_numpy:  # True without numpy (with numpy, new arrays are made above)
        raise Error(ERR_INVALID_ARGUMENT, "as_numpy=True needs numpy, which is not installed")
    return _c_array_type(max(size, 1))(), None


def _result(buf, result, size):
    """The value returned for an output made by _out: the array itself, or a list (None for an
    output not asked for: buf and result None)."""
    if result is not None:
        return result
    if buf is None:
        return None
    # A memoryview of native doubles converts to floats about twice as fast as slicing the
    # ctypes array (whose own format, '<d', memoryview.tolist does not take).
    return memoryview(buf).cast("B").cast("d").tolist() if size else []


def _index(name, value):
    """An integer argument (frame index, flags, method): refuses strings and non-integers."""
    if type(value) is int:
        return value
    if not isinstance(value, numbers.Integral):
        raise Error(ERR_INVALID_ARGUMENT, "'%s' must be an integer, not %r" % (name, value))
    return int(value)


def _features(features):
    """The features argument of a workspace: WORKSPACE_* bits (the library refuses unknown ones)."""
    features = _index("features", features)
    if not 0 <= features <= 0xFFFFFFFF:
        raise Error(ERR_INVALID_ARGUMENT, "'features' = %d is not a set of WORKSPACE_* bits"
                    % features)
    return features


def _outs(out, count):
    """The out= argument of a function with several outputs: None or a tuple of `count`."""
    if out is None:
        return (None,) * count
    if not isinstance(out, (tuple, list)) or len(out) != count:
        raise Error(ERR_INVALID_ARGUMENT, "out must be a tuple of %d arrays" % count)
    return tuple(out)


class Model:
    """An immutable robot model (shareable between threads)."""

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_urdf_file(cls, path, flags=0):
        out = ctypes.c_void_p()
        _check(_L().geolin_model_load_urdf(os.fsencode(path), flags, ctypes.byref(out)))
        return cls(out)

    @classmethod
    def from_urdf_string(cls, xml, flags=0):
        out = ctypes.c_void_p()
        _check(_L().geolin_model_load_urdf_string(xml.encode("utf-8"), flags, ctypes.byref(out)))
        return cls(out)

    def close(self):
        """Free the model now (every workspace of it must be gone)."""
        if getattr(self, "_h", None) is not None and self._h.value:
            _L().geolin_model_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def num_joints(self):
        return _L().geolin_model_num_joints(self._h)

    @property
    def num_dofs(self):
        return _L().geolin_model_num_dofs(self._h)

    @property
    def state_dim(self):
        return _L().geolin_model_state_dim(self._h)

    @property
    def num_bodies(self):
        return _L().geolin_model_num_bodies(self._h)

    @property
    def is_fixed_base(self):
        return _L().geolin_model_is_fixed_base(self._h) == 1

    @property
    def total_mass(self):
        return _L().geolin_model_total_mass(self._h)

    def parent(self, body):
        """The parent body (-1 for the base); raises Error if body is out of range."""
        p = _L().geolin_model_parent(self._h, body)
        if p < 0 and body != 0:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return p

    def children(self, body):
        count = _L().geolin_model_num_children(self._h, body)
        if count < 0:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return [_L().geolin_model_child(self._h, body, k) for k in range(count)]

    def body_name(self, body):
        name = _L().geolin_model_body_name(self._h, body)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def joint_name(self, joint):
        name = _L().geolin_model_joint_name(self._h, joint)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def joint_index(self, name):
        """The index of a joint, or -1 if there is none of that name."""
        return _L().geolin_model_joint_index(self._h, name.encode("utf-8"))

    def with_armature(self, armature):
        """A new Model whose joints carry the reflected rotor inertias armature (n_J values,
        joint order; kg m^2, kg for a prismatic joint; finite, >= 0): every function of it uses
        M(s) + diag(0_6, armature). Replaces any armature this model had; this model is
        unchanged. Raises Error naming armature[j] and the joint for a bad entry."""
        out = ctypes.c_void_p()
        _check(_L().geolin_model_with_armature(
            self._h, _in("armature", armature, self.num_joints), ctypes.byref(out)))
        return Model(out)

    def with_srdf_rotor_params(self, path):
        """A new Model whose joints named in the SRDF's <rotor_params> (Pinocchio's format:
        <joint name="J" mass="I_rotor" gear_ratio="N"/>) carry I_rotor * N^2; the others keep
        this model's armature."""
        out = ctypes.c_void_p()
        _check(_L().geolin_model_with_srdf_rotor_params(self._h, os.fsencode(path),
                                                        ctypes.byref(out)))
        return Model(out)

    @property
    def armature(self):
        """The reflected rotor inertias, n_J values (zeros for a URDF model): a numpy array, or
        a list without numpy."""
        nj = self.num_joints
        buf, res = _out("armature", None, (nj,), None)
        _check(_L().geolin_model_armature(self._h, buf))
        return _result(buf, res, nj)

    @property
    def num_frames(self):
        """The number of frames (every URDF link, also those merged by fixed joints)."""
        return _L().geolin_model_num_frames(self._h)

    def frame_name(self, frame):
        name = _L().geolin_model_frame_name(self._h, frame)
        if name is None:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return _decode(name)

    def frame_index(self, name):
        """The index of a frame, or -1 if there is none of that name."""
        return _L().geolin_model_frame_index(self._h, name.encode("utf-8"))

    # --- the state algebra (docs/conventions.md): x exp(z), log(x0^-1 x1), their Jacobians --

    def _state_args(self, H, s, v, r, suffix=""):
        nj = self.num_joints
        return (_in("H" + suffix, H, 16), _in("s" + suffix, s, nj), _in("v" + suffix, v, 6),
                _in("r" + suffix, r, nj))

    def state_integrate(self, H, s, v, r, z, out=None, as_numpy=None):
        """x exp(z): (H_out, s_out, v_out, r_out), z = [z_H; z_s; z_v; z_r] (N). For a fixed
        base H, v may be None, and H_out, v_out are None. out=(H_out, s_out, v_out, r_out)
        fills preallocated arrays (they may be the inputs: in place)."""
        nj, N = self.num_joints, self.state_dim
        fixed = self.is_fixed_base
        out_h, out_s, out_v, out_r = _outs(out, 4)
        hb, hr = (None, None) if fixed else _out("H_out", out_h, (4, 4), as_numpy)
        sb, sr = _out("s_out", out_s, (nj,), as_numpy)
        vb, vr = (None, None) if fixed else _out("v_out", out_v, (6,), as_numpy)
        rb, rr = _out("r_out", out_r, (nj,), as_numpy)
        _check(_L().geolin_state_integrate(self._h, *self._state_args(H, s, v, r),
                                           _in("z", z, N), hb, sb, vb, rb))
        if fixed:
            return None, _result(sb, sr, nj), None, _result(rb, rr, nj)
        return (_result(hb, hr, 16), _result(sb, sr, nj), _result(vb, vr, 6),
                _result(rb, rr, nj))

    def state_difference(self, H0, s0, v0, r0, H1, s1, v1, r1, out=None, as_numpy=None):
        """z = log(x0^-1 x1) (N), the z with x0 exp(z) = x1 (rotation angle in [0, pi]; at
        exactly pi, the first largest component of the rotation vector is positive)."""
        N = self.state_dim
        buf, res = _out("z", out, (N,), as_numpy)
        _check(_L().geolin_state_difference(self._h, *self._state_args(H0, s0, v0, r0, "0"),
                                            *self._state_args(H1, s1, v1, r1, "1"), buf))
        return _result(buf, res, N)

    def state_integrate_derivatives(self, H, s, v, r, z, as_numpy=None, out=None):
        """(d_dx, d_dz), N x N column-major: (x exp(dx)) exp(z + dz) = x exp(z) exp(d_dx dx +
        d_dz dz) to first order. v and r are not read (may be None). out=(d_dx, d_dz) fills
        preallocated arrays."""
        N = self.state_dim
        out_a, out_b = _outs(out, 2)
        a, ra = _out("d_dx", out_a, (N, N), as_numpy)
        b, rb = _out("d_dz", out_b, (N, N), as_numpy)
        _check(_L().geolin_state_integrate_derivatives(
            self._h, *self._state_args(H, s, v, r), _in("z", z, N), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * N)

    def state_difference_derivatives(self, H0, s0, v0, r0, H1, s1, v1, r1, as_numpy=None,
                                     out=None):
        """(dz_dx0, dz_dx1), N x N column-major: the derivatives of log(x0^-1 x1) for x0
        exp(dx0), x1 exp(dx1). v0, r0, v1, r1 are not read (may be None). out=(dz_dx0, dz_dx1)
        fills preallocated arrays."""
        N = self.state_dim
        out_a, out_b = _outs(out, 2)
        a, ra = _out("dz_dx0", out_a, (N, N), as_numpy)
        b, rb = _out("dz_dx1", out_b, (N, N), as_numpy)
        _check(_L().geolin_state_difference_derivatives(
            self._h, *self._state_args(H0, s0, v0, r0, "0"),
            *self._state_args(H1, s1, v1, r1, "1"), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * N)

    def workspace(self, features=WORKSPACE_ALL, max_wrenches=None):
        """A new workspace sized for features (WORKSPACE_* bits) and for max_wrenches wrenches
        or contacts per call (default: one per frame)."""
        return Workspace(self, features, max_wrenches)

    def constraints(self):
        """A new, empty Constraints set of this model."""
        return Constraints(self)

    def workspace_bytes(self, features=WORKSPACE_ALL, max_wrenches=None):
        """The bytes of memory a workspace(features, max_wrenches) would allocate."""
        features = _features(features)
        max_wrenches = self.num_frames if max_wrenches is None \
            else _index("max_wrenches", max_wrenches)
        nbytes = _L().geolin_workspace_bytes(self._h, features, max_wrenches)
        if nbytes == 0:
            raise Error(ERR_INVALID_ARGUMENT, _decode(_L().geolin_last_error()))
        return nbytes


class Constraints:
    """An ordered set of constraints of one model (geolin.h "Constraint sets",
    docs/constraints.md): contacts, closed kinematic loops, joint couplings (URDF <mimic>) and
    rolling wheels, held by the Workspace.constrained_* functions. Its rows, and the entries of
    lambda, come constraint after constraint in the order added (num_rows of them). Owns its C
    handle (freed by close() or when collected) and keeps its model alive. Evaluations only read
    it (threads may share one set); its add_* and set_* methods must not run during one.

    Each add_* method returns the index of the constraint it added (the k of set_ref)."""

    def __init__(self, model):
        self.model = model  # the model must outlive the set: keep a reference
        self._count = 0
        out = ctypes.c_void_p()
        _check(_optional("geolin_constraints_new")(model._h, ctypes.byref(out)))
        self._h = out

    def close(self):
        """Free the set now (later calls with it raise Error)."""
        if getattr(self, "_h", None) is not None and self._h.value:
            _L().geolin_constraints_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if self._h is None:
            raise Error(ERR_INVALID_ARGUMENT, "'set': the Constraints was closed")
        return self._h

    def _added(self, status):
        """The index of the constraint an add_* call added (raises Error if it failed)."""
        _check(status)
        self._count += 1
        return self._count - 1

    def add_contact(self, frame, type=CONTACT_POINT, ref=None):
        """A frame held by the world as contact_dynamics holds it: type CONTACT_POINT (3 rows)
        or CONTACT_RIGID (6); ref: None or the held pose H_ref (16 values column-major, or a
        4x4 array; a point uses its translation), needed when the set's Kp != 0."""
        return self._added(_optional("geolin_constraints_add_contact")(
            self._handle(), _index("frame", frame), _index("type", type), _in("ref", ref, 16)))

    def add_loop(self, frame_a, frame_b, type=LOOP_POINT):
        """A loop closure between two frames of the robot: LOOP_POINT (their origins coincide,
        3 rows), LOOP_HINGE (and their z axes stay parallel, 5) or LOOP_RIGID (the frames
        coincide, 6). lambda: what frame_b's body applies on frame_a's at frame_a's origin."""
        return self._added(_optional("geolin_constraints_add_loop")(
            self._handle(), _index("frame_a", frame_a), _index("frame_b", frame_b),
            _index("type", type)))

    def add_coupling(self, joint, source, ratio=1.0, offset=0.0):
        """s[joint] = ratio * s[source] + offset (1 row; joint indices)."""
        return self._added(_optional("geolin_constraints_add_coupling")(
            self._handle(), _index("joint", joint), _index("source", source), float(ratio),
            float(offset)))

    def add_mimic_joints(self):
        """Every URDF <mimic> of the model as a coupling; returns the number added."""
        count = _optional("geolin_constraints_add_mimic_joints")(self._handle())
        if count < 0:
            _check(count)
        self._count += count
        return count

    def add_wheel(self, frame, axis, radius):
        """A thin wheel rolling without slipping on the plane z = 0: frame's origin is its
        centre, axis (3 values, frame coordinates) its spin axis, radius > 0 (m). 3 rows;
        lambda: the ground's force on the wheel, world axes."""
        return self._added(_optional("geolin_constraints_add_wheel")(
            self._handle(), _index("frame", frame), _in("axis", axis, 3), float(radius)))

    def set_gains(self, kp, kd):
        """The Baumgarte gains of every holonomic row (default 0, 0)."""
        _check(_optional("geolin_constraints_set_gains")(self._handle(), float(kp), float(kd)))

    def set_axes(self, flags):
        """The axes of contact and loop forces: WRENCH_LOCAL (the default) or WRENCH_MIXED."""
        _check(_optional("geolin_constraints_set_axes")(self._handle(), _index("flags", flags)))

    def set_ref(self, k, ref):
        """Set (16 values or a 4x4 array) or clear (None) the held pose of contact k."""
        _check(_optional("geolin_constraints_set_ref")(self._handle(), _index("k", k),
                                                       _in("ref", ref, 16)))

    @property
    def num_rows(self):
        """m, the number of rows (the length of lambda)."""
        return _optional("geolin_constraints_num_rows")(self._handle())

    def __len__(self):
        """The number of constraints added through this object."""
        return self._count


def _constraints(cs):
    """(handle, m) of a Constraints argument."""
    if not isinstance(cs, Constraints):
        raise Error(ERR_INVALID_ARGUMENT,
                    "'set' must be a geolin.Constraints, not %s" % type(cs).__name__)
    return cs._handle(), cs.num_rows


class Workspace:
    """Scratch memory and gravity of one thread. Keeps its model alive."""

    def __init__(self, model, features=WORKSPACE_ALL, max_wrenches=None):
        """A workspace sized for features (WORKSPACE_* bits; every feature by default) and for
        max_wrenches wrenches or contacts per call (default: one per frame)."""
        self.model = model  # the model must outlive the workspace: keep a reference
        out = ctypes.c_void_p()
        features = _features(features)
        if features == WORKSPACE_ALL and max_wrenches is None:
            _check(_L().geolin_workspace_new(model._h, ctypes.byref(out)))
        else:
            max_wrenches = model.num_frames if max_wrenches is None \
                else _index("max_wrenches", max_wrenches)
            _check(_L().geolin_workspace_new_ex(model._h, features, max_wrenches,
                                                ctypes.byref(out)))
        self._h = out
        self._nj = model.num_joints
        self._n = model.num_dofs
        self._N = model.state_dim

    def close(self):
        if getattr(self, "_h", None) is not None and self._h.value:
            _L().geolin_workspace_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def set_gravity(self, g):
        _check(_L().geolin_workspace_set_gravity(self._h, _in("g", g, 3)))

    def set_contact_regularization(self, mu):
        """Contact regularization mu >= 0 of this workspace (default 0: redundant contact sets
        are refused; mu > 0 solves them softly, docs/contacts.md section 4)."""
        _check(_L().geolin_workspace_set_contact_regularization(self._h, float(mu)))

    def _state(self, H, s, v, r):
        nj = self._nj
        return (_in("H", H, 16), _in("s", s, nj), _in("v", v, 6), _in("r", r, nj))

    def forward_dynamics(self, H, s, v, r, tau, out=None, as_numpy=None):
        """nu_dot (n) for joint torques tau. H, v may be None for a fixed base."""
        n = self._n
        buf, res = _out("nu_dot", out, (n,), as_numpy)
        _check(_L().geolin_forward_dynamics(self._h, *self._state(H, s, v, r),
                                            _in("tau", tau, self._nj), buf))
        return _result(buf, res, n)

    def inverse_dynamics(self, H, s, v, r, nu_dot, out=None, as_numpy=None):
        """[base wrench; joint torques] (n) producing nu_dot."""
        n = self._n
        buf, res = _out("generalized_force", out, (n,), as_numpy)
        _check(_L().geolin_inverse_dynamics(self._h, *self._state(H, s, v, r),
                                            _in("nu_dot", nu_dot, n), buf))
        return _result(buf, res, n)

    def inverse_dynamics_linearize(self, H, s, v, r, nu_dot, as_numpy=None, out=None):
        """(generalized_force, dtau_dz, M): the force as inverse_dynamics, its derivative in
        z = [z_H; z_s; z_v; z_r] at fixed nu_dot (column-major n x N) and in nu_dot (M, n x n).
        out=(force, dtau_dz, M) fills preallocated arrays."""
        n, N = self._n, self._N
        out_f, out_d, out_m = _outs(out, 3)
        f, rf = _out("generalized_force", out_f, (n,), as_numpy)
        d, rd = _out("dtau_dz", out_d, (n, N), as_numpy)
        m, rm = _out("M", out_m, (n, n), as_numpy)
        _check(_L().geolin_inverse_dynamics_linearize(
            self._h, *self._state(H, s, v, r), _in("nu_dot", nu_dot, n), f, d, m))
        return _result(f, rf, n), _result(d, rd, n * N), _result(m, rm, n * n)

    def mass_matrix(self, s, as_numpy=None, out=None):
        """M(s): an n x n array (a flat column-major list of n*n values without numpy)."""
        n = self._n
        buf, res = _out("M", out, (n, n), as_numpy)
        _check(_L().geolin_mass_matrix(self._h, _in("s", s, self._nj), buf))
        return _result(buf, res, n * n)

    def mass_matrix_inverse(self, s, as_numpy=None, out=None):
        n = self._n
        buf, res = _out("Minv", out, (n, n), as_numpy)
        _check(_L().geolin_mass_matrix_inverse(self._h, _in("s", s, self._nj), buf))
        return _result(buf, res, n * n)

    def linearize(self, H, s, v, r, tau, as_numpy=None, out=None):
        """(A, B): column-major N x N and N x n_J. out=(A, B) fills preallocated arrays."""
        N, nj = self._N, self._nj
        out_a, out_b = _outs(out, 2)
        a, ra = _out("A", out_a, (N, N), as_numpy)
        b, rb = _out("B", out_b, (N, nj), as_numpy)
        _check(_L().geolin_linearize(self._h, *self._state(H, s, v, r), _in("tau", tau, nj), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * nj)

    def linearize_finite_difference(self, H, s, v, r, tau, eps=1e-6, as_numpy=None, out=None):
        N, nj = self._N, self._nj
        out_a, out_b = _outs(out, 2)
        a, ra = _out("A", out_a, (N, N), as_numpy)
        b, rb = _out("B", out_b, (N, nj), as_numpy)
        _check(_L().geolin_linearize_finite_difference(
            self._h, *self._state(H, s, v, r), _in("tau", tau, nj), float(eps), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * nj)

    def frame_pose(self, H, s, frame, out=None, as_numpy=None):
        """The world pose of a frame: a 4x4 array (16 values, column-major, as a list). H may be
        None for a fixed base."""
        buf, res = _out("H_frame", out, (4, 4), as_numpy)
        _check(_L().geolin_frame_pose(self._h, _in("H", H, 16), _in("s", s, self._nj),
                                      _index("frame", frame), buf))
        return _result(buf, res, 16)

    def frame_jacobian(self, H, s, frame, as_numpy=None, out=None):
        """The frame Jacobian (6 x n, column-major): body twist of the frame = J nu."""
        n = self._n
        buf, res = _out("J", out, (6, n), as_numpy)
        _check(_L().geolin_frame_jacobian(self._h, _in("H", H, 16), _in("s", s, self._nj),
                                          _index("frame", frame), buf))
        return _result(buf, res, 6 * n)

    def forward_dynamics_ext(self, H, s, v, r, tau, frames, wrenches, flags=WRENCH_LOCAL,
                             out=None, as_numpy=None):
        """nu_dot (n) with external wrenches [force; torque] at the origins of frames
        (wrenches: nf 6-vectors, 6 nf values or an nf x 6 array; flags WRENCH_LOCAL or
        WRENCH_MIXED)."""
        n = self._n
        nf, c_frames, c_wrenches = _frames_and_wrenches(frames, wrenches)
        buf, res = _out("nu_dot", out, (n,), as_numpy)
        _check(_L().geolin_forward_dynamics_ext(self._h, *self._state(H, s, v, r),
                                                _in("tau", tau, self._nj), nf, c_frames,
                                                c_wrenches, _index("flags", flags), buf))
        return _result(buf, res, n)

    def linearize_ext(self, H, s, v, r, tau, frames, wrenches, flags=WRENCH_LOCAL,
                      as_numpy=None, out=None):
        """(A, B) with the wrenches as inputs too: N x N and N x (n_J + 6 nf)."""
        N, nj = self._N, self._nj
        nf, c_frames, c_wrenches = _frames_and_wrenches(frames, wrenches)
        out_a, out_b = _outs(out, 2)
        a, ra = _out("A", out_a, (N, N), as_numpy)
        b, rb = _out("B", out_b, (N, nj + 6 * nf), as_numpy)
        _check(_L().geolin_linearize_ext(self._h, *self._state(H, s, v, r), _in("tau", tau, nj),
                                         nf, c_frames, c_wrenches, _index("flags", flags), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * (nj + 6 * nf))

    def contact_dynamics(self, H, s, v, r, tau, frames, types, flags=WRENCH_LOCAL, gains=None,
                         refs=None, out=None, as_numpy=None):
        """(nu_dot, lambda) with contact k holding frame frames[k] (an index) as types[k]
        (CONTACT_POINT or CONTACT_RIGID) prescribes; lambda (m = sum of types) is the force or
        wrench of each contact on the robot, in the axes flags says (WRENCH_LOCAL or
        WRENCH_MIXED). gains: None or [Kp, Kd]; refs: None or the nc reference poses (16 values
        each, column-major; needed when Kp != 0). Fed to forward_dynamics_ext (a point's wrench
        with zero torque), lambda reproduces nu_dot. out=(nu_dot, lambda) fills preallocated
        arrays. Needs WORKSPACE_CONTACTS."""
        n, nj = self._n, self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        out_nu, out_lam = _outs(out, 2)
        nu, rnu = _out("nu_dot", out_nu, (n,), as_numpy)
        lam, rlam = _out("lambda", out_lam, (m,), as_numpy)
        _check(_L().geolin_contact_dynamics(
            self._h, *self._state(H, s, v, r), _in("tau", tau, nj), nc, c_frames, c_types,
            _index("flags", flags), _in("gains", gains, 2), _refs(refs, nc), nu, lam))
        return _result(nu, rnu, n), _result(lam, rlam, m)

    def contact_linearize(self, H, s, v, r, tau, frames, types, flags=WRENCH_LOCAL, gains=None,
                          refs=None, dlambda=True, as_numpy=None, out=None):
        """(A, B, dlambda_dz, dlambda_dw): the exact linearization of contact_dynamics (N x N,
        N x n_J) and the derivatives of lambda (m x N, m x n_J); arguments as contact_dynamics.
        dlambda=False skips the last two (returned as None). out=(A, B, dlambda_dz, dlambda_dw)
        fills preallocated arrays (with dlambda=False, out=(A, B)). Needs WORKSPACE_CONTACTS
        and WORKSPACE_LINEARIZE."""
        N, nj = self._N, self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        if dlambda:
            out_a, out_b, out_dz, out_dw = _outs(out, 4)
        else:
            (out_a, out_b), out_dz, out_dw = _outs(out, 2), None, None
        a, ra = _out("A", out_a, (N, N), as_numpy)
        b, rb = _out("B", out_b, (N, nj), as_numpy)
        dz, rdz = _out("dlambda_dz", out_dz, (m, N), as_numpy) if dlambda else (None, None)
        dw, rdw = _out("dlambda_dw", out_dw, (m, nj), as_numpy) if dlambda else (None, None)
        _check(_L().geolin_contact_linearize(
            self._h, *self._state(H, s, v, r), _in("tau", tau, nj), nc, c_frames, c_types,
            _index("flags", flags), _in("gains", gains, 2), _refs(refs, nc), a, b, dz, dw))
        if not dlambda:
            return _result(a, ra, N * N), _result(b, rb, N * nj), None, None
        return (_result(a, ra, N * N), _result(b, rb, N * nj), _result(dz, rdz, m * N),
                _result(dw, rdw, m * nj))

    def step(self, method, h, H, s, v, r, tau, out=None, as_numpy=None):
        """One step of length h: (H_next, s_next, v_next, r_next); method STEP_SEMI_IMPLICIT_EULER,
        STEP_RK4 or STEP_IMPLICIT_EULER. For a fixed base H, v may be None, and H_next, v_next
        are None. out=(H_next, s_next, v_next, r_next) fills
        preallocated arrays (they may be the inputs: in-place stepping; None for the fixed-base
        H_next, v_next)."""
        nj = self._nj
        fixed = self.model.is_fixed_base
        out_h, out_s, out_v, out_r = _outs(out, 4)
        hb, hr = (None, None) if fixed else _out("H_next", out_h, (4, 4), as_numpy)
        sb, sr = _out("s_next", out_s, (nj,), as_numpy)
        vb, vr = (None, None) if fixed else _out("v_next", out_v, (6,), as_numpy)
        rb, rr = _out("r_next", out_r, (nj,), as_numpy)
        _check(_L().geolin_step(self._h, _index("method", method), float(h),
                                *self._state(H, s, v, r), _in("tau", tau, nj), hb, sb, vb, rb))
        if fixed:
            return None, _result(sb, sr, nj), None, _result(rb, rr, nj)
        return (_result(hb, hr, 16), _result(sb, sr, nj), _result(vb, vr, 6),
                _result(rb, rr, nj))

    def step_linearize(self, method, h, H, s, v, r, tau, as_numpy=None, out=None):
        """(A_d, B_d): the exact linearization of step, N x N and N x n_J."""
        N, nj = self._N, self._nj
        out_a, out_b = _outs(out, 2)
        a, ra = _out("A_d", out_a, (N, N), as_numpy)
        b, rb = _out("B_d", out_b, (N, nj), as_numpy)
        _check(_L().geolin_step_linearize(self._h, _index("method", method), float(h),
                                          *self._state(H, s, v, r), _in("tau", tau, nj), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * nj)

    # --- costs and constraints (docs/dynamics.md §11): derivatives in z, N columns ----------

    def center_of_mass(self, H, s, v, r, jacobian=True, as_numpy=None):
        """(com (3), com_velocity (3), J_com (3 x n, column-major; None if not jacobian)):
        the centre of mass in the inertial frame, its velocity J_com nu. H, v may be None for
        a fixed base."""
        n = self._n
        c, rc = _out("com", None, (3,), as_numpy)
        cv, rcv = _out("com_velocity", None, (3,), as_numpy)
        j, rj = _out("J_com", None, (3, n), as_numpy) if jacobian else (None, None)
        _check(_L().geolin_center_of_mass(self._h, *self._state(H, s, v, r), c, cv, j))
        return (_result(c, rc, 3), _result(cv, rcv, 3),
                _result(j, rj, 3 * n) if jacobian else None)

    def centroidal_momentum(self, H, s, v, r, derivatives=True, as_numpy=None):
        """(h_G (6), A_G (6 x n), dh_dz (6 x N)): the centroidal momentum [linear; angular
        about the centre of mass] in inertial axes, h_G = A_G nu, and its derivative in z
        (A_G and dh_dz None if not derivatives)."""
        n, N = self._n, self._N
        h, rh = _out("h_G", None, (6,), as_numpy)
        a, ra = _out("A_G", None, (6, n), as_numpy) if derivatives else (None, None)
        d, rd = _out("dh_dz", None, (6, N), as_numpy) if derivatives else (None, None)
        _check(_L().geolin_centroidal_momentum(self._h, *self._state(H, s, v, r), h, a, d))
        if not derivatives:
            return _result(h, rh, 6), None, None
        return _result(h, rh, 6), _result(a, ra, 6 * n), _result(d, rd, 6 * N)

    def frame_pose_error(self, H, s, frame, H_ref, derivative=True, as_numpy=None):
        """(error (6), de_dz (6 x N)): log(H_ref^-1 H_F), linear first, and its derivative
        (None if not derivative). H_ref: 16 values, column-major 4x4."""
        N = self._N
        e, re = _out("error", None, (6,), as_numpy)
        d, rd = _out("de_dz", None, (6, N), as_numpy) if derivative else (None, None)
        _check(_L().geolin_frame_pose_error(self._h, _in("H", H, 16), _in("s", s, self._nj),
                                            _index("frame", frame), _in("H_ref", H_ref, 16),
                                            e, d))
        return _result(e, re, 6), (_result(d, rd, 6 * N) if derivative else None)

    def frame_velocity(self, H, s, v, r, frame, flags=WRENCH_LOCAL, derivative=True,
                       as_numpy=None):
        """(twist (6), dtwist_dz (6 x N)): WRENCH_LOCAL the body twist of the frame,
        WRENCH_MIXED [origin velocity; angular velocity] in inertial axes."""
        N = self._N
        t, rt = _out("twist", None, (6,), as_numpy)
        d, rd = _out("dtwist_dz", None, (6, N), as_numpy) if derivative else (None, None)
        _check(_L().geolin_frame_velocity(self._h, *self._state(H, s, v, r),
                                          _index("frame", frame), _index("flags", flags), t, d))
        return _result(t, rt, 6), (_result(d, rd, 6 * N) if derivative else None)

    def frame_acceleration(self, H, s, v, r, nu_dot, frame, flags=WRENCH_LOCAL,
                           derivatives=True, as_numpy=None):
        """(acc (6), dacc_dz (6 x N), dacc_dnudot (6 x n)): the classical acceleration
        [origin acceleration; angular acceleration] in the axes of flags, its derivative in z at
        fixed nu_dot and in nu_dot (the frame Jacobian in the same axes)."""
        n, N = self._n, self._N
        a, ra = _out("acc", None, (6,), as_numpy)
        d, rd = _out("dacc_dz", None, (6, N), as_numpy) if derivatives else (None, None)
        j, rj = _out("dacc_dnudot", None, (6, n), as_numpy) if derivatives else (None, None)
        _check(_L().geolin_frame_acceleration(self._h, *self._state(H, s, v, r),
                                              _in("nu_dot", nu_dot, n), _index("frame", frame),
                                              _index("flags", flags), a, d, j))
        if not derivatives:
            return _result(a, ra, 6), None, None
        return _result(a, ra, 6), _result(d, rd, 6 * N), _result(j, rj, 6 * n)

    def impulse(self, H, s, v, r, frames, types, flags=WRENCH_LOCAL, restitution=0.0, out=None,
                as_numpy=None):
        """(v_next, r_next, impulse): the impact map at touchdown, M (nu+ - nu-) = J_c^T Lambda,
        J_c nu+ = -e J_c nu- (e = restitution in [0, 1]); contacts as contact_dynamics (no gains).
        impulse (m values, N s) is the impulse on the robot in the axes flags says. For a fixed
        base H, v may be None and v_next is None. out=(v_next, r_next, impulse) fills
        preallocated arrays (they may be the inputs). Needs WORKSPACE_CONTACTS."""
        nj = self._nj
        fixed = self.model.is_fixed_base
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        out_v, out_r, out_i = _outs(out, 3)
        vb, vr = (None, None) if fixed else _out("v_next", out_v, (6,), as_numpy)
        rb, rr = _out("r_next", out_r, (nj,), as_numpy)
        ib, ir = _out("impulse", out_i, (m,), as_numpy)
        _check(_L().geolin_impulse(
            self._h, _in("H", H, 16), _in("s", s, nj), _in("v", v, 6), _in("r", r, nj), nc,
            c_frames, c_types, _index("flags", flags), float(restitution), vb, rb, ib))
        return (None if fixed else _result(vb, vr, 6)), _result(rb, rr, nj), _result(ib, ir, m)

    def impulse_linearize(self, H, s, v, r, frames, types, flags=WRENCH_LOCAL, restitution=0.0,
                          dimpulse=True, as_numpy=None, out=None):
        """(A_imp, dimpulse_dz): the exact Jacobian x- exp(z) -> x+ exp(A_imp z) of impulse
        (N x N, the identity in the pose rows) and the derivative of the impulse (m x N);
        dimpulse=False skips the latter (None). out=(A_imp, dimpulse_dz) (or out=(A_imp,)) fills
        preallocated arrays. Needs WORKSPACE_CONTACTS and WORKSPACE_LINEARIZE."""
        N, nj = self._N, self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        out_a, out_d = _outs(out, 2) if dimpulse else (_outs(out, 1)[0], None)
        a, ra = _out("A_imp", out_a, (N, N), as_numpy)
        d, rd = _out("dimpulse_dz", out_d, (m, N), as_numpy) if dimpulse else (None, None)
        _check(_L().geolin_impulse_linearize(
            self._h, _in("H", H, 16), _in("s", s, nj), _in("v", v, 6), _in("r", r, nj), nc,
            c_frames, c_types, _index("flags", flags), float(restitution), a, d))
        return _result(a, ra, N * N), (_result(d, rd, m * N) if dimpulse else None)

    def contact_step(self, method, h, H, s, v, r, tau, frames, types, flags=WRENCH_LOCAL,
                     gains=None, refs=None, out=None, as_numpy=None):
        """(H_next, s_next, v_next, r_next, lambda): one step of length h of contact_dynamics
        with the contacts, gains and refs held (arguments as step and contact_dynamics). lambda:
        the semi-implicit Euler step's forces at (x, tau), RK4's weighted mean of its stages.
        With no contacts it is step exactly. out=(H_next, s_next, v_next, r_next, lambda) fills
        preallocated arrays (they may be the inputs). Needs WORKSPACE_CONTACTS."""
        nj = self._nj
        fixed = self.model.is_fixed_base
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        out_h, out_s, out_v, out_r, out_l = _outs(out, 5)
        hb, hr = (None, None) if fixed else _out("H_next", out_h, (4, 4), as_numpy)
        sb, sr = _out("s_next", out_s, (nj,), as_numpy)
        vb, vr = (None, None) if fixed else _out("v_next", out_v, (6,), as_numpy)
        rb, rr = _out("r_next", out_r, (nj,), as_numpy)
        lb, lr = _out("lambda", out_l, (m,), as_numpy)
        _check(_L().geolin_contact_step(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), nc, c_frames, c_types, _index("flags", flags),
            _in("gains", gains, 2), _refs(refs, nc), hb, sb, vb, rb, lb))
        pose = (None, None) if fixed else (_result(hb, hr, 16), _result(vb, vr, 6))
        return pose[0], _result(sb, sr, nj), pose[1], _result(rb, rr, nj), _result(lb, lr, m)

    def contact_step_linearize(self, method, h, H, s, v, r, tau, frames, types,
                               flags=WRENCH_LOCAL, gains=None, refs=None, dlambda=True,
                               as_numpy=None, out=None):
        """(A_d, B_d, dlambda_dz, dlambda_dw): the exact linearization of contact_step (N x N,
        N x n_J) and the derivatives of its lambda (m x N, m x n_J; None with dlambda=False).
        out as contact_linearize. Needs WORKSPACE_CONTACTS and WORKSPACE_STEP_LINEARIZE."""
        N, nj = self._N, self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        if dlambda:
            out_a, out_b, out_dz, out_dw = _outs(out, 4)
        else:
            (out_a, out_b), out_dz, out_dw = _outs(out, 2), None, None
        a, ra = _out("A_d", out_a, (N, N), as_numpy)
        b, rb = _out("B_d", out_b, (N, nj), as_numpy)
        dz, rdz = _out("dlambda_dz", out_dz, (m, N), as_numpy) if dlambda else (None, None)
        dw, rdw = _out("dlambda_dw", out_dw, (m, nj), as_numpy) if dlambda else (None, None)
        _check(_L().geolin_contact_step_linearize(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), nc, c_frames, c_types, _index("flags", flags),
            _in("gains", gains, 2), _refs(refs, nc), a, b, dz, dw))
        if not dlambda:
            return _result(a, ra, N * N), _result(b, rb, N * nj), None, None
        return (_result(a, ra, N * N), _result(b, rb, N * nj), _result(dz, rdz, m * N),
                _result(dw, rdw, m * nj))


    # --- steps with joint PD feedback: tau + kp (s_ref - s) + kd (r_ref - r) in every stage ---

    def _feedback(self, kp, kd, s_ref, r_ref):
        nj = self._nj
        return (_in("kp", kp, nj), _in("kd", kd, nj), _in("s_ref", s_ref, nj),
                _in("r_ref", r_ref, nj))

    def _step_outs(self, out, count, as_numpy):
        """The buffers and results of a step's H_next, s_next, v_next, r_next (None, None for
        the fixed base's H_next, v_next) and of the outputs after them: ((buf, res), ...)."""
        nj = self._nj
        fixed = self.model.is_fixed_base
        outs = _outs(out, count)
        return (((None, None) if fixed else _out("H_next", outs[0], (4, 4), as_numpy)),
                _out("s_next", outs[1], (nj,), as_numpy),
                ((None, None) if fixed else _out("v_next", outs[2], (6,), as_numpy)),
                _out("r_next", outs[3], (nj,), as_numpy)) + outs[4:]

    def step_feedback(self, method, h, H, s, v, r, tau, kp=None, kd=None, s_ref=None,
                      r_ref=None, out=None, as_numpy=None):
        """One step of length h, as step, with the joint torques tau + kp (s_ref - s) +
        kd (r_ref - r) (elementwise) at each stage's s and r: a PD controller running inside
        the integrator (docs/dynamics.md (D57)). kp, kd (finite, >= 0), s_ref, r_ref: n_J values
        each, or None for zeros (all None: step exactly). With STEP_IMPLICIT_EULER the kd term
        is implicit, the kp term explicit. Returns (H_next, s_next, v_next, r_next); fixed
        base, out= and aliasing as step."""
        nj = self._nj
        (hb, hr), (sb, sr), (vb, vr), (rb, rr) = self._step_outs(out, 4, as_numpy)
        _check(_optional("geolin_step_feedback")(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), *self._feedback(kp, kd, s_ref, r_ref), hb, sb, vb, rb))
        return _result(hb, hr, 16), _result(sb, sr, nj), _result(vb, vr, 6), _result(rb, rr, nj)

    def step_feedback_linearize(self, method, h, H, s, v, r, tau, kp=None, kd=None, s_ref=None,
                                r_ref=None, as_numpy=None, out=None):
        """(A_d, B_d): the exact linearization of step_feedback (N x N, N x n_J): A_d includes
        the feedback's dependence on the state, B_d is in tau -> tau + w; so the derivatives in
        the references are B_d diag(kp) (s_ref) and B_d diag(kd) (r_ref). out=(A_d, B_d) fills
        preallocated arrays. Needs WORKSPACE_STEP_LINEARIZE."""
        N, nj = self._N, self._nj
        out_a, out_b = _outs(out, 2)
        a, ra = _out("A_d", out_a, (N, N), as_numpy)
        b, rb = _out("B_d", out_b, (N, nj), as_numpy)
        _check(_optional("geolin_step_feedback_linearize")(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), *self._feedback(kp, kd, s_ref, r_ref), a, b))
        return _result(a, ra, N * N), _result(b, rb, N * nj)

    def contact_step_feedback(self, method, h, H, s, v, r, tau, kp, kd, s_ref, r_ref, frames,
                              types, flags=WRENCH_LOCAL, gains=None, refs=None, out=None,
                              as_numpy=None):
        """contact_step with the joint PD feedback of step_feedback: (H_next, s_next, v_next,
        r_next, lambda). kp, kd, s_ref, r_ref: n_J values each or None (zeros; all None:
        contact_step exactly); the other arguments, out= and aliasing as contact_step. Needs
        WORKSPACE_CONTACTS."""
        nj = self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        (hb, hr), (sb, sr), (vb, vr), (rb, rr), out_l = self._step_outs(out, 5, as_numpy)
        lb, lr = _out("lambda", out_l, (m,), as_numpy)
        _check(_optional("geolin_contact_step_feedback")(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), *self._feedback(kp, kd, s_ref, r_ref), nc, c_frames, c_types,
            _index("flags", flags), _in("gains", gains, 2), _refs(refs, nc), hb, sb, vb, rb, lb))
        return (_result(hb, hr, 16), _result(sb, sr, nj), _result(vb, vr, 6),
                _result(rb, rr, nj), _result(lb, lr, m))

    def contact_step_feedback_linearize(self, method, h, H, s, v, r, tau, kp, kd, s_ref, r_ref,
                                        frames, types, flags=WRENCH_LOCAL, gains=None,
                                        refs=None, dlambda=True, as_numpy=None, out=None):
        """(A_d, B_d, dlambda_dz, dlambda_dw): the exact linearization of contact_step_feedback
        and the derivatives of its lambda (None with dlambda=False); arguments as
        contact_step_feedback, out as contact_step_linearize. Needs WORKSPACE_CONTACTS and
        WORKSPACE_STEP_LINEARIZE."""
        N, nj = self._N, self._nj
        nc, c_frames, c_types, m = _frames_and_types(frames, types)
        if dlambda:
            out_a, out_b, out_dz, out_dw = _outs(out, 4)
        else:
            (out_a, out_b), out_dz, out_dw = _outs(out, 2), None, None
        a, ra = _out("A_d", out_a, (N, N), as_numpy)
        b, rb = _out("B_d", out_b, (N, nj), as_numpy)
        dz, rdz = _out("dlambda_dz", out_dz, (m, N), as_numpy) if dlambda else (None, None)
        dw, rdw = _out("dlambda_dw", out_dw, (m, nj), as_numpy) if dlambda else (None, None)
        _check(_optional("geolin_contact_step_feedback_linearize")(
            self._h, _index("method", method), float(h), *self._state(H, s, v, r),
            _in("tau", tau, nj), *self._feedback(kp, kd, s_ref, r_ref), nc, c_frames, c_types,
            _index("flags", flags), _in("gains", gains, 2), _refs(refs, nc), a, b, dz, dw))
        if not dlambda:
            return _result(a, ra, N * N), _result(b, rb, N * nj), None, None
        return (_result(a, ra, N * N), _result(b, rb, N * nj), _result(dz, rdz, m * N),
                _result(dw, rdw, m * nj))

    # --- constraint sets (Constraints): as the contact functions, with the set in place of
    # (frames, types, flags, gains, refs); lambda has set.num_rows entries ---------------------

    def _linearization_outs(self, names, m, dlambda, out, as_numpy):
        """The (buffer, result) pairs of (A, B, dlambda_dz, dlambda_dw) (names: A's, B's);
        (None, None) for the last two with dlambda=False. out: 4 arrays, or 2 without dlambda."""
        N, nj = self._N, self._nj
        outs = _outs(out, 4) if dlambda else _outs(out, 2) + (None, None)
        shapes = ((N, N), (N, nj), (m, N), (m, nj))
        names = names + ("dlambda_dz", "dlambda_dw")
        return [(_out(names[k], outs[k], shapes[k], as_numpy) if k < 2 or dlambda
                 else (None, None)) for k in range(4)]

    @staticmethod
    def _results(pairs, sizes):
        return tuple(_result(b, res, size) for (b, res), size in zip(pairs, sizes))

    def constrained_dynamics(self, set, H, s, v, r, tau, out=None, as_numpy=None):
        """(nu_dot, lambda) with the constraints of set held (lambda: set.num_rows values, in
        the set's order). An empty set is forward_dynamics, a set of contacts only the
        contact_dynamics call with the same arguments. out=(nu_dot, lambda) fills preallocated
        arrays. Needs WORKSPACE_CONTACTS."""
        n = self._n
        handle, m = _constraints(set)
        out_nu, out_lam = _outs(out, 2)
        nu, rnu = _out("nu_dot", out_nu, (n,), as_numpy)
        lam, rlam = _out("lambda", out_lam, (m,), as_numpy)
        _check(_optional("geolin_constrained_dynamics")(
            self._h, handle, *self._state(H, s, v, r), _in("tau", tau, self._nj), nu, lam))
        return _result(nu, rnu, n), _result(lam, rlam, m)

    def constrained_linearize(self, set, H, s, v, r, tau, dlambda=True, as_numpy=None,
                              out=None):
        """(A, B, dlambda_dz, dlambda_dw) of constrained_dynamics, as contact_linearize (the
        last two None with dlambda=False). Needs WORKSPACE_CONTACTS and WORKSPACE_LINEARIZE."""
        N, nj = self._N, self._nj
        handle, m = _constraints(set)
        pairs = self._linearization_outs(("A", "B"), m, dlambda, out, as_numpy)
        _check(_optional("geolin_constrained_linearize")(
            self._h, handle, *self._state(H, s, v, r), _in("tau", tau, nj),
            *(b for b, _ in pairs)))
        return self._results(pairs, (N * N, N * nj, m * N, m * nj))

    def _constrained_step(self, set, method, h, x, tau, feedback, out, as_numpy):
        """constrained_step, or constrained_step_feedback when feedback is (kp, kd, s_ref,
        r_ref)."""
        nj = self._nj
        handle, m = _constraints(set)
        (hb, hr), (sb, sr), (vb, vr), (rb, rr), out_l = self._step_outs(out, 5, as_numpy)
        lb, lr = _out("lambda", out_l, (m,), as_numpy)
        name, fb = (("geolin_constrained_step", ()) if feedback is None else
                    ("geolin_constrained_step_feedback", self._feedback(*feedback)))
        _check(_optional(name)(self._h, handle, _index("method", method), float(h),
                               *self._state(*x), _in("tau", tau, nj), *fb, hb, sb, vb, rb, lb))
        return (_result(hb, hr, 16), _result(sb, sr, nj), _result(vb, vr, 6),
                _result(rb, rr, nj), _result(lb, lr, m))

    def _constrained_step_linearize(self, set, method, h, x, tau, feedback, dlambda, as_numpy,
                                    out):
        N, nj = self._N, self._nj
        handle, m = _constraints(set)
        pairs = self._linearization_outs(("A_d", "B_d"), m, dlambda, out, as_numpy)
        name, fb = (("geolin_constrained_step_linearize", ()) if feedback is None else
                    ("geolin_constrained_step_feedback_linearize", self._feedback(*feedback)))
        _check(_optional(name)(self._h, handle, _index("method", method), float(h),
                               *self._state(*x), _in("tau", tau, nj), *fb,
                               *(b for b, _ in pairs)))
        return self._results(pairs, (N * N, N * nj, m * N, m * nj))

    def constrained_step(self, set, method, h, H, s, v, r, tau, out=None, as_numpy=None):
        """(H_next, s_next, v_next, r_next, lambda): one step of constrained_dynamics, as
        contact_step (fixed base, out= and aliasing alike). Needs WORKSPACE_CONTACTS."""
        return self._constrained_step(set, method, h, (H, s, v, r), tau, None, out, as_numpy)

    def constrained_step_linearize(self, set, method, h, H, s, v, r, tau, dlambda=True,
                                   as_numpy=None, out=None):
        """(A_d, B_d, dlambda_dz, dlambda_dw) of constrained_step, as contact_step_linearize.
        Needs WORKSPACE_CONTACTS and WORKSPACE_STEP_LINEARIZE."""
        return self._constrained_step_linearize(set, method, h, (H, s, v, r), tau, None,
                                                dlambda, as_numpy, out)

    def constrained_step_feedback(self, set, method, h, H, s, v, r, tau, kp, kd, s_ref, r_ref,
                                  out=None, as_numpy=None):
        """constrained_step with the joint PD feedback of step_feedback (kp, kd, s_ref, r_ref:
        n_J values each or None; all None: constrained_step exactly)."""
        return self._constrained_step(set, method, h, (H, s, v, r), tau, (kp, kd, s_ref, r_ref),
                                      out, as_numpy)

    def constrained_step_feedback_linearize(self, set, method, h, H, s, v, r, tau, kp, kd,
                                            s_ref, r_ref, dlambda=True, as_numpy=None,
                                            out=None):
        """(A_d, B_d, dlambda_dz, dlambda_dw) of constrained_step_feedback."""
        return self._constrained_step_linearize(set, method, h, (H, s, v, r), tau,
                                                (kp, kd, s_ref, r_ref), dlambda, as_numpy, out)

    def constrained_impulse(self, set, H, s, v, r, restitution=0.0, out=None, as_numpy=None):
        """(v_next, r_next, impulse): the impact map of the set, as impulse (loops and
        couplings plastic; restitution on contacts and wheels' normal rows). Fixed base: v may
        be None and v_next is None. out=(v_next, r_next, impulse). Needs WORKSPACE_CONTACTS."""
        nj = self._nj
        handle, m = _constraints(set)
        out_v, out_r, out_i = _outs(out, 3)
        vb, vr = (None, None) if self.model.is_fixed_base else _out("v_next", out_v, (6,),
                                                                     as_numpy)
        rb, rr = _out("r_next", out_r, (nj,), as_numpy)
        ib, ir = _out("impulse", out_i, (m,), as_numpy)
        _check(_optional("geolin_constrained_impulse")(
            self._h, handle, float(restitution), *self._state(H, s, v, r), vb, rb, ib))
        return _result(vb, vr, 6), _result(rb, rr, nj), _result(ib, ir, m)

    def constrained_impulse_linearize(self, set, H, s, v, r, restitution=0.0, dimpulse=True,
                                      as_numpy=None, out=None):
        """(A_imp, dimpulse_dz) of constrained_impulse, as impulse_linearize (dimpulse=False:
        None). Needs WORKSPACE_CONTACTS and WORKSPACE_LINEARIZE."""
        N = self._N
        handle, m = _constraints(set)
        out_a, out_d = _outs(out, 2) if dimpulse else (_outs(out, 1)[0], None)
        a, ra = _out("A_imp", out_a, (N, N), as_numpy)
        d, rd = _out("dimpulse_dz", out_d, (m, N), as_numpy) if dimpulse else (None, None)
        _check(_optional("geolin_constrained_impulse_linearize")(
            self._h, handle, float(restitution), *self._state(H, s, v, r), a, d))
        return _result(a, ra, N * N), _result(d, rd, m * N)


def _identity_pose(x=0.0, y=0.0, z=0.0):
    """A column-major 4x4 identity rotation at (x, y, z) (handy for tests)."""
    return [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, x, y, z, 1.0]

